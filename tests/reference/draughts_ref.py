#!/usr/bin/env python3
"""Independent reference move generator for the draughts variants of `dama`.

Written only from docs/rules.md (and docs/notation.md for FEN / Hub text),
deliberately naive: a 33-entry list board (index 0 unused), explicit rays, and a
depth-first search over every capture sequence, followed by the priority filter of
the variant. Nothing here is tuned for speed; it is meant to be obviously correct.

Pieces on the board: 0 empty, +1 white man, +2 white king, -1 black man, -2 black king.
"""

import sys

VARIANTS = ("italian", "spanish", "czech", "english", "russian", "brazilian")

EMPTY = 0
WHITE, BLACK = 1, -1

# --------------------------------------------------------------------------- geometry


def coords(n):
    """Row and column of square n (1..32), exactly the formula of docs/rules.md."""
    r = (n - 1) // 4
    c = 2 * ((n - 1) % 4) + (1 if r % 2 == 1 else 0)
    return r, c


SQUARE_AT = {}
for _n in range(1, 33):
    SQUARE_AT[coords(_n)] = _n

DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1))

# RAYS[n][d] = squares met walking from n in direction DIRECTIONS[d] (n excluded), in order.
RAYS = [None] * 33
for _n in range(1, 33):
    _r, _c = coords(_n)
    _rays = []
    for _dr, _dc in DIRECTIONS:
        _ray = []
        _rr, _cc = _r + _dr, _c + _dc
        while (_rr, _cc) in SQUARE_AT:
            _ray.append(SQUARE_AT[(_rr, _cc)])
            _rr += _dr
            _cc += _dc
        _rays.append(tuple(_ray))
    RAYS[_n] = tuple(_rays)


def forward_dr(color):
    """White men move towards row 0 (up), Black men towards row 7."""
    return -1 if color == WHITE else 1


def is_far_row(sq, color):
    r = coords(sq)[0]
    return r == 0 if color == WHITE else r == 7


# --------------------------------------------------------------------------- variants


class Rules:
    def __init__(self, name):
        if name not in VARIANTS:
            raise ValueError("unknown variant %r" % name)
        self.name = name
        # Kings fly (long range) in every variant but Italian and English.
        self.flying = name in ("spanish", "czech", "russian", "brazilian")
        # Men capture backwards too in Russian and Brazilian.
        self.men_capture_back = name in ("russian", "brazilian")
        # Italian: a man can never capture a king.
        self.men_capture_kings = name != "italian"
        # What happens when a man lands on the far row during a capture:
        #   "stop"     the move ends there, the man is promoted (Italian, Spanish, Czech, English)
        #   "continue" it becomes a king at once and goes on capturing as a king (Russian)
        #   "pass"     it goes on capturing as a man; promoted only if the capture ends there (Brazilian)
        if name == "russian":
            self.mid_capture_promotion = "continue"
        elif name == "brazilian":
            self.mid_capture_promotion = "pass"
        else:
            self.mid_capture_promotion = "stop"
        # A flying king that can go on capturing from some landing square must land on one.
        # (Czech and Russian state it; for Spanish and Brazilian the most-pieces rule implies it,
        # so it is not applied separately there: the priority filter takes care of it.)
        self.must_land_to_continue = name in ("czech", "russian")


# --------------------------------------------------------------------------- moves


class Move:
    """A legal move: from, to, captured squares (set), plus what is needed to play it."""

    __slots__ = ("frm", "to", "captured", "promotes")

    def __init__(self, frm, to, captured, promotes):
        self.frm = frm
        self.to = to
        self.captured = frozenset(captured)
        self.promotes = promotes

    def key(self):
        return (self.frm, self.to, self.captured)

    def hub(self):
        if not self.captured:
            return "%d-%d" % (self.frm, self.to)
        return "x".join(str(s) for s in [self.frm, self.to] + sorted(self.captured))

    def __repr__(self):
        return "Move(%s)" % self.hub()


class Sequence:
    """One complete capture sequence, with the data the priority rules look at."""

    __slots__ = ("frm", "to", "captured", "king_jumps", "by_king", "promotes")

    def __init__(self, frm, to, captured, king_jumps, by_king, promotes):
        self.frm = frm
        self.to = to
        self.captured = captured  # list, in jump order
        self.king_jumps = king_jumps  # 1-based jump numbers at which a king was captured
        self.by_king = by_king  # the moving piece was a king when the move started
        self.promotes = promotes


def _is_enemy(piece, color):
    return piece != EMPTY and (piece > 0) != (color > 0)


