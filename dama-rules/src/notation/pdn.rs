//! PDN game files: a streaming reader of files holding many games, and a canonical writer.
//!
//! ```
//! use dama_rules::notation::pdn::{self, GameResult};
//! use dama_rules::Variant;
//!
//! let file = r#"
//! [Event "Club night"]
//! [White "Rossi"]
//! [Black "Bianchi"]
//! [GameType "22"]
//! 1. 22-19 {a classic} 10-14 2. 19x10 5x14 3. 23-19 $1 (3. 21-17) 14x23 4. 27x20 *
//!
//! [GameType "24"]
//! 1. 21-17 bogus 0-1
//! "#;
//! let mut games = pdn::Reader::new(file.as_bytes(), Variant::Italian);
//! let game = games.next().unwrap()?;
//! assert_eq!(game.variant, Variant::Italian);
//! assert_eq!(game.tag("White"), Some("Rossi"));
//! assert_eq!(game.moves.len(), 7);
//! assert_eq!(game.comments[0].text, "a classic");
//! assert_eq!(game.comments[0].ply, 1); // after the first move
//! assert_eq!(game.result, GameResult::Unknown);
//!
//! // A bad game is reported with where and why, and reading goes on.
//! let err = games.next().unwrap().unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "game 2, line 9: move 1 (black) \"bogus\": it is not a move: expected squares \
//!      1..=32 joined by '-' (quiet move) or 'x' (capture), like 22-18 or 27x20"
//! );
//! assert!(games.next().is_none());
//!
//! // The canonical form: the usual tag order, the long GameType, wrapped movetext.
//! let text = pdn::write(&game)?;
//! assert!(text.starts_with(
//!     "[Event \"Club night\"]\n[White \"Rossi\"]\n[Black \"Bianchi\"]\n[Result \"*\"]\n\
//!      [GameType \"22,W,8,8,N2,1\"]\n\n1. 22-19 {a classic} 1... 10-14 2. 19x10"
//! ));
//! let again = pdn::read_str(&text, Variant::Italian).remove(0)?;
//! assert_eq!(again, game);
//! # Ok::<_, dama_rules::Error>(())
//! ```
//!
//! # What the reader accepts
//!
//! Tags `[Name "value"]` (with `\"` and `\\` escapes; an unquoted value is accepted too);
//! movetext with move numbers `1.` and `1...` (glued to the move or apart); captures in the
//! short PDN form `27x20`, with the full landing path `13x22x31`, or Hub style with the
//! captured squares; `:` as a capture sign; move glyphs `! ? !! ?? !? ?!` and the Italian
//! forced-move mark `*` glued to a move (`22x13*`, not a terminator); comments `{...}` and
//! `;` to the end of the line; variations `(...)`, nested, which are skipped; `$n`; lines
//! starting with `%`; and the results `1-0`, `0-1`, `1/2-1/2`, `*`, and `2-0`, `0-2`, `1-1`,
//! `0-0` as some draughts programs write them (`0-0` reads as unknown). Lines that are not
//! UTF-8 are read as Latin-1. For Russian, Brazilian and Czech games, squares may also be
//! written algebraically with `a1` a dark square at White's left (`c3-d4`, `c3:e5`, and in
//! the FEN tag); the writer writes those games algebraically, as their own notation and
//! programs such as pydraughts expect.
//!
//! English checkers files (`GameType` 21, or the default when it is English) are read and
//! written in English numbering, each row numbered the other way round (see [`file_square`]),
//! with Black moving first from the start position; the engine's moves and positions keep its
//! own numbering.
//!
//! Each game gets its variant from the first number of `GameType` (the caller's default when
//! the tag is absent), its start from `FEN` (the start position otherwise), and its main-line
//! moves checked against the rules. A game ends at its terminator or where the next game's
//! tags begin. A game that breaks the format or has a move that is not legal is reported as
//! an error naming the game, the line and, for moves, the move number, side, text and the
//! rules' reason; the reader then goes on with the next game. Reading takes time linear in
//! the size of the input.
//!
//! Kept: tags, variant, start, moves, comments (attached to the move they follow, or to the
//! start) and result. Dropped: variations, `$n`, glyphs, move numbers and `%` lines.

mod lexer;
mod writer;

use std::io::BufRead;

use lexer::{Lexer, Tok, Token};

use crate::notation::{fen, parse_move, MoveFormat};
use crate::{quote, Color, Error, Move, Outcome, Position, Square, Variant};

pub use writer::write;

