//! The analysis API: reviews of PDN games (scores, marks, errors), games out as PDN, live
//! analysis as Server-Sent Events, and analysis work that does not stall the players.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{opts, Running, JSON};
use dama_rules::notation::{fen, pdn};
use dama_rules::{Game, Variant};
use dama_search::{Endgames, Engine, Limits, Signals};
use serde_json::{json, Value};

/// White (a man up) to move: 23-19?? lets 15x31 take two men and crown; 23-20 and 27-22
/// are safe. Black's reply is forced.
const BLUNDER: &str = "[FEN \"W:W23,24,27:B15,1\"]\n1. 23-19 15x31 *\n";

fn review(server: &Running, body: Value) -> (u16, Value) {
    server.json("POST", "/api/reviews", &[], body)
}

/// What the server's search says of `fen` at `depth` (a fresh engine, as the server's, with
/// the same endgame tables, the in-memory ones).
fn engine_score(fen_text: &str, depth: u32) -> (i32, String, u32) {
    let game = Game::from_position(Variant::Italian, fen::parse(fen_text).unwrap());
    let mut engine = Engine::with_hash(8);
    engine.set_endgames(Endgames::memory_only());
    let limits = Limits {
        depth: Some(depth),
        nodes: Some(200_000),
        ..Limits::default()
    };
    let r = engine.analyze_with(&game, &limits, &Signals::default(), &mut |_| {});
    (r.score.0, r.best.unwrap().to_string(), r.depth)
}

#[test]
fn a_review_scores_every_position_for_the_side_to_move() {
    let server = Running::start(opts());
    let (status, body) = review(&server, json!({"pdn": BLUNDER, "depth": 6}));
    assert_eq!(status, 200, "{body}");
    let game = &body["games"][0];
    let plies = game["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 2);
    for p in plies {
        let (score, best, depth) = engine_score(p["fen"].as_str().unwrap(), 6);
        assert_eq!(p["score"], score, "{p}");
        assert_eq!(p["best"], best, "{p}");
        assert_eq!(p["depth"], depth, "{p}");
        assert!((1..=6).contains(&depth), "{p}");
    }
    // White is a man up before the blunder; Black, to take two, is winning after it; and at
    // the end White, two men and a king down, is lost.
    assert!(plies[0]["score"].as_i64().unwrap() > 0, "{}", plies[0]);
    assert!(plies[1]["score"].as_i64().unwrap() > 100, "{}", plies[1]);
    assert!(
        game["final"]["score"].as_i64().unwrap() < -100,
        "{}",
        game["final"]
    );
    assert_eq!(plies[0]["side"], "white");
    assert_eq!(plies[1]["move"], "15x31x19x27");
    assert_eq!(game["final"]["fen"], "W:W24:B1,K31");
    // The game comes back as canonical PDN that reads as the same game.
    let again = pdn::read_str(game["pdn"].as_str().unwrap(), Variant::Italian).remove(0);
    let first = pdn::read_str(BLUNDER, Variant::Italian).remove(0);
    assert_eq!(again.unwrap(), first.unwrap());
}

#[test]
fn a_blunder_is_marked_with_the_better_move_and_a_forced_move_never() {
    let server = Running::start(opts());
    let (status, body) = review(&server, json!({"pdn": BLUNDER, "depth": 6}));
    assert_eq!(status, 200, "{body}");
    let game = &body["games"][0];
    let blunder = &game["plies"][0];
    assert_eq!(blunder["mark"], "??", "{blunder}");
    assert!(blunder["loss"].as_i64().unwrap() >= 200);
    let better = blunder["best"].as_str().unwrap();
    assert!(["23-20", "27-22"].contains(&better), "{better}");
    assert_eq!(blunder["pv"][0], better);
    let arrow = &blunder["best_arrow"];
    assert!(
        arrow == &json!([23, 20]) || arrow == &json!([27, 22]),
        "{arrow}"
    );
    assert_eq!(game["plies"][1]["mark"], Value::Null);
    // Black's best reply is the capture, its arrow along the jumps.
    assert_eq!(game["plies"][1]["best_path"], json!([15, 22, 31]));
    assert_eq!(
        game["summary"],
        json!({"white": {"?!": 0, "?": 0, "??": 1}, "black": {"?!": 0, "?": 0, "??": 0}})
    );
    assert_eq!(body["thresholds"]["??"], 200);
}

#[test]
fn a_streamed_review_sends_the_moves_first_then_each_ply() {
    let server = Running::start(opts());
    let body = json!({"pdn": BLUNDER, "depth": 4, "stream": true}).to_string();
    let a = server.send("POST", "/api/reviews", &[JSON], &body);
    assert_eq!(a.status, 200);
    assert!(a.head.contains("application/x-ndjson"), "{}", a.head);
    // The body is chunked: the JSON lines are the lines that start with '{'.
    let items: Vec<Value> = a
        .body
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["game", "ply", "ply", "final", "done"]);
    assert_eq!(items[0]["plies"][0]["move"], "23-19");
    assert_eq!(items[0]["end_fen"], "W:W24:B1,K31");
    assert_eq!(items[1]["mark"], "??");
}