def _piece_captures(board, frm, rules):
    """Every complete capture sequence of the piece on `frm` (board is not modified)."""
    piece = board[frm]
    color = WHITE if piece > 0 else BLACK
    started_as_king = abs(piece) == 2
    work = list(board)
    work[frm] = EMPTY  # the start square is empty during the sequence
    fdr = forward_dr(color)
    results = []

    def jumps_from(pos, as_king, captured):
        """Single jumps available from pos: list of (capture_square, [landing squares])."""
        out = []
        for d, (dr, _dc) in enumerate(DIRECTIONS):
            ray = RAYS[pos][d]
            if as_king and rules.flying:
                i = 0
                while i < len(ray) and work[ray[i]] == EMPTY:
                    i += 1
                if i >= len(ray):
                    continue
                x = ray[i]
                if not _is_enemy(work[x], color) or x in captured:
                    continue  # own piece, or an already captured piece: blocks
                lands = []
                j = i + 1
                while j < len(ray) and work[ray[j]] == EMPTY:
                    lands.append(ray[j])
                    j += 1
                if lands:
                    out.append((x, lands))
            else:
                if not as_king and not rules.men_capture_back and dr != fdr:
                    continue
                if len(ray) < 2:
                    continue
                x, land = ray[0], ray[1]
                if not _is_enemy(work[x], color) or x in captured:
                    continue
                if not as_king and not rules.men_capture_kings and abs(work[x]) == 2:
                    continue  # Italian: an enemy king is a wall for a man
                if work[land] != EMPTY:
                    continue
                out.append((x, [land]))
        return out

    def record(pos, captured, king_jumps, promotes):
        results.append(
            Sequence(frm, pos, list(captured), list(king_jumps), started_as_king, promotes)
        )

    def dfs(pos, as_king, captured, king_jumps, promoted):
        jumps = jumps_from(pos, as_king, captured)
        if not jumps:
            if captured:
                promotes = promoted
                if not as_king and is_far_row(pos, color):
                    promotes = True  # Brazilian: ends on the far row
                record(pos, captured, king_jumps, promotes)
            return
        for x, lands in jumps:
            new_captured = captured + [x]
            new_king_jumps = king_jumps + ([len(new_captured)] if abs(work[x]) == 2 else [])
            if as_king and rules.flying and rules.must_land_to_continue and len(lands) > 1:
                able = [L for L in lands if jumps_from(L, True, new_captured)]
                if able:
                    lands = able
            for land in lands:
                if not as_king and is_far_row(land, color):
                    mode = rules.mid_capture_promotion
                    if mode == "stop":
                        record(land, new_captured, new_king_jumps, True)
                        continue
                    if mode == "continue":
                        dfs(land, True, new_captured, new_king_jumps, True)
                        continue
                    # "pass": continue as a man
                dfs(land, as_king, new_captured, new_king_jumps, promoted)

    dfs(frm, started_as_king, [], [], False)
    return results


def _filter_priority(seqs, rules):
    if not seqs:
        return seqs
    name = rules.name
    if name == "italian":
        best = max(len(s.captured) for s in seqs)
        seqs = [s for s in seqs if len(s.captured) == best]
        if any(s.by_king for s in seqs):
            seqs = [s for s in seqs if s.by_king]
        best = max(len(s.king_jumps) for s in seqs)
        seqs = [s for s in seqs if len(s.king_jumps) == best]
        earliest = min(s.king_jumps for s in seqs)  # list comparison is lexicographic
        seqs = [s for s in seqs if s.king_jumps == earliest]
    elif name == "spanish":
        best = max(len(s.captured) for s in seqs)
        seqs = [s for s in seqs if len(s.captured) == best]
        best = max(len(s.king_jumps) for s in seqs)
        seqs = [s for s in seqs if len(s.king_jumps) == best]
    elif name == "brazilian":
        best = max(len(s.captured) for s in seqs)
        seqs = [s for s in seqs if len(s.captured) == best]
    elif name == "czech":
        if any(s.by_king for s in seqs):
            seqs = [s for s in seqs if s.by_king]
    # english, russian: free choice
    return seqs


def _quiet_moves(board, color, rules):
    moves = []
    fdr = forward_dr(color)
    for n in range(1, 33):
        p = board[n]
        if p == EMPTY or (p > 0) != (color > 0):
            continue
        king = abs(p) == 2
        for d, (dr, _dc) in enumerate(DIRECTIONS):
            ray = RAYS[n][d]
            if king:
                for s in ray:
                    if board[s] != EMPTY:
                        break
                    moves.append(Move(n, s, (), False))
                    if not rules.flying:
                        break
            else:
                if dr != fdr or not ray:
                    continue
                s = ray[0]
                if board[s] == EMPTY:
                    moves.append(Move(n, s, (), is_far_row(s, color)))
    return moves