/// The result of a game as PDN writes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum GameResult {
    /// `1-0` (also read from `2-0`).
    WhiteWins,
    /// `0-1` (also read from `0-2`).
    BlackWins,
    /// `1/2-1/2` (also read from `1-1`).
    Draw,
    /// `*`: unknown or unfinished (also read from `0-0`).
    #[default]
    Unknown,
}

impl GameResult {
    /// The canonical text: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// The result a game terminator stands for, accepting the forms some draughts programs
    /// write (`2-0`, `0-2`, `1-1`, `0-0`).
    ///
    /// ```
    /// use dama_rules::notation::pdn::GameResult;
    /// assert_eq!(GameResult::from_terminator("2-0"), Some(GameResult::WhiteWins));
    /// assert_eq!(GameResult::from_terminator("22-18"), None);
    /// ```
    pub fn from_terminator(text: &str) -> Option<GameResult> {
        Some(match text {
            "1-0" | "2-0" => GameResult::WhiteWins,
            "0-1" | "0-2" => GameResult::BlackWins,
            "1/2-1/2" | "1-1" | "½-½" => GameResult::Draw,
            "*" | "0-0" => GameResult::Unknown,
            _ => return None,
        })
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Outcome> for GameResult {
    fn from(outcome: Outcome) -> GameResult {
        match outcome {
            Outcome::Win(Color::White) => GameResult::WhiteWins,
            Outcome::Win(Color::Black) => GameResult::BlackWins,
            Outcome::Draw(_) => GameResult::Draw,
        }
    }
}

/// A comment and where it stands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Comment {
    /// The number of moves played before it: 0 before the first move, 1 after the first...
    pub ply: usize,
    /// The text, with runs of whitespace turned into one space.
    pub text: String,
}

/// One game of a PDN file: what the reader gives and the writer takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnGame {
    /// The tags in file order, except `GameType`, `FEN` and `Result`, which are read into
    /// [`variant`](Self::variant), [`start`](Self::start) and [`result`](Self::result).
    pub tags: Vec<(String, String)>,
    /// The rules the game is played by.
    pub variant: Variant,
    /// The start position.
    pub start: Position,
    /// The main line, every move legal in turn.
    pub moves: Vec<Move>,
    /// The comments, in order.
    pub comments: Vec<Comment>,
    /// The result.
    pub result: GameResult,
}

impl PdnGame {
    /// A game with no tags, moves or comments and an unknown result.
    pub fn new(variant: Variant, start: Position) -> PdnGame {
        PdnGame {
            tags: Vec::new(),
            variant,
            start,
            moves: Vec::new(),
            comments: Vec::new(),
            result: GameResult::Unknown,
        }
    }

    /// The value of the first tag called `name` (not `GameType`, `FEN` or `Result`; see
    /// [`PdnGame::tags`]).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The start position and the position after every move, in order (one more than there
    /// are moves). The moves are trusted to be legal, as the reader leaves them.
    pub fn positions(&self) -> impl Iterator<Item = Position> + '_ {
        let mut pos = self.start;
        std::iter::once(pos).chain(self.moves.iter().map(move |&m| {
            pos.play_unchecked(m);
            pos
        }))
    }
}

/// A streaming reader of the games of a PDN file.
///
/// An iterator of games: each item is a game or the error that made it unreadable; reading
/// goes on after a bad game. An I/O error ends the iteration.
pub struct Reader<R> {
    lexer: Lexer<R>,
    default: Variant,
    games: usize,
    pending: Option<Token>,
    done: bool,
    dropped: Dropped,
}

/// What the last game read had that a [`PdnGame`] does not hold (see [`Reader::dropped`]):
/// a converter says so rather than leave it out silently.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Variations `( ... )` (a nested one counts with the one around it).
    pub variations: usize,
    /// Move marks (`!`, `?`, `!?` ...), glued to their move or apart.
    pub marks: usize,
    /// Numeric annotations (`$1`).
    pub nags: usize,
    /// The result the `Result` tag gave where the moves ended with `*`: the game holds one
    /// result, the tag's.
    pub unknown_terminator: Option<GameResult>,
}

impl Dropped {
    /// Whether nothing was dropped.
    pub fn is_empty(&self) -> bool {
        *self == Dropped::default()
    }
}

impl std::fmt::Display for Dropped {
    /// `1 variation, 2 move marks (! ?), 1 numeric annotation ($n); the result "*" after
    /// the moves, written as the Result tag's 1-0`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut parts = Vec::new();
        if self.variations > 0 {
            parts.push(plural(self.variations, "variation", "variations"));
        }
        if self.marks > 0 {
            parts.push(plural(self.marks, "move mark (! ?)", "move marks (! ?)"));
        }
        if self.nags > 0 {
            parts.push(plural(
                self.nags,
                "numeric annotation ($n)",
                "numeric annotations ($n)",
            ));
        }
        write!(f, "{}", parts.join(", "))?;
        if let Some(r) = self.unknown_terminator {
            let sep = if parts.is_empty() { "" } else { "; " };
            write!(
                f,
                "{sep}the result \"*\" after the moves, written as the Result tag's {r}"
            )?;
        }
        Ok(())
    }
}

