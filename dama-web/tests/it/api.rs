//! The server in process, on a loopback port, through a small HTTP/1.1 client: friend games
//! with seats and spectators, the event stream, restarts on the same data directory, the
//! rate limits, the security headers, the metrics, and slow clients.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{opts, Running, JSON};
use dama_web::Options;
use serde_json::{json, Value};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dama-web-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn stored(dir: &Path) -> Options {
    Options {
        data: Some(dir.to_path_buf()),
        ..opts()
    }
}

/// The secret in a seat's page address.
fn secret(url: &Value) -> String {
    url.as_str()
        .and_then(|u| u.split("seat=").nth(1))
        .unwrap_or_else(|| panic!("no seat in {url}"))
        .to_string()
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

const ALICE: &str = "dama_player=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const BOB: &str = "dama_player=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

#[test]
fn a_friend_game_has_two_seats_and_a_spectator_who_may_not_move() {
    let server = Running::start(opts());
    let (status, game) = server.json(
        "POST",
        "/api/games",
        &[("Cookie", ALICE)],
        json!({"opponent": "friend", "fen": "W:W22,31:B18,5"}),
    );
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_string();
    for key in ["white_url", "black_url", "watch_url"] {
        assert!(game[key].as_str().unwrap().contains(&id), "{key}: {game}");
    }
    assert_eq!(game["seat"], "white");
    assert_eq!(game["turn"], "player");
    let (white, black) = (secret(&game["white_url"]), secret(&game["black_url"]));
    assert_ne!(white, black);
    let moves = format!("/api/games/{id}/move");

    // The spectator, and anyone with a made-up secret, is refused with a JSON error.
    let (status, err) = server.json("POST", &moves, &[], json!({"move": "22x13"}));
    assert_eq!((status, code(&err)), (403, "not_a_player"), "{err}");
    let (status, _) = server.json(
        "POST",
        &moves,
        &[("X-Dama-Seat", &"0".repeat(32))],
        json!({"move": "22x13"}),
    );
    assert_eq!(status, 403);
    let (status, view) = server.json("GET", &format!("/api/games/{id}"), &[], Value::Null);
    assert_eq!((status, view["turn"].as_str()), (200, Some("watching")));
    // Black may not move in White's turn.
    let (status, err) = server.json(
        "POST",
        &moves,
        &[("X-Dama-Seat", &black)],
        json!({"move": "18x27"}),
    );
    assert_eq!((status, code(&err)), (409, "not_your_turn"), "{err}");

    // White captures (the capture elsewhere is explained as against the computer).
    let (status, err) = server.json(
        "POST",
        &moves,
        &[("X-Dama-Seat", &white)],
        json!({"move": "31-27"}),
    );
    assert_eq!(status, 422, "{err}");
    assert_eq!(err["error"]["reason"]["code"], "must_capture");
    let (status, played) = server.json(
        "POST",
        &moves,
        &[("X-Dama-Seat", &white)],
        json!({"move": "22x13"}),
    );
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["game"]["turn"], "opponent");
    // Black's invitation: its targets, then its move, then White wins.
    let (status, t) = server.json(
        "GET",
        &format!("/api/games/{id}/targets?square=5"),
        &[("X-Dama-Seat", &black)],
        Value::Null,
    );
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["targets"], json!([9, 10]));
    let (status, played) = server.json(
        "POST",
        &moves,
        &[("X-Dama-Seat", &black), ("Cookie", BOB)],
        json!({"move": "5-10"}),
    );
    assert_eq!(status, 200, "{played}");
    assert_eq!(played["game"]["seat"], "black");
    let (status, played) = server.json(
        "POST",
        &moves,
        &[("X-Dama-Seat", &white)],
        json!({"move": "13x6x10"}),
    );
    assert_eq!(status, 200, "{played}");
    let g = &played["game"];
    assert_eq!(g["turn"], "over");
    assert_eq!(g["outcome"]["winner"], "white");
    assert_eq!(g["scores"], json!({"white": 120, "black": 0}));

    // A game from a set-up position is in neither player's record, and says so.
    assert_eq!(g["from_setup"], true, "{g}");
    for cookie in [ALICE, BOB] {
        let (_, me) = server.json("GET", "/api/me", &[("Cookie", cookie)], Value::Null);
        assert_eq!(me["total"]["games"], 0, "{me}");
        assert_eq!(me["levels"], json!([]), "{me}");
    }

    // The event stream: every move after the one given, each once, with its number.
    let all = read_events(
        &server,
        &format!("/api/games/{id}/events?after=0"),
        &[],
        "id: 3",
    );
    for n in 1..=3 {
        assert_eq!(all.matches(&format!("id: {n}\n")).count(), 1, "{all}");
    }
    let rest = read_events(
        &server,
        &format!("/api/games/{id}/events"),
        &[("Last-Event-ID", "2")],
        "id: 3",
    );
    assert!(
        !rest.contains("id: 1\n") && !rest.contains("id: 2\n"),
        "{rest}"
    );
    assert!(rest.contains("\"turn\":\"over\""), "{rest}");
}

