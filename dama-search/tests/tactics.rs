//! Tactics: the search finds proven shots (positions from `tests/data/shots.txt`, each proven
//! by an exhaustive material search independent of dama's) at a fixed depth of 10 plies.
//!
//! The test takes the shots played from a balanced position (material within one man, 155 of
//! the 200): in a position already won by several men, the proof's "wins one more man" is
//! not the only good plan, and the engine may rightly prefer another. `examples/shots.rs`
//! measures the whole file.

use dama_rules::{notation::fen, Game, Position, Variant};
use dama_search::{Engine, Limits};

/// Material of the side to move minus the other's, in half-men (man 2, king 3).
fn balance(pos: &Position) -> i32 {
    let side = |c| 2 * pos.men(c).count() as i32 + 3 * pos.kings(c).count() as i32;
    side(pos.turn()) - side(!pos.turn())
}

#[test]
fn finds_proven_shots_at_depth_10() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/shots.txt");
    let text = std::fs::read_to_string(path).expect("reading shots.txt");
    let mut engine = Engine::with_hash(8);
    let mut tried = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut parts = line.split(';');
        let f = parts.next().expect("a FEN");
        let answers: Vec<&str> = parts.next().expect("answers").split_whitespace().collect();
        let pos = fen::parse(f).expect("a FEN");
        if balance(&pos).abs() > 2 {
            continue;
        }
        let game = Game::from_position(Variant::Italian, pos);
        engine.clear();
        let r = engine.search(&game, &Limits::depth(10));
        let best = r.best.expect("a move").to_string();
        assert!(
            answers.contains(&best.as_str()),
            "{f}: played {best}, wanted {answers:?}"
        );
        tried += 1;
    }
    assert_eq!(tried, 155);
}
