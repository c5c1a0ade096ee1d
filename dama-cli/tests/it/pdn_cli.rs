//! `dama pdn check|fens|convert`: stdout, stderr and exit status.

use std::path::PathBuf;

use crate::common::{dama, dama_bytes};

fn data(name: &str) -> PathBuf {
    [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "tests",
        "data",
        "pdn",
        name,
    ]
    .iter()
    .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

fn run_on(action: &str, file: &str, extra: &[&str]) -> (i32, String, String) {
    let path = data(file);
    let path = path.to_str().expect("UTF-8 path");
    let mut args = vec!["pdn", action, path];
    args.extend_from_slice(extra);
    let out = dama(&args, None);
    (
        out.status.code().expect("an exit code"),
        text(&out.stdout),
        text(&out.stderr),
    )
}

#[test]
fn check_of_good_files_exits_zero() {
    for file in ["constructs.pdn", "fen_start.pdn", "variants.pdn"] {
        let (code, out, err) = run_on("check", file, &[]);
        assert_eq!(code, 0, "{file}: {out}{err}");
        assert!(out.ends_with(" games, 0 bad\n"), "{out}");
        assert_eq!(err, "");
    }
}

#[test]
fn check_reports_each_bad_game_and_exits_one() {
    let (code, out, err) = run_on("check", "bad_between_good.pdn", &[]);
    assert_eq!(code, 1, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(
        lines[0],
        "game 2, line 5: move 2 (black) \"12-16\": a capture is compulsory and only the pieces \
         on 5, 6 can capture"
    );
    assert!(lines[1].starts_with("game 4, line 11: "), "{}", lines[1]);
    assert!(lines[2].starts_with("game 5, line 15: "), "{}", lines[2]);
    assert!(lines[3].starts_with("game 6, line 19: "), "{}", lines[3]);
    assert_eq!(lines[4], "7 games, 4 bad");
}

#[test]
fn check_names_the_ambiguous_move() {
    let (code, out, _) = run_on("check", "ambiguous.pdn", &[]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("game 2, line 8: move 1 (white) \"30x14\": it is ambiguous"),
        "{out}"
    );
}

#[test]
fn missing_file_exits_two() {
    let (code, out, err) = run_on("check", "no_such_file.pdn", &[]);
    assert_eq!(code, 2);
    assert_eq!(out, "");
    assert!(err.starts_with("dama: cannot read "), "{err}");
    assert!(err.contains("no_such_file.pdn"), "{err}");
}

#[test]
fn directory_exits_two() {
    let dir = data("");
    let out = dama(&["pdn", "fens", dir.to_str().expect("UTF-8 path")], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fens_prints_game_ply_and_fen() {
    let (code, out, err) = run_on("fens", "fen_start.pdn", &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "1 0 B:WK19,21,22:B9,10,K28\n\
         1 1 W:WK19,21,22:B9,10,K32\n\
         1 2 B:WK14,21,22:B9,10,K32\n\
         1 3 W:WK14,21,22:B10,13,K32\n\
         1 4 B:WK5,21,22:B13,K32\n\
         1 5 W:WK5,21,22:B17,K32\n\
         1 6 B:WK5,18,21:B17,K32\n"
    );
}

#[test]
fn fens_skips_bad_games_with_a_message_and_exits_one() {
    let (code, out, err) = run_on("fens", "bad_between_good.pdn", &[]);
    assert_eq!(code, 1);
    let games: Vec<&str> = out
        .lines()
        .map(|l| l.split(' ').next().expect("a game number"))
        .collect();
    assert!(games.iter().all(|g| ["1", "3", "7"].contains(g)), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("3 ")).count(), 2);
    assert_eq!(err.lines().count(), 4, "{err}");
    assert!(err.starts_with("dama: game 2, line 5: "), "{err}");
}

#[test]
fn variant_option_sets_the_default_rules() {
    let spanish = "[FEN \"W:WK29,21:B1,2,4,12\"]\n1. 29x8 *\n";
    let out = dama(&["pdn", "check", "-"], Some(spanish));
    assert_eq!(out.status.code(), Some(1), "Italian kings do not fly");
    let out = dama(
        &["pdn", "--variant", "spanish", "check", "-"],
        Some(spanish),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = dama(&["pdn", "fens", "-", "--variant", "spanish"], Some(spanish));
    assert_eq!(
        text(&out.stdout),
        "1 0 W:W21,K29:B1,2,4,12\n1 1 B:WK8,21:B1,2,4\n"
    );
}

#[test]
fn convert_writes_canonical_pdn_that_converts_to_itself() {
    let (code, first, err) = run_on("convert", "constructs.pdn", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        first.starts_with("[Event \"Torneo sociale\"]\n[Site \"Napoli\"]\n"),
        "{first}"
    );
    assert!(
        first.contains("\n\n[Event \"0-2\"]\n[Result \"0-1\"]\n"),
        "{first}"
    );
    assert!(first.lines().all(|l| l.len() < 80), "{first}");
    let out = dama(&["pdn", "convert", "-"], Some(&first));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), first);
}

#[test]
fn convert_says_on_stderr_what_it_dropped() {
    let input =
        "[Event \"a\"]\n[Result \"1-0\"]\n1. 22-18! 12-16?! (1... 11-15 2. 21-17) 2. 21-17 $1 \
                 16-20 !? *\n\n[Event \"b\"]\n1. 22-18 11-15 *\n";
    let out = dama(&["pdn", "convert", "-"], Some(input));
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert_eq!(
        err,
        "dama: game 1: dropped 1 variation, 3 move marks (! ?), 1 numeric annotation ($n); the \
         result \"*\" after the moves, written as the Result tag's 1-0\n",
        "{err}"
    );
    // The games themselves, the second untouched and unreported.
    let pdn = text(&out.stdout);
    assert!(pdn.contains("1. 22-18 12-16 2. 21-17 16-20 1-0\n"), "{pdn}");
    assert!(pdn.contains("[Event \"b\"]"), "{pdn}");
}

#[test]
fn convert_keeps_good_games_of_a_file_with_bad_ones() {
    let (code, out, err) = run_on("convert", "bad_between_good.pdn", &[]);
    assert_eq!(code, 1);
    assert_eq!(out.matches("[Event ").count(), 3, "{out}");
    assert_eq!(err.lines().count(), 4, "{err}");
}

#[test]
fn check_quotes_a_30_mb_move_as_a_short_excerpt() {
    let mut input = b"[Event \"big\"]\n1. ".to_vec();
    input.resize(30_000_000, b'x');
    input.extend_from_slice(b" *\n");
    let out = dama_bytes(&["pdn", "check", "-"], &input);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    let first = report.lines().next().expect("a report line");
    assert!(first.len() < 250, "{} bytes: {first:.300}", first.len());
    assert!(
        first.starts_with("game 1, line 2: move 1 (white) \"xxx"),
        "{first}"
    );
}

#[test]
fn check_of_a_binary_file_writes_no_control_bytes() {
    let mut input = b"[Event \"\x1b]0;title\x07\"]\n1. 22-18 \x1b[2J\x9b".to_vec();
    input.extend((0u8..=255).cycle().take(5000));
    input.extend_from_slice(b"\n[Event \x1b[31m\n");
    let out = dama_bytes(&["pdn", "check", "-"], &input);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(
        report.chars().all(|c| c == '\n' || !c.is_control()),
        "{report:?}"
    );
    assert!(report.contains("\\u{1b}"), "{report}");
}