#[test]
fn a_stranger_is_refused_in_a_computer_game_that_its_owner_plays_on() {
    let server = Running::start(opts());
    let (status, game) = server.json("POST", "/api/games", &[], json!({"level": "novice"}));
    assert_eq!(
        (status, game["seat"].as_str()),
        (201, Some("owner")),
        "{game}"
    );
    let id = game["id"].as_str().unwrap().to_string();
    let owner = game["secret"].as_str().unwrap().to_string();
    let path = |rest: &str| format!("/api/games/{id}{rest}");
    let made_up = "0".repeat(32);
    for stranger in [&[][..], &[("X-Dama-Seat", made_up.as_str())][..]] {
        for (method, rest, body) in [
            ("POST", "/move", json!({"move": "22-18"})),
            ("POST", "/reply", Value::Null),
            ("POST", "/level", json!({"level": "hard"})),
            ("GET", "/targets?square=22", Value::Null),
            ("DELETE", "", Value::Null),
        ] {
            let (status, err) = server.json(method, &path(rest), stranger, body);
            assert_eq!(
                (status, code(&err)),
                (403, "not_a_player"),
                "{method} {rest}: {err}"
            );
            assert!(
                err["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("read-only"),
                "{err}"
            );
        }
        // A stranger may look: the game is shown, read-only.
        let (status, view) = server.json("GET", &path(""), stranger, Value::Null);
        assert_eq!(
            (status, view["turn"].as_str()),
            (200, Some("watching")),
            "{view}"
        );
        assert_eq!(view["movable"], json!([]));
    }
    // The owner plays on, and a reload (the same secret again) is the owner again.
    let mine = [("X-Dama-Seat", owner.as_str())];
    let (status, played) = server.json("POST", &path("/move"), &mine, json!({"move": "22-18"}));
    assert_eq!(
        (status, played["game"]["turn"].as_str()),
        (200, Some("computer")),
        "{played}"
    );
    let (status, played) = server.json("POST", &path("/reply"), &mine, Value::Null);
    assert_eq!(
        (status, played["game"]["turn"].as_str()),
        (200, Some("player")),
        "{played}"
    );
    let (status, view) = server.json("GET", &path(""), &mine, Value::Null);
    assert_eq!(
        (status, view["seat"].as_str(), view["ply"].as_u64()),
        (200, Some("owner"), Some(2))
    );
    let (status, _) = server.json("DELETE", &path(""), &mine, Value::Null);
    assert_eq!(status, 204);
}

#[test]
fn friend_games_end_by_resignation_or_agreed_draw_and_show_who_is_there() {
    let server = Running::start(opts());
    let new_friend_game = || {
        let (_, g) = server.json(
            "POST",
            "/api/games",
            &[("Cookie", ALICE)],
            json!({"opponent": "friend"}),
        );
        let id = g["id"].as_str().unwrap().to_string();
        (id, secret(&g["white_url"]), secret(&g["black_url"]))
    };
    let (id, white, black) = new_friend_game();
    let look = |seat: &str| {
        server
            .json(
                "GET",
                &format!("/api/games/{id}"),
                &[("X-Dama-Seat", seat)],
                Value::Null,
            )
            .1
    };
    let g = look(&white);
    assert_eq!(g["presence"]["white"]["joined"], true, "{g}");
    assert_eq!(g["presence"]["black"]["joined"], false, "{g}");
    // The friend opens the invitation and follows the game: joined, connected.
    let (stream, head) = open_stream(
        &server,
        &format!("/api/games/{id}/events?seat={black}"),
        "x",
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    std::thread::sleep(Duration::from_millis(200));
    let g = look(&white);
    assert_eq!(
        g["presence"]["black"],
        json!({"joined": true, "connected": true}),
        "{g}"
    );
    let draw = format!("/api/games/{id}/draw");
    let act = |seat: &str, cookie: &str, action: &str| {
        server.json(
            "POST",
            &draw,
            &[("X-Dama-Seat", seat), ("Cookie", cookie)],
            json!({"action": action}),
        )
    };
    // A spectator may not offer; White offers, once; Black declines; White offers again and
    // Black accepts.
    let (status, err) = server.json("POST", &draw, &[], json!({"action": "offer"}));
    assert_eq!((status, code(&err)), (403, "not_a_player"), "{err}");
    let (status, g) = act(&white, ALICE, "offer");
    assert_eq!(
        (status, g["draw_offer"].as_str()),
        (200, Some("white")),
        "{g}"
    );
    assert_eq!(code(&act(&white, ALICE, "offer").1), "offer_pending");
    assert_eq!(look(&black)["draw_offer"], "white");
    let (status, g) = act(&black, BOB, "decline");
    assert_eq!((status, g["draw_offer"].clone()), (200, Value::Null), "{g}");
    assert_eq!(code(&act(&black, BOB, "accept").1), "no_offer");
    act(&white, ALICE, "offer");
    let (status, g) = act(&black, BOB, "accept");
    assert_eq!(status, 200, "{g}");
    assert_eq!(
        (g["turn"].as_str(), g["outcome"]["reason"].as_str()),
        (Some("over"), Some("agreed"))
    );
    assert_eq!(g["outcome"]["result"], "1/2-1/2");
    // Final, and in both records.
    assert_eq!(code(&act(&white, ALICE, "offer").1), "game_over");
    for cookie in [ALICE, BOB] {
        let (_, me) = server.json("GET", "/api/me", &[("Cookie", cookie)], Value::Null);
        assert_eq!(
            (me["total"]["games"].as_u64(), me["total"]["draws"].as_u64()),
            (Some(1), Some(1)),
            "{me}"
        );
    }
    // The stream closed: no longer connected.
    drop(stream);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(look(&white)["presence"]["black"]["connected"], false);

    // Another game: White resigns; the game is over for both seats.
    let (id, white, black) = new_friend_game();
    let (status, g) = server.json(
        "POST",
        &format!("/api/games/{id}/resign"),
        &[("X-Dama-Seat", &white)],
        Value::Null,
    );
    assert_eq!(status, 200, "{g}");
    assert_eq!(
        (
            g["outcome"]["winner"].as_str(),
            g["outcome"]["reason"].as_str()
        ),
        (Some("black"), Some("resigned"))
    );
    let (status, err) = server.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &[("X-Dama-Seat", &black)],
        json!({"move": "11-15"}),
    );
    assert_eq!((status, code(&err)), (409, "game_over"), "{err}");
    // A computer game is not resigned this way.
    let (_, c) = server.json("POST", "/api/games", &[], json!({}));
    let (status, err) = server.json(
        "POST",
        &format!("/api/games/{}/resign", c["id"].as_str().unwrap()),
        &[("X-Dama-Seat", c["secret"].as_str().unwrap())],
        Value::Null,
    );
    assert_eq!((status, code(&err)), (409, "not_a_friend_game"), "{err}");
}

#[test]
fn a_seat_of_a_friend_game_neither_deletes_it_nor_changes_its_level() {
    let server = Running::start(opts());
    let (_, g) = server.json("POST", "/api/games", &[], json!({"opponent": "friend"}));
    let id = g["id"].as_str().unwrap().to_string();
    let (white, black) = (secret(&g["white_url"]), secret(&g["black_url"]));
    let game = format!("/api/games/{id}");
    for seat in [&white, &black] {
        let (status, err) = server.json("DELETE", &game, &[("X-Dama-Seat", seat)], Value::Null);
        assert_eq!((status, code(&err)), (403, "shared_game"), "{err}");
        assert!(err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("both seats"));
        let (status, err) = server.json(
            "POST",
            &format!("{game}/level"),
            &[("X-Dama-Seat", seat)],
            json!({"level": "hard"}),
        );
        assert_eq!((status, code(&err)), (409, "not_a_computer_game"), "{err}");
        assert!(err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("only a game against the computer has a level"));
    }
    // Still there for the other player and the watchers, and still played.
    let (status, view) = server.json("GET", &game, &[("X-Dama-Seat", &black)], Value::Null);
    assert_eq!(
        (status, view["seat"].as_str()),
        (200, Some("black")),
        "{view}"
    );
    let (status, _) = server.json(
        "POST",
        &format!("{game}/move"),
        &[("X-Dama-Seat", &white)],
        json!({"move": "22-18"}),
    );
    assert_eq!(status, 200);
    // A pass-and-play game's one seat holds the whole game: it may delete it.
    let (_, p) = server.json("POST", "/api/games", &[], json!({"opponent": "pass"}));
    let seat = secret(&p["white_url"]);
    let pass = format!("/api/games/{}", p["id"].as_str().unwrap());
    let (status, err) = server.json(
        "POST",
        &format!("{pass}/level"),
        &[("X-Dama-Seat", &seat)],
        json!({"level": 2}),
    );
    assert_eq!((status, code(&err)), (409, "not_a_computer_game"), "{err}");
    let (status, _) = server.json("DELETE", &pass, &[("X-Dama-Seat", &seat)], Value::Null);
    assert_eq!(status, 204);
}

#[test]
fn a_page_of_another_site_changes_nothing_and_a_body_must_be_json() {
    let server = Running::start(opts());
    let evil = ("Origin", "http://evil.example");
    let live = || live_games(&server);
    // Another site's page: no game, no review, whatever the body says it is.
    let (status, err) = server.json("POST", "/api/games", &[evil], json!({}));
    assert_eq!((status, code(&err)), (403, "other_site"), "{err}");
    assert!(err["error"]["message"]
        .as_str()
        .unwrap()
        .contains("evil.example"));
    let a = server.send(
        "POST",
        "/api/games",
        &[evil, ("Content-Type", "text/plain")],
        "{}",
    );
    assert_eq!(a.status, 403, "{}", a.body);
    let pdn = json!({"pdn": "1. 22-18 *"});
    let (status, err) = server.json("POST", "/api/reviews", &[evil], pdn.clone());
    assert_eq!((status, code(&err)), (403, "other_site"), "{err}");
    let cross = ("Sec-Fetch-Site", "cross-site");
    let (status, err) = server.json("POST", "/api/games", &[cross], json!({}));
    assert_eq!((status, code(&err)), (403, "other_site"), "{err}");
    assert_eq!(live(), 0);
    // A text/plain body (what a page elsewhere may send without asking), even from here.
    let a = server.send(
        "POST",
        "/api/games",
        &[("Content-Type", "text/plain")],
        "{}",
    );
    assert_eq!(a.status, 415, "{}", a.body);
    assert!(a.body.contains("not_json"), "{}", a.body);
    let a = server.send("POST", "/api/games", &[], "{}");
    assert_eq!(a.status, 415, "{}", a.body);
    assert_eq!(live(), 0);
    // The page itself (its Origin is the request's Host), and programs (neither header).
    let own = [("Origin", "http://x"), ("Sec-Fetch-Site", "same-origin")];
    let (status, g) = server.json("POST", "/api/games", &own, json!({}));
    assert_eq!(status, 201, "{g}");
    let (status, _) = server.json("POST", "/api/reviews", &own, pdn);
    assert_eq!(status, 200);
    let (status, _) = server.json("POST", "/api/games", &[], json!({}));
    assert_eq!(status, 201);
    // A game's owner on another site's page may not delete it either; from its own it may.
    let path = format!("/api/games/{}", g["id"].as_str().unwrap());
    let secret = g["secret"].as_str().unwrap();
    let seat = ("X-Dama-Seat", secret);
    let (status, _) = server.json("DELETE", &path, &[seat, evil], Value::Null);
    assert_eq!(status, 403);
    let (status, _) = server.json("DELETE", &path, &[seat, own[0]], Value::Null);
    assert_eq!(status, 204);
}

#[test]
fn behind_a_trusted_proxy_the_forwarded_host_is_the_servers_own() {
    let public = [
        ("Origin", "https://dama.example.org"),
        ("X-Forwarded-Host", "dama.example.org"),
    ];
    let server = Running::start(Options {
        trust_proxy: true,
        ..opts()
    });
    let (status, g) = server.json("POST", "/api/games", &public, json!({}));
    assert_eq!(status, 201, "{g}");
    drop(server);
    // Not trusted: a client's X-Forwarded-Host names nothing.
    let server = Running::start(opts());
    let (status, err) = server.json("POST", "/api/games", &public, json!({}));
    assert_eq!((status, code(&err)), (403, "other_site"), "{err}");
}

/// The text of an event stream up to `until` (or 10 s).
fn read_events(server: &Running, path: &str, headers: &[(&str, &str)], until: &str) -> String {
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut head = format!("GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut text = String::new();
    let mut buf = [0u8; 8192];
    while Instant::now() < deadline {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => text.push_str(&String::from_utf8_lossy(&buf[..n])),
            Err(_) => {}
        }
        if text.contains(until) {
            // The rest of that event.
            std::thread::sleep(Duration::from_millis(100));
            if let Ok(n) = stream.read(&mut buf) {
                text.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
            break;
        }
    }
    assert!(text.contains("text/event-stream"), "{text}");
    assert!(text.contains(until), "{until} never came: {text}");
    text
}

#[test]
fn a_move_pushed_to_a_follower_arrives_within_a_second() {
    let server = Running::start(opts());
    let (_, game) = server.json("POST", "/api/games", &[], json!({"opponent": "friend"}));
    let id = game["id"].as_str().unwrap().to_string();
    let white = secret(&game["white_url"]);
    let addr = server.addr;
    let path = format!("/api/games/{id}/events?after=0");
    let follower = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut text = String::new();
        let mut buf = [0u8; 4096];
        while !text.contains("id: 1\n") {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "{text}");
            text.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
        Instant::now()
    });
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    let (status, _) = server.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &[("X-Dama-Seat", &white)],
        json!({"move": "22-18"}),
    );
    assert_eq!(status, 200);
    let arrived = follower.join().unwrap();
    assert!(arrived.duration_since(sent) < Duration::from_secs(1));
}

