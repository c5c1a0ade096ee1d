//! `Board`, `Move`, `Piece`, `Outcome` and `perft`: a game of draughts for Python.

use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;

use dama_rules::notation::{self, diagram, fen};
use dama_rules::{with_rules, Color, DrawReason, Game, Outcome as RustOutcome, Position, Role};
use dama_rules::{Square, Variant};

use crate::errors::IntoPy;

/// Adds the classes and functions of this file to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Board>()?;
    m.add_class::<Move>()?;
    m.add_class::<Piece>()?;
    m.add_class::<Outcome>()?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    Ok(())
}

/// What `__reduce__` gives pickle: the function that rebuilds the value and its arguments,
/// a FEN, a variant's name and the moves (Hub text).
type Reduced<'py, M> = (Bound<'py, PyAny>, (String, &'static str, M));

/// A move, with the position it is played from (for its PDN text and capture path).
///
/// Moves come from a board (`Board.legal_moves`, `Board.parse_move`, `Board.push_text`,
/// `Board.pop`). Two moves are equal when they have the same start, end and captured squares:
/// two capture routes that take the same pieces are one move, as the rules say.
#[pyclass(module = "dama", frozen, from_py_object)]
#[derive(Clone, Copy)]
pub struct Move {
    pub(crate) mv: dama_rules::Move,
    pub(crate) before: Position,
    pub(crate) variant: Variant,
}

impl Move {
    pub(crate) fn new(mv: dama_rules::Move, before: Position, variant: Variant) -> Move {
        Move {
            mv,
            before,
            variant,
        }
    }
}

#[pymethods]
impl Move {
    /// The start square, 1..32.
    #[getter]
    #[allow(clippy::wrong_self_convention)] // python-chess's names
    fn from_square(&self) -> u8 {
        self.mv.from().number()
    }

    /// The end square, 1..32.
    #[getter]
    #[allow(clippy::wrong_self_convention)] // python-chess's names
    fn to_square(&self) -> u8 {
        self.mv.to().number()
    }

    /// The captured squares, ascending (empty for a quiet move).
    #[getter]
    fn captured(&self) -> Vec<u32> {
        self.mv
            .captured()
            .iter()
            .map(|s| u32::from(s.number()))
            .collect()
    }

    /// The squares the piece stands on, from start to end: `[from, to]` for a quiet move,
    /// every landing square of a capture (the first route when several take the same pieces).
    #[getter]
    fn path(&self) -> Vec<u32> {
        let paths = with_rules!(self.variant, R => self.before.capture_paths::<R>(self.mv));
        let number = |s: &Square| u32::from(s.number());
        let mut path = vec![number(&self.mv.from())];
        match paths.first() {
            Some(p) => path.extend(p.iter().map(number)),
            None => path.push(number(&self.mv.to())),
        }
        path
    }

    /// Whether the move captures.
    #[getter]
    fn is_capture(&self) -> bool {
        self.mv.is_capture()
    }

    /// Whether a man is crowned by this move.
    #[getter]
    fn promotes(&self) -> bool {
        self.mv.promotes()
    }

    /// The move in PDN text: `22-18`, `27x20`, or the landing path (`13x22x31`) when the
    /// short form would name several moves.
    fn pdn(&self) -> String {
        notation::pdn_move_for(self.variant, &self.before, self.mv)
    }

    /// The move in Hub text (the engine protocol's): `22-18`, `27x20x23` (captured squares
    /// after the end square).
    fn hub(&self) -> String {
        self.mv.to_string()
    }

    /// The move's index in the from×to policy encoding: `(from - 1) * 32 + (to - 1)`, in
    /// 0..1024. With `relative`, a move of Black uses the squares as Black sees them
    /// (`33 - n`), matching `Board.to_planes(relative=True)`.
    #[pyo3(signature = (relative=false))]
    fn index(&self, relative: bool) -> usize {
        crate::planes::move_index(self.mv, relative && self.before.turn() == Color::Black)
    }

    fn __str__(&self) -> String {
        self.mv.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Move('{}')", self.mv)
    }

    /// Equal to a move with the same squares, and to a text (Hub or PDN) that reads as this
    /// move in the position it is played from: `"22-18" in board.legal_moves` works as in
    /// python-chess. Anything else is not equal.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if let Ok(other) = other.cast::<Move>() {
            return self.mv == other.get().mv;
        }
        let Ok(text) = other.extract::<String>() else {
            return false;
        };
        notation::parse_move_for(self.variant, &self.before, &text).is_ok_and(|m| m == self.mv)
    }

    fn __hash__(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.mv.hash(&mut h);
        h.finish()
    }

    /// Pickling: the position the move is played from, the variant and the move's Hub text,
    /// read back by `Move._restore`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py, String>> {
        let restore = py.get_type::<Move>().getattr("_restore")?;
        Ok((
            restore,
            (self.before.fen(), self.variant.name(), self.mv.to_string()),
        ))
    }

    /// The move `text` (Hub) from the position `fen` under `variant`: what `__reduce__` gives
    /// pickle. Raises the errors of `Board(fen, variant).parse_move(text)`.
    #[classmethod]
    fn _restore(
        _cls: &Bound<'_, pyo3::types::PyType>,
        py: Python<'_>,
        fen: &str,
        variant: &str,
        text: &str,
    ) -> PyResult<Move> {
        let variant = crate::variant_of(variant)?;
        let before = fen::parse(fen).py_err(py)?;
        let mv = notation::parse_move_for(variant, &before, text).py_err(py)?;
        Ok(Move::new(mv, before, variant))
    }
}

