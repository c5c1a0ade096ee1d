//! The engine of dama: iterative deepening principal-variation alpha-beta with a
//! transposition table, an evaluation per variant (hand-set, fitted patterns, or the
//! network's inference), time management, multi-PV, Lazy-SMP threads, the five levels of the
//! original game (Novice, Easy, Normal, Strong, Hard), the opening book read and played from,
//! and the endgame tables probed. It is what a program embedding the engine needs (the Hub
//! front end, the game, the Python package, the WebAssembly build), and nothing else: the
//! laboratory that made and measures it (matches, the SPRT, self-play samples, tuning,
//! training, building the book) is the crate `dama-lab`, which depends on this one.
//!
//! From a FEN to a best move:
//!
//! ```
//! use dama_rules::{notation::fen, Game, Variant};
//! use dama_search::{Engine, Limits};
//!
//! let game = Game::from_position(Variant::Italian, fen::parse("W:W22,29:B18,9")?);
//! let best = Engine::new().search(&game, &Limits::depth(8)).best.unwrap();
//! assert_eq!(best.to_string(), "22x13x18");
//! # Ok::<_, dama_rules::Error>(())
//! ```
//!
//! The search never prints: it reports progress through a callback ([`Engine::search_with`])
//! and is stopped through shared flags ([`Signals`]). Levels are data ([`PROFILES`]); a
//! level's move is chosen by [`Engine::play_level`], reproducibly for a given seed.

#![warn(missing_docs)]

/// The README's example, run as a doctest so that it cannot drift from the crate.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

mod alphabeta;
pub mod bench;
pub mod book;
mod control;
pub mod egtb;
pub mod eval;
mod iterate;
mod level;
mod limits;
pub mod nnue;
mod ordering;
pub mod pattern;
mod score;
mod time;
mod tt;
pub mod weights;

use std::sync::Arc;
use std::time::Duration;

use dama_rules::{Game, Move};

pub use book::Book;
pub use control::{Knobs, Signals};
pub use egtb::Endgames;
pub use level::{Level, LevelProfile, PROFILES};
pub use limits::{Clock, Limits, TimeControl};
pub use score::Score;
pub use time::{set_host_clock, Moment};
pub use tt::Table;

/// Raises the calling thread's nice value by `by` (a lower scheduling priority, at most nice
/// 19), and says whether it could. On Linux a thread's nice value is its own (`who = 0` of
/// `setpriority` names the calling thread) and threads it starts inherit it; an unprivileged
/// thread cannot take it back. Elsewhere the value belongs to the whole process, so nothing is
/// changed and the answer is `false`.
#[doc(hidden)]
pub fn lower_thread_priority(by: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        #[allow(unsafe_code)]
        // SAFETY: getpriority and setpriority read and write a scheduling value only; no
        // memory is passed. getpriority's -1 is also an error value: the set is clamped anyway.
        let done = unsafe {
            let now = libc::getpriority(libc::PRIO_PROCESS, 0);
            libc::setpriority(libc::PRIO_PROCESS, 0, (now + by).min(19)) == 0
        };
        done
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = by;
        false
    }
}

/// The trait that gives [`ChaCha8Rng::seed_from_u64`].
pub use rand::SeedableRng;
/// The seeded generator the levels choose with, re-exported so that embedders need not
/// depend on `rand_chacha` themselves (`ChaCha8Rng::seed_from_u64(seed)`).
pub use rand_chacha::ChaCha8Rng;

/// Errors of this crate.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// A level name or number that is not one of the five.
    #[error("unknown level \"{name}\": expected novice, easy, normal, strong, hard or 1..5")]
    UnknownLevel {
        /// The text given (an excerpt if long).
        name: String,
    },
    /// A transposition table the machine cannot give memory for.
    #[error(
        "cannot allocate a {mib} MiB hash table: expected a size this machine's memory allows"
    )]
    HashTooLarge {
        /// The size asked for, in MiB.
        mib: usize,
    },
    /// An evaluation weights file that cannot be used (see [`weights`]).
    #[error("bad weights file: {why}")]
    BadWeights {
        /// What is wrong, and what was expected.
        why: String,
    },
}

/// At most 60 characters of `text` with control characters escaped, for error messages.
pub(crate) fn excerpt(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(60)
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    if text.chars().nth(60).is_some() {
        out.push('…');
    }
    out
}

