//! `dama serve`: the JSON API against the real server on a loopback port (the built binary,
//! `--port 0`), through a small HTTP/1.1 client over a TCP stream.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dama_rules::notation::fen;
use dama_rules::{Color, Game, Outcome, Variant};
use dama_search::{Engine, Limits};
use serde_json::{json, Value};

/// A running `dama serve`, stopped (Ctrl-C, else killed) when dropped.
struct Server {
    child: Child,
    addr: String,
    /// The owner's secret of each game this client created (sent as `X-Dama-Seat` with
    /// every request on that game, as the page does).
    secrets: std::sync::Mutex<std::collections::HashMap<String, String>>,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dama"))
            .args(["serve", "--port", "0"])
            .args(if args.contains(&"--data") {
                &[][..]
            } else {
                &["--memory"][..]
            })
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("dama serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the address line");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        assert!(addr.starts_with("127.0.0.1:"), "{line}");
        assert!(!addr.ends_with(":0"), "the real port is printed: {line}");
        Server {
            child,
            addr,
            secrets: Default::default(),
        }
    }

    /// Sends `method path` with `body` (raw bytes); the status and the JSON answer
    /// (`Value::Null` for an empty one).
    fn raw(&self, method: &str, path: &str, body: &[u8]) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let seat = path
            .strip_prefix("/api/games/")
            .and_then(|rest| rest.get(..32))
            .and_then(|id| self.secrets.lock().unwrap().get(id).cloned())
            .map_or_else(String::new, |s| format!("X-Dama-Seat: {s}\r\n"));
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{seat}\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        // A server may answer (413) and close before reading a huge body.
        let _ = stream.write_all(body);
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
        let text = String::from_utf8(reply).expect("a UTF-8 answer");
        let (head, body) = text
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP answer: {text:?}"));
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {head:?}"));
        let json = if body.is_empty() {
            Value::Null
        } else {
            assert!(
                head.to_ascii_lowercase()
                    .contains("content-type: application/json"),
                "{head}"
            );
            serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"))
        };
        (status, json)
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let bytes = body.map(|b| b.to_string()).unwrap_or_default();
        let (status, answer) = self.raw(method, path, bytes.as_bytes());
        if let (201, Some(id), Some(secret)) =
            (status, answer["id"].as_str(), answer["secret"].as_str())
        {
            self.secrets
                .lock()
                .unwrap()
                .insert(id.to_string(), secret.to_string());
        }
        (status, answer)
    }

    fn new_game(&self, body: Value) -> Value {
        let (status, game) = self.call("POST", "/api/games", Some(body));
        assert_eq!(status, 201, "{game}");
        game
    }

    /// Stops the server with SIGINT, as Ctrl-C does; its exit status.
    #[cfg(unix)]
    fn interrupt(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "dama serve ignored Ctrl-C");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn error_code(answer: &Value) -> &str {
    answer["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no error code: {answer}"))
}

fn game_path(game: &Value, rest: &str) -> String {
    format!("/api/games/{}{rest}", game["id"].as_str().unwrap())
}

