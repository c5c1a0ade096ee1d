//! The game of dama as the product plays it: one [`Model`] that the terminal game
//! (`dama play`), its plain-text mode and the browser game (`dama serve`, in `dama-web`)
//! render, each turning its own input into model calls.
//!
//! The model holds the game, the computer's level, what the player has selected and where
//! it may go, the message to show and the score; it knows nothing of terminals or HTTP, and
//! runs no search (a view runs the computer on a worker and hands its move back).
//!
//! ```
//! use dama_play::Model;
//! use dama_rules::{Position, Square, Variant};
//! use dama_search::Level;
//!
//! let mut model = Model::new(Variant::Italian, Position::start(), Level::Normal);
//! let sq = |n| Square::new(n).unwrap();
//! // A click on 22 selects the piece and shows where it may go.
//! assert_eq!(model.choose_square(sq(22)), None);
//! let targets: Vec<u8> = model.targets().iter().map(|s| s.number()).collect();
//! assert_eq!(targets, [18, 19]);
//! // A click on a target plays the move: now the computer is to move.
//! let played = model.choose_square(sq(18)).unwrap();
//! assert_eq!(played.to_string(), "22-18");
//! assert!(model.computer_to_move());
//! ```

mod model;
pub mod review;
pub mod view;

pub use model::{
    king_capture_refused, piece_moves, refusal, title, KingRefusal, Model, Opponent, PieceMoves,
    NO_PROGRESS_SHOWN,
};
