//! PDN games for Python: the reader (streaming, tolerant as the Rust one) and the writer.

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor};

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use dama_rules::notation::pdn::{self, GameResult, PdnGame as RustGame, Reader};
use dama_rules::notation::{fen, pdn_move_for};
use dama_rules::{Game, Variant};

use crate::board::{Board, Move};
use crate::errors::IntoPy;

/// `EISDIR`, the error number of a directory opened as a file (the same on Linux, macOS and
/// the BSDs).
const EISDIR: i32 = 21;

/// The Python exception of a PDN file that cannot be opened: `OSError(errno, message,
/// path)`, which Python turns into its subclass (`FileNotFoundError`, `PermissionError`,
/// `IsADirectoryError`), with `filename` set.
fn open_error(path: &std::path::Path, e: &std::io::Error) -> PyErr {
    let message = format!("cannot open the PDN file: {e}");
    let name = path.display().to_string();
    match e.raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, message, name)),
        None => PyOSError::new_err(format!("{name}: {message}")),
    }
}

/// Adds the classes of this file to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PdnGame>()?;
    m.add_class::<PdnReader>()?;
    Ok(())
}

/// One game of a PDN file: tags, variant, start position, main line, comments, result.
#[pyclass(module = "dama.pdn", name = "Game", from_py_object)]
#[derive(Clone)]
pub struct PdnGame {
    game: RustGame,
}

fn result_of(text: &str) -> PyResult<GameResult> {
    match text.trim() {
        "" | "?" => Ok(GameResult::Unknown),
        t => GameResult::from_terminator(t).ok_or_else(|| {
            PyValueError::new_err(format!(
                "result {} is not a PDN result: expected 1-0, 0-1, 1/2-1/2 or *",
                dama_rules::quote(t)
            ))
        }),
    }
}

#[pymethods]
impl PdnGame {
    /// A game from `board`'s start and moves (an empty Italian game when `None`), with `tags`
    /// (name to value, in order; `GameType`, `FEN` and `Result` are written from the game
    /// itself) and `result` (`"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"`; by default the board's
    /// outcome, `"*"` while it goes on).
    #[new]
    #[pyo3(signature = (board=None, tags=None, result=None))]
    fn py_new(
        board: Option<PyRef<'_, Board>>,
        tags: Option<Vec<(String, String)>>,
        result: Option<&str>,
    ) -> PyResult<PdnGame> {
        let game = board.map_or_else(Game::new, |b| b.game.clone());
        let mut out = RustGame::new(game.variant(), *game.start());
        out.moves = game.moves().to_vec();
        out.tags = tags
            .unwrap_or_default()
            .into_iter()
            .filter(|(n, _)| !matches!(n.as_str(), "GameType" | "FEN" | "Result"))
            .collect();
        out.result = match result {
            Some(r) => result_of(r)?,
            None => game.outcome().map_or(GameResult::Unknown, GameResult::from),
        };
        Ok(PdnGame { game: out })
    }

    /// The tags in file order, as a dict (without `GameType`, `FEN` and `Result`, which are
    /// `variant`, `start_fen` and `result`).
    #[getter]
    fn tags(&self) -> Vec<(String, String)> {
        self.game.tags.clone()
    }

    /// The value of tag `name`, or `default`.
    #[pyo3(signature = (name, default=None))]
    fn tag(&self, name: &str, default: Option<String>) -> Option<String> {
        self.game.tag(name).map(str::to_string).or(default)
    }