def legal_moves(board, color, variant="italian"):
    """The legal moves of `color` on `board`, each (from, to, captured set) once."""
    rules = variant if isinstance(variant, Rules) else Rules(variant)
    seqs = []
    for n in range(1, 33):
        p = board[n]
        if p != EMPTY and (p > 0) == (color > 0):
            seqs.extend(_piece_captures(board, n, rules))
    if seqs:
        seqs = _filter_priority(seqs, rules)
        seen = {}
        for s in seqs:
            k = (s.frm, s.to, frozenset(s.captured))
            if k in seen:
                # Same start, end and captured set: one move. (A different promotion
                # outcome would mean two different positions; flag it loudly.)
                if seen[k].promotes != s.promotes:
                    raise AssertionError("same move key, different promotion: %r" % (k,))
                continue
            seen[k] = Move(s.frm, s.to, s.captured, s.promotes)
        return list(seen.values())
    return _quiet_moves(board, color, rules)


def play(board, color, move):
    """The board after `move` (a new list); the side to move becomes -color."""
    b = list(board)
    piece = b[move.frm]
    b[move.frm] = EMPTY
    for x in move.captured:
        b[x] = EMPTY
    if move.promotes and abs(piece) == 1:
        piece = 2 * piece
    b[move.to] = piece
    return b


def perft(board, color, depth, variant="italian"):
    rules = variant if isinstance(variant, Rules) else Rules(variant)
    if depth == 0:
        return 1
    moves = legal_moves(board, color, rules)
    if depth == 1:
        return len(moves)
    return sum(perft(play(board, color, m), -color, depth - 1, rules) for m in moves)


# --------------------------------------------------------------------------- FEN


START_FEN = "W:W21-32:B1-12"


class FenError(ValueError):
    pass


def parse_fen(text):
    """Parse a PDN-style FEN. Returns (board, color)."""
    t = text.strip()
    if len(t) >= 2 and t[0] == '"' and t[-1] == '"':
        t = t[1:-1].strip()
    if t.endswith("."):
        t = t[:-1]
    parts = t.split(":")
    side = parts[0].strip().upper()
    if side not in ("W", "B"):
        raise FenError("bad side to move %r in %r" % (parts[0], text))
    color = WHITE if side == "W" else BLACK
    board = [EMPTY] * 33
    seen_colors = set()
    for part in parts[1:]:
        part = part.strip()
        if not part:
            continue
        letter = part[0].upper()
        if letter not in ("W", "B") or letter in seen_colors:
            raise FenError("bad section %r in %r" % (part, text))
        seen_colors.add(letter)
        sign = WHITE if letter == "W" else BLACK
        body = part[1:].strip()
        if not body:
            continue
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            king = False
            if item[0] in "Kk":
                king = True
                item = item[1:]
            if "-" in item:
                a, b = item.split("-", 1)
                lo, hi = int(a), int(b)
                squares = range(lo, hi + 1)
            else:
                squares = [int(item)]
            for s in squares:
                if not 1 <= s <= 32:
                    raise FenError("square %d outside 1..32 in %r" % (s, text))
                if board[s] != EMPTY:
                    raise FenError("square %d listed twice in %r" % (s, text))
                board[s] = sign * (2 if king else 1)
    return board, color


def to_fen(board, color):
    """Canonical FEN: side, :W list, :B list, squares ascending, kings prefixed with K."""

    def items(sign):
        out = []
        for n in range(1, 33):
            p = board[n]
            if p != EMPTY and (p > 0) == (sign > 0):
                out.append(("K%d" % n) if abs(p) == 2 else str(n))
        return ",".join(out)

    return "%s:W%s:B%s" % ("W" if color == WHITE else "B", items(WHITE), items(BLACK))


def hub_moves(fen, variant="italian"):
    board, color = parse_fen(fen)
    return sorted(m.hub() for m in legal_moves(board, color, variant))


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description="Reference draughts move generator")
    ap.add_argument("--variant", default="italian", choices=VARIANTS)
    ap.add_argument("--fen", default=START_FEN)
    ap.add_argument("--perft", type=int, default=0, metavar="DEPTH")
    args = ap.parse_args(argv)
    if args.perft:
        board, color = parse_fen(args.fen)
        for d in range(1, args.perft + 1):
            print(d, perft(board, color, d, args.variant), flush=True)
    else:
        print(" ".join(hub_moves(args.fen, args.variant)))


if __name__ == "__main__":
    main(sys.argv[1:])
