"""Load run of several `dama serve` instances on one PostgreSQL database (a benchmark, not a
test), on loopback: friend games whose two players are on different instances.

Usage: instances_load.py DAMA_BINARY [--database URL] [--instances 3] [--games 1000]
                         [--seconds 60] [--think 2 4]

With --database, starts INSTANCES servers on that PostgreSQL database (`--database URL`, no
rate limits); without it, one server on SQLite in a temporary directory, for comparison.
Makes GAMES friend games, game i created on instance i mod N, White playing through that
instance and Black through the next one (each seat with its own keep-alive connection and its
own event stream, on its own instance). Each side thinks a random THINK seconds, then asks for
a movable piece's targets and plays one. The relay time of a move is from sending it to the
other seat's stream (on the other instance) delivering it. Runs for SECONDS once every game is
made and followed; prints the relay's median, 99th percentile and maximum, the moves, the
errors (any non-2xx answer, a lost stream, a move never relayed within 10 s), and the CPU time
(user + system) of the servers. Python asyncio only, no third-party package.
"""
import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import time


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Http:
    """One keep-alive HTTP/1.1 connection to one instance."""

    def __init__(self, port):
        self.port = port
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def call(self, method, path, body=None, seat=None):
        try:
            return await self.send(method, path, body, seat)
        except (ConnectionError, IndexError, asyncio.IncompleteReadError):
            # The server closes a keep-alive connection idle past its header timeout (10 s):
            # once more on a new one.
            self.writer.close()
            await self.open()
            return await self.send(method, path, body, seat)

    async def send(self, method, path, body, seat):
        data = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Content-Length: {len(data)}\r\nContent-Type: application/json\r\n")
        if seat:
            head += f"X-Dama-Seat: {seat}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await self.reader.readexactly(length) if length else b""
        return status, (json.loads(payload) if payload else None)


async def stream(port, gid, seat, queue, stats):
    """Follows game `gid` as `seat` on the instance at `port`: (arrival, data) of each move."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /api/games/{gid}/events?after=0&seat={seat} HTTP/1.1\r\n"
                 "Host: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
    try:
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        event = None
        while True:
            line = await reader.readline()
            if not line:
                stats["errors"]["stream ended"] = stats["errors"].get("stream ended", 0) + 1
                return
            if line.startswith(b"event: "):
                event = line[7:].strip()
            elif line.startswith(b"data: ") and event == b"move":
                await queue.put((time.perf_counter(), json.loads(line[6:])))
    except asyncio.CancelledError:
        pass
    finally:
        writer.close()


def error(stats, what):
    stats["errors"][what] = stats["errors"].get(what, 0) + 1


async def game(i, ports, args, rng, stats, gate, stop):
    n = len(ports)
    home, away = ports[i % n], ports[(i + 1) % n]
    conns = [Http(home), Http(away)]
    for c in conns:
        await c.open()
    status, g = await conns[0].call("POST", "/api/games", {"opponent": "friend"})
    if status != 201:
        error(stats, f"create {status}")
        return
    gid = g["id"]
    seats = [g["white_url"].split("seat=")[1], g["black_url"].split("seat=")[1]]
    queues = [asyncio.Queue(), asyncio.Queue()]
    followers = [asyncio.create_task(stream(p, gid, s, q, stats))
                 for p, s, q in zip((home, away), seats, queues)]
    stats["ready"] += 1
    await gate.wait()
    view, mover, ply = g, 0, 0
    while not stop.is_set():
        await asyncio.sleep(rng.uniform(*args.think))
        if stop.is_set() or view.get("turn") in ("over", None) or not view.get("movable"):
            break
        conn, seat = conns[mover], seats[mover]
        square = rng.choice(view["movable"])
        status, t = await conn.call("GET", f"/api/games/{gid}/targets?square={square}", seat=seat)
        if status != 200 or not t.get("moves"):
            error(stats, f"targets {status}")
            break
        m = rng.choice(t["moves"])
        sent = time.perf_counter()
        status, played = await conn.call("POST", f"/api/games/{gid}/move",
                                         {"path": [m["from"]] + m["paths"][0]}, seat=seat)
        if status != 200:
            error(stats, f"move {status} {played.get('error', {}).get('code') if played else ''}")
            break
        ply += 1
        other = 1 - mover
        try:
            while True:
                arrived, data = await asyncio.wait_for(queues[other].get(), 10)
                if data["ply"] == ply:
                    break
        except asyncio.TimeoutError:
            error(stats, "move not relayed within 10 s")
            break
        stats["relay"].append(arrived - sent)
        view = data["game"]
        mover = other
    for f in followers:
        f.cancel()
    for c in conns:
        c.writer.close()


async def run(args, ports):
    rng = random.Random(args.seed)
    stats = {"relay": [], "errors": {}, "ready": 0}
    gate, stop = asyncio.Event(), asyncio.Event()
    tasks = []
    for i in range(args.games):
        tasks.append(asyncio.create_task(
            game(i, ports, args, random.Random(rng.random()), stats, gate, stop)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    while stats["ready"] + sum(stats["errors"].values()) < args.games:
        await asyncio.sleep(0.1)
    gate.set()
    began = time.perf_counter()
    await asyncio.sleep(args.seconds)
    stop.set()
    await asyncio.gather(*tasks)
    return stats, time.perf_counter() - began


def start(cmd):
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    port = int(re.search(r"http://[\d.]+:(\d+)/", server.stdout.readline()).group(1))
    return server, port


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--database", help="PostgreSQL URL (default: one instance on SQLite)")
    ap.add_argument("--instances", type=int, default=3)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--think", type=float, nargs=2, default=[2.0, 4.0])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    base = [args.binary, "serve", "--port", "0", "--max-games", str(max(1000, 2 * args.games)),
            "--games-per-minute", "0", "--replies-per-minute", "0",
            "--connections-per-address", "1000000", "--streams-per-address", "100000",
            "--max-connections", "100000"]
    data = None
    if args.database:
        cmds = [base + ["--database", args.database] for _ in range(args.instances)]
    else:
        data = tempfile.mkdtemp(prefix="dama-load-")
        cmds = [base + ["--data", data]]
    servers = [start(c) for c in cmds]
    try:
        time.sleep(1)
        cpu0 = [cpu_seconds(s.pid) for s, _ in servers]
        stats, wall = asyncio.run(run(args, [p for _, p in servers]))
        cpu = sum(cpu_seconds(s.pid) for s, _ in servers) - sum(cpu0)
    finally:
        for s, _ in servers:
            s.send_signal(2)
        for s, _ in servers:
            s.wait(timeout=30)
        if data:
            shutil.rmtree(data, ignore_errors=True)
    relay = sorted(stats["relay"])
    where = (f"{len(servers)} instances on PostgreSQL" if args.database
             else "1 instance on SQLite")
    print(f"{where}: {args.games} friend games, think {args.think[0]:g}-{args.think[1]:g} s, "
          f"{len(relay)} moves in {wall:.1f} s; servers' CPU {cpu:.1f} s (user + system)")
    if relay:
        p99 = relay[min(len(relay) - 1, int(0.99 * len(relay)))]
        print(f"relay (move POSTed on one instance to the other seat's stream"
              f"{' on another instance' if args.database else ''}): median "
              f"{statistics.median(relay) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
              f"max {relay[-1] * 1000:.1f} ms")
    errors = sum(stats["errors"].values())
    print(f"errors: {errors}" + (f" {stats['errors']}" if errors else ""))


if __name__ == "__main__":
    main()