    /// The variant's name, e.g. `"italian"` (from the `GameType` tag).
    #[getter]
    fn variant(&self) -> &'static str {
        self.game.variant.name()
    }

    /// The FEN of the start position (the `FEN` tag, or the variant's start).
    #[getter]
    fn start_fen(&self) -> String {
        fen::write(&self.game.start)
    }

    /// The result: `"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"`.
    #[getter]
    fn result(&self) -> &'static str {
        self.game.result.as_str()
    }

    /// The main line's moves, in order.
    #[getter]
    fn moves(&self) -> Vec<Move> {
        let variant = self.game.variant;
        self.game
            .positions()
            .zip(&self.game.moves)
            .map(|(pos, &m)| Move::new(m, pos, variant))
            .collect()
    }

    /// The main line in PDN move text, e.g. `["22-18", "11-15", "18x11"]`.
    fn mainline_pdn(&self) -> Vec<String> {
        let variant = self.game.variant;
        self.game
            .positions()
            .zip(&self.game.moves)
            .map(|(pos, &m)| pdn_move_for(variant, &pos, m))
            .collect()
    }

    /// The comments as `(ply, text)` pairs: `ply` moves were played before the comment.
    #[getter]
    fn comments(&self) -> Vec<(usize, String)> {
        self.game
            .comments
            .iter()
            .map(|c| (c.ply, c.text.clone()))
            .collect()
    }

    /// A board at the start of the game.
    fn start(&self) -> Board {
        Board {
            game: Game::from_position(self.game.variant, self.game.start),
        }
    }

    /// A board after the whole main line (its moves can be popped). `IllegalMoveError` or
    /// `GameOverError` if a move cannot be played on a board (a file may go on after a draw
    /// rule has ended the game).
    fn board(&self, py: Python<'_>) -> PyResult<Board> {
        let mut game = Game::from_position(self.game.variant, self.game.start);
        for &m in &self.game.moves {
            game.play(m).py_err(py)?;
        }
        Ok(Board { game })
    }

    /// The game as canonical PDN text (`dama pdn`'s writer), ending with a newline.
    fn pdn(&self, py: Python<'_>) -> PyResult<String> {
        pdn::write(&self.game).py_err(py)
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        self.pdn(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "Game(variant='{}', moves={}, result='{}')",
            self.game.variant.name(),
            self.game.moves.len(),
            self.game.result.as_str()
        )
    }

    fn __eq__(&self, other: PyRef<'_, PdnGame>) -> bool {
        self.game == other.game
    }
}

/// The input of a reader: a file or bytes in memory.
type Input = Box<dyn BufRead + Send + Sync>;

/// An iterator over the games of a PDN input; use `dama.pdn.read`.
///
/// A game that cannot be read raises `PdnError` (its `game`, `line` and `column`) from
/// `next()`, and reading can go on with the next game; with `skip_errors`, bad games are
/// passed over and their errors kept in `errors`.
#[pyclass(module = "dama.pdn")]
pub struct PdnReader {
    reader: Reader<Input>,
    skip_errors: bool,
    errors: Vec<dama_rules::Error>,
}

#[pymethods]
impl PdnReader {
    /// A reader of the file at `path`, or of `data` (the bytes of a PDN file) when `path` is
    /// `None`. Games without a `GameType` tag are played by `variant`.
    #[new]
    #[pyo3(signature = (path=None, data=None, variant="italian", skip_errors=false))]
    fn py_new(
        path: Option<std::path::PathBuf>,
        data: Option<Vec<u8>>,
        variant: &str,
        skip_errors: bool,
    ) -> PyResult<PdnReader> {
        let variant: Variant = crate::variant_of(variant)?;
        let input: Input = match (path, data) {
            (Some(path), None) => {
                let file = File::open(&path)
                    .and_then(|f| match f.metadata() {
                        Ok(m) if m.is_dir() => Err(std::io::Error::from_raw_os_error(EISDIR)),
                        _ => Ok(f),
                    })
                    .map_err(|e| open_error(&path, &e))?;
                Box::new(BufReader::new(file))
            }
            (None, Some(data)) => Box::new(Cursor::new(data)),
            _ => {
                return Err(PyValueError::new_err(
                    "expected a path or data, one of the two",
                ))
            }
        };
        Ok(PdnReader {
            reader: Reader::new(input, variant),
            skip_errors,
            errors: Vec::new(),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PdnGame>> {
        loop {
            match self.reader.next() {
                None => return Ok(None),
                Some(Ok(game)) => return Ok(Some(PdnGame { game })),
                Some(Err(e @ dama_rules::Error::PdnRead { .. })) => {
                    return Err(crate::errors::to_py(py, &e))
                }
                Some(Err(e)) if self.skip_errors => self.errors.push(e),
                Some(Err(e)) => return Err(crate::errors::to_py(py, &e)),
            }
        }
    }

    /// The errors of the games passed over (with `skip_errors`), as `PdnError`s.
    #[getter]
    fn errors(&self, py: Python<'_>) -> Vec<PyErr> {
        self.errors
            .iter()
            .map(|e| crate::errors::to_py(py, e))
            .collect()
    }
}
