//! The rules of Italian draughts (dama italiana) and its relatives, built for speed.
//!
//! Board, bitboard move generation, capture sequences with the Italian priority tiers,
//! promotion ending a capture, the 40-move draw, game state, notation and perft.
//!
//! ```
//! use dama_rules::{Game, Position};
//!
//! let mut game = Game::new();
//! game.play_text("22-18")?;
//! game.play_text("11-14")?;
//! // Black's 11-14 offered a piece: White must capture it (Hub text lists the captured 14).
//! let moves: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
//! assert_eq!(moves, ["18x11x14"]);
//! // A quiet move is refused and explained; nothing changes.
//! let err = game.play_text("21-17").unwrap_err();
//! assert!(err.to_string().contains("capture is compulsory"));
//! assert_eq!(game.moves().len(), 2);
//! # Ok::<_, dama_rules::Error>(())
//! ```
//!
//! Variants are types implementing [`Rules`]; a [`Variant`] value picks one at the top
//! (see [`with_rules!`]).
//!
//! Programs usually depend on the `dama` crate, which re-exports this one as `dama::rules`:
//! there, write `dama::rules::Game` where the examples of this crate write
//! `dama_rules::Game`.

#![warn(missing_docs)]
// Safe Rust only: the bitboards and the generator need no `unsafe` (the workspace denies it;
// here it cannot be allowed back).
#![forbid(unsafe_code)]

mod bitboard;
mod capture;
mod color;
mod error;
pub mod explain;
mod game;
mod movegen;
mod moves;
pub mod notation;
pub mod perft;
mod piece;
mod position;
mod quote;
mod setup;
mod square;
pub mod variant;
mod zobrist;

pub use bitboard::{Bitboard, Squares};
pub use color::{ByColor, Color};
pub use error::Error;
pub use explain::Illegal;
pub use game::{DrawReason, DrawRules, Game, Outcome};
pub use moves::{HubMove, Move, MoveList, MAX_MOVES};
pub use piece::{Piece, Role};
pub use position::Position;
pub use quote::{quote, Quoted, EXCERPT_CHARS};
pub use setup::Setup;
pub use square::Square;
pub use variant::{Rules, Variant};
