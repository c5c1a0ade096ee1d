//! The tables against an independent solver (`support/independent.rs`: its own listing of
//! positions, forward move generation, retrograde on the whole graph): every position of at
//! most 3 pieces, either side to move, captures pending included, win/draw/loss and MTC.
//! The example `crosscheck` runs the same comparison on 4-piece and 5-piece sets against
//! table files.

use crate::support::independent::{dtw, enumerate, position, reachable, solve};
use dama_egtb::{Memory, Value};
use dama_rules::variant::{Italian, Spanish};
use dama_rules::{Color, Rules};

/// Compares every position of at most `max` pieces; returns how many were compared, how
/// many had a capture pending, how many had no legal move, and how many had a capture
/// ending on the promotion row.
fn compare<R: Rules>(max: u32) -> [usize; 4] {
    let solved = solve::<R>(enumerate(max, &|_| true));
    let tables = Memory::<R>::new(max);
    let mut seen = [0; 4];
    for (&k, &expected) in solved.keys.iter().zip(&solved.values) {
        let pos = position(k);
        assert_eq!(tables.probe(&pos), Some(expected), "{}", pos.fen());
        seen[0] += 1;
        let moves = pos.moves::<R>();
        if moves.first().is_some_and(|m| m.is_capture()) {
            seen[1] += 1;
            if moves.iter().any(|m| m.is_capture() && m.promotes()) {
                seen[3] += 1;
            }
        }
        if moves.is_empty() {
            seen[2] += 1;
            assert_eq!(expected, Value::Loss(0), "{}", pos.fen());
        }
    }
    seen
}

#[test]
fn italian_up_to_3_pieces_agrees_with_an_independent_solve() {
    let [all, captures, stuck, promoting] = compare::<Italian>(3);
    // Both sides to move, every legal placement of 2 and 3 pieces.
    assert!(all == 399_040, "{all}");
    assert!(
        captures > 10_000 && stuck > 100 && promoting > 1_000,
        "{captures} {stuck} {promoting}"
    );
}

#[test]
fn spanish_up_to_3_pieces_agrees_with_an_independent_solve() {
    // Flying kings.
    let [all, ..] = compare::<Spanish>(3);
    assert!(all == 399_040, "{all}");
}

#[test]
fn the_independent_solver_finds_the_known_2k_v_k_figures() {
    // docs/egtb.md, "Known endings": 2K v K, the kings' side to move: 34 draws, the longest
    // win 33 plies.
    let solved = solve::<Italian>(enumerate(3, &|c| reachable([0, 2, 0, 1], c)));
    let mut draws = 0;
    let mut longest = 0;
    for (&k, v) in solved.keys.iter().zip(&solved.values) {
        let pos = position(k);
        if pos.turn() == Color::White && pos.pieces(Color::White).count() == 2 {
            match *v {
                Value::Draw => draws += 1,
                Value::Win(d) => longest = longest.max(d),
                Value::Loss(_) => panic!("2K v K lost"),
            }
        }
    }
    assert_eq!((draws, longest), (34, 33));
}

/// The DTW tables (plies to the end of the game) against the independent solver's DTW, every
/// position of at most 3 pieces: `W:WK1,K2:BK4`-like kings-only endings and the men's.
fn compare_dtw<R: Rules>(max: u32) -> usize {
    let solved = solve::<R>(enumerate(max, &|_| true));
    let expected = dtw::<R>(&solved);
    let tables = Memory::<R>::new(max).dtw();
    let mut longer = 0;
    for ((&k, &e), &mtc) in solved.keys.iter().zip(&expected).zip(&solved.values) {
        let pos = position(k);
        assert_eq!(tables.probe(&pos), Some(e), "{}", pos.fen());
        // Same result; the end comes no sooner than the next conversion.
        assert_eq!(e.wdl(), mtc.wdl(), "{}", pos.fen());
        assert!(e.distance() >= mtc.distance(), "{}", pos.fen());
        longer += usize::from(e.distance() > mtc.distance());
    }
    longer
}

#[test]
fn italian_dtw_up_to_3_pieces_agrees_with_an_independent_solve() {
    let longer = compare_dtw::<Italian>(3);
    // Men's endings: the end comes long after the first man move.
    assert!(longer > 10_000, "{longer}");
}

#[test]
fn spanish_dtw_up_to_3_pieces_agrees_with_an_independent_solve() {
    assert!(compare_dtw::<Spanish>(3) > 0);
}
