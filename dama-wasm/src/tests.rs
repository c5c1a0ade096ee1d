use serde_json::Value;

use super::*;

fn ask(session: &mut Session, request: &str) -> Result<Value, String> {
    let answer: Value = serde_json::from_str(&session.handle(request, &mut |_| {})).unwrap();
    match (answer.get("ok"), answer.get("error")) {
        (Some(ok), None) => Ok(ok.clone()),
        (None, Some(Value::String(e))) => Err(e.clone()),
        _ => panic!("neither ok nor error: {answer}"),
    }
}

#[test]
fn the_start_has_the_seven_moves_dama_moves_lists() {
    let ok = ask(&mut Session::new(), r#"{"cmd":"moves"}"#).unwrap();
    let moves: Vec<&str> = ok["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(
        moves,
        ["21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"]
    );
    assert_eq!(ok["turn"], "white");
}

#[test]
fn a_history_is_played_and_a_bad_one_is_refused_saying_which_move() {
    let mut s = Session::new();
    let ok = ask(&mut s, r#"{"cmd":"moves","moves":["22-18","10-14"]}"#).unwrap();
    assert_eq!(ok["turn"], "white");
    let err = ask(&mut s, r#"{"cmd":"moves","moves":["22-18","22-17"]}"#).unwrap_err();
    assert!(err.starts_with("move 2 of the game: 22-17"), "{err}");
    let err = ask(&mut s, r#"{"cmd":"moves","moves":"22-18 10-14 18x9"}"#).unwrap_err();
    assert!(err.contains("move 3"), "{err}");
}

#[test]
fn bad_input_is_an_error_that_quotes_it() {
    let mut s = Session::new();
    for (request, says) in [
        ("hello", "is not JSON"),
        ("[1,2]", "expected a JSON object"),
        (r#"{"fen":"W:W21:B1"}"#, "no \"cmd\""),
        (r#"{"cmd":"fly"}"#, "unknown command \"fly\""),
        (
            r#"{"cmd":"moves","fen":"hello world"}"#,
            "\"W:W21,22:B1,K2\"",
        ),
        (r#"{"cmd":"moves","variant":"chess"}"#, "variant \"chess\""),
        (
            r#"{"cmd":"moves","colour":"white"}"#,
            "unknown option \"colour\"",
        ),
        (r#"{"cmd":"play","level":"ultra"}"#, "level \"ultra\""),
        (r#"{"cmd":"play","level":9}"#, "level 9"),
        (r#"{"cmd":"play"}"#, "play needs a level"),
        (r#"{"cmd":"analyse","depth":-1}"#, "depth -1"),
        (r#"{"cmd":"analyse","depth":3,"multipv":0}"#, "multipv 0"),
        (r#"{"cmd":"analyse"}"#, "needs a limit"),
        (r#"{"cmd":"perft","depth":40}"#, "perft depth 40"),
        (
            r#"{"cmd":"options","hash_mib":1000000}"#,
            "hash_mib 1000000",
        ),
        (r#"{"cmd":"explain","square":33}"#, "square 33"),
        (
            r#"{"cmd":"play","level":"hard","fen":"W:W21:B"}"#,
            "black has no piece",
        ),
        (
            r#"{"cmd":"analyse","depth":3,"fen":"B:W21:B"}"#,
            "black has no piece",
        ),
    ] {
        let err = ask(&mut s, request).expect_err(request);
        assert!(err.contains(says), "{request}: {err}");
    }
    // The session goes on.
    assert!(ask(&mut s, r#"{"cmd":"moves"}"#).is_ok());
}

#[test]
fn a_square_is_explained_with_its_paths_or_why_it_cannot_move() {
    let mut s = Session::new();
    let ok = ask(&mut s, r#"{"cmd":"explain","square":22}"#).unwrap();
    let to: Vec<u64> = ok["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["to"].as_u64().unwrap())
        .collect();
    assert_eq!(to, [18, 19]);
    // A white piece with no move at the start.
    let start = Position::start();
    let legal = start.legal_moves_for(Variant::Italian);
    let stuck = start
        .pieces(dama_rules::Color::White)
        .iter()
        .find(|&sq| legal.iter().all(|m| m.from() != sq))
        .unwrap();
    let ok = ask(
        &mut s,
        &format!(r#"{{"cmd":"explain","square":{}}}"#, stuck.number()),
    )
    .unwrap();
    assert_eq!(
        ok["why"],
        format!("the piece on {} has no legal move", stuck.number())
    );
    let ok = ask(&mut s, r#"{"cmd":"explain","move":"22-17"}"#).unwrap();
    assert_eq!(ok["legal"], false);
    let ok = ask(&mut s, r#"{"cmd":"explain","move":"22-18"}"#).unwrap();
    assert_eq!(ok["legal"], true);
}

#[test]
fn perft_counts_as_the_rules_crate_does() {
    let mut s = Session::new();
    for (variant, depth) in [("italian", 4), ("spanish", 3), ("russian", 3)] {
        let ok = ask(
            &mut s,
            &format!(r#"{{"cmd":"perft","variant":"{variant}","depth":{depth}}}"#),
        )
        .unwrap();
        let v: Variant = variant.parse().unwrap();
        let expected = dama_rules::perft::perft_of(v, &Position::start(), depth);
        assert_eq!(ok["nodes"].as_u64(), Some(expected), "{variant}");
    }
}

#[test]
fn every_level_answers_a_legal_move_and_the_same_seed_the_same_move() {
    let mut s = Session::new();
    // Six plies: each side's first legal move, as `dama moves` sorts them.
    let mut game = Game::new();
    for _ in 0..6 {
        let m = game.sorted_legal_moves()[0];
        game.play(m).unwrap();
    }
    let texts: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
    let history = serde_json::to_string(&texts).unwrap();
    for level in ["novice", "easy", "normal", "strong", "hard"] {
        let request = format!(
            r#"{{"cmd":"play","level":"{level}","moves":{history},"seed":7,"nodes":5000}}"#
        );
        // The same seed from the same table: `new-game` empties it (within a game the table
        // is kept from move to move, and a search from a fuller one may choose otherwise).
        ask(&mut s, r#"{"cmd":"new-game"}"#).unwrap();
        let a = ask(&mut s, &request).unwrap();
        ask(&mut s, r#"{"cmd":"new-game"}"#).unwrap();
        let b = ask(&mut s, &request).unwrap();
        let best = a["best"]["move"].as_str().unwrap();
        assert_eq!(a["best"], b["best"], "{level}");
        let legal = ask(&mut s, &format!(r#"{{"cmd":"moves","moves":{history}}}"#)).unwrap();
        assert!(
            legal["moves"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["move"] == best),
            "{level}: {best}"
        );
    }
}

#[test]
fn an_analysis_reports_every_depth_and_its_lines() {
    let mut s = Session::new();
    let mut infos = Vec::new();
    let answer = s.handle(r#"{"cmd":"analyse","depth":5,"multipv":2}"#, &mut |line| {
        infos.push(serde_json::from_str::<Value>(line).unwrap())
    });
    let ok: Value = serde_json::from_str(&answer).unwrap();
    let ok = &ok["ok"];
    assert_eq!(ok["depth"], 5);
    assert_eq!(ok["lines"].as_array().unwrap().len(), 2);
    let depths: Vec<u64> = infos
        .iter()
        .filter(|i| i["multipv"] == 1)
        .map(|i| i["depth"].as_u64().unwrap())
        .collect();
    assert_eq!(depths, [1, 2, 3, 4, 5]);
    assert!(infos.iter().any(|i| i["multipv"] == 2));
    assert!(infos
        .iter()
        .all(|i| !i["pv"].as_array().unwrap().is_empty()));
}

#[test]
fn an_analysis_of_a_table_position_says_the_tables_verdict_first() {
    let mut s = Session::new();
    let mut first = None;
    let answer = s.handle(
        r#"{"cmd":"analyse","depth":3,"fen":"W:WK18,22:BK29"}"#,
        &mut |line| {
            first.get_or_insert_with(|| serde_json::from_str::<Value>(line).unwrap());
        },
    );
    assert!(answer.starts_with(r#"{"ok":"#), "{answer}");
    let first = first.expect("progress");
    assert_eq!(first["table"]["result"], "win", "{first}");
    assert!(first["table"]["plies"].as_u64().is_some(), "{first}");
}

/// One request to the local API: its status and body, the record kept from it.
fn call(
    s: &mut Session,
    record: &mut Value,
    method: &str,
    path: &str,
    body: Value,
) -> (u64, Value) {
    let request = serde_json::json!({
        "cmd": "api", "method": method, "path": path, "body": body,
        "record": record.clone(), "id": "g1",
    });
    let ok = ask(s, &request.to_string()).unwrap();
    *record = ok["record"].clone();
    (ok["status"].as_u64().unwrap(), ok["body"].clone())
}

#[test]
fn a_game_kept_in_the_browser_answers_as_the_server_does() {
    let mut s = Session::new();
    let mut record = Value::Null;
    let (status, info) = call(&mut s, &mut record, "GET", "/api", Value::Null);
    assert_eq!(status, 200);
    assert_eq!(
        info["variants"].as_array().unwrap().len(),
        Variant::ALL.len()
    );
    let (status, preview) = call(
        &mut s,
        &mut record,
        "GET",
        "/api/preview?variant=spanish&level=easy",
        Value::Null,
    );
    assert_eq!(
        (status, preview["variant"].as_str()),
        (200, Some("spanish"))
    );
    assert_eq!(
        preview["targets"]["22"]["targets"],
        serde_json::json!([18, 19])
    );
    let (status, game) = call(
        &mut s,
        &mut record,
        "POST",
        "/api/games",
        serde_json::json!({"level": "novice"}),
    );
    assert_eq!(
        (status, game["turn"].as_str(), game["secret"].as_str()),
        (201, Some("player"), Some("local"))
    );
    assert_eq!(record["level"], "novice");
    // A move the rules refuse: 422 with their reason; the game is unchanged.
    let (status, err) = call(
        &mut s,
        &mut record,
        "POST",
        "/api/games/g1/move",
        serde_json::json!({"path": [22, 17]}),
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (422, Some("illegal_move"))
    );
    assert_eq!(record["moves"], serde_json::json!([]));
    let (status, played) = call(
        &mut s,
        &mut record,
        "POST",
        "/api/games/g1/move",
        serde_json::json!({"path": [22, 18]}),
    );
    assert_eq!(
        (status, played["game"]["turn"].as_str()),
        (200, Some("computer"))
    );
    assert_eq!(played["played"]["text"], "22-18");
    // Not the player's turn now.
    let (status, err) = call(
        &mut s,
        &mut record,
        "GET",
        "/api/games/g1/targets?square=21",
        Value::Null,
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (409, Some("not_your_turn"))
    );
    // The computer's move searched here, then one given by the page.
    let (status, replied) = call(
        &mut s,
        &mut record,
        "POST",
        "/api/games/g1/reply",
        Value::Null,
    );
    assert_eq!(
        (status, replied["game"]["turn"].as_str()),
        (200, Some("player"))
    );
    assert_eq!(record["moves"].as_array().unwrap().len(), 2);
    assert_eq!(
        replied["game"]["last_computer_move"]["hub"],
        record["moves"][1]
    );
    let (status, targets) = call(
        &mut s,
        &mut record,
        "GET",
        "/api/games/g1/targets?square=21",
        Value::Null,
    );
    assert_eq!(status, 200, "{targets}");
    assert_eq!(targets["square"], 21);
    let (status, game) = call(
        &mut s,
        &mut record,
        "POST",
        "/api/games/g1/level",
        serde_json::json!({"level": 5}),
    );
    assert_eq!(
        (
            status,
            game["level"].as_str(),
            game["scored_level"].as_str()
        ),
        (200, Some("hard"), Some("novice"))
    );
    let (status, shown) = call(&mut s, &mut record, "GET", "/api/games/g1", Value::Null);
    assert_eq!((status, shown["ply"].as_u64()), (200, Some(2)));
    let (status, _) = call(&mut s, &mut record, "DELETE", "/api/games/g1", Value::Null);
    assert_eq!((status, &record), (204, &Value::Null));
}

#[test]
fn the_local_api_refuses_what_needs_a_server_and_bad_input() {
    let mut s = Session::new();
    let mut record = Value::Null;
    let (status, err) = call(
        &mut s,
        &mut record,
        "POST",
        "/api/games",
        serde_json::json!({"opponent": "friend"}),
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (503, Some("needs_server"))
    );
    let (status, err) = call(&mut s, &mut record, "GET", "/api/games/g1", Value::Null);
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (404, Some("unknown_game"))
    );
    let (status, err) = call(
        &mut s,
        &mut record,
        "POST",
        "/api/games",
        serde_json::json!({"levle": 2}),
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (400, Some("unknown_field"))
    );
    let (status, err) = call(
        &mut s,
        &mut record,
        "POST",
        "/api/games",
        serde_json::json!({"fen": "W:W99"}),
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (400, Some("bad_fen"))
    );
    let (status, err) = call(
        &mut s,
        &mut record,
        "GET",
        "/api/preview?variant=%7Bnope",
        Value::Null,
    );
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (400, Some("bad_variant"))
    );
    assert!(
        err["error"]["message"].as_str().unwrap().contains("{nope"),
        "{err}"
    );
    // A damaged record is an error of the request, not a trap.
    let e = ask(
        &mut s,
        r#"{"cmd":"api","path":"/api/games/x","record":{"variant":"italian"}}"#,
    )
    .unwrap_err();
    assert!(e.contains("start_fen"), "{e}");
}
