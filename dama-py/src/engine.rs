//! `Engine`: dama's search for Python, with the GIL released while it thinks.

use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Duration;

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

use dama_rules::{Game, Position, Variant};
use dama_search::{ChaCha8Rng, Level, Limits, SearchResult as RustResult, SeedableRng, Signals};

use crate::board::{Board, Move};

/// Adds the classes of this file to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add_class::<Score>()?;
    m.add_class::<SearchResult>()?;
    m.add_class::<Line>()?;
    m.add_function(wrap_pyfunction!(probe_endgame, m)?)?;
    Ok(())
}

/// A score for the side to move: hundredths of a man, or a win or loss in a known number of
/// plies. Scores compare as the engine ranks them (any win above any material score).
#[pyclass(module = "dama", frozen, eq, ord, hash, from_py_object)]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(dama_search::Score);

#[pymethods]
impl Score {
    /// The raw value: hundredths of a man for material scores (`35` is a third of a man
    /// up); wins and losses are near ±30000.
    #[getter]
    fn centis(&self) -> i32 {
        self.0 .0
    }

    /// The score in men (`1.0` = a man); wins and losses are ±100 less a hundredth per ply,
    /// the Hub protocol's convention.
    #[getter]
    fn men(&self) -> f64 {
        self.0.men()
    }

    /// For a forced win, the plies until the game ends; otherwise `None`.
    #[getter]
    fn win_in(&self) -> Option<u32> {
        self.0.is_win().then(|| self.0.plies_to_end()).flatten()
    }

    /// For a forced loss, the plies until the game ends; otherwise `None`.
    #[getter]
    fn loss_in(&self) -> Option<u32> {
        self.0.is_loss().then(|| self.0.plies_to_end()).flatten()
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Score('{}')", self.0)
    }
}

/// One line of an analysis: a root move, its score and its principal variation.
#[pyclass(module = "dama", frozen, get_all)]
#[derive(Clone)]
pub struct Line {
    /// The root move.
    r#move: Move,
    /// Its score for the side to move.
    score: Score,
    /// The principal variation, starting with the move.
    pv: Vec<Move>,
    /// The depth searched, in plies.
    depth: u32,
    /// Nodes searched by the whole analysis.
    nodes: u64,
}

#[pymethods]
impl Line {
    fn __repr__(&self) -> String {
        let pv: Vec<String> = self.pv.iter().map(|m| m.mv.to_string()).collect();
        format!(
            "Line(move='{}', score='{}', pv='{}', depth={})",
            self.r#move.mv,
            self.score.0,
            pv.join(" "),
            self.depth
        )
    }
}

/// What a search found.
#[pyclass(module = "dama", frozen, get_all)]
#[derive(Clone)]
pub struct SearchResult {
    /// The move to play; `None` only when there is no legal move or the game is over.
    best_move: Option<Move>,
    /// The expected reply, if the line goes that far.
    ponder: Option<Move>,
    /// The best move's score for the side to move.
    score: Score,
    /// The principal variation, starting with the best move.
    pv: Vec<Move>,
    /// The last completed depth, in plies (0 if stopped before depth 1 completed).
    depth: u32,
    /// The deepest ply reached in that iteration.
    seldepth: u32,
    /// Nodes searched, all threads.
    nodes: u64,
    /// Seconds spent.
    time: f64,
    /// The best lines, best first (one unless `Engine.analyse` asked for more).
    lines: Vec<Line>,
}

#[pymethods]
impl SearchResult {
    fn __repr__(&self) -> String {
        format!(
            "SearchResult(best_move={}, score='{}', depth={}, nodes={})",
            self.best_move
                .as_ref()
                .map_or("None".to_string(), |m| format!("'{}'", m.mv)),
            self.score.0,
            self.depth,
            self.nodes
        )
    }
}

/// Moves of a line, each with the position it is played from.
fn line_moves(variant: Variant, start: &Position, moves: &[dama_rules::Move]) -> Vec<Move> {
    let mut pos = *start;
    moves
        .iter()
        .map(|&m| {
            let wrapped = Move::new(m, pos, variant);
            pos.play_unchecked(m);
            wrapped
        })
        .collect()
}

