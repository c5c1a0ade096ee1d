#!/usr/bin/env python3
"""Endings with an advantage to press, from self-play games, for the endings benchmark in
docs/tuning.md ("Endings pressed to a win").

    python3 docs/data/advantage-endings.py DAMA OUT GAMES.pdn... [--pieces 7-10] [--nodes N] [--margin M]

For each game of the PDN files, its first position with 7 to 10 pieces (`dama pdn fens`) is
searched by `dama analyze --nodes N` (300,000 by default); the positions whose score for the
side to move (its last progress line's) is at least M hundredths of a man (80 by default), table wins and search wins
included, are written to OUT, one FEN a line, sorted, each once. An ending is played from both
sides in a match (`dama match A B --openings OUT --games 2×lines`), so a build that presses
better scores above 50 %. Progress goes to stderr every 50 positions.
"""

import json
import subprocess
import sys


def pieces(fen):
    """The pieces of a FEN `W:W21,K5:B1,2`."""
    _, white, black = fen.split(":")
    return sum(len(side[1:].split(",")) for side in (white, black) if side[1:])


def main():
    args = sys.argv[1:]
    opts = {"--pieces": "7-10", "--nodes": "300000", "--margin": "80"}
    rest = []
    while args:
        a = args.pop(0)
        if a in opts and args:
            opts[a] = args.pop(0)
        else:
            rest.append(a)
    if len(rest) < 3:
        sys.exit(__doc__)
    dama, out, files = rest[0], rest[1], rest[2:]
    low, high = (int(x) for x in opts["--pieces"].split("-"))
    firsts = set()
    for path in files:
        listed = subprocess.run([dama, "pdn", "fens", path], capture_output=True, text=True, check=True)
        taken = set()
        for line in listed.stdout.splitlines():
            game, _ply, fen = line.split(" ", 2)
            if game not in taken and low <= pieces(fen) <= high:
                taken.add(game)
                firsts.add(fen)
    print(f"{len(firsts)} positions of {low}-{high} pieces", file=sys.stderr)
    kept = []
    for i, fen in enumerate(sorted(firsts)):
        run = subprocess.run(
            [dama, "analyze", "--fen", fen, "--nodes", opts["--nodes"], "--json"],
            capture_output=True, text=True, check=True,
        )
        # The score of the last progress line: the deepest iteration's.
        info = [json.loads(x)["data"] for x in run.stdout.splitlines() if '"info"' in x]
        if info and abs(info[-1]["score"]) >= int(opts["--margin"]):
            kept.append(fen)
        if i % 50 == 49:
            print(f"{i + 1} searched, {len(kept)} kept", file=sys.stderr, flush=True)
    with open(out, "w") as f:
        f.writelines(fen + "\n" for fen in kept)
    print(f"{len(kept)} endings with an advantage of {opts['--margin']} or more", file=sys.stderr)


if __name__ == "__main__":
    main()
