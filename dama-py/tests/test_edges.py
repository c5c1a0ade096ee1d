"""The edges of the Python API: a finished game has no legal move, a board is
unhashable but has a key, boards and moves pickle, numbers out of range are ValueErrors that
say so, a missing file is FileNotFoundError, and seeded random calls raise only the
documented exceptions (TypeError for a value of the wrong type, ValueError and its dama
subclasses for a value out of range, IndexError for pop/peek of an empty stack)."""

import concurrent.futures
import copy
import math
import multiprocessing
import pickle
import random
import sys

import pytest

import dama


def drawn_by_forty_moves():
    board = dama.Board("W:WK32:BK1")
    squares = [(32, 28, 1, 5), (28, 32, 5, 1)]
    for i in range(40):
        w_from, w_to, b_from, b_to = squares[i % 2]
        board.push_text(f"{w_from}-{w_to}")
        board.push_text(f"{b_from}-{b_to}")
    return board


def test_a_game_drawn_by_the_forty_move_rule_has_no_legal_move():
    board = drawn_by_forty_moves()
    assert board.is_game_over() and board.outcome().reason == "no_progress"
    assert board.legal_moves == []
    # The move the rules would allow on the board, were the game not over.
    move = board.parse_move("32-28")
    assert not board.is_legal(move)
    with pytest.raises(dama.GameOverError):
        board.push(move)
    assert board.moves_at_index(move.index()) == []
    # A python-chess style loop ends.
    loops = 0
    while board.legal_moves and loops < 10:
        loops += 1
    assert loops == 0
    board.pop()
    assert not board.is_game_over() and board.is_legal(board.parse_move("5-1"))


def test_a_board_is_unhashable_and_its_key_is_the_position():
    board = dama.Board()
    with pytest.raises(TypeError):
        hash(board)
    with pytest.raises(TypeError):
        {board}  # noqa: B018
    seen = {board.key()}
    board.push_text("22-18")
    assert board.key() not in seen
    board.pop()
    assert board.key() in seen
    assert board.key() == (board.fen(), "italian")
    assert dama.Board().key() != dama.Board(variant="spanish").key()
    # Moves and pieces are values: hashable.
    assert len({m for m in board.legal_moves}) == len(board.legal_moves)
    assert hash(dama.Piece(dama.WHITE)) == hash(dama.Piece(dama.WHITE))


def played_board():
    board = dama.Board(variant="italian")
    for text in ["22-18", "11-14"]:
        board.push_text(text)
    for _ in range(2):
        board.push(board.legal_moves[0])
    return board


def test_boards_moves_and_pieces_pickle_with_their_history():
    board = played_board()
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(board, protocol))
        assert again == board and again.fen() == board.fen()
        assert [m.hub() for m in again.move_stack] == [m.hub() for m in board.move_stack]
        assert again.quiet_plies == board.quiet_plies and again.ply == 4
        assert again.pop() == board.peek()
        for move in board.legal_moves:
            back = pickle.loads(pickle.dumps(move, protocol))
            assert back == move and back.pdn() == move.pdn() and back.path == move.path
        piece = dama.Piece(dama.BLACK, king=True)
        assert pickle.loads(pickle.dumps(piece, protocol)) == piece
    drawn = drawn_by_forty_moves()
    assert pickle.loads(pickle.dumps(drawn)).outcome().reason == "no_progress"
    spanish = dama.Board("W:W21:B1", variant="spanish")
    assert pickle.loads(pickle.dumps(spanish)).variant == "spanish"
    assert copy.deepcopy(board) == board


def test_boards_and_moves_cross_a_process_boundary():
    boards = [played_board(), dama.Board("B:W18:B11,K30")]
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        back = list(pool.map(copy.copy, boards))
        fens = list(pool.map(dama.Board.fen, boards))
        moves = list(pool.map(copy.copy, boards[0].legal_moves))
    assert back == boards and [b.ply for b in back] == [4, 0]
    assert fens == [b.fen() for b in boards]
    assert moves == boards[0].legal_moves


def test_a_pickle_that_names_an_illegal_move_is_refused():
    with pytest.raises(dama.IllegalMoveError):
        dama.Board._restore(dama.Board().fen(), "italian", ["22-17"])
    with pytest.raises(dama.InvalidFenError):
        dama.Move._restore("garbage", "italian", "22-18")


def test_the_package_has_a_version():
    assert isinstance(dama.__version__, str)
    assert dama.__version__.count(".") == 2