impl<R: BufRead> Reader<R> {
    /// Reads games from `input`; games without a `GameType` tag are played by `default`.
    pub fn new(input: R, default: Variant) -> Reader<R> {
        Reader {
            lexer: Lexer::new(input),
            default,
            games: 0,
            pending: None,
            done: false,
            dropped: Dropped::default(),
        }
    }

    /// The game `builder` read; keeps what it dropped.
    fn end(&mut self, builder: Builder) -> Option<Result<PdnGame, Error>> {
        let (game, dropped) = builder.finish();
        self.dropped = dropped;
        Some(game)
    }

    /// What the game last returned had that it does not hold: variations, move marks,
    /// numeric annotations, a `*` after the moves that the `Result` tag overrode.
    pub fn dropped(&self) -> &Dropped {
        &self.dropped
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<PdnGame, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut token = self.pending.take().or_else(|| self.lexer.next_token())?;
        self.games += 1;
        let mut game = Builder::new(self.games, self.default);
        loop {
            match game.feed(token) {
                Step::More => {}
                Step::End => return self.end(game),
                Step::NextGame(t) => {
                    self.pending = Some(t);
                    return self.end(game);
                }
                Step::Io(err) => {
                    self.done = true;
                    self.dropped = Dropped::default();
                    return Some(Err(err));
                }
            }
            match self.lexer.next_token() {
                Some(t) => token = t,
                None => return self.end(game),
            }
        }
    }
}

/// Reads every game of `text` (see [`Reader`]).
pub fn read_str(text: &str, default: Variant) -> Vec<Result<PdnGame, Error>> {
    Reader::new(text.as_bytes(), default).collect()
}

/// What the reader does after a token.
enum Step {
    More,
    End,
    NextGame(Token),
    Io(Error),
}

/// The board while the main line is replayed.
struct Replay {
    variant: Variant,
    pos: Position,
    /// Whether the first move is the second half of a numbered move (the side to move at the
    /// start is not the one that opens a move number).
    second_half_first: bool,
}

/// Where a token starts: line and column (in characters), both from 1.
#[derive(Copy, Clone, Debug)]
struct At {
    line: usize,
    column: usize,
}

/// One game being read.
struct Builder {
    number: usize,
    game: PdnGame,
    game_type: Option<(String, At)>,
    fen: Option<(String, At)>,
    result_tag: Option<(String, At)>,
    replay: Option<Replay>,
    in_movetext: bool,
    terminator: Option<(GameResult, At)>,
    error: Option<Error>,
    dropped: Dropped,
}

impl Builder {
    fn new(number: usize, default: Variant) -> Builder {
        Builder {
            number,
            game: PdnGame::new(default, Position::start()),
            game_type: None,
            fen: None,
            result_tag: None,
            replay: None,
            in_movetext: false,
            terminator: None,
            error: None,
            dropped: Dropped::default(),
        }
    }

    fn fail(&mut self, err: Error) {
        if self.error.is_none() {
            self.error = Some(err);
        }
    }

    fn syntax(&self, at: At, found: String, expected: String) -> Error {
        Error::MalformedPdn {
            game: self.number,
            line: at.line,
            column: at.column,
            found,
            expected,
        }
    }

    fn feed(&mut self, token: Token) -> Step {
        let at = At {
            line: token.line,
            column: token.column,
        };
        match token.tok {
            Tok::Tag { .. } if self.in_movetext => return Step::NextGame(token),
            Tok::Tag { name, value } => self.tag(name, value, at),
            Tok::Comment(text) => {
                let ply = self.game.moves.len();
                // A `;` comment may hold a `}`, which a `{}` comment cannot: keep what the
                // writer can write back.
                let text = text.replace('}', ")");
                self.game.comments.push(Comment { ply, text });
            }
            Tok::Dropped(lexer::Dropped::Variation) => self.dropped.variations += 1,
            Tok::Dropped(lexer::Dropped::Nag) => self.dropped.nags += 1,
            Tok::Dropped(lexer::Dropped::Mark) => self.dropped.marks += 1,
            Tok::Move(text) => {
                if text.ends_with(['!', '?']) {
                    self.dropped.marks += 1;
                }
                self.in_movetext = true;
                if self.error.is_none() {
                    self.play(&text, at);
                }
            }
            Tok::Result(result) => {
                self.terminator = Some((result, at));
                return Step::End;
            }
            Tok::Bad { found, expected } => {
                let err = self.syntax(at, found, expected);
                self.fail(err);
            }
            Tok::Io(why) => return Step::Io(Error::PdnRead { line: at.line, why }),
        }
        Step::More
    }

