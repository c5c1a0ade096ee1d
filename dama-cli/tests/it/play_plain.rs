//! `dama play --plain`: whole games through the text contract, refusals, bad arguments.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use crate::common::dama;
use dama_rules::notation::fen;
use dama_rules::{Color, Game, Outcome};
use dama_search::{Engine, Limits};

/// Plays a whole game against Novice: the scripted player answers every `fen` line with a
/// legal move found by a shallow search, and checks every line of the contract on the way.
/// Returns the game as the script saw it and the final `result` line.
fn scripted_game(seed: &str) -> (Game, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dama"))
        .args(["play", "--plain", "--level", "novice", "--seed", seed])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("dama runs");
    let mut to_dama = child.stdin.take().unwrap();
    let from_dama = BufReader::new(child.stdout.take().unwrap());
    let mut game = Game::new();
    let mut engine = Engine::with_hash(4);
    let mut result = None;
    let mut board_lines = 0;
    for line in from_dama.lines() {
        let line = line.expect("utf-8 lines");
        if let Some(f) = line.strip_prefix("fen ") {
            assert_eq!(board_lines, 8, "the board comes before the fen line");
            board_lines = 0;
            assert_eq!(fen::parse(f).unwrap(), *game.position(), "{f}");
            assert_eq!(game.position().turn(), Color::White);
            let m = engine.search(&game, &Limits::depth(4)).best.unwrap();
            game.play(m).unwrap();
            writeln!(to_dama, "{m}").unwrap();
        } else if let Some(m) = line.strip_prefix("computer ") {
            game.play_text(m).expect("the computer plays legal moves");
        } else if line.starts_with("result ") {
            result = Some(line);
        } else if let Some(must) = line.strip_prefix("capture compulsory: ") {
            assert_eq!(board_lines, 8, "the notes follow the board");
            assert!(game.legal_moves()[0].is_capture(), "{must}");
        } else if line.starts_with("moves without progress: ") {
            assert_eq!(board_lines, 8, "the notes follow the board");
        } else {
            assert!(!line.starts_with("illegal"), "{line}");
            board_lines += 1;
        }
    }
    drop(to_dama);
    assert!(child.wait().unwrap().success());
    (game, result.expect("a result line"))
}

#[test]
fn a_whole_game_against_novice_ends_with_the_right_score() {
    let (game, result) = scripted_game("42");
    let outcome = game.outcome().expect("the game is over");
    let captured: u32 = game
        .moves()
        .iter()
        .step_by(2)
        .map(|m| m.captured().count())
        .sum();
    let bonus = if outcome == Outcome::Win(Color::White) {
        100 + 50
    } else {
        0
    };
    assert_eq!(
        result,
        format!("result {} score {}", outcome.pdn(), 10 * captured + bonus)
    );
    // The same seed and moves give the same game.
    let (again, _) = scripted_game("42");
    assert_eq!(game.moves(), again.moves());
}

fn plain(args: &[&str], input: &str) -> (String, Option<i32>) {
    let mut all = vec!["play", "--plain"];
    all.extend_from_slice(args);
    let o = dama(&all, Some(input));
    (String::from_utf8(o.stdout).unwrap(), o.status.code())
}

#[test]
fn a_capture_elsewhere_is_named() {
    let (out, code) = plain_from("W:W18,21,29:B14,5", "21-17\n");
    assert_eq!(code, Some(0));
    let refusal = out.lines().find(|l| l.starts_with("illegal ")).unwrap();
    assert_eq!(
        refusal,
        "illegal 21-17: a capture is compulsory and only the piece on 18 can capture (18x11x14)"
    );
    // The turn starts by saying which piece must capture; the same fen line follows the
    // refusal, without the board.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 12, "{out}");
    assert_eq!(lines[8], "capture compulsory: 18 must capture (18x11x14)");
    assert_eq!(lines[9], lines[11]);
}

#[test]
fn blank_lines_are_ignored_and_bad_text_is_answered_in_words() {
    let (out, code) = plain(&[], "\n  \n99\n22-40\nhello\n22\n");
    assert_eq!(code, Some(0));
    let refusals: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("illegal") || l.starts_with("refused"))
        .collect();
    assert_eq!(
        refusals,
        [
            "refused there is no square 99",
            "refused there is no square 40",
            "refused \"hello\" is not a move: type one like 21-17",
            "refused 22 is a square: type a whole move like 21-17",
        ],
        "{out}"
    );
    // Four refusals, each followed by the fen line again: nothing for the blank lines.
    assert_eq!(out.lines().filter(|l| l.starts_with("fen ")).count(), 5);
}

#[test]
fn a_man_is_told_it_may_not_capture_a_king() {
    let (out, _) = plain_from("W:W22,29:BK18,5", "22x13\n");
    assert!(
        out.contains("\nillegal 22x13: a man may not capture a king (the king on 18)\n"),
        "{out}"
    );
}

#[test]
fn the_dark_pieces_let_the_computer_move_first() {
    let (out, code) = plain(&["--seed", "3", "--color", "dark"], "");
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("computer "), "{out}");
    // The board as Black sees it: White's back row (32..29) on top, Black's (4..1) below.
    assert!(lines[1].ends_with("32 31 30 29"), "{out}");
    assert!(lines[8].ends_with(" 4  3  2  1"), "{out}");
    assert!(lines[9].starts_with("fen B:"), "{out}");
}

