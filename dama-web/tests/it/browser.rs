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