/// The squares of a JSON list.
fn squares(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

#[test]
fn a_whole_game_against_novice() {
    let server = Server::start(&[]);
    let mut state = server.new_game(json!({"level": "novice", "seed": 11}));
    assert_eq!(state["turn"], "player");
    assert_eq!(state["level"], "novice");
    assert_eq!(state["board"], "bbbbbbbbbbbbeeeeeeeewwwwwwwwwwww");
    let mut game = Game::new();
    let mut engine = Engine::with_hash(4);
    let mut captured_by_player = 0;
    for _ in 0..400 {
        if state["turn"] == "over" {
            break;
        }
        // The player: a shallow search picks the move, entered as a path of squares.
        let m = engine.search(&game, &Limits::depth(4)).best.unwrap();
        let (status, t) = server.call(
            "GET",
            &game_path(&state, &format!("/targets?square={}", m.from().number())),
            None,
        );
        assert_eq!(status, 200, "{t}");
        let entry = t["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["hub"] == m.to_string())
            .unwrap_or_else(|| panic!("{m} not among {t}"));
        let first_landings: Vec<u64> = entry["paths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p[0].as_u64().unwrap())
            .collect();
        assert!(first_landings
            .iter()
            .all(|s| squares(&t["targets"]).contains(s)));
        let mut path = vec![u64::from(m.from().number())];
        path.extend(squares(&entry["paths"][0]));
        let (status, played) = server.call(
            "POST",
            &game_path(&state, "/move"),
            Some(json!({"path": path})),
        );
        assert_eq!(status, 200, "{played}");
        assert_eq!(played["played"]["hub"], m.to_string());
        captured_by_player += m.captured().count();
        game.play(m).unwrap();
        state = played["game"].clone();
        assert_eq!(state["fen"], fen::write(game.position()));
        if state["turn"] == "over" {
            break;
        }
        assert_eq!(state["turn"], "computer");
        // The computer.
        let (status, replied) = server.call("POST", &game_path(&state, "/reply"), None);
        assert_eq!(status, 200, "{replied}");
        let hub = replied["played"]["hub"].as_str().unwrap();
        game.play_text(hub).unwrap();
        state = replied["game"].clone();
        assert_eq!(state["fen"], fen::write(game.position()));
        assert_eq!(state["last_computer_move"]["hub"], hub);
        let last = &state["last_computer_move"];
        assert_eq!(last["path"].as_array().unwrap().last(), Some(&last["to"]));
    }
    let outcome = game.outcome().expect("the game ended within 400 plies");
    assert_eq!(state["outcome"]["result"], outcome.pdn());
    let win = match outcome {
        Outcome::Win(Color::White) => {
            assert_eq!(state["outcome"]["winner"], "player");
            100 + 50
        }
        Outcome::Win(Color::Black) => {
            assert_eq!(state["outcome"]["winner"], "computer");
            0
        }
        Outcome::Draw(_) => {
            assert!(state["outcome"]["winner"].is_null());
            0
        }
    };
    assert_eq!(state["score"], 10 * captured_by_player + win);
    assert_eq!(state["moves"].as_array().unwrap().len(), game.moves().len());
    // Nothing more may be played.
    let (status, answer) = server.call("POST", &game_path(&state, "/reply"), None);
    assert_eq!((status, error_code(&answer)), (409, "game_over"));
    let (status, answer) = server.call(
        "POST",
        &game_path(&state, "/move"),
        Some(json!({"move": "22-18"})),
    );
    assert_eq!((status, error_code(&answer)), (409, "game_over"));
}

/// A bad request: method, path, body, and the status, error code and words of the answer.
type Case = (
    &'static str,
    String,
    Vec<u8>,
    u16,
    &'static str,
    &'static str,
);

#[test]
fn illegal_and_malformed_requests_get_json_errors_naming_the_problem() {
    let server = Server::start(&[]);
    let game = server.new_game(json!({}));
    assert_eq!(game["level"], "normal", "Normal by default");
    assert_eq!(game["variant"], "italian", "Italian by default");
    let mv = game_path(&game, "/move");
    let cases: Vec<Case> = vec![
        (
            "POST",
            mv.clone(),
            br#"{"path": [22, 17]}"#.to_vec(),
            422,
            "illegal_move",
            "cannot move like that",
        ),
        (
            "POST",
            mv.clone(),
            br#"{"path": [22, 40]}"#.to_vec(),
            400,
            "bad_square",
            "40\": expected 1..32",
        ),
        (
            "POST",
            mv.clone(),
            br#"{"path": [22]}"#.to_vec(),
            400,
            "bad_path",
            "add where the piece goes",
        ),
        (
            "POST",
            mv.clone(),
            br#"{"path": "22-18"}"#.to_vec(),
            400,
            "bad_path",
            "expected a list of squares",
        ),
        (
            "POST",
            mv.clone(),
            br#"{"path": [18, 14]}"#.to_vec(),
            422,
            "illegal_move",
            "no piece on square 18",
        ),
        (
            "POST",
            mv.clone(),
            br#"{"path": [9, 13]}"#.to_vec(),
            422,
            "illegal_move",
            "is black's",
        ),
        (
            "POST",
            mv.clone(),
            br#"{"move": "hello"}"#.to_vec(),
            400,
            "malformed_move",
            "hello",
        ),
        (
            "POST",
            mv.clone(),
            br#"{"move": "21-16"}"#.to_vec(),
            422,
            "illegal_move",
            "21",
        ),
        (
            "POST",
            mv.clone(),
            br#"{}"#.to_vec(),
            400,
            "bad_request",
            "which move?",
        ),
        (
            "POST",
            mv.clone(),
            b"22-18".to_vec(),
            400,
            "malformed_json",
            "not JSON",
        ),
        (
            "POST",
            mv.clone(),
            br#"{"path": [22, 18], "why": 1}"#.to_vec(),
            400,
            "unknown_field",
            "\"why\"",
        ),
        (
            "POST",
            mv.clone(),
            vec![b' '; 5000],
            413,
            "body_too_large",
            "at most 4096 bytes",
        ),
        (
            "POST",
            game_path(&game, "/reply"),
            vec![],
            409,
            "not_computer_turn",
            "your turn",
        ),
        (
            "POST",
            game_path(&game, "/level"),
            br#"{"level": "expert"}"#.to_vec(),
            400,
            "bad_level",
            "\"expert\"",
        ),
        (
            "POST",
            game_path(&game, "/level"),
            br#"{"level": 9}"#.to_vec(),
            400,
            "bad_level",
            "1..5",
        ),
        (
            "GET",
            game_path(&game, "/targets"),
            vec![],
            400,
            "bad_square",
            "?square=N",
        ),
        (
            "GET",
            game_path(&game, "/targets?square=abc"),
            vec![],
            400,
            "bad_square",
            "\"abc\"",
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"variant": "chess"}"#.to_vec(),
            400,
            "bad_variant",
            "chess",
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"fen": "W:W99"}"#.to_vec(),
            400,
            "bad_fen",
            "99",
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"fen": "W:W1:B32"}"#.to_vec(),
            400,
            "bad_fen",
            "a white man on 1, white's promotion row",
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"fen": "B:W:B"}"#.to_vec(),
            400,
            "bad_fen",
            "no pieces at all",
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"seed": -1}"#.to_vec(),
            400,
            "bad_seed",
            "-1",
        ),
        (
            "PUT",
            "/api/games".into(),
            vec![],
            405,
            "method_not_allowed",
            "PUT",
        ),
        (
            "GET",
            "/api/nothing".into(),
            vec![],
            404,
            "not_found",
            "/api/nothing",
        ),
    ];
    for (method, path, body, status, code, words) in cases {
        let (got, answer) = server.raw(method, &path, &body);
        let shown = String::from_utf8_lossy(&body[..body.len().min(40)]).into_owned();
        assert_eq!(got, status, "{method} {path} {shown}: {answer}");
        assert_eq!(
            error_code(&answer),
            code,
            "{method} {path} {shown}: {answer}"
        );
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(words),
            "{method} {path} {shown}: {message}"
        );
    }
    // The game is untouched and the server still answers.
    let (status, again) = server.call("GET", &game_path(&game, ""), None);
    assert_eq!(status, 200);
    assert_eq!(again["fen"], game["fen"]);
    // The computer's turn: the player may not move, and may not ask about squares.
    let (status, _) = server.call("POST", &mv, Some(json!({"move": "22-18"})));
    assert_eq!(status, 200);
    let (status, answer) = server.call("POST", &mv, Some(json!({"move": "21-17"})));
    assert_eq!((status, error_code(&answer)), (409, "not_your_turn"));
    let (status, answer) = server.call("GET", &game_path(&game, "/targets?square=21"), None);
    assert_eq!((status, error_code(&answer)), (409, "not_your_turn"));
}