#[test]
fn a_restart_on_the_same_data_keeps_every_acknowledged_move() {
    let dir = scratch("restart");
    let (id, before, friend, white, owner) = {
        let server = Running::start(stored(&dir));
        let (_, game) = server.json(
            "POST",
            "/api/games",
            &[("Cookie", ALICE)],
            json!({"level": "novice", "seed": 7}),
        );
        let id = game["id"].as_str().unwrap().to_string();
        let owner = game["secret"].as_str().unwrap().to_string();
        let mine = [("X-Dama-Seat", owner.as_str())];
        for mv in ["22-18", "21-17", "24-20"] {
            let (status, played) = server.json(
                "POST",
                &format!("/api/games/{id}/move"),
                &mine,
                json!({"move": mv}),
            );
            if status != 200 {
                // Not legal after the computer's reply: any legal move will do.
                assert_eq!(status, 422, "{played}");
                break;
            }
            let (status, _) = server.json(
                "POST",
                &format!("/api/games/{id}/reply"),
                &mine,
                Value::Null,
            );
            assert_eq!(status, 200);
        }
        server.json(
            "POST",
            &format!("/api/games/{id}/level"),
            &mine,
            json!({"level": "easy"}),
        );
        let (_, before) = server.json("GET", &format!("/api/games/{id}"), &[], Value::Null);
        let (_, friend) = server.json("POST", "/api/games", &[], json!({"opponent": "friend"}));
        let white = secret(&friend["white_url"]);
        let fid = friend["id"].as_str().unwrap().to_string();
        let (status, _) = server.json(
            "POST",
            &format!("/api/games/{fid}/move"),
            &[("X-Dama-Seat", &white)],
            json!({"move": "22-18"}),
        );
        assert_eq!(status, 200);
        (id, before, fid, white, owner)
    };
    let server = Running::start(stored(&dir));
    let (status, after) = server.json("GET", &format!("/api/games/{id}"), &[], Value::Null);
    assert_eq!(status, 200, "{after}");
    assert_eq!(after, before);
    assert!(after["moves"].as_array().unwrap().len() >= 2);
    // The game goes on, and the computer's choices go on from where they were.
    let mine = [("X-Dama-Seat", owner.as_str())];
    let (status, _) = server.json(
        "POST",
        &format!("/api/games/{id}/reply"),
        &mine,
        Value::Null,
    );
    assert_eq!(status, 409, "the player is to move");
    let (status, view) = server.json(
        "GET",
        &format!("/api/games/{friend}"),
        &[("X-Dama-Seat", &white)],
        Value::Null,
    );
    assert_eq!(
        (status, view["seat"].as_str(), view["ply"].as_u64()),
        (200, Some("white"), Some(1))
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn too_many_new_games_from_one_address_get_429_with_retry_after() {
    let server = Running::start(Options {
        games_per_minute: 3,
        trust_proxy: true,
        ..opts()
    });
    let from = |ip: &'static str| [("X-Forwarded-For", ip)];
    for _ in 0..3 {
        let (status, _) = server.json("POST", "/api/games", &from("198.51.100.1"), json!({}));
        assert_eq!(status, 201);
    }
    let a = server.send("POST", "/api/games", &[from("198.51.100.1")[0], JSON], "{}");
    assert_eq!(a.status, 429, "{}", a.body);
    let wait: u64 = a
        .head
        .lines()
        .find_map(|l| l.strip_prefix("retry-after: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("a Retry-After");
    assert!((1..=60).contains(&wait), "{wait}");
    let err: Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(code(&err), "rate_limited");
    // Another client is not held back.
    let (status, _) = server.json("POST", "/api/games", &from("198.51.100.2"), json!({}));
    assert_eq!(status, 201);
    let metrics = server.send("GET", "/metrics", &[], "").body;
    assert!(metrics.contains("dama_rate_limited_total 1\n"), "{metrics}");
}

#[test]
fn every_answer_carries_the_security_headers() {
    let server = Running::start(opts());
    for (method, path) in [
        ("GET", "/"),
        ("GET", "/app.js"),
        ("GET", "/api"),
        ("GET", "/nowhere"),
        ("POST", "/api/games"),
    ] {
        let a = server.send(method, path, &[], "");
        let csp = a
            .head
            .lines()
            .find_map(|l| l.strip_prefix("content-security-policy: "))
            .unwrap_or_else(|| panic!("{path}: no CSP in {}", a.head));
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(
            csp.contains("script-src 'self'") && csp.contains("style-src 'self'"),
            "{csp}"
        );
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert!(a.head.contains("x-content-type-options: nosniff"), "{path}");
        assert!(a.head.contains("referrer-policy: no-referrer"), "{path}");
    }
    // The first answer to a browser without the cookie gives it a player id.
    let a = server.send("GET", "/", &[], "");
    assert!(a.head.contains("set-cookie: dama_player="), "{}", a.head);
    assert!(a.head.contains("httponly"), "{}", a.head);
    let a = server.send("GET", "/", &[("Cookie", ALICE)], "");
    assert!(!a.head.contains("set-cookie"), "{}", a.head);
}

#[test]
fn health_and_metrics_in_the_prometheus_text_format() {
    let server = Running::start(opts());
    let (status, health) = server.json("GET", "/healthz", &[], Value::Null);
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    let (_, game) = server.json("POST", "/api/games", &[], json!({"level": 1}));
    let id = game["id"].as_str().unwrap();
    let mine = [("X-Dama-Seat", game["secret"].as_str().unwrap())];
    server.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &mine,
        json!({"move": "22-18"}),
    );
    server.json(
        "POST",
        &format!("/api/games/{id}/reply"),
        &mine,
        Value::Null,
    );
    server.send("GET", "/nowhere", &[], "");
    let a = server.send("GET", "/metrics", &[], "");
    assert_eq!(a.status, 200);
    assert!(
        a.head.contains("content-type: text/plain; version=0.0.4"),
        "{}",
        a.head
    );
    let mut typed = std::collections::HashMap::new();
    let mut samples = std::collections::HashMap::new();
    for line in a.body.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap();
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            typed.insert(name.to_string(), kind.to_string());
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        // name{label="value",...} number
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line:?}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("{line:?}"));
        let name = series.split('{').next().unwrap();
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{line}"
        );
        if let Some(labels) = series.strip_prefix(name) {
            if !labels.is_empty() {
                assert!(labels.starts_with('{') && labels.ends_with('}'), "{line}");
                for pair in labels[1..labels.len() - 1].split("\",") {
                    let (k, v) = pair.split_once("=\"").unwrap_or_else(|| panic!("{line}"));
                    assert!(!k.is_empty() && !v.contains('\n'), "{line}");
                }
            }
        }
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| {
                name.strip_suffix(s)
                    .filter(|f| typed.get(*f).is_some_and(|k| k == "histogram"))
            })
            .unwrap_or(name);
        assert!(typed.contains_key(family), "{name} has no # TYPE before it");
        samples.insert(series.to_string(), value);
    }
    assert_eq!(
        samples["dama_http_requests_total{route=\"/api/games\",status=\"201\"}"],
        1.0
    );
    assert_eq!(
        samples["dama_http_requests_total{route=\"other\",status=\"404\"}"],
        1.0
    );
    assert_eq!(samples["dama_reply_seconds_count"], 1.0);
    assert_eq!(samples["dama_reply_seconds_bucket{le=\"+Inf\"}"], 1.0);
    assert_eq!(samples["dama_live_games"], 1.0);
    assert!(samples["dama_open_connections"] >= 1.0);
    assert_eq!(samples["dama_searches_waiting"], 0.0);
}

