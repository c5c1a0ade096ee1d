//! The full-screen `dama play`, driven through a pseudo-terminal (by `tests/pty_drive.py`):
//! keys and clicks in, screen text out.

use std::path::{Path, PathBuf};
use std::process::Command;

use dama_rules::Square;
use serde_json::{json, Value};

/// What a run left: the raw output of each stretch between marks, the screens recorded, the
/// emulated terminal's faults (a wrap or a scroll), and the exit status.
struct Run {
    stretches: Vec<String>,
    snaps: Vec<Snap>,
    faults: Vec<String>,
    status: Option<i64>,
}

/// A screen as the emulated terminal showed it at the end of a frame.
struct Snap {
    width: usize,
    height: usize,
    /// Each row's characters (trailing spaces dropped).
    lines: Vec<Vec<char>>,
    /// Each cell's background colour (an xterm colour index; -1 for the default).
    bg: Vec<Vec<i64>>,
}

/// Runs `dama play ARGS` in a pseudo-terminal through `steps` (see `pty_drive.py`).
fn drive(config: &Path, args: &[&str], steps: Value) -> Run {
    drive_at((100, 30), config, args, steps)
}

/// Runs `dama play ARGS` in a pseudo-terminal of `size` (columns, rows) through `steps`.
fn drive_at(size: (u16, u16), config: &Path, args: &[&str], steps: Value) -> Run {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pty_drive.py");
    let o = Command::new("python3")
        .arg(script)
        .arg("--size")
        .arg(format!("{}x{}", size.0, size.1))
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
        snaps: v["snaps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| Snap {
                width: s["width"].as_u64().unwrap() as usize,
                height: s["height"].as_u64().unwrap() as usize,
                lines: s["lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l.as_str().unwrap().chars().collect())
                    .collect(),
                bg: s["bg"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        r.as_array()
                            .unwrap()
                            .iter()
                            .map(|c| c.as_i64().unwrap())
                            .collect()
                    })
                    .collect(),
            })
            .collect(),
        faults: v["faults"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect(),
        status: v["status"].as_i64(),
    }
}

/// Background colours of the board: the light squares' grey and the dark squares' colours
/// (plain, the last move, a target, the selection, a marked piece).
const BOARD_BG: [i64; 6] = [7, 2, 3, 10, 12, 9];
const BLUE: i64 = 12;
const RED: i64 = 9;
const GREEN: i64 = 10;

impl Snap {
    fn text(&self) -> String {
        let lines: Vec<String> = self.lines.iter().map(|l| l.iter().collect()).collect();
        lines.join("\n")
    }

    /// The board as drawn, found by its colours wherever the layout put it: for each square
    /// 1..=32, the text of its cells and its background. `None` when no board is on screen.
    fn board(&self) -> Option<Vec<(String, i64)>> {
        let on_board = |x: usize, y: usize| BOARD_BG.contains(&self.bg[y][x]);
        let cells: Vec<(usize, usize)> = (0..self.height)
            .flat_map(|y| (0..self.width).map(move |x| (x, y)))
            .filter(|&(x, y)| on_board(x, y))
            .collect();
        let x0 = cells.iter().map(|c| c.0).min()?;
        let x1 = cells.iter().map(|c| c.0).max()?;
        let y0 = cells.iter().map(|c| c.1).min()?;
        let y1 = cells.iter().map(|c| c.1).max()?;
        let (w, h) = (x1 + 1 - x0, y1 + 1 - y0);
        assert!(
            w % 8 == 0 && h % 8 == 0,
            "a board of {w}×{h} cells:\n{}",
            self.text()
        );
        let (cw, ch) = (w / 8, h / 8);
        let squares = (1..=32u8)
            .map(|n| {
                let sq = Square::new(n).unwrap();
                let (cx, cy) = (
                    x0 + usize::from(sq.column()) * cw,
                    y0 + usize::from(sq.row()) * ch,
                );
                let mut text = String::new();
                for y in cy..cy + ch {
                    for x in cx..cx + cw {
                        text.push(self.lines[y].get(x).copied().unwrap_or(' '));
                    }
                    text.push(' ');
                }
                (text, self.bg[cy][cx])
            })
            .collect();
        Some(squares)
    }
}

/// Whether a square's text shows its number or a piece.
fn shows_number_or_piece(n: usize, text: &str) -> bool {
    let number = (n + 1).to_string();
    text.split(|c: char| !c.is_ascii_digit())
        .any(|t| t == number)
        || text.contains(['○', '●', '♔', '♚'])
}

/// Checks a screen of `width` columns: every row fits, a board is drawn with each of the 32
/// squares showing its number or its piece.
fn check_board(snap: &Snap, width: usize) -> Vec<(String, i64)> {
    assert_eq!(snap.width, width);
    for line in &snap.lines {
        assert!(
            line.len() <= width,
            "a row longer than {width}:\n{}",
            snap.text()
        );
    }
    let board = snap
        .board()
        .unwrap_or_else(|| panic!("no board at width {width}:\n{}", snap.text()));
    for (i, (text, _)) in board.iter().enumerate() {
        assert!(
            shows_number_or_piece(i, text),
            "square {} shows {text:?}:\n{}",
            i + 1,
            snap.text()
        );
    }
    board
}

