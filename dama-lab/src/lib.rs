//! The laboratory of dama: what made the engine of [`dama_search`] and measures it, kept
//! apart from the engine so that a program embedding the engine (the Python package, the
//! WebAssembly build, the Hub front end) does not compile it. Matches between players
//! ([`matches`](mod@matches)), the sequential probability ratio test that decides them ([`sprt`]),
//! self-play sample generation and the evaluation's fit ([`tune`]), the network's trainer
//! ([`train`]) and the opening book's builder ([`book`]). The `dama` command's `match`,
//! `tune`, `book` and `pdn stats` are thin layers over it.
//!
//! A tiny match, then an SPRT on synthetic results:
//!
//! ```
//! use dama_lab::matches::{play_match, LevelPlayer, MatchConfig, Player};
//! use dama_lab::sprt::{Hypothesis, Pentanomial, Sprt};
//! use dama_search::{Endgames, Level, Limits};
//!
//! // Novice against Novice, one opening played once with each colour (seeded: reproducible).
//! let novice = || -> Box<dyn Player> {
//!     Box::new(LevelPlayer::new(Level::Novice, Limits::default(), 1).with_endgames(Endgames::none()))
//! };
//! let config = MatchConfig { games: 2, parallel: 1, ..MatchConfig::default() };
//! let result = play_match(&novice, &novice, &config);
//! assert_eq!(result.total(), 2);
//! assert_eq!(result.games.len(), 2);
//!
//! // Is the first player at least 50 Elo stronger? Pairs of games (half-points of each
//! // game, 2 a win), as a stronger player would score them: won-drawn, drawn-drawn, won-won.
//! let test: Sprt = "elo0=0 elo1=50".parse()?;
//! let mut counts = Pentanomial::default();
//! let mut decided = None;
//! for (first, second) in [(2, 1), (1, 1), (2, 2)].into_iter().cycle().take(300) {
//!     counts.add(first, second);
//!     decided = test.decide(test.llr(&counts));
//!     if decided.is_some() {
//!         break;
//!     }
//! }
//! assert_eq!(decided, Some(Hypothesis::H1));
//! assert!(counts.pairs() < 300);
//! # Ok::<_, dama_lab::Error>(())
//! ```

#![warn(missing_docs)]

/// The README's example, run as a doctest so that it cannot drift from the crate.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub mod book;
pub mod matches;
pub mod sprt;
pub mod train;
pub mod tune;

/// Errors of this crate.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// A self-play sample file that cannot be read (see [`tune`]).
    #[error("bad sample file: {why}")]
    BadSamples {
        /// What is wrong, where, and what was expected.
        why: String,
    },
    /// A sequential probability ratio test that cannot be run (see [`sprt`]).
    #[error("bad SPRT \"{text}\": {why}")]
    BadSprt {
        /// The test as given (an excerpt if long).
        text: String,
        /// What is wrong, and what was expected.
        why: String,
    },
    /// An error of the engine's crate: a training checkpoint that cannot be used is a bad
    /// weights file ([`dama_search::Error::BadWeights`]).
    #[error(transparent)]
    Search(#[from] dama_search::Error),
}

/// `text` as messages quote it ([`dama_rules::quote`]: at most 60 characters, control
/// characters escaped), without the quotes, which the message has.
pub(crate) fn excerpt(text: &str) -> String {
    let quoted = dama_rules::quote(text).to_string();
    quoted[1..quoted.len() - 1].to_string()
}
