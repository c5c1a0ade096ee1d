"""Play a game between two of the engine's levels and print it as PDN.

Usage: python dama-py/examples/levels.py [WHITE_LEVEL] [BLACK_LEVEL] [SEED]
(levels: novice, easy, normal, strong, hard; defaults: easy against normal, seed 1).
"""

import sys

import dama


def play(white: str, black: str, seed: int, max_plies: int = 200) -> dama.Board:
    """The game of level `white` against level `black`, each move chosen with `seed`."""
    engine = dama.Engine(hash_mb=16)
    board = dama.Board()
    while not board.is_game_over() and board.ply < max_plies:
        level = white if board.turn == dama.WHITE else black
        # Hard thinks a second a move unless told otherwise; a tenth keeps the demo short.
        move = engine.play(board, level, seed=seed + board.ply, movetime=0.1)
        board.push(move)
    return board


def main() -> None:
    white = sys.argv[1] if len(sys.argv) > 1 else "easy"
    black = sys.argv[2] if len(sys.argv) > 2 else "normal"
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    board = play(white, black, seed)
    outcome = board.outcome()
    game = dama.pdn.Game(
        board,
        tags=[("Event", "dama levels"), ("White", white), ("Black", black)],
        result=outcome.result() if outcome else "*",
    )
    print(dama.pdn.write(game), end="")
    print(f"{{{outcome or 'stopped after %d plies' % board.ply}}}", file=sys.stderr)


if __name__ == "__main__":
    main()
