"""dama.Engine: search, analysis, the five levels, and stopping from another thread."""

import threading
import time

import pytest

import dama


def test_search_finds_the_two_for_one_shot():
    board = dama.Board("W:W22,29:B18,9")
    result = dama.Engine().search(board, depth=8)
    assert str(result.best_move) == "22x13x18"
    assert result.pv[0] == result.best_move
    assert result.depth >= 1 and result.nodes > 0
    assert isinstance(result.score, dama.Score)


def test_a_won_position_scores_a_win_in_plies():
    result = dama.Engine().search(dama.Board("W:W18:B14"), depth=4)
    assert result.score.win_in == 1
    assert result.score.loss_in is None
    assert result.score > dama.Engine().search(dama.Board(), depth=2).score


def test_analyse_gives_distinct_lines_best_first():
    lines = dama.Engine().analyse(dama.Board(), multipv=3, depth=6)
    assert len(lines) == 3
    assert len({line.move for line in lines}) == 3
    assert lines[0].score >= lines[1].score >= lines[2].score
    for line in lines:
        assert line.pv[0] == line.move and line.depth == 6


def test_every_limit_and_the_missing_limit():
    board = dama.Board()
    # A node limit is reached to within the threads' reporting granularity.
    assert 1 <= dama.Engine().search(board, nodes=20_000).nodes < 60_000
    engine = dama.Engine(threads=2, hash_mb=8)
    start = time.perf_counter()
    assert engine.search(board, movetime=0.05).best_move in board.legal_moves
    assert time.perf_counter() - start < 2.0
    with pytest.raises(ValueError, match="no limit"):
        engine.search(board)
    for bad in (-1.0, float("nan"), float("inf"), 1e308, 1e20):
        with pytest.raises(ValueError, match="not a time"):
            engine.search(board, movetime=bad)
    with pytest.raises(MemoryError):
        dama.Engine(hash_mb=1 << 40)


def test_levels_play_legal_moves_reproducibly_by_seed():
    engine = dama.Engine()
    board = dama.Board()
    for level in dama.LEVELS:
        move = engine.play(board, level, seed=7, movetime=0.2)
        assert move in board.legal_moves
    first = [str(engine.play(board, "novice", seed=s)) for s in range(4)]
    again = [str(engine.play(board, "novice", seed=s)) for s in range(4)]
    assert first == again
    with pytest.raises(ValueError, match="unknown level"):
        engine.play(board, "grandmaster")
    assert engine.play(dama.Board("W:W18:B14").copy(), "easy", seed=1).captured == [14]


def test_a_finished_game_has_no_best_move():
    board = dama.Board("B:W18:B5")
    board = dama.Board("W:W18:B14")
    board.push_text("18x11")
    assert dama.Engine().play(board, "normal", seed=1) is None
    assert dama.Engine().search(board, depth=3).best_move is None


def test_an_infinite_search_is_stopped_from_another_thread():
    engine = dama.Engine()
    results = []
    worker = threading.Thread(
        target=lambda: results.append(engine.search(dama.Board(), infinite=True)))
    worker.start()
    time.sleep(0.3)
    assert worker.is_alive(), "the search runs while this thread holds the GIL by turns"
    engine.stop()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert results[0].best_move in dama.Board().legal_moves


def test_the_endgame_tables_are_probed_and_agree_with_the_search():
    assert dama.probe_endgame(dama.Board()) is None  # men on the board
    assert dama.probe_endgame(dama.Board("W:WK14:BK10")) == ("win", 1)
    # Two kings beat one: the tables and the search give the same distance (to the capture,
    # which ends the game: the search plays the tables' move and reports its distance).
    board = dama.Board("W:WK29,K30:BK1")
    assert dama.probe_endgame(board) == ("win", 11)
    assert str(dama.Engine().search(board, depth=6).score) == "win in 11"
    board.push_text("29-25")
    assert dama.probe_endgame(board) == ("loss", 10)
    # Men too: a king and a man against a king.
    assert dama.probe_endgame(dama.Board("W:WK29,22:BK1"))[0] in ("win", "draw")


@pytest.fixture
def ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt, as in a terminal: a process started in the background
    by a non-interactive shell (CI's, `cmd &`) inherits SIGINT ignored, and Python then
    installs no handler of its own, so that Ctrl-C would do nothing at all."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("ctrl_c_raises")
@pytest.mark.parametrize("interrupt", ["interrupt_main", "raise_signal"])
def test_ctrl_c_stops_an_infinite_search_and_raises(interrupt):
    import _thread
    import signal

    engine = dama.Engine()
    board = dama.Board()
    send = {
        "interrupt_main": _thread.interrupt_main,
        "raise_signal": lambda: signal.raise_signal(signal.SIGINT),
    }[interrupt]
    # Ctrl-C after 0.3 s; a watchdog stops the search after 8 s should Ctrl-C not reach it
    # (then the search returns and the test fails on the time, rather than hanging).
    ctrl_c = threading.Timer(0.3, send)
    watchdog = threading.Timer(8, engine.stop)
    ctrl_c.start()
    watchdog.start()
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            engine.search(board, infinite=True)
        elapsed = time.monotonic() - start
    finally:
        watchdog.cancel()
        ctrl_c.cancel()
    assert elapsed < 4, f"KeyboardInterrupt came {elapsed:.1f} s after the search began"
    # The engine is whole afterwards: the next search runs and answers.
    assert engine.search(board, depth=3).best_move in board.legal_moves


@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_stops_a_long_analysis_and_a_level_too():
    import _thread

    engine = dama.Engine()
    # Out of the opening book, so that Hard searches.
    board = dama.Board("W:W20,21,22,23,25,26,27,28,29,30,31:B1,2,3,5,6,7,8,9,10,11,12")
    for call in (lambda: engine.analyse(board, 2, infinite=True),
                 lambda: engine.play(board, "hard", movetime=60)):
        timer = threading.Timer(0.3, _thread.interrupt_main)
        watchdog = threading.Timer(8, engine.stop)
        timer.start()
        watchdog.start()
        start = time.monotonic()
        try:
            with pytest.raises(KeyboardInterrupt):
                call()
        finally:
            watchdog.cancel()
            timer.cancel()
        assert time.monotonic() - start < 4
