//! What keeps the server safe on the internet, around the handlers: the client's address,
//! the per-address rate limits (governor's keyed limiters), the security headers of every
//! answer (tower-http layers), the anonymous player cookie and the request counters.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, MatchedPath, Request};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::error::ApiError;
use crate::state::State;

/// Nothing but this server's own files may load, no inline script or style, and no other
/// site may frame the page.
pub const POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                          script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; frame-ancestors 'none'; \
                          base-uri 'none'; form-action 'self'";

/// The security headers every answer carries, as tower-http layers.
pub fn security_headers() -> [SetResponseHeaderLayer<HeaderValue>; 5] {
    let set = |name: HeaderName, value: &'static str| {
        SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value))
    };
    [
        set(header::CONTENT_SECURITY_POLICY, POLICY),
        set(header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        set(header::X_FRAME_OPTIONS, "DENY"),
        set(header::REFERRER_POLICY, "no-referrer"),
        set(
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ]
}

/// A per-address limit: at most `per_minute` requests a minute, in bursts of as many.
pub struct Limit {
    limiter: RateLimiter<IpAddr, HashMapStateStore<IpAddr>, DefaultClock>,
    what: &'static str,
}

impl Limit {
    /// A limit of `per_minute` (0: none) on `what` ("new games").
    pub fn new(per_minute: u32, what: &'static str) -> Option<Limit> {
        let n = NonZeroU32::new(per_minute)?;
        Some(Limit {
            limiter: RateLimiter::hashmap(Quota::per_minute(n)),
            what,
        })
    }

    /// Counts a request from `ip`.
    ///
    /// # Errors
    /// 429 with `Retry-After` when `ip` is over the limit.
    pub fn check(&self, ip: IpAddr) -> Result<(), ApiError> {
        self.limiter.check_key(&ip).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.limiter.clock().now());
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            ApiError::too_many(self.what, secs.max(1))
        })
    }

    /// Forgets the addresses that are back under the limit.
    pub fn tidy(&self) {
        self.limiter.retain_recent();
    }
}

/// The client's address: the connection's peer or, behind a trusted proxy, the last address
/// of `X-Forwarded-For` (the one the proxy saw; earlier ones the client may have made up).
pub fn client_ip(headers: &HeaderMap, peer: Option<SocketAddr>, trust_proxy: bool) -> IpAddr {
    let fallback = peer.map_or(IpAddr::from([0, 0, 0, 0]), |p| p.ip());
    if !trust_proxy {
        return fallback;
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .next_back()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(fallback)
}

/// The client address of a request.
pub fn request_ip(
    state: &State,
    headers: &HeaderMap,
    peer: Option<&ConnectInfo<SocketAddr>>,
) -> IpAddr {
    client_ip(headers, peer.map(|c| c.0), state.trust_proxy)
}

/// The anonymous player of a request (the `dama_player` cookie).
#[derive(Clone, Debug)]
pub struct Player(pub String);

const COOKIE: &str = "dama_player";

/// A year, the cookie's life (renewed by each new one).
const COOKIE_AGE: Duration = Duration::from_secs(365 * 24 * 3600);

fn player_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
        .filter(|v| v.len() == 32 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Gives the request its player, from the cookie or a new one (then set on the answer).
pub async fn player_cookie(mut req: Request, next: Next) -> Response {
    let known = player_of(req.headers());
    let player = known.clone().unwrap_or_else(crate::store::secret);
    req.extensions_mut().insert(Player(player.clone()));
    let mut res = next.run(req).await;
    if known.is_none() {
        let cookie = format!(
            "{COOKIE}={player}; Path=/; Max-Age={}; HttpOnly; SameSite=Lax",
            COOKIE_AGE.as_secs()
        );
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    res
}

/// Counts each answer by route pattern and status.
pub async fn count_requests(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    req: Request,
    next: Next,
) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "other".to_string(), |p| p.as_str().to_string());
    let res = next.run(req).await;
    state.metrics.request(&route, res.status().as_u16());
    res
}

/// Refuses a request whose announced length is over the body limit before reading any of
/// it (a body without a length is cut at the limit as it is read, by `DefaultBodyLimit`).
pub async fn refuse_announced_large_bodies(req: Request, next: Next) -> Response {
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let limit = if req.uri().path() == "/api/reviews" {
        crate::review::REVIEW_BODY_LIMIT
    } else {
        crate::state::BODY_LIMIT
    };
    match announced {
        Some(n) if n > limit as u64 => {
            ApiError::rejected(StatusCode::PAYLOAD_TOO_LARGE, String::new()).into_response()
        }
        _ => next.run(req).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forwarded_address_counts_only_behind_a_trusted_proxy() {
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_static("6.6.6.6, 203.0.113.7"),
        );
        let peer: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        assert_eq!(client_ip(&h, Some(peer), false), peer.ip());
        assert_eq!(
            client_ip(&h, Some(peer), true),
            "203.0.113.7".parse::<IpAddr>().unwrap()
        );
        h.insert("x-forwarded-for", HeaderValue::from_static("junk"));
        assert_eq!(client_ip(&h, Some(peer), true), peer.ip());
    }

    #[test]
    fn a_limit_refuses_past_its_rate_per_address() {
        let limit = Limit::new(2, "new games").unwrap();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(limit.check(a).is_ok() && limit.check(a).is_ok());
        let err = limit.check(a).unwrap_err();
        assert_eq!(err.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(err.retry_after.unwrap() >= 1);
        assert!(limit.check(b).is_ok());
        assert!(Limit::new(0, "x").is_none());
    }

    #[test]
    fn only_a_well_formed_cookie_names_a_player() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=b; dama_player=0123456789abcdef0123456789abcdef"),
        );
        assert_eq!(player_of(&h).unwrap(), "0123456789abcdef0123456789abcdef");
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("dama_player=../../etc"),
        );
        assert_eq!(player_of(&h), None);
    }
}
