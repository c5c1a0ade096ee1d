//! The analysis work of `dama serve`: engines lent to game reviews and live analysis, a few
//! searches at a time, each with a budget, on tokio's blocking pool.
//!
//! Analysis has engines and slots of its own, apart from the computer's ([`crate::computer`]):
//! a review of a long game or a page analysing for seconds never makes a player wait for the
//! computer's reply, and at most `analysts` analysis searches run at once (the others wait
//! their turn, in order). A review asks for one slot per position, so that several reviews
//! and live analyses take turns instead of one review holding a slot for minutes.
//!
//! Every search starts from an empty table, so that the same position with the same budget
//! always gets the same answer (a review is reproducible, and its tests can say what to
//! expect).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dama_egtb::Value as TableValue;
use dama_rules::{with_rules, Game, Position, Variant};
use dama_search::{Endgames, Engine, Info, Limits, Signals};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use dama_play::review::Eval;
pub use dama_play::view::{line_view, table_view};

/// Table size of each analysis engine, in MiB (cleared before each search).
const HASH_MIB: usize = 8;

pub use dama_play::review::{MAX_DEPTH, REVIEW_MAX_NODES};
/// Live analysis thinks this long unless asked for less.
pub const LIVE_TIME: Duration = Duration::from_secs(10);
/// The longest live analysis may be asked to think.
pub const LIVE_MAX_TIME: Duration = Duration::from_secs(30);
/// The most lines live analysis shows.
pub const MAX_LINES: usize = 5;
/// How long a live analysis waits for a free slot before it is refused (503).
pub const SLOT_WAIT: Duration = Duration::from_secs(10);

/// The engines and slots of analysis.
pub struct Analyst {
    engines: Mutex<Vec<Engine>>,
    endgames: Endgames,
    slots: Arc<Semaphore>,
    count: usize,
    stopping: Arc<AtomicBool>,
}

impl Analyst {
    /// At most `count` searches at once (at least one), probing `endgames`.
    pub fn new(count: usize, endgames: Endgames) -> Analyst {
        let count = count.max(1);
        Analyst {
            engines: Mutex::new(Vec::with_capacity(count)),
            endgames,
            slots: Arc::new(Semaphore::new(count)),
            count,
            stopping: Arc::default(),
        }
    }

    /// The number of searches that may run at once.
    pub fn slots(&self) -> usize {
        self.count
    }

    /// Waits for a free slot (`None` after `wait`, or when the server is stopping).
    pub async fn slot(&self, wait: Option<Duration>) -> Option<OwnedSemaphorePermit> {
        let acquire = Arc::clone(&self.slots).acquire_owned();
        let permit = match wait {
            Some(w) => tokio::time::timeout(w, acquire).await.ok()?.ok()?,
            None => acquire.await.ok()?,
        };
        (!self.stopping.load(Ordering::Relaxed)).then_some(permit)
    }

    /// Ends every analysis (the server is stopping): running searches stop at once, waiting
    /// ones never start.
    pub fn stop_all(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.slots.close();
    }

    /// Whether the server is stopping.
    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    /// The tables' value of `pos`, where they cover it.
    pub fn table(&self, variant: Variant, pos: &Position) -> Option<TableValue> {
        let n = pos.occupied().count();
        if !self.endgames.may_cover(variant, n) {
            return None;
        }
        with_rules!(variant, R => self.endgames.probe::<R>(pos))
    }

    /// Searches `game` under `limits` with `lines` lines, on the blocking pool, holding
    /// `permit` (a slot) until done; `on_info` hears each completed iteration and may stop the
    /// search by answering `false`. `None` when the search task died or the server stops.
    pub async fn search(
        self: &Arc<Self>,
        permit: OwnedSemaphorePermit,
        game: Game,
        limits: Limits,
        lines: usize,
        mut on_info: impl FnMut(&Info) -> bool + Send + 'static,
    ) -> Option<Eval> {
        if let Some(eval) = Eval::settled(&game) {
            return Some(eval);
        }
        let me = Arc::clone(self);
        let task = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut engine = me
                .engines
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop()
                .unwrap_or_else(|| {
                    let mut e = Engine::with_hash(HASH_MIB);
                    e.set_endgames(me.endgames.clone());
                    e
                });
            engine.clear();
            engine.set_multipv(lines);
            let signals = Signals::default();
            let stop = Arc::clone(&signals.stop);
            let stopping = Arc::clone(&me.stopping);
            let r = engine.analyze_with(&game, &limits, &signals, &mut |info| {
                if !on_info(info) || stopping.load(Ordering::Relaxed) {
                    stop.store(true, Ordering::Relaxed);
                }
            });
            me.engines
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(engine);
            Eval::of(r, me.table(game.variant(), game.position()))
        });
        task.await.ok()
    }
}

/// A budget asked for: depth, nodes, time in milliseconds (each optional).
#[derive(Copy, Clone, Debug, Default)]
pub struct Asked {
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Nodes.
    pub nodes: Option<u64>,
    /// Milliseconds.
    pub time_ms: Option<u64>,
}

impl Asked {
    /// The limits of a review's search of one position: the nodes asked (else
    /// [`REVIEW_NODES`]) up to [`REVIEW_MAX_NODES`], the depth asked up to [`MAX_DEPTH`].
    pub fn review(self) -> Limits {
        dama_play::review::review_limits(self.depth, self.nodes)
    }

    /// The limits of live analysis: the time asked (else [`LIVE_TIME`]) up to
    /// [`LIVE_MAX_TIME`], and the depth and nodes asked (the depth at most [`MAX_DEPTH`]).
    pub fn live(self) -> Limits {
        let time = self
            .time_ms
            .map_or(LIVE_TIME, Duration::from_millis)
            .min(LIVE_MAX_TIME);
        Limits {
            depth: Some(self.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH)),
            nodes: self.nodes.map(|n| n.max(1)),
            ..Limits::default()
        }
        .with_time(time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::notation::fen;

    #[test]
    fn budgets_are_capped() {
        let huge = Asked {
            depth: Some(500),
            nodes: Some(u64::MAX),
            time_ms: Some(u64::MAX),
        };
        let r = huge.review();
        assert_eq!(
            (r.depth, r.nodes),
            (Some(MAX_DEPTH), Some(REVIEW_MAX_NODES))
        );
        let l = huge.live();
        assert_eq!(l.time, dama_search::TimeControl::MoveTime(LIVE_MAX_TIME));
        assert_eq!(
            Asked::default().review().nodes,
            Some(dama_play::review::REVIEW_NODES)
        );
        assert_eq!(
            Asked::default().live().time,
            dama_search::TimeControl::MoveTime(LIVE_TIME)
        );
    }

    #[tokio::test]
    async fn the_tables_give_their_verdict_and_a_search_its_lines() {
        let analyst = Arc::new(Analyst::new(1, Endgames::memory_only()));
        let pos = fen::parse("W:WK18,K22:BK29").unwrap();
        let v = analyst.table(Variant::Italian, &pos).unwrap();
        assert!(matches!(v, TableValue::Win(_)), "{v:?}");
        let game = Game::from_position(Variant::Italian, Position::start());
        let permit = analyst.slot(None).await.unwrap();
        let eval = analyst
            .search(permit, game, Limits::depth(3), 3, |_| true)
            .await
            .unwrap();
        assert_eq!(eval.lines.len(), 3);
        assert_eq!(eval.depth, 3);
        assert!(eval.table.is_none());
    }
}