    fn tag(&mut self, name: String, value: String, at: At) {
        let slot = match name.as_str() {
            "GameType" => &mut self.game_type,
            "FEN" => &mut self.fen,
            "Result" => &mut self.result_tag,
            _ => {
                self.game.tags.push((name, value));
                return;
            }
        };
        if slot.is_some() {
            let err = self.syntax(
                at,
                format!("a second {name} tag {}", quote(&value)),
                format!("one {name} tag per game"),
            );
            self.fail(err);
        } else {
            *slot = Some((value, at));
        }
    }

    /// Reads GameType and FEN, once, when the movetext starts or the game ends.
    fn setup(&mut self) -> Option<&mut Replay> {
        if self.replay.is_none() && self.error.is_none() {
            match self.variant().and_then(|v| Ok((v, self.start(v)?))) {
                Ok((variant, start)) => {
                    self.game.variant = variant;
                    self.game.start = start;
                    self.replay = Some(Replay {
                        variant,
                        pos: start,
                        second_half_first: start.turn() != first_colour(variant),
                    });
                }
                Err(err) => self.fail(err),
            }
        }
        self.replay.as_mut()
    }

    fn variant(&self) -> Result<Variant, Error> {
        let Some((value, at)) = &self.game_type else {
            return Ok(self.game.variant);
        };
        let number = value.split(',').next().unwrap_or("").trim();
        number
            .parse::<u32>()
            .ok()
            .and_then(Variant::from_game_type)
            .ok_or_else(|| Error::PdnGameType {
                game: self.number,
                line: at.line,
                column: at.column,
                value: value.clone(),
            })
    }

    fn start(&self, variant: Variant) -> Result<Position, Error> {
        let Some((value, at)) = &self.fen else {
            return Ok(file_start(variant));
        };
        let text = if is_algebraic(variant) {
            algebraic_fen(value)
        } else {
            value.clone()
        };
        // Checked in the file's numbering, so that a message names the square as written
        // (every file numbering keeps the rows, and with them the promotion rows).
        let name = |sq: Square| {
            if is_algebraic(variant) {
                algebraic_name(sq)
            } else {
                sq.to_string()
            }
        };
        let setup = fen::parse_setup(&text).and_then(|file| match file.flaw(name) {
            Some(why) => Err(Error::MalformedFen {
                fen: value.clone(),
                why,
            }),
            None => Ok(from_file_setup(variant, &file)),
        });
        setup
            .and_then(|s| Position::from_setup(&s))
            .map_err(|err| Error::PdnFen {
                game: self.number,
                line: at.line,
                column: at.column,
                reason: Box::new(match err {
                    Error::MalformedFen { why, .. } => Error::MalformedFen {
                        fen: value.clone(),
                        why,
                    },
                    other => other,
                }),
            })
    }

    fn play(&mut self, text: &str, at: At) {
        let number = self.number;
        let ply = self.game.moves.len();
        let Some(replay) = self.setup() else {
            return;
        };
        let (variant, pos) = (replay.variant, replay.pos);
        let wanted = move_text(variant, text);
        let parsed =
            crate::with_rules!(variant, R => parse_move::<R>(&pos, &wanted, MoveFormat::Any));
        match parsed {
            Ok(m) => {
                replay.pos.play_unchecked(m);
                self.game.moves.push(m);
            }
            Err(reason) => {
                let err = Error::PdnMove {
                    game: number,
                    line: at.line,
                    column: at.column,
                    number: (ply + usize::from(replay.second_half_first)) / 2 + 1,
                    side: pos.turn(),
                    text: text.to_string(),
                    reason: Box::new(reason),
                };
                self.fail(err);
            }
        }
    }

    /// The game, and what it had that the game does not hold.
    fn finish(mut self) -> (Result<PdnGame, Error>, Dropped) {
        let mut dropped = std::mem::take(&mut self.dropped);
        let game = self.game_read(&mut dropped);
        (game, dropped)
    }

