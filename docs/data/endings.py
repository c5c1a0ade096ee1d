#!/usr/bin/env python3
"""Win, draw and loss shares of small endings, over every legal placement, from the tables.

    python3 docs/data/endings.py DAMA TABLES VARIANT CLASS... [--by-square]

DAMA is the `dama` binary, TABLES a directory built by `dama egtb build --dir TABLES`, and
each CLASS names White's pieces, a dash, Black's (`KK-K`: two white kings against a black
king; `MM-K`: two white men against a king), always with White to move. Every placement is
probed (`dama egtb probe --stdin`): men anywhere but on their own promotion row, a capture
pending or not. Prints per class the positions, the shares of win, draw and loss for the
side to move and the longest win in plies (MTC, plies to the next capture or man move).
With --by-square, and a lone black piece, also the average length of the wins by the square
of that piece (the lone king's refuges).
"""

import itertools
import subprocess
import sys
from collections import defaultdict

WHITE_MEN = range(5, 33)  # a white man on 1..4 would have been crowned
BLACK_MEN = range(1, 29)  # a black man on 29..32 likewise
ALL = range(1, 33)


def placements(white, black):
    """Every FEN of the class, White to move, and the squares of Black's pieces."""
    kinds = [("W", p) for p in white] + [("B", p) for p in black]
    # Place the pieces kind by kind; identical pieces of one side in increasing order.
    groups = []
    for key in (("W", "K"), ("W", "M"), ("B", "K"), ("B", "M")):
        n = sum(1 for k in kinds if k == key)
        if n:
            groups.append((key, n))

    def rec(i, used, items):
        if i == len(groups):
            yield items
            return
        (side, kind), n = groups[i]
        squares = ALL if kind == "K" else (WHITE_MEN if side == "W" else BLACK_MEN)
        free = [s for s in squares if s not in used]
        for combo in itertools.combinations(free, n):
            yield from rec(i + 1, used | set(combo), items + [(side, kind, s) for s in combo])

    for items in rec(0, frozenset(), []):
        w = ",".join(("K" if k == "K" else "") + str(s) for side, k, s in items if side == "W")
        b = ",".join(("K" if k == "K" else "") + str(s) for side, k, s in items if side == "B")
        yield "W:W%s:B%s" % (w, b), [s for side, _, s in items if side == "B"]


def main(argv):
    by_square = "--by-square" in argv
    args = [a for a in argv if a != "--by-square"]
    if len(args) < 4:
        sys.exit(__doc__)
    dama, tables, variant, classes = args[0], args[1], args[2], args[3:]
    for name in classes:
        white, black = name.split("-")
        cases = list(placements(white, black))
        text = "".join(fen + "\n" for fen, _ in cases)
        out = subprocess.run(
            [dama, "egtb", "probe", "--variant", variant, "--dir", tables, "--stdin"],
            input=text, capture_output=True, text=True, check=True,
        ).stdout.splitlines()
        assert len(out) == len(cases), (name, len(out), len(cases))
        count = defaultdict(int)
        longest = 0
        lengths = defaultdict(list)
        for (fen, squares), line in zip(cases, out):
            words = line.split()
            count[words[0]] += 1
            if words[0] == "win":
                longest = max(longest, int(words[1]))
                if len(squares) == 1:
                    lengths[squares[0]].append(int(words[1]))
        n = len(cases)
        print("%-8s %9d positions  win %6.2f %%  draw %6.2f %%  loss %6.2f %%  longest win %d"
              % (name, n, 100 * count["win"] / n, 100 * count["draw"] / n,
                 100 * count["loss"] / n, longest))
        others = set(count) - {"win", "draw", "loss"}
        if others:
            print("  also: %s" % ", ".join("%s %d" % (k, count[k]) for k in sorted(others)))
        if by_square and lengths:
            print("  average win by the lone piece's square: " + ", ".join(
                "%d: %.1f" % (s, sum(v) / len(v)) for s, v in sorted(lengths.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