/// A piece: its colour (`True` for White, as `dama.WHITE`) and whether it is a king.
#[pyclass(module = "dama", frozen, eq, hash, from_py_object)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// `True` (`dama.WHITE`) for a white piece, `False` (`dama.BLACK`) for a black one.
    #[pyo3(get)]
    color: bool,
    /// Whether the piece is a king (otherwise a man).
    #[pyo3(get)]
    king: bool,
}

impl Piece {
    fn of(p: dama_rules::Piece) -> Piece {
        Piece {
            color: p.color == Color::White,
            king: p.role == Role::King,
        }
    }

    fn rust(self) -> dama_rules::Piece {
        dama_rules::Piece {
            color: if self.color {
                Color::White
            } else {
                Color::Black
            },
            role: if self.king { Role::King } else { Role::Man },
        }
    }
}

#[pymethods]
impl Piece {
    /// A piece of `color` (`True` for White), a king when `king`.
    #[new]
    #[pyo3(signature = (color, king=false))]
    fn py_new(color: bool, king: bool) -> Piece {
        Piece { color, king }
    }

    /// `w`/`b` for a man, `W`/`B` for a king (the Hub protocol's letters).
    fn symbol(&self) -> String {
        self.rust().hub_char().to_string()
    }

    fn __str__(&self) -> String {
        self.symbol()
    }

    /// Pickling: `Piece(color, king)`.
    fn __getnewargs__(&self) -> (bool, bool) {
        (self.color, self.king)
    }

    fn __repr__(&self) -> String {
        let colour = if self.color { "WHITE" } else { "BLACK" };
        format!(
            "Piece(dama.{colour}, king={})",
            if self.king { "True" } else { "False" }
        )
    }
}

/// How a game ended.
#[pyclass(module = "dama", frozen)]
#[derive(Clone)]
pub struct Outcome {
    /// The winner (`True` White, `False` Black), or `None` for a draw.
    #[pyo3(get)]
    winner: Option<bool>,
    /// Why: `"no_moves"` (the loser has no legal move), `"no_progress"` (the 40-move rule in
    /// Italian), `"repetition"` or `"kings_against_king"`.
    #[pyo3(get)]
    reason: &'static str,
    /// The library's sentence, e.g. `"white wins: black has no legal move"`.
    #[pyo3(get)]
    message: String,
    result: &'static str,
}

impl Outcome {
    fn of(o: RustOutcome) -> Outcome {
        let (winner, reason) = match o {
            RustOutcome::Win(c) => (Some(c == Color::White), "no_moves"),
            RustOutcome::Draw(DrawReason::NoProgress { .. }) => (None, "no_progress"),
            RustOutcome::Draw(DrawReason::Repetition) => (None, "repetition"),
            RustOutcome::Draw(DrawReason::KingsAgainstKing { .. }) => (None, "kings_against_king"),
        };
        Outcome {
            winner,
            reason,
            message: o.to_string(),
            result: o.pdn(),
        }
    }
}

#[pymethods]
impl Outcome {
    /// The PDN result: `"1-0"`, `"0-1"` or `"1/2-1/2"`.
    fn result(&self) -> &'static str {
        self.result
    }

    fn __str__(&self) -> String {
        self.message.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Outcome(winner={}, reason='{}')",
            match self.winner {
                Some(true) => "True",
                Some(false) => "False",
                None => "None",
            },
            self.reason
        )
    }
}

