"""Interop check with a real Hub client: pydraughts' HubEngine drives dama-engine.

Two dama-engine processes at different settings play complete Italian games against each
other through pydraughts (which launches them, runs the handshake, sets parameters, sends
`pos` with the start position and every move since, one `level` line and `go`, and parses
`info` and `done`). Every returned move is pushed onto pydraughts' own Italian board until
pydraughts says the game is over. One side plays on a clock (pydraughts sends `level time=..
inc=..`, subtracting the increment itself, so the time sent can be negative) and must never
run out of it; the other plays a lower level with a fixed seed and a move time. Once per game
the clocked side ponders (`go ponder`, then `ponder-hit` from another thread), and once it
answers with 0.2 s left and a 0.5 s increment (sent as `time=-0.3 inc=0.5`) within the 0.2 s.

Usage: pydraughts_hub.py DAMA_ENGINE [GAMES]. Prints `N passed, M failed`; exit status 1 on a
failure.
"""
import os
import sys
import threading
import time
import traceback

from draughts import Board
from draughts.engine import HubEngine, Limit

CLOCK = 4.0  # seconds for the whole game
INC = 0.05
MOVE_TIME = 0.05
MAX_PLIES = 1000
WATCHDOG = 600  # seconds for the whole run


def launch(path, params):
    engine = HubEngine([path])
    assert "dama" in engine.id.get("name", ""), engine.id
    assert {"variant", "level", "hash", "threads", "seed", "multipv"} <= engine.options, engine.options
    assert "italian" in engine.variants, engine.variants
    engine.configure(params)
    engine.init()
    return engine


def ponder_move(engine, board, limit):
    """Asks for a move with `go ponder` and answers `ponder-hit` from this thread."""
    result = {}

    def search():
        try:
            result["play"] = engine.play(board, limit, ponder=True)
        except Exception as e:  # reported below
            result["error"] = e

    worker = threading.Thread(target=search)
    worker.start()
    time.sleep(0.1)
    engine.ponderhit()
    worker.join(30)
    if worker.is_alive():
        raise RuntimeError("no done after ponder-hit")
    if "error" in result:
        raise result["error"]
    return result["play"]


def play_game(clocked, leveled, clocked_is_white, game_no):
    board = Board(variant="italian")
    remaining = CLOCK
    plies = 0
    while not board.is_over():
        if plies >= MAX_PLIES:
            raise RuntimeError(f"game still going after {MAX_PLIES} plies")
        white_to_move = board.turn == 2  # pydraughts: WHITE = 2
        if white_to_move == clocked_is_white:
            limit = Limit(time=remaining, inc=INC)
            start = time.monotonic()
            if plies // 2 == 5:
                result = ponder_move(clocked, board, limit)
            elif plies // 2 == 8:
                # Nearly out of time with a large increment: pydraughts sends time=-0.3.
                result = clocked.play(board, Limit(time=0.2, inc=0.5), ponder=False)
                took = time.monotonic() - start
                if took >= 0.2:
                    raise RuntimeError(f"{took:.3f} s used of 0.2 s left at ply {plies}")
            else:
                result = clocked.play(board, limit, ponder=False)
            remaining -= time.monotonic() - start
            if remaining <= 0:
                raise RuntimeError(f"the clocked engine lost on time at ply {plies}")
            remaining += INC
        else:
            result = leveled.play(board, Limit(movetime=MOVE_TIME), ponder=False)
        if result.move is None:
            raise RuntimeError(f"no move at ply {plies}")
        legal = {m.hub_move for m in board.legal_moves()}
        if result.move.hub_move not in legal:
            raise RuntimeError(f"{result.move.hub_move} is not legal at ply {plies}: {sorted(legal)}")
        board.push(result.move)
        plies += 1
    clocked.ping()
    leveled.ping()
    winner = {2: "white", 1: "black", 0: "draw"}.get(board.winner(), "?")
    print(f"game {game_no}: {plies} plies, result {winner}, clock left {remaining:.2f} s", flush=True)


def main():
    path = os.path.realpath(sys.argv[1])
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    timer = threading.Timer(WATCHDOG, lambda: (print("0 passed, 1 failed: watchdog"), os._exit(1)))
    timer.daemon = True
    timer.start()
    clocked = launch(path, {"variant": "italian", "level": "hard", "hash": 16, "unknown-option": 1})
    leveled = launch(path, {"variant": "italian", "level": "normal", "seed": 7, "hash": 8})
    passed = failed = 0
    for n in range(games):
        try:
            play_game(clocked, leveled, n % 2 == 0, n + 1)
            passed += 1
        except Exception:
            traceback.print_exc()
            failed += 1
    for engine in (clocked, leveled):
        engine.quit()
        engine.p.wait(5)
        engine.p.stdin.close()
        engine.p.stdout.close()
    timer.cancel()
    print(f"{passed} passed, {failed} failed", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
