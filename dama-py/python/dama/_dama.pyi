"""Type stubs of dama's compiled module (the Rust bindings); import from ``dama``."""

from os import PathLike
from typing import Any, ClassVar, final, Iterator, List, Optional, Dict, Tuple, Union

import numpy

VARIANT_NAMES: List[str]
LEVEL_NAMES: List[str]
MOVE_INDEX_SIZE: int
PLANES: int
__version__: str

class DamaError(ValueError):
    """Base class of dama's errors: input that dama cannot take."""

class InvalidFenError(DamaError):
    """A FEN that cannot be read, or pieces that are not a position."""

class InvalidMoveError(DamaError):
    """Text that is not a move at all."""

class IllegalMoveError(DamaError):
    """A well-formed move that is not legal in the position."""

    reason: str
    """The rules' sentence saying why."""

class GameOverError(IllegalMoveError):
    """A move asked of a finished game; ``reason`` says how it ended."""

class AmbiguousMoveError(DamaError):
    """Move text that fits several legal moves."""

    candidates: List[str]
    """The legal moves it fits, in Hub text."""

class PdnError(DamaError):
    """A PDN game that cannot be read."""

    game: int
    """The game's number in the file, from 1."""
    line: int
    """The line, from 1."""
    column: int
    """The column, from 1, in characters, where the offending item starts."""

