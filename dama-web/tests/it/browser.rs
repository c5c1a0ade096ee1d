//! The computer's move searched in the player's browser: the server checks it and records it
//! with no search, and says so in /metrics.

use serde_json::{json, Value};

use crate::common::{opts, Running};

/// A counter's value in `GET /metrics`.
fn counter(server: &Running, name: &str) -> u64 {
    let text = server.send("GET", "/metrics", &[], "").body;
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

#[test]
fn a_browser_searched_reply_is_checked_and_recorded_without_a_search() {
    let server = Running::start(opts());
    let (status, game) = server.json("POST", "/api/games", &[], json!({"level": "hard"}));
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_string();
    let secret = game["secret"].as_str().unwrap().to_string();
    let mine = [("X-Dama-Seat", secret.as_str())];
    let path = |rest: &str| format!("/api/games/{id}{rest}");
    // Not the computer's turn yet.
    let (status, err) = server.json("POST", &path("/reply"), &mine, json!({"move": "11-15"}));
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (409, Some("not_computer_turn"))
    );
    let (status, played) = server.json("POST", &path("/move"), &mine, json!({"move": "22-18"}));
    assert_eq!(status, 200, "{played}");
    // What the browser would need: the start and the moves in the engine's numbers.
    assert_eq!(
        played["game"]["start_fen"],
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
    assert_eq!(played["game"]["history"], json!(["22-18"]));
    // An illegal or malformed move is refused, the game unchanged; a stranger may not.
    for (body, code) in [
        (json!({"move": "11-16"}), "illegal_move"),
        (json!({"move": 7}), "malformed_move"),
        (json!({"move": "hello"}), "malformed_move"),
        (json!({"mvoe": "11-15"}), "unknown_field"),
    ] {
        let (status, err) = server.json("POST", &path("/reply"), &mine, body.clone());
        assert!((400..500).contains(&status), "{body}: {status} {err}");
        assert_eq!(err["error"]["code"].as_str(), Some(code), "{body}: {err}");
    }
    let (status, _) = server.json("POST", &path("/reply"), &[], json!({"move": "11-15"}));
    assert_eq!(status, 403);
    let (_, view) = server.json("GET", &path(""), &mine, Value::Null);
    assert_eq!(view["ply"], 1);
    // The browser's move is played as the computer's.
    let (status, played) = server.json("POST", &path("/reply"), &mine, json!({"move": "11-15"}));
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["game"]["turn"], "player");
    assert_eq!(played["game"]["last_computer_move"]["text"], "11-15");
    assert_eq!(played["game"]["history"], json!(["22-18", "11-15"]));
    assert_eq!(counter(&server, "dama_browser_replies_total"), 1);
    assert_eq!(counter(&server, "dama_server_searches_total"), 0);
    // Without a move, the server searches, as for a browser that cannot.
    let mut game = dama_rules::Game::new();
    for m in ["22-18", "11-15"] {
        game.play_text(m).unwrap();
    }
    let next = game.sorted_legal_moves()[0].to_string();
    let (status, _) = server.json("POST", &path("/move"), &mine, json!({ "move": next }));
    assert_eq!(status, 200);
    let (status, played) = server.json("POST", &path("/reply"), &mine, Value::Null);
    assert_eq!(status, 200, "{played}");
    assert_eq!(counter(&server, "dama_server_searches_total"), 1);
}

#[test]
fn the_page_is_given_the_browser_engine_and_may_compile_it() {
    let server = Running::start(opts());
    let wasm = server.send("HEAD", "/engine/dama.wasm", &[], "");
    assert_eq!(wasm.status, 200);
    let size = std::fs::metadata(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../dama-wasm/dama.wasm"
    ))
    .unwrap()
    .len();
    assert!(
        wasm.head.contains(&format!("content-length: {size}")),
        "{}",
        wasm.head
    );
    assert!(
        wasm.head.contains("content-type: application/wasm"),
        "{}",
        wasm.head
    );
    for script in [
        "/engine/js/dama.mjs",
        "/engine/js/client.mjs",
        "/engine/js/worker.mjs",
    ] {
        let a = server.send("GET", script, &[], "");
        assert_eq!(a.status, 200, "{script}");
        assert!(a.head.contains("text/javascript"), "{script}: {}", a.head);
    }
    let page = server.send("GET", "/", &[], "");
    assert!(page.head.contains("'wasm-unsafe-eval'"), "{}", page.head);
}

