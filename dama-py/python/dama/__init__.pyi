"""dama: Italian draughts and its relatives, in Rust, for Python (type stubs)."""

import enum
from typing import Tuple

from . import pdn as pdn
from ._dama import (
    AmbiguousMoveError as AmbiguousMoveError,
    Board as Board,
    DamaError as DamaError,
    Engine as Engine,
    GameOverError as GameOverError,
    IllegalMoveError as IllegalMoveError,
    InvalidFenError as InvalidFenError,
    InvalidMoveError as InvalidMoveError,
    Line as Line,
    Move as Move,
    Outcome as Outcome,
    PdnError as PdnError,
    Piece as Piece,
    Score as Score,
    SearchResult as SearchResult,
    perft as perft,
    probe_endgame as probe_endgame,
)

__version__: str
WHITE: bool
BLACK: bool
VARIANTS: Tuple[str, ...]
LEVELS: Tuple[str, ...]
MOVE_INDEX_SIZE: int
PLANES: int

class Variant(str, enum.Enum):
    """The variants dama plays; each value is the name ``Board`` takes."""

    ITALIAN = "italian"
    SPANISH = "spanish"
    CZECH = "czech"
    ENGLISH = "english"
    RUSSIAN = "russian"
    BRAZILIAN = "brazilian"