#[test]
fn a_huge_body_is_refused_before_it_is_read() {
    let server = Server::start(&[]);
    // A gigabyte announced: the answer comes at once, nothing of the body is awaited.
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{{"
    )
    .unwrap();
    // The answer comes whole, though the connection may stay open for the body.
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let text = loop {
        let n = stream.read(&mut buf).expect("an answer within 10 s");
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got).into_owned();
        if n == 0 || text.ends_with('}') {
            break text;
        }
    };
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(text.contains("\"body_too_large\""), "{text}");
    let (status, _) = server.call("GET", "/api", None);
    assert_eq!(status, 200, "the server goes on");
}

#[test]
fn an_unknown_game_id_is_404_and_a_malformed_one_400() {
    let server = Server::start(&[]);
    let zeros = "/api/games/00000000000000000000000000000000";
    for (method, path) in [("GET", zeros.to_string()), ("DELETE", zeros.to_string())] {
        let (status, answer) = server.call(method, &path, None);
        assert_eq!(
            (status, error_code(&answer)),
            (404, "unknown_game"),
            "{method}"
        );
    }
    let (status, answer) = server.call("POST", &format!("{zeros}/reply"), None);
    assert_eq!((status, error_code(&answer)), (404, "unknown_game"));
    let (status, answer) = server.call("GET", "/api/games/xyz", None);
    assert_eq!((status, error_code(&answer)), (400, "bad_game_id"));
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("\"xyz\""));
    let game = server.new_game(json!({}));
    let (status, _) = server.call("DELETE", &game_path(&game, ""), None);
    assert_eq!(status, 204);
    let (status, answer) = server.call("GET", &game_path(&game, ""), None);
    assert_eq!((status, error_code(&answer)), (404, "unknown_game"));
}