    fn game_read(mut self, dropped: &mut Dropped) -> Result<PdnGame, Error> {
        self.setup();
        if let Some(err) = self.error {
            return Err(err);
        }
        let tag = match &self.result_tag {
            None => None,
            Some((value, at)) => match result_tag(value) {
                Some(r) => Some((r, *at, value.as_str())),
                None => {
                    return Err(self.syntax(
                        *at,
                        format!("Result tag {}", quote(value)),
                        "1-0, 0-1, 1/2-1/2 or *".into(),
                    ))
                }
            },
        };
        self.game.result = match (self.terminator, tag) {
            (Some((r, _)), None) | (None, Some((r, _, _))) => r,
            (None, None) => GameResult::Unknown,
            (Some((t, at)), Some((r, _, value))) => {
                if t != r && t != GameResult::Unknown && r != GameResult::Unknown {
                    return Err(self.syntax(
                        at,
                        format!("result {t} after the moves but Result tag {}", quote(value)),
                        "the same result in both places".into(),
                    ));
                }
                if t == GameResult::Unknown {
                    if r != GameResult::Unknown {
                        dropped.unknown_terminator = Some(r);
                    }
                    r
                } else {
                    t
                }
            }
        };
        Ok(self.game)
    }
}

/// The result a `Result` tag names; an empty value and `?` mean unknown.
fn result_tag(value: &str) -> Option<GameResult> {
    match value.trim() {
        "" | "?" => Some(GameResult::Unknown),
        text => GameResult::from_terminator(text),
    }
}

/// The reason of a move error without the quoted move, for [`Error::PdnMove`].
pub(crate) fn move_reason(err: &Error) -> String {
    match err {
        Error::IllegalMove { why, .. } => why.to_string(),
        Error::AmbiguousMove {
            count, candidates, ..
        } => format!(
            "it is ambiguous: {count} legal moves match ({candidates}); give the landing squares"
        ),
        Error::MalformedMove { .. } => "it is not a move: expected squares 1..=32 joined by '-' \
                                        (quiet move) or 'x' (capture), like 22-18 or 27x20"
            .into(),
        other => other.to_string(),
    }
}

/// The engine's square for square `sq` as numbered in `variant`'s files, and back (the map
/// is its own inverse).
///
/// English checkers numbers the board from Black's side: Black's men start on 1..=12 as in
/// the engine, but each row is numbered in the other direction (English 1 is the engine's 4,
/// English 9 the engine's 12), since English boards have the dark corner at each player's
/// left. Every other variant's files use the engine's numbering.
pub fn file_square(variant: Variant, sq: Square) -> Square {
    match variant {
        Variant::English => {
            let i = sq.index();
            Square::ALL[i - i % 4 + 3 - i % 4]
        }
        _ => sq,
    }
}

/// The name of engine square `sq` in `variant`'s own notation, as its players and files
/// write it: the engine's number for Italian, Spanish; the English number for English
/// checkers (see [`file_square`]); the algebraic name (`c3`, a dark `a1` at White's left) for
/// Russian, Brazilian and Czech.
///
/// ```
/// use dama_rules::notation::pdn::square_name;
/// use dama_rules::{Square, Variant};
/// let sq = |n| Square::new(n).unwrap();
/// assert_eq!(square_name(Variant::Italian, sq(22)), "22");
/// assert_eq!(square_name(Variant::English, sq(4)), "1");
/// assert_eq!(square_name(Variant::Russian, sq(32)), "a1");
/// ```
pub fn square_name(variant: Variant, sq: Square) -> String {
    if is_algebraic(variant) {
        algebraic_name(sq)
    } else {
        file_square(variant, sq).to_string()
    }
}

/// The engine square that `name` names in `variant`'s own notation (the inverse of
/// [`square_name`]); `None` when it names no square.
///
/// ```
/// use dama_rules::notation::pdn::square_named;
/// use dama_rules::Variant;
/// assert_eq!(square_named(Variant::English, "1").map(|s| s.number()), Some(4));
/// assert_eq!(square_named(Variant::Russian, "a1").map(|s| s.number()), Some(32));
/// assert_eq!(square_named(Variant::Italian, "33"), None);
/// ```
pub fn square_named(variant: Variant, name: &str) -> Option<Square> {
    let name = name.trim();
    if is_algebraic(variant) && name.bytes().any(|b| b.is_ascii_alphabetic()) {
        return algebraic_square(name);
    }
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let sq = name.parse::<u8>().ok().and_then(Square::new)?;
    Some(file_square(variant, sq))
}

/// Whether `variant`'s players see the engine's board in a mirror: English, Russian,
/// Brazilian and Czech boards have a dark square at each player's left corner, the Italian
/// and Spanish boards a light one. Mirroring changes no rule, only where each square is drawn
/// (the engine's column `c` is drawn at column `7 - c`).
pub fn mirrored(variant: Variant) -> bool {
    !matches!(variant, Variant::Italian | Variant::Spanish)
}