#[test]
fn english_and_russian_boards_use_their_own_names() {
    let (out, _) = plain(&["--seed", "1", "--variant", "english"], "23-19\n");
    let lines: Vec<&str> = out.lines().collect();
    // The dark corner at the player's left; English numbers, 1..4 on Black's back row.
    assert_eq!(lines[0], "  b   b   b   b     1  2  3  4", "{out}");
    assert_eq!(lines[7], "w   w   w   w      29 30 31 32", "{out}");
    // 23-19 in English numbers is the engine's 22-18; the computer answers in English too.
    let fen = lines
        .iter()
        .filter(|l| l.starts_with("fen "))
        .nth(1)
        .unwrap();
    assert!(fen.contains("W:W18,"), "{out}");
    let reply = lines.iter().find(|l| l.starts_with("computer ")).unwrap();
    let m = reply.trim_start_matches("computer ");
    assert!(m
        .split(['-', 'x'])
        .all(|s| s.parse::<u8>().is_ok_and(|n| (1..=32).contains(&n))));
    let (out, _) = plain(&["--seed", "1", "--variant", "russian"], "c3-d4\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[7], "w   w   w   w      a1 c1 e1 g1", "{out}");
    assert!(!out.contains("illegal"), "{out}");
    let reply = lines.iter().find(|l| l.starts_with("computer ")).unwrap();
    assert!(
        reply.chars().any(|c| c.is_ascii_lowercase() && c != 'x'),
        "{reply}"
    );
}

/// Kings shuffle until ten moves pass without progress: from then on each turn says how
/// many (checked against the game the script keeps), and never before.
#[test]
fn moves_without_progress_are_counted_down_from_ten() {
    let egtb = std::env::temp_dir().join(format!("dama-cli-test-egtb-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&egtb);
    let mut child = Command::new(env!("CARGO_BIN_EXE_dama"))
        .args(["play", "--plain", "--level", "strong", "--seed", "1"])
        .args(["--fen", "W:WK29,K31:BK2,K4"])
        .env("DAMA_EGTB", &egtb)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("dama runs");
    let mut to_dama = child.stdin.take().unwrap();
    let from_dama = BufReader::new(child.stdout.take().unwrap());
    let mut game = Game::from_position(
        dama_rules::Variant::Italian,
        fen::parse("W:WK29,K31:BK2,K4").unwrap(),
    );
    let mut engine = Engine::with_hash(4);
    let mut counted = None;
    let mut seen = 0;
    for line in from_dama.lines() {
        let line = line.expect("utf-8 lines");
        if let Some(n) = line.strip_prefix("moves without progress: ") {
            counted = Some(n.to_string());
        } else if let Some(f) = line.strip_prefix("fen ") {
            assert_eq!(fen::parse(f).unwrap(), *game.position());
            let quiet = game.quiet_plies() / 2;
            let want = (quiet >= 10).then(|| format!("{quiet}/40"));
            assert_eq!(counted.take(), want, "{}", game.quiet_plies());
            if want.is_some() {
                seen += 1;
            }
            if seen == 2 {
                break;
            }
            let m = engine.search(&game, &Limits::depth(3)).best.unwrap();
            game.play(m).unwrap();
            writeln!(to_dama, "{m}").unwrap();
        } else if let Some(m) = line.strip_prefix("computer ") {
            game.play_text(m).unwrap();
        } else if line.starts_with("result ") {
            break;
        }
    }
    drop(to_dama);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(seen, 2, "the count was shown on two turns");
}

/// Plain play from a position.
fn plain_from(fen: &str, input: &str) -> (String, Option<i32>) {
    plain(&["--seed", "1", "--fen", fen], input)
}

#[test]
fn a_capture_beaten_by_priority_is_refused_with_the_rule() {
    let (out, code) = plain_from("W:W22,K30:B18,K26,17,1", "22x13\n30x14\n");
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = out.lines().collect();
    let refusal = lines.iter().find(|l| l.starts_with("illegal ")).unwrap();
    assert_eq!(
        *refusal,
        "illegal 22x13: this capture loses to 30x14x18x26 by tier 1: the capture of more \
         pieces must be played"
    );
    assert!(lines.iter().any(|l| l.starts_with("computer ")), "{out}");
}

#[test]
fn end_of_input_ends_quietly() {
    let (out, code) = plain(&[], "");
    assert_eq!(code, Some(0));
    assert_eq!(out.lines().count(), 9);
    assert!(
        out.ends_with("fen W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12\n")
    );
}

#[test]
fn level_switches_and_bad_levels_are_refused() {
    let (out, _) = plain(&[], "level 5\nlevel nine\n");
    assert!(
        out.contains(
            "\nlevel 5 Hard; a win counts at level 3, the lowest level played in this game\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("\nrefused level \"nine\": expected 1..5"),
        "{out}"
    );
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["play", "--plain", "--level", "6"][..],
        &["play", "--plain", "--variant", "chess"],
        &["play", "--plain", "--seed", "x"],
        &["play", "--plain", "--fen", "nonsense"],
    ] {
        let o = dama(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(!err.is_empty());
    }
}

#[test]
fn a_level_out_of_range_is_refused_with_the_range_and_an_illegal_move_stays_illegal() {
    let (out, code) = plain(&[], "level 9\nlevel 2\n29-25\n");
    assert_eq!(code, Some(0));
    let answers: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("illegal") || l.starts_with("refused") || l.starts_with("level"))
        .collect();
    assert_eq!(answers.len(), 3, "{out}");
    assert_eq!(
        answers[0],
        "refused level \"9\": expected 1..5 or a name (novice, easy, normal, strong, hard)"
    );
    assert!(answers[1].starts_with("level 2 "), "{out}");
    assert!(answers[2].starts_with("illegal 29-25"), "{out}");
}
