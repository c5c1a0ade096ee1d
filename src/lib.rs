//! dama: an engine for Italian draughts (dama italiana), Spanish and Czech draughts, with
//! English and Russian as extra variants.
//!
//! This facade re-exports the library crates:
//! [`rules`] (board, moves, notation, perft), [`search`] and [`protocol`].
//!
//! ```
//! use dama::rules::{perft::perft, variant::Italian, Position};
//! assert_eq!(perft::<Italian>(&Position::start(), 3), 302);
//! ```

#![warn(missing_docs)]

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub use dama_protocol as protocol;
pub use dama_rules as rules;
pub use dama_search as search;
