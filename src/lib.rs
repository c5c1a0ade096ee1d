//! dama: an engine for Italian draughts (dama italiana), Spanish and Czech draughts, with
//! English checkers, Russian and Brazilian draughts as extra variants.
//!
//! This crate is the way in: depend on `dama` and reach everything through its modules,
//! which re-export the workspace's library crates:
//!
//! - [`rules`]: board, moves of every variant, capture priorities, explanations of illegal
//!   moves, game state, FEN/Hub/PDN notation, perft (the `dama-rules` crate);
//! - [`search`]: evaluation, iterative-deepening alpha-beta, levels, time management and
//!   engine matches (the [`dama-search`](dama_search) crate);
//! - [`protocol`]: the Hub protocol for GUIs, the engine side and a client for other Hub
//!   engines (the [`dama-protocol`](dama_protocol) crate).
//!
//! The command-line program `dama` (play, analyse, perft, matches, PDN tools, the browser game)
//! is the `dama-cli` package: `cargo install --path dama-cli` from a clone.
//!
//! # A game
//!
//! ```
//! use dama::rules::{Error, Game, Outcome};
//!
//! let mut game = Game::new();
//! game.play_text("22-18")?;
//! game.play_text("11-14")?;
//! // A capture is compulsory; a quiet move is refused with the reason, nothing changes.
//! let err = game.play_text("21-17").unwrap_err();
//! assert!(err.to_string().contains("capture is compulsory"), "{err}");
//! // Legal moves in Hub notation (captured squares listed) or PDN (start and end).
//! let m = game.legal_moves()[0];
//! assert_eq!(m.to_string(), "18x11x14");
//! assert_eq!(game.pdn_move(m)?, "18x11");
//! game.play(m)?;
//! // Take it back.
//! assert_eq!(game.undo(), Some(m));
//! assert_eq!(game.outcome(), None::<Outcome>);
//! # Ok::<_, Error>(())
//! ```
//!
//! # Positions, variants and perft
//!
//! ```
//! use dama::rules::notation::fen;
//! use dama::rules::perft::perft;
//! use dama::rules::variant::{Italian, Spanish};
//! use dama::rules::{Game, Position, Variant};
//!
//! assert_eq!(perft::<Italian>(&Position::start(), 3), 302);
//! // A man facing a king: Italian men may not take it, Spanish men may.
//! let pos = fen::parse("W:W22:BK18")?;
//! assert_eq!(pos.legal_moves_for(Variant::Italian)[0].to_string(), "22-19");
//! assert_eq!(pos.moves::<Spanish>()[0].to_string(), "22x13x18");
//! // A variant chosen at run time: a game, or the rules type for the generic functions.
//! let variant: Variant = "spanish".parse()?;
//! let game = Game::from_position(variant, pos);
//! assert_eq!(game.legal_moves().len(), 1);
//! let nodes = dama::rules::with_rules!(variant, R => perft::<R>(&pos, 1));
//! assert_eq!(nodes, 1);
//! # Ok::<_, dama::rules::Error>(())
//! ```
//!
//! # Why a move is not legal
//!
//! ```
//! use dama::rules::{notation::fen, variant::Italian, Game, Variant};
//!
//! // The man on 22 could take 18, but the king on 30 takes two pieces.
//! let pos = fen::parse("W:W22,K30:B18,K26,17")?;
//! let why = pos.explain_square::<Italian>("22".parse()?).unwrap_err();
//! assert!(why.to_string().contains("loses to 30x14x18x26 by tier 1"), "{why}");
//! let mut game = Game::from_position(Variant::Italian, pos);
//! let err = game.play_text("22x13").unwrap_err();
//! assert!(err.to_string().contains("by tier 1"), "{err}");
//! # Ok::<_, dama::rules::Error>(())
//! ```
//!
//! # PDN game files
//!
//! ```
//! use dama::rules::notation::pdn;
//! use dama::rules::Variant;
//!
//! let text = "[White \"Rossi\"]\n1. 22-19 10-14 2. 19x10 5x14 *\n";
//! for game in pdn::Reader::new(text.as_bytes(), Variant::Italian) {
//!     let game = game?;
//!     assert_eq!(game.tag("White"), Some("Rossi"));
//!     assert_eq!(game.moves.len(), 4);
//! }
//! # Ok::<_, dama::rules::Error>(())
//! ```
//!
//! # The engine's move
//!
//! ```
//! use dama::rules::{notation::fen, Game, Variant};
//! use dama::search::{Engine, Limits};
//!
//! // From a FEN to the best move (and its score, line, depth and nodes in `result`).
//! let game = Game::from_position(Variant::Italian, fen::parse("W:W22,29:B18,9")?);
//! let result = Engine::new().search(&game, &Limits::depth(8));
//! assert_eq!(result.best.map(|m| m.to_string()).as_deref(), Some("22x13x18"));
//! # Ok::<_, dama::rules::Error>(())
//! ```

#![warn(missing_docs)]
// Safe Rust only (the workspace denies `unsafe`; here it cannot be allowed back).
#![forbid(unsafe_code)]

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The rules of Italian draughts and its relatives: everything of the [`dama_rules`] crate.
///
/// Its items are documented in that crate, whose examples are written for the crate itself:
/// where they say `dama_rules::`, a user of `dama` writes `dama::rules::`
/// (`dama::rules::notation::fen`, `dama::rules::variant::Italian`).
///
/// Re-exported inside a module rather than as a renamed crate, so that the compiler's
/// messages name its types by these paths too (not `dama::dama_rules::variant::Italian`).
pub mod rules {
    #[doc(no_inline)]
    pub use dama_rules::*;
}

/// The search: everything of the [`dama_search`] crate (the engine, its limits, levels and
/// matches).
pub mod search {
    #[doc(no_inline)]
    pub use dama_search::*;
}

/// The Hub protocol: everything of the [`dama_protocol`] crate (the engine's controller loop
/// and a client for external Hub engines).
pub mod protocol {
    #[doc(no_inline)]
    pub use dama_protocol::*;
}