/// The soft limit on open files of this process (Linux), for sizing the slow-client test.
fn open_file_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(1024)
}

#[test]
fn half_open_connections_stall_no_one_and_are_cut_off_at_the_timeout() {
    // Both ends of each connection are in this process.
    let n = (open_file_limit() / 2).saturating_sub(200).min(5000);
    let server = Running::start(Options {
        header_timeout: Duration::from_secs(2),
        // Many clients, played from one address.
        connections_per_address: n + 10,
        ..opts()
    });
    let mut idle = Vec::with_capacity(n);
    for _ in 0..n {
        let mut s = TcpStream::connect(server.addr).unwrap();
        // Headers begun, never finished.
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            .unwrap();
        idle.push(s);
    }
    let started = Instant::now();
    let a = server.send("GET", "/healthz", &[], "");
    assert_eq!(a.status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?} with {n} half-open",
        started.elapsed()
    );
    // Within the timeout (and a margin for a loaded machine) each is closed.
    std::thread::sleep(Duration::from_secs(3));
    let deadline = Instant::now() + Duration::from_secs(10);
    for s in &mut idle {
        s.set_read_timeout(Some(
            deadline
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(10)),
        ))
        .unwrap();
        let mut buf = [0u8; 512];
        let closed = loop {
            match s.read(&mut buf) {
                Ok(0) => break true,
                Ok(_) => continue, // a 408 answer, then the close
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break true,
                Err(_) => break false,
            }
        };
        assert!(closed, "a half-open connection outlived the timeout");
    }
}

