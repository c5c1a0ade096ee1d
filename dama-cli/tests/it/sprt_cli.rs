//! `dama match --sprt` and `dama pdn stats --sprt`: a match that stops when the test
//! decides, resumed, and read back.

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
    std::env::temp_dir().join(format!("dama-sprt-{}-{name}", std::process::id()))
}

/// The JSON lines of a successful run of `dama ARGS`.
fn json_lines(args: &[&str]) -> Vec<Value> {
    let o = dama(args, None);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The `data` of the lines of type `kind`.
fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|v| v["type"] == kind)
        .map(|v| &v["data"])
        .collect()
}

/// ln(19): the bounds at alpha = beta = 0.05 are -ln 19 and +ln 19.
const LN_19: f64 = 2.944_438_979_166_44;

/// The expected score of `elo` logistic Elo.
fn score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

#[test]
fn a_match_of_a_player_and_its_copy_accepts_h0_after_five_pairs() {
    // The same deterministic engine under two names plays the same game with each colour,
    // so every pair scores 0.5 for the first player. By hand: against elo1 = 200 each such
    // pair adds ln(2 - 2 s1) to the LLR (the best distribution of mean s1 gives the pair
    // score 0.5 the probability 2 - 2 s1 and puts the rest on pairs won twice), so the LLR
    // is below -ln 19 after ceil(ln 19 / -ln(2 - 2 s1)) = 5 pairs.
    let per_pair = (2.0 - 2.0 * score(200.0)).ln();
    assert_eq!((LN_19 / -per_pair).ceil(), 5.0);
    let path = temp("copy.pdn");
    let p = path.to_str().unwrap();
    let lines = json_lines(&[
        "match",
        "nodes:300",
        "nodes:300/hand=0",
        "--sprt",
        "elo0=0",
        "elo1=200",
        "--json",
        "--pdn",
        p,
    ]);
    let tests = of_type(&lines, "sprt");
    assert_eq!(tests.len(), 5);
    for (i, t) in tests.iter().enumerate() {
        let n = i as f64 + 1.0;
        assert_eq!(t["pairs"], i + 1);
        assert_eq!(t["pentanomial"], serde_json::json!([0, 0, i + 1, 0, 0]));
        let llr = t["llr"].as_f64().unwrap();
        assert!((llr - n * per_pair).abs() < 1e-9, "{t}");
        assert!((t["lower"].as_f64().unwrap() + LN_19).abs() < 1e-9);
        assert!((t["upper"].as_f64().unwrap() - LN_19).abs() < 1e-9);
        let want = if i == 4 {
            Value::from("H0")
        } else {
            Value::Null
        };
        assert_eq!(t["decision"], want, "{t}");
        let want = if i == 4 { Value::from(5) } else { Value::Null };
        assert_eq!(t["decided_at"], want, "{t}");
    }
    // An sprt line after every second game, and nothing played after the decision.
    let kinds: Vec<&str> = lines.iter().map(|v| v["type"].as_str().unwrap()).collect();
    let pair = ["game", "game", "sprt"];
    assert_eq!(kinds.len(), 5 * 3 + 1);
    assert!(kinds.chunks(3).take(5).all(|c| c == pair), "{kinds:?}");
    let result = of_type(&lines, "result")[0];
    assert_eq!(result["games"], 10);
    assert_eq!(result["sprt"], *tests[4]);
    assert_eq!(result["pentanomial"], tests[4]["pentanomial"]);

    // Read back: the same pairs, the same LLR.
    let o = dama(&["pdn", "stats", p, "--sprt", "elo0=0", "elo1=200"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "pairs 5 pentanomial 0 0 5 0 0 unpaired 0");
    let want = format!(
        "sprt elo0 0 elo1 200 alpha 0.05 beta 0.05 pairs 5 pentanomial 0 0 5 0 0 llr {:.2} \
         lower -2.94 upper 2.94 decision H0 decided_at 5",
        5.0 * per_pair
    );
    assert_eq!(lines[2], want);
    assert!(lines[3].starts_with("wins "), "{out}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_much_stronger_player_is_accepted_as_h1_and_games_in_flight_make_whole_pairs() {
    let path = temp("strong.pdn");
    let p = path.to_str().unwrap();
    for concurrency in ["1", "2"] {
        let lines = json_lines(&[
            "match",
            "nodes:300",
            "depth:1",
            "--sprt",
            "elo0=0",
            "elo1=200",
            "--concurrency",
            concurrency,
            "--json",
            "--pdn",
            p,
        ]);
        let tests = of_type(&lines, "sprt");
        let decided = tests
            .iter()
            .position(|t| !t["decision"].is_null())
            .expect("the test decides");
        assert_eq!(tests[decided]["decision"], "H1");
        assert!(tests[decided]["llr"].as_f64().unwrap() >= LN_19);
        // Before: no decision, the LLR between the bounds; after: the decision is kept.
        for t in &tests[..decided] {
            let llr = t["llr"].as_f64().unwrap();
            assert!(llr > -LN_19 && llr < LN_19, "{t}");
        }
        assert!(tests[decided..].iter().all(|t| t["decision"] == "H1"));
        let at = tests[decided]["pairs"].clone();
        assert!(tests[decided..].iter().all(|t| t["decided_at"] == at));
        // Each pair scores 0.75 at most (a pair is a game with each colour): the LLR passes
        // ln 19 after a bounded number of pairs (ln 19 / ln(s1 / 0.5) < 8 if all are won).
        assert!(decided < 30, "{decided}");
        let result = of_type(&lines, "result")[0];
        let games = result["games"].as_u64().unwrap();
        let pairs = tests.last().unwrap()["pairs"].as_u64().unwrap();
        assert_eq!(games, 2 * pairs, "whole pairs only");
        assert_eq!(of_type(&lines, "game").len() as u64, games);
        if concurrency == "1" {
            assert_eq!(decided + 1, tests.len(), "one game at a time: none after");
        }
        // Read back, the pairs in the match's order give the same test, decision included.
        let stats = json_lines(&["pdn", "stats", p, "--json", "--sprt", "elo0=0", "elo1=200"]);
        assert_eq!(of_type(&stats, "result")[0]["sprt"], result["sprt"]);
    }
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_resumed_sprt_match_reads_its_pairs_back_and_goes_on() {
    let path = temp("resume.pdn");
    let p = path.to_str().unwrap();
    let args = [
        "match",
        "nodes:300",
        "depth:1",
        "--sprt",
        "elo0=0",
        "elo1=200",
        "--json",
    ];
    let whole = json_lines(&args);
    // Stopped after two pairs (as if killed), then resumed with no limit.
    let mut capped = args.to_vec();
    capped.extend(["--pdn", p, "--games", "4"]);
    let first = json_lines(&capped);
    assert_eq!(of_type(&first, "sprt").len(), 2);
    assert!(of_type(&first, "sprt")[1]["decision"].is_null());
    let mut resumed = args.to_vec();
    resumed.extend(["--pdn", p, "--resume"]);
    let rest = json_lines(&resumed);
    assert_eq!(
        rest, whole,
        "the resumed match is the whole match, line for line"
    );
    // A match whose test has decided is over: resumed again, it plays nothing.
    let again = json_lines(&resumed);
    assert_eq!(again, whole);
    let text = std::fs::read_to_string(&path).unwrap();
    let games = of_type(&whole, "game").len();
    assert_eq!(text.matches("[Event ").count(), games);
    assert!(text.contains("[Round \"1.1\"]") && text.contains("[Round \"1.2\"]"));
    let _ = std::fs::remove_file(path);
}

#[test]
fn stats_pairs_games_by_round_or_by_order() {
    let path = temp("synthetic.pdn");
    let game = |round: Option<&str>, white: &str, black: &str, result: &str| {
        let round = round.map_or(String::new(), |r| format!("[Round \"{r}\"]\n"));
        format!(
            "{round}[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n\
             1. 22-18 {result}\n\n"
        )
    };
    // A's pairs: round 1 won twice (1), round 2 a draw and a loss (0.25), round 3 half
    // played; then, with no Round tags, by order: two draws (0.5).
    let text = [
        game(Some("1.1"), "A", "B", "1-0"),
        game(Some("2.1"), "A", "B", "1/2-1/2"),
        game(Some("1.2"), "B", "A", "0-1"),
        game(Some("2.2"), "B", "A", "1-0"),
        game(Some("3.1"), "A", "B", "1-0"),
    ]
    .concat();
    std::fs::write(&path, text).unwrap();
    let other = temp("synthetic-order.pdn");
    let text = [
        game(None, "A", "B", "1/2-1/2"),
        game(None, "B", "A", "1/2-1/2"),
    ]
    .concat();
    std::fs::write(&other, text).unwrap();
    let (p, q) = (path.to_str().unwrap(), other.to_str().unwrap());
    let o = dama(&["pdn", "stats", p, q], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().nth(1),
        Some("pairs 3 pentanomial 0 1 1 0 1 unpaired 1")
    );
    let o = dama(&["pdn", "stats", p, q, "--json", "--player", "B"], None);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["data"]["pentanomial"], serde_json::json!([1, 0, 1, 1, 0]));
    assert!(v["data"]["sprt"].is_null());
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(other);
}

#[test]
fn bad_tests_are_refused_with_what_was_expected() {
    for (args, want) in [
        (
            &["match", "depth:1", "depth:1", "--sprt", "elo0=5", "elo1=0"][..],
            "expected elo0 below elo1",
        ),
        (
            &["match", "depth:1", "depth:1", "--sprt", "elo1=5"],
            "expected both elo0= and elo1=",
        ),
        (
            &[
                "match", "depth:1", "depth:1", "--sprt", "elo0=0", "elo1=5", "alpha=2",
            ],
            "between 0 and 1",
        ),
    ] {
        let o = dama(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.starts_with("dama: --sprt: bad SPRT \""), "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // A file after --sprt is not taken for one of its words.
    let o = dama(
        &["pdn", "stats", "--sprt", "elo0=0", "elo1=5", "m.pdn"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("\"m.pdn\" is not elo0="), "{err}");
    assert!(err.contains("after the players or files"), "{err}");
}
