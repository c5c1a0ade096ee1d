//! The errors of this crate.
//!
//! Input is quoted through [`quote`]: at most [`EXCERPT_CHARS`](crate::EXCERPT_CHARS)
//! characters, control characters escaped.

use crate::explain::Illegal;
use crate::quote;

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
    #[error("{} is not a square: expected a number 1..=32", quote(.text))]
    MalformedSquare {
        /// The text given.
        text: String,
    },
    /// A FEN string that cannot be read.
    #[error("bad FEN {}: {why}", quote(.fen))]
    MalformedFen {
        /// The whole FEN as given.
        fen: String,
        /// What is wrong, naming the offending item.
        why: String,
    },
    /// A Hub position string that cannot be read.
    #[error("bad Hub position {}: {why}", quote(.text))]
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
    #[error("{} is not a move: expected squares 1..=32 joined by '-' (quiet move) or 'x' (capture), like 22-18 or 27x20", quote(.text))]
    MalformedMove {
        /// The text given.
        text: String,
    },
    /// A well-formed move that is not legal here.
    #[error("move {} is not legal here: {why}", quote(.text))]
    IllegalMove {
        /// The text or move given.
        text: String,
        /// Why it is not legal.
        why: Illegal,
    },
    /// A move text that fits several legal moves.
    #[error("move {} is ambiguous: {count} legal moves match ({candidates}); give the captured squares or the landing squares", quote(.text))]
    AmbiguousMove {
        /// The text given.
        text: String,
        /// How many legal moves match.
        count: usize,
        /// The matching moves in Hub notation, space separated.
        candidates: String,
    },
    /// An unknown variant name.
    #[error("unknown variant {}: expected one of italian, spanish, czech, english, russian, brazilian", quote(.name))]
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
    /// A PDN game that breaks the file format.
    #[error("game {game}, line {line}: {found}: expected {expected}")]
    MalformedPdn {
        /// The game's number in the file, from 1.
        game: usize,
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters (where the offending item starts).
        column: usize,
        /// What was found, quoting the text.
        found: String,
        /// What was expected instead.
        expected: String,
    },
    /// A move of a PDN game that is malformed, illegal or ambiguous.
    #[error(
        "game {game}, line {line}: move {number} ({side}) {}: {}",
        quote(.text),
        crate::notation::pdn::move_reason(reason)
    )]
    PdnMove {
        /// The game's number in the file, from 1.
        game: usize,
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters (where the offending item starts).
        column: usize,
        /// The move number (a move is one by White and one by Black).
        number: usize,
        /// The side that was to play it.
        side: crate::Color,
        /// The move as written.
        text: String,
        /// Why it cannot be played: [`Error::MalformedMove`], [`Error::IllegalMove`] (with the
        /// rules' explanation) or [`Error::AmbiguousMove`].
        reason: Box<Error>,
    },
    /// A PDN `GameType` naming no variant dama plays.
    #[error("game {game}, line {line}: GameType {} is not a variant dama plays: expected the type number 22 (Italian), 24 (Spanish), 29 (Czech), 21 (English), 25 (Russian) or 26 (Brazilian), alone or followed by the rest of the GameType", quote(.value))]
    PdnGameType {
        /// The game's number in the file, from 1.
        game: usize,
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters (where the offending item starts).
        column: usize,
        /// The tag's value.
        value: String,
    },
    /// A PDN `FEN` tag that is not a position.
    #[error("game {game}, line {line}: {reason}")]
    PdnFen {
        /// The game's number in the file, from 1.
        game: usize,
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters (where the offending item starts).
        column: usize,
        /// What is wrong with it ([`Error::MalformedFen`] quoting the tag's value).
        reason: Box<Error>,
    },
    /// A PDN input that cannot be read.
    #[error("cannot read the PDN input at line {line}: {why}")]
    PdnRead {
        /// The line that could not be read, from 1.
        line: usize,
        /// The system's reason.
        why: String,
    },
}
