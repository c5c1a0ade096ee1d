//! Where the search finds the exact values of endings: the tables of `dama-egtb`.
//!
//! One mechanism: an [`Endgames`] handle reads table files from a directory (built by
//! `dama egtb build`, or by the engine itself on a background thread, see
//! [`Endgames::from_dir`]) and, for what the files do not cover, builds small tables in
//! memory on first need: every class of at most [`MEMORY_PIECES`] pieces and the kings-only
//! ones of [`MEMORY_KINGS_ONLY`] (each a few milliseconds to a few seconds, once per
//! process). The search probes a node only when neither side has a capture pending; the
//! values ignore the 40-move rule, and the search uses one only when the distance to the
//! next conversion fits in what the counter leaves.
//!
//! At the root, a won or lost ending the tables cover is played from them at once
//! ([`Endgames::root_play`]): by DTW, the distance to the end of the game, from DTW tables
//! built in memory beside the MTC ones, with the game's history, so that a win is never let
//! go through a repetition or the 40-move rule and always comes closer.

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use dama_egtb::{Material, Memory, Placement, Tables};

/// The default directory of the table files: `$DAMA_EGTB`, else `~/.cache/dama/egtb`.
pub use dama_egtb::default_dir;
/// A table's value of a position, what [`Endgames::probe`] answers.
pub use dama_egtb::Value;
use dama_rules::{Move, Position, Rules, Variant};

/// Classes of at most this many pieces are built in memory when no file has them.
pub const MEMORY_PIECES: u32 = 4;
/// Kings-only classes of at most this many pieces are built in memory too.
pub const MEMORY_KINGS_ONLY: u32 = 5;
/// The pieces of the tables an engine builds on disk when they are missing.
pub const BUILD_PIECES: u32 = 5;

/// The DTW tables in memory cover every class of at most this many pieces...
pub const DTW_PIECES: u32 = 5;
/// ... and the kings-only classes of this many. Beyond the classes the MTC tables hold in
/// memory ([`MEMORY_PIECES`], [`MEMORY_KINGS_ONLY`]), a DTW class is built only where the
/// files cover it (5 pieces with men: up to 25 s of CPU with what it converts into;
/// kings-only 6: about 40 s and 60 MB for the three classes).
pub const DTW_KINGS_ONLY: u32 = 6;

/// The in-memory tables, one per rule set, shared by every search of the process.
static MEMORY: [OnceLock<Box<dyn Any + Send + Sync>>; 6] = [const { OnceLock::new() }; 6];
/// The in-memory DTW tables, likewise.
static DTW: [OnceLock<Box<dyn Any + Send + Sync>>; 6] = [const { OnceLock::new() }; 6];

fn slot(v: Variant) -> usize {
    Variant::ALL.iter().position(|&x| x == v).unwrap_or(0)
}

fn memory<R: Rules>() -> &'static Memory<R> {
    MEMORY[slot(R::VARIANT)]
        .get_or_init(|| {
            Box::new(Memory::<R>::new(MEMORY_PIECES).with_kings_only(MEMORY_KINGS_ONLY))
        })
        .downcast_ref::<Memory<R>>()
        .unwrap_or_else(|| unreachable!("each slot holds its variant's tables"))
}

fn dtw<R: Rules>() -> &'static Memory<R> {
    DTW[slot(R::VARIANT)]
        .get_or_init(|| {
            Box::new(
                Memory::<R>::new(DTW_PIECES)
                    .with_kings_only(DTW_KINGS_ONLY)
                    .dtw(),
            )
        })
        .downcast_ref::<Memory<R>>()
        .unwrap_or_else(|| unreachable!("each slot holds its variant's tables"))
}

/// What the root of a search plays from the tables: a move and what it keeps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RootPlay {
    /// The move.
    pub mv: Move,
    /// The value of the root for the side to move, in the tables' metric (MTC) when they
    /// have it, else in DTW.
    pub value: Value,
    /// The plies to the end of the game after this move with best play, when known (DTW).
    pub to_end: Option<u32>,
}