#[test]
fn a_piece_kept_still_by_a_capture_elsewhere_gets_the_reason_and_the_capturers() {
    let server = Server::start(&[]);
    // White must take 14 with the man on 18; the man on 21 may not move.
    let game = server.new_game(json!({"fen": "W:W18,21:B14", "level": 1}));
    let (status, t) = server.call("GET", &game_path(&game, "/targets?square=21"), None);
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["moves"], json!([]));
    assert_eq!(t["reason"]["code"], "must_capture");
    assert_eq!(squares(&t["reason"]["squares"]), [18]);
    assert_eq!(
        t["reason"]["message"],
        "A capture is compulsory and only the piece on 18 can capture"
    );
    let (status, answer) = server.call(
        "POST",
        &game_path(&game, "/move"),
        Some(json!({"path": [21, 17]})),
    );
    assert_eq!((status, error_code(&answer)), (422, "illegal_move"));
    assert_eq!(answer["error"]["reason"]["code"], "must_capture");
    // The capturer's targets, and its capture entered by its end alone.
    let (_, t) = server.call("GET", &game_path(&game, "/targets?square=18"), None);
    assert_eq!(squares(&t["targets"]), [11]);
    assert_eq!(t["moves"][0]["captured"], json!([14]));
    // A capture that loses by priority names the better one and the rule.
    let game = server.new_game(json!({"fen": "W:W22,K30:B18,K26,17"}));
    let (_, t) = server.call("GET", &game_path(&game, "/targets?square=22"), None);
    assert_eq!(t["reason"]["code"], "outranked");
    assert_eq!(t["reason"]["better"], "30x14");
    assert_eq!(squares(&t["reason"]["squares"]), [30]);
    assert!(t["reason"]["rule"].as_str().unwrap().starts_with("tier 1"));
}

#[test]
fn a_multi_jump_is_entered_by_its_landings_or_its_end() {
    let server = Server::start(&[]);
    let game = server.new_game(json!({"fen": "W:W30:B26,18,6", "level": "novice"}));
    let (_, t) = server.call("GET", &game_path(&game, "/targets?square=30"), None);
    assert_eq!(squares(&t["targets"]), [21]);
    assert_eq!(t["moves"][0]["paths"], json!([[21, 14]]));
    let (status, answer) = server.call(
        "POST",
        &game_path(&game, "/move"),
        Some(json!({"path": [30, 21]})),
    );
    assert_eq!(
        (status, answer["error"]["reason"]["code"].clone()),
        (422, json!("incomplete"))
    );
    let (status, played) = server.call(
        "POST",
        &game_path(&game, "/move"),
        Some(json!({"path": [30, 14]})),
    );
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["played"]["path"], json!([21, 14]));
    assert_eq!(played["played"]["captured"], json!([18, 26]));
    assert_eq!(played["played"]["text"], "30x14");
    assert_eq!(played["game"]["score"], 20);
}

#[test]
fn the_cap_on_live_games_refuses_one_too_many() {
    let server = Server::start(&["--max-games", "2"]);
    let first = server.new_game(json!({}));
    server.new_game(json!({}));
    let (status, answer) = server.call("POST", "/api/games", Some(json!({})));
    assert_eq!((status, error_code(&answer)), (503, "too_many_games"));
    assert!(answer["error"]["message"].as_str().unwrap().contains('2'));
    let (status, _) = server.call("DELETE", &game_path(&first, ""), None);
    assert_eq!(status, 204);
    server.new_game(json!({}));
    let (_, info) = server.call("GET", "/api", None);
    assert_eq!(info["max_games"], 2);
    assert_eq!(info["live_games"], 2);
    assert_eq!(
        info["variants"].as_array().unwrap().len(),
        Variant::ALL.len()
    );
}

#[test]
fn an_idle_game_expires() {
    let server = Server::start(&["--idle", "1"]);
    let game = server.new_game(json!({}));
    std::thread::sleep(Duration::from_millis(2600));
    let (status, answer) = server.call("GET", &game_path(&game, ""), None);
    assert_eq!((status, error_code(&answer)), (404, "unknown_game"));
}