@pytest.mark.parametrize(
    "call,needle",
    [
        (lambda: dama.perft(dama.Board(), -1), "depth=-1 is out of range: expected 0..=20"),
        (lambda: dama.perft(dama.Board(), 21), "depth=21"),
        (lambda: dama.perft(dama.Board(), 10**30), "depth=1000000000000000000000000000000"),
        (lambda: dama.Engine().search(dama.Board(), depth=0), "depth=0 is out of range"),
        (lambda: dama.Engine().search(dama.Board(), nodes=0), "nodes=0"),
        (lambda: dama.Engine().search(dama.Board(), movetime=0), "movetime=0 is not a time"),
        (lambda: dama.Engine().search(dama.Board(), movetime=math.nan), "movetime=nan"),
        (lambda: dama.Engine().search(dama.Board(), movetime=10**400), "movetime=1000"),
        (lambda: dama.Engine().analyse(dama.Board(), 0, depth=1), "multipv=0"),
        (lambda: dama.Engine(threads=0), "threads=0 is out of range: expected 1..=256"),
        (lambda: dama.Engine(hash_mb=0), "hash_mb=0 is out of range"),
        (lambda: dama.Engine().play(dama.Board(), seed=-1), "seed=-1"),
        (lambda: dama.Board().piece_at(-(2**70)), "square=-1180591620717411303424"),
        (lambda: dama.Board().moves_at_index(1024), "index=1024"),
    ],
)
def test_numbers_out_of_range_are_value_errors_that_quote_them(call, needle):
    with pytest.raises(ValueError) as err:
        call()
    assert needle in str(err.value)
    assert not isinstance(err.value, OverflowError)


def test_a_missing_pdn_file_is_file_not_found(tmp_path):
    missing = tmp_path / "missing.pdn"
    with pytest.raises(FileNotFoundError) as err:
        dama.pdn.read(missing)
    assert err.value.filename == str(missing) and "missing.pdn" in str(err.value)
    with pytest.raises(IsADirectoryError):
        dama.pdn.read(tmp_path)


def test_planes_without_numpy_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)
    for call in (dama.Board().to_planes, dama.Board().legal_move_mask):
        with pytest.raises(ImportError, match="pip install numpy"):
            call()


# Seeded random calls over the API: only the documented exceptions.
VALUES = [
    0, 1, -1, 2, 20, 21, 32, 33, 1023, 1024, 2**31, 2**63, 2**64, -(2**63), 10**30, -(10**30),
    0.0, -0.0, 0.5, -1.5, 1e308, -1e308, math.inf, -math.inf, math.nan, 1e-300,
    "", " ", "22-18", "x", "W:W21:B1", "\x00", "\udcff", "é" * 10, "9" * 5000, "W:" * 3000,
    None, True, False, [], (), {}, b"22-18", object(),
]
DOCUMENTED = (TypeError, ValueError, IndexError)


def calls(board, engine):
    """Each entry: a name and a function of one value."""
    return [
        ("Board(fen)", lambda v: dama.Board(v)),
        ("Board(variant)", lambda v: dama.Board(None, v)),
        ("push_text", board.push_text),
        ("parse_move", board.parse_move),
        ("explain", board.explain),
        ("piece_at", board.piece_at),
        ("moves_at_index", board.moves_at_index),
        ("to_planes", board.to_planes),
        ("copy", board.copy),
        ("perft", lambda v: dama.perft(board, v) if v not in (20,) else None),
        ("Engine(threads)", lambda v: dama.Engine(threads=v, hash_mb=1)),
        ("Engine(hash_mb)", lambda v: dama.Engine(hash_mb=v) if v in (0, 1, 2, 20, -1) else None),
        ("search depth", lambda v: engine.search(board, depth=v, nodes=500)),
        ("search nodes", lambda v: engine.search(board, nodes=v, depth=2)),
        ("search movetime", lambda v: engine.search(board, movetime=v, depth=1)),
        ("analyse multipv", lambda v: engine.analyse(board, v, depth=1)),
        ("play level", lambda v: engine.play(board, v, seed=1, movetime=0.01)),
        ("play seed", lambda v: engine.play(board, "novice", seed=v, movetime=0.01)),
        ("pdn.read_string", lambda v: list(dama.pdn.read_string(v, skip_errors=True))),
        ("pdn.Game(result)", lambda v: dama.pdn.Game(board, None, v)),
    ]


def test_seeded_random_calls_raise_only_documented_exceptions():
    rng = random.Random(31)
    engine = dama.Engine(hash_mb=1)
    board = dama.Board()
    board.push_text("22-18")
    before = board.fen()
    table = calls(board, engine)
    for _ in range(600):
        name, call = rng.choice(table)
        value = rng.choice(VALUES)
        try:
            call(value)
        except DOCUMENTED as err:
            assert str(err), f"{name}({value!r}): an empty message"
        except MemoryError:
            assert name == "Engine(hash_mb)", f"{name}({value!r})"
        else:
            if name == "push_text":
                board.pop()
        assert board.fen() == before, f"{name}({value!r}) changed the board"
