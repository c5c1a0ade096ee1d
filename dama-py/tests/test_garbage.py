"""No input crashes the interpreter: random text as FEN, move and PDN raises ValueError (or
one of its dama subclasses) with a message, and leaves the board as it was."""

import random

import pytest

import dama

ALPHABET = "0123456789xX-:,WBKwbk. \t\n\"[]{}();$%*/!?\x00\xff\u00e0\u2603"


def texts(rng, count):
    for _ in range(count):
        n = rng.randrange(0, 40)
        yield "".join(rng.choice(ALPHABET) for _ in range(n))


def test_random_fen_text_raises_value_errors_only():
    rng = random.Random(1)
    for text in texts(rng, 3000):
        try:
            board = dama.Board(text)
        except ValueError as err:
            assert str(err)
        else:
            assert board.fen() == dama.Board(board.fen()).fen()


def test_random_move_text_leaves_the_board_unchanged():
    rng = random.Random(2)
    board = dama.Board()
    board.push_text("22-18")
    before = board.fen()
    for text in texts(rng, 3000):
        for call in (board.parse_move, board.explain):
            try:
                call(text)
            except ValueError as err:
                assert str(err)
        try:
            board.push_text(text)
        except ValueError:
            assert board.fen() == before
        else:
            board.pop()


def test_random_pdn_text_is_read_with_errors_not_crashes():
    rng = random.Random(3)
    for text in texts(rng, 1000):
        reader = dama.pdn.read_string("1. " + text, skip_errors=True)
        for game in reader:
            game.pdn()
        for err in reader.errors:
            assert isinstance(err, dama.PdnError) and err.line >= 1 and err.column >= 1


def test_out_of_range_numbers_are_python_errors():
    board = dama.Board()
    with pytest.raises((OverflowError, ValueError)):
        board.piece_at(1000)
    with pytest.raises((OverflowError, ValueError)):
        dama.perft(board, -1)
    with pytest.raises((OverflowError, ValueError)):
        dama.Engine(hash_mb=-5)
    assert dama.Engine(threads=256).search(board, depth=1).best_move in board.legal_moves


@pytest.mark.parametrize(
    "fen,needle",
    [
        ("W:W1:B32", "a white man on 1, white's promotion row"),
        ("B:W22:B18,29", "a black man on 29, black's promotion row"),
        ("B:W:B", "no pieces at all"),
    ],
)
def test_a_fen_that_is_no_position_names_what_is_wrong(fen, needle):
    with pytest.raises(ValueError, match=needle):
        dama.Board(fen)
    # One side without pieces is a finished game, not an error.
    assert len(dama.Board("B:W18:B").legal_moves) == 0
