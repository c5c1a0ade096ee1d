"""Tensors for machine learning: board planes and the legal-move mask."""

import numpy as np

import dama


def test_planes_of_the_start():
    planes = dama.Board().to_planes()
    assert planes.shape == (dama.PLANES, 8, 8) and planes.dtype == np.float32
    assert planes[0].sum() == 12 and planes[2].sum() == 12
    assert planes[1].sum() == 0 and planes[3].sum() == 0
    assert planes[4].min() == 1.0  # White to move
    # Square 1 is row 0, column 0; square 32 is row 7, column 7.
    assert planes[2, 0, 0] == 1 and planes[0, 7, 7] == 1
    planes[0, 0, 0] = 5  # the array is the caller's own


def test_relative_planes_turn_the_board_for_black():
    board = dama.Board("B:WK32,18:B5")
    absolute = board.to_planes()
    relative = board.to_planes(relative=True)
    assert absolute[1, 7, 7] == 1 and absolute[2].sum() == 1
    # Black to move: Black's man first, the board turned (square 5 drawn where 28 is).
    assert relative[0].sum() == 1 and relative[3].sum() == 1
    assert relative[3, 0, 0] == 1  # White's king on 32 seen from Black's side
    assert relative[4].max() == 0


def test_the_mask_marks_exactly_the_legal_moves():
    board = dama.Board()
    mask = board.legal_move_mask()
    assert mask.shape == (dama.MOVE_INDEX_SIZE,) and mask.dtype == np.bool_
    assert mask.sum() == len(board.legal_moves)
    for move in board.legal_moves:
        assert mask[move.index()]
        assert move.index() == (move.from_square - 1) * 32 + (move.to_square - 1)
        assert board.moves_at_index(move.index()) == [move]
    assert board.moves_at_index(0) == []


def test_relative_indices_match_relative_planes():
    board = dama.Board()
    board.push_text("22-18")
    for move in board.legal_moves:
        i = move.index(relative=True)
        assert i == (32 - move.from_square) * 32 + (32 - move.to_square)
        assert board.legal_move_mask(relative=True)[i]
        assert board.moves_at_index(i, relative=True) == [move]
