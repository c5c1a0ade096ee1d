//! A game: start position, moves played, the no-progress counter, repetition keys, result.

use std::fmt;

use crate::{Bitboard, Color, Error, Move, MoveList, Position, Variant};

/// The end-of-game rules of a variant besides "no legal move loses".
///
/// What dama decided where the rules leave room (docs/rules.md; see [`Variant::draw_rules`]):
/// - Spanish: the three-kings rule counts the stronger side's moves from the first position
///   with three kings (no men) against a lone king (no men) in which one of the three stands
///   on the long diagonal 1-5-10-14-19-23-28-32; any change of material ends the count.
/// - English: threefold repetition and 40 moves each without a capture or a man move.
/// - Russian: threefold repetition; 15 moves each (30 plies) without a capture or a man move;
///   three or more kings against a lone king: 15 moves of the stronger side.
/// - Brazilian: threefold repetition; 25 moves each without a capture or a man move; three or
///   more kings against a lone king: 16 moves of the stronger side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// Plies without progress after which the game is drawn.
    pub no_progress_plies: u32,
    /// Whether a man move is progress (otherwise only captures and promotions are, as in Czech).
    pub man_move_is_progress: bool,
    /// The occurrence of one position (same side to move) that draws, if repetition draws.
    pub repetition: Option<usize>,
    /// Moves the side with three or more kings has to beat a lone king, if that rule applies.
    pub kings_against_king: Option<u32>,
    /// Whether that rule needs exactly three kings, one on the long diagonal (Spanish).
    pub spanish_three_kings: bool,
}

impl Variant {
    /// The variant's draw rules.
    pub const fn draw_rules(self) -> DrawRules {
        let base = DrawRules {
            no_progress_plies: 80,
            man_move_is_progress: true,
            repetition: Some(3),
            kings_against_king: None,
            spanish_three_kings: false,
        };
        match self {
            Variant::Italian => DrawRules {
                repetition: None,
                ..base
            },
            Variant::Spanish => DrawRules {
                no_progress_plies: 40,
                kings_against_king: Some(13),
                spanish_three_kings: true,
                ..base
            },
            Variant::Czech => DrawRules {
                man_move_is_progress: false,
                repetition: None,
                ..base
            },
            Variant::English => base,
            Variant::Russian => DrawRules {
                no_progress_plies: 30,
                kings_against_king: Some(15),
                ..base
            },
            Variant::Brazilian => DrawRules {
                no_progress_plies: 50,
                kings_against_king: Some(16),
                ..base
            },
        }
    }
}

/// The long diagonal 1-5-10-14-19-23-28-32.
const LONG_DIAGONAL: Bitboard =
    Bitboard(1 | 1 << 5 | 1 << 10 | 1 << 15 | 1 << 20 | 1 << 25 | 1 << 30 | 1 << 35);