/// Progress of a search, reported after each completed iteration (and multi-PV line).
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// Nominal depth of the iteration, in plies.
    pub depth: u32,
    /// Deepest ply reached (extensions and capture sequences included).
    pub seldepth: u32,
    /// Which line this is, 1 = best (see [`Engine::set_multipv`]).
    pub multipv: usize,
    /// The line's score for the side to move.
    pub score: Score,
    /// Nodes searched so far, all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation, starting with the root move.
    pub pv: Vec<Move>,
}

/// A root move with its score and line.
#[derive(Clone, Debug, PartialEq)]
pub struct RootLine {
    /// The move.
    pub mv: Move,
    /// Its score for the side to move.
    pub score: Score,
    /// Its principal variation, starting with the move.
    pub pv: Vec<Move>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play; `None` only when there is no legal move or the game is over.
    pub best: Option<Move>,
    /// The expected reply, if the line goes that far.
    pub ponder: Option<Move>,
    /// The score of the best move.
    pub score: Score,
    /// The last completed depth (0 if stopped before depth 1 completed).
    pub depth: u32,
    /// Deepest ply reached in that iteration.
    pub seldepth: u32,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// Nodes searched, all threads.
    pub nodes: u64,
    /// Time spent.
    pub time: Duration,
    /// The best lines, best first (as many as the multi-PV setting asks for).
    pub lines: Vec<RootLine>,
}

impl SearchResult {
    /// The result of a move played from the opening book.
    pub fn book(line: RootLine) -> SearchResult {
        SearchResult {
            best: Some(line.mv),
            score: line.score,
            pv: line.pv.clone(),
            lines: vec![line],
            ..SearchResult::none(Duration::ZERO)
        }
    }

    fn none(time: Duration) -> SearchResult {
        SearchResult {
            best: None,
            ponder: None,
            score: Score::DRAW,
            depth: 0,
            seldepth: 0,
            pv: Vec::new(),
            nodes: 0,
            time,
            lines: Vec::new(),
        }
    }
}

/// A search engine: the transposition table and the settings, kept between searches.
#[derive(Debug)]
pub struct Engine {
    tt: Table,
    threads: usize,
    multipv: usize,
    knobs: Knobs,
    endgames: Endgames,
    book: Option<Arc<Book>>,
    book_margin: i32,
    /// Weights read from a file, in place of the built-in ones.
    weights: Option<Arc<weights::Weights>>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    /// Default size of the transposition table, in MiB.
    pub const DEFAULT_HASH_MIB: usize = 32;

    /// An engine with a 32 MiB table, one thread and one line.
    pub fn new() -> Engine {
        Engine::with_hash(Engine::DEFAULT_HASH_MIB)
    }

    /// An engine with a table of `mib` MiB.
    pub fn with_hash(mib: usize) -> Engine {
        Engine {
            tt: Table::new(mib),
            threads: 1,
            multipv: 1,
            knobs: Knobs::default(),
            endgames: Endgames::memory_only(),
            book: Some(Book::embedded()),
            book_margin: book::DEFAULT_MARGIN,
            weights: None,
        }
    }

    /// Resizes the transposition table to `mib` MiB (its contents are lost).
    ///
    /// # Panics
    /// When the memory cannot be had (the process aborts); see [`Engine::try_set_hash`].
    pub fn set_hash(&mut self, mib: usize) {
        self.tt = Table::new(mib);
    }

    /// Resizes the transposition table to `mib` MiB, or leaves it as it was when that much
    /// memory cannot be had.
    ///
    /// # Errors
    /// [`Error::HashTooLarge`] quoting the size asked for.
    pub fn try_set_hash(&mut self, mib: usize) -> Result<(), Error> {
        self.tt = Table::try_new(mib).ok_or(Error::HashTooLarge { mib })?;
        Ok(())
    }

    /// Bytes used by the transposition table.
    pub fn hash_bytes(&self) -> usize {
        self.tt.bytes()
    }

