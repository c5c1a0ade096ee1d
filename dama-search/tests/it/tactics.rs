//! Tactics: the search finds proven shots (positions from `tests/data/shots.txt`, each proven
//! by an exhaustive material search independent of dama's) at a fixed depth of 10 plies.
//!
//! The test takes the shots played from a balanced position (material within one man, 155 of
//! the 200): in a position already won by several men, the proof's "wins one more man" is
//! not the only good plan, and the engine may rightly prefer another. `examples/shots.rs`
//! measures the whole file.

use dama_rules::{notation::fen, Game, Position, Variant};
use dama_search::{Engine, Limits};

/// How many of the 155 shots the search may miss at depth 10 (see the end of the test).
const MAY_MISS: usize = 4;

/// The depth by which every shot missed at depth 10 must be found.
const FOUND_BY: u32 = 22;

/// Root moves accepted beside the proof's answers, each with the evidence. The proof counts
/// material only; these are shots whose man the engine's own deep search, under the previous
/// release's weights as under today's, does not value as a man.
///
/// - `W:W22,…:B1,…,16`, the shot 22-18: the proof's minimax keeps the man won up to depth 15
///   (`prove_shots --depth 15 --show FEN`), but release 9afb786 (previous weights) and `main`
///   (refitted weights) both play 23-20 at depth 22 (`dama analyze --depth 22 --multipv 2`),
///   scoring the two moves equal (+0.35 and +0.65): their best line after 22-18 gives the man
///   back by the same exchange 23-20 16x23 28x12 8x15 that 23-20 starts, so the two moves
///   reach one position. The refitted weights see at depth 10 what the previous ones see at 22.
/// - `W:W19,…:B1,…,25`, the shot 19-14: it wins a man (19-14 11x18 26-21 17x26 29x6x10x18x26)
///   but lets Black's man on 25 crown (25-29), and the nets t11e and t12c both play 19-15 at
///   depths 18, 22 and 24 (`dama analyze --depth 24 --multipv 3`: t11e +0.64, +0.87, +0.91),
///   scoring 19-14 near even at depth 18 (+0.02 and -0.02). t11e played the shot at depth 10
///   and t12c does not (24-20); both agree on 19-15 once they see the king.
const ALSO_ACCEPTED: [(&str, &str); 2] = [
    (
        "W:W22,23,24,25,26,28,29,30,31,32:B1,2,3,4,5,8,9,13,15,16",
        "23-20",
    ),
    ("W:W19,24,26,27,28,29,30,32:B1,4,7,8,9,10,11,17,25", "19-15"),
];

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
    let mut missed = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut parts = line.split(';');
        let f = parts.next().expect("a FEN");
        let mut answers: Vec<&str> = parts.next().expect("answers").split_whitespace().collect();
        answers.extend(
            ALSO_ACCEPTED
                .iter()
                .filter(|(p, _)| *p == f)
                .map(|(_, m)| *m),
        );
        let pos = fen::parse(f).expect("a FEN");
        if balance(&pos).abs() > 2 {
            continue;
        }
        let game = Game::from_position(Variant::Italian, pos);
        engine.clear();
        let r = engine.search(&game, &Limits::depth(10));
        let best = r.best.expect("a move").to_string();
        if !answers.contains(&best.as_str()) {
            engine.clear();
            let deep = engine.search(&game, &Limits::depth(FOUND_BY));
            let deep = deep.best.expect("a move").to_string();
            assert!(
                answers.contains(&deep.as_str()),
                "{f}: played {best} at depth 10 and {deep} at depth {FOUND_BY}, wanted {answers:?}"
            );
            missed.push(format!("{f}: played {best}, wanted {answers:?}"));
        }
        tried += 1;
    }
    assert_eq!(tried, 155);
    // The previous release's weights found all 155; the refitted features (+124 Elo in
    // matches, docs/tuning.md) miss two at depth 10 and find them at depths 16 and 14; the
    // network (the default since, stronger in matches at equal time) misses three, found at
    // depths 12, 12 and 16. The net t11e finds 183 of the file's 200 at depth 10 (`--example
    // shots -- 10`), and finds `B:W14,19,20,22,24,27,28,32:B1,…,12`'s
    // 12-15 only at depth 18: up to depth 16 it plays 12-16 or 10-13, which it scores within
    // a tenth of a man of the shot, all three scored about +2 (two men); hence FOUND_BY 18, not 16.
    // The net t12c (stronger than t11e in matches, docs/tuning.md) also finds 183 of 200 at
    // depth 10 but misses four of these 155, every one played at depth 11 and at 22: the
    // 19-15 position above (accepted), and `W:W21,…,32:B1,…,16`'s 22-18 (played at every depth
    // from 11); `B:W9,…:B1,…,K26`'s 26-22 (depths 11-13 and 20-22, 10-14 at 14-19: both
    // moves score Black about three men ahead) and the 12-15 above (depths 11, 12, 17, 18, 21,
    // 22; between them 10-13 or 12-16 at the same score). Hence MAY_MISS 4 and FOUND_BY 22.
    // More misses than that is a regression of the evaluation or the search.
    assert!(
        missed.len() <= MAY_MISS,
        "{} shots missed (at most {MAY_MISS} expected):\n{}",
        missed.len(),
        missed.join("\n")
    );
}