/// Why a game was drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// Too many plies without progress (for Italian: 40 moves by each side without a capture
    /// or a man move).
    NoProgress {
        /// The plies played without progress.
        plies: u32,
    },
    /// The same position occurred for the third time.
    Repetition,
    /// Three or more kings failed to beat a lone king in the allowed moves.
    KingsAgainstKing {
        /// The moves the stronger side had.
        moves: u32,
    },
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
            Outcome::Draw(DrawReason::NoProgress { plies }) => {
                // Players count a move as one by each side.
                write!(f, "draw: {} moves without progress", plies / 2)
            }
            Outcome::Draw(DrawReason::Repetition) => {
                write!(f, "draw: the same position for the third time")
            }
            Outcome::Draw(DrawReason::KingsAgainstKing { moves }) => {
                write!(
                    f,
                    "draw: the kings did not win against the lone king in {moves} moves"
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
/// // Analysis tools take moves back.
/// assert_eq!(game.undo(), Some(m));
/// assert_eq!(game.position(), game.start());
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
    /// Plies since the last capture or man move (or promotion, by the variant's rules).
    quiet_plies: u32,
    /// Moves of the stronger side since the kings-against-king count started.
    kings_count: Option<u32>,
    legal: MoveList,
    /// What each move changed that cannot be worked out backwards, for [`Game::undo`].
    undo: Vec<Before>,
}

/// The state before a move that [`Game::undo`] restores (the move and its key are kept in
/// [`Game::moves`] and [`Game::keys`]).
#[derive(Copy, Clone, Debug)]
struct Before {
    position: Position,
    quiet_plies: u32,
    kings_count: Option<u32>,
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
            kings_count: Self::kings_against_king(variant, &start)
                .filter(|&strong| Self::count_starts(variant, &start, strong))
                .map(|_| 0),
            legal: start.legal_moves_for(variant),
            undo: Vec::new(),
        }
    }

    /// The stronger side when the material is three or more kings (exactly three in Spanish)
    /// against a lone king and the variant has the kings-against-king rule.
    fn kings_against_king(variant: Variant, pos: &Position) -> Option<Color> {
        let rules = variant.draw_rules();
        rules.kings_against_king?;
        Color::ALL.into_iter().find(|&strong| {
            let weak = !strong;
            let kings = pos.kings(strong).count();
            pos.men(strong).is_empty()
                && pos.men(weak).is_empty()
                && pos.kings(weak).count() == 1
                && if rules.spanish_three_kings {
                    kings == 3
                } else {
                    kings >= 3
                }
        })
    }

    /// Whether the kings-against-king count starts in `pos` (Spanish: one of the three kings
    /// must stand on the long diagonal).
    fn count_starts(variant: Variant, pos: &Position, strong: Color) -> bool {
        !variant.draw_rules().spanish_three_kings || (pos.kings(strong) & LONG_DIAGONAL).any()
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

    /// Plies played since the last progress (capture, man move or promotion, as the variant's
    /// [`DrawRules`] say).
    pub fn quiet_plies(&self) -> u32 {
        self.quiet_plies
    }

    /// The legal moves in the current position (even when a draw rule has ended the game:
    /// [`Game::play`] then refuses them).
    ///
    /// They come in the move generator's order: the same for the same position and variant on
    /// every run and machine, but not sorted (captures come in search order, for instance).
    /// [`Game::sorted_legal_moves`] gives them in the order `dama moves` prints.
    ///
    /// ```
    /// use dama_rules::Game;
    /// let game = Game::new();
    /// assert_eq!(game.legal_moves()[..], game.position().legal_moves()[..]);
    /// ```
    pub fn legal_moves(&self) -> &MoveList {
        &self.legal
    }

    /// The legal moves sorted by start square, end square, then captured squares: the order
    /// `dama moves` prints (see [`Move`]'s `Ord`). Costs a copy and a sort of the list.
    ///
    /// ```
    /// use dama_rules::Game;
    /// let game = Game::new();
    /// let text = |list: &[dama_rules::Move]| list.iter().map(|m| m.to_string()).collect::<Vec<_>>();
    /// let sorted = ["21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"];
    /// assert_eq!(text(&game.sorted_legal_moves()), sorted);
    /// // The generator lists each direction in turn.
    /// assert_eq!(text(game.legal_moves())[..2], ["21-17", "22-18"]);
    /// ```
    pub fn sorted_legal_moves(&self) -> MoveList {
        let mut list = self.legal.clone();
        list.sort();
        list
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        let rules = self.variant.draw_rules();
        let key = self.keys.last().copied().unwrap_or_default();
        let repeated = || self.keys.iter().filter(|&&k| k == key).count();
        if self.legal.is_empty() {
            Some(Outcome::Win(!self.position.turn()))
        } else if rules.repetition.is_some_and(|n| repeated() >= n) {
            Some(Outcome::Draw(DrawReason::Repetition))
        } else if self.quiet_plies >= rules.no_progress_plies {
            Some(Outcome::Draw(DrawReason::NoProgress {
                plies: self.quiet_plies,
            }))
        } else if let (Some(done), Some(moves)) = (self.kings_count, rules.kings_against_king) {
            (done >= moves).then_some(Outcome::Draw(DrawReason::KingsAgainstKing { moves }))
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
            let pos = &self.position;
            return Err(crate::with_rules!(self.variant, R => pos.illegal_move_error::<R>(m)));
        }
        let mover = self.position.turn();
        let man_moved = self.position.men(mover).contains(m.from());
        let progress = m.is_capture()
            || m.promotes()
            || (man_moved && self.variant.draw_rules().man_move_is_progress);
        let key = self.position.hash_after(*self.keys.last().unwrap_or(&0), m);
        self.undo.push(Before {
            position: self.position,
            quiet_plies: self.quiet_plies,
            kings_count: self.kings_count,
        });
        self.position.play_unchecked(m);
        self.quiet_plies = if progress { 0 } else { self.quiet_plies + 1 };
        let strong = Self::kings_against_king(self.variant, &self.position);
        self.kings_count = match (strong, self.kings_count) {
            (None, _) => None,
            (Some(strong), Some(n)) if !m.is_capture() => Some(n + u32::from(mover == strong)),
            (Some(strong), _) => {
                Self::count_starts(self.variant, &self.position, strong).then_some(0)
            }
        };
        self.moves.push(m);
        self.keys.push(key);
        self.legal = self.position.legal_moves_for(self.variant);
        Ok(())
    }

    /// Takes back the last move and returns it; `None` at the start.
    ///
    /// Restores everything as it was before the move: position, no-progress counter,
    /// repetition keys, legal moves, the kings-against-king count, and so the outcome (a game
    /// that had ended is open again). Costs one move generation, whatever the game's length:
    /// the game keeps a few bytes per move for it.
    ///
    /// ```
    /// use dama_rules::Game;
    /// let mut game = Game::new();
    /// assert_eq!(game.undo(), None);
    /// let m = game.play_text("22-18")?;
    /// assert_eq!(game.undo(), Some(m));
    /// assert!(game.moves().is_empty());
    /// assert_eq!(game.legal_moves().len(), 7);
    /// # Ok::<_, dama_rules::Error>(())
    /// ```
    pub fn undo(&mut self) -> Option<Move> {
        let before = self.undo.pop()?;
        let m = self.moves.pop();
        self.keys.pop();
        self.position = before.position;
        self.quiet_plies = before.quiet_plies;
        self.kings_count = before.kings_count;
        self.legal = self.position.legal_moves_for(self.variant);
        m
    }

    /// Reads a move in Hub or PDN notation and plays it.
    ///
    /// # Errors
    /// [`Error::GameOver`] once the game has ended, whatever the text; otherwise malformed,
    /// illegal or ambiguous text (see [`crate::notation::parse_move`]). The game is unchanged.
    pub fn play_text(&mut self, text: &str) -> Result<Move, Error> {
        if let Some(outcome) = self.outcome() {
            return Err(Error::GameOver { outcome });
        }
        let m = crate::notation::parse_move_for(self.variant, &self.position, text)?;
        self.play(m)?;
        Ok(m)
    }

    /// The PDN text of legal move `m` in the current position: `22-18`, `27x20`, or the
    /// landing path `13x22x31` when the short form would name several moves (see
    /// [`crate::notation::pdn_move`]). Squares are the engine's numbers for every variant.
    ///
    /// ```
    /// use dama_rules::Game;
    /// let mut game = Game::new();
    /// for text in ["22-19", "10-14"] {
    ///     game.play_text(text)?;
    /// }
    /// let m = game.legal_moves()[0];
    /// assert_eq!(m.to_string(), "19x10x14"); // Hub: the captured square
    /// assert_eq!(game.pdn_move(m)?, "19x10"); // PDN: start and end
    /// # Ok::<_, dama_rules::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::IllegalMove`] (with the reason) when `m` is not legal here.
    pub fn pdn_move(&self, m: Move) -> Result<String, Error> {
        let pos = &self.position;
        if !self.legal.contains(&m) {
            return Err(crate::with_rules!(self.variant, R => pos.illegal_move_error::<R>(m)));
        }
        Ok(crate::notation::pdn_move_for(self.variant, pos, m))
    }
}