    /// Forgets everything learnt (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// Search threads (Lazy SMP), 1 by default.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, 256);
    }

    /// How many best root moves to score exactly and report (1 by default).
    pub fn set_multipv(&mut self, lines: usize) {
        self.multipv = lines.max(1);
    }

    /// The endgame tables the search probes ([`Endgames::memory_only`] by default: small
    /// tables built in memory; [`Endgames::from_dir`] reads `dama egtb build`'s files too).
    pub fn set_endgames(&mut self, endgames: Endgames) {
        self.endgames = endgames;
    }

    /// The endgame tables in use.
    pub fn endgames(&self) -> &Endgames {
        &self.endgames
    }

    /// The opening book the levels play from ([`Book::embedded`] by default; `None`: no
    /// book). Only [`Engine::play_level`] uses it, as [`book::level_margin`] says; a plain
    /// search never does.
    pub fn set_book(&mut self, book: Option<Arc<Book>>) {
        self.book = book;
    }

    /// The opening book in use, if any.
    pub fn book(&self) -> Option<&Arc<Book>> {
        self.book.as_ref()
    }

    /// The margin Hard and Strong choose book moves within, in hundredths of a man
    /// ([`book::DEFAULT_MARGIN`] by default; 0: always the best book move).
    pub fn set_book_margin(&mut self, margin: i32) {
        self.book_margin = margin.max(0);
    }

    /// The book move `level` plays in `game`, drawn from `rng` among those within its
    /// margin; `None` out of the book, without a book, or for a level that plays none.
    ///
    /// ```
    /// use dama_rules::Game;
    /// use dama_search::{ChaCha8Rng, Engine, Level, SeedableRng};
    /// let engine = Engine::new();
    /// let mut rng = ChaCha8Rng::seed_from_u64(1);
    /// let line = engine.book_move(&Game::new(), Level::Hard, &mut rng).expect("in the book");
    /// assert!(Game::new().legal_moves().contains(&line.mv));
    /// assert!(engine.book_move(&Game::new(), Level::Novice, &mut rng).is_none());
    /// ```
    pub fn book_move(&self, game: &Game, level: Level, rng: &mut ChaCha8Rng) -> Option<RootLine> {
        let margin = book::level_margin(level, self.book_margin)?;
        let m = self.book.as_ref()?.choose(game, margin, rng)?;
        Some(RootLine {
            mv: m.mv,
            score: m.score,
            pv: vec![m.mv],
        })
    }

    /// Sets the search feature switches (for matches comparing features).
    #[doc(hidden)]
    pub fn set_knobs(&mut self, knobs: Knobs) {
        self.knobs = knobs;
    }

    /// Sets the contempt, in hundredths of a man (see [`Knobs::contempt`]): how much less
    /// than even a draw is worth to the side the engine plays. 0, the default, scores a draw
    /// as even.
    pub fn set_contempt(&mut self, contempt: u8) {
        self.knobs.contempt = contempt;
    }

    /// Evaluates with `weights` (a file `dama tune fit` wrote, read by
    /// [`Weights::read`](weights::Weights::read)) instead of the variant's built-in weights;
    /// `None` goes back to those. While weights are set, the knobs that pick a built-in table
    /// (`hand`, `classic`, `patterns`) do nothing. The transposition table is cleared: its
    /// scores were of the other weights.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dama_rules::{Game, Variant};
    /// use dama_search::{weights, Engine, Limits};
    ///
    /// let mut engine = Engine::new();
    /// engine.set_weights(Some(Arc::new(weights::hand_set(Variant::Italian).clone())));
    /// let game = Game::new();
    /// assert!(engine.search(&game, &Limits::depth(4)).best.is_some());
    /// ```
    pub fn set_weights(&mut self, weights: Option<Arc<weights::Weights>>) {
        self.weights = weights;
        self.tt.clear();
    }

    /// Searches `game` under `limits` and returns the best move.
    pub fn search(&mut self, game: &Game, limits: &Limits) -> SearchResult {
        self.search_with(game, limits, &Signals::default(), &mut |_| {})
    }

    /// Searches `game` under `limits`, reporting each completed iteration to `on_info` and
    /// stopping when `signals` say so.
    pub fn search_with(
        &mut self,
        game: &Game,
        limits: &Limits,
        signals: &Signals,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        self.run(game, limits, signals, self.multipv, false, on_info)
    }

    /// [`Engine::search_with`] for analysis: a position with a single legal move is searched
    /// to `limits` like any other, where a game search plays it at once (at depth 1, with a
    /// shallow score), since the player has no choice to make.
    ///
    /// ```
    /// use dama_rules::{notation::fen, Game, Variant};
    /// use dama_search::{Engine, Limits, Signals};
    /// // Black has one legal move, 13x22.
    /// let pos = fen::parse("B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,11,12,13")?;
    /// let game = Game::from_position(Variant::Italian, pos);
    /// let mut engine = Engine::new();
    /// let played = engine.search(&game, &Limits::depth(6));
    /// assert_eq!(played.depth, 1);
    /// let analysed = engine.analyze_with(&game, &Limits::depth(6), &Signals::default(), &mut |_| {});
    /// assert_eq!(analysed.depth, 6);
    /// assert_eq!(analysed.best, played.best);
    /// # Ok::<(), dama_rules::Error>(())
    /// ```
    pub fn analyze_with(
        &mut self,
        game: &Game,
        limits: &Limits,
        signals: &Signals,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        self.run(game, limits, signals, self.multipv, true, on_info)
    }

    fn run(
        &mut self,
        game: &Game,
        limits: &Limits,
        signals: &Signals,
        multipv: usize,
        search_forced: bool,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let job = iterate::Job {
            game,
            limits,
            signals,
            threads: self.threads,
            multipv,
            knobs: self.knobs,
            search_forced,
            endgames: &self.endgames,
            weights: self.weights.as_deref(),
        };
        let tt = &self.tt;
        dama_rules::with_rules!(game.variant(), R => iterate::run::<R>(tt, &job, on_info))
    }

    /// Chooses `level`'s move in `game`: the level's budget (capped further by `limits`, which
    /// for Hard is the time it is given; with no limit at all, Hard thinks for
    /// [`Level::DEFAULT_MOVE_TIME`]), then, for the levels with a margin, a seeded choice
    /// among moves almost as good as the best. The chosen move is `best` of the result.
    ///
    /// In a position of the opening book a level that plays from it answers at once with
    /// a book move ([`Engine::book_move`]): the result has depth 0, no nodes, and the move's
    /// book value as its score.
    pub fn play_level(
        &mut self,
        game: &Game,
        level: Level,
        limits: &Limits,
        signals: &Signals,
        rng: &mut ChaCha8Rng,
    ) -> SearchResult {
        self.play_level_with(game, level, limits, signals, rng, &mut |_| {})
    }

    /// [`Engine::play_level`], reporting each completed iteration to `on_info` (for the
    /// levels with a margin, every root move is a line of its own).
    pub fn play_level_with(
        &mut self,
        game: &Game,
        level: Level,
        limits: &Limits,
        signals: &Signals,
        rng: &mut ChaCha8Rng,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        if let Some(line) = self.book_move(game, level, rng) {
            return SearchResult::book(line);
        }
        let profile = level.profile();
        let mut limits = Limits {
            depth: min_opt(profile.depth, limits.depth),
            nodes: min_opt(profile.nodes, limits.nodes),
            time: limits.time,
        };
        if limits.is_infinite() {
            limits.time = TimeControl::MoveTime(Level::DEFAULT_MOVE_TIME);
        }
        // An ending the tables play (a win or a loss they cover): every level plays their
        // move, which a level's margin would only spoil (a random choice among table wins
        // can walk in circles).
        let lines = if profile.margin > 0 && !self.tables_play(game) {
            usize::MAX
        } else {
            1
        };
        let mut result = self.run(game, &limits, signals, lines, false, on_info);
        let i = level::choose(&result.lines, &profile, rng);
        if let Some(line) = result.lines.get(i).cloned() {
            result.best = Some(line.mv);
            result.ponder = line.pv.get(1).copied();
            result.score = line.score;
            result.pv = line.pv;
        }
        result
    }
}

impl Engine {
    /// Whether the root of `game` is played from the tables (see
    /// [`Endgames::root_play`]); never waits for a table to be built.
    fn tables_play(&self, game: &Game) -> bool {
        let endgames = self.endgames.clone().never_waiting();
        let limit = game.variant().draw_rules().no_progress_plies;
        dama_rules::with_rules!(game.variant(), R => endgames
            .root_play::<R>(game.position(), game.keys(), game.quiet_plies(), limit)
            .is_some())
    }
}

fn min_opt<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