/// A connection to `to` from the loopback address `src` (127.0.0.0/8 is all this machine's).
fn connect_from(src: &str, to: std::net::SocketAddr) -> TcpStream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stream = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{src}:0").parse().unwrap()).unwrap();
        socket.connect(to).await.unwrap().into_std().unwrap()
    });
    stream.set_nonblocking(false).unwrap();
    stream
}

/// Whether a connection is answered (else it was closed at once).
fn answered(mut stream: TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    let mut buf = [0u8; 64];
    let n = stream.read(&mut buf).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200")
}

#[test]
fn connections_over_the_caps_are_closed_at_once_and_new_addresses_still_get_in() {
    let server = Running::start(Options {
        max_connections: 16,
        connections_per_address: 8,
        ..opts()
    });
    let hold = |src: &str, n: usize| -> Vec<TcpStream> {
        (0..n).map(|_| connect_from(src, server.addr)).collect()
    };
    let settle = || std::thread::sleep(Duration::from_millis(200));
    // One address gets its 8, not a 9th.
    let mut held = hold("127.0.0.1", 8);
    settle();
    assert!(!answered(connect_from("127.0.0.1", server.addr)));
    // 14 of 16 open: the last two are kept for addresses holding fewer than four.
    held.extend(hold("127.0.0.2", 6));
    settle();
    assert!(!answered(connect_from("127.0.0.2", server.addr)));
    assert!(answered(connect_from("127.0.0.3", server.addr)));
    settle();
    // The global cap still holds.
    held.extend(hold("127.0.0.4", 1));
    held.extend(hold("127.0.0.5", 1));
    settle();
    assert!(!answered(connect_from("127.0.0.6", server.addr)));
    drop(held);
    settle();
    let a = server.send("GET", "/metrics", &[], "");
    assert!(
        a.body.contains("dama_refused_connections_total 3\n"),
        "{}",
        a.body
    );
}

