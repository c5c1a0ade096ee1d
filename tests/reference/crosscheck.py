#!/usr/bin/env python3
"""Cross-check `dama moves` against the independent reference generator draughts_ref.py.

    python3 tests/reference/crosscheck.py --dama target/release/dama [--variant V|all]
                                          [--positions N] [--seed S] [--perft]

For each variant it builds N positions reached by random legal play from the start
position (reference generator, seeded random.Random) plus N random sparse positions with
several kings of both sides, feeds their canonical FENs to `dama moves --variant V --stdin`
and compares the move set of every line with the reference. `--perft` checks the
reference's own perft from the start against the published numbers first
(tests/data/perft.txt, shown in docs/perft.md; another file with --perft-data).
Exit status 1 on any mismatch (or perft error), 0 otherwise; the last line is
`N passed, M failed`.
"""

import argparse
import os
import random
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # keep tests/reference free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import draughts_ref as ref  # noqa: E402

# The published perft numbers, in the repository (the tests read the same file).
DEFAULT_PERFT_DATA = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), os.pardir, "data", "perft.txt"
)


# --------------------------------------------------------------------------- positions


def game_positions(variant, count, rng):
    """`count` distinct positions met in random games from the start position."""
    rules = ref.Rules(variant)
    out = []
    seen = set()
    while len(out) < count:
        board, color = ref.parse_fen(ref.START_FEN)
        max_plies = rng.randint(10, 200)
        # Record a few positions of each game, spread along it.
        record_p = rng.choice((0.05, 0.1, 0.2))
        for _ply in range(max_plies):
            fen = ref.to_fen(board, color)
            if fen not in seen and rng.random() < record_p:
                seen.add(fen)
                out.append(fen)
                if len(out) >= count:
                    break
            moves = ref.legal_moves(board, color, rules)
            if not moves:
                if fen not in seen:  # a lost position is worth checking too
                    seen.add(fen)
                    out.append(fen)
                break
            board = ref.play(board, color, rng.choice(moves))
            color = -color
    return out[:count]


def sparse_positions(count, rng):
    """Random positions with several kings of both sides and few men.

    No white man on 1-4, no black man on 29-32, at most 12 pieces a side, at least one piece.
    """
    out = []
    seen = set()
    white_men_ok = list(range(5, 33))
    black_men_ok = list(range(1, 29))
    while len(out) < count:
        if rng.random() < 0.2:
            fen = lattice_position(rng)
            if fen not in seen:
                seen.add(fen)
                out.append(fen)
            continue
        board = [ref.EMPTY] * 33
        free = set(range(1, 33))
        mode = rng.random()
        dense = mode < 0.25  # now and then a crowded board
        crowd_of_kings = rng.choice((ref.WHITE, ref.BLACK)) if mode > 0.7 else 0
        for sign, men_ok in ((ref.WHITE, white_men_ok), (ref.BLACK, black_men_ok)):
            if sign == crowd_of_kings:
                # many kings for one side: long multi-king captures (Italian tiers 3-4)
                kings = rng.randint(3, 9)
            else:
                kings = rng.randint(1, 4) if rng.random() < 0.9 else 0
            men = rng.randint(0, 8 if dense else 4)
            men = min(men, 12 - kings)
            for _ in range(kings):
                s = rng.choice(sorted(free))
                free.discard(s)
                board[s] = 2 * sign
            for _ in range(men):
                cand = sorted(free.intersection(men_ok))
                if not cand:
                    break
                s = rng.choice(cand)
                free.discard(s)
                board[s] = sign
        color = rng.choice((ref.WHITE, ref.BLACK))
        if not any(board[1:]):
            # A board with no piece at all is no position (docs/rules.md; dama refuses it).
            continue
        fen = ref.to_fen(board, color)
        if fen in seen:
            continue
        seen.add(fen)
        out.append(fen)
    return out


def lattice_position(rng):
    """A position made for long multi-captures by short-range pieces.

    The side to move has kings (and maybe men) on the rows of one parity; the enemy's
    pieces, many of them kings, stand on the rows of the other parity, so every landing
    square of a short jump tends to be free: long sequences through several kings, where
    the Italian tiers 3 and 4 decide.
    """
    parity = rng.randint(0, 1)
    mover = rng.choice((ref.WHITE, ref.BLACK))
    enemy = -mover
    land = [n for n in range(1, 33) if ref.coords(n)[0] % 2 == parity]
    jump = [n for n in range(1, 33) if ref.coords(n)[0] % 2 != parity]

    def man_ok(n, sign):
        return not ref.is_far_row(n, sign)

    board = [ref.EMPTY] * 33
    rng.shuffle(land)
    rng.shuffle(jump)
    for _ in range(rng.randint(1, 3)):
        board[land.pop()] = 2 * mover
    for _ in range(rng.randint(0, 3)):
        n = land.pop()
        if man_ok(n, mover):
            board[n] = mover
    for _ in range(rng.randint(3, 10)):
        n = jump.pop()
        if rng.random() < 0.5 or not man_ok(n, enemy):
            board[n] = 2 * enemy
        else:
            board[n] = enemy
    return ref.to_fen(board, mover)


