//! `dama analyze`, `match`, `pdn stats`, `board`, `engine`, `bench` and `completions`.

use std::process::Output;

use crate::common::dama;
use serde_json::Value;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 output")
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("dama-tools-{}-{name}", std::process::id()))
}

#[test]
fn analyze_prints_progress_and_the_best_move() {
    let o = dama(
        &["analyze", "--fen", "W:W22,29,31:B18,9,3", "--depth", "6"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().next().unwrap().starts_with("depth 1"), "{out}");
    assert!(
        out.lines()
            .last()
            .unwrap()
            .starts_with("bestmove 22x13x18 "),
        "{out}"
    );
}

#[test]
fn analyze_searches_a_single_legal_move_to_the_depth_asked() {
    // Black's only legal move is 13x22.
    let fen = "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,11,12,13";
    let o = dama(&["analyze", "--fen", fen, "--depth", "8", "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let (last, infos) = lines.split_last().unwrap();
    let depths: Vec<u64> = infos
        .iter()
        .map(|v| v["data"]["depth"].as_u64().unwrap())
        .collect();
    assert_eq!(depths, (1..=8).collect::<Vec<u64>>());
    assert_eq!(last["data"]["depth"], 8);
    assert!(last["data"]["move"].as_str().unwrap().starts_with("13x22"));
    assert!(last["data"]["pv"].as_array().unwrap().len() > 1, "{last}");
}

#[test]
fn analyze_json_parses_back() {
    let o = dama(
        &["analyze", "--depth", "5", "--multipv", "2", "--json"],
        Some("W:W21-32:B1-12\n"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    // The start position is in the opening book: its moves come first.
    let (book, lines) = lines.split_first().unwrap();
    assert_eq!(book["type"], "book", "{book}");
    let book_moves = book["data"]["moves"].as_array().unwrap();
    assert_eq!(book_moves.len(), 7, "{book}");
    assert!(book_moves.iter().all(|m| m["score"].is_i64()));
    let (last, infos) = lines.split_last().unwrap();
    assert!(infos.iter().all(|v| v["type"] == "info"));
    assert!(infos.iter().any(|v| v["data"]["multipv"] == 2));
    assert_eq!(last["type"], "bestmove");
    let data = &last["data"];
    for key in ["move", "score", "depth", "nodes", "nps", "time", "pv"] {
        assert!(!data[key].is_null(), "{key} missing: {data}");
    }
    assert_eq!(data["depth"], 5);
    assert_eq!(data["pv"][0], data["move"]);
}

#[test]
fn analyze_reads_a_pdn_game_and_annotates_it() {
    let path = temp("game.pdn");
    std::fs::write(&path, "[White \"a\"]\n1. 22-18 11-14 2. 18x11 7x14 *\n").unwrap();
    let p = path.to_str().unwrap();
    let o = dama(&["analyze", "--pdn", p, "--ply", "2", "--depth", "4"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("bestmove 18x11x14"), "{}", stdout(&o));
    let o = dama(&["analyze", "--pdn", p, "--annotate", "--depth", "4"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let annotated = stdout(&o);
    assert_eq!(annotated.matches('{').count(), 4, "{annotated}");
    let back = temp("annotated.pdn");
    std::fs::write(&back, &annotated).unwrap();
    let o = dama(&["pdn", "check", back.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stdout(&o));
    let o = dama(&["analyze", "--pdn", p, "--ply", "9"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--ply 9"), "{}", stderr(&o));
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(back);
}

#[test]
fn match_writes_a_pdn_that_pdn_check_accepts_and_stats_agree() {
    let path = temp("match.pdn");
    let p = path.to_str().unwrap();
    let o = dama(
        &[
            "match",
            "level:easy",
            "level:novice",
            "--games",
            "4",
            "--concurrency",
            "2",
            "--pdn",
            p,
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let result = stdout(&o);
    let line = result.lines().last().unwrap();
    assert!(line.starts_with("wins "), "{line}");
    for word in ["draws", "losses", "score", "elo"] {
        assert!(line.contains(word), "{line}");
    }
    let o = dama(&["pdn", "check", p], None);
    assert_eq!(stdout(&o).lines().last(), Some("4 games, 0 bad"));
    let o = dama(&["pdn", "stats", p], None);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some(line));
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_score_of_all_or_nothing_reads_as_a_bound_on_the_elo() {
    let path = temp("all_won.pdn");
    let game = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. 22-18 1-0\n\n";
    std::fs::write(&path, game.repeat(10)).unwrap();
    let p = path.to_str().unwrap();
    // 10 games won: the score is above 0.05^(1/10) with 95 % confidence.
    let p95 = 0.05f64.powf(0.1);
    let bound = -400.0 * (1.0 / p95 - 1.0).log10();
    let o = dama(&["pdn", "stats", p], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = format!("wins 10 draws 0 losses 0 score 100.0% elo > +{bound:.1} (95% bound)");
    assert_eq!(stdout(&o).lines().last(), Some(want.as_str()));
    assert!(!stdout(&o).contains("inf"));
    let o = dama(&["pdn", "stats", p, "--player", "B", "--json"], None);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let data = &v["data"];
    assert!(data["elo"].is_null() && data["elo_error"].is_null(), "{v}");
    assert_eq!(data["elo_bound"]["op"], "<");
    let x = data["elo_bound"]["elo"].as_f64().unwrap();
    assert!((x + bound).abs() < 0.06, "{x} {bound}");
    // One draw among them: an estimate again, no bound.
    let drawn = game.replace("1-0", "1/2-1/2");
    std::fs::write(&path, game.repeat(9) + &drawn).unwrap();
    let o = dama(&["pdn", "stats", p, "--json"], None);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert!(v["data"]["elo_bound"].is_null(), "{v}");
    assert!(v["data"]["elo"].as_f64().unwrap() > bound);
    let _ = std::fs::remove_file(path);
}

#[test]
fn four_games_won_are_too_few_to_tell_which_player_is_stronger() {
    let path = temp("four_won.pdn");
    let game = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. 22-18 1-0\n\n";
    std::fs::write(&path, game.repeat(4)).unwrap();
    let o = dama(&["pdn", "stats", path.to_str().unwrap()], None);
    // A score below 50 % wins 4 games in a row more than 5 % of the time: 0.05^(1/4) = 0.473.
    let want = "wins 4 draws 0 losses 0 score 100.0% elo > -18.9 (95% bound; too few games to \
                tell which is stronger)";
    assert_eq!(stdout(&o).lines().last(), Some(want), "{}", stderr(&o));
    std::fs::write(&path, game.repeat(5)).unwrap();
    let o = dama(&["pdn", "stats", path.to_str().unwrap()], None);
    assert!(
        stdout(&o).ends_with("elo > +34.4 (95% bound)\n"),
        "{}",
        stdout(&o)
    );
    let _ = std::fs::remove_file(path);
}

#[test]
fn no_games_to_count_is_an_error_not_a_score() {
    let garbage = temp("garbage.pdn");
    std::fs::write(&garbage, "garbage\n").unwrap();
    let empty = temp("empty.pdn");
    std::fs::write(&empty, "").unwrap();
    let unfinished = temp("unfinished.pdn");
    std::fs::write(&unfinished, "[White \"A\"]\n\n1. 22-18 *\n").unwrap();
    for file in [&garbage, &empty, &unfinished] {
        let o = dama(&["pdn", "stats", file.to_str().unwrap()], None);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{file:?}: {err}");
        assert!(
            err.contains("no games") && err.contains(file.to_str().unwrap()),
            "{err}"
        );
        assert!(!stdout(&o).contains("score"), "{file:?}");
    }
    let o = dama(&["match", "depth:1", "depth:1", "--games", "0"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("'0'") && stderr(&o).contains("1 or more"),
        "{}",
        stderr(&o)
    );
    let o = dama(
        &[
            "match", "depth:1", "depth:1", "--games", "2", "--shard", "3/4",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--games 8 or more"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    for f in [garbage, empty, unfinished] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn match_openings_from_fens_pdn_and_move_lists_and_bad_lines_named() {
    let forced = "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,11,12,13";
    let list = temp("openings.txt");
    std::fs::write(
        &list,
        format!("# a FEN, quoted, then moves\n\"{forced}\"\n22-18 10-14\n"),
    )
    .unwrap();
    let pdn = temp("openings_out.pdn");
    let o = dama(
        &[
            "match",
            "depth:1",
            "depth:2",
            "--games",
            "4",
            "--openings",
            list.to_str().unwrap(),
            "--pdn",
            pdn.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let games = std::fs::read_to_string(&pdn).unwrap();
    // Each opening is played with both colours: two games from the FEN, two from 22-18 10-14.
    let from_fen = format!("[FEN \"{forced}\"]");
    assert_eq!(games.matches(&from_fen).count(), 2, "{games}");
    assert_eq!(games.matches("22-18 10-14").count(), 2, "{games}");
    // The match's PDN as openings: each game's moves, from its FEN tag.
    let o = dama(
        &[
            "match",
            "depth:1",
            "depth:1",
            "--games",
            "8",
            "--openings",
            pdn.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let last: Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    assert_eq!(last["data"]["games"], 8);
    // A bad line is named, with what was expected.
    for (text, want) in [
        ("22-18\n\n22-18 99-1\n", "openings.txt:3: \"99-1\""),
        ("W:W33:B1\n", "openings.txt:1: bad FEN \"W:W33:B1\""),
        (
            "[Event \"x\"]\n1. 22-18 10-14 2. 99-1 *\n",
            "game 1, line 2",
        ),
    ] {
        std::fs::write(&list, text).unwrap();
        let o = dama(
            &[
                "match",
                "depth:1",
                "depth:1",
                "--openings",
                list.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    }
    let _ = std::fs::remove_file(list);
    let _ = std::fs::remove_file(pdn);
}

/// Runs `dama ARGS` in a pseudo-terminal (by `tests/pty_drive.py`) until it exits; its
/// exit status and everything it wrote to the terminal.
fn in_terminal(args: &[&str]) -> (i64, String) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pty_drive.py");
    let o = std::process::Command::new("python3")
        .arg(script)
        .arg(r#"[["exit", 60]]"#)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_dama"))
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let text = v["stretches"][0].as_str().unwrap().to_string();
    (v["status"].as_i64().unwrap_or(-1), text)
}

/// The last line a terminal shows of `raw`: after the last line break, the bar's clears
/// and carriage returns dropped.
fn last_line(raw: &str) -> String {
    let line = raw.trim_end_matches(['\r', '\n']);
    let line = line.rsplit("\r\n").next().unwrap_or("");
    line.rsplit('\r')
        .next()
        .unwrap_or("")
        .replace("\x1b[2K", "")
}

#[test]
fn progress_bars_are_drawn_on_a_terminal_only() {
    let big = temp("big.pdn");
    let game = "[Event \"x\"]\n[Result \"1/2-1/2\"]\n\n1. 22-18 12-16 2. 21-17 9-13 1/2-1/2\n\n";
    let copies = (5 << 20) / game.len() + 1;
    std::fs::write(&big, game.repeat(copies)).unwrap();
    let p = big.to_str().unwrap();
    let summary = format!("{copies} games, 0 bad");

    // Not a terminal: stderr stays empty, stdout is the results alone.
    let o = dama(&["match", "nodes:100", "nodes:50", "--games", "4"], None);
    assert!(o.status.success());
    assert_eq!(stderr(&o), "");
    assert_eq!(stdout(&o).lines().count(), 1);
    assert!(stdout(&o).starts_with("wins "), "{}", stdout(&o));
    let o = dama(&["bench", "--depth", "2"], None);
    assert_eq!(stderr(&o), "");
    assert_eq!(stdout(&o).lines().count(), 8 + 2);
    let o = dama(&["pdn", "check", p], None);
    assert_eq!(stderr(&o), "");
    assert_eq!(stdout(&o), format!("{summary}\n"));

    // A terminal: the bar is drawn, with the count, the rate and the time left, then cleared
    // before the result, which is the last line on the screen.
    let (status, raw) = in_terminal(&["match", "nodes:100", "nodes:50", "--games", "4"]);
    assert_eq!(status, 0);
    assert!(
        raw.contains("/4 games · ") && raw.contains(" · ETA "),
        "{raw:?}"
    );
    assert!(last_line(&raw).starts_with("wins "), "{raw:?}");
    let (status, raw) = in_terminal(&["pdn", "check", p]);
    assert_eq!(status, 0);
    // The rate's unit depends on how far the count got when the bar was drawn (B/s at first).
    assert!(
        raw.contains(" MiB · ") && raw.contains("/s · ETA "),
        "{raw:?}"
    );
    assert_eq!(last_line(&raw), summary, "{raw:?}");
    let (_, raw) = in_terminal(&["bench", "--depth", "2"]);
    assert!(raw.contains("/8 positions"), "{raw:?}");
    assert!(last_line(&raw).starts_with("signature "), "{raw:?}");
    let _ = std::fs::remove_file(big);
}

#[test]
fn match_against_a_hub_engine_plays_through_the_protocol() {
    let path = temp("hub_match.pdn");
    let p = path.to_str().unwrap();
    let engine = format!("hub:{} engine", env!("CARGO_BIN_EXE_dama"));
    let o = dama(
        &[
            "match",
            "level:novice",
            &engine,
            "--games",
            "2",
            "--nodes",
            "2000",
            "--pdn",
            p,
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = dama(&["pdn", "check", p], None);
    assert_eq!(stdout(&o).lines().last(), Some("2 games, 0 bad"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("hub:"), "{text}");
    assert!(!text.contains("forfeit"), "{text}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_match_on_a_clock_plays_dama_and_a_hub_engine_within_their_time() {
    let engine = format!("hub:{} engine", env!("CARGO_BIN_EXE_dama"));
    // The clock's plumbing, not the machine's speed: a generous clock and a node cap, so that
    // both players move at once and only a real bug (a clock not passed on, a search that
    // ignores it) could lose on time. The clock's bookkeeping is tested with a clock of the
    // test's own (dama-search, matches.rs).
    let (text, games) = match_games(
        &[
            "clock/soft=60",
            &engine,
            "--clock",
            "60+1",
            "--nodes",
            "3000",
            "--games",
            "2",
        ],
        "clock_match.pdn",
        dama_rules::Variant::Italian,
    );
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.tag("TimeControl"), Some("60+1"), "{text}");
    }
    assert!(!text.contains("on time"), "{text}");
    assert!(!text.contains("forfeit"), "{text}");
    // Bad clocks are refused, quoted; a player on the clock needs one.
    for (args, says) in [
        (vec!["--clock", "0+1"], "the time \"0\""),
        (vec!["--clock", "5+x"], "the increment \"x\""),
        (vec!["--clock", "5+-1"], "the increment \"-1\""),
        (
            vec!["--clock", "5", "--movetime", "1"],
            "cannot be used with",
        ),
        (vec![], "expected --clock BASE+INC"),
        (vec!["--clock", "5,x"], "\"x\" in \"5,x\": the time \"x\""),
        (vec!["--clock", "5,1,2"], "\"1,2\" in \"5,1,2\""),
        (vec!["--movetime", "0.1,0"], "\"0\" in \"0.1,0\""),
    ] {
        let mut all = vec!["match", "clock", "level:novice"];
        all.extend(args);
        let o = dama(&all, None);
        assert_eq!(o.status.code(), Some(2), "{all:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{all:?}: {}", stderr(&o));
    }
}

#[test]
fn a_match_at_time_odds_gives_each_player_its_own_clock() {
    let engine = format!("hub:{} engine", env!("CARGO_BIN_EXE_dama"));
    let (text, games) = match_games(
        &[
            "clock/soft=60",
            &engine,
            "--clock",
            "60+1,300+5",
            "--nodes",
            "3000",
            "--games",
            "2",
        ],
        "odds_match.pdn",
        dama_rules::Variant::Italian,
    );
    assert_eq!(games.len(), 2);
    // The first player (White in the first game, Black in the second) keeps 60+1.
    fn tags(g: &dama_rules::notation::pdn::PdnGame) -> (Option<&str>, Option<&str>) {
        (g.tag("WhiteTimeControl"), g.tag("BlackTimeControl"))
    }
    assert_eq!(tags(&games[0]), (Some("60+1"), Some("300+5")), "{text}");
    assert_eq!(tags(&games[1]), (Some("300+5"), Some("60+1")), "{text}");
    assert!(!text.contains("on time"), "{text}");
    assert!(!text.contains("forfeit"), "{text}");
}

#[test]
fn match_shards_split_the_games_and_json_ends_with_the_result() {
    let mut total = 0;
    for shard in ["1/2", "2/2"] {
        let o = dama(
            &[
                "match",
                "depth:1",
                "level:novice",
                "--games",
                "6",
                "--shard",
                shard,
                "--concurrency",
                "2",
                "--json",
            ],
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
        assert_eq!(last["type"], "result");
        // The game lines come as the games end, in the match's order.
        let indices: Vec<u64> = out
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["type"] == "game")
            .map(|v| v["data"]["index"].as_u64().unwrap())
            .collect();
        assert_eq!(indices, (0..indices.len() as u64).collect::<Vec<_>>());
        assert_eq!(Some(indices.len() as u64), last["data"]["games"].as_u64());
        for key in [
            "wins",
            "draws",
            "losses",
            "score",
            "elo",
            "elo_error",
            "elo_bound",
        ] {
            assert!(last["data"].get(key).is_some(), "{key}");
        }
        total += last["data"]["games"].as_u64().unwrap();
    }
    assert_eq!(total, 6);
}

#[test]
fn board_draws_text_and_svg() {
    let path = temp("board.svg");
    let p = path.to_str().unwrap();
    let o = dama(
        &[
            "board",
            "--fen",
            "W:W22,29:B18,9",
            "--move",
            "22x13",
            "--svg",
            p,
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 9);
    assert!(text.ends_with("white to move\n"));
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg"));
    assert_eq!(svg.matches("<circle").count(), 4);
    let _ = std::fs::remove_file(path);
}

#[cfg(feature = "png")]
#[test]
fn board_png_is_the_same_drawing_as_the_svg() {
    let png = temp("board.png");
    let svg = temp("board_png.svg");
    let o = dama(
        &[
            "board",
            "--fen",
            "W:W22,29:B18,9",
            "--move",
            "22x13",
            "--png",
            png.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&png).unwrap();
    // The PNG signature, then the IHDR chunk: 480×480.
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let dim = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!((dim(16), dim(20)), (480, 480));
    // Its pixels, decoded: the colours the SVG gives (60 pixels a square; square 1 top left).
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&bytes).unwrap();
    let at = |x: u32, y: u32| {
        let c = pixmap.pixel(x, y).unwrap();
        (c.red(), c.green(), c.blue())
    };
    let centre = |row: u32, col: u32| at(col * 60 + 30, row * 60 + 30);
    assert_eq!(centre(0, 1), (0xee, 0xdf, 0xc0), "a light square");
    assert_eq!(at(50, 50), (0x5d, 0x8a, 0x4e), "square 1, empty");
    assert_eq!(
        at(60 + 50, 180 + 50),
        (0xc9, 0xa2, 0x27),
        "13, where 22x13 lands"
    );
    assert_eq!(
        at(180 + 50, 300 + 50),
        (0xc9, 0xa2, 0x27),
        "22, where it starts"
    );
    assert_eq!(at(120 + 8, 240 + 50), (0xb5, 0x52, 0x3b), "18, taken");
    assert_eq!(centre(4, 2), (0x26, 0x26, 0x26), "the black man on 18");
    assert_eq!(centre(5, 3), (0xf7, 0xf3, 0xe8), "the white man on 22");
    // The square numbers are strokes, so drawn without a font: light pixels in the corner
    // of square 1, none further in.
    let light = (0..20)
        .flat_map(|y| (0..20).map(move |x| (x, y)))
        .filter(|&(x, y)| at(x, y).0 > 0xc0)
        .count();
    assert!(light > 3, "no number on square 1");
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<path"));
    let o = dama(
        &[
            "board",
            "--fen",
            "W:W22:B18",
            "--png",
            "/nonexistent-dir/b.png",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/nonexistent-dir/b.png"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_file(png);
    let _ = std::fs::remove_file(svg);
}

#[test]
fn engine_speaks_the_hub_protocol() {
    let o = dama(&["engine"], Some("hub\ninit\nping\nquit\n"));
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.starts_with("id name=dama"), "{out}");
    assert!(out.ends_with("wait\nready\npong\n"), "{out}");
}

#[test]
fn bench_prints_a_signature_that_does_not_change() {
    let a = stdout(&dama(&["bench", "--depth", "6"], None));
    let b = stdout(&dama(&["bench", "--depth", "6"], None));
    let sig = |s: &str| s.lines().last().unwrap().to_string();
    assert!(sig(&a).starts_with("signature "), "{a}");
    assert_eq!(sig(&a), sig(&b));
    assert_eq!(a.lines().count(), 10);
}

#[test]
fn completions_for_bash() {
    let o = dama(&["completions", "bash"], None);
    assert!(o.status.success());
    assert!(stdout(&o).contains("analyze"));
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["analyze", "--fen", "W:W99"][..],
        &["analyze", "--time", "-1"],
        &["analyze", "--multipv", "x"],
        &["match", "level:hard"],
        &["match", "level:eleven", "level:hard"],
        &["match", "hub:", "level:hard"],
        &["match", "level:easy", "level:hard", "--shard", "3/2"],
        &["board", "--move", "22-17"],
        &["bench", "--depth", "deep"],
        &["completions", "tcsh"],
        &["pdn", "stats", "/nonexistent/file.pdn"],
    ] {
        let o = dama(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("dama") || stderr(&o).contains("error"));
    }
}

#[test]
fn times_and_depths_out_of_range_are_refused_with_the_value_quoted() {
    for (args, quoted, why) in [
        (
            &["analyze", "--time", "1e20", "--depth", "2"][..],
            "1e20",
            "too large, at most 31536000 seconds",
        ),
        (
            &["analyze", "--time", "-1"],
            "-1",
            "expected a positive number of seconds",
        ),
        (
            &["analyze", "--time", "0"],
            "0",
            "expected a positive number of seconds",
        ),
        (&["analyze", "--time", "nan"], "nan", "not a number"),
        (&["analyze", "--time", "inf"], "inf", "not a finite number"),
        (
            &["match", "level:strong", "time:1e308", "--games", "2"],
            "time:1e308",
            "too large",
        ),
        (
            &["match", "time:-1", "depth:1"],
            "time:-1",
            "expected a positive number",
        ),
        (
            &["match", "depth:1", "depth:1", "--movetime", "1e308"],
            "1e308",
            "too large",
        ),
        (
            &["match", "depth:1", "depth:1", "--movetime", "-0.5"],
            "-0.5",
            "positive",
        ),
        (
            &["match", "depth:9999999999", "depth:1"],
            "depth:9999999999",
            "too large, at most 120",
        ),
        (
            &["match", "depth:0", "depth:1"],
            "depth:0",
            "expected 1 or more",
        ),
        (
            &["match", "nodes:99999999999999999999", "depth:1"],
            "nodes:99999999999999999999",
            "too large",
        ),
        // One rule for every limit: 0 nodes is refused as 0 seconds is.
        (
            &["analyze", "--nodes", "0"],
            "'0'",
            "expected a whole number of nodes, 1 or more",
        ),
        (
            &["match", "depth:1", "depth:1", "--nodes", "0"],
            "'0'",
            "expected a whole number of nodes, 1 or more",
        ),
        (
            &["match", "nodes:0", "depth:1"],
            "nodes:0",
            "expected 1 or more",
        ),
    ] {
        let o = dama(args, None);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(quoted) && err.contains(why), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn values_that_cannot_mean_what_they_say_are_refused() {
    let start = "W:W21-32:B1-12";
    let png = temp("same.png");
    let same = png.to_str().unwrap();
    let dot = format!(
        "{}/./{}",
        png.parent().unwrap().display(),
        png.file_name().unwrap().to_str().unwrap()
    );
    for (args, stdin, needles) in [
        (
            vec!["analyze", "--fen", start, "--depth", "0"],
            "",
            &["'0'", "1..=120"][..],
        ),
        (
            vec!["analyze", "--fen", start, "--depth", "121"],
            "",
            &["'121'", "1..=120"],
        ),
        (
            vec!["analyze", "--fen", start, "--multipv", "0"],
            "",
            &["'0'", "--multipv"],
        ),
        (
            vec!["analyze", "--fen", start, "--threads", "0"],
            "",
            &["'0'", "--threads"],
        ),
        (
            vec![
                "tune",
                "gen",
                "--threads",
                "100000",
                "--out",
                "never.samples",
            ],
            "",
            &["'100000'", "--threads", "1..=256"],
        ),
        (
            vec![
                "tune",
                "label",
                "never.samples",
                "--threads",
                "257",
                "--out",
                "x",
            ],
            "",
            &["'257'", "--threads", "1..=256"],
        ),
        (
            vec!["board", "--fen", start, "--png", same, "--svg", same],
            "",
            &["name one file", same],
        ),
        (
            vec!["board", "--fen", start, "--png", same, "--svg", &dot],
            "",
            &["name one file"],
        ),
        (
            vec!["analyze", "--depth", "1"],
            "W:W22:B18\nW:W21:B9\n",
            &["2 FEN lines", "W:W22:B18"],
        ),
        (vec!["board"], "W:W22:B18\n\nW:W21:B9\n", &["2 FEN lines"]),
        (
            vec!["analyze", "--depth", "1"],
            "",
            &["standard input is empty: expected one FEN line"],
        ),
        (vec!["board"], "\n  \n", &["standard input is empty"]),
    ] {
        let o = dama(&args, Some(stdin));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{args:?}: {err} lacks {needle}");
        }
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
    assert!(!png.exists(), "nothing written to {same}");
    // One FEN line, blank lines around it, is the position.
    let o = dama(&["board", "--plain"], Some("\n W:W22:B18 \n\n"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("white to move\n"));
}

#[test]
fn book_show_lists_the_start_moves_with_values_and_stats_measures_it() {
    let o = dama(&["book", "show"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    let mut values = Vec::new();
    for l in &lines {
        let (mv, value) = l.split_once(' ').unwrap();
        assert!(mv.len() == 5 && mv.as_bytes()[2] == b'-', "{l}");
        values.push(
            value
                .trim()
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("{l}")),
        );
    }
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{out}");
    let o = dama(&["book", "show", "--fen", "W:WK1:BK32"], None);
    assert_eq!(stdout(&o).trim(), "not in the book");
    let o = dama(&["book", "stats"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let field = |name: &str| -> u64 {
        out.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} in {out}"))
    };
    assert!(field("positions") > 100, "{out}");
    assert_eq!(field("positions"), field("reachable"), "{out}");
    assert!(field("depth") >= 4, "{out}");
}

#[test]
fn book_files_are_built_extended_and_refused_when_damaged() {
    let path = temp("small.book");
    let _ = std::fs::remove_file(&path);
    let p = path.to_str().unwrap();
    let o = dama(
        &[
            "book",
            "build",
            "--out",
            p,
            "--positions",
            "3",
            "--leaf-nodes",
            "200",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("3 positions"), "{}", stderr(&o));
    let o = dama(&["book", "build", "--out", p, "--positions", "3"], None);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("dama book extend"), "{}", stderr(&o));
    let o = dama(&["book", "extend", p, "--positions", "2"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = dama(&["book", "stats", "--book", p], None);
    assert!(stdout(&o).contains("positions 5\n"), "{}", stdout(&o));
    assert!(stdout(&o).contains("leaf-nodes 200\n"), "{}", stdout(&o));
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 2] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let o = dama(&["book", "show", "--book", p], None);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("damaged"), "{}", stderr(&o));
    std::fs::write(&path, b"not a book").unwrap();
    let o = dama(&["book", "stats", "--book", p], None);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not a dama opening book"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(&path).unwrap();
}

/// Runs `dama match ARGS --pdn FILE` (which must succeed) and returns the file's text and
/// its games, read as `variant`.
fn match_games(
    args: &[&str],
    name: &str,
    variant: dama_rules::Variant,
) -> (String, Vec<dama_rules::notation::pdn::PdnGame>) {
    let path = temp(name);
    let mut all = vec!["match"];
    all.extend_from_slice(args);
    all.extend(["--pdn", path.to_str().unwrap()]);
    let o = dama(&all, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let games = dama_rules::notation::pdn::Reader::new(text.as_bytes(), variant)
        .map(|g| g.expect("a PDN game the match wrote"))
        .collect();
    (text, games)
}

#[test]
fn a_spanish_match_starts_from_three_ply_lines_and_players_take_knobs() {
    let (text, games) = match_games(
        &[
            "nodes:300",
            "nodes:300/hand=1",
            "--variant",
            "spanish",
            "--games",
            "4",
        ],
        "spanish.pdn",
        dama_rules::Variant::Spanish,
    );
    assert_eq!(games.len(), 4);
    assert!(games
        .iter()
        .all(|g| g.variant == dama_rules::Variant::Spanish));
    assert!(text.contains("[White \"nodes:300/hand=1\"]"), "{text}");
    // Each pair plays one line with both colours; the two pairs play different lines.
    let opening = |i: usize| games[i].moves[..3].to_vec();
    assert_eq!(opening(0), opening(1));
    assert_eq!(opening(2), opening(3));
    assert_ne!(opening(0), opening(2));

    let o = dama(&["match", "nodes:300/hand=2x", "depth:1"], None);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("nodes:300/hand=2x") && e.contains("expected a number"),
        "{e}"
    );
    // Levels take no switches.
    let o = dama(&["match", "level:hard/hand=1", "depth:1"], None);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("\"level:hard/hand=1\" is not a player"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_resumed_match_keeps_the_games_played_and_plays_the_rest() {
    let args = |pdn: &std::path::Path, seed: &str, first: &str| -> Vec<String> {
        [
            "match",
            first,
            "nodes:300/hand=1",
            "--games",
            "6",
            "--seed",
            seed,
            "--json",
            "--pdn",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([pdn.to_str().unwrap().to_string()])
        .collect()
    };
    let run = |args: &[String]| dama(&args.iter().map(String::as_str).collect::<Vec<_>>(), None);
    let (full, part) = (temp("resume-full.pdn"), temp("resume-part.pdn"));
    let whole = run(&args(&full, "3", "nodes:300"));
    assert!(whole.status.success(), "{}", stderr(&whole));
    let text = std::fs::read_to_string(&full).unwrap();
    // The first three games, as a match stopped after them left the file.
    let fourth = text.match_indices("[Event").nth(3).expect("six games").0;
    std::fs::write(&part, &text[..fourth - 1]).unwrap();

    // Another seed orders the openings otherwise: refused, the file untouched.
    let mut resume = args(&part, "4", "nodes:300");
    resume.push("--resume".into());
    let o = run(&resume);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("game 1: it is not played from this match's opening"),
        "{}",
        stderr(&o)
    );
    // So is another player.
    let mut resume = args(&part, "3", "nodes:301");
    resume.push("--resume".into());
    let o = run(&resume);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("White \"nodes:300\"") && stderr(&o).contains("White \"nodes:301\""),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&part).unwrap(), text[..fourth - 1]);

    // The same match goes on: the same games, the same lines, the same result.
    let mut resume = args(&part, "3", "nodes:300");
    resume.push("--resume".into());
    let o = run(&resume);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&whole));
    assert_eq!(std::fs::read_to_string(&part).unwrap(), text);
    // A finished match plays nothing more.
    let o = run(&resume);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&whole));
    assert_eq!(std::fs::read_to_string(&part).unwrap(), text);
    let _ = std::fs::remove_file(&full);
    let _ = std::fs::remove_file(&part);

    // --resume reads the games from --pdn.
    let o = dama(&["match", "depth:1", "depth:1", "--resume"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--pdn"), "{}", stderr(&o));
}

#[test]
fn a_player_can_evaluate_with_a_weights_file() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dama-search/src");
    let moves = |first: &str| -> Vec<String> {
        let (_, games) = match_games(
            &[first, "nodes:300", "--games", "2"],
            &format!("weights-{}.pdn", first.len()),
            dama_rules::Variant::Italian,
        );
        games.iter().map(|g| format!("{:?}", g.moves)).collect()
    };
    let italian = src.join("italian.weights");
    let spanish = src.join("spanish.weights");
    // The fitted features (`net=0`; the network is the default) and the shipped net.
    let shipped = moves("nodes:300/net=0");
    assert_eq!(shipped.len(), 2);
    // The shipped files read at run time play the same games; another file plays others.
    assert_eq!(
        moves(&format!("nodes:300/weights={}", italian.display())),
        shipped
    );
    let net = moves("nodes:300");
    assert_ne!(net, shipped);
    assert_eq!(
        moves(&format!(
            "nodes:300/weights={}",
            src.join("italian.nnue").display()
        )),
        net
    );
    assert_ne!(
        moves(&format!("nodes:300/hand=0,weights={}", spanish.display())),
        shipped
    );

    let bad = temp("bad.weights");
    let mut bytes = std::fs::read(&italian).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&bad, &bytes).unwrap();
    let spec = format!("nodes:300/weights={}", bad.display());
    let o = dama(&["match", &spec, "nodes:300", "--games", "2"], None);
    let _ = std::fs::remove_file(&bad);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(&bad.display().to_string()) && e.contains("checksum"),
        "{e}"
    );
    let o = dama(
        &["match", "depth:2/weights=/no/such.weights", "depth:1"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/no/such.weights: cannot read it"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_match_longer_than_its_openings_varies_them_and_shards_play_the_same_games() {
    // Two openings, 12 games: pairs 3-6 play them again with two moves of choice more
    // (different ones each time round), so players limited by nodes, which play the same
    // game from the same position every time, do not repeat their games.
    let list = temp("two_openings.txt");
    std::fs::write(&list, "22-18 10-14\n21-17 12-16\n").unwrap();
    let args = |shard: Option<&str>| {
        let mut a = vec![
            "nodes:60".to_string(),
            "nodes:90".to_string(),
            "--games".into(),
            "12".into(),
            "--openings".into(),
            list.to_str().unwrap().into(),
        ];
        if let Some(s) = shard {
            a.extend(["--shard".into(), s.into()]);
        }
        a
    };
    let run = |shard: Option<&str>, name: &str| {
        let a = args(shard);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        match_games(&a, name, dama_rules::Variant::Italian).1
    };
    let whole = run(None, "varied_whole.pdn");
    assert_eq!(whole.len(), 12);
    let lines: Vec<String> = whole
        .iter()
        .map(|g| {
            g.moves
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    // Pairs 1 and 2 play the two openings (in the order the seed shuffles them), each pair
    // after them the opening of pair (p mod 2) again.
    let opening = |i: usize| lines[i].split(' ').take(2).collect::<Vec<_>>().join(" ");
    assert_ne!(opening(0), opening(2));
    for (i, line) in lines.iter().enumerate() {
        assert!(
            ["22-18 10-14", "21-17 12-16"].contains(&opening(i).as_str()),
            "game {i}: {line}"
        );
        assert_eq!(opening(i), opening(i % 4), "game {i}");
    }
    // The same colour's games of an opening, round after round, all differ.
    for i in 0..12 {
        for j in (i + 4..12).step_by(4) {
            assert_ne!(lines[i], lines[j], "games {i} and {j}");
        }
    }
    // Three shards (3 does not divide the 2 openings' period) play the whole match's games.
    let mut sharded: Vec<(String, String)> = Vec::new();
    for shard in ["1/3", "2/3", "3/3"] {
        for g in run(Some(shard), "varied_shard.pdn") {
            let round = g
                .tags
                .iter()
                .find(|(k, _)| k == "Round")
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            let moves = g
                .moves
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" ");
            sharded.push((round, moves));
        }
    }
    sharded.sort_by_key(|(round, _)| {
        let (pair, game) = round.split_once('.').unwrap_or((round.as_str(), "0"));
        (
            pair.parse::<u32>().unwrap_or(0),
            game.parse::<u32>().unwrap_or(0),
        )
    });
    let sharded: Vec<String> = sharded.into_iter().map(|(_, m)| m).collect();
    assert_eq!(sharded, lines);
}
