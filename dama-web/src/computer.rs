//! The computer of `dama serve`: a few search engines, lent to one search each at a time,
//! searching on tokio's blocking pool so that the async workers keep answering requests.
//!
//! Games share the engines (a 16 MiB table each) instead of owning one: 1,000 games would
//! otherwise need 16 GiB of tables. A search waits, without holding a worker thread, for a
//! free engine. Engines are made on first need, so an idle server holds no table.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dama_rules::{Game, Move};
use dama_search::{ChaCha8Rng, Endgames, Engine, Level, Limits, Signals};
use tokio::sync::Semaphore;

use crate::metrics::Metrics;

/// Table size of each engine, in MiB.
const HASH_MIB: usize = 16;

/// How long Hard thinks a move.
pub const HARD_TIME: Duration = Duration::from_secs(1);

/// What a search found, for the reply and the log.
#[derive(Debug)]
pub struct Reply {
    /// The move; `None` when the game is over (or the server is stopping).
    pub best: Option<Move>,
    /// The generator, advanced by the level's choice, handed back to its game.
    pub rng: ChaCha8Rng,
    /// Nodes searched.
    pub nodes: u64,
    /// Depth completed.
    pub depth: u32,
    /// Time the search took (not counting the wait for an engine).
    pub time: Duration,
}

/// Why there is no reply.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The search task died (a bug); its game is left as it was.
    #[error("the search failed: {0}")]
    Failed(String),
}

/// The engines and the flag that stops every search when the server stops.
pub struct Computer {
    engines: Mutex<Vec<Engine>>,
    /// The endgame tables every engine probes: `dama egtb build`'s files where they are
    /// (`$DAMA_EGTB`, else `~/.cache/dama/egtb`), opened once and shared, then the small
    /// in-memory ones. A server builds no files itself (`dama egtb build` does).
    endgames: Endgames,
    free: Semaphore,
    signals: Signals,
    metrics: Arc<Metrics>,
}

impl Computer {
    /// At most `count` engines (at least one), searching at the same time, counted in
    /// `metrics`.
    pub fn new(count: usize, metrics: Arc<Metrics>) -> Computer {
        let count = count.max(1);
        Computer {
            engines: Mutex::new(Vec::with_capacity(count)),
            endgames: Endgames::from_dir(&dama_search::egtb::default_dir(), false),
            free: Semaphore::new(count),
            signals: Signals::default(),
            metrics,
        }
    }

    /// `level`'s move in `game`, choosing with `rng`.
    ///
    /// # Errors
    /// [`SearchError::Failed`] when the search task panicked or the pool is closed.
    pub async fn reply(
        &self,
        game: Game,
        level: Level,
        mut rng: ChaCha8Rng,
    ) -> Result<Reply, SearchError> {
        self.metrics
            .searches_waiting
            .fetch_add(1, Ordering::Relaxed);
        let permit = self.free.acquire().await;
        self.metrics
            .searches_waiting
            .fetch_sub(1, Ordering::Relaxed);
        let _permit = permit.map_err(|e| SearchError::Failed(e.to_string()))?;
        self.metrics
            .searches_running
            .fetch_add(1, Ordering::Relaxed);
        let _running = Running(&self.metrics);
        // With a permit, an engine is free or fewer than `count` exist.
        let free = self
            .engines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let signals = self.signals.clone();
        let endgames = self.endgames.clone();
        let task = tokio::task::spawn_blocking(move || {
            let mut engine = free.unwrap_or_else(|| {
                let mut engine = Engine::with_hash(HASH_MIB);
                engine.set_endgames(endgames);
                engine
            });
            let limits = if level == Level::Hard {
                Limits::move_time(HARD_TIME)
            } else {
                Limits::infinite()
            };
            let r = engine.play_level(&game, level, &limits, &signals, &mut rng);
            let reply = Reply {
                best: r.best,
                rng,
                nodes: r.nodes,
                depth: r.depth,
                time: r.time,
            };
            (engine, reply)
        });
        match task.await {
            Ok((engine, reply)) => {
                self.engines
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(engine);
                Ok(reply)
            }
            // The engine was lost with the task; the next search makes a fresh one.
            Err(err) => Err(SearchError::Failed(err.to_string())),
        }
    }

    /// The endgame tables the engines probe (shared, cheap to clone).
    pub fn endgames(&self) -> Endgames {
        self.endgames.clone()
    }

    /// Ends every search at once (the server is stopping).
    pub fn stop_all(&self) {
        self.signals.stop.store(true, Ordering::Relaxed);
    }
}

/// Counts a search as running while alive.
struct Running<'a>(&'a Metrics);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.searches_running.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_search::SeedableRng;

    #[tokio::test]
    async fn more_searches_than_engines_all_get_a_move() {
        let computer = std::sync::Arc::new(Computer::new(1, Arc::default()));
        let mut tasks = Vec::new();
        for seed in 0..3 {
            let c = std::sync::Arc::clone(&computer);
            tasks.push(tokio::spawn(async move {
                c.reply(Game::new(), Level::Novice, ChaCha8Rng::seed_from_u64(seed))
                    .await
            }));
        }
        for t in tasks {
            let reply = t.await.unwrap().unwrap();
            let m = reply.best.unwrap();
            assert!(Game::new().legal_moves().contains(&m));
        }
        assert_eq!(computer.engines.lock().unwrap().len(), 1);
    }
}
