//! Won endings with men, played out by the engine at a fixed depth against itself: the
//! stronger side converts inside the 40-move rule.

use dama_egtb::{Material, Memory, Value};
use dama_rules::{variant::Italian, Color, Game, Outcome, Variant};
use dama_search::{ChaCha8Rng, Endgames, Engine, Level, Limits, SeedableRng, Signals};

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
    // A win at its distance to the end where DTW knows it (4 pieces), else to conversion.
    assert!(r.score.is_win() || r.score.is_table_win(), "{:?}", r.score);
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

/// `W:WK1,K2,K15:BK4`, a win in 11 plies: 1-5, 15-11 and 2-6 keep that (the defender then
/// lasts 10), 15-12 keeps the win but the defender then lasts 14. MTC alone cannot tell them apart (15-12's
/// quickest conversion is as quick); the engine plays one that brings the end closer.
#[test]
fn a_kings_only_win_is_played_by_its_distance_to_the_end() {
    let dtw = Memory::<Italian>::new(4).with_kings_only(5).dtw();
    let start: dama_rules::Position = "W:WK1,K2,K15:BK4".parse().unwrap();
    assert_eq!(dtw.probe(&start), Some(Value::Win(11)));
    let after = |m: &str| {
        let mut g = Game::from_position(Variant::Italian, start);
        g.play_text(m).unwrap();
        dtw.probe(g.position())
    };
    assert_eq!(after("15-12"), Some(Value::Loss(14)));
    for limits in [
        Limits::depth(8),
        Limits::nodes(20_000),
        Limits::move_time(std::time::Duration::from_millis(200)),
    ] {
        let game = Game::from_position(Variant::Italian, start);
        let r = Engine::new().search(&game, &limits);
        let m = r.best.unwrap().to_string();
        assert!(
            ["1-5", "15-11", "2-6"].contains(&m.as_str()),
            "{m} {limits:?}"
        );
        assert_eq!(after(&m), Some(Value::Loss(10)));
    }
    // The levels that choose at random among good moves play the tables' move too (the
    // tables are built by now: a move on the clock does not wait for them).
    for level in [Level::Novice, Level::Normal] {
        let game = Game::from_position(Variant::Italian, start);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let r = Engine::new().play_level(
            &game,
            level,
            &Limits::infinite(),
            &Signals::default(),
            &mut rng,
        );
        assert_eq!(
            after(&r.best.unwrap().to_string()),
            Some(Value::Loss(10)),
            "{level:?}"
        );
    }
}

/// A table-won root never answers with a move to a position the game has seen while
/// another winning move does not: the three quickest of `W:WK1,K2,K15:BK4` given as seen.
#[test]
fn a_table_win_never_repeats_a_position_of_the_game() {
    let start: dama_rules::Position = "W:WK1,K2,K15:BK4".parse().unwrap();
    let endgames = Endgames::memory_only();
    let mut seen = vec![];
    for m in ["1-5", "15-11", "2-6"] {
        let mut g = Game::from_position(Variant::Italian, start);
        g.play_text(m).unwrap();
        seen.push(g.position().hash());
    }
    seen.push(start.hash());
    let play = endgames.root_play::<Italian>(&start, &seen, 0, 80).unwrap();
    assert!(!seen.contains(&start.after(play.mv).hash()), "{}", play.mv);
    assert!(matches!(play.value, Value::Win(_)));
    let tables = Memory::<Italian>::new(4).with_kings_only(5);
    assert!(matches!(
        tables.probe(&start.after(play.mv)),
        Some(Value::Loss(_))
    ));
    // Without the history, a quickest one.
    let play = endgames
        .root_play::<Italian>(&start, &[start.hash()], 0, 80)
        .unwrap();
    assert_eq!(play.to_end, Some(10));
}

/// Contempt: a draw is worth less than even to the side the engine plays. In a drawn
/// 2K v 2K every line ends in a table draw, scored 0 without contempt and minus the
/// contempt with it (and the search still finds no better than the draw).
#[test]
fn contempt_scores_a_draw_below_even_for_the_engine() {
    let start: dama_rules::Position = "W:WK6,K10:BK23,K27".parse().unwrap();
    let tables = Memory::<Italian>::new(4);
    assert_eq!(tables.probe(&start), Some(Value::Draw));
    let game = Game::from_position(Variant::Italian, start);
    let mut engine = Engine::new();
    assert_eq!(
        engine.search(&game, &Limits::depth(6)).score,
        dama_search::Score(0)
    );
    engine.set_contempt(30);
    engine.clear();
    let r = engine.search(&game, &Limits::depth(6));
    assert_eq!(r.score, dama_search::Score(-30));
    assert_eq!(
        tables.probe(&start.after(r.best.unwrap())),
        Some(Value::Draw)
    );
}
