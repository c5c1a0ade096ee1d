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
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the server is up");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: fuzz\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer)
        .expect("an answer before the timeout");
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
    let (method, path, body): (&str, String, &[u8]) = match pick % 9 {
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
        _ => ("POST", format!("/api/{}", encode(rest)), rest),
    };
    let (status, answer) = call(port, method, &path, body);
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
    if pick % 9 == 0 && status == 201 {
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
