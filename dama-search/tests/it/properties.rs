//! Property tests: whatever the position, variant and level, the search answers a legal move
//! (or none, exactly when there is none).

use dama_rules::{Game, Position, Variant};
use dama_search::{Engine, Level, Limits, Signals};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A game reached by `plies` random legal moves (chosen by `picks`) in `variant`.
fn random_game(variant: Variant, picks: &[usize]) -> Game {
    let mut game = Game::from_position(variant, Position::start());
    for &p in picks {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.legal_moves().clone();
        game.play(moves[p % moves.len()])
            .expect("a generated move is legal");
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_answer_is_legal(
        v in 0..Variant::ALL.len(),
        l in 0..Level::ALL.len(),
        picks in proptest::collection::vec(any::<usize>(), 0..90),
        seed in any::<u64>(),
    ) {
        let variant = Variant::ALL[v];
        let game = random_game(variant, &picks);
        let mut engine = Engine::with_hash(1);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let limits = Limits::nodes(3_000);
        let r = engine.play_level(&game, Level::ALL[l], &limits, &Signals::default(), &mut rng);
        match r.best {
            Some(m) => prop_assert!(game.legal_moves().contains(&m), "{variant}: {m}"),
            None => prop_assert!(game.outcome().is_some()),
        }
    }
}
