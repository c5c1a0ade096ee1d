"""dama.pdn: the Rust reader (tolerant, errors with game and line) and writer."""

import io

import pytest

import dama
from conftest import DATA


def test_read_a_path_and_a_file_object_alike():
    path = DATA / "pdn" / "ambiguous.pdn"
    from_path = list(dama.pdn.read(path, skip_errors=True))
    with open(path, "rb") as f:
        from_file = list(dama.pdn.read(f, skip_errors=True))
    with open(path, encoding="utf-8") as f:
        from_text = list(dama.pdn.read(io.StringIO(f.read()), skip_errors=True))
    assert from_path == from_file == from_text
    assert len(from_path) == 2
    assert str(from_path[0].moves[0]) == "30x14x18x26"
    assert from_path[0].mainline_pdn()[0] == "30x21x14"


def test_a_bad_game_raises_with_its_game_and_line_and_reading_goes_on():
    games = dama.pdn.read(DATA / "pdn" / "ambiguous.pdn")
    assert next(games).tag("Event") == "A capture that needs its landing path"
    with pytest.raises(dama.PdnError) as info:
        next(games)
    err = info.value
    assert (err.game, err.line, err.column) == (2, 8, 4)
    assert str(err).endswith("(column 4)")
    assert isinstance(err, ValueError)
    assert "ambiguous" in str(err)
    assert str(next(games).moves[0]) == "30x14x19x27"
    with pytest.raises(StopIteration):
        next(games)


def test_the_column_counts_characters():
    with pytest.raises(dama.PdnError) as info:
        next(dama.pdn.read_string('[Event "città"]\n1. 22-18 11-15 bogus *'))
    assert (info.value.game, info.value.line, info.value.column) == (1, 2, 16)


def test_skip_errors_keeps_the_errors():
    reader = dama.pdn.read(DATA / "pdn" / "bad_between_good.pdn", skip_errors=True)
    good = list(reader)
    assert good and reader.errors
    assert all(isinstance(e, dama.PdnError) and e.line >= 1 for e in reader.errors)


def test_garbage_is_an_error_not_a_crash():
    for text in ["[Event", "1. 22-18 {open", "[FEN \"W:W99\"]\n1. 22-18 *", "\x00\xff" * 50,
                 "1. 99-98 *", ")(" * 100]:
        reader = dama.pdn.read_string(text, skip_errors=True)
        list(reader)
    with pytest.raises(OSError):
        dama.pdn.read(DATA / "no such file.pdn")


def test_write_a_board_and_read_it_back():
    board = dama.Board()
    for text in ["22-19", "10-14", "19x10"]:
        board.push_text(text)
    game = dama.pdn.Game(board, tags=[("White", "Rossi"), ("Black", "Bianchi")])
    text = dama.pdn.write(game)
    assert text == ("[White \"Rossi\"]\n[Black \"Bianchi\"]\n[Result \"*\"]\n"
                    "[GameType \"22,W,8,8,N2,1\"]\n\n1. 22-19 10-14 2. 19x10 *\n")
    back = list(dama.pdn.read_string(text))
    assert back == [game]
    assert back[0].board() == board and back[0].board().ply == 3
    assert back[0].start() == dama.Board()
    assert back[0].tags == [("White", "Rossi"), ("Black", "Bianchi")]
    # Several games, a Board among them, and a file.
    out = io.StringIO()
    both = dama.pdn.write([game, board], out)
    assert out.getvalue() == both and len(list(dama.pdn.read_string(both))) == 2


def test_a_finished_board_writes_its_result():
    board = dama.Board("W:W18:B14")
    board.push_text("18x11")
    game = dama.pdn.Game(board)
    assert game.result == "1-0" and game.start_fen == "W:W18:B14"
    assert "[FEN \"W:W18:B14\"]" in game.pdn()
    with pytest.raises(ValueError, match="not a PDN result"):
        dama.pdn.Game(board, result="white")
    with pytest.raises(TypeError):
        dama.pdn.write([42])