/// The page's own engine (dama-wasm's `api` command) answers a game kept in the browser as
/// the server answers the same game: the same views, request for request, but for the id
/// and the owner's secret.
#[test]
fn the_browsers_engine_answers_a_kept_game_as_the_server_does() {
    let server = Running::start(opts());
    let mut session = dama_wasm::Session::new();
    let mut record = Value::Null;
    let mut local = |method: &str, path: &str, body: Value| -> (u64, Value) {
        let request = json!({
            "cmd": "api", "method": method, "path": path, "body": body,
            "record": record.clone(), "id": "kept",
        });
        let answer: Value =
            serde_json::from_str(&session.handle(&request.to_string(), &mut |_| {})).unwrap();
        let ok = &answer["ok"];
        if !ok["record"].is_null() || method == "DELETE" {
            record = ok["record"].clone();
        }
        (ok["status"].as_u64().unwrap(), ok["body"].clone())
    };
    // The same, but for the game's id, the secret and the seats' addresses.
    let same = |what: &str, mut a: Value, mut b: Value| {
        for v in [&mut a, &mut b] {
            if let Some(o) = v.as_object_mut() {
                for k in ["id", "secret"] {
                    o.remove(k);
                }
                if let Some(g) = o.get_mut("game").and_then(Value::as_object_mut) {
                    g.remove("id");
                }
            }
        }
        assert_eq!(a, b, "{what}: the server and the browser differ");
    };
    let (s1, a) = server.json(
        "GET",
        "/api/preview?variant=russian&level=strong",
        &[],
        Value::Null,
    );
    let (s2, b) = local(
        "GET",
        "/api/preview?variant=russian&level=strong",
        Value::Null,
    );
    assert_eq!((s1, s2), (200, 200));
    same("preview", a, b);
    let fen = "W:W22,K30,27:B18,9,2";
    let (s1, a) = server.json(
        "POST",
        "/api/games",
        &[],
        json!({"level": "easy", "fen": fen}),
    );
    let (s2, b) = local("POST", "/api/games", json!({"level": "easy", "fen": fen}));
    assert_eq!((s1, s2), (201, 201), "{a} {b}");
    let id = a["id"].as_str().unwrap().to_string();
    let secret = a["secret"].as_str().unwrap().to_string();
    let mine = [("X-Dama-Seat", secret.as_str())];
    same("new game", a, b);
    let requests = [
        ("GET", "/targets?square=22", Value::Null),
        ("GET", "/targets?square=27", Value::Null),
        ("POST", "/move", json!({"path": [27, 23]})),
        ("POST", "/move", json!({"path": [22]})),
        ("POST", "/move", json!({"move": "22x13"})),
        ("POST", "/reply", json!({"move": "9-14"})),
        ("POST", "/reply", json!({"move": "9x18"})),
        ("POST", "/level", json!({"level": "hard"})),
        ("POST", "/move", json!({"path": [30, 26]})),
        ("GET", "", Value::Null),
        ("POST", "/move", json!({"path": [27, 23]})),
        ("POST", "/resign", Value::Null),
    ];
    let mut statuses = Vec::new();
    for (method, rest, body) in requests {
        let (s1, a) = server.json(
            method,
            &format!("/api/games/{id}{rest}"),
            &mine,
            body.clone(),
        );
        statuses.push(s1);
        let (s2, b) = local(method, &format!("/api/games/kept{rest}"), body.clone());
        let what = format!("{method} {rest} {body}");
        assert_eq!(u64::from(s1), s2, "{what}: {a} {b}");
        if s1 < 400 {
            same(&what, a, b);
        } else {
            assert_eq!(a["error"]["code"], b["error"]["code"], "{what}");
            assert_eq!(a["error"]["reason"], b["error"]["reason"], "{what}");
        }
    }
    // Refusals and moves both: the rules' reasons, the players' and the computer's moves.
    assert_eq!(
        statuses,
        [200, 200, 422, 400, 200, 422, 200, 200, 200, 200, 409, 409],
        "the statuses"
    );
}

/// `dama serve --export`: every file the page and its service worker ask for, the pages
/// marked as a static copy, the module the same bytes as dama-wasm's.
#[test]
fn the_static_copy_has_every_file_the_page_asks_for() {
    let dir = std::env::temp_dir().join(format!("dama-export-{}", std::process::id()));
    let files = dama_web::export(&dir).unwrap();
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(page.contains(r#"<meta name="dama-static" content="1">"#));
    let board = std::fs::read_to_string(dir.join("analysis/index.html")).unwrap();
    assert!(board.contains("dama-static") && board.contains("analysis.js"));
    let module = std::fs::read(dir.join("engine/dama.wasm")).unwrap();
    let committed = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../dama-wasm/dama.wasm"
    ));
    assert!(module == committed.unwrap(), "the exported module differs");
    let sw = std::fs::read_to_string(dir.join("sw.js")).unwrap();
    let shell = &sw[sw.find("const SHELL").unwrap()..sw.find("];").unwrap()];
    for path in shell.split('\'').skip(1).step_by(2) {
        let file = match path {
            "/" => "index.html".to_string(),
            p if p.ends_with('/') => format!("{}index.html", &p[1..]),
            "/analysis" => "analysis.html".to_string(),
            p => p[1..].to_string(),
        };
        assert!(files.contains(&file), "{path}: no {file} in {files:?}");
        assert!(dir.join(&file).is_file(), "{file}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A review made by the browser's engine (dama-wasm's `review`, for a page with no server)
/// sends the same lines as the server's streamed review of the same PDN at the same budget.
#[test]
fn the_browsers_engine_reviews_a_pdn_as_the_server_does() {
    let server = Running::start(opts());
    let pdn = include_str!("../../../tests/browser/review.pdn");
    let body = json!({"pdn": pdn, "nodes": 3000, "stream": true}).to_string();
    let a = server.send(
        "POST",
        "/api/reviews",
        &[("Content-Type", "application/json")],
        &body,
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let served: Vec<Value> = a
        .body
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut session = dama_wasm::Session::new();
    let mut lines = Vec::new();
    let request = json!({"cmd": "review", "pdn": pdn, "nodes": 3000}).to_string();
    let answer: Value =
        serde_json::from_str(&session.handle(&request, &mut |l| lines.push(l.to_string())))
            .unwrap();
    assert_eq!(answer["ok"]["thresholds"]["??"], 200, "{answer}");
    let local: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(served.len() > 10, "{} lines", served.len());
    assert_eq!(served.len(), local.len());
    for (s, l) in served.iter().zip(&local) {
        assert_eq!(s, l, "the server and the browser differ");
    }
    // A PDN the reader refuses: the reader's words, with the line and column.
    let bad = json!({"cmd": "review", "pdn": "[GameType \"22\"]\n1. 22-18 bogus *"});
    let answer: Value =
        serde_json::from_str(&session.handle(&bad.to_string(), &mut |_| {})).unwrap();
    let error = answer["error"].as_str().unwrap();
    assert!(
        error.contains("bogus") && error.contains("line 2"),
        "{error}"
    );
}
