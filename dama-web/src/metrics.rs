//! What `GET /metrics` tells the operator, in the Prometheus text format (version 0.0.4).
//!
//! - `dama_http_requests_total{route, status}`: answers by route pattern (`/api/games/{id}`,
//!   `other` for paths that match none) and status;
//! - `dama_live_games`: games in memory; `dama_stored_games`: games in the database;
//! - `dama_searches_waiting`: computer replies waiting for a free engine;
//!   `dama_searches_running`: replies being searched;
//! - `dama_reply_seconds`: the computer's reply time (waiting included), a histogram;
//! - `dama_server_searches_total`: computer replies searched here;
//!   `dama_browser_replies_total`: computer replies the player's browser searched (the
//!   engine in WebAssembly), checked and recorded here with no search;
//! - `dama_open_connections`: TCP connections open now;
//!   `dama_refused_connections_total`: connections closed at once for being over the cap;
//! - `dama_rate_limited_total`: requests answered 429.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The upper bounds of the reply time histogram's buckets, in seconds.
const BUCKETS: [f64; 10] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0];

/// The server's counters.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, u16), u64>>,
    /// Searches waiting for an engine.
    pub searches_waiting: AtomicI64,
    /// Searches running.
    pub searches_running: AtomicI64,
    /// Open connections.
    pub open_connections: AtomicI64,
    /// Connections refused for being over the cap.
    pub refused_connections: AtomicU64,
    /// Requests answered 429.
    pub rate_limited: AtomicU64,
    /// Computer replies searched by the server.
    pub server_searches: AtomicU64,
    /// Computer replies searched by the player's browser.
    pub browser_replies: AtomicU64,
    replies: Mutex<Histogram>,
}

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Metrics {
    /// Counts one answer of `route` with `status`.
    pub fn request(&self, route: &str, status: u16) {
        let mut map = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        *map.entry((route.to_string(), status)).or_default() += 1;
    }

    /// Counts one computer reply that took `time`.
    pub fn reply(&self, time: Duration) {
        let secs = time.as_secs_f64();
        let mut h = self.replies.lock().unwrap_or_else(|e| e.into_inner());
        for (count, bound) in h.counts.iter_mut().zip(BUCKETS) {
            if secs <= bound {
                *count += 1;
            }
        }
        h.count += 1;
        h.sum += secs;
    }

    /// The text of `GET /metrics`, with `live` and `stored` games.
    pub fn render(&self, live: usize, stored: Option<u64>) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# HELP dama_http_requests_total HTTP answers by route and status."
        );
        let _ = writeln!(out, "# TYPE dama_http_requests_total counter");
        for ((route, status), n) in self
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = writeln!(
                out,
                "dama_http_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                label(route)
            );
        }
        gauge(&mut out, "dama_live_games", "Games in memory.", live as i64);
        if let Some(stored) = stored {
            gauge(
                &mut out,
                "dama_stored_games",
                "Games in the database.",
                stored as i64,
            );
        }
        gauge(
            &mut out,
            "dama_searches_waiting",
            "Computer replies waiting for a free engine.",
            self.searches_waiting.load(Ordering::Relaxed),
        );
        gauge(
            &mut out,
            "dama_searches_running",
            "Computer replies being searched.",
            self.searches_running.load(Ordering::Relaxed),
        );
        gauge(
            &mut out,
            "dama_open_connections",
            "TCP connections open.",
            self.open_connections.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "dama_refused_connections_total",
            "Connections closed at once, over the cap on open connections.",
            self.refused_connections.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "dama_rate_limited_total",
            "Requests refused with 429 by the per-address rate limit.",
            self.rate_limited.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "dama_server_searches_total",
            "Computer replies searched by the server.",
            self.server_searches.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "dama_browser_replies_total",
            "Computer replies searched by the player's browser and recorded by the server.",
            self.browser_replies.load(Ordering::Relaxed),
        );
        let h = self.replies.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(
            out,
            "# HELP dama_reply_seconds The computer's reply time, waiting included."
        );
        let _ = writeln!(out, "# TYPE dama_reply_seconds histogram");
        for (count, bound) in h.counts.iter().zip(BUCKETS) {
            let _ = writeln!(out, "dama_reply_seconds_bucket{{le=\"{bound}\"}} {count}");
        }
        let _ = writeln!(out, "dama_reply_seconds_bucket{{le=\"+Inf\"}} {}", h.count);
        let _ = writeln!(out, "dama_reply_seconds_sum {}", h.sum);
        let _ = writeln!(out, "dama_reply_seconds_count {}", h.count);
        out
    }
}

fn gauge(out: &mut String, name: &str, help: &str, value: i64) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
    );
}

fn counter(out: &mut String, name: &str, help: &str, value: u64) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}"
    );
}

/// A label value escaped as the text format wants.
fn label(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_histogram_is_cumulative_and_labels_are_escaped() {
        let m = Metrics::default();
        m.reply(Duration::from_millis(7));
        m.reply(Duration::from_secs(9));
        m.request("/a\"b", 200);
        let text = m.render(3, Some(4));
        assert!(
            text.contains("dama_reply_seconds_bucket{le=\"0.01\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("dama_reply_seconds_bucket{le=\"5\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("dama_reply_seconds_bucket{le=\"+Inf\"} 2\n"),
            "{text}"
        );
        assert!(text.contains("route=\"/a\\\"b\""), "{text}");
        assert!(text.contains("dama_live_games 3\n"), "{text}");
    }
}