fn result_of(game: &Game, r: &RustResult) -> SearchResult {
    let variant = game.variant();
    let pos = game.position();
    let pv = line_moves(variant, pos, &r.pv);
    let lines = r
        .lines
        .iter()
        .map(|l| Line {
            r#move: Move::new(l.mv, *pos, variant),
            score: Score(l.score),
            pv: line_moves(variant, pos, &l.pv),
            depth: r.depth,
            nodes: r.nodes,
        })
        .collect();
    SearchResult {
        best_move: r.best.map(|m| Move::new(m, *pos, variant)),
        ponder: pv.get(1).copied(),
        score: Score(r.score),
        pv,
        depth: r.depth,
        seldepth: r.seldepth,
        nodes: r.nodes,
        time: r.time.as_secs_f64(),
        lines,
    }
}

/// The most search threads, as `dama analyze --threads`.
const MAX_THREADS: i128 = 256;
/// The largest table that can be asked for, in MiB (its bytes fit a `usize`); one the
/// machine cannot give is a `MemoryError`.
const MAX_HASH_MB: i128 = (usize::MAX >> 20) as i128;

/// An optional int argument in `lo..=hi` (see `crate::int_arg`).
fn opt_int<T: TryFrom<i128>>(
    value: Option<&Bound<'_, PyAny>>,
    name: &str,
    lo: i128,
    hi: i128,
) -> PyResult<Option<T>> {
    value.map(|v| crate::int_arg(v, name, lo, hi)).transpose()
}

/// Seconds of `movetime=`: a number above 0 and at most a year, else a `ValueError` quoting
/// it (an int too large for a float included); not a number: PyO3's `TypeError`.
fn seconds(value: &Bound<'_, PyAny>) -> PyResult<Duration> {
    let max = Limits::MAX_TIME.as_secs();
    let bad = || {
        let shown = value.repr().map_or_else(|_| "?".into(), |r| r.to_string());
        let shown: String = shown.chars().take(40).collect();
        PyValueError::new_err(format!(
            "movetime={shown} is not a time: expected seconds above 0, at most {max} (a year)"
        ))
    };
    let secs = match value.extract::<f64>() {
        Ok(s) => s,
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(value.py()) => {
            return Err(bad())
        }
        Err(e) => return Err(e),
    };
    if !(secs.is_finite() && secs > 0.0 && secs <= max as f64) {
        return Err(bad());
    }
    // Finite, above 0 and at most a year: the conversion cannot fail.
    Ok(Duration::from_secs_f64(secs))
}

/// The limits of keyword arguments (`depth` 1..=120 plies, `movetime` seconds above 0,
/// `nodes` 1 or more); at least one unless `infinite`.
fn limits(
    depth: Option<&Bound<'_, PyAny>>,
    movetime: Option<&Bound<'_, PyAny>>,
    nodes: Option<&Bound<'_, PyAny>>,
    infinite: bool,
) -> PyResult<Limits> {
    let max_depth = i128::from(Limits::MAX_DEPTH);
    let mut l = Limits {
        depth: opt_int(depth, "depth", 1, max_depth)?,
        nodes: opt_int(nodes, "nodes", 1, i128::from(u64::MAX))?,
        ..Limits::default()
    };
    if let Some(value) = movetime {
        l = l.with_time(seconds(value)?);
    }
    if l.is_infinite() && !infinite {
        return Err(PyValueError::new_err(
            "no limit given: expected depth=, movetime= (seconds) or nodes=, or infinite=True \
             (then engine.stop() from another thread ends the search)",
        ));
    }
    Ok(l)
}

/// The search engine: a transposition table kept between searches, threads, and a stop
/// switch.
///
/// Every search releases the GIL, so other Python threads run meanwhile, and `stop()` from
/// any of them ends the running search, which then answers with its last complete depth.
/// Ctrl-C (`KeyboardInterrupt`, in a REPL or Jupyter's "interrupt") stops the search and
/// raises: a search with `infinite=True` ends that way too.
/// Searches of one engine run one at a time (a second waits for the first).
#[pyclass(module = "dama", frozen)]
pub struct Engine {
    inner: Mutex<dama_search::Engine>,
    signals: Signals,
}

/// How often a search running for Python looks for Ctrl-C (a pending signal).
const SIGNAL_POLL: Duration = Duration::from_millis(25);

