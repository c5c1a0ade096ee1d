//! Search for dama: iterative deepening alpha-beta with a transposition table, evaluation, time
//! management and five level profiles (Novice, Easy, Normal, Strong, Hard).
//!
//! Not written yet: this crate holds only its documentation until its issue is done. Nothing
//! here pretends to work.
//!
//! ```
//! // The rules it will search are ready:
//! assert_eq!(dama_rules::Position::start().legal_moves().len(), 7);
//! ```

#![warn(missing_docs)]

pub mod endgame;