/// Move text with engine squares (Hub or PDN) written in `variant`'s own notation: every
/// square renamed by [`square_name`]. The inverse of [`engine_text`].
///
/// ```
/// use dama_rules::notation::pdn::variant_text;
/// use dama_rules::Variant;
/// assert_eq!(variant_text(Variant::Italian, "22-18"), "22-18");
/// assert_eq!(variant_text(Variant::English, "22-18"), "23-19");
/// assert_eq!(variant_text(Variant::Russian, "22-18"), "e3-f4");
/// ```
pub fn variant_text(variant: Variant, text: &str) -> String {
    to_file_text(variant, text)
}

/// Move text written in `variant`'s own notation (numbers, or algebraic squares where the
/// variant uses them; `:` as a capture sign) with the engine's square numbers, ready for
/// [`crate::notation::parse_move_for`]. Text it cannot convert is returned for the move
/// parser to reject.
///
/// ```
/// use dama_rules::notation::pdn::engine_text;
/// use dama_rules::Variant;
/// assert_eq!(engine_text(Variant::English, "23-19"), "22-18");
/// assert_eq!(engine_text(Variant::Russian, "e3-f4"), "22-18");
/// ```
pub fn engine_text(variant: Variant, text: &str) -> String {
    move_text(variant, text)
}

/// The side that moves first in `variant` and opens each move number: Black in English
/// checkers (`GameType` 21 says `B`), White elsewhere.
pub fn first_colour(variant: Variant) -> Color {
    match variant {
        Variant::English => Color::Black,
        _ => Color::White,
    }
}

/// The start position of a game of `variant` in a file without a `FEN` tag: the engine's
/// start, with [`first_colour`] to move.
pub fn file_start(variant: Variant) -> Position {
    Position::start().with_turn(first_colour(variant))
}

/// A setup read with `variant`'s file numbering, in the engine's numbering.
fn from_file_setup(variant: Variant, setup: &crate::Setup) -> crate::Setup {
    let mut out = crate::Setup::empty();
    out.turn = setup.turn;
    for sq in Square::ALL {
        out.set(file_square(variant, sq), setup.get(sq));
    }
    out
}

/// The FEN of `pos` as `variant`'s files write it: English numbering for English checkers,
/// algebraic squares for Russian, Brazilian and Czech.
pub(crate) fn file_fen(variant: Variant, pos: &Position) -> String {
    let setup = from_file_setup(variant, &crate::Setup::from(pos));
    let text = Position::from_setup(&setup).map_or_else(|_| fen::write(pos), |p| fen::write(&p));
    if is_algebraic(variant) {
        to_file_text(variant, &text)
    } else {
        text
    }
}

/// Engine move text (or a FEN without ranges) as `variant`'s files write it: every square
/// number renumbered by [`file_square`], or named algebraically. Captures keep `x`, which
/// every reader takes (pydraughts does not take Russian's `:`).
pub(crate) fn to_file_text(variant: Variant, text: &str) -> String {
    if is_algebraic(variant) {
        map_numbers(text, algebraic_name)
    } else {
        renumber(variant, text)
    }
}

/// `text` with every square number mapped by [`file_square`] (English checkers; the map is
/// its own inverse, so this reads and writes).
fn renumber(variant: Variant, text: &str) -> String {
    if file_square(variant, Square::ALL[0]) == Square::ALL[0] {
        return text.to_string();
    }
    map_numbers(text, |sq| file_square(variant, sq).to_string())
}

/// `text` with every run of digits that is a square replaced by `name(square)`.
pub(crate) fn map_numbers(text: &str, name: impl Fn(Square) -> String) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut digits = String::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            match digits.parse::<u8>().ok().and_then(Square::new) {
                Some(sq) => out.push_str(&name(sq)),
                None => out.push_str(&digits),
            }
            digits.clear();
        }
        if c != '\0' {
            out.push(c);
        }
    }
    out
}

/// The algebraic name of `sq` (the inverse of [`algebraic_square`]).
fn algebraic_name(sq: Square) -> String {
    let file = char::from(b'a' + 7 - sq.column());
    let rank = char::from(b'8' - sq.row());
    format!("{file}{rank}")
}

/// Whether the variant's own notation names squares algebraically.
fn is_algebraic(variant: Variant) -> bool {
    matches!(
        variant,
        Variant::Russian | Variant::Brazilian | Variant::Czech
    )
}