/// A game of draughts: the position, the moves played from the start, the draw counters.
///
/// `Board()` is Italian from the start; `Board(fen, variant)` starts from a FEN
/// (`"W:W21-32:B1-12"`) under any variant's rules. Two boards are equal when their
/// positions (pieces and side to move) and variants are; the moves that led there and the
/// counters do not count. A board changes, so it is not hashable (as a list is not): the
/// key of its position for a set or a dict (a repetition table) is `board.key()`.
/// Boards pickle with their moves (multiprocessing, data loaders).
#[pyclass(module = "dama", from_py_object)]
#[derive(Clone)]
pub struct Board {
    pub(crate) game: Game,
}

impl Board {
    pub(crate) fn position(&self) -> &Position {
        self.game.position()
    }

    pub(crate) fn wrap(&self, m: dama_rules::Move) -> Move {
        Move::new(m, *self.game.position(), self.game.variant())
    }

    /// The moves `push` takes, sorted: none once the game is over (a draw rule included).
    fn playable(&self) -> Vec<dama_rules::Move> {
        if self.game.outcome().is_some() {
            return Vec::new();
        }
        self.game.sorted_legal_moves().to_vec()
    }

    /// The position before each move played, in order.
    fn befores(&self) -> Vec<Position> {
        let mut pos = *self.game.start();
        let mut out = Vec::with_capacity(self.game.moves().len());
        for &m in self.game.moves() {
            out.push(pos);
            pos.play_unchecked(m);
        }
        out
    }
}

#[pymethods]
impl Board {
    /// A board from `fen` (the start position when `None`) under `variant`'s rules.
    #[new]
    #[pyo3(signature = (fen=None, variant="italian"))]
    fn py_new(py: Python<'_>, fen: Option<&str>, variant: &str) -> PyResult<Board> {
        let variant = crate::variant_of(variant)?;
        let start = match fen {
            Some(text) => fen::parse(text).py_err(py)?,
            None => Position::start(),
        };
        Ok(Board {
            game: Game::from_position(variant, start),
        })
    }

