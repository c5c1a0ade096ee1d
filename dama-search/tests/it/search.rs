//! Behaviour of the search seen from outside: legal answers, stopping, reproducibility,
//! distances to wins.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use dama_rules::{notation::fen, Game, Variant};
use dama_search::{Engine, Level, Limits, Score, Signals};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn game(f: &str) -> Game {
    Game::from_position(Variant::Italian, fen::parse(f).expect("test FEN"))
}

#[test]
fn single_legal_move_is_answered_at_once() {
    // White must take 18 with 22.
    let g = game("W:W22,29:B18,9");
    let r = Engine::new().search(&g, &Limits::depth(30));
    assert_eq!(r.best.unwrap().to_string(), "22x13x18");
    assert!(r.depth <= 1 && r.nodes < 1_000, "{r:?}");
}

#[test]
fn no_move_when_the_game_is_over() {
    let g = game("W:W:B1,2");
    let r = Engine::new().search(&g, &Limits::depth(5));
    assert_eq!(r.best, None);
}

#[test]
fn a_stop_request_gets_a_legal_move_within_50_ms() {
    let g = Game::new();
    let mut engine = Engine::new();
    let signals = Signals::default();
    let flag = signals.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        let t = Instant::now();
        flag.stop.store(true, Ordering::Relaxed);
        t
    });
    let r = engine.search_with(&g, &Limits::infinite(), &signals, &mut |_| {});
    let stopped_at = stopper.join().unwrap();
    assert!(stopped_at.elapsed() < Duration::from_millis(50));
    let best = r.best.expect("a move");
    assert!(g.legal_moves().contains(&best));
}

#[test]
fn fixed_depth_is_reproducible_to_the_node() {
    let g = game("B:W18,22,23,24,25,26,27,29,31:B3,5,6,7,9,10,11,12");
    let a = Engine::new().search(&g, &Limits::depth(9));
    let b = Engine::new().search(&g, &Limits::depth(9));
    assert_eq!(a.best, b.best);
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.pv, b.pv);
}

#[test]
fn a_seeded_level_chooses_the_same_moves() {
    for level in [Level::Novice, Level::Easy, Level::Normal] {
        let play = || {
            let mut engine = Engine::new();
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let mut g = Game::new();
            for _ in 0..12 {
                let r =
                    engine.play_level(&g, level, &Limits::default(), &Signals::default(), &mut rng);
                match r.best {
                    Some(m) => g.play(m).unwrap(),
                    None => break,
                }
            }
            g.moves().to_vec()
        };
        assert_eq!(play(), play(), "{level}");
    }
}

#[test]
fn a_win_is_scored_by_its_distance_and_shrinks_by_one_per_ply() {
    // Three kings against one: a forced win in a few plies, found by the search itself (the
    // endgame tables would answer with a table win, whose distance is to conversion).
    let mut g = game("W:WK14,K18,K22:BK32");
    let mut engine = Engine::new();
    engine.set_endgames(dama_search::Endgames::none());
    let first = engine.search(&g, &Limits::depth(16));
    let n = first.score.plies_to_end().expect("a forced win");
    assert!(first.score.is_win(), "{:?}", first.score);
    // Play on: the distance goes down by one each ply, seen from either side (a position
    // with a single legal move is answered at once, without a score to compare).
    let mut checked = 0;
    for ply in 1..n {
        let m = engine.search(&g, &Limits::depth(16)).best.unwrap();
        g.play(m).unwrap();
        if g.legal_moves().len() < 2 {
            continue;
        }
        let r = engine.search(&g, &Limits::depth(16));
        assert_eq!(
            r.score.plies_to_end(),
            Some(n - ply),
            "ply {ply}: {:?}",
            r.score
        );
        assert_eq!(r.score.is_win(), ply % 2 == 0);
        checked += 1;
    }
    assert!(checked >= 2);
    assert_eq!(Score::win_in(3), -Score::loss_in(3));
}

#[test]
fn hash_size_is_respected() {
    let mut e = Engine::with_hash(8);
    assert!(e.hash_bytes() <= 8 << 20);
    e.set_hash(2);
    assert!(e.hash_bytes() <= 2 << 20);
    // Far beyond any machine: refused, and the old table stays.
    assert!(e.try_set_hash(usize::MAX / 4).is_err());
    assert!(e.hash_bytes() <= 2 << 20 && e.hash_bytes() > 0);
    assert!(e.try_set_hash(4).is_ok());
}

#[test]
fn a_game_drawn_by_rule_still_gets_a_move() {
    // 80 plies without progress: a draw, but a GUI playing on gets a legal move.
    let mut g = game("W:WK1:BK32");
    let shuffle = ["1-5", "32-28", "5-1", "28-32"];
    for i in 0..80 {
        g.play_text(shuffle[i % 4]).unwrap();
    }
    assert!(g.outcome().is_some());
    let r = Engine::new().search(&g, &Limits::depth(4));
    assert!(g.legal_moves().contains(&r.best.unwrap()));
}

#[test]
fn every_level_and_variant_returns_legal_moves() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for variant in Variant::ALL {
        let mut g = Game::from_position(variant, dama_rules::Position::start());
        let mut engine = Engine::with_hash(1);
        for ply in 0..40 {
            if g.outcome().is_some() {
                break;
            }
            let level = Level::ALL[ply % 3];
            let limits = Limits::nodes(2_000);
            let r = engine.play_level(&g, level, &limits, &Signals::default(), &mut rng);
            let m = r.best.expect("a move while the game goes on");
            assert!(g.legal_moves().contains(&m), "{variant} {m}");
            g.play(m).unwrap();
        }
    }
}