# --------------------------------------------------------------------------- dama


def run_dama(dama, variant, fens):
    text = "".join(f + "\n" for f in fens)
    proc = subprocess.run(
        [dama, "moves", "--variant", variant, "--stdin"],
        input=text,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit("dama exited with status %d for variant %s" % (proc.returncode, variant))
    lines = proc.stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(fens):
        raise SystemExit(
            "dama printed %d lines for %d positions (variant %s)" % (len(lines), len(fens), variant)
        )
    return lines


def normalise_hub(text):
    """Hub move text with captured squares ascending (so `1x10x6x5` == `1x10x5x6`)."""
    if "x" in text.lower():
        parts = re.split("[xX]", text)
        if len(parts) > 2:
            head = parts[:2]
            tail = sorted(parts[2:], key=lambda s: int(s) if s.isdigit() else 1 << 30)
            return "x".join(head + tail)
    return text


def crosscheck_variant(dama, variant, n, seed):
    rng = random.Random("%s:%s" % (seed, variant))
    fens = game_positions(variant, n, rng) + sparse_positions(n, rng)
    lines = run_dama(dama, variant, fens)
    passed = failed = 0
    mismatches = []
    for fen, line in zip(fens, lines):
        expected = set(ref.hub_moves(fen, variant))
        if line.startswith("error"):
            got = None
        else:
            got = set(normalise_hub(t) for t in line.split())
        if got == expected:
            passed += 1
        else:
            failed += 1
            mismatches.append((fen, line, got, expected))
    print(
        "%-9s %5d positions (%d game, %d sparse): %d passed, %d failed"
        % (variant, len(fens), n, n, passed, failed),
        flush=True,
    )
    for fen, line, got, expected in mismatches:
        print("  MISMATCH %s %s" % (variant, fen))
        if got is None:
            print("    dama said:        %s" % line)
            print("    reference:        %s" % " ".join(sorted(expected)))
        else:
            print("    only in dama:      %s" % " ".join(sorted(got - expected)))
            print("    only in reference: %s" % " ".join(sorted(expected - got)))
    return passed, failed


# --------------------------------------------------------------------------- perft


def read_perft_table(path):
    """{variant: {depth: count}} of the start position, from a perft.txt file ("pos VARIANT
    FEN" lines, each followed by "perft DEPTH NODES" lines; other positions are skipped)."""
    table = {}
    variant = None
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "pos":
                variant = words[1] if words[2] == ref.START_FEN else None
            elif words[0] == "perft" and variant is not None:
                table.setdefault(variant, {})[int(words[1])] = int(words[2])
    return table


def perft_check(variants, max_depth, path):
    table = read_perft_table(path)
    passed = failed = 0
    board, color = ref.parse_fen(ref.START_FEN)
    for v in variants:
        rules = ref.Rules(v)
        for d in range(1, max_depth + 1):
            want = table.get(v, {}).get(d)
            got = ref.perft(board, color, d, rules)
            ok = want == got
            passed += ok
            failed += not ok
            print("perft %-9s depth %2d: %10d  expected %10s  %s" % (v, d, got, want, "ok" if ok else "WRONG"),
                  flush=True)
    return passed, failed


# --------------------------------------------------------------------------- main


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dama", help="path to the dama binary (needed for the cross-check)")
    ap.add_argument("--variant", default="all", choices=("all",) + ref.VARIANTS)
    ap.add_argument("--positions", type=int, default=3000,
                    help="random-play positions per variant; as many sparse positions are added")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--perft", action="store_true",
                    help="check the reference's perft from the start against the published "
                         "numbers (--perft-data)")
    ap.add_argument("--perft-depth", type=int, default=5)
    ap.add_argument("--perft-data", default=DEFAULT_PERFT_DATA,
                    help="perft file in the format of tests/data/perft.txt (the default)")
    args = ap.parse_args(argv)
    if not args.dama and not args.perft:
        ap.error("give --dama PATH (cross-check) and/or --perft")
    variants = list(ref.VARIANTS) if args.variant == "all" else [args.variant]

    total_pass = total_fail = 0
    if args.perft:
        p, f = perft_check(variants, args.perft_depth, args.perft_data)
        total_pass += p
        total_fail += f
    if args.dama:
        for v in variants:
            p, f = crosscheck_variant(args.dama, v, args.positions, args.seed)
            total_pass += p
            total_fail += f
    print("%d passed, %d failed" % (total_pass, total_fail))
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
