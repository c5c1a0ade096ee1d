"""Interop check with pydraughts, a third-party Python draughts library.

pydraughts plays random legal games of Italian, English and Russian draughts and writes them
as PDN; `dama pdn fens` must read every game and reach the same final position. Then dama's
canonical rewrite (`dama pdn convert`) must read back in pydraughts with every move legal.

Usage: pydraughts_pdn.py DAMA_BINARY [GAMES_PER_VARIANT]. Prints `N passed, M failed`.
"""
import os
import random
import subprocess
import sys
import tempfile

from draughts import Board, Move
from draughts.PDN import PDNReader, PDNWriter


def italian_fen_squares(fen):
    """The pieces of a numeric PDN FEN as a set of (colour, king, square)."""
    side, *sections = fen.strip().strip('"').split(":")
    pieces = set()
    for section in sections:
        colour = section[0]
        for item in filter(None, section[1:].split(",")):
            king = item.startswith("K")
            pieces.add((colour, king, int(item.lstrip("K"))))
    return side, pieces


def english_to_engine(square):
    """English checkers numbers each row the other way round from dama's numbering."""
    i = square - 1
    return i - i % 4 + 3 - i % 4 + 1


def play_game(variant, rng, plies):
    board = Board(variant=variant)
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def main():
    dama = sys.argv[1]
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    rng = random.Random(2026)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for variant in ["italian", "english", "russian"]:
            for n in range(games):
                board = play_game(variant, rng, rng.randrange(10, 90))
                path = os.path.join(tmp, f"{variant}{n}.pdn")
                PDNWriter(path, board=board)
                out = subprocess.run([dama, "pdn", "fens", path], capture_output=True, text=True)
                lines = out.stdout.split("\n")
                lines = [l for l in lines if l.strip()]
                ok = out.returncode == 0 and lines
                if ok and variant != "russian":
                    dama_side, dama_pieces = italian_fen_squares(lines[-1].split(" ", 2)[2])
                    py_side, py_pieces = italian_fen_squares(board.fen)
                    if variant == "english":
                        py_pieces = {(c, k, english_to_engine(s)) for c, k, s in py_pieces}
                    ok = (dama_side, dama_pieces) == (py_side, py_pieces)
                if ok:
                    conv = subprocess.run([dama, "pdn", "convert", path],
                                          capture_output=True, text=True)
                    back = os.path.join(tmp, f"{variant}{n}.back.pdn")
                    with open(back, "w", encoding="utf-8") as f:
                        f.write(conv.stdout)
                    game = PDNReader(filename=back).games[0]
                    replay = Board(variant=variant)
                    for text in game.moves:
                        # pydraughts reads the file's notation (English numbers, Russian
                        # algebraic squares) into its own move; it must be a legal one.
                        wanted = Move(replay, pdn_move=text).board_move
                        legal = [m for m in replay.legal_moves() if m.board_move == wanted]
                        if len(legal) != 1:
                            ok = False
                            break
                        replay.push(legal[0])
                    ok = ok and replay.fen == board.fen
                if ok:
                    passed += 1
                else:
                    failed += 1
                    print(f"{variant} game {n}: dama disagrees\n{open(path).read()}\n"
                          f"{out.stdout[-300:]}{out.stderr}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
