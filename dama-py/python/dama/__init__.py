"""dama: Italian draughts (dama italiana) and its relatives, in Rust, for Python.

Exact rules (the Italian capture priorities, promotion ending a capture, the 40-move
draw), PDN files, perft and a strong engine, in the shape of python-chess::

    import dama

    board = dama.Board()
    board.push_text("22-18")
    board.push_text("11-14")
    print(board.legal_moves)        # [Move('18x11x14')]: the capture is compulsory
    print(board.explain("21-17"))   # why a move is illegal, in the rules' words
    best = dama.Engine().search(board, depth=8).best_move

Squares are numbered 1..32 as in Italian books (square 1 at the top left, White at the
bottom); colours are booleans, ``dama.WHITE`` (True) and ``dama.BLACK`` (False).

Everything runs in the Rust library crates dama-rules and dama-search; no rule is written
in Python. Long computations (``perft``, every engine search) release the GIL.
"""

import enum as _enum

from . import _dama
from ._dama import (
    AmbiguousMoveError,
    Board,
    DamaError,
    Engine,
    GameOverError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    Line,
    Move,
    Outcome,
    PdnError,
    Piece,
    Score,
    SearchResult,
    perft,
    probe_endgame,
)

__version__ = _dama.__version__
"""The version of dama (the Rust crates' and this package's)."""

WHITE = True
"""White's colour (``board.turn``, ``piece.color``)."""
BLACK = False
"""Black's colour."""

Variant = _enum.Enum(  # type: ignore[misc]
    "Variant", {name.upper(): name for name in _dama.VARIANT_NAMES}, type=str, module=__name__
)
Variant.__doc__ = """The variants dama plays; each value is the name ``Board`` takes
(``dama.Variant.ITALIAN == "italian"``)."""

VARIANTS = tuple(_dama.VARIANT_NAMES)
"""The variant names: italian, spanish, czech, english, russian, brazilian."""

LEVELS = tuple(_dama.LEVEL_NAMES)
"""The engine's five levels for ``Engine.play``: novice, easy, normal, strong, hard."""

MOVE_INDEX_SIZE = _dama.MOVE_INDEX_SIZE
"""Entries of the from×to move encoding (``Move.index``, ``Board.legal_move_mask``): 1024."""

PLANES = _dama.PLANES
"""Planes of ``Board.to_planes()``: 5 (men and kings of each side, the side to move)."""

from . import pdn  # noqa: E402  (needs the names above)

__all__ = [
    "__version__",
    "AmbiguousMoveError",
    "BLACK",
    "Board",
    "DamaError",
    "Engine",
    "GameOverError",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "LEVELS",
    "Line",
    "MOVE_INDEX_SIZE",
    "Move",
    "Outcome",
    "PLANES",
    "PdnError",
    "Piece",
    "Score",
    "SearchResult",
    "VARIANTS",
    "Variant",
    "WHITE",
    "pdn",
    "perft",
    "probe_endgame",
]
