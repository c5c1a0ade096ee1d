//! Python exceptions for the library's errors, with the library's own messages.
//!
//! All are `ValueError` subclasses (a common base `DamaError`), as in python-chess: bad FEN
//! text, text that is not a move, a move that is not legal (with the rules' reason), text
//! that names several moves, and a PDN game that cannot be read (with its game, line and
//! column numbers).

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use dama_rules::Error;

create_exception!(
    dama,
    DamaError,
    PyValueError,
    "Base class of dama's errors: input that dama cannot take (a ValueError)."
);
create_exception!(
    dama,
    InvalidFenError,
    DamaError,
    "A FEN (or Hub position) that cannot be read, or pieces that are not a position."
);
create_exception!(
    dama,
    InvalidMoveError,
    DamaError,
    "Text that is not a move at all (expected squares joined by '-' or 'x')."
);
create_exception!(
    dama,
    IllegalMoveError,
    DamaError,
    "A well-formed move that is not legal in the position; `reason` is the rules' sentence."
);
create_exception!(
    dama,
    GameOverError,
    IllegalMoveError,
    "A move asked of a finished game; `reason` says how it ended."
);
create_exception!(
    dama,
    AmbiguousMoveError,
    DamaError,
    "Move text that fits several legal moves; `candidates` lists them in Hub text."
);
create_exception!(
    dama,
    PdnError,
    DamaError,
    "A PDN game that cannot be read; `game`, `line` and `column` say where (from 1)."
);

/// Adds the exceptions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("DamaError", py.get_type::<DamaError>())?;
    m.add("InvalidFenError", py.get_type::<InvalidFenError>())?;
    m.add("InvalidMoveError", py.get_type::<InvalidMoveError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("GameOverError", py.get_type::<GameOverError>())?;
    m.add("AmbiguousMoveError", py.get_type::<AmbiguousMoveError>())?;
    m.add("PdnError", py.get_type::<PdnError>())?;
    Ok(())
}

/// Sets attributes on the exception value of `err`.
fn with_attrs(py: Python<'_>, err: PyErr, attrs: &[(&str, Py<PyAny>)]) -> PyErr {
    for (name, value) in attrs {
        // Setting an attribute on a fresh exception instance does not fail.
        let _ = err.value(py).setattr(*name, value.clone_ref(py));
    }
    err
}

fn obj<'py, T: IntoPyObject<'py>>(py: Python<'py>, value: T) -> Py<PyAny> {
    value.into_py_any(py).unwrap_or_else(|_| py.None())
}

/// The Python exception of a library error.
pub(crate) fn to_py(py: Python<'_>, err: &Error) -> PyErr {
    let msg = err.to_string();
    match err {
        Error::MalformedFen { .. }
        | Error::MalformedHubPosition { .. }
        | Error::InvalidPosition { .. } => InvalidFenError::new_err(msg),
        Error::MalformedMove { .. }
        | Error::MalformedSquare { .. }
        | Error::SquareOutOfRange { .. } => InvalidMoveError::new_err(msg),
        Error::IllegalMove { why, .. } => with_attrs(
            py,
            IllegalMoveError::new_err(msg),
            &[("reason", obj(py, why.to_string()))],
        ),
        Error::GameOver { outcome } => with_attrs(
            py,
            GameOverError::new_err(msg),
            &[("reason", obj(py, outcome.to_string()))],
        ),
        Error::AmbiguousMove { candidates, .. } => {
            let list: Vec<&str> = candidates.split(' ').collect();
            with_attrs(
                py,
                AmbiguousMoveError::new_err(msg),
                &[("candidates", obj(py, list))],
            )
        }
        Error::UnknownVariant { .. } => PyValueError::new_err(msg),
        Error::PdnRead { .. } => PyOSError::new_err(msg),
        Error::MalformedPdn {
            game, line, column, ..
        }
        | Error::PdnMove {
            game, line, column, ..
        }
        | Error::PdnGameType {
            game, line, column, ..
        }
        | Error::PdnFen {
            game, line, column, ..
        } => {
            let msg = format!("{msg} (column {column})");
            with_attrs(
                py,
                PdnError::new_err(msg),
                &[
                    ("game", obj(py, *game)),
                    ("line", obj(py, *line)),
                    ("column", obj(py, *column)),
                ],
            )
        }
    }
}

/// `Result<T, Error>` to `PyResult<T>`.
pub(crate) trait IntoPy<T> {
    /// Converts the error, if any, to its Python exception.
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, Error> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, &e))
    }
}
