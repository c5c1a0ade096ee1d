//! Several servers on one PostgreSQL database (when `DAMA_TEST_POSTGRES` names one; skipped
//! otherwise): a friend's move, offer, presence or rematch made through one server reaches
//! the event streams of another; two servers taking a move for the same game at once apply it
//! once; a database that goes away makes the servers answer 503 with `Retry-After`, and they
//! recover by themselves when it is back.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{opts, Running};
use dama_web::Options;
use serde_json::{json, Value};

/// A schema of its own on the test database, dropped when this is dropped.
struct Schema {
    base: String,
    name: String,
}

impl Schema {
    fn new() -> Option<Schema> {
        let base = std::env::var("DAMA_TEST_POSTGRES").ok()?;
        let name = format!("t{:016x}", rand::random::<u64>());
        sql(&base, &format!("CREATE SCHEMA {name}"));
        Some(Schema { base, name })
    }

    /// The database address with this schema as the search path, on `host:port`.
    fn url(&self) -> String {
        let join = if self.base.contains('?') { '&' } else { '?' };
        format!("{}{join}options=-csearch_path%3D{}", self.base, self.name)
    }

    /// A server on this schema.
    fn server(&self) -> Running {
        Running::start(Options {
            database: Some(self.url()),
            ..opts()
        })
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        sql(&self.base, &format!("DROP SCHEMA {} CASCADE", self.name));
    }
}

/// Runs `statement` on the database at `url`.
fn sql(url: &str, statement: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .expect("DAMA_TEST_POSTGRES: the test database is reachable");
        tokio::spawn(conn);
        client.batch_execute(statement).await.unwrap();
    });
}

fn secret(url: &Value) -> String {
    url.as_str()
        .and_then(|u| u.split("seat=").nth(1))
        .unwrap()
        .to_string()
}

/// A new friend game through `server`: its id, White's and Black's secrets.
fn friend_game(server: &Running) -> (String, String, String) {
    let (status, g) = server.json("POST", "/api/games", &[], json!({"opponent": "friend"}));
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    (id, secret(&g["white_url"]), secret(&g["black_url"]))
}