/// Opens the event stream `path` as `client` (its X-Forwarded-For) and reads its head.
fn open_stream(server: &Running, path: &str, client: &str) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: {client}\r\n\r\n"
    )
    .unwrap();
    let mut buf = [0u8; 4096];
    let n = stream.read(&mut buf).unwrap_or(0);
    (stream, String::from_utf8_lossy(&buf[..n]).into_owned())
}

#[test]
fn one_address_follows_at_most_its_streams_while_another_still_gets_in() {
    let server = Running::start(Options {
        streams_per_address: 32,
        trust_proxy: true,
        ..opts()
    });
    let (_, game) = server.json("POST", "/api/games", &[], json!({"opponent": "friend"}));
    let path = format!("/api/games/{}/events", game["id"].as_str().unwrap());
    let mut held = Vec::new();
    for _ in 0..32 {
        let (stream, head) = open_stream(&server, &path, "203.0.113.1");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        held.push(stream);
    }
    let (_, refused) = open_stream(&server, &path, "203.0.113.1");
    assert!(refused.starts_with("HTTP/1.1 429"), "{refused}");
    assert!(refused.contains("too_many_streams"), "{refused}");
    assert!(
        refused.to_ascii_lowercase().contains("retry-after: 5"),
        "{refused}"
    );
    let (_, other) = open_stream(&server, &path, "203.0.113.2");
    assert!(other.starts_with("HTTP/1.1 200"), "{other}");
    // A stream closed gives its place back.
    drop(held.pop());
    std::thread::sleep(Duration::from_millis(300));
    let (_, again) = open_stream(&server, &path, "203.0.113.1");
    assert!(again.starts_with("HTTP/1.1 200"), "{again}");
}

