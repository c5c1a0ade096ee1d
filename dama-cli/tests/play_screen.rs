//! The full-screen `dama play`, driven through a pseudo-terminal (by `tests/pty_drive.py`):
//! keys and clicks in, screen text out.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

/// What a run left: the raw output of each stretch between marks, and the exit status.
struct Run {
    stretches: Vec<String>,
    status: Option<i64>,
}

/// Runs `dama play ARGS` in a pseudo-terminal through `steps` (see `pty_drive.py`).
fn drive(config: &Path, args: &[&str], steps: Value) -> Run {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pty_drive.py");
    let o = Command::new("python3")
        .arg(script)
        .arg(steps.to_string())
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_dama"))
        .arg("play")
        .args(args)
        .env("DAMA_CONFIG_DIR", config)
        .env("TERM", "xterm-256color")
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).expect("the driver prints JSON");
    Run {
        stretches: v["stretches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect(),
        status: v["status"].as_i64(),
    }
}

/// A fresh configuration directory for one test.
fn config_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dama-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether the terminal was given back: the alternate screen left, the cursor shown.
fn restored(run: &Run) -> bool {
    let last = run.stretches.last().unwrap();
    last.contains("\x1b[?1049l") && last.contains("\x1b[?25h")
}

#[test]
fn keys_select_highlight_move_and_switch_the_remembered_level() {
    let config = config_dir("keys");
    let run = drive(
        &config,
        &["--seed", "3"],
        json!([
            ["wait", "Level 3: Normal", 10],
            ["mark"],
            ["send", "\r"],
            ["wait", "22 selected: it may go to 18, 19", 10],
            ["mark"],
            ["send", "\x1b[A"],
            ["send", "\r"],
            ["wait", "Moves played: 2", 20],
            ["mark"],
            ["send", "4"],
            ["wait", "Level 4: Strong", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    // The targets 18 and 19 are drawn on green (and the selected piece on blue).
    let selected = &run.stretches[1];
    assert!(selected.contains("\x1b[48;5;10m"), "no green target");
    assert!(selected.contains("\x1b[48;5;12m"), "no blue selection");
    // The computer's move is highlighted.
    assert!(run.stretches[2].contains("Computer's last move: "));
    assert!(
        run.stretches[2].contains("\x1b[48;5;3m"),
        "no highlighted last move"
    );
    assert!(restored(&run));
    let saved = std::fs::read_to_string(config.join("level")).unwrap();
    assert_eq!(saved.trim(), "strong");

    // The next game starts at the remembered level; Ctrl-C quits and restores the terminal.
    let run = drive(
        &config,
        &[],
        json!([
            ["wait", "Level 4: Strong", 10],
            ["send", "\x03"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    assert!(restored(&run));

    // A corrupt file means Normal.
    std::fs::write(config.join("level"), "eleven\n\x00").unwrap();
    let run = drive(
        &config,
        &[],
        json!([["wait", "Level 3: Normal", 10], ["send", "q"], ["exit", 10]]),
    );
    assert_eq!(run.status, Some(0));
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn a_capture_elsewhere_is_explained_and_clicks_select() {
    let config = config_dir("refusal");
    // Square 18 is on row 4, column 2: screen column 2 + 2 * 6, row 2 + 4 * 2 (1-based +1).
    let click_18 = "\x1b[<0;15;11M";
    let run = drive(
        &config,
        &["--fen", "W:W18,21,29:B14,5", "--level", "1"],
        json!([
            ["wait", "Your move", 10],
            ["mark"],
            ["send", ":21\r"],
            [
                "wait",
                "A capture is compulsory and only the piece on 18 can capture",
                10
            ],
            ["mark"],
            ["send", click_18],
            ["wait", "18 selected: it may go to 11", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    // The piece that must capture is marked in red.
    assert!(run.stretches[1].contains("\x1b[48;5;9m"));
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn a_priority_refusal_then_a_new_game() {
    let config = config_dir("result");
    let run = drive(
        &config,
        &["--fen", "W:W22,K30:B18,K26,17", "--level", "1"],
        json!([
            ["wait", "Your move", 10],
            ["send", ":22x13\r"],
            [
                "wait",
                "22x13: this capture loses to 30x14x18x26 by tier 1",
                10
            ],
            ["send", ":30x14\r"],
            ["wait", "Moves played: 2", 20],
            ["mark"],
            ["send", "n"],
            ["wait", "Moves played: 0", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    assert!(restored(&run));
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn a_win_shows_the_score() {
    let config = config_dir("win");
    let run = drive(
        &config,
        &["--fen", "W:W22:B18", "--level", "2"],
        json!([
            ["wait", "Your move", 10],
            ["send", ":22x13\r"],
            ["wait", "Game over: You win! (1-0)  Score: 210 points.", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn without_a_terminal_it_says_to_use_plain() {
    let o = Command::new(env!("CARGO_BIN_EXE_dama"))
        .arg("play")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--plain"));
}
