//! Tensors for machine learning: the position as planes, the legal moves as a mask.
//!
//! Planes, shape `(PLANES, 8, 8)` = `(5, 8, 8)`, `float32`, indexed `[plane, row, column]`
//! with row 0 at the top of the diagram (square 1's row, White's far row) and column 0 at the
//! left, as `dama board` draws it:
//!
//! | plane | absolute (default) | `relative=True` |
//! |---:|---|---|
//! | 0 | white men | the side to move's men |
//! | 1 | white kings | the side to move's kings |
//! | 2 | black men | the opponent's men |
//! | 3 | black kings | the opponent's kings |
//! | 4 | all 1 when White is to move, else all 0 | the same |
//!
//! With `relative=True` and Black to move, the board is also turned 180° (square `n` is drawn
//! where square `33 - n` is), so that the side to move always plays up the board.
//!
//! Moves: index `(from - 1) * 32 + (to - 1)` in `0..MOVE_INDEX_SIZE` (1024), squares turned
//! (`33 - n`) with `relative=True` when Black moves. The encoding does not hold the captured
//! squares: two legal moves with the same start and end but different captures (rare: a king's
//! round trip) share an index, and `Board.moves_at_index` lists them.

use pyo3::prelude::*;
use pyo3::types::PyByteArray;

use dama_rules::{Color, Move, Position, Role, Square};

/// Entries of the move encoding: 32 start squares × 32 end squares.
pub(crate) const MOVE_INDEX_SIZE: usize = 32 * 32;
/// Planes of `Board.to_planes`.
pub(crate) const PLANES: usize = 5;

/// The index of `m`; with `flip`, of its squares turned 180°.
pub(crate) fn move_index(m: Move, flip: bool) -> usize {
    let turn = |s: Square| if flip { s.flip() } else { s };
    turn(m.from()).index() * 32 + turn(m.to()).index()
}

/// A NumPy array over the bytes of `data`, of `dtype`, reshaped to `shape`.
fn array<'py>(
    py: Python<'py>,
    data: &[u8],
    dtype: &str,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy").map_err(|e| {
        let err = pyo3::exceptions::PyModuleNotFoundError::new_err(
            "Board.to_planes() and Board.legal_move_mask() return NumPy arrays and need NumPy: \
             pip install numpy (or pip install 'dama[numpy]')",
        );
        err.set_cause(py, Some(e));
        err
    })?;
    let bytes = PyByteArray::new(py, data);
    numpy
        .call_method1("frombuffer", (bytes, dtype))?
        .call_method1("reshape", (shape.to_vec(),))
}

/// The planes of `pos`.
pub(crate) fn planes<'py>(
    py: Python<'py>,
    pos: &Position,
    relative: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut data = vec![0f32; PLANES * 64];
    let flip = relative && pos.turn() == Color::Black;
    for sq in Square::ALL {
        let Some(p) = pos.piece_at(sq) else { continue };
        let own = if relative {
            p.color == pos.turn()
        } else {
            p.color == Color::White
        };
        let plane = usize::from(!own) * 2 + usize::from(p.role == Role::King);
        let at = if flip { sq.flip() } else { sq };
        let cell = usize::from(at.row()) * 8 + usize::from(at.column());
        data[plane * 64 + cell] = 1.0;
    }
    if pos.turn() == Color::White {
        data[4 * 64..].fill(1.0);
    }
    let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_ne_bytes()).collect();
    array(py, &bytes, "float32", &[PLANES, 8, 8])
}

/// The mask of `legal` in the move encoding.
pub(crate) fn mask<'py>(
    py: Python<'py>,
    legal: &[Move],
    flip: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut data = vec![0u8; MOVE_INDEX_SIZE];
    for &m in legal {
        data[move_index(m, flip)] = 1;
    }
    array(py, &data, "bool", &[MOVE_INDEX_SIZE])
}
