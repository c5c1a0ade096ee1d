"""Load benchmark of `dama serve` (not a test): many players over all five levels at once.

Usage: levels_load.py DAMA_BINARY [--players 1000] [--seconds 60] [--think 1.0-3.0]
                      [--searchers N] [--data DIR] [--seed 1]

Starts `DAMA_BINARY serve --port 0 --trust-proxy` (no rate limits, --max-games above the
players, games in memory unless --data) and runs PLAYERS simulated players for SECONDS
seconds, each on its own keep-alive HTTP/1.1 connection and with its own client address
(X-Forwarded-For 10.x.y.z, as behind a proxy), the levels dealt round-robin (a fifth each).
A player starts a game, then again and again: the targets of one of its movable pieces, a
random legal move (timed as "move"), the computer's reply (timed per level), a pause of THINK
seconds (uniform in the range: a person looking at the board); a finished game is followed
by a new one. A reply answered 503 `busy` (the level's queue is full) is counted apart and
asked again after its Retry-After, as the page does. The players start spread over the first
two seconds; only requests answered within the SECONDS are counted.

Prints, per level, the replies answered and their median and 99th percentile, the busy
answers, and for all players the moves' median and 99th percentile and the errors (any other
non-2xx answer, or a connection lost). Python asyncio, no third-party package.
"""
import argparse
import asyncio
import json
import random
import re
import subprocess
import time

LEVELS = ["novice", "easy", "normal", "strong", "hard"]


class Client:
    """One keep-alive HTTP/1.1 connection, as one client address."""

    def __init__(self, host, port, address):
        self.host, self.port, self.address = host, port, address
        self.reader = self.writer = None
        self.seat = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def call(self, method, path, body=None):
        """Status, Retry-After (0 if none) and the JSON answer."""
        data = b"" if body is None else json.dumps(body).encode()
        seat = f"X-Dama-Seat: {self.seat}\r\n" if self.seat else ""
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n{seat}"
                f"X-Forwarded-For: {self.address}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
        self.writer.write(head.encode() + data)
        await self.writer.drain()
        status = int((await self.reader.readline()).split()[1])
        length, retry = 0, 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            name = name.lower()
            if name == "content-length":
                length = int(value)
            elif name == "retry-after":
                retry = int(value)
        raw = await self.reader.readexactly(length) if length else b""
        return status, retry, (json.loads(raw) if raw else None)

    def close(self):
        if self.writer:
            self.writer.close()


class Tally:
    """What the players saw, counted only until the end of the run."""

    def __init__(self, until):
        self.until = until
        self.replies = {lv: [] for lv in LEVELS}
        self.busy = {lv: 0 for lv in LEVELS}
        self.moves = []
        self.errors = {}

    def live(self):
        return time.perf_counter() < self.until

    def error(self, what):
        if self.live():
            self.errors[what] = self.errors.get(what, 0) + 1


async def player(i, host, port, level, think, rng, tally):
    await asyncio.sleep(rng.uniform(0, 2))
    client = Client(host, port, f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}")
    try:
        await client.open()
        game = None
        while tally.live():
            if game is None or game["turn"] == "over":
                client.seat = None
                status, _, game = await client.call("POST", "/api/games", {"level": level})
                if status != 201:
                    tally.error(f"new game {status}")
                    await asyncio.sleep(1)
                    game = None
                    continue
                client.seat = game["secret"]
            gid = game["id"]
            if game["turn"] == "player":
                sq = rng.choice(game["movable"])
                status, _, t = await client.call("GET", f"/api/games/{gid}/targets?square={sq}")
                if status != 200 or not t["moves"]:
                    tally.error(f"targets {status}")
                    game = None
                    continue
                m = rng.choice(t["moves"])
                path = [m["from"]] + rng.choice(m["paths"])
                began = time.perf_counter()
                status, _, played = await client.call(
                    "POST", f"/api/games/{gid}/move", {"path": path})
                if tally.live():
                    tally.moves.append(time.perf_counter() - began)
                if status != 200:
                    tally.error(f"move {status}")
                    game = None
                    continue
                game = played["game"]
            if game["turn"] == "computer":
                began = time.perf_counter()
                status, retry, replied = await client.call("POST", f"/api/games/{gid}/reply")
                if status == 503 and replied and replied["error"]["code"] == "busy":
                    if tally.live():
                        tally.busy[level] += 1
                    await asyncio.sleep(retry or 1)
                    continue
                if status != 200:
                    tally.error(f"reply {status}")
                    game = None
                    continue
                if tally.live():
                    tally.replies[level].append(time.perf_counter() - began)
                game = replied["game"]
            await asyncio.sleep(rng.uniform(*think))
    except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as e:
        tally.error(f"connection: {type(e).__name__}")
    finally:
        client.close()


def pct(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] * 1000


async def run(args, host, port):
    rng = random.Random(args.seed)
    tally = Tally(time.perf_counter() + args.seconds)
    await asyncio.gather(*(
        player(i, host, port, LEVELS[i % 5], args.think, random.Random(rng.random()), tally)
        for i in range(args.players)))
    return tally


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--think", default="1.0-3.0", help="seconds between moves, low-high")
    ap.add_argument("--searchers", type=int)
    ap.add_argument("--data", help="the database's directory (default: in memory)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    low, high = (float(x) for x in args.think.split("-"))
    args.think = (low, high)
    cmd = [args.binary, "serve", "--port", "0", "--trust-proxy",
           "--max-games", str(max(1000, 2 * args.players)),
           "--games-per-minute", "0", "--replies-per-minute", "0"]
    cmd += ["--data", args.data] if args.data else ["--memory"]
    if args.searchers:
        cmd += ["--searchers", str(args.searchers)]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://([\d.]+):(\d+)/", server.stdout.readline())
        host, port = url.group(1), int(url.group(2))
        time.sleep(0.5)
        tally = asyncio.run(run(args, host, port))
    finally:
        server.send_signal(2)
        server.wait(timeout=15)
    print(f"{args.players} players over {len(LEVELS)} levels for {args.seconds:.0f} s, "
          f"thinking {low:g}-{high:g} s a move")
    print(f"{'level':<8}{'replies':>8}{'p50 ms':>9}{'p99 ms':>9}{'busy 503':>10}")
    for lv in LEVELS:
        r = tally.replies[lv]
        print(f"{lv:<8}{len(r):>8}{pct(r, 0.5):>9.1f}{pct(r, 0.99):>9.1f}{tally.busy[lv]:>10}")
    print(f"moves: {len(tally.moves)}, p50 {pct(tally.moves, 0.5):.1f} ms, "
          f"p99 {pct(tally.moves, 0.99):.1f} ms")
    print(f"errors: {sum(tally.errors.values())} {dict(sorted(tally.errors.items()))}")


if __name__ == "__main__":
    main()