/// The game at `size`, resized to `then` with a piece selected and a square being typed.
fn plays_at(size: (u16, u16), then: (u16, u16)) {
    let config = config_dir(&format!("size{}x{}", size.0, size.1));
    let run = drive_at(
        size,
        &config,
        &["--seed", "5", "--level", "1"],
        json!([
            ["snap", 10],
            ["send", "\r"],
            ["wait_screen", "22 selected: it may go to 18, 19", 10],
            ["send", ":1"],
            ["wait_screen", "1_", 10],
            ["snap", 10],
            ["resize", then.0, then.1],
            ["snap", 10],
            ["send", "8\r"],
            ["wait_screen", "Move 2\\b", 20],
            ["snap", 10],
            ["send", "q"],
            ["wait_screen", "Quit", 10],
            ["send", "y"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    assert!(run.faults.is_empty(), "{:#?}", run.faults);
    assert!(restored(&run));
    let [start, selected, resized, moved] = &run.snaps[..] else {
        panic!("{} snaps", run.snaps.len());
    };
    let (w, w2) = (usize::from(size.0), usize::from(then.0));
    // The start position: black men on 1-12, white on 21-32, 13-20 empty.
    let board = check_board(start, w);
    for (i, (text, _)) in board.iter().enumerate() {
        let want = match i + 1 {
            1..=12 => text.contains('●'),
            21..=32 => text.contains('○'),
            n => shows_number_or_piece(n - 1, text) && !text.contains(['○', '●']),
        };
        assert!(want, "square {}: {text:?}\n{}", i + 1, start.text());
    }
    // The selection, its targets, the message and the typed text, before and after the resize.
    for (snap, width) in [(selected, w), (resized, w2)] {
        let board = check_board(snap, width);
        assert_eq!(board[21].1, BLUE, "22 not selected:\n{}", snap.text());
        assert_eq!((board[17].1, board[18].1), (GREEN, GREEN));
        let text = snap.text();
        assert!(text.contains("22 selected: it may go to 18, 19"), "{text}");
        assert!(text.contains("1_"), "{text}");
    }
    // Typing on after the resize finishes the move 22-18; the computer answered.
    let board = check_board(moved, w2);
    assert!(board[17].0.contains('○') && !board[21].0.contains('○'));
    let count = |glyph| board.iter().filter(|(t, _)| t.contains(glyph)).count();
    assert_eq!((count('○'), count('●')), (12, 12), "{}", moved.text());
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn fits_100_by_36_then_40_by_12() {
    plays_at((100, 36), (40, 12));
}

#[test]
fn fits_80_by_24_then_60_by_20() {
    plays_at((80, 24), (60, 20));
}

#[test]
fn fits_60_by_20_then_100_by_36() {
    plays_at((60, 20), (100, 36));
}

#[test]
fn fits_40_by_12_then_80_by_24() {
    plays_at((40, 12), (80, 24));
}

#[test]
fn a_terminal_too_small_says_how_big_it_must_be() {
    let config = config_dir("small");
    let run = drive_at(
        (60, 10),
        &config,
        &["--level", "1"],
        json!([
            ["snap", 10],
            ["resize", 25, 30],
            ["snap", 10],
            ["resize", 40, 12],
            ["snap", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    assert!(run.faults.is_empty(), "{:#?}", run.faults);
    let text = run.snaps[0].text();
    assert!(run.snaps[0].board().is_none(), "{text}");
    assert_eq!(text.trim(), "make the terminal at least 32×11");
    assert!(run.snaps[1].board().is_none());
    let text = run.snaps[1].text();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines, ["make the terminal", "at least 32×11"]);
    check_board(&run.snaps[2], 40);
    let _ = std::fs::remove_dir_all(&config);
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
            ["wait", "Move 2", 20],
            ["mark"],
            ["send", "4"],
            ["wait", "Level 4: Strong", 10],
            ["send", "q"],
            ["wait", "Quit and abandon this game?", 10],
            ["send", "y"],
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
fn a_multi_jump_under_way_draws_the_piece_where_it_has_landed() {
    let config = config_dir("multijump");
    // 22x6x10x18: the man on 22 takes 18 landing on 13, then 10 landing on 6.
    let run = drive(
        &config,
        &["--fen", "W:W22,29:B18,10", "--level", "1"],
        json!([
            ["wait", "Your move", 10],
            ["send", ":22\r"],
            ["wait_screen", "22 selected", 10],
            ["send", ":13\r"],
            ["wait_screen", "go on to 6", 10],
            ["snap", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    let snap = &run.snaps[0];
    let board = check_board(snap, 100);
    assert!(board[12].0.contains('○'), "13:\n{}", snap.text());
    assert!(!board[21].0.contains('○'), "22:\n{}", snap.text());
    // The pieces taken stay until the move is complete; the other man has not moved.
    assert!(board[17].0.contains('●') && board[9].0.contains('●'));
    assert!(board[28].0.contains('○'));
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn a_compulsory_capture_is_said_and_marked_when_the_turn_starts() {
    let config = config_dir("compulsory");
    let run = drive(
        &config,
        &["--fen", "W:W18,21,29:B14,5", "--level", "1"],
        json!([
            [
                "wait_screen",
                "A capture is compulsory: the marked piece on 18 must capture",
                10
            ],
            ["snap", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    let board = check_board(&run.snaps[0], 100);
    // 18 is marked in red before anything is touched; 21 and 29 are not.
    assert_eq!(board[17].1, RED, "{}", run.snaps[0].text());
    assert_ne!(board[20].1, RED);
    assert_ne!(board[28].1, RED);
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn a_level_above_the_one_a_win_counts_at_says_why() {
    let config = config_dir("lowest");
    let run = drive(
        &config,
        &["--seed", "2"],
        json!([
            ["wait", "Level 3: Normal", 10],
            ["send", "1"],
            ["wait", "Level 1: Novice", 10],
            ["send", "5"],
            ["wait_screen", "Level 5: Hard", 10],
            ["snap", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    let text = run.snaps[0].text();
    assert!(text.contains("A win adds 150 (level 1)"), "{text}");
    // Beside the level and in the status: why a win still counts at level 1.
    assert!(
        text.contains("A win counts at level 1, the lowest played"),
        "{text}"
    );
    assert!(
        text.replace('\n', " ").contains("lowest level played"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn the_dark_pieces_from_the_option_or_the_key() {
    let config = config_dir("dark");
    let run = drive(
        &config,
        &["--seed", "4", "--level", "1", "--color", "dark"],
        json!([
            ["wait_screen", "Computer's last move: [0-9]", 20],
            ["snap", 10],
            ["send", "n"],
            ["wait_screen", "You: black \\(bottom; c", 10],
            ["send", "c"],
            ["wait_screen", "You: white", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    let text = run.snaps[0].text();
    assert!(text.contains("You: black"), "{text}");
    // The board is turned round: the black men of 1..12 at the bottom, square 1 at the
    // bottom right, and the top row is White's back row 32..29.
    let lines: Vec<&str> = text.lines().collect();
    let top = lines.iter().position(|l| l.contains("32")).unwrap();
    let row = lines[top];
    let (i32_, i29) = (row.find("32").unwrap(), row.find("29").unwrap());
    assert!(i32_ < i29, "{text}");
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn english_draws_its_own_numbers_and_board() {
    let config = config_dir("english");
    let run = drive(
        &config,
        &["--variant", "english", "--level", "1", "--seed", "1"],
        json!([
            ["wait", "Your move", 10],
            ["send", ":23\r"],
            ["wait_screen", "23 selected: it may go to 18, 19", 10],
            ["snap", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    let text = run.snaps[0].text();
    // The top row reads 1 2 3 4 from the left, starting on the second column: the dark
    // corner is at the player's left.
    let lines: Vec<&str> = text.lines().collect();
    let top = lines.iter().find(|l| l.contains(" 1 ")).unwrap();
    let at = |n: &str| top.find(&format!(" {n} ")).unwrap();
    assert!(
        at("1") < at("2") && at("2") < at("3") && at("3") < at("4"),
        "{text}"
    );
    let bottom = lines.iter().find(|l| l.contains("29")).unwrap();
    assert!(
        bottom.find("29").unwrap() < 8,
        "29 at the bottom left:\n{text}"
    );
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
            ["wait", "Move 2", 20],
            ["mark"],
            ["send", "n"],
            ["wait", "Abandon this game for a new one? y: yes", 10],
            ["send", "y"],
            ["wait", "Move 1", 10],
            ["send", "q"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    assert!(restored(&run));
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn n_and_q_ask_before_a_game_in_progress_is_lost() {
    let config = config_dir("abandon");
    let run = drive(
        &config,
        &["--seed", "4", "--level", "1"],
        json!([
            ["wait", "Your move", 10],
            ["send", ":22-18\r"],
            ["wait", "Move 2", 20],
            ["mark"],
            ["send", "n"],
            [
                "wait",
                "Abandon this game for a new one? y: yes, any other key: no",
                10
            ],
            ["mark"],
            ["send", "x"],
            ["snap", 10],
            ["mark"],
            ["send", "q"],
            [
                "wait",
                "Quit and abandon this game? y: yes, any other key: no",
                10
            ],
            ["mark"],
            ["send", "n"],
            ["snap", 10],
            ["mark"],
            ["send", "q"],
            ["wait", "Quit and abandon", 10],
            ["send", "Y"],
            ["exit", 10]
        ]),
    );
    assert_eq!(run.status, Some(0));
    // Kept twice: the question gone, still move 2, never a new game's move 1.
    for snap in &run.snaps {
        let text = snap.text();
        assert!(
            text.contains("Move 2") && !text.to_lowercase().contains("abandon"),
            "{text}"
        );
    }
    for kept in &run.stretches[2..4] {
        assert!(!kept.contains("Move 1"), "{kept}");
    }
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
