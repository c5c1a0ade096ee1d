"""dama.dll (under Wine, through the harness's serve mode) against the native dama-engine
(through Hub), whole Italian games, each side in turn playing White.

The oracle is the native engine itself: before each of its moves it gets `pos start
moves="..."` with every move of the game, the DLL's included, and refuses any illegal one
(an `error` line fails the game). The driver keeps the board only to hand the DLL its
position (Hub's 32-character form). A game ends when the side to move has no move, after 80
plies without a capture or a man move (the 40-move rule), or at 300 plies.

Usage: versus.py HARNESS_CMD... -- DAMA_ENGINE [GAMES] [SECONDS]. Prints one line per game and
`N passed, M failed`; exit status 1 on a failure.
"""
import subprocess
import sys

MAX_PLIES = 300


def hub_position(board, side):
    return side + "".join(board)


def apply(board, move):
    """Plays a Hub move (from-to, or fromxtox captured...) on the 32-square list."""
    capture = "x" in move
    parts = [int(p) for p in move.replace("-", "x").split("x")]
    frm, to, taken = parts[0], parts[1], parts[2:]
    piece = board[frm - 1]
    board[frm - 1] = "e"
    for sq in taken:
        board[sq - 1] = "e"
    if piece == "w" and to <= 4:
        piece = "W"
    if piece == "b" and to >= 29:
        piece = "B"
    board[to - 1] = piece
    return capture or piece in "wb"


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.send("hub")
        self.until("wait")
        self.send("init")
        self.until("ready")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, word):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("dama-engine ended")
            line = line.strip()
            if line.startswith("error"):
                raise RuntimeError(line)
            if line.split(" ")[0] == word:
                return line

    def check(self, moves):
        """Sends the game so far; the engine refuses an illegal move with an `error` line."""
        quoted = " ".join(moves)
        self.send(f'pos start moves="{quoted}"' if moves else "pos start")
        self.send("ping")
        self.until("pong")

    def play(self, moves, seconds):
        self.check(moves)
        self.send(f"level move-time={seconds}")
        self.send("go think")
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("dama-engine ended")
            words = line.split()
            if words and words[0] == "done":
                moves = [w[5:] for w in words[1:] if w.startswith("move=")]
                return moves[0] if moves else None
            if words and words[0] == "error" and "no legal move" not in line:
                raise RuntimeError(line.strip())

    def close(self):
        self.send("quit")
        self.p.wait(timeout=30)


def game(dll, engine, dll_white, seconds):
    board = list("b" * 12 + "e" * 8 + "w" * 12)
    side, moves, quiet = "W", [], 0
    for _ in range(MAX_PLIES):
        dll_to_move = (side == "W") == dll_white
        if dll_to_move:
            dll.stdin.write(f"{hub_position(board, side)} {seconds}\n")
            dll.stdin.flush()
            answer = dll.stdout.readline().strip()
            if answer.startswith("none"):
                return moves, f"DLL has no move ({answer})"
            move = answer.split(" ", 1)[1]
        else:
            move = engine.play(moves, seconds)
            if move is None:
                return moves, "dama-engine has no move"
        moves.append(move)
        quiet = 0 if apply(board, move) else quiet + 1
        if quiet >= 80:
            return moves, "40-move rule"
        side = "B" if side == "W" else "W"
    return moves, "ply limit"


def main():
    args = sys.argv[1:]
    cut = args.index("--")
    harness, rest = args[:cut], args[cut + 1:]
    engine_path = rest[0]
    games = int(rest[1]) if len(rest) > 1 else 2
    seconds = float(rest[2]) if len(rest) > 2 else 0.05
    passed = failed = 0
    dll = subprocess.Popen(harness, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    engine = Engine(engine_path)
    for g in range(games):
        dll_white = g % 2 == 0
        try:
            moves, end = game(dll, engine, dll_white, seconds)
            # The last word: the engine checks the whole game, the final moves included.
            engine.check(moves)
            passed += 1
            colour = "White" if dll_white else "Black"
            print(f"ok   game {g + 1}: dama.dll {colour} against dama-engine, {len(moves)} plies, {end}")
        except Exception as e:  # noqa: BLE001 - every failure is reported and counted
            failed += 1
            print(f"FAIL game {g + 1}: {e}")
        sys.stdout.flush()
    engine.close()
    dll.stdin.close()
    dll.wait(timeout=60)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
