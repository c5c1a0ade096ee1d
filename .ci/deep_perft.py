"""Checks `dama perft` against tests/data/perft.txt for the deep cases the test suite skips.

Usage: deep_perft.py DAMA_BINARY PERFT_TXT. Runs every variant to depth 11 and Italian to 12
(a few seconds in release mode) and fails on any difference.
"""
import subprocess
import sys

LIMITS = {"italian": 12}
DEFAULT_DEPTH = 11


def main() -> int:
    binary, data = sys.argv[1], sys.argv[2]
    expected = {}
    variant = None
    for line in open(data, encoding="utf-8"):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "pos":
            # Only the start position's rows are deep; the others are checked by the tests.
            variant = words[1] if words[2] == "W:W21-32:B1-12" else None
        elif words[0] == "perft" and variant is not None:
            expected.setdefault(variant, {})[int(words[1])] = int(words[2])
    failed = passed = 0
    for variant, table in expected.items():
        depth = LIMITS.get(variant, DEFAULT_DEPTH)
        out = subprocess.run(
            [binary, "perft", "--variant", variant, "--depth", str(depth)],
            check=True, capture_output=True, text=True,
        ).stdout
        for line in out.splitlines():
            words = line.split()
            d, nodes, secs = int(words[1]), int(words[3]), float(words[5])
            if d not in table:
                continue
            ok = table[d] == nodes
            passed += ok
            failed += not ok
            if not ok or d == depth:
                print(f"{variant} depth {d}: {nodes} expected {table[d]} "
                      f"{'ok' if ok else 'MISMATCH'} ({secs:.2f}s)")
    print(f"perft: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