/// The square of an algebraic name (`c3`) on a board with a dark `a1` at White's left: the
/// engine's board seen in a mirror, which leaves every rule unchanged.
fn algebraic_square(name: &str) -> Option<Square> {
    let &[file, rank] = name.as_bytes() else {
        return None;
    };
    let file = file.to_ascii_lowercase();
    if !(b'a'..=b'h').contains(&file) || !(b'1'..=b'8').contains(&rank) {
        return None;
    }
    Square::from_coords(b'8' - rank, 7 - (file - b'a'))
}

/// A move word ready for [`parse_move`]: `:` read as `x`, algebraic squares as numbers (for
/// the variants written that way). Anything it cannot convert is left for the move parser
/// to reject.
fn move_text(variant: Variant, text: &str) -> String {
    let text = renumber(variant, &text.replace(':', "x"));
    if !is_algebraic(variant) || !text.bytes().any(|b| matches!(b, b'a'..=b'h' | b'A'..=b'H')) {
        return text;
    }
    let body = text.trim_end_matches(['!', '?', '*']);
    let mut out = String::with_capacity(text.len());
    let mut part = String::new();
    for c in body.chars().chain(std::iter::once('-')) {
        if matches!(c, '-' | 'x' | 'X') {
            match algebraic_square(&part) {
                Some(sq) => out.push_str(&sq.to_string()),
                None => return text,
            }
            out.push(c);
            part.clear();
        } else {
            part.push(c);
        }
    }
    out.pop();
    out
}