/// A background build of the files of one directory.
#[derive(Debug, Default)]
struct Builder {
    dir: PathBuf,
    started: [AtomicBool; 6],
    ready: [OnceLock<Arc<Tables>>; 6],
}

/// In-memory classes asked for by a search that may not wait (by variant slot).
static REQUESTED: std::sync::Mutex<Vec<(usize, Material)>> = std::sync::Mutex::new(Vec::new());

/// The endgame tables a search uses; cheap to clone.
#[derive(Clone, Default)]
pub struct Endgames {
    files: Option<Arc<Tables>>,
    memory: bool,
    builder: Option<Arc<Builder>>,
    /// Never wait for an in-memory class: one not built yet is built on a thread of its own
    /// and unknown until then (the searches of a move on the clock).
    no_wait: bool,
}

impl std::fmt::Debug for Endgames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endgames")
            .field("dir", &self.files.as_ref().map(|t| t.dir().to_path_buf()))
            .field("memory", &self.memory)
            .finish()
    }
}

impl Endgames {
    /// Only the tables built in memory (the default of [`Engine`](crate::Engine)).
    pub fn memory_only() -> Endgames {
        Endgames {
            files: None,
            memory: true,
            builder: None,
            no_wait: false,
        }
    }

    /// The same tables, never waiting for an in-memory class to be built: a probe that
    /// needs one not built yet starts building it on a thread of its own and answers
    /// unknown until it is there. The search uses this for every move on the clock, so that
    /// no move waits (a search to a depth or a node count waits instead, so that its result
    /// does not depend on timing).
    #[must_use]
    pub fn never_waiting(mut self) -> Endgames {
        self.no_wait = true;
        self
    }

    /// No tables at all: the search on its own.
    pub fn none() -> Endgames {
        Endgames::default()
    }

    /// The files in `dir` (see `dama_egtb::default_dir`), then the in-memory tables. With
    /// `build_missing`, when `dir` lacks the tables of up to [`BUILD_PIECES`] pieces of a
    /// variant, the first probe that would need them starts building them there on a
    /// background thread (one thread, logged once); probes go on without them until it is
    /// done, so no move waits.
    pub fn from_dir(dir: &Path, build_missing: bool) -> Endgames {
        let files = Tables::open(dir).ok().map(Arc::new);
        Endgames {
            files,
            memory: true,
            no_wait: false,
            builder: build_missing.then(|| {
                Arc::new(Builder {
                    dir: dir.to_path_buf(),
                    ..Builder::default()
                })
            }),
        }
    }

    /// The most pieces the files cover for `variant`.
    pub fn file_pieces(&self, variant: Variant) -> u32 {
        let built = self
            .builder
            .as_ref()
            .and_then(|b| b.ready[slot(variant)].get())
            .map_or(0, |t| t.max_pieces(variant));
        built.max(self.files.as_ref().map_or(0, |t| t.max_pieces(variant)))
    }

    fn files_for(&self, variant: Variant) -> Option<&Tables> {
        let built = self
            .builder
            .as_ref()
            .and_then(|b| b.ready[slot(variant)].get());
        match (built, &self.files) {
            (Some(b), Some(f)) if b.max_pieces(variant) > f.max_pieces(variant) => Some(b),
            (_, Some(f)) => Some(f),
            (Some(b), None) => Some(b),
            (None, None) => None,
        }
    }

    /// The value of `pos` (no capture pending for either side, or the files value it by
    /// searching the captures), `None` when no table covers it.
    pub fn probe<R: Rules>(&self, pos: &Position) -> Option<Value> {
        let n = pos.occupied().count();
        if let Some(t) = self.files_for(R::VARIANT) {
            if n <= t.max_pieces(R::VARIANT) {
                if let Ok(Some(v)) = t.probe_rules::<R>(pos) {
                    return Some(v);
                }
            }
        }
        if n <= BUILD_PIECES {
            self.start_build::<R>();
        }
        if self.memory && n <= MEMORY_KINGS_ONLY {
            let m: Material = Placement::of(pos).material();
            if n <= MEMORY_PIECES || m.men() == 0 {
                if !self.no_wait {
                    return memory::<R>().probe(pos);
                }
                let v = memory::<R>().probe_built(pos);
                if v.is_none() {
                    build_in_memory::<R>(m);
                }
                return v;
            }
        }
        None
    }