#[test]
fn a_long_search_stalls_neither_other_requests_nor_its_own_game() {
    let server = Arc::new(Server::start(&["--searchers", "1"]));
    // A position out of the opening book (where Hard would answer at once).
    let fen = "W:W21,22,23,24,25,26,27,28,29,30,31:B1,2,3,4,5,6,7,8,9,10,11";
    let game = server.new_game(json!({"level": "hard", "fen": fen}));
    let (status, _) = server.call(
        "POST",
        &game_path(&game, "/move"),
        Some(json!({"path": [22, 18]})),
    );
    assert_eq!(status, 200);
    let done = Arc::new(AtomicBool::new(false));
    let thinker = {
        let (server, done, path) = (
            Arc::clone(&server),
            Arc::clone(&done),
            game_path(&game, "/reply"),
        );
        std::thread::spawn(move || {
            let answer = server.call("POST", &path, None);
            done.store(true, Ordering::SeqCst);
            answer
        })
    };
    // Hard thinks for a second; meanwhile the server answers, and refuses to touch the game.
    std::thread::sleep(Duration::from_millis(250));
    let (status, state) = server.call("GET", &game_path(&game, ""), None);
    assert_eq!(status, 200);
    assert_eq!(state["thinking"], true);
    let (status, answer) = server.call(
        "POST",
        &game_path(&game, "/move"),
        Some(json!({"move": "21-17"})),
    );
    assert_eq!((status, error_code(&answer)), (409, "computer_thinking"));
    let (status, answer) = server.call("POST", &game_path(&game, "/reply"), None);
    assert_eq!((status, error_code(&answer)), (409, "computer_thinking"));
    let other = server.new_game(json!({}));
    assert_eq!(other["turn"], "player");
    assert!(
        !done.load(Ordering::SeqCst),
        "the answers came while the computer thought"
    );
    let (status, replied) = thinker.join().unwrap();
    assert_eq!(status, 200, "{replied}");
    assert_eq!(replied["game"]["turn"], "player");
    assert_eq!(replied["game"]["thinking"], false);
}

#[test]
fn the_page_and_its_files_are_served_from_the_binary() {
    let server = Server::start(&[]);
    for (path, kind, words) in [
        ("/", "text/html", "<svg id=\"board\""),
        ("/app.js", "text/javascript", "aria-label"),
        ("/style.css", "text/css", "#board"),
        ("/texts.js", "text/javascript", "Play a friend"),
        ("/api.js", "text/javascript", "x-dama-seat"),
    ] {
        let mut stream = TcpStream::connect(&server.addr).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        assert!(
            text.starts_with("HTTP/1.1 200"),
            "{path}: {}",
            &text[..40.min(text.len())]
        );
        assert!(
            text.to_ascii_lowercase()
                .contains(&format!("content-type: {kind}")),
            "{path}"
        );
        assert!(
            text.contains("content-security-policy: default-src 'self'"),
            "{path}"
        );
        assert!(text.contains(words), "{path} lacks {words}");
        for remote in [
            "src=\"http",
            "href=\"http",
            "url(http",
            "fetch('http",
            "//cdn",
        ] {
            assert!(
                !text.contains(remote),
                "{path} loads nothing from elsewhere: {remote}"
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_server_cleanly() {
    let server = Server::start(&[]);
    server.new_game(json!({}));
    let status = server.interrupt();
    assert!(status.success(), "{status}");
}

#[test]
fn a_server_killed_mid_game_has_every_acknowledged_move_when_started_again() {
    let dir = std::env::temp_dir().join(format!("dama-serve-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.to_str().unwrap();
    let mut server = Server::start(&["--data", data]);
    let game = server.new_game(json!({"level": "novice", "seed": 3}));
    let path = game_path(&game, "");
    let mut acknowledged = Value::Null;
    for _ in 0..4 {
        let (_, now) = server.call("GET", &path, None);
        let first = squares(&now["movable"])[0];
        let (_, t) = server.call(
            "GET",
            &game_path(&game, &format!("/targets?square={first}")),
            None,
        );
        let mv = t["moves"][0]["hub"].as_str().unwrap().to_string();
        let (status, played) = server.call(
            "POST",
            &game_path(&game, "/move"),
            Some(json!({"move": mv})),
        );
        assert_eq!(status, 200, "{played}");
        let (status, replied) = server.call("POST", &game_path(&game, "/reply"), None);
        assert_eq!(status, 200, "{replied}");
        acknowledged = replied["game"].clone();
    }
    // SIGKILL: no chance to flush anything.
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let server = Server::start(&["--data", data]);
    let (status, after) = server.call("GET", &path, None);
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["moves"], acknowledged["moves"]);
    assert_eq!(after["fen"], acknowledged["fen"]);
    assert_eq!(after["moves"].as_array().unwrap().len(), 8);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
