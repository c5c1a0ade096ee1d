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
    // The same fen line follows the refusal, without the board.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 11, "{out}");
    assert_eq!(lines[8], lines[10]);
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
    assert!(out.contains("\nlevel 5 Hard\n"), "{out}");
    assert!(out.contains("\nillegal unknown level \"nine\""), "{out}");
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