#[test]
fn hard_converts_kings_endings_inside_the_40_move_rule() {
    use dama_rules::{Color, Outcome};
    let mut engine = Engine::new();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // The lone king in the double corner (its refuge), and a 3 v 2.
    for f in [
        "W:WK18,K22:BK29",
        "W:WK1,K2:BK28",
        "W:WK9,K10,K11:BK32",
        "W:WK5,K6,K7:BK25,K29",
    ] {
        let mut g = game(f);
        while g.outcome().is_none() {
            let limits = Limits::move_time(Duration::from_millis(50));
            let r = engine.play_level(&g, Level::Hard, &limits, &Signals::default(), &mut rng);
            g.play(r.best.unwrap()).unwrap();
        }
        assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)), "{f}");
        assert!(g.moves().len() <= 80, "{f}: {} plies", g.moves().len());
    }
}

#[test]
fn multi_pv_scores_the_best_lines_in_order() {
    let g = Game::new();
    let mut engine = Engine::new();
    engine.set_multipv(4);
    let mut infos = Vec::new();
    let r = engine.search_with(&g, &Limits::depth(8), &Signals::default(), &mut |i| {
        infos.push(i.clone());
    });
    assert_eq!(r.lines.len(), 4);
    assert!(r.lines.windows(2).all(|w| w[0].score >= w[1].score));
    let moves: std::collections::HashSet<_> = r.lines.iter().map(|l| l.mv).collect();
    assert_eq!(moves.len(), 4);
    assert_eq!(r.best, Some(r.lines[0].mv));
    // Each completed depth reports lines 1..=4.
    let last: Vec<usize> = infos.iter().rev().take(4).map(|i| i.multipv).collect();
    assert_eq!(last, [4, 3, 2, 1]);
}

#[test]
fn two_threads_return_a_legal_move() {
    let g = game("B:W18,22,23,24,25,26,27,29,31:B3,5,6,7,9,10,11,12");
    let mut engine = Engine::new();
    engine.set_threads(2);
    let r = engine.search(&g, &Limits::depth(12));
    assert!(g.legal_moves().contains(&r.best.unwrap()));
    assert_eq!(r.depth, 12);
}

#[test]
fn two_threads_report_rising_depths_and_answer_with_the_last() {
    let g = game("W:W17,21,22,23,25,26,27,29,30:B2,3,5,6,7,9,10,11,12");
    let mut engine = Engine::new();
    engine.set_threads(2);
    let mut depths = Vec::new();
    let mut last_pv = Vec::new();
    let limits = Limits::move_time(Duration::from_millis(200));
    let r = engine.search_with(&g, &limits, &Signals::default(), &mut |i| {
        depths.push(i.depth);
        last_pv = i.pv.clone();
    });
    assert!(depths.windows(2).all(|d| d[0] < d[1]), "{depths:?}");
    assert_eq!(Some(&r.depth), depths.last());
    assert_eq!(r.best, last_pv.first().copied());
    assert!(g.legal_moves().contains(&r.best.unwrap()));
}

#[test]
fn weights_set_from_outside_replace_the_built_in_ones() {
    use dama_search::{weights, Knobs};
    use std::sync::Arc;
    let g = game("W:W21,22,23,24,25,26,27,29,30,31:B1,2,3,4,5,6,7,9,10,11,12");
    let search = |engine: &mut Engine| {
        let r = engine.search(&g, &Limits::depth(9));
        (r.best, r.score, r.nodes)
    };
    let fitted = search(&mut Engine::new());
    // The hand-set table set as weights searches exactly as the knob that picks it...
    let mut by_knob = Engine::new();
    by_knob.set_knobs(Knobs {
        hand_weights: true,
        ..Knobs::default()
    });
    let hand = search(&mut by_knob);
    let mut set = Engine::new();
    set.set_weights(Some(Arc::new(weights::hand_set(Variant::Italian).clone())));
    assert_eq!(search(&mut set), hand);
    // ...which is not the fitted search, and taking the weights away goes back to that.
    assert_ne!(hand, fitted);
    set.set_weights(None);
    set.clear();
    assert_eq!(search(&mut set), fitted);
}

/// Displayed scores have three bands (score.rs, `Score::men`): evaluations below 80 men,
/// table wins 80 to 90, wins at a known distance 90 to 100. An evaluation, however lopsided
/// the weights, stays in its band: a GUI never shows an evaluation as a table's verdict.
#[test]
fn an_evaluation_never_reaches_the_table_band() {
    use dama_search::weights::{self, Weights};
    let hand = weights::hand_set(Variant::Italian);
    let mut features = hand.features;
    for w in &mut features {
        *w = w.saturating_mul(500);
    }
    let mut engine = Engine::new();
    engine.set_weights(Some(std::sync::Arc::new(Weights::classic(features))));
    // Twelve kings against one man: far beyond the in-memory tables.
    let g = game("W:WK5,K6,K7,K8,K9,K10,K11,K12,K13,K14,K15,K16:B28");
    for depth in [1, 3] {
        let r = engine.search(&g, &Limits::depth(depth));
        let men = r.score.men();
        assert!(
            !r.score.is_table_win() && !r.score.is_win(),
            "{:?}",
            r.score
        );
        assert!(
            men.abs() <= dama_search::Score::EVAL_MAX.men(),
            "depth {depth}: {men} men"
        );
        assert!(men.abs() < 80.0, "depth {depth}: {men} men");
    }
}
