//! The positions of `dama bench`: a fixed set searched to a fixed depth by a fresh engine
//! each, so that the total of their nodes (the signature) changes exactly when the search
//! or the evaluation does. Every front end that benches (the `dama` command, the WebAssembly
//! build) searches these, so that their signatures can be compared.
//!
//! ```
//! use dama_rules::{notation::fen, Game, Variant};
//! use dama_search::{bench::POSITIONS, Engine, Limits};
//! let game = Game::from_position(Variant::Italian, fen::parse(POSITIONS[7])?);
//! assert!(Engine::with_hash(16).search(&game, &Limits::depth(4)).nodes > 0);
//! # Ok::<(), dama_rules::Error>(())
//! ```

/// The start, openings, middle games with captures about, endings (Italian, FEN).
pub const POSITIONS: [&str; 8] = [
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "W:W17,18,19,21,24,25,26,27,28,30,31:B2,3,4,5,6,7,9,10,11,12,14",
    "W:W18,19,20,22,25,26,27,29,30:B1,3,5,6,9,10,11,12,15",
    "B:W14,19,22,23,25,26,28,29:B2,5,6,7,9,12,16,17",
    "W:W19,23,26,27,30:B5,9,10,13,16",
    "W:WK14,22,27:B6,K25,16",
    "W:WK5,K30:BK12",
];
