"""dama.perft of every variant against the published numbers (tests/data/perft.txt, also in
docs/perft.md), up to a few million leaves each so that the run stays short."""

import threading
import time

import pytest

import dama
from conftest import DATA

MAX_LEAVES = 5_000_000


def published():
    """(variant, fen, depth, leaves) of every row up to MAX_LEAVES."""
    rows, pos = [], None
    for line in (DATA / "perft.txt").read_text().splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "pos":
            pos = (words[1], words[2])
        elif words[0] == "perft" and int(words[2]) <= MAX_LEAVES:
            rows.append((*pos, int(words[1]), int(words[2])))
    return rows


ROWS = published()


def test_every_variant_has_rows():
    assert {variant for variant, *_ in ROWS} == set(dama.VARIANTS)
    assert max(depth for *_, depth, _ in ROWS) >= 9


@pytest.mark.parametrize("variant,fen,depth,leaves", ROWS)
def test_perft_matches_the_published_number(variant, fen, depth, leaves):
    assert dama.perft(dama.Board(fen, variant), depth) == leaves


def test_perft_zero_is_one_and_the_board_is_unchanged():
    board = dama.Board()
    assert dama.perft(board, 0) == 1
    assert dama.perft(board, 1) == len(board.legal_moves)
    assert board == dama.Board()


def test_perft_releases_the_gil():
    """While perft(10) runs in another thread, this thread keeps running Python code."""
    board = dama.Board()
    done = []
    worker = threading.Thread(target=lambda: done.append(dama.perft(board, 10)))
    ticks = 0
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    assert done == [17761384]
    assert ticks >= 3
