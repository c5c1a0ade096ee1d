//! The computer opponent: a search engine and the seeded generator its levels choose with.

use dama_rules::{Game, Move};
use dama_search::{Endgames, Engine, Level, Limits, Signals};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The computer: the same seed and the same moves give the same replies.
#[derive(Debug)]
pub struct Computer {
    engine: Engine,
    rng: ChaCha8Rng,
}

impl Computer {
    /// A computer choosing with a generator seeded by `seed`, probing the endgame tables that
    /// `dama egtb build` wrote (`$DAMA_EGTB`, else `~/.cache/dama/egtb`) and the small
    /// in-memory ones.
    pub fn new(seed: u64) -> Computer {
        let mut engine = Engine::new();
        engine.set_endgames(Endgames::from_dir(&dama_search::egtb::default_dir(), false));
        Computer {
            engine,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Forgets the last game's table.
    pub fn new_game(&mut self) {
        self.engine.clear();
    }

    /// `level`'s move in `game` (Hard thinks for a second); `None` when the game is over or
    /// the search was stopped before it found one.
    pub fn reply(&mut self, game: &Game, level: Level, signals: &Signals) -> Option<Move> {
        let limits = Limits::infinite();
        let r = self
            .engine
            .play_level(game, level, &limits, signals, &mut self.rng);
        r.best
    }
}

/// A seed for a computer that plays differently each time.
pub fn fresh_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    now.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
}