#[test]
fn pdn_that_cannot_be_read_is_refused_with_the_readers_line_and_column() {
    let server = Running::start(opts());
    let (status, body) = review(
        &server,
        json!({"pdn": "[GameType \"22\"]\n1. 22-18 bogus *"}),
    );
    assert_eq!(status, 422, "{body}");
    let err = &body["error"];
    assert_eq!(err["code"], "bad_pdn");
    assert_eq!(
        (err["line"].clone(), err["column"].clone()),
        (json!(2), json!(10))
    );
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("game 1, line 2: move 1 (black) \"bogus\""),
        "{message}"
    );
    assert!(message.ends_with("(line 2, column 10)"), "{message}");
    // An illegal move: the rules' reason.
    let (status, body) = review(&server, json!({"pdn": "1. 22-17 *"}));
    assert_eq!(status, 422, "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("\"22-17\""));
    let (status, body) = review(&server, json!({"pdn": 7}));
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("bad_pdn"))
    );
    let (status, body) = review(&server, json!({"pdn": "1. 22-18 *", "nodes": 0}));
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("bad_budget"))
    );
    // More work than one review may ask for.
    let three = [long_game(200), long_game(200), long_game(200)].join("\n");
    let (status, body) = review(&server, json!({"pdn": three, "nodes": 2_000_000}));
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (422, Some("too_long")),
        "{body}"
    );
    // A body larger than the games' 4 KiB is accepted here, up to the reviews' own limit.
    let long = format!("{{\"pdn\": \"{}\"}}", " ".repeat(300 * 1024));
    assert_eq!(
        server.send("POST", "/api/reviews", &[JSON], &long).status,
        413
    );
}

#[test]
fn a_stored_game_comes_out_as_pdn_with_its_tags() {
    let server = Running::start(opts());
    let (status, g) = server.json(
        "POST",
        "/api/games",
        &[],
        json!({"level": "novice", "seed": 3, "fen": "B:W21-32:B1-12"}),
    );
    assert_eq!(status, 201, "{g}");
    // From a set-up position with Black to move, the player takes the dark pieces.
    assert_eq!(g["player"], "black");
    let id = g["id"].as_str().unwrap();
    let mine = [("X-Dama-Seat", g["secret"].as_str().unwrap())];
    let (status, _) = server.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &mine,
        json!({"move": "11-15"}),
    );
    assert_eq!(status, 200);
    let (status, _) = server.json(
        "POST",
        &format!("/api/games/{id}/reply"),
        &mine,
        Value::Null,
    );
    assert_eq!(status, 200);
    let a = server.send("GET", &format!("/api/games/{id}/pdn"), &[], "");
    assert_eq!(a.status, 200);
    assert!(
        a.head.contains("content-type: application/x-pdn"),
        "{}",
        a.head
    );
    assert!(
        a.head.contains(&format!("filename=\"dama-{id}.pdn\"")),
        "{}",
        a.head
    );
    let text = &a.body;
    for tag in [
        "[Level \"novice\"]",
        "[Result \"*\"]",
        "[GameType \"22",
        "[Black \"Player\"]",
    ] {
        assert!(text.contains(tag), "{tag} in {text}");
    }
    let date = text.lines().find(|l| l.starts_with("[Date ")).unwrap();
    assert!(
        date.len() == "[Date \"2026.12.01\"]".len() && date.as_bytes()[11] == b'.',
        "{date}"
    );
    let game = pdn::read_str(text, Variant::Italian).remove(0).unwrap();
    assert_eq!(
        fen::write(&game.start),
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
    assert_eq!(game.moves.len(), 2);
    assert_eq!(game.moves[0].to_string(), "11-15");
    let (status, err) = server.json(
        "GET",
        &format!("/api/games/{}/pdn", "0".repeat(32)),
        &[],
        Value::Null,
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (404, Some("unknown_game"))
    );
}

/// The events of an SSE answer: (name, data) pairs.
fn events(body: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut name = String::new();
    for line in body.lines() {
        if let Some(n) = line.strip_prefix("event: ") {
            name = n.trim().to_string();
        } else if let Some(d) = line.strip_prefix("data: ") {
            out.push((name.clone(), serde_json::from_str(d).unwrap()));
        }
    }
    out
}

