//! Won endings with men, played out by the engine at a fixed depth against itself: the
//! stronger side converts inside the 40-move rule.

use dama_egtb::{Material, Memory, Value};
use dama_rules::{variant::Italian, Color, Game, Outcome, Variant};
use dama_search::{Endgames, Engine, Limits};

/// Won positions (White to move) of class `name`, a few spread over its numbering.
fn won_starts(name: &str, count: usize) -> Vec<dama_rules::Position> {
    let m: Material = name.parse().unwrap();
    let tables = Memory::<Italian>::new(4);
    let mut out = Vec::new();
    let mut i = 7usize;
    for _ in 0..1_000_000 {
        if out.len() == count {
            break;
        }
        i = (i * 7919 + 104_729) % m.len();
        let Some(p) = m.placement(i) else { continue };
        let pos = p.position();
        // A win to play out: no capture pending for either side (with men, the distance to
        // the next conversion is often 1: a man move that keeps the win).
        if pos.must_capture::<Italian>() || pos.with_turn(Color::Black).must_capture::<Italian>() {
            continue;
        }
        if matches!(tables.probe(&pos), Some(Value::Win(_))) {
            out.push(pos);
        }
    }
    assert_eq!(out.len(), count, "{name}");
    out
}

fn play_out(start: dama_rules::Position, endgames: Endgames) -> (Option<Outcome>, usize) {
    let mut game = Game::from_position(Variant::Italian, start);
    let mut engine = Engine::with_hash(4);
    engine.set_endgames(endgames);
    while game.outcome().is_none() && game.moves().len() < 300 {
        let r = engine.search(&game, &Limits::depth(6));
        game.play(r.best.expect("a legal move")).unwrap();
    }
    (game.outcome(), game.moves().len())
}

#[test]
fn won_endings_with_men_are_converted() {
    for name in ["KM-K", "KK-KM", "MMM-K", "KM-M"] {
        for start in won_starts(name, 3) {
            let (outcome, plies) = play_out(start, Endgames::memory_only());
            assert_eq!(
                outcome,
                Some(Outcome::Win(Color::White)),
                "{name}: {} after {plies} plies",
                start.fen()
            );
        }
    }
}

#[test]
fn won_endings_with_men_are_converted_against_a_perfect_defender() {
    // The engine at depth 5 for White; for Black the tables' move that keeps the longest
    // loss (what `dama egtb convert` does with the files, on many more positions).
    let tables = Memory::<Italian>::new(4);
    for name in ["KK-KM", "KM-M"] {
        for start in won_starts(name, 2) {
            let mut game = Game::from_position(Variant::Italian, start);
            let mut engine = Engine::with_hash(4);
            while game.outcome().is_none() && game.moves().len() < 300 {
                let m = if game.position().turn() == Color::White {
                    engine.search(&game, &Limits::depth(5)).best
                } else {
                    tables.best_move(game.position())
                };
                game.play(m.expect("a legal move")).unwrap();
            }
            assert_eq!(
                game.outcome(),
                Some(Outcome::Win(Color::White)),
                "{name}: {} after {} plies",
                start.fen(),
                game.moves().len()
            );
        }
    }
}

#[test]
fn a_table_win_is_reported_as_such_and_the_move_keeps_it() {
    let start = won_starts("KK-KM", 1)[0];
    let game = Game::from_position(Variant::Italian, start);
    let r = Engine::new().search(&game, &Limits::depth(4));
    assert!(r.score.is_table_win(), "{:?}", r.score);
    let next = start.after(r.best.unwrap());
    let tables = Memory::<Italian>::new(4);
    assert!(matches!(tables.probe(&next), Some(Value::Loss(_))));
}

#[test]
fn files_in_a_directory_are_used_and_agree_with_memory() {
    let dir = std::env::temp_dir().join(format!("dama-search-egtb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dama_egtb::build(Variant::Italian, 3, &dir, 1, |_| {}).unwrap();
    let files = Endgames::from_dir(&dir, false);
    assert_eq!(files.file_pieces(Variant::Italian), 3);
    assert_eq!(files.file_pieces(Variant::Spanish), 0);
    let memory = Endgames::memory_only();
    for start in won_starts("KM-K", 20) {
        assert_eq!(
            files.probe::<Italian>(&start),
            memory.probe::<Italian>(&start)
        );
        // The root plays the quickest winning conversion from the files too.
        let (m, _) = files.root_win::<Italian>(&start, 0, 80).unwrap();
        assert!(matches!(
            memory.probe::<Italian>(&start.after(m)),
            Some(Value::Loss(_))
        ));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