#[test]
fn a_stream_ends_after_its_lifetime_and_the_client_resumes_by_last_event_id() {
    let server = Running::start(Options {
        stream_lifetime: Duration::from_secs(1),
        ..opts()
    });
    let (_, game) = server.json("POST", "/api/games", &[], json!({"opponent": "friend"}));
    let id = game["id"].as_str().unwrap().to_string();
    let white = secret(&game["white_url"]);
    let path = format!("/api/games/{id}/events");
    let started = Instant::now();
    let (mut stream, head) = open_stream(&server, &path, "x");
    assert!(
        head.contains("retry: 1000"),
        "the reconnection delay comes first: {head}"
    );
    // The answer's last chunk (the connection itself stays open for the next request).
    let mut text = head;
    let mut buf = [0u8; 1024];
    while !text.ends_with("0\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(n) if n > 0 => text.push_str(&String::from_utf8_lossy(&buf[..n])),
            _ => break,
        }
    }
    let lasted = started.elapsed();
    assert!(
        lasted >= Duration::from_millis(900) && lasted < Duration::from_secs(4),
        "{lasted:?}"
    );
    let (status, _) = server.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &[("X-Dama-Seat", &white)],
        json!({"move": "22-18"}),
    );
    assert_eq!(status, 200);
    let text = read_events(&server, &path, &[("Last-Event-ID", "0")], "id: 1\n");
    assert!(text.contains("event: move"), "{text}");
}

#[test]
fn a_body_that_never_comes_is_cut_off_at_the_timeout() {
    let server = Running::start(Options {
        body_timeout: Duration::from_secs(1),
        ..opts()
    });
    let mut s = TcpStream::connect(server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = Instant::now();
    s.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"lev",
    )
    .unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(900), "{waited:?}: {text}");
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    let status: u16 = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    assert_eq!(status, 408, "{text}");
    assert!(text.contains("\"body_timeout\""), "{text}");
}

#[test]
fn live_analysis_counts_among_the_addresss_streams() {
    let server = Running::start(Options {
        streams_per_address: 2,
        trust_proxy: true,
        ..opts()
    });
    let (_, game) = server.json("POST", "/api/games", &[], json!({"opponent": "friend"}));
    let events = format!("/api/games/{}/events", game["id"].as_str().unwrap());
    let analysis = "/api/analysis?time_ms=30000&multipv=1";
    let (_game_stream, head) = open_stream(&server, &events, "203.0.113.7");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let (_analysis_stream, head) = open_stream(&server, analysis, "203.0.113.7");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // Both places are taken: neither a game's stream nor another analysis gets in.
    for path in [analysis, events.as_str()] {
        let (_, refused) = open_stream(&server, path, "203.0.113.7");
        assert!(refused.starts_with("HTTP/1.1 429"), "{path}: {refused}");
        assert!(refused.contains("too_many_streams"), "{refused}");
    }
}

#[test]
fn live_analysis_ends_after_the_streams_lifetime() {
    let server = Running::start(Options {
        stream_lifetime: Duration::from_secs(1),
        ..opts()
    });
    let started = Instant::now();
    let (mut stream, head) = open_stream(&server, "/api/analysis?time_ms=30000", "x");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let mut text = head;
    let mut buf = [0u8; 4096];
    while !text.ends_with("0\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(n) if n > 0 => text.push_str(&String::from_utf8_lossy(&buf[..n])),
            _ => break,
        }
    }
    let lasted = started.elapsed();
    assert!(
        text.ends_with("0\r\n\r\n"),
        "the stream did not end: {text}"
    );
    assert!(
        lasted >= Duration::from_millis(900) && lasted < Duration::from_secs(5),
        "a 30 s analysis lasted {lasted:?}, not the stream's 1 s"
    );
}

