//! Checks the shot positions in `tests/data/shots.txt` (written by `examples/prove_shots.rs`):
//! every line is well formed, its FEN parses, the side to move has no capture, and every
//! accepted answer is a legal quiet move there.

use std::collections::HashSet;
use std::path::PathBuf;

use dama_rules::{notation::fen, variant::Italian, Color, Position};

/// One line of the file.
struct Shot {
    line: usize,
    pos: Position,
    answers: Vec<String>,
    gain: f64,
    proof: u32,
}

fn read_shots() -> Vec<Shot> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/shots.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut shots = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(';').collect();
        assert_eq!(fields.len(), 4, "line {}: expected 4 fields: {line}", i + 1);
        let pos = fen::parse(fields[0]).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        shots.push(Shot {
            line: i + 1,
            pos,
            answers: fields[1].split_whitespace().map(String::from).collect(),
            gain: fields[2].parse().expect("gain is a number of men"),
            proof: fields[3].parse().expect("proof depth is a number of plies"),
        });
    }
    shots
}

#[test]
fn shots_file_has_enough_well_formed_positions() {
    let shots = read_shots();
    assert!(shots.len() >= 150, "only {} shots", shots.len());
    let mut seen = HashSet::new();
    for shot in &shots {
        let n = shot.line;
        assert!(seen.insert(shot.pos), "line {n}: position repeated");
        assert!(
            shot.gain >= 1.0,
            "line {n}: gain {} below one man",
            shot.gain
        );
        assert!(
            shot.proof >= 3,
            "line {n}: proof depth {} too shallow",
            shot.proof
        );
        assert!(
            Color::ALL.iter().all(|&c| shot.pos.pieces(c).count() >= 6),
            "line {n}: fewer than 6 pieces a side"
        );
    }
    for color in Color::ALL {
        assert!(
            shots.iter().any(|s| s.pos.turn() == color),
            "no shot with {color} to move"
        );
    }
}

#[test]
fn shot_answers_are_legal_quiet_moves() {
    for shot in read_shots() {
        let n = shot.line;
        assert!(
            !shot.pos.must_capture::<Italian>(),
            "line {n}: the side to move has a capture"
        );
        assert!(!shot.answers.is_empty(), "line {n}: no accepted move");
        let legal = shot.pos.moves::<Italian>();
        for answer in &shot.answers {
            let m = legal
                .iter()
                .find(|m| m.to_string() == *answer)
                .unwrap_or_else(|| panic!("line {n}: {answer} is not a legal move"));
            assert!(!m.is_capture(), "line {n}: {answer} is a capture");
        }
    }
}
