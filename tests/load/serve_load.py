"""Load run of `dama serve` (a benchmark, not a test): many simultaneous games on loopback.

Usage: serve_load.py DAMA_BINARY [--games 200] [--moves 30] [--searchers N] [--data DIR] [--keep]

Starts `DAMA_BINARY serve --port 0` (games in memory, or in the database in DIR with
--data, where --keep leaves the games rather than deleting each at its end; no rate limits)
and plays GAMES games at once, one keep-alive HTTP/1.1
connection each (Python asyncio, no third-party package): half against Novice, half against
Normal. A game asks for its position, the targets of one of its movable pieces, plays a
random legal move by its path, asks for the computer's reply, and again, until the game ends
or the player has made MOVES moves. Prints the requests per second over the run, the median
and 99th percentile reply time of each request kind (the computer's replies by level), and
the server's resident memory (VmRSS) idle, at its peak under load, and after the run.
"""
import argparse
import asyncio
import json
import random
import re
import statistics
import subprocess
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Client:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def call(self, method, path, body=None, seat=None):
        data = b"" if body is None else json.dumps(body).encode()
        owner = f"X-Dama-Seat: {seat}\r\n" if seat else ""
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n{owner}"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
        self.writer.write(head.encode() + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        body = await self.reader.readexactly(length) if length else b""
        return status, (json.loads(body) if body else None)

    def close(self):
        if self.writer:
            self.writer.close()


async def play_one(host, port, level, moves, rng, times, counts, keep=False):
    client = Client(host, port)
    await client.open()

    secret = None

    async def timed(kind, method, path, body=None):
        start = time.perf_counter()
        status, answer = await client.call(method, path, body, secret)
        times.setdefault(kind, []).append(time.perf_counter() - start)
        counts[status] = counts.get(status, 0) + 1
        return status, answer

    try:
        status, game = await timed("new game", "POST", "/api/games", {"level": level})
        if status != 201:
            return "refused"
        gid, secret = game["id"], game["secret"]
        for _ in range(moves):
            if game["turn"] == "over":
                break
            sq = rng.choice(game["movable"])
            status, t = await timed("targets", "GET", f"/api/games/{gid}/targets?square={sq}")
            m = rng.choice(t["moves"])
            path = [m["from"]] + rng.choice(m["paths"])
            status, played = await timed("move", "POST", f"/api/games/{gid}/move", {"path": path})
            game = played["game"]
            if game["turn"] == "over":
                break
            status, replied = await timed(f"reply {level}", "POST", f"/api/games/{gid}/reply")
            game = replied["game"]
        if not keep:
            await timed("delete", "DELETE", f"/api/games/{gid}")
        return game["turn"]
    finally:
        client.close()


async def sample_rss(pid, peak, stop):
    while not stop.is_set():
        peak[0] = max(peak[0], rss_kib(pid))
        await asyncio.sleep(0.05)


async def run(args, pid, host, port):
    rng = random.Random(args.seed)
    times, counts, peak, stop = {}, {}, [0], asyncio.Event()
    sampler = asyncio.create_task(sample_rss(pid, peak, stop))
    start = time.perf_counter()
    levels = ["novice" if i % 2 == 0 else "normal" for i in range(args.games)]
    results = await asyncio.gather(*(
        play_one(host, port, lv, args.moves, random.Random(rng.random()), times, counts,
                 args.keep)
        for lv in levels))
    wall = time.perf_counter() - start
    stop.set()
    await sampler
    return results, times, counts, wall, peak[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--moves", type=int, default=30)
    ap.add_argument("--searchers", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", help="the database's directory (default: in memory)")
    ap.add_argument("--keep", action="store_true", help="leave the games in the database")
    args = ap.parse_args()
    cmd = [args.binary, "serve", "--port", "0", "--max-games", str(max(1000, args.games)),
           "--games-per-minute", "0", "--replies-per-minute", "0"]
    cmd += ["--data", args.data] if args.data else ["--memory"]
    if args.searchers:
        cmd += ["--searchers", str(args.searchers)]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://([\d.]+):(\d+)/", server.stdout.readline())
        host, port = url.group(1), int(url.group(2))
        time.sleep(0.5)
        idle = rss_kib(server.pid)
        results, times, counts, wall, peak = asyncio.run(run(args, server.pid, host, port))
        after = rss_kib(server.pid)
    finally:
        server.send_signal(2)
        server.wait(timeout=10)
    total = sum(len(v) for v in times.values())
    ended = sum(r == "over" for r in results)
    print(f"{args.games} simultaneous games ({ended} ended, the rest stopped after "
          f"{args.moves} moves), {total} requests in {wall:.2f} s: {total / wall:.0f} requests/s")
    print(f"statuses: {dict(sorted(counts.items()))}")
    print(f"{'request':<16}{'count':>7}{'median ms':>11}{'p99 ms':>9}{'max ms':>9}")
    for kind in sorted(times):
        v = sorted(times[kind])
        p99 = v[min(len(v) - 1, int(0.99 * len(v)))]
        print(f"{kind:<16}{len(v):>7}{statistics.median(v) * 1000:>11.1f}"
              f"{p99 * 1000:>9.1f}{v[-1] * 1000:>9.1f}")
    print(f"server RSS: idle {idle / 1024:.1f} MiB, peak under load {peak / 1024:.1f} MiB, "
          f"after {after / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