#[test]
fn live_analysis_streams_three_lines_and_ends_when_the_budget_is_spent() {
    let server = Running::start(opts());
    let a = server.send("GET", "/api/analysis?multipv=3&depth=5", &[], "");
    assert_eq!(a.status, 200);
    assert!(a.head.contains("text/event-stream"), "{}", a.head);
    let ev = events(&a.body);
    let infos: Vec<&Value> = ev
        .iter()
        .filter(|(n, _)| n == "info")
        .map(|(_, d)| d)
        .collect();
    let lines: std::collections::BTreeSet<u64> = infos
        .iter()
        .map(|d| d["multipv"].as_u64().unwrap())
        .collect();
    assert_eq!(lines.into_iter().collect::<Vec<_>>(), [1, 2, 3]);
    assert!(infos.iter().any(|d| d["depth"] == 5));
    let (last, done) = ev.last().unwrap();
    assert_eq!(last, "done");
    assert_eq!(done["depth"], 5);
    assert_eq!(done["lines"].as_array().unwrap().len(), 3);
    assert!(!ev.iter().any(|(n, _)| n == "table"));
}

#[test]
fn live_analysis_gives_the_tables_verdict_where_they_cover_the_position() {
    let server = Running::start(opts());
    let a = server.send("GET", "/api/analysis?fen=W:WK18,K22:BK29&depth=3", &[], "");
    assert_eq!(a.status, 200, "{}", a.body);
    let ev = events(&a.body);
    assert_eq!(ev[0].0, "table");
    assert_eq!(ev[0].1["result"], "win");
    assert!(ev[0].1["plies"].as_u64().unwrap() >= 1);
    for (query, code) in [
        ("fen=W:W99", "bad_fen"),
        ("variant=chess", "bad_variant"),
        ("multipv=9", "bad_budget"),
        ("time_ms=x", "bad_budget"),
    ] {
        let (status, err) = server.json("GET", &format!("/api/analysis?{query}"), &[], Value::Null);
        assert_eq!(
            (status, err["error"]["code"].as_str()),
            (400, Some(code)),
            "{query}"
        );
    }
    // Another site's page may not make the server search (an EventSource there would).
    let query = "/api/analysis?fen=W:WK18,K22:BK29&depth=3";
    let (status, err) = server.json(
        "GET",
        query,
        &[("Origin", "http://evil.example")],
        Value::Null,
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (403, Some("other_site"))
    );
    let own = server.send("GET", query, &[("Origin", "http://x")], "");
    assert_eq!(own.status, 200);
}

/// A long game (50 plies), the same each time: each side plays the engine's depth-2 choice.
fn long_game(plies: usize) -> String {
    let mut game = Game::new();
    let mut engine = Engine::with_hash(1);
    let mut texts = Vec::new();
    while game.moves().len() < plies && game.outcome().is_none() {
        let m = engine.search(&game, &Limits::depth(2)).best.unwrap();
        texts.push(m.to_string());
        game.play(m).unwrap();
    }
    let mut g = pdn::PdnGame::new(Variant::Italian, *game.start());
    g.moves = game.moves().to_vec();
    pdn::write(&g).unwrap()
}

// The review must outlast the player's move and reply (a few milliseconds): 15,000 nodes a
// position over 400 and more positions takes a second or more in the test build. The game the
// engine plays against itself at depth 2 is as long as its evaluation makes it (48 plies
// with the net t6): the PDN holds as many copies of it as give 400 plies.
#[test]
fn a_long_review_does_not_stall_the_players() {
    let server = Arc::new(Running::start(opts()));
    let game = long_game(200);
    let plies = pdn::read_str(&game, Variant::Italian)
        .remove(0)
        .unwrap()
        .moves
        .len();
    assert!(plies >= 20, "{plies} plies");
    let text = vec![game; 400usize.div_ceil(plies)].join("\n");
    let done = Arc::new(AtomicBool::new(false));
    let reviewer = {
        let (server, done) = (Arc::clone(&server), Arc::clone(&done));
        std::thread::spawn(move || {
            let (status, body) = review(&server, json!({"pdn": text, "nodes": 15_000}));
            done.store(true, Ordering::SeqCst);
            (status, body["games"][0]["plies"].as_array().map(Vec::len))
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let (status, g) = server.json("POST", "/api/games", &[], json!({"level": "novice"}));
    assert_eq!(status, 201);
    let id = g["id"].as_str().unwrap();
    let mine = [("X-Dama-Seat", g["secret"].as_str().unwrap())];
    let (status, _) = server.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &mine,
        json!({"move": "22-18"}),
    );
    assert_eq!(status, 200);
    let (status, _) = server.json(
        "POST",
        &format!("/api/games/{id}/reply"),
        &mine,
        Value::Null,
    );
    assert_eq!(status, 200);
    let took = started.elapsed();
    assert!(
        !done.load(Ordering::SeqCst),
        "the review ended before the player's game"
    );
    assert!(took < Duration::from_secs(5), "the player waited {took:?}");
    let (status, reviewed) = reviewer.join().unwrap();
    assert_eq!((status, reviewed), (200, Some(plies)));
}