impl Engine {
    /// Runs `f` on the engine with the GIL released, after clearing the stop switch.
    ///
    /// The search runs on a thread of its own while this one waits with the GIL released,
    /// taking it back every [`SIGNAL_POLL`] to run Python's signal handlers
    /// (`Python::check_signals`): Ctrl-C (or any handler that raises) stops the search, which
    /// is waited for, and the exception (`KeyboardInterrupt`) is raised in its place.
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut dama_search::Engine, &Signals) -> T + Send,
    ) -> PyResult<T> {
        let signals = &self.signals;
        let inner = &self.inner;
        let done = &Done::default();
        std::thread::scope(|scope| {
            let search = scope.spawn(move || {
                // Told even when `f` panics (the guard's drop), so the wait below ends.
                let _told = done.guard();
                let mut engine = inner.lock().unwrap_or_else(|e| e.into_inner());
                signals.stop.store(false, Ordering::SeqCst);
                f(&mut engine, signals)
            });
            let finished = |wait: Duration| done.wait(wait);
            while !py.detach(|| finished(SIGNAL_POLL)) {
                if let Err(interrupt) = py.check_signals() {
                    // The switch is set until the search has ended: a search that had not
                    // yet cleared it when the signal came clears it first, then sees it.
                    py.detach(|| {
                        signals.stop.store(true, Ordering::SeqCst);
                        while !finished(Duration::from_millis(5)) {
                            signals.stop.store(true, Ordering::SeqCst);
                        }
                    });
                    let _ = join(search);
                    return Err(interrupt);
                }
            }
            Ok(join(search))
        })
    }
}

/// Whether a search thread has finished, and a wait for it.
#[derive(Default)]
struct Done {
    finished: Mutex<bool>,
    told: std::sync::Condvar,
}

/// Tells a [`Done`] when dropped.
struct Told<'a>(&'a Done);

impl Drop for Told<'_> {
    fn drop(&mut self) {
        *self.0.finished.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.0.told.notify_all();
    }
}

impl Done {
    fn guard(&self) -> Told<'_> {
        Told(self)
    }

    /// Whether the search has finished, waiting at most `wait` for it.
    fn wait(&self, wait: Duration) -> bool {
        let finished = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        let (finished, _) = self
            .told
            .wait_timeout_while(finished, wait, |f| !*f)
            .unwrap_or_else(|e| e.into_inner());
        *finished
    }
}

