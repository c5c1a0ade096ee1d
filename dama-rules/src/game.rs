//! A game: start position, moves played, the no-progress counter, repetition keys, result.

use std::fmt;

use crate::explain::Candidate;
use crate::{Color, Error, Move, MoveList, Position, Variant};

/// Plies without capture or man move after which an Italian or Czech game is drawn (40 moves
/// by each side).
pub const NO_PROGRESS_PLIES: u32 = 80;

/// Why a game was drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// 40 moves by each side without a capture or a man move.
    FortyMoves,
}

/// How a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The winner: the other side had no legal move.
    Win(Color),
    /// A draw.
    Draw(DrawReason),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win(c) => write!(f, "{c} wins: {} has no legal move", !*c),
            Outcome::Draw(DrawReason::FortyMoves) => {
                write!(
                    f,
                    "draw: 40 moves by each side without a capture or a man move"
                )
            }
        }
    }
}

impl Outcome {
    /// The PDN result text: `1-0`, `0-1` or `1/2-1/2`.
    pub const fn pdn(self) -> &'static str {
        match self {
            Outcome::Win(Color::White) => "1-0",
            Outcome::Win(Color::Black) => "0-1",
            Outcome::Draw(_) => "1/2-1/2",
        }
    }
}

/// A game in progress or finished.
///
/// ```
/// use dama_rules::{Game, Outcome, Color};
/// let mut game = Game::new();
/// let m = game.legal_moves()[0];
/// game.play(m)?;
/// assert_eq!(game.moves(), &[m]);
/// assert_eq!(game.outcome(), None);
/// # Ok::<_, dama_rules::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    variant: Variant,
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// Hash of every position so far, the start included.
    keys: Vec<u64>,
    /// Plies since the last capture or man move.
    quiet_plies: u32,
    legal: MoveList,
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

impl Game {
    /// An Italian game from the start position.
    pub fn new() -> Game {
        Game::from_position(Variant::Italian, Position::start())
    }

    /// A game of `variant` from `start`.
    pub fn from_position(variant: Variant, start: Position) -> Game {
        Game {
            variant,
            start,
            position: start,
            moves: Vec::new(),
            keys: vec![start.hash()],
            quiet_plies: 0,
            legal: start.legal_moves_for(variant),
        }
    }

    /// The variant played.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The hash of every position so far, the start included (for repetition checks).
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Plies played since the last capture or man move.
    pub fn quiet_plies(&self) -> u32 {
        self.quiet_plies
    }

    /// The legal moves in the current position (none when the game is drawn).
    pub fn legal_moves(&self) -> &MoveList {
        &self.legal
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.legal.is_empty() {
            Some(Outcome::Win(!self.position.turn()))
        } else if self.quiet_plies >= NO_PROGRESS_PLIES {
            Some(Outcome::Draw(DrawReason::FortyMoves))
        } else {
            None
        }
    }

    /// Plays a legal move.
    ///
    /// # Errors
    /// [`Error::IllegalMove`] (with the reason) when `m` is not legal here, and
    /// [`Error::GameOver`] when the game has ended; the game is unchanged either way.
    pub fn play(&mut self, m: Move) -> Result<(), Error> {
        if let Some(outcome) = self.outcome() {
            return Err(Error::GameOver { outcome });
        }
        if !self.legal.contains(&m) {
            let candidate = Candidate {
                from: m.from(),
                to: m.to(),
                captured: Some(m.captured()),
            };
            let why =
                crate::with_rules!(self.variant, R => self.position.explain_move::<R>(candidate));
            return Err(match why {
                Err(why) => Error::IllegalMove {
                    text: m.to_string(),
                    why,
                },
                // Same squares, different promotion flag: a move of another position.
                Ok(_) => Error::IllegalMove {
                    text: m.to_string(),
                    why: crate::Illegal::NoSuchMove {
                        square: m.from(),
                        moves: self
                            .legal
                            .iter()
                            .copied()
                            .filter(|l| l.from() == m.from())
                            .collect(),
                    },
                },
            });
        }
        let man_moved = self.position.men(self.position.turn()).contains(m.from());
        let key = self.position.hash_after(*self.keys.last().unwrap_or(&0), m);
        self.position.play_unchecked(m);
        self.quiet_plies = if m.is_capture() || man_moved {
            0
        } else {
            self.quiet_plies + 1
        };
        self.moves.push(m);
        self.keys.push(key);
        self.legal = self.position.legal_moves_for(self.variant);
        Ok(())
    }

    /// Reads a move in Hub or PDN notation and plays it.
    ///
    /// # Errors
    /// Malformed, illegal or ambiguous text (see [`crate::notation::parse_move`]); the game is
    /// unchanged.
    pub fn play_text(&mut self, text: &str) -> Result<Move, Error> {
        let m = crate::notation::parse_move_for(self.variant, &self.position, text)?;
        self.play(m)?;
        Ok(m)
    }
}