/// A FEN with algebraic squares (`W:Wa1,c1:Bh8`) rewritten in numbers; items that are not
/// algebraic are left alone.
fn algebraic_fen(text: &str) -> String {
    let text = text.trim().trim_matches('"');
    let mut sections = text.split(':');
    let mut out = sections.next().unwrap_or("").to_string();
    for section in sections {
        out.push(':');
        let mut chars = section.trim().chars();
        if let Some(side) = chars.next() {
            out.push(side);
        }
        let items: Vec<String> = chars
            .as_str()
            .split(',')
            .map(|item| {
                let item = item.trim();
                let (king, name) = match item.strip_prefix(['K', 'k']) {
                    Some(rest) => ("K", rest),
                    None => ("", item),
                };
                match algebraic_square(name) {
                    Some(sq) => format!("{king}{sq}"),
                    None => item.to_string(),
                }
            })
            .collect();
        out.push_str(&items.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Result<PdnGame, Error>> {
        read_str(text, Variant::Italian)
    }

    fn one(text: &str) -> PdnGame {
        let mut games = read(text);
        assert_eq!(games.len(), 1, "{text}");
        games.remove(0).unwrap()
    }

    #[test]
    fn forced_star_glued_to_a_move_does_not_end_the_game() {
        let g = one("1. 22-19 10-14* 2. 19x10* 5x14 *");
        assert_eq!(g.moves.len(), 4);
        assert_eq!(g.result, GameResult::Unknown);
    }

    #[test]
    fn draughts_program_results_are_read() {
        for (text, result) in [
            ("2-0", GameResult::WhiteWins),
            ("0-2", GameResult::BlackWins),
            ("1-1", GameResult::Draw),
            ("0-0", GameResult::Unknown),
            ("1/2-1/2", GameResult::Draw),
        ] {
            assert_eq!(one(&format!("1. 22-18 {text}")).result, result);
        }
    }

    #[test]
    fn games_without_terminator_end_at_the_next_tags() {
        let games = read("[Event \"a\"]\n1. 22-18\n[Event \"b\"]\n1. 21-17 *");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].as_ref().unwrap().tag("Event"), Some("b"));
        assert_eq!(games[0].as_ref().unwrap().result, GameResult::Unknown);
    }

    #[test]
    fn result_tag_is_used_when_the_terminator_is_missing_and_must_agree() {
        assert_eq!(
            one("[Result \"1-0\"]\n1. 22-18").result,
            GameResult::WhiteWins
        );
        let err = read("[Result \"1-0\"]\n1. 22-18 0-1")
            .remove(0)
            .unwrap_err();
        assert!(err.to_string().contains("Result tag \"1-0\""), "{err}");
        let err = read("[Result \"won\"]\n1. 22-18").remove(0).unwrap_err();
        assert!(err.to_string().contains("\"won\""), "{err}");
    }

    #[test]
    fn illegal_move_error_names_game_line_number_side_text_and_reason() {
        let games = read("1. 22-18 *\n\n1. 22-19 10-14\n2. 19x10 12-16 *\n1. 21-17 *");
        assert_eq!(games.len(), 3);
        let err = games[1].clone().unwrap_err();
        assert_eq!(
            err.to_string(),
            "game 2, line 4: move 2 (black) \"12-16\": a capture is compulsory and only the \
             pieces on 5, 6 can capture"
        );
        assert!(games[2].is_ok());
        assert!(matches!(err, Error::PdnMove { column: 10, .. }), "{err:?}");
    }

    #[test]
    fn errors_carry_the_column_where_the_item_starts() {
        let column = |text: &str| match read(text).remove(0).unwrap_err() {
            Error::MalformedPdn { column, .. }
            | Error::PdnMove { column, .. }
            | Error::PdnGameType { column, .. }
            | Error::PdnFen { column, .. } => column,
            other => panic!("{other:?}"),
        };
        assert_eq!(column("1. 22-18 11-15 bogus *"), 16);
        // Characters, not bytes: the accented name counts one column per letter.
        assert_eq!(column("{città} 1. 22-18 }"), 18);
        assert_eq!(column("  [GameType \"20\"]\n1. 22-18 *"), 3);
        assert_eq!(column("[FEN \"W:W99\"]\n1. 22-18 *"), 1);
        assert_eq!(column("1. 22-18 {open\n"), 10);
    }

    #[test]
    fn black_to_move_start_numbers_moves_from_black() {
        let err = read("[FEN \"B:W22:B9\"]\n1... 9-13 2. 22-19 13-17 3. 1-5")
            .remove(0)
            .unwrap_err();
        assert!(err.to_string().contains("move 3 (white) \"1-5\""), "{err}");
    }

    #[test]
    fn bad_game_type_and_fen_are_reported() {
        let err = read("[GameType \"20\"]\n1. 22-18 *").remove(0).unwrap_err();
        assert!(matches!(err, Error::PdnGameType { .. }), "{err}");
        let err = read("[FEN \"W:W33:B1\"]\n1. 22-18 *")
            .remove(0)
            .unwrap_err();
        assert!(err.to_string().contains("W:W33:B1"), "{err}");
    }

    #[test]
    fn a_fen_tag_that_is_no_position_names_the_square_as_the_file_writes_it() {
        for (text, needle) in [
            (
                "[FEN \"W:W1:B18\"]\n*",
                "a white man on 1, white's promotion row",
            ),
            // English numbers each row the other way (its 1 is the engine's 4): same row.
            (
                "[GameType \"21\"]\n[FEN \"B:W1,22:B18\"]\n*",
                "a white man on 1,",
            ),
            (
                "[GameType \"21\"]\n[FEN \"B:W22:B18,29\"]\n*",
                "a black man on 29,",
            ),
            (
                "[GameType \"25\"]\n[FEN \"W:Wb8,c3:Bf6\"]\n*",
                "a white man on b8,",
            ),
            (
                "[GameType \"29\"]\n[FEN \"W:Wc3:Ba1\"]\n*",
                "a black man on a1,",
            ),
            (
                "[GameType \"24\"]\n[FEN \"W:W2:B18\"]\n*",
                "a white man on 2,",
            ),
            ("[FEN \"B:W:B\"]\n*", "no pieces at all"),
        ] {
            let err = read(text).remove(0).unwrap_err();
            assert!(matches!(err, Error::PdnFen { .. }), "{err}");
            assert!(err.to_string().contains(needle), "{text}: {err}");
        }
        // A side without pieces is a finished game.
        assert!(one("[FEN \"B:W18:B\"]\n1-0").start.legal_moves().is_empty());
    }

    #[test]
    fn algebraic_squares_for_russian_games() {
        let g = one("[GameType \"25\"]\n1. c3-d4 f6-e5 2. d4:f6 g7:e5 *");
        assert_eq!(g.variant, Variant::Russian);
        let hub: Vec<String> = g.moves.iter().map(|m| m.to_string()).collect();
        assert_eq!(hub, ["23-19", "10-14", "19x10x14", "5x14x10"]);
        let fen = one("[GameType \"25\"]\n[FEN \"W:WKa1,c3:Bh8\"]\n*").start;
        assert_eq!(fen.fen(), "W:W23,K32:B1");
    }

    #[test]
    fn hub_and_landing_path_captures_are_read() {
        let g = one("1. 22-19 10-14 2. 19x10x14 5x14 *");
        assert_eq!(g.moves.len(), 4);
    }

    #[test]
    fn comments_before_tags_and_moves_go_to_the_start() {
        let g = one("{intro}\n[Event \"x\"]\n{before}\n1. 22-18 {after} *");
        let plies: Vec<usize> = g.comments.iter().map(|c| c.ply).collect();
        assert_eq!(plies, [0, 0, 1]);
    }
}
