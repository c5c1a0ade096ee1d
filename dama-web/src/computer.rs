//! The computer of `dama serve`: a few search engines, lent to one search each at a time,
//! searching on tokio's blocking pool so that the async workers keep answering requests.
//!
//! Games share the engines (a 16 MiB table each) instead of owning one: 1,000 games would
//! otherwise need 16 GiB of tables. A search waits, without holding a worker thread, for a
//! free engine. Engines are made on first need, so an idle server holds no table.
//!
//! The levels search in three lanes with capacity of their own, so that a Novice reply never
//! waits behind a Hard one, nor a Strong one behind Hard's second of thinking: the quick lane
//! (Novice, Easy, Normal: at most 8,000 nodes, a few milliseconds) runs `searchers` searches
//! at once, the Strong lane (40,000 nodes) and the Hard lane (a second each) half as many, at
//! least one. Each lane's queue is bounded: [`QUICK_QUEUE`] waiting searches per slot for the
//! quick lane, [`STRONG_QUEUE`] for Strong, [`HARD_QUEUE`] for Hard (so that a Hard reply
//! waits for at most about one other search); a search that finds its lane's queue full is
//! refused at once ([`SearchError::Busy`], 503 with `Retry-After`).
//!
//! Lanes bound the waiting, not the CPU: on a machine with fewer cores than searches, a quick
//! reply would still wait for a core behind Strong's and Hard's. So the Strong and Hard
//! searches run on threads of their own at a lower scheduling priority (nice [`STRONG_NICE`]
//! and [`HARD_NICE`] on Linux; elsewhere at the same priority): the quick searches take the
//! cores when they need them, and the long ones use what is left. Hard thinks for a fixed
//! time, so under load it searches less rather than answering later; Strong searches a fixed
//! number of nodes, so it answers later, and its bounded queue refuses the rest.

use std::path::Path;
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

/// Searches that may wait in the quick lane (Novice to Normal), per search it runs at once.
pub const QUICK_QUEUE: usize = 256;

/// Searches that may wait in the Strong lane, per search it runs at once.
pub const STRONG_QUEUE: usize = 8;

/// Searches that may wait in the Hard lane, per search it runs at once.
pub const HARD_QUEUE: usize = 1;

/// The nice value (added to the server's) of the threads that search for Strong: a third of
/// a quick search's share of a busy core (Linux weights 335 against 1,024).
pub const STRONG_NICE: i32 = 5;

/// The nice value (added to the server's) of the threads that search for Hard: about a
/// tenth of a quick search's share of a busy core (weights 110 against 1,024).
pub const HARD_NICE: i32 = 10;

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
    /// The level's lane has its queue full: ask again after `retry_after` seconds.
    #[error(
        "the computer has too many {lane} searches to do: it will have time in {retry_after} s"
    )]
    Busy {
        /// The lane's name: `quick` (Novice to Normal), `strong` or `hard`.
        lane: &'static str,
        /// Seconds to wait before asking again.
        retry_after: u64,
    },
}

/// One lane of searches: its capacity and its bounded queue.
struct Lane {
    name: &'static str,
    free: Semaphore,
    /// Searches waiting for a slot now.
    waiting: std::sync::atomic::AtomicUsize,
    max_waiting: usize,
    retry_after: u64,
}

impl Lane {
    fn new(name: &'static str, slots: usize, per_slot: usize, retry_after: u64) -> Lane {
        Lane {
            name,
            free: Semaphore::new(slots),
            waiting: Default::default(),
            max_waiting: slots * per_slot,
            retry_after,
        }
    }

    /// A slot of this lane: at once, or after waiting in a queue that has room.
    async fn slot(&self) -> Result<tokio::sync::SemaphorePermit<'_>, SearchError> {
        if let Ok(permit) = self.free.try_acquire() {
            return Ok(permit);
        }
        let busy = SearchError::Busy {
            lane: self.name,
            retry_after: self.retry_after,
        };
        // Counted before waiting, given back after: at most `max_waiting` wait at once.
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(busy);
        }
        let permit = self.free.acquire().await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        permit.map_err(|e| SearchError::Failed(e.to_string()))
    }
}

/// The lane `level` searches in: 0 quick, 1 Strong, 2 Hard.
pub fn lane(level: Level) -> usize {
    match level {
        Level::Novice | Level::Easy | Level::Normal => 0,
        Level::Strong => 1,
        Level::Hard => 2,
    }
}

/// The engines and the flag that stops every search when the server stops.
pub struct Computer {
    engines: Mutex<Vec<Engine>>,
    /// The endgame tables every engine probes: `dama egtb build`'s files where they are
    /// (`$DAMA_EGTB`, else `~/.cache/dama/egtb`), opened once and shared, then the small
    /// in-memory ones. A server builds no files itself (`dama egtb build` does).
    endgames: Endgames,
    /// The quick lane (Novice to Normal), Strong's and Hard's.
    lanes: [Lane; 3],
    signals: Signals,
    metrics: Arc<Metrics>,
}

impl Computer {
    /// `count` quick searches (at least one) and half as many Strong and Hard ones (at least
    /// one each) at the same time, each with its own engine, counted in `metrics`, with the
    /// table files of `egtb` (none: the in-memory tables only).
    pub fn new(count: usize, metrics: Arc<Metrics>, egtb: Option<&Path>) -> Computer {
        let quick = count.max(1);
        let long = (count / 2).max(1);
        Computer {
            engines: Mutex::new(Vec::with_capacity(quick + 2 * long)),
            endgames: egtb.map_or_else(Endgames::memory_only, |dir| Endgames::from_dir(dir, false)),
            lanes: [
                Lane::new("quick", quick, QUICK_QUEUE, 1),
                Lane::new("strong", long, STRONG_QUEUE, 1),
                Lane::new("hard", long, HARD_QUEUE, HARD_TIME.as_secs().max(1)),
            ],
            signals: Signals::default(),
            metrics,
        }
    }

