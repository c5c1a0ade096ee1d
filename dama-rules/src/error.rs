//! The errors of this crate.

use crate::explain::Illegal;

/// Everything that can go wrong reading or applying user input.
///
/// "Malformed" errors mean the text is not of the expected shape; "illegal" errors mean it is
/// well formed but not allowed in the position; "ambiguous" means it names several legal moves.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A square number outside 1..=32.
    #[error("square {got} is out of range: expected 1..=32")]
    SquareOutOfRange {
        /// The number given.
        got: u32,
    },
    /// A square that is not a number.
    #[error("\"{text}\" is not a square: expected a number 1..=32")]
    MalformedSquare {
        /// The text given.
        text: String,
    },
    /// A FEN string that cannot be read.
    #[error("bad FEN \"{fen}\": {why}")]
    MalformedFen {
        /// The whole FEN as given.
        fen: String,
        /// What is wrong, naming the offending item.
        why: String,
    },
    /// A Hub position string that cannot be read.
    #[error("bad Hub position \"{text}\": {why}")]
    MalformedHubPosition {
        /// The text as given.
        text: String,
        /// What is wrong.
        why: String,
    },
    /// A set of pieces that is not a position.
    #[error("invalid position: {why}")]
    InvalidPosition {
        /// What is wrong.
        why: String,
    },
    /// Text that is not a move at all.
    #[error("\"{text}\" is not a move: expected squares 1..=32 joined by '-' (quiet move) or 'x' (capture), like 22-18 or 27x20")]
    MalformedMove {
        /// The text given.
        text: String,
    },
    /// A well-formed move that is not legal here.
    #[error("move \"{text}\" is not legal here: {why}")]
    IllegalMove {
        /// The text or move given.
        text: String,
        /// Why it is not legal.
        why: Illegal,
    },
    /// A move text that fits several legal moves.
    #[error("move \"{text}\" is ambiguous: {count} legal moves match ({candidates}); give the captured squares or the landing squares")]
    AmbiguousMove {
        /// The text given.
        text: String,
        /// How many legal moves match.
        count: usize,
        /// The matching moves in Hub notation, space separated.
        candidates: String,
    },
    /// An unknown variant name.
    #[error("unknown variant \"{name}\": expected one of italian, spanish, czech, english, russian, brazilian")]
    UnknownVariant {
        /// The name given.
        name: String,
    },
    /// A move was asked of a finished game.
    #[error("the game is over: {outcome}")]
    GameOver {
        /// How it ended.
        outcome: crate::Outcome,
    },
}
