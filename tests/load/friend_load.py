"""Load run of `dama serve` with friend games (a benchmark, not a test), on loopback.

Usage: friend_load.py DAMA_BINARY [--games 1000] [--moves 10] [--data DIR]

Starts `DAMA_BINARY serve --port 0` (in memory, or with its database in DIR with --data; no
rate limits), makes GAMES friend games and plays them all at once: each seat has its own
keep-alive connection for its requests and its own event stream (Server-Sent Events), four
connections a game (Python asyncio, no third-party package). The side to move picks a random
movable piece from the game its event brought, asks for its targets and plays one; the
round trip of a move is the time from sending it to the other seat's stream delivering it.
Prints the round trip's median and 99th percentile, the requests per second, the server's
resident memory (VmRSS) idle, at its peak and after, and its CPU time (user + system).
"""
import argparse
import asyncio
import json
import os
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


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Conn:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def call(self, method, path, body=None, seat=None):
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(data)}\r\n"
        if seat:
            head += f"X-Dama-Seat: {seat}\r\n"
        self.writer.write(head.encode() + b"Content-Type: application/json\r\n\r\n" + data)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.decode().partition(":")
            if k.lower() == "content-length":
                length = int(v)
        payload = await self.reader.readexactly(length) if length else b""
        return status, (json.loads(payload) if payload else None)


async def events(host, port, gid, seat, queue):
    """Follows game `gid` as `seat`: each event's data onto `queue` with its arrival time."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET /api/games/{gid}/events?after=0&seat={seat} HTTP/1.1\r\n"
                 "Host: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                await queue.put((time.perf_counter(), json.loads(line[6:])))
    finally:
        writer.close()


async def play(args, host, port, rng, stats, start_gate):
    setup = Conn(host, port)
    await setup.open()
    status, game = await setup.call("POST", "/api/games", {"opponent": "friend"})
    assert status == 201, (status, game)
    gid = game["id"]
    seats = [game["white_url"].split("seat=")[1], game["black_url"].split("seat=")[1]]
    conns = [setup, Conn(host, port)]
    await conns[1].open()
    queues = [asyncio.Queue(), asyncio.Queue()]
    followers = [asyncio.create_task(events(host, port, gid, seats[i], queues[i]))
                 for i in range(2)]
    await start_gate.wait()
    view = game
    mover = 0
    for ply in range(args.moves):
        if view.get("turn") != "player" or not view.get("movable"):
            break
        conn, seat = conns[mover], seats[mover]
        sq = rng.choice(view["movable"])
        status, t = await conn.call("GET", f"/api/games/{gid}/targets?square={sq}", seat=seat)
        stats["requests"] += 1
        if status != 200 or not t["moves"]:
            break
        m = rng.choice(t["moves"])
        sent = time.perf_counter()
        status, played = await conn.call("POST", f"/api/games/{gid}/move",
                                         {"path": [m["from"]] + m["paths"][0]}, seat=seat)
        stats["requests"] += 1
        assert status == 200, (status, played)
        other = 1 - mover
        while True:
            arrived, data = await asyncio.wait_for(queues[other].get(), 30)
            if data["ply"] == ply + 1:
                break
        stats["round_trips"].append(arrived - sent)
        view = data["game"]
        mover = other
    for f in followers:
        f.cancel()
    for c in conns:
        c.writer.close()


async def run(args, pid, host, port):
    rng = random.Random(args.seed)
    stats = {"requests": 0, "round_trips": []}
    gate = asyncio.Event()
    tasks = [asyncio.create_task(play(args, host, port, random.Random(rng.random()), stats, gate))
             for _ in range(args.games)]
    # Every game made and followed before the moves begin.
    await asyncio.sleep(2 + args.games / 500)
    ready_rss = rss_kib(pid)
    began = time.perf_counter()
    cpu0 = cpu_seconds(pid)
    gate.set()
    peak = ready_rss
    done = asyncio.gather(*tasks)
    while not done.done():
        await asyncio.sleep(0.2)
        peak = max(peak, rss_kib(pid))
    await done
    return stats, time.perf_counter() - began, cpu_seconds(pid) - cpu0, ready_rss, peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", help="the database's directory (default: in memory)")
    args = ap.parse_args()
    cmd = [args.binary, "serve", "--port", "0", "--max-games", str(max(1000, args.games)),
           "--games-per-minute", "0", "--replies-per-minute", "0"]
    cmd += ["--data", args.data] if args.data else ["--memory"]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://([\d.]+):(\d+)/", server.stdout.readline())
        host, port = url.group(1), int(url.group(2))
        time.sleep(0.5)
        idle = rss_kib(server.pid)
        stats, wall, cpu, ready, peak = asyncio.run(run(args, server.pid, host, port))
        after = rss_kib(server.pid)
    finally:
        server.send_signal(2)
        server.wait(timeout=20)
    rt = sorted(stats["round_trips"])
    p99 = rt[min(len(rt) - 1, int(0.99 * len(rt)))]
    print(f"{args.games} simultaneous friend games, {len(rt)} moves in {wall:.2f} s "
          f"({stats['requests'] / wall:.0f} requests/s); server CPU {cpu:.2f} s (user + system)")
    print(f"move round trip (POST to the other seat's event): median "
          f"{statistics.median(rt) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max {rt[-1] * 1000:.1f} ms")
    print(f"server RSS: idle {idle / 1024:.1f} MiB, with every game followed "
          f"{ready / 1024:.1f} MiB, peak {peak / 1024:.1f} MiB, after {after / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