    /// The variant's name, e.g. `"italian"`.
    #[getter]
    fn variant(&self) -> &'static str {
        self.game.variant().name()
    }

    /// The side to move: `True` (`dama.WHITE`) or `False` (`dama.BLACK`).
    #[getter]
    fn turn(&self) -> bool {
        self.position().turn() == Color::White
    }

    /// The legal moves, sorted by start, end and captured squares (as `dama moves` prints
    /// them); empty when the game is over (`is_game_over()`), by a draw rule too, when
    /// `push` would raise `GameOverError`.
    #[getter]
    fn legal_moves(&self) -> Vec<Move> {
        self.playable().iter().map(|&m| self.wrap(m)).collect()
    }

    /// The moves played since the start, in order.
    #[getter]
    fn move_stack(&self) -> Vec<Move> {
        let variant = self.game.variant();
        self.befores()
            .into_iter()
            .zip(self.game.moves())
            .map(|(pos, &m)| Move::new(m, pos, variant))
            .collect()
    }

    /// The number of moves played since the start (plies).
    #[getter]
    fn ply(&self) -> usize {
        self.game.moves().len()
    }

    /// Plies since the last capture or man move (the 40-move rule counts these).
    #[getter]
    fn quiet_plies(&self) -> u32 {
        self.game.quiet_plies()
    }

    /// Whether `move` is legal here (`False` once the game is over: `push` would raise).
    fn is_legal(&self, r#move: PyRef<'_, Move>) -> bool {
        self.playable().contains(&r#move.mv)
    }

    /// Plays a legal move. Raises `IllegalMoveError` (with the reason) when it is not legal
    /// here and `GameOverError` when the game has ended; the board is then unchanged.
    fn push(&mut self, py: Python<'_>, r#move: PyRef<'_, Move>) -> PyResult<()> {
        self.game.play(r#move.mv).py_err(py)
    }

    /// Reads a move in Hub (`27x20x23`) or PDN (`27x20`, `13x22x31`) text and plays it;
    /// returns it. Raises `InvalidMoveError`, `IllegalMoveError` (with the reason),
    /// `AmbiguousMoveError` or `GameOverError`; the board is then unchanged.
    fn push_text(&mut self, py: Python<'_>, text: &str) -> PyResult<Move> {
        let before = *self.game.position();
        let m = self.game.play_text(text).py_err(py)?;
        Ok(Move::new(m, before, self.game.variant()))
    }

    /// `push_text` under python-chess's name: dama has no SAN, the text is Hub (`27x20x23`)
    /// or PDN (`27x20`), as players type it.
    fn push_san(&mut self, py: Python<'_>, san: &str) -> PyResult<Move> {
        self.push_text(py, san)
    }

    /// `parse_move` under python-chess's name (see `push_san`).
    fn parse_san(&self, py: Python<'_>, san: &str) -> PyResult<Move> {
        self.parse_move(py, san)
    }

    /// The result as python-chess gives it: `"1-0"`, `"0-1"`, `"1/2-1/2"`, or `"*"` while
    /// the game goes on.
    fn result(&self) -> &'static str {
        self.game.outcome().map_or("*", |o| o.pdn())
    }

    /// Reads a move in Hub or PDN text without playing it (errors as `push_text`, except
    /// that a finished game's moves are still read).
    fn parse_move(&self, py: Python<'_>, text: &str) -> PyResult<Move> {
        let m = notation::parse_move_for(self.game.variant(), self.position(), text).py_err(py)?;
        Ok(self.wrap(m))
    }

    /// Takes back the last move and returns it; `IndexError` when no move was played.
    fn pop(&mut self) -> PyResult<Move> {
        let m = self
            .game
            .undo()
            .ok_or_else(|| PyIndexError::new_err("pop from a board with no move played"))?;
        Ok(self.wrap(m))
    }

    /// The last move played; `IndexError` when none was.
    fn peek(&self) -> PyResult<Move> {
        let m = *self
            .game
            .moves()
            .last()
            .ok_or_else(|| PyIndexError::new_err("peek at a board with no move played"))?;
        let before = self.befores().pop().unwrap_or(*self.game.start());
        Ok(Move::new(m, before, self.game.variant()))
    }

    /// A copy; with `stack=False`, one that starts from the current position (no moves to
    /// pop, counters reset).
    #[pyo3(signature = (stack=true))]
    fn copy(&self, stack: bool) -> Board {
        if stack {
            self.clone()
        } else {
            Board {
                game: Game::from_position(self.game.variant(), *self.position()),
            }
        }
    }

    fn __copy__(&self) -> Board {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Board {
        self.clone()
    }

    /// The position as FEN, e.g. `"W:W21,22,...:B1,2,..."`.
    fn fen(&self) -> String {
        self.position().fen()
    }

    /// The FEN of the start position of the game.
    fn start_fen(&self) -> String {
        self.game.start().fen()
    }

    /// The pieces as a dict from square number (1..32) to `Piece`, in square order.
    fn pieces(&self) -> BTreeMap<u8, Piece> {
        Square::ALL
            .iter()
            .filter_map(|&sq| Some((sq.number(), Piece::of(self.position().piece_at(sq)?))))
            .collect()
    }

    /// The piece on `square` (1..32), or `None`; `ValueError` for a square out of range.
    fn piece_at(&self, square: &Bound<'_, PyAny>) -> PyResult<Option<Piece>> {
        let n: u8 = crate::int_arg(square, "square", 1, 32)?;
        let sq = Square::new(n).ok_or_else(|| {
            PyValueError::new_err(format!("square {n} is out of range: expected 1..=32"))
        })?;
        Ok(self.position().piece_at(sq).map(Piece::of))
    }

    /// Whether the game has ended (no legal move, or a draw rule of the variant).
    fn is_game_over(&self) -> bool {
        self.game.outcome().is_some()
    }

    /// How the game ended, or `None` while it goes on.
    fn outcome(&self) -> Option<Outcome> {
        self.game.outcome().map(Outcome::of)
    }

    /// Why the move `text` (Hub or PDN) is not legal here, in the rules' words, or `None`
    /// when it is legal. Raises `InvalidMoveError` for text that is not a move and
    /// `AmbiguousMoveError` for text naming several legal moves.
    fn explain(&self, py: Python<'_>, text: &str) -> PyResult<Option<String>> {
        match notation::parse_move_for(self.game.variant(), self.position(), text) {
            Ok(_) => Ok(self
                .game
                .outcome()
                .map(|o| format!("the game is over: {o}"))),
            Err(dama_rules::Error::IllegalMove { why, .. }) => Ok(Some(why.to_string())),
            Err(e) => Err(crate::errors::to_py(py, &e)),
        }
    }

    /// The board as an SVG picture (`dama board --svg`), `highlight`'s squares tinted.
    #[pyo3(signature = (highlight=None))]
    fn svg(&self, highlight: Option<PyRef<'_, Move>>) -> String {
        diagram::svg(self.position(), highlight.map(|m| m.mv))
    }

    /// The SVG picture Jupyter shows.
    fn _repr_svg_(&self) -> String {
        diagram::svg(self.position(), None)
    }

    /// The board as text (the ASCII board of `dama board --plain`).
    fn __str__(&self) -> String {
        diagram::text(self.position(), None, false)
    }

    fn __repr__(&self) -> String {
        format!(
            "Board('{}', variant='{}')",
            self.position().fen(),
            self.game.variant().name()
        )
    }

    fn __eq__(&self, other: PyRef<'_, Board>) -> bool {
        self.position() == other.position() && self.game.variant() == other.game.variant()
    }

    /// A hashable key of the position (pieces and side to move) and the variant, equal for
    /// equal boards: `(fen, variant)`, for sets and dicts of positions (the board itself is
    /// mutable and not hashable).
    fn key(&self) -> (String, &'static str) {
        (self.position().fen(), self.game.variant().name())
    }

    /// Pickling: `Board._restore(start_fen, variant, moves)` plays the moves again, so the
    /// copy has the same moves to pop and the same draw counters.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py, Vec<String>>> {
        let restore = py.get_type::<Board>().getattr("_restore")?;
        let moves = self.game.moves().iter().map(|m| m.to_string()).collect();
        Ok((
            restore,
            (self.game.start().fen(), self.game.variant().name(), moves),
        ))
    }

    /// The board from `fen` under `variant` after `moves` (Hub text): what `__reduce__` gives
    /// pickle. Raises the errors of `Board(fen, variant)` and `push_text`.
    #[classmethod]
    fn _restore(
        _cls: &Bound<'_, pyo3::types::PyType>,
        py: Python<'_>,
        fen: &str,
        variant: &str,
        moves: Vec<String>,
    ) -> PyResult<Board> {
        let mut board = Board::py_new(py, Some(fen), variant)?;
        for m in &moves {
            board.game.play_text(m).py_err(py)?;
        }
        Ok(board)
    }

    /// The position as NumPy planes, shape `(5, 8, 8)`, `float32`; see the module's
    /// documentation of the encoding.
    #[pyo3(signature = (relative=false))]
    fn to_planes<'py>(&self, py: Python<'py>, relative: bool) -> PyResult<Bound<'py, PyAny>> {
        crate::planes::planes(py, self.position(), relative)
    }

    /// The legal moves in the from×to encoding: a NumPy `bool` array of 1024 entries, true
    /// at `move.index(relative)` of each legal move.
    #[pyo3(signature = (relative=false))]
    fn legal_move_mask<'py>(&self, py: Python<'py>, relative: bool) -> PyResult<Bound<'py, PyAny>> {
        let flip = relative && self.position().turn() == Color::Black;
        crate::planes::mask(py, &self.playable(), flip)
    }

    /// The legal moves whose index (see `Move.index`) is `index`, 0..1024: usually one, none
    /// for an index no legal move has (or a finished game), several in the rare case of one
    /// start and end square with different captures. `ValueError` for an index out of range.
    #[pyo3(signature = (index, relative=false))]
    fn moves_at_index(&self, index: &Bound<'_, PyAny>, relative: bool) -> PyResult<Vec<Move>> {
        let hi = crate::planes::MOVE_INDEX_SIZE as i128 - 1;
        let index: usize = crate::int_arg(index, "index", 0, hi)?;
        let flip = relative && self.position().turn() == Color::Black;
        let mut list = self.playable();
        list.retain(|m| crate::planes::move_index(*m, flip) == index);
        Ok(list.iter().map(|&m| self.wrap(m)).collect())
    }
}

/// The deepest `perft`, as `dama perft --depth`: the start position's depth 20 takes days.
const MAX_PERFT_DEPTH: i128 = 20;

/// Leaves of the legal-move tree of `depth` plies (0..=20) from `board`'s position (the last
/// ply bulk counted; draw rules do not stop the count). The count runs in Rust with the GIL
/// released. `ValueError` for a depth out of range.
#[pyfunction]
fn perft(py: Python<'_>, board: PyRef<'_, Board>, depth: &Bound<'_, PyAny>) -> PyResult<u64> {
    let depth: u32 = crate::int_arg(depth, "depth", 0, MAX_PERFT_DEPTH)?;
    let pos = *board.position();
    let variant = board.game.variant();
    drop(board);
    Ok(py.detach(move || with_rules!(variant, R => dama_rules::perft::perft::<R>(&pos, depth))))
}
