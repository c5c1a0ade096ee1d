//! The endgame tables built at `init` (parameter `egtb-init`): the kings-only endings of up
//! to 5 pieces, so that the engine's first move in one of them is played from its tables.
//!
//! Without this, a search on the clock never waits for an in-memory table: the first moves
//! of a 3 kings against 2 ending would be played while the tables (MTC and DTW) of the class
//! are built in the background, by MTC only or by the search, which converts the win but
//! not in the fewest moves. A search to a depth waits for the tables it needs instead: one
//! such search of a won position of each class builds them, with every class they convert
//! into, exactly as the first real search would; and the tables are built by dama-search's
//! own code, optimised in every build profile (`Endgames::prepare_dtw`, generic, would be
//! compiled here, five times slower in a debug build, and builds DTW only).

use std::time::Instant;

use dama_rules::{notation::fen, Game, Variant};
use dama_search::{Endgames, Engine, Limits};

/// A won position for the side to move (in every variant: the test below checks Italian and
/// Russian, the others were checked once by hand) of each class built: 4 kings against 1 and
/// 3 kings against 2. Their tables bring every smaller kings-only class with them.
pub(crate) const POSITIONS: [&str; 2] = ["W:WK21,K22,K26,K27:BK4", "W:WK21,K22,K26:BK4,K8"];

/// Builds the in-memory tables of the kings-only classes of up to 5 pieces of `variant`,
/// one thread a class (the classes they share are built once, the other thread waiting),
/// and returns when they are built. The tables are the process's: a second call returns at
/// once.
pub(crate) fn build(variant: Variant) {
    let start = Instant::now();
    std::thread::scope(|s| {
        for text in POSITIONS {
            let spawned = std::thread::Builder::new()
                .name("dama-egtb-init".into())
                .spawn_scoped(s, move || search(variant, text));
            if let Err(e) = spawned {
                // No thread: built on this one, in turn.
                tracing::debug!("no thread for the endgame tables ({e})");
                search(variant, text);
            }
        }
    });
    tracing::debug!(
        variant = %variant,
        ms = start.elapsed().as_millis() as u64,
        "kings-only endgame tables of up to 5 pieces built"
    );
}

/// A search to depth 1 of `text` on an engine of its own with only the in-memory tables
/// (never the files' directory, where a probe would start building the 5-piece files).
fn search(variant: Variant, text: &str) {
    let pos = match fen::parse(text) {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!("endgame tables at init: {text}: {e}");
            return;
        }
    };
    let mut engine = Engine::with_hash(1);
    engine.set_endgames(Endgames::memory_only());
    engine.set_book(None);
    let r = engine.search(&Game::from_position(variant, pos), &Limits::depth(1));
    tracing::trace!(variant = %variant, position = text, score = ?r.score, "init search");
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::Variant;

    #[test]
    fn every_position_is_a_table_win() {
        // A drawn root would be left to the search, and its class's DTW table not built.
        // Italian, and Russian for the flying kings (each variant takes seconds; the others
        // give the same wins).
        for v in [Variant::Italian, Variant::Russian] {
            for text in POSITIONS {
                let pos = fen::parse(text).unwrap();
                let mut engine = Engine::with_hash(1);
                engine.set_endgames(Endgames::memory_only());
                let r = engine.search(&Game::from_position(v, pos), &Limits::depth(1));
                assert!(
                    r.score.is_win() && r.nodes == 1,
                    "{v} {text}: {:?} in {} nodes",
                    r.score,
                    r.nodes
                );
            }
        }
    }
}