#[test]
fn a_finished_friend_game_has_a_rematch_with_the_colours_swapped() {
    let server = Running::start(opts());
    let (_, g) = server.json(
        "POST",
        "/api/games",
        &[("Cookie", ALICE)],
        json!({"opponent": "friend"}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    let (white, black) = (secret(&g["white_url"]), secret(&g["black_url"]));
    let post = |path: &str, seat: &str| {
        let headers: Vec<(&str, &str)> = if seat.is_empty() {
            vec![]
        } else {
            vec![("X-Dama-Seat", seat), ("Cookie", ALICE)]
        };
        server.json(
            "POST",
            &format!("/api/games/{id}/{path}"),
            &headers,
            json!({}),
        )
    };
    // Not before the end, and not for a watcher.
    let (status, err) = post("rematch", &white);
    assert_eq!((status, code(&err)), (409, "game_not_over"), "{err}");
    let (status, _) = post("resign", &black);
    assert_eq!(status, 200);
    let (status, err) = post("rematch", "");
    assert_eq!((status, code(&err)), (403, "not_a_player"), "{err}");

    // White's page follows the game: Black's request reaches it as a state event.
    let path = format!("/api/games/{id}/events?after=0&seat={white}");
    let (asked, pushed) = std::thread::scope(|s| {
        let follower = s.spawn(|| read_events(&server, &path, &[], "rematch_url"));
        std::thread::sleep(Duration::from_millis(300));
        let (status, asked) = post("rematch", &black);
        assert_eq!(status, 200, "{asked}");
        (asked, follower.join().unwrap())
    });
    let black_next = asked["rematch_url"].as_str().unwrap().to_string();
    let white_next = pushed
        .split("\"rematch_url\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_string();
    assert_ne!(white_next, black_next);
    // The same rematch when White asks too.
    let (_, again) = post("rematch", &white);
    assert_eq!(again["rematch_url"].as_str(), Some(white_next.as_str()));

    // In the new game the old Black plays White (and moves first), the old White Black.
    let next_id = black_next
        .split("game=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap();
    assert_ne!(next_id, id);
    assert!(white_next.contains(next_id), "{white_next}");
    let seat_of = |url: &str| {
        let (_, g) = server.json(
            "GET",
            &format!("/api/games/{next_id}"),
            &[("X-Dama-Seat", &secret(&json!(url)))],
            Value::Null,
        );
        (g["seat"].clone(), g["turn"].clone(), g["ply"].clone())
    };
    assert_eq!(
        seat_of(&black_next),
        (json!("white"), json!("player"), json!(0))
    );
    assert_eq!(
        seat_of(&white_next),
        (json!("black"), json!("opponent"), json!(0))
    );
    // A watcher of the old game is sent to watch the new one.
    let (_, watched) = server.json("GET", &format!("/api/games/{id}"), &[], Value::Null);
    assert_eq!(watched["rematch_url"], format!("/?game={next_id}"));
}

/// The `dama_live_games` gauge of `/metrics`.
fn live_games(server: &Running) -> u64 {
    let text = server.send("GET", "/metrics", &[], "").body;
    text.lines()
        .find_map(|l| l.strip_prefix("dama_live_games "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no dama_live_games in {text}"))
}

#[test]
fn a_visit_creates_no_game_until_the_first_move() {
    let server = Running::start(opts());
    // What the page asks on a first visit: the page, the API, its record, the preview.
    assert_eq!(server.send("GET", "/", &[], "").status, 200);
    assert_eq!(server.json("GET", "/api", &[], Value::Null).0, 200);
    assert_eq!(server.json("GET", "/api/me", &[], Value::Null).0, 200);
    let (status, preview) = server.json(
        "GET",
        "/api/preview?variant=italian&level=novice",
        &[],
        Value::Null,
    );
    assert_eq!(status, 200, "{preview}");
    assert_eq!(live_games(&server), 0);
    assert_eq!(
        (preview["id"].as_str(), preview["turn"].as_str()),
        (Some(""), Some("player"))
    );
    assert_eq!(preview["level"], "novice");
    // Every piece of the player's has its targets, as a created game's would.
    assert_eq!(
        preview["targets"].as_object().unwrap().len(),
        12,
        "{preview}"
    );
    assert_eq!(preview["targets"]["22"]["targets"], json!([18, 19]));
    assert_eq!(preview["targets"]["30"]["reason"]["code"], "blocked");
    let (status, err) = server.json("GET", "/api/preview?level=7", &[], Value::Null);
    assert_eq!((status, code(&err)), (400, "bad_level"), "{err}");

    // The first move: the game is created, then the move played.
    let (status, g) = server.json("POST", "/api/games", &[], json!({"level": "novice"}));
    assert_eq!(status, 201, "{g}");
    assert_eq!(live_games(&server), 1);
    let id = g["id"].as_str().unwrap();
    let owner = [("X-Dama-Seat", g["secret"].as_str().unwrap())];
    let (_, t) = server.json(
        "GET",
        &format!("/api/games/{id}/targets?square=22"),
        &owner,
        Value::Null,
    );
    assert_eq!(t, preview["targets"]["22"]);
    let (status, played) = server.json(
        "POST",
        &format!("/api/games/{id}/move"),
        &owner,
        json!({"path": [22, 18]}),
    );
    assert_eq!(status, 200, "{played}");
}
