"""Habits from python-chess that work on dama's Board, and the ones that differ (see the
package's README, "Coming from python-chess")."""

import pytest

import dama


def test_result_is_a_star_until_the_game_ends():
    board = dama.Board()
    assert board.result() == "*"
    # White to move with no move: Black has won.
    assert dama.Board("W:W29:B25,26,21,22").result() == "0-1"
    assert dama.Board("B:W21:B").result() == "1-0"


def test_move_text_is_in_the_legal_moves():
    board = dama.Board()
    assert "22-18" in board.legal_moves
    assert "22-17" not in board.legal_moves
    assert "hello" not in board.legal_moves
    assert 22 not in board.legal_moves
    board.push_san("22-18")
    board.push_san("11-14")
    # The capture in Hub text (captured squares) and in PDN text (landing squares only).
    assert "18x11x14" in board.legal_moves
    assert "18x11" in board.legal_moves
    assert board.legal_moves[0] == "18x11"
    assert board.legal_moves[0] != "21-17"


def test_push_san_and_parse_san_read_what_players_type():
    board = dama.Board()
    assert str(board.parse_san("22-18")) == "22-18"
    move = board.push_san(" 22-18 ")
    assert str(move) == "22-18" and board.ply == 1
    with pytest.raises(dama.InvalidMoveError):
        board.push_san("e4")
    with pytest.raises(dama.IllegalMoveError):
        board.push_san("22-18")
    assert board.ply == 1
