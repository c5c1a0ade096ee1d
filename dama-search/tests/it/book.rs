//! The shipped opening book: sound, played from by the levels, reproducibly for a seed.

use dama_rules::{Game, Position};
use dama_search::book::{self, Book};
use dama_search::{ChaCha8Rng, Engine, Level, Limits, SeedableRng, Signals};

#[test]
fn every_book_move_is_legal_and_every_position_reachable() {
    let book = Book::embedded();
    let s = book.stats();
    assert!(s.positions > 100, "{s:?}");
    assert_eq!(s.illegal, 0, "{s:?}");
    assert_eq!(s.reachable, s.positions, "{s:?}");
    // And each move, played, is legal by the rules.
    let game = Game::new();
    for m in book.moves(game.position()) {
        let mut g = game.clone();
        g.play(m.mv).expect("a legal book move");
        for reply in book.moves(g.position()) {
            assert!(g.legal_moves().contains(&reply.mv));
        }
    }
}

#[test]
fn the_start_position_has_all_its_moves_with_backed_up_values() {
    let book = Book::embedded();
    let start = Position::start();
    let moves = book.moves(&start);
    assert_eq!(moves.len(), Game::new().legal_moves().len());
    assert!(moves.windows(2).all(|w| w[0].score >= w[1].score));
    // The best move's value is minus the best reply's, where the reply is in the book.
    let best = moves[0];
    let replies = book.moves(&start.after(best.mv));
    assert_eq!(best.score, -replies[0].score);
    // The embedded file reads back to the same bytes.
    let again = Book::from_bytes(&book.to_bytes()).unwrap();
    assert_eq!(again.to_bytes(), book.to_bytes());
}

/// A Hard game of `plies` plies against itself from the start, choosing with `seed`.
fn hard_game(seed: u64, plies: usize) -> Vec<dama_rules::Move> {
    let mut engine = Engine::with_hash(4);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut g = Game::new();
    for _ in 0..plies {
        let limits = Limits::nodes(3_000);
        let r = engine.play_level(&g, Level::Hard, &limits, &Signals::default(), &mut rng);
        g.play(r.best.expect("a move")).unwrap();
    }
    g.moves().to_vec()
}

#[test]
fn a_hard_game_with_the_book_is_reproducible_for_a_seed_and_varies_between_seeds() {
    let a = hard_game(11, 14);
    assert_eq!(a, hard_game(11, 14));
    // The first moves come from the book (a book move is answered with no search).
    let mut engine = Engine::new();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let r = engine.play_level(
        &Game::new(),
        Level::Hard,
        &Limits::nodes(3_000),
        &Signals::default(),
        &mut rng,
    );
    assert_eq!((r.depth, r.nodes), (0, 0));
    // Other seeds give other openings (the margin leaves a choice at some point).
    let openings: std::collections::HashSet<_> = (1..=8).map(|seed| hard_game(seed, 6)).collect();
    assert!(openings.len() > 1, "{openings:?}");
}

#[test]
fn without_the_book_or_at_margin_zero_hard_is_deterministic() {
    let mut engine = Engine::new();
    engine.set_book_margin(0);
    let best = Book::embedded().moves(&Position::start())[0].mv;
    for seed in 0..4 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let line = engine
            .book_move(&Game::new(), Level::Hard, &mut rng)
            .unwrap();
        assert_eq!(line.mv, best);
    }
    engine.set_book(None);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let r = engine.play_level(
        &Game::new(),
        Level::Hard,
        &Limits::depth(3),
        &Signals::default(),
        &mut rng,
    );
    assert_eq!(r.depth, 3);
}

#[test]
fn the_lowest_levels_play_without_the_book() {
    let engine = Engine::new();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    for level in [Level::Novice, Level::Easy] {
        assert_eq!(book::level_margin(level, 5), None);
        assert!(engine.book_move(&Game::new(), level, &mut rng).is_none());
    }
    for level in [Level::Normal, Level::Strong, Level::Hard] {
        assert!(engine.book_move(&Game::new(), level, &mut rng).is_some());
    }
}