@final
class Move:
    """A move, with the position it is played from. Equal moves have the same start, end
    and captured squares."""

    @property
    def from_square(self) -> int:
        """The start square, 1..32."""
    @property
    def to_square(self) -> int:
        """The end square, 1..32."""
    @property
    def captured(self) -> List[int]:
        """The captured squares, ascending (empty for a quiet move)."""
    @property
    def path(self) -> List[int]:
        """The squares the piece stands on, start to end (every landing of a capture)."""
    @property
    def is_capture(self) -> bool:
        """Whether the move captures."""
    @property
    def promotes(self) -> bool:
        """Whether a man is crowned by this move."""
    def pdn(self) -> str:
        """PDN text: ``22-18``, ``27x20``, or the landing path when the short form is ambiguous."""
    def hub(self) -> str:
        """Hub text (the same as ``str(move)``): ``22-18``, ``27x20x23``."""
    def index(self, relative: bool = False) -> int:
        """Index in the from×to encoding: ``(from - 1) * 32 + (to - 1)``, in 0..1024;
        with ``relative``, Black's moves use the squares as Black sees them (``33 - n``)."""
    def __str__(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> Tuple[Any, Tuple[str, str, str]]: ...
    @classmethod
    def _restore(cls, fen: str, variant: str, text: str) -> "Move":
        """The move ``text`` (Hub) from ``fen`` under ``variant`` (what pickle calls)."""

@final
class Piece:
    """A piece: colour (``True`` White) and whether it is a king."""

    color: bool
    king: bool
    def __new__(cls, color: bool, king: bool = False) -> "Piece": ...
    def symbol(self) -> str:
        """``w``/``b`` for a man, ``W``/``B`` for a king."""
    def __getnewargs__(self) -> Tuple[bool, bool]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Outcome:
    """How a game ended."""

    winner: Optional[bool]
    """``True`` White, ``False`` Black, ``None`` for a draw."""
    reason: str
    """``"no_moves"``, ``"no_progress"`` (the 40-move rule), ``"repetition"`` or
    ``"kings_against_king"``."""
    message: str
    """The library's sentence, e.g. ``"white wins: black has no legal move"``."""
    def result(self) -> str:
        """``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``."""

@final
class Board:
    """A game: the position, the moves from the start, the draw counters. Equal when the
    positions and variants are; mutable, so not hashable: ``key()`` is the position's key.
    Pickles with its moves."""

    def __new__(cls, fen: Optional[str] = None, variant: str = "italian") -> "Board": ...
    @property
    def variant(self) -> str:
        """The variant's name."""
    @property
    def turn(self) -> bool:
        """The side to move: ``dama.WHITE`` (True) or ``dama.BLACK`` (False)."""
    @property
    def legal_moves(self) -> List[Move]:
        """The legal moves, sorted by start, end and captured squares; empty once the game
        is over (a draw rule included)."""
    @property
    def move_stack(self) -> List[Move]:
        """The moves played from the start."""
    @property
    def ply(self) -> int:
        """Moves played from the start."""
    @property
    def quiet_plies(self) -> int:
        """Plies since the last capture or man move."""
    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here (``False`` once the game is over)."""
    def push(self, move: Move) -> None:
        """Plays a legal move (``IllegalMoveError``, ``GameOverError`` otherwise)."""
    def push_text(self, text: str) -> Move:
        """Reads a move in Hub or PDN text and plays it."""
    def parse_move(self, text: str) -> Move:
        """Reads a move in Hub or PDN text without playing it."""
    def push_san(self, san: str) -> Move:
        """``push_text`` under python-chess's name (Hub or PDN text: dama has no SAN)."""
    def parse_san(self, san: str) -> Move:
        """``parse_move`` under python-chess's name."""
    def result(self) -> str:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, or ``"*"`` while the game goes on."""
    def pop(self) -> Move:
        """Takes back the last move (``IndexError`` when none)."""
    def peek(self) -> Move:
        """The last move (``IndexError`` when none)."""
    def copy(self, stack: bool = True) -> "Board":
        """A copy; ``stack=False`` starts it from the current position."""
    def __copy__(self) -> "Board": ...
    def __deepcopy__(self, _memo: object) -> "Board": ...
    def fen(self) -> str:
        """The position as FEN."""
    def start_fen(self) -> str:
        """The start position of the game as FEN."""
    def pieces(self) -> Dict[int, Piece]:
        """Square number to piece."""
    def piece_at(self, square: int) -> Optional[Piece]:
        """The piece on ``square`` (1..32)."""
    def is_game_over(self) -> bool:
        """Whether the game has ended."""
    def outcome(self) -> Optional[Outcome]:
        """How the game ended, or ``None``."""
    def explain(self, text: str) -> Optional[str]:
        """Why move ``text`` is not legal here (the rules' sentence), ``None`` when it is."""
    def svg(self, highlight: Optional[Move] = None) -> str:
        """The board as SVG (``dama board --svg``)."""
    def _repr_svg_(self) -> str: ...
    def to_planes(self, relative: bool = False) -> "numpy.ndarray":
        """The position as ``float32`` planes of shape ``(5, 8, 8)``: white men, white kings,
        black men, black kings, side to move (all 1 when White); with ``relative``, the side
        to move's pieces first and the board turned for Black."""
    def legal_move_mask(self, relative: bool = False) -> "numpy.ndarray":
        """``bool`` array of 1024: true at ``move.index(relative)`` of each legal move."""
    def moves_at_index(self, index: int, relative: bool = False) -> List[Move]:
        """The legal moves with that index (0..1024, else ``ValueError``)."""
    def key(self) -> Tuple[str, str]:
        """A hashable key of the position and variant: ``(fen, variant)``."""
    def __reduce__(self) -> Tuple[Any, Tuple[str, str, List[str]]]: ...
    @classmethod
    def _restore(cls, fen: str, variant: str, moves: List[str]) -> "Board":
        """The board from ``fen`` after ``moves`` (Hub text; what pickle calls)."""
    def __eq__(self, other: object) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

def perft(board: Board, depth: int) -> int:
    """Leaves of the legal-move tree of ``depth`` plies, 0..=20 (``ValueError`` otherwise;
    GIL released)."""

def probe_endgame(board: Board) -> Optional[Tuple[str, Optional[int]]]:
    """The endgame tables' value for the side to move (``dama egtb build``'s files, else
    tables built in memory: up to four pieces, five when all are kings): ``("win", plies)``,
    ``("loss", plies)`` (plies to the next capture or man move), ``("draw", None)``, or
    ``None`` when not held."""

@final
class Score:
    """A score for the side to move."""

    @property
    def centis(self) -> int:
        """Hundredths of a man; wins and losses near ±30000."""
    @property
    def men(self) -> float:
        """In men; ±100 less a hundredth per ply for wins and losses."""
    @property
    def win_in(self) -> Optional[int]:
        """Plies to a forced win, or ``None``."""
    @property
    def loss_in(self) -> Optional[int]:
        """Plies to a forced loss, or ``None``."""
    def __lt__(self, other: "Score") -> bool: ...
    def __le__(self, other: "Score") -> bool: ...
    def __gt__(self, other: "Score") -> bool: ...
    def __ge__(self, other: "Score") -> bool: ...

@final
class Line:
    """An analysis line."""

    move: Move
    score: Score
    pv: List[Move]
    depth: int
    nodes: int

@final
class SearchResult:
    """What a search found."""

    best_move: Optional[Move]
    ponder: Optional[Move]
    score: Score
    pv: List[Move]
    depth: int
    seldepth: int
    nodes: int
    time: float
    lines: List[Line]

@final
class Engine:
    """dama's search engine (GIL released while it thinks; ``stop()`` from any thread;
    Ctrl-C stops a search and raises ``KeyboardInterrupt``)."""

    def __new__(cls, threads: Optional[int] = None, hash_mb: Optional[int] = None) -> "Engine":
        """``threads`` 1..=256 (default 1), ``hash_mb`` 1 or more (default 64)."""
    def search(
        self,
        board: Board,
        *,
        depth: Optional[int] = None,
        movetime: Optional[float] = None,
        nodes: Optional[int] = None,
        infinite: bool = False,
    ) -> SearchResult:
        """The best move within the limits given (at least one, or ``infinite=True``)."""
    def analyse(
        self,
        board: Board,
        multipv: Optional[int] = None,
        *,
        depth: Optional[int] = None,
        movetime: Optional[float] = None,
        nodes: Optional[int] = None,
        infinite: bool = False,
    ) -> List[Line]:
        """The ``multipv`` best moves, best first."""
    def play(
        self,
        board: Board,
        level: str = "normal",
        *,
        seed: Optional[int] = None,
        movetime: Optional[float] = None,
    ) -> Optional[Move]:
        """The move a level (novice, easy, normal, strong, hard) plays; reproducible per seed."""
    def stop(self) -> None:
        """Ends the running search."""
    def clear(self) -> None:
        """Forgets what the table learnt."""

@final
class Game:
    """A PDN game (``dama.pdn.Game``)."""

    def __new__(
        cls,
        board: Optional[Board] = None,
        tags: Optional[List[Tuple[str, str]]] = None,
        result: Optional[str] = None,
    ) -> "Game": ...
    @property
    def tags(self) -> List[Tuple[str, str]]:
        """The tags in file order (without GameType, FEN, Result)."""
    def tag(self, name: str, default: Optional[str] = None) -> Optional[str]:
        """A tag's value."""
    @property
    def variant(self) -> str: ...
    @property
    def start_fen(self) -> str: ...
    @property
    def result(self) -> str: ...
    @property
    def moves(self) -> List[Move]: ...
    @property
    def comments(self) -> List[Tuple[int, str]]: ...
    def mainline_pdn(self) -> List[str]:
        """The main line in PDN move text."""
    def start(self) -> Board:
        """A board at the start."""
    def board(self) -> Board:
        """A board after the main line."""
    def pdn(self) -> str:
        """Canonical PDN text."""

@final
class PdnReader(Iterator[Game]):
    """Iterator over the games of a PDN input (``dama.pdn.read``)."""

    def __new__(
        cls,
        path: Optional[Union[str, "PathLike[str]"]] = None,
        data: Optional[bytes] = None,
        variant: str = "italian",
        skip_errors: bool = False,
    ) -> "PdnReader": ...
    def __iter__(self) -> "PdnReader": ...
    def __next__(self) -> Game: ...
    @property
    def errors(self) -> List[PdnError]:
        """Errors of the games passed over with ``skip_errors``."""
