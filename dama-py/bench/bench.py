"""Speed of dama from Python, against pydraughts 0.6.7 and against the `dama perft` command.

Not a test: it prints figures. CPU time (time.process_time, and the children's CPU time for
the command) is what counts, so that a loaded machine gives comparable numbers.

Usage: python dama-py/bench/bench.py [DAMA_BINARY] [GAMES]
(DAMA_BINARY defaults to target/release/dama; build it with
`cargo build --release -p dama-cli`). Needs `pip install pydraughts==0.6.7`.

1. Move generation and push/pop: the same seeded random Italian games are replayed by both
   libraries; at every position the legal moves are listed (as a list of move objects) and
   the game's move pushed; at the end every move is popped. Positions per CPU-second.
2. perft 1..9 from the start, ten times: dama.perft (the loop runs in Rust) against the
   command `dama perft --depth 9` (which counts depths 1..9; its CPU time includes starting
   the process), leaves per CPU-second over the same depths.
"""

import os
import random
import resource
import subprocess
import sys
import time

from draughts import Board as PyBoard

import dama

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def random_games(count, seed=2026, max_plies=120):
    """Games as lists of (from, to, captured) keys, chosen among dama's legal moves."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        board, keys = dama.Board(), []
        while board.legal_moves and not board.is_game_over() and board.ply < max_plies:
            move = rng.choice(board.legal_moves)
            keys.append((move.from_square, move.to_square, frozenset(move.captured)))
            board.push(move)
        games.append(keys)
    return games


def replay_dama(games):
    positions = 0
    for keys in games:
        board = dama.Board()
        for key in keys:
            moves = board.legal_moves
            positions += 1
            for m in moves:
                if (m.from_square, m.to_square, frozenset(m.captured)) == key:
                    board.push(m)
                    break
        for _ in keys:
            board.pop()
    return positions


def replay_pydraughts(games):
    positions = 0
    for keys in games:
        board = PyBoard(variant="italian")
        for key in keys:
            moves = board.legal_moves()
            positions += 1
            for m in moves:
                if (m.steps_move[0], m.steps_move[-1], frozenset(m.captures or ())) == key:
                    board.push(m)
                    break
        for _ in keys:
            board.pop()
    return positions


def cpu(f, *args):
    start = time.process_time()
    result = f(*args)
    return result, time.process_time() - start


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "release", "dama")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    games = random_games(count)
    print(f"{count} random Italian games, {sum(map(len, games))} plies")

    n_py, t_py = cpu(replay_pydraughts, games)
    n_dama, t_dama = cpu(replay_dama, games * 100)
    rate_py, rate_dama = n_py / t_py, n_dama / t_dama
    print(f"pydraughts 0.6.7: {n_py} positions in {t_py:.2f} CPU-s = {rate_py:,.0f} positions/s")
    print(f"dama (Python):    {n_dama} positions in {t_dama:.2f} CPU-s = {rate_dama:,.0f} positions/s")
    print(f"dama / pydraughts: {rate_dama / rate_py:,.0f}x (goal >= 300x)")

    depth, repeat = 9, 10
    board = dama.Board()
    leaves, t_lib = cpu(lambda: sum(dama.perft(board, d)
                                    for _ in range(repeat) for d in range(1, depth + 1)))
    before = children_cpu()
    cli_leaves = 0
    for _ in range(repeat):
        out = subprocess.run([binary, "perft", "--depth", str(depth)], check=True,
                             capture_output=True, text=True).stdout
        cli_leaves += sum(int(line.split()[3]) for line in out.splitlines()
                          if line.startswith("depth"))
    t_cli = children_cpu() - before
    assert cli_leaves == leaves, (cli_leaves, leaves)
    rate_lib, rate_cli = leaves / t_lib, cli_leaves / t_cli
    print(f"{repeat} times perft 1..{depth}:")
    print(f"dama.perft:             {leaves} leaves in {t_lib:.3f} CPU-s = {rate_lib / 1e6:.1f} M/s")
    print(f"dama perft --depth {depth}:  {cli_leaves} leaves in {t_cli:.3f} CPU-s = {rate_cli / 1e6:.1f} M/s")
    print(f"dama.perft / CLI: {100 * rate_lib / rate_cli:.0f}% (goal >= 90%)")


if __name__ == "__main__":
    main()
