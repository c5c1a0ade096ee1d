//! JSON requests to the web server, `dama serve`: never a crash, a hang, a 5xx (but 503 for a
//! full store) or an error without a JSON body naming the problem.
//!
//! The server is the real binary, started once per fuzzing process on a loopback port (set
//! `DAMA_BIN`, default `../target/release/dama`: build it with `cargo build --release -p
//! dama-cli` first). The first byte of an input picks the request, the second a game (one
//! made by the target, or a fuzzed id), the rest is the body or the query.
#![no_main]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;

struct Server {
    _child: Child,
    port: u16,
    games: Vec<String>,
}

fn server() -> &'static Mutex<Server> {
    static SERVER: OnceLock<Mutex<Server>> = OnceLock::new();
    SERVER.get_or_init(|| {
        let bin = std::env::var("DAMA_BIN").unwrap_or_else(|_| "../target/release/dama".into());
        let mut child = Command::new(&bin)
            .args([
                "serve",
                "--port",
                "0",
                "--max-games",
                "20",
                "--searchers",
                "1",
                "--memory",
                "--games-per-minute",
                "0",
                "--replies-per-minute",
                "0",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the server prints its address");
        // "dama serve: http://127.0.0.1:PORT/ ...": the digits after the host.
        let port = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|host| host.rsplit(':').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Mutex::new(Server {
            _child: child,
            port,
            games: Vec::new(),
        })
    })
}

/// One HTTP/1.1 request on a fresh connection: the status and the body.
fn call(port: u16, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    call_with(port, method, path, "", body, false)
}

/// A request with `extra` header lines; a `stream` (Server-Sent Events, which never end) is
/// read for a moment only.
fn call_with(
    port: u16,
    method: &str,
    path: &str,
    extra: &str,
    body: &[u8],
    stream: bool,
) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the server is up");
    let wait = if stream { 300 } else { 20_000 };
    s.set_read_timeout(Some(Duration::from_millis(wait)))
        .unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: fuzz\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut answer = Vec::new();
    let read = s.read_to_end(&mut answer);
    if !stream || !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        read.expect("an answer before the timeout");
    }
    let text = String::from_utf8_lossy(&answer);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let body = match answer.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(i) => answer[i + 4..].to_vec(),
        None => Vec::new(),
    };
    (status, body)
}

/// Bytes made safe for a request line (the path and query), percent-encoded.
fn encode(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let (Some(&pick), Some(&which)) = (data.first(), data.get(1)) else {
        return;
    };
    let rest = &data[2..];
    let mut server = server().lock().unwrap_or_else(|e| e.into_inner());
    let port = server.port;
    let id = match server.games.get(which as usize % 8) {
        Some(id) if which < 200 => id.clone(),
        _ => encode(&rest[..rest.len().min(12)]),
    };
    let seat = format!("X-Dama-Seat: {}\r\n", encode(&rest[..rest.len().min(16)]));
    let (extra, stream) = match pick % 13 {
        11 => (seat.as_str(), false),
        12 => ("Last-Event-ID: 1\r\n", true),
        _ => ("", false),
    };
    let (method, path, body): (&str, String, &[u8]) = match pick % 13 {
        0 => ("POST", "/api/games".into(), rest),
        1 => ("GET", format!("/api/games/{id}"), b""),
        2 => (
            "GET",
            format!("/api/games/{id}/targets?{}", encode(rest)),
            b"",
        ),
        3 => (
            "GET",
            format!("/api/games/{id}/targets?square={}", which % 40),
            b"",
        ),
        4 => ("POST", format!("/api/games/{id}/move"), rest),
        5 => ("POST", format!("/api/games/{id}/reply"), rest),
        6 => ("POST", format!("/api/games/{id}/level"), rest),
        7 => ("DELETE", format!("/api/games/{id}"), b""),
        9 => ("GET", "/api/me".into(), b""),
        10 if which % 2 == 0 => ("GET", "/healthz".into(), b""),
        10 => ("GET", "/metrics".into(), b""),
        11 => ("POST", format!("/api/games/{id}/move"), rest),
        12 => (
            "GET",
            format!("/api/games/{id}/events?after={}", encode(rest)),
            b"",
        ),
        _ => ("POST", format!("/api/{}", encode(rest)), rest),
    };
    let (status, answer) = call_with(port, method, &path, extra, body, stream);
    assert!(
        status < 500 || status == 503,
        "{method} {path} {body:?}: status {status}, {}",
        String::from_utf8_lossy(&answer)
    );
    let json = String::from_utf8_lossy(&answer);
    if status >= 400 {
        assert!(
            json.starts_with('{') && json.contains("\"error\""),
            "{method} {path}: {status} without a JSON error: {json}"
        );
    }
    if stream && status == 200 {
        // Each event a move: "id: N", "event: move", then its JSON.
        for line in json.lines().filter_map(|l| l.strip_prefix("data: ")) {
            assert!(
                line.starts_with('{'),
                "{path}: an event's data is not JSON: {line}"
            );
        }
    }
    if pick % 13 == 0 && status == 201 {
        // Keep the game for later inputs (its id is the first string of the answer).
        if let Some(id) = json.split('"').nth(3) {
            if server.games.len() >= 8 {
                let old = server.games.remove(0);
                call(port, "DELETE", &format!("/api/games/{old}"), b"");
            }
            server.games.push(id.to_string());
        }
    }
});
