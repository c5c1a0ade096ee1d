"""Board and Move: the python-chess-style API over dama-rules."""

import copy

import pytest

import dama


def test_start_position_has_the_seven_moves_dama_moves_prints():
    board = dama.Board()
    assert [str(m) for m in board.legal_moves] == [
        "21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"]
    assert board.turn == dama.WHITE
    assert board.variant == "italian"
    assert board.fen() == "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    assert len(board.pieces()) == 24
    assert board.pieces()[1] == dama.Piece(dama.BLACK)
    assert board.piece_at(32).symbol() == "w"
    assert board.piece_at(15) is None


def test_push_pop_peek_and_the_stack():
    board = dama.Board()
    first = board.push_text("22-18")
    board.push_text("11-14")
    assert board.turn == dama.WHITE
    assert [str(m) for m in board.legal_moves] == ["18x11x14"]
    capture = board.legal_moves[0]
    assert capture.from_square == 18 and capture.to_square == 11
    assert capture.captured == [14] and capture.path == [18, 11]
    assert capture.pdn() == "18x11" and str(capture) == "18x11x14" and capture.hub() == "18x11x14"
    assert capture.is_capture and not capture.promotes
    board.push(capture)
    assert board.peek() == capture
    assert [str(m) for m in board.move_stack] == ["22-18", "11-14", "18x11x14"]
    assert board.ply == 3
    assert board.pop() == capture
    assert board.pop().pdn() == "11-14"
    assert board.pop() == first
    assert board == dama.Board()
    with pytest.raises(IndexError):
        board.pop()
    with pytest.raises(IndexError):
        board.peek()


def test_pdn_text_is_accepted_and_the_path_of_a_multiple_capture_is_kept():
    board = dama.Board("W:W27:B23,24,15,16")
    m = board.parse_move("27x11")
    assert board.legal_moves == [m]
    assert m.captured == [15, 23] and str(m) == "27x11x15x23"
    assert m.path == [27, 20, 11]
    with pytest.raises(dama.IllegalMoveError, match="not complete"):
        board.parse_move("27x20")


def test_an_illegal_move_raises_with_the_rules_reason_and_changes_nothing():
    board = dama.Board()
    board.push_text("22-18")
    board.push_text("11-14")
    before = board.fen()
    with pytest.raises(dama.IllegalMoveError) as info:
        board.push_text("21-17")
    assert info.value.reason == "a capture is compulsory and only the piece on 18 can capture"
    assert "21-17" in str(info.value)
    assert isinstance(info.value, ValueError)
    assert board.fen() == before and board.ply == 2
    assert board.explain("21-17") == info.value.reason
    assert board.explain("18x11") is None


def test_explain_gives_the_priority_rule_by_name():
    board = dama.Board("W:W22,K30:B18,K26,17")
    why = board.explain("22x13")
    assert why == ("this capture loses to 30x14x18x26 by tier 1: "
                   "the capture of more pieces must be played")


def test_errors_are_value_errors_with_the_librarys_messages():
    with pytest.raises(dama.InvalidFenError, match="bad FEN"):
        dama.Board("W:W33")
    with pytest.raises(ValueError, match="unknown variant"):
        dama.Board(variant="chess")
    board = dama.Board()
    for bad in ["", "22", "a-b", "22-18-14", "0-5", "x" * 10_000, "\x00", "22x"]:
        with pytest.raises(dama.InvalidMoveError):
            board.push_text(bad)
    with pytest.raises(dama.IllegalMoveError, match="no piece on square 15"):
        board.push_text("15-19")
    with pytest.raises(dama.AmbiguousMoveError) as info:
        dama.Board("W:W28,30,31,32:B2,5,6,18,19,26,27").push_text("30x14")
    assert sorted(info.value.candidates) == ["30x14x18x26", "30x14x19x27"]
    with pytest.raises(ValueError):
        board.piece_at(0)
    assert board == dama.Board()


def test_a_finished_game_has_an_outcome_and_refuses_moves():
    board = dama.Board("W:W18:B14")
    assert board.outcome() is None and not board.is_game_over()
    board.push_text("18x11")
    outcome = board.outcome()
    assert board.is_game_over()
    assert outcome.winner == dama.WHITE and outcome.reason == "no_moves"
    assert outcome.result() == "1-0"
    assert outcome.message == "white wins: black has no legal move"
    with pytest.raises(dama.GameOverError):
        board.push_text("11-7")


def test_forty_moves_without_progress_draw_an_italian_game():
    board = dama.Board("W:WK32:BK1")
    squares = [(32, 28, 1, 5), (28, 32, 5, 1)]
    for i in range(40):
        w_from, w_to, b_from, b_to = squares[i % 2]
        board.push_text(f"{w_from}-{w_to}")
        assert not board.is_game_over() or i == 39
        board.push_text(f"{b_from}-{b_to}")
    outcome = board.outcome()
    assert outcome.winner is None and outcome.reason == "no_progress"
    assert outcome.result() == "1/2-1/2"
    assert board.quiet_plies == 80


def test_equality_and_hash_are_on_the_position_and_variant():
    a = dama.Board()
    b = dama.Board()
    for text in ["22-18", "11-15"]:
        a.push_text(text)
    for text in ["22-18", "11-15"]:
        b.push_text(text)
    b2 = b.copy(stack=False)
    assert a == b == b2 and a.key() == b.key() == b2.key()
    assert b2.ply == 0 and b.ply == 2
    assert len({a.key(), b.key(), b2.key()}) == 1
    assert dama.Board() != dama.Board(variant="spanish")
    assert dama.Board() != a
    c = copy.deepcopy(a)
    c.pop()
    assert a.ply == 2 and c.ply == 1
    assert (dama.Board() == "not a board") is False


def test_ascii_and_svg_pictures():
    board = dama.Board()
    text = str(board)
    assert text.splitlines()[0] == "b   b   b   b       1  2  3  4"
    assert text.endswith("white to move\n")
    svg = board._repr_svg_()
    assert svg.startswith("<svg") and svg.count("<circle") == 24
    assert board.svg(board.legal_moves[0]).count("#c9a227") == 2
    assert repr(board).startswith("Board('W:W21,")


def test_variants_are_named_and_play_their_own_rules():
    assert [v.value for v in dama.Variant] == list(dama.VARIANTS)
    assert dama.Variant.ITALIAN == "italian"
    # A man captures backwards in Russian, not in Italian.
    fen = "W:W18:B22"
    assert dama.Board(fen, dama.Variant.RUSSIAN).legal_moves[0].captured == [22]
    assert not dama.Board(fen, "italian").legal_moves[0].is_capture
    # Men do not take kings in Italian.
    assert all(not m.is_capture for m in dama.Board("W:W18:BK14").legal_moves)
