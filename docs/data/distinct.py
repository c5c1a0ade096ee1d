#!/usr/bin/env python3
"""How much of a self-play run is new: games, distinct games, distinct first positions (after
the opening and the random plies), the most games one first position started, positions kept
and distinct positions, over all the sample files given (the format of `dama tune gen`, version
3 or 4, described in the rustdoc of `dama_lab::tune`).

usage: distinct.py FILE.samples...
"""
import collections, hashlib, struct, sys

POSITION = 13  # White, Black and king squares (3 x u32) and the side to move (u8)
SCORED = 15    # the same and the score (i16)


def games(path):
    """Yields the positions (as bytes, without scores) of each game of a sample file."""
    data = open(path, "rb").read()
    if data[:8] != b"DAMASAMP":
        sys.exit(f"{path}: not a sample file (no DAMASAMP at its start)")
    version = struct.unpack_from("<I", data, 8)[0]
    if version not in (3, 4):
        sys.exit(f"{path}: sample format version {version}; expected 3 or 4")
    at = 13
    while at < len(data):
        count = struct.unpack_from("<H", data, at + 1)[0]
        at += 3
        yield [data[at + i * SCORED:at + i * SCORED + POSITION] for i in range(count)]
        at += count * SCORED


def main(paths):
    starts = collections.Counter()
    whole, seen = set(), set()
    played = kept = 0
    for path in paths:
        for positions in games(path):
            played += 1
            kept += len(positions)
            if positions:
                starts[positions[0]] += 1
            whole.add(hashlib.blake2b(b"".join(positions), digest_size=16).digest())
            seen.update(positions)
    most = starts.most_common(1)[0][1] if starts else 0
    print(f"games {played} distinct {len(whole)} first positions {len(starts)} "
          f"most from one {most} positions {kept} distinct {len(seen)}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