/// An event stream of `server`, read on a thread of its own into a shared text.
fn follow(server: &Running, path: &str) -> (Arc<Mutex<String>>, TcpStream) {
    let mut stream = TcpStream::connect(server.addr).unwrap();
    let head = format!("GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    let text = Arc::new(Mutex::new(String::new()));
    let (mut reader, seen) = (stream.try_clone().unwrap(), Arc::clone(&text));
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    (text, stream)
}

/// Waits (up to 10 s) until `text` contains `what`; how long it took.
fn wait_for(text: &Mutex<String>, what: &str) -> Duration {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if text.lock().unwrap().contains(what) {
            return start.elapsed();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("{what:?} never came: {}", text.lock().unwrap());
}

/// Waits until both servers say they listen to each other.
fn ready(servers: &[&Running]) {
    for s in servers {
        let start = Instant::now();
        while s.send("GET", "/healthz", &[], "").status != 200 {
            assert!(start.elapsed() < Duration::from_secs(10), "never healthy");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn a_friends_move_offer_and_presence_through_one_server_reach_the_others_streams() {
    let Some(schema) = Schema::new() else {
        return;
    };
    let (a, b) = (schema.server(), schema.server());
    ready(&[&a, &b]);
    let (id, white, black) = friend_game(&a);
    // Black follows the game through B; White plays through A.
    let (events, _held) = follow(&b, &format!("/api/games/{id}/events?seat={black}"));
    wait_for(&events, "retry:");
    // Black's presence, counted on B, shows on A.
    let start = Instant::now();
    loop {
        let (_, g) = a.json(
            "GET",
            &format!("/api/games/{id}"),
            &[("X-Dama-Seat", &white)],
            Value::Null,
        );
        if g["presence"]["black"]["connected"] == true {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "{g}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, played) = a.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &[("X-Dama-Seat", &white)],
        json!({"move": "22-18"}),
    );
    assert_eq!(status, 200, "{played}");
    let took = wait_for(&events, "id: 1\nevent: move\n");
    assert!(took < Duration::from_secs(2), "{took:?}");
    // B now has the move: Black answers through B, White sees it on A.
    let (status, played) = b.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &[("X-Dama-Seat", &black)],
        json!({"move": "11-14"}),
    );
    assert_eq!(status, 200, "{played}");
    let (white_events, _w) = follow(&a, &format!("/api/games/{id}/events?after=1&seat={white}"));
    wait_for(&white_events, "id: 2\n");
    // A draw offer made through A reaches the stream on B.
    let (status, g) = a.json(
        "POST",
        &format!("/api/games/{id}/draw"),
        &[("X-Dama-Seat", &white)],
        json!({"action": "offer"}),
    );
    assert_eq!(status, 200, "{g}");
    wait_for(&events, "\"draw_offer\":\"white\"");
    // A presence change on B (another page of Black's) does not undo the offer on A.
    let (again, _held_too) = follow(&b, &format!("/api/games/{id}/events?seat={black}"));
    wait_for(&again, "retry:");
    std::thread::sleep(Duration::from_millis(300));
    let (_, g) = a.json(
        "GET",
        &format!("/api/games/{id}"),
        &[("X-Dama-Seat", &white)],
        Value::Null,
    );
    assert_eq!(g["draw_offer"], "white", "{g}");
    // Black accepts through B: over on both.
    let (status, g) = b.json(
        "POST",
        &format!("/api/games/{id}/draw"),
        &[("X-Dama-Seat", &black)],
        json!({"action": "accept"}),
    );
    assert_eq!((status, g["turn"].as_str()), (200, Some("over")), "{g}");
    wait_for(&white_events, "\"reason\":\"agreed\"");
    // White asks for a rematch through A: Black's stream on B is told where it is, and the
    // new game opens through B.
    let (status, g) = a.json(
        "POST",
        &format!("/api/games/{id}/rematch"),
        &[("X-Dama-Seat", &white)],
        json!({}),
    );
    assert_eq!(status, 200, "{g}");
    wait_for(&events, "\"rematch_url\":\"/");
    let (status, g) = b.json(
        "GET",
        &format!("/api/games/{id}"),
        &[("X-Dama-Seat", &black)],
        Value::Null,
    );
    let url = g["rematch_url"].as_str().unwrap_or_default().to_string();
    assert_eq!(status, 200, "{g}");
    let next = url.split("game=").nth(1).unwrap_or_default();
    let next = next.split('&').next().unwrap_or_default().to_string();
    let (status, g) = b.json("GET", &format!("/api/games/{next}"), &[], Value::Null);
    assert_eq!(status, 200, "{url}: {g}");
}

#[test]
fn two_servers_taking_moves_for_one_game_at_once_apply_one() {
    let Some(schema) = Schema::new() else {
        return;
    };
    let (a, b) = (schema.server(), schema.server());
    ready(&[&a, &b]);
    for _ in 0..5 {
        let (id, white, _) = friend_game(&a);
        // Both servers hold the game in memory.
        let path = format!("/api/games/{id}");
        assert_eq!(b.json("GET", &path, &[], Value::Null).0, 200);
        let moves = format!("/api/games/{id}/move");
        let answers: Vec<(u16, Value)> = std::thread::scope(|s| {
            let one = s.spawn(|| {
                a.json(
                    "POST",
                    &moves,
                    &[("X-Dama-Seat", &white)],
                    json!({"move": "22-18"}),
                )
            });
            let two = s.spawn(|| {
                b.json(
                    "POST",
                    &moves,
                    &[("X-Dama-Seat", &white)],
                    json!({"move": "21-17"}),
                )
            });
            vec![one.join().unwrap(), two.join().unwrap()]
        });
        let won: Vec<_> = answers.iter().filter(|(s, _)| *s == 200).collect();
        assert_eq!(won.len(), 1, "{answers:?}");
        let lost = answers.iter().find(|(s, _)| *s != 200).unwrap();
        assert_eq!(
            (lost.0, lost.1["error"]["code"].as_str()),
            (409, Some("not_your_turn")),
            "{lost:?}"
        );
        // Both servers show the one move that won.
        let winner = won[0].1["game"]["moves"].clone();
        for s in [&a, &b] {
            let (_, g) = s.json("GET", &path, &[], Value::Null);
            assert_eq!(g["moves"], winner, "{g}");
        }
    }
}

/// A TCP relay to the database that can be cut (every connection closed, new ones refused)
/// and mended, to play a database that goes down and comes back.
struct Cable {
    port: u16,
    up: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Cable {
    fn to(target: std::net::SocketAddr) -> Cable {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let up = Arc::new(AtomicBool::new(true));
        let open = Arc::new(Mutex::new(Vec::new()));
        let (up2, open2) = (Arc::clone(&up), Arc::clone(&open));
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if !up2.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(target) else {
                    continue;
                };
                let mut held = open2.lock().unwrap();
                held.push(client.try_clone().unwrap());
                held.push(server.try_clone().unwrap());
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
            }
        });
        Cable { port, up, open }
    }

    fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    fn mend(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

#[test]
fn a_database_that_goes_away_is_a_503_with_retry_after_until_it_is_back() {
    let Some(schema) = Schema::new() else {
        return;
    };
    let url = schema.url();
    let config: tokio_postgres::Config = url.parse().unwrap();
    let host = match &config.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(h) => h.clone(),
        #[allow(unreachable_patterns)]
        _ => return,
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let target = std::net::ToSocketAddrs::to_socket_addrs(&(host.as_str(), port))
        .unwrap()
        .next()
        .unwrap();
    let cable = Cable::to(target);
    let through = url.replacen(&format!(":{port}/"), &format!(":{}/", cable.port), 1);
    assert_ne!(through, url, "the address names its port");
    let server = Running::start(Options {
        database: Some(through),
        ..opts()
    });
    ready(&[&server]);
    let (id, white, _) = friend_game(&server);
    cable.cut();
    let started = Instant::now();
    let a = server.send(
        "POST",
        &format!("/api/games/{id}/move"),
        &[
            ("X-Dama-Seat", &white),
            ("Content-Type", "application/json"),
        ],
        r#"{"move": "22-18"}"#,
    );
    assert_eq!(a.status, 503, "{}", a.body);
    assert!(a.head.contains("retry-after:"), "{}", a.head);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let h = server.send("GET", "/healthz", &[], "");
    assert_eq!(h.status, 503, "{}", h.body);
    assert!(h.head.contains("retry-after:"), "{}", h.head);
    assert!(h.body.contains("\"database\":\"postgres\""), "{}", h.body);
    // New games are refused too, not hung.
    let (status, _) = server.json("POST", "/api/games", &[], json!({"opponent": "friend"}));
    assert_eq!(status, 503);
    cable.mend();
    ready(&[&server]);
    // The move was not acknowledged, and not applied: played now, it is the first.
    let (status, played) = server.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &[("X-Dama-Seat", &white)],
        json!({"move": "22-18"}),
    );
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["game"]["moves"].as_array().map(Vec::len), Some(1));
}