/// The value of a finished search thread; a panic goes on unwinding here (PyO3 turns it into
/// `PanicException`).
fn join<T>(search: std::thread::ScopedJoinHandle<'_, T>) -> T {
    search
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

#[pymethods]
impl Engine {
    /// An engine with `threads` search threads (1..=256, Lazy SMP) and a `hash_mb` MiB
    /// table (1 or more). `ValueError` for a number out of range, `MemoryError` when the
    /// table cannot be had.
    #[new]
    /// `None` is the default: 1 thread, 64 MiB.
    #[pyo3(signature = (threads=None, hash_mb=None))]
    fn py_new(
        threads: Option<&Bound<'_, PyAny>>,
        hash_mb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Engine> {
        let threads: usize = opt_int(threads, "threads", 1, MAX_THREADS)?.unwrap_or(1);
        let hash_mb: usize = opt_int(hash_mb, "hash_mb", 1, MAX_HASH_MB)?.unwrap_or(64);
        let mut engine = dama_search::Engine::with_hash(1);
        engine
            .try_set_hash(hash_mb)
            .map_err(|e| PyMemoryError::new_err(e.to_string()))?;
        engine.set_threads(threads);
        Ok(Engine {
            inner: Mutex::new(engine),
            signals: Signals::default(),
        })
    }

    /// Searches `board` for the best move within the limits given (any of `depth` plies,
    /// 1..=120, `movetime` seconds above 0, `nodes` 1 or more; the first reached ends the
    /// search), or until `stop()` with `infinite=True`. `ValueError` for a limit out of
    /// range, or none given.
    #[pyo3(signature = (board, *, depth=None, movetime=None, nodes=None, infinite=false))]
    fn search(
        &self,
        py: Python<'_>,
        board: PyRef<'_, Board>,
        depth: Option<&Bound<'_, PyAny>>,
        movetime: Option<&Bound<'_, PyAny>>,
        nodes: Option<&Bound<'_, PyAny>>,
        infinite: bool,
    ) -> PyResult<SearchResult> {
        let limits = limits(depth, movetime, nodes, infinite)?;
        let game = board.game.clone();
        drop(board);
        let r = self.run(py, |e, s| {
            e.set_multipv(1);
            e.search_with(&game, &limits, s, &mut |_| {})
        })?;
        Ok(result_of(&game, &r))
    }

    /// The `multipv` best moves of `board` (1 or more), best first, each scored exactly,
    /// within the limits given (as `search`); `None` is the default, 3.
    #[pyo3(signature = (board, multipv=None, *, depth=None, movetime=None, nodes=None, infinite=false))]
    #[allow(clippy::too_many_arguments)]
    fn analyse(
        &self,
        py: Python<'_>,
        board: PyRef<'_, Board>,
        multipv: Option<&Bound<'_, PyAny>>,
        depth: Option<&Bound<'_, PyAny>>,
        movetime: Option<&Bound<'_, PyAny>>,
        nodes: Option<&Bound<'_, PyAny>>,
        infinite: bool,
    ) -> PyResult<Vec<Line>> {
        let multipv: usize = opt_int(multipv, "multipv", 1, i128::from(u32::MAX))?.unwrap_or(3);
        let limits = limits(depth, movetime, nodes, infinite)?;
        let game = board.game.clone();
        drop(board);
        let r = self.run(py, |e, s| {
            e.set_multipv(multipv);
            let r = e.search_with(&game, &limits, s, &mut |_| {});
            e.set_multipv(1);
            r
        })?;
        Ok(result_of(&game, &r).lines)
    }

    /// The move a level plays in `board`: `"novice"`, `"easy"`, `"normal"`, `"strong"`,
    /// `"hard"` (or 1..5). The weaker levels choose among almost-best moves with a generator
    /// seeded by `seed` (the same seed, the same choice; a random one when `None`). `movetime`
    /// (seconds) caps the level's budget; Hard thinks 1 s when not given one. Returns `None`
    /// when the game is over. `seed` is 0..2**64; `ValueError` for a value out of range.
    #[pyo3(signature = (board, level="normal", *, seed=None, movetime=None))]
    fn play(
        &self,
        py: Python<'_>,
        board: PyRef<'_, Board>,
        level: &str,
        seed: Option<&Bound<'_, PyAny>>,
        movetime: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<Move>> {
        let level: Level = level
            .parse()
            .map_err(|e: dama_search::Error| PyValueError::new_err(e.to_string()))?;
        let mut limits = Limits::default();
        if movetime.is_some() {
            limits = self::limits(None, movetime, None, false)?;
        }
        let seed = opt_int(seed, "seed", 0, i128::from(u64::MAX))?.unwrap_or_else(random_seed);
        let game = board.game.clone();
        drop(board);
        if game.outcome().is_some() {
            return Ok(None);
        }
        let r = self.run(py, |e, s| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            e.play_level(&game, level, &limits, s, &mut rng)
        })?;
        Ok(r.best
            .map(|m| Move::new(m, *game.position(), game.variant())))
    }

    /// Ends the running search (from any thread); it answers with its last complete depth.
    /// Does nothing when no search runs.
    fn stop(&self) {
        self.signals.stop.store(true, Ordering::SeqCst);
    }

    /// Forgets what the table learnt (a new game).
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        self.run(py, |e, _| e.clear())
    }
}

/// A seed from the clock and the process, for `play` without a seed.
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

/// The endgame tables `probe_endgame` reads: `dama egtb build`'s files where they are
/// (`$DAMA_EGTB`, else `~/.cache/dama/egtb`), then the small tables built in memory.
fn endgames() -> &'static dama_search::Endgames {
    static TABLES: std::sync::OnceLock<dama_search::Endgames> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| dama_search::Endgames::from_dir(&dama_search::egtb::default_dir(), false))
}

/// The value of `board`'s position in dama's endgame tables, for the side to move:
/// `("win", plies)` or `("loss", plies)` with the plies to the next conversion (a capture or
/// a man move) under best play, or `("draw", None)`; `None` when no table holds the position.
/// The files of `dama egtb build` (`$DAMA_EGTB`, else `~/.cache/dama/egtb`) cover what they
/// were built for; without them, the tables built in memory on first use cover up to four
/// pieces, and five when all are kings. Values are those of the game without the 40-move
/// rule. The engine's search uses the same tables. The GIL is released.
#[pyfunction]
fn probe_endgame(py: Python<'_>, board: PyRef<'_, Board>) -> Option<(&'static str, Option<u32>)> {
    use dama_egtb::Value;
    let pos = *board.position();
    let variant = board.game.variant();
    drop(board);
    let value =
        py.detach(move || dama_rules::with_rules!(variant, R => endgames().probe::<R>(&pos)))?;
    Some(match value {
        Value::Win(d) => ("win", Some(d)),
        Value::Loss(d) => ("loss", Some(d)),
        Value::Draw => ("draw", None),
    })
}
