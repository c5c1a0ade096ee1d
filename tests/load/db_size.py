"""The size of `dama serve`'s database for many finished games (a measurement, not a test).

Usage: db_size.py DAMA_BINARY [--games 10000] [--played 500] [--data DIR]

Plays PLAYED real games through the server (serve_load.py --keep: Novice and Normal against
random moves, to their end or 100 moves), then copies their rows (with fresh ids) until the
database holds GAMES finished games, and prints the file's size with the write-ahead log
folded in, per game and in all. The copies make the file's size, not the server's speed,
the thing measured: their rows are those of real games.
"""
import argparse
import os
import secrets
import sqlite3
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--played", type=int, default=500)
    ap.add_argument("--data")
    args = ap.parse_args()
    data = args.data or tempfile.mkdtemp(prefix="dama-dbsize-")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, "serve_load.py"), args.binary,
                    "--games", str(args.played), "--moves", "100", "--data", data, "--keep"],
                   check=True, stdout=subprocess.DEVNULL)
    path = os.path.join(data, "dama.sqlite3")
    db = sqlite3.connect(path)
    rows = db.execute("SELECT * FROM games WHERE result IS NOT NULL").fetchall()
    if not rows:
        raise SystemExit("no finished game in the database")
    plies = sum(len(r[4].split()) for r in rows) / len(rows)
    db.execute("DELETE FROM games WHERE result IS NULL")
    n = len(rows)
    marks = ",".join("?" * len(rows[0]))
    i = 0
    while n < args.games:
        row = list(rows[i % len(rows)])
        row[0] = secrets.token_hex(16)
        db.execute(f"INSERT INTO games VALUES ({marks})", row)
        n += 1
        i += 1
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    size = os.path.getsize(path)
    print(f"{n} finished games ({len(rows)} played through the server, {plies:.0f} plies on "
          f"average): {size / 1e6:.2f} MB, {size / n:.0f} bytes a game")


if __name__ == "__main__":
    main()