    /// `level`'s move in `game`, choosing with `rng`.
    ///
    /// # Errors
    /// [`SearchError::Busy`] at once when the level's lane has its queue full,
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
        let permit = self.lanes[lane(level)].slot().await;
        self.metrics
            .searches_waiting
            .fetch_sub(1, Ordering::Relaxed);
        let _permit = permit?;
        self.metrics
            .searches_running
            .fetch_add(1, Ordering::Relaxed);
        let _running = Running(&self.metrics);
        // With a permit, an engine is free or fewer than both lanes' slots exist.
        let free = self
            .engines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let signals = self.signals.clone();
        let endgames = self.endgames.clone();
        let job = move || {
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
        };
        let done = match lane(level) {
            0 => tokio::task::spawn_blocking(job)
                .await
                .map_err(|e| e.to_string()),
            1 => run_lowered(STRONG_NICE, job).await,
            _ => run_lowered(HARD_NICE, job).await,
        };
        match done {
            Ok((engine, reply)) => {
                self.engines
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(engine);
                Ok(reply)
            }
            // The engine was lost with the task; the next search makes a fresh one.
            Err(err) => Err(SearchError::Failed(err)),
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

/// Runs `job` on a thread of its own whose nice value is raised by `nice` (a lower priority),
/// and waits for its answer without holding an async worker. The thread ends with the job: an
/// unprivileged thread cannot take its priority back, so a pooled one would keep it.
async fn run_lowered<T: Send + 'static>(
    nice: i32,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("dama-search-low".into())
        .spawn(move || {
            // Best effort: where it cannot, the search keeps the server's priority.
            dama_search::lower_thread_priority(nice);
            // The receiver is gone only when the request was dropped: nothing to tell.
            let _ = tx.send(job());
        })
        .map_err(|e| format!("cannot start a search thread: {e}"))?;
    rx.await
        .map_err(|_| "the search thread ended without an answer".to_string())
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

    /// The calling thread's nice value, from `/proc/thread-self/stat` (field 19).
    #[cfg(target_os = "linux")]
    fn thread_nice() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        // The command name (field 2) is in parentheses and may hold spaces: count after it.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        after.split(' ').nth(16).unwrap().parse().unwrap()
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn long_searches_run_at_a_lower_priority_and_leave_the_callers_alone() {
        let before = thread_nice();
        let inside = run_lowered(HARD_NICE, thread_nice).await.unwrap();
        assert_eq!(inside, (before + HARD_NICE).min(19));
        assert_eq!(thread_nice(), before, "the caller's priority is its own");
        let strong = run_lowered(STRONG_NICE, thread_nice).await.unwrap();
        assert_eq!(
            strong,
            (before + STRONG_NICE).min(19),
            "a fresh thread each time"
        );
        // The quick lane's pooled threads are never lowered.
        let pooled = tokio::task::spawn_blocking(thread_nice).await.unwrap();
        assert_eq!(pooled, before);
    }

    #[tokio::test]
    async fn a_lowered_job_that_panics_is_an_error_not_a_hang() {
        let r: Result<(), String> = run_lowered(STRONG_NICE, || panic!("a bug")).await;
        assert!(r.unwrap_err().contains("without an answer"));
    }

    #[tokio::test]
    async fn more_searches_than_engines_all_get_a_move() {
        let computer = std::sync::Arc::new(Computer::new(1, Arc::default(), None));
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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn quick_and_strong_replies_never_wait_behind_hard_and_a_full_queue_is_refused_at_once() {
        let computer = Arc::new(Computer::new(2, Arc::default(), None));
        // Out of the opening book: Hard thinks its full second.
        let pos =
            dama_rules::notation::fen::parse("W:W18,21,22,25,26,29,30,31:B2,3,5,9,10,11,12,15")
                .unwrap();
        let middle = Game::from_position(dama_rules::Variant::Italian, pos);
        let hard = |seed| {
            let (c, game) = (Arc::clone(&computer), middle.clone());
            tokio::spawn(async move {
                c.reply(game, Level::Hard, ChaCha8Rng::seed_from_u64(seed))
                    .await
            })
        };
        // One Hard search runs (a second of thinking), one waits: the Hard lane is full.
        let (running, queued) = (hard(1), hard(2));
        tokio::time::sleep(Duration::from_millis(100)).await;
        let started = std::time::Instant::now();
        let refused = hard(3).await.unwrap();
        assert!(
            matches!(
                refused,
                Err(SearchError::Busy {
                    lane: "hard",
                    retry_after: 1
                })
            ),
            "{refused:?}"
        );
        assert!(started.elapsed() < Duration::from_millis(100));
        // Meanwhile Novice and Strong answer at once, each in its own lane.
        for level in [Level::Novice, Level::Strong] {
            let started = std::time::Instant::now();
            let reply = computer
                .reply(Game::new(), level, ChaCha8Rng::seed_from_u64(4))
                .await
                .unwrap();
            assert!(reply.best.is_some());
            let took = started.elapsed();
            assert!(took < Duration::from_millis(500), "{level}: {took:?}");
        }
        assert!(running.await.unwrap().unwrap().best.is_some());
        assert!(queued.await.unwrap().unwrap().best.is_some());
    }
}
