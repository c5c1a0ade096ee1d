"""Web soak of `dama serve` (not run in CI): many requests, a good share of them malformed.

Usage: web_soak.py DAMA_BINARY [--requests 10000] [--seed 1]

Starts `DAMA_BINARY serve --port 0 --max-games 50` and sends REQUESTS requests one after the
other over a few keep-alive connections (standard library only). About half are the moves of
real games against Novice (new game, targets, move, reply, and a game deleted now and then)
and a few friend games (a seat's move, a spectator's refused with 403, the move read back
from the event stream);
the rest are bad: broken and oversized JSON, wrong types, unknown and malformed game ids,
squares off the board, illegal moves, wrong methods and routes, raw garbage on a fresh
socket, and more new games than the cap allows. Every answer must be a JSON body with a
status below 500 (503 only for a full store); the server must stay up. Memory (VmRSS) is
sampled after the first tenth of the run and at the end: it must stay flat. Prints the
statuses met, the requests per second and the memory figures; exits 1 on any failure.
"""
import argparse
import http.client
import json
import random
import re
import socket
import subprocess
import sys
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Soak:
    def __init__(self, host, port, rng):
        self.host, self.port, self.rng = host, port, rng
        self.conn = http.client.HTTPConnection(host, port, timeout=30)
        self.statuses = {}
        self.failures = []
        self.games = []  # live game ids
        self.sent = 0

    def call(self, method, path, body=None, raw=None, expect=None, seat=None):
        """One request; `raw` bytes replace the JSON body. Checks the answer's shape."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        headers = {"Content-Type": "application/json"} if data is not None else {}
        if seat is not None:
            headers["X-Dama-Seat"] = seat
        self.sent += 1
        try:
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            payload = resp.read()
        except (http.client.HTTPException, OSError) as e:
            # The server may close a connection after a bad request; a fresh one must work.
            self.conn.close()
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            self.statuses["closed"] = self.statuses.get("closed", 0) + 1
            return None, f"{type(e).__name__}"
        self.statuses[resp.status] = self.statuses.get(resp.status, 0) + 1
        if resp.status >= 500 and resp.status != 503:
            self.failures.append(f"{method} {path} {data!r:.80}: {resp.status} {payload!r:.200}")
        if expect is not None and resp.status not in expect:
            self.failures.append(f"{method} {path} {data!r:.80}: {resp.status}, expected "
                                 f"{expect}: {payload!r:.200}")
        answer = None
        if payload:
            ctype = resp.getheader("Content-Type", "")
            if "json" in ctype:
                try:
                    answer = json.loads(payload)
                except ValueError:
                    self.failures.append(f"{method} {path}: body is not JSON: {payload!r:.200}")
            elif path.startswith("/api"):
                self.failures.append(f"{method} {path}: {resp.status} with {ctype!r}")
        if resp.status >= 400 and path.startswith("/api") and method != "HEAD":
            if not (isinstance(answer, dict) and "error" in answer):
                self.failures.append(f"{method} {path}: {resp.status} without an error body")
        return resp.status, answer

    def garbage_socket(self):
        """Raw bytes on a fresh connection: the server answers or closes, and lives on."""
        junk = self.rng.choice([
            b"\x00\xff" * 50,
            b"GET / HTTP/9.9\r\n\r\n",
            b"POST /api/games HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
            b"POST /api/games HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
            b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n",
            b"POST /api/games HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ])
        self.sent += 1
        try:
            with socket.create_connection((self.host, self.port), timeout=5) as s:
                s.sendall(junk)
                s.shutdown(socket.SHUT_WR)
                s.recv(4096)
        except OSError:
            pass
        self.statuses["raw"] = self.statuses.get("raw", 0) + 1

    def new_game(self):
        status, answer = self.call("POST", "/api/games", {"level": "novice",
                                                          "seed": self.rng.randrange(1 << 30)},
                                   expect=(201, 503))
        if status == 201:
            self.games.append((answer["id"], answer, answer["secret"]))
        elif status == 503 and self.games:
            # The store is full: forget a game, as a leaving player would.
            gid, _, secret = self.games.pop(0)
            self.call("DELETE", f"/api/games/{gid}", seat=secret, expect=(200, 204, 404))

    def friend_step(self):
        """A friend game: a seat's move, a spectator's refused, the move pushed as an event."""
        status, game = self.call("POST", "/api/games", {"opponent": "friend"}, expect=(201, 503))
        if status != 201:
            return
        gid = game["id"]
        white = game["white_url"].split("seat=")[1]
        self.call("POST", f"/api/games/{gid}/move", {"move": "22-18"}, expect=(403,))
        self.call("POST", f"/api/games/{gid}/move", {"move": "22-18"}, seat="0" * 32,
                  expect=(403,))
        status, _ = self.call("POST", f"/api/games/{gid}/move", {"move": "22-18"}, seat=white,
                              expect=(200,))
        if status == 200:
            self.sent += 1
            try:
                with socket.create_connection((self.host, self.port), timeout=5) as s:
                    s.sendall(f"GET /api/games/{gid}/events HTTP/1.1\r\nHost: x\r\n"
                              "Last-Event-ID: 0\r\n\r\n".encode())
                    got = b""
                    while b"id: 1\n" not in got:
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        got += chunk
                    if b"id: 1\n" not in got or b"text/event-stream" not in got:
                        self.failures.append(f"events of {gid}: {got[:300]!r}")
                    self.statuses["sse"] = self.statuses.get("sse", 0) + 1
            except OSError as e:
                self.failures.append(f"events of {gid}: {e}")
        # A seat does not delete a game it shares with a friend.
        self.call("DELETE", f"/api/games/{gid}", seat=white, expect=(403,))

    def good_step(self):
        if self.rng.random() < 0.03:
            self.friend_step()
            return
        if not self.games or self.rng.random() < 0.05:
            self.new_game()
            return
        i = self.rng.randrange(len(self.games))
        gid, game, secret = self.games[i]
        if game["turn"] == "over" or self.rng.random() < 0.01:
            self.call("DELETE", f"/api/games/{gid}", seat=secret, expect=(200, 204, 404))
            self.games.pop(i)
            return
        if game["turn"] != "player":
            status, answer = self.call("POST", f"/api/games/{gid}/reply", seat=secret,
                                       expect=(200,))
        else:
            sq = self.rng.choice(game["movable"])
            status, t = self.call("GET", f"/api/games/{gid}/targets?square={sq}", seat=secret,
                                  expect=(200,))
            if status != 200 or not t.get("moves"):
                return
            m = self.rng.choice(t["moves"])
            path = [m["from"]] + self.rng.choice(m["paths"])
            status, answer = self.call("POST", f"/api/games/{gid}/move", {"path": path},
                                       seat=secret, expect=(200,))
        if status == 200:
            self.games[i] = (gid, answer["game"], secret)

    def bad_step(self):
        gid = self.games[0][0] if self.games else "g0"
        r = self.rng
        choice = r.randrange(16)
        if choice == 0:
            self.call("POST", "/api/games", raw=b"{not json", expect=(400, 415, 422))
        elif choice == 1:
            self.call("POST", "/api/games", raw=b'{"level": "' + b"x" * 8000 + b'"}',
                      expect=(413,))
        elif choice == 2:
            self.call("POST", "/api/games", {"level": r.choice([7, [], "godlike", -1, {}])},
                      expect=(400, 422))
        elif choice == 3:
            self.call("POST", "/api/games", {"variant": "chess"}, expect=(400, 422))
        elif choice == 4:
            self.call("POST", "/api/games", {"fen": r.choice(["", "W:W99:B1", "x" * 500])},
                      expect=(400, 422))
        elif choice == 5:
            self.call("GET", f"/api/games/{r.choice(['nope', '0', '-1', '9' * 40, '%00'])}",
                      expect=(400, 404))
        elif choice == 6:
            sq = r.choice(["0", "33", "-1", "abc", "", "1e9", "99999999999999999999"])
            self.call("GET", f"/api/games/{gid}/targets?square={sq}", expect=(400, 404))
        elif choice == 7:
            self.call("GET", f"/api/games/{gid}/targets", expect=(400, 404))
        elif choice == 8:
            self.call("POST", f"/api/games/{gid}/move", {"path": [r.randrange(-5, 40)
                                                                  for _ in range(r.randrange(6))]},
                      expect=(400, 404, 409, 422))
        elif choice == 9:
            self.call("POST", f"/api/games/{gid}/move",
                      {"move": r.choice(["", "22-18x", "1-1", "x" * 300, "22x"])},
                      expect=(400, 404, 409, 422))
        elif choice == 10:
            self.call("POST", f"/api/games/{gid}/move", {"path": "22-18"},
                      expect=(400, 404, 409, 422))
        elif choice == 11:
            self.call(r.choice(["PUT", "PATCH"]), f"/api/games/{gid}", expect=(404, 405))
        elif choice == 12:
            self.call("GET", f"/api/{r.choice(['x', 'games/x/y/z', '../etc/passwd'])}",
                      expect=(400, 404, 405))
        elif choice == 13:
            self.call("POST", f"/api/games/{gid}/level", {"level": r.choice(["", 0, 6, "max"])},
                      expect=(400, 404, 422))
        elif choice == 14:
            self.call("POST", f"/api/games/{gid}/reply", raw=b"\xff\xfe", expect=(200, 400, 404,
                                                                                  409, 415, 422))
        else:
            self.garbage_socket()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--requests", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    server = subprocess.Popen([args.binary, "serve", "--port", "0", "--max-games", "50",
                               "--memory", "--games-per-minute", "0",
                               "--replies-per-minute", "0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://([\d.]+):(\d+)/", server.stdout.readline())
        host, port = url.group(1), int(url.group(2))
        idle = rss_kib(server.pid)
        soak = Soak(host, port, random.Random(args.seed))
        early = None
        start = time.perf_counter()
        while soak.sent < args.requests:
            if soak.rng.random() < 0.5:
                soak.good_step()
            else:
                soak.bad_step()
            if early is None and soak.sent >= args.requests // 10:
                early = rss_kib(server.pid)
            if server.poll() is not None:
                soak.failures.append(f"the server exited with {server.returncode}")
                break
        wall = time.perf_counter() - start
        end = rss_kib(server.pid)
        alive = server.poll() is None
    finally:
        server.send_signal(2)
        server.wait(timeout=10)
    print(f"{soak.sent} requests in {wall:.1f} s ({soak.sent / wall:.0f}/s), "
          f"{len(soak.games)} games live at the end")
    print(f"statuses: {dict(sorted(soak.statuses.items(), key=str))}")
    print(f"server RSS: idle {idle / 1024:.1f} MiB, after {args.requests // 10} requests "
          f"{(early or 0) / 1024:.1f} MiB, at the end {end / 1024:.1f} MiB; "
          f"exit code {server.returncode}")
    if not alive:
        soak.failures.append("the server died")
    if early and end > early * 1.5 + 4096:
        soak.failures.append(f"memory grew: {early} KiB -> {end} KiB")
    for f in soak.failures[:20]:
        print("FAIL", f)
    if soak.failures:
        print(f"{len(soak.failures)} failures")
        sys.exit(1)


if __name__ == "__main__":
    main()