    /// Whether a probe of a position with `n` pieces may answer (a quick filter).
    #[inline]
    pub fn may_cover(&self, variant: Variant, n: u32) -> bool {
        (self.memory && n <= MEMORY_KINGS_ONLY) || n <= self.file_pieces(variant)
    }

    fn start_build<R: Rules>(&self) {
        let Some(b) = &self.builder else { return };
        let v = R::VARIANT;
        if self
            .files
            .as_ref()
            .is_some_and(|t| t.max_pieces(v) >= BUILD_PIECES)
        {
            return;
        }
        // A load first: probes come from every search thread, a write each time would make
        // them fight over the cache line.
        if b.started[slot(v)].load(Ordering::Relaxed)
            || b.started[slot(v)].swap(true, Ordering::Relaxed)
        {
            return;
        }
        let b = Arc::clone(b);
        tracing::info!(
            dir = %b.dir.display(),
            variant = %v,
            "building the endgame tables of up to {BUILD_PIECES} pieces in the background"
        );
        let spawned = std::thread::Builder::new()
            .name("dama-egtb-build".into())
            .spawn(move || {
                lower_this_threads_priority();
                match dama_egtb::build(v, BUILD_PIECES, &b.dir, 1, |_| {}) {
                    Ok(()) => match Tables::open(&b.dir) {
                        Ok(t) => {
                            tracing::info!(variant = %v, "endgame tables ready");
                            let _ = b.ready[slot(v)].set(Arc::new(t));
                        }
                        Err(e) => tracing::warn!("endgame tables: {e}"),
                    },
                    Err(e) => tracing::warn!("endgame tables not built: {e}"),
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("endgame tables not built: {e}");
        }
    }

    /// The DTW value of `pos` (plies to the end of the game), from the in-memory DTW tables:
    /// the classes the in-memory MTC tables hold, and those of at most [`DTW_PIECES`]
    /// pieces or kings-only of [`DTW_KINGS_ONLY`] that the files cover; `None` outside them,
    /// or, never waiting (always, for the classes beyond the in-memory MTC ones, which take
    /// tens of seconds to build), while the class is being built.
    pub fn probe_dtw<R: Rules>(&self, pos: &Position) -> Option<Value> {
        let n = pos.occupied().count();
        if !self.memory || n > DTW_KINGS_ONLY.max(DTW_PIECES) {
            return None;
        }
        let m: Material = Placement::of(pos).material();
        let cheap = self.dtw_covers(R::VARIANT, m)?;
        // The classes beyond the cheap ones take tens of seconds: never waited for, even by
        // a search to a depth (a review or an analysis must not stall). Until one is built
        // the root plays by MTC, which keeps the win as surely.
        if !self.no_wait && cheap {
            return dtw::<R>().probe(pos);
        }
        let v = dtw::<R>().probe_built(pos);
        if v.is_none() {
            build_dtw_in_memory::<R>(m);
        }
        v
    }

    /// Builds the in-memory DTW table of class `m` (and what it converts into) now, waiting
    /// for it, where [`Endgames::probe_dtw`] would use it; whether it is there. For programs
    /// that play many games of one ending (`dama egtb convert`), so that the first ones do
    /// not play by MTC while it is built in the background.
    pub fn prepare_dtw<R: Rules>(&self, m: Material) -> bool {
        self.dtw_covers(R::VARIANT, m).is_some() && dtw::<R>().table(m).is_some()
    }

    /// Whether the DTW tables may give class `m`: `None` if not, else whether it is one of
    /// the cheap classes (those the in-memory MTC tables hold), which a search to a depth
    /// waits for.
    fn dtw_covers(&self, variant: Variant, m: Material) -> Option<bool> {
        let n = m.pieces();
        let kings_only = m.men() == 0;
        let cheap = n <= MEMORY_PIECES || (kings_only && n <= MEMORY_KINGS_ONLY);
        let held = if kings_only {
            n <= DTW_KINGS_ONLY
        } else {
            n <= DTW_PIECES
        };
        (self.memory && held && (cheap || n <= self.file_pieces(variant))).then_some(cheap)
    }

    /// At the root: the winning move with the shortest distance to conversion that the
    /// no-progress counter allows (`quiet` plies used of `limit`), and its value; `None`
    /// unless `pos` is a covered win with no capture pending for either side. Knows no
    /// history: [`Endgames::root_play`] is what a search plays.
    pub fn root_win<R: Rules>(
        &self,
        pos: &Position,
        quiet: u32,
        limit: u32,
    ) -> Option<(Move, u32)> {
        match self.root_play::<R>(pos, &[], quiet, limit)? {
            RootPlay {
                mv,
                value: Value::Win(d),
                ..
            } => Some((mv, d)),
            _ => None,
        }
    }

    /// What the root plays from the tables, when `pos` is a win or a loss they cover (with a
    /// capture pending for either side, only where the DTW tables cover it), given the game
    /// so far: `history` holds the hash of
    /// every position of the game (`pos` last), `quiet` the plies since the last conversion
    /// and `limit` the variant's no-progress limit.
    ///
    /// - **A win**: among the moves that keep it and leave the winner time to convert
    ///   before the counter ends the game (the child's MTC fits), a move to a position the
    ///   game has not seen comes first (the end never comes through a repetition), then the
    ///   shortest distance to the end of the game (DTW) where the in-memory DTW tables have
    ///   it, then the shortest distance to conversion. DTW is what makes progress: in a
    ///   kings-only ending MTC's quickest conversion may be a sacrifice that the loser
    ///   captures (3K v K to 2K v K), and among king moves that keep a win MTC says nothing
    ///   of which brings the end closer. Every move that keeps DTW's optimum lowers it by
    ///   two plies a move pair, so play cannot come back to a position.
    /// - **A loss**: the move that puts the end furthest off (DTW, then MTC), preferring one
    ///   that repeats a position (a repetition is the loser's hope where a referee counts
    ///   it).
    ///
    /// `None` for a draw (the search keeps it: a move that loses is a table loss at its
    /// first ply) and outside the tables.
    pub fn root_play<R: Rules>(
        &self,
        pos: &Position,
        history: &[u64],
        quiet: u32,
        limit: u32,
    ) -> Option<RootPlay> {
        // With a capture pending the files' MTC is only win/draw/loss (a capture counts 1
        // whatever follows): such a root is played from the tables only where DTW has it.
        let capture = pos.must_capture::<R>() || pos.with_turn(!pos.turn()).must_capture::<R>();
        let root = if capture {
            self.probe_dtw::<R>(pos)?
        } else {
            self.probe::<R>(pos).or_else(|| self.probe_dtw::<R>(pos))?
        };
        if root == Value::Draw {
            return None;
        }
        let won = matches!(root, Value::Win(_));
        let kings = pos.kings(pos.turn());
        let seen = |p: &Position| history.contains(&p.hash());
        // The key to minimise: a seen position last, then the distances.
        type Key = (bool, u32, u32);
        let mut best: Option<(Key, Move, Option<u32>)> = None;
        for &m in pos.moves::<R>().iter() {
            let child = pos.after(m);
            let mtc = self.probe::<R>(&child);
            let dtw = self.probe_dtw::<R>(&child);
            let king_move = !m.is_capture() && kings.contains(m.from());
            let key = if won {
                // The plies to conversion after m: MTC's when known, else bounded by DTW's.
                let (lost, d) = match (mtc, dtw) {
                    (Some(Value::Loss(d)), _) | (None, Some(Value::Loss(d))) => (true, d),
                    _ => (false, 0),
                };
                if !lost {
                    continue;
                }
                let d = if king_move { d + 1 } else { 1 };
                // The conversion comes after d plies, played with the counter at quiet + d - 1
                // (a conversion now resets it at once).
                if king_move && quiet + d >= limit {
                    continue;
                }
                let to_end = dtw.and_then(Value::distance).unwrap_or(u32::MAX);
                (seen(&child), to_end, d)
            } else {
                let d = |v: Option<Value>| v.and_then(Value::distance).unwrap_or(0);
                // Largest first: negate by subtracting from the largest.
                (!seen(&child), u32::MAX - d(dtw), u32::MAX - d(mtc))
            };
            if best.is_none_or(|(k, _, _)| key < k) {
                best = Some((key, m, dtw.and_then(Value::distance)));
            }
        }
        let (_, mv, to_end) = best?;
        Some(RootPlay {
            mv,
            value: root,
            to_end,
        })
    }
}

/// Builds class `m` of the in-memory MTC tables (with what it converts into) on a thread of
/// its own, once.
fn build_in_memory<R: Rules>(m: Material) {
    build_once(&REQUESTED, slot(R::VARIANT), m, "dama-egtb-memory", |c| {
        memory::<R>().table(c).is_some()
    });
}

/// Builds class `m` of the in-memory DTW tables likewise.
fn build_dtw_in_memory<R: Rules>(m: Material) {
    static ASKED: std::sync::Mutex<Vec<(usize, Material)>> = std::sync::Mutex::new(Vec::new());
    build_once(&ASKED, slot(R::VARIANT), m, "dama-egtb-dtw", |c| {
        dtw::<R>().table(c).is_some()
    });
}

/// Whether class builds wait in [`DEFERRED`] for [`build_deferred`] instead of running on
/// threads of their own.
static DEFER: AtomicBool = AtomicBool::new(false);

/// The class builds asked for while [`DEFER`] is set: each class and how to build it.
type Deferred = (Material, fn(Material) -> bool);
static DEFERRED: std::sync::Mutex<Vec<Deferred>> = std::sync::Mutex::new(Vec::new());

/// For a host without threads (WebAssembly in a browser): the in-memory classes that a search
/// on the clock asks for (and never waits for) are queued, not built on threads of their own,
/// until [`build_deferred`] builds them, between searches. Process-wide; off by default.
pub fn defer_builds(on: bool) {
    DEFER.store(on, Ordering::Relaxed);
}

/// Builds the in-memory classes queued while [`defer_builds`] is on (each a few milliseconds
/// to a few seconds) and returns how many: a host calls it while nothing else waits (between
/// the computer's move and the player's), as a thread would have built them meanwhile.
pub fn build_deferred() -> usize {
    let jobs = std::mem::take(&mut *DEFERRED.lock().unwrap_or_else(|e| e.into_inner()));
    for &(c, build) in &jobs {
        if !build(c) {
            tracing::warn!("endgame table {c} not built");
        }
    }
    jobs.len()
}

/// Runs `build` on the canonical class of `m` on a thread of its own at nice 19 (or queues it,
/// see [`defer_builds`]), unless `asked` (by variant slot) says it was started already.
fn build_once(
    asked: &'static std::sync::Mutex<Vec<(usize, Material)>>,
    variant: usize,
    m: Material,
    name: &str,
    build: fn(Material) -> bool,
) {
    let c = dama_egtb::solve::canonical(m);
    {
        let mut asked = asked.lock().unwrap_or_else(|e| e.into_inner());
        if asked.contains(&(variant, c)) {
            return;
        }
        asked.push((variant, c));
    }
    if DEFER.load(Ordering::Relaxed) {
        DEFERRED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((c, build));
        return;
    }
    let spawned = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            lower_this_threads_priority();
            if !build(c) {
                tracing::warn!("endgame table {c} not built");
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("endgame table {c} not built: {e}");
    }
}

/// Makes the calling thread yield to everything else on the machine (nice 19), so that a
/// background table build never slows a search or another program (threads it starts
/// inherit it). Best effort: where that fails, the build runs at normal priority, logged.
fn lower_this_threads_priority() {
    if !crate::lower_thread_priority(19) {
        tracing::debug!("the endgame table build runs at normal priority");
    }
}
