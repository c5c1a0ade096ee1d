"""Several `dama serve` instances on one PostgreSQL database behind HAProxy, in Chromium: a
friend game whose two players are on different instances goes on when one instance is killed.

Usage: failover.py DAMA_BINARY

Needs Debian's PostgreSQL (a throwaway cluster is started by .ci/postgres.sh and stopped at the
end, unless DAMA_TEST_POSTGRES names a database, where a schema of its own is used) and
HAProxy (`haproxy` on the PATH, or HAPROXY). Starts three instances on loopback ports, and
HAProxy in front of them with a health check on /healthz and a sticky cookie, so that the two
players' pages (two browser contexts, Chromium through Playwright for Python; CHROMIUM names
the executable) are served by two different instances. It checks:
- the two pages play moves by clicks, each seeing the other's moves pushed through the other
  instance (LISTEN/NOTIFY between the instances);
- White's instance is killed with SIGKILL right after White's move is acknowledged: Black's
  next move, taken by Black's instance, reaches White's page over its event stream, which
  reconnects through the balancer to a live instance (Last-Event-ID), and White plays on
  through it; three moves later Black's instance is killed the same way, after Black's move,
  and both pages go on through the third instance;
- at the end both pages show the same position, and the game has every acknowledged move,
  in order.

Exit status 0 when every check passes; the first failure raises with what was seen.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from playwright.sync_api import sync_playwright

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def wait_until(what, cond, seconds=20):
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {seconds} s")


class Database:
    """A PostgreSQL database for the run: a schema of DAMA_TEST_POSTGRES, or a new cluster."""

    def __init__(self):
        self.cluster = None
        base = os.environ.get("DAMA_TEST_POSTGRES")
        if not base:
            out = subprocess.run([os.path.join(ROOT, ".ci", "postgres.sh")], check=True,
                                 capture_output=True, text=True).stdout
            env = dict(line.split("=", 1) for line in out.split())
            base, self.cluster = env["DAMA_TEST_POSTGRES"], env["DAMA_TEST_POSTGRES_DIR"]
        self.base = base
        self.schema = f"failover{os.getpid()}"
        self.sql(f"CREATE SCHEMA {self.schema}")
        join = "&" if "?" in base else "?"
        self.url = f"{base}{join}options=-csearch_path%3D{self.schema}"

    def sql(self, statement):
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", self.base, "-c", statement],
                       check=True, capture_output=True)

    def close(self):
        if self.cluster:
            subprocess.run([os.path.join(ROOT, ".ci", "postgres.sh"), "stop", self.cluster])
        else:
            self.sql(f"DROP SCHEMA {self.schema} CASCADE")


class Instance:
    def __init__(self, binary, port, url):
        self.port = port
        self.proc = subprocess.Popen(
            [binary, "serve", "--port", str(port), "--database", url, "--trust-proxy",
             "--games-per-minute", "0"],
            stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        check(re.search(r"http://\S+/", line), f"dama serve printed no address: {line!r}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=15)


HAPROXY_CFG = """
global
    maxconn 4096
defaults
    mode http
    timeout connect 1s
    timeout client 1h
    timeout server 1h
    timeout http-request 10s
    option forwardfor
    retries 3
    option redispatch
frontend dama
    bind 127.0.0.1:{port}
    default_backend dama
backend dama
    balance roundrobin
    cookie SRV insert indirect nocache
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter 300ms fall 1 rise 2
{servers}
"""


class Balancer:
    def __init__(self, ports, tmp):
        self.port = free_port()
        servers = "\n".join(f"    server s{i} 127.0.0.1:{p} check cookie s{i}"
                            for i, p in enumerate(ports))
        cfg = os.path.join(tmp, "haproxy.cfg")
        with open(cfg, "w") as f:
            f.write(HAPROXY_CFG.format(port=self.port, servers=servers))
        binary = os.environ.get("HAPROXY") or shutil.which("haproxy") or "/usr/sbin/haproxy"
        self.proc = subprocess.Popen([binary, "-db", "-f", cfg],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}/"

    def api(self, path, method="GET", body=None, seat=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path.lstrip("/"), data=data, method=method)
        req.add_header("content-type", "application/json")
        if seat:
            req.add_header("x-dama-seat", seat)
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                return res.status, json.loads(res.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")
        except (urllib.error.URLError, ConnectionError):
            return 0, None

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def ply(page):
    return page.evaluate("Number(document.body.dataset.ply || -1)")


def ready(page, n):
    try:
        page.wait_for_function(
            f"document.body.dataset.busy === '0' && document.body.dataset.ply === '{n}'",
            timeout=20000)
    except Exception:
        seen = page.evaluate("[document.body.dataset.busy, document.body.dataset.ply]")
        raise AssertionError(f"the page never showed move {n}: busy, ply = {seen}")


def board(page):
    return page.eval_on_selector_all(
        "#pieces .piece:not(.gone)", "els => els.map(e => e.getAttribute('class')).sort()")


def play(lb, page, gid, seat):
    """Plays a legal move of `seat` by clicks on `page`; the move's text."""
    status, view = lb.api(f"/api/games/{gid}", seat=seat)
    check(status == 200, f"the game through the balancer: {status} {view}")
    square = view["movable"][0]
    status, t = lb.api(f"/api/games/{gid}/targets?square={square}", seat=seat)
    check(status == 200 and t["moves"], f"targets of {square}: {status} {t}")
    m = t["moves"][0]
    for sq in [m["from"]] + m["paths"][0]:
        page.wait_for_function("document.body.dataset.busy === '0'")
        page.click(f'#squares .square[data-sq="{sq}"]')
    return m


def main():
    binary = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="dama-failover-")
    db = Database()
    instances, lb = [], None
    try:
        instances = [Instance(binary, free_port(), db.url) for _ in range(3)]
        lb = Balancer([i.port for i in instances], tmp)
        wait_until("the balancer answers",
                   lambda: lb.api("/healthz")[0] == 200)
        status, game = lb.api("/api/games", "POST", {"opponent": "friend"})
        check(status == 201, f"a friend game: {status} {game}")
        gid = game["id"]
        white = game["white_url"].split("seat=")[1]
        black = game["black_url"].split("seat=")[1]
        with sync_playwright() as pw:
            exe = os.environ.get("CHROMIUM") or shutil.which("chromium")
            browser = pw.chromium.launch(executable_path=exe)
            pages = []
            # White's page on instance 0, Black's on instance 1 (HAProxy's sticky cookie).
            for server in ("s0", "s1"):
                ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
                ctx.add_cookies([{"name": "SRV", "value": server, "domain": "127.0.0.1",
                                  "path": "/"}])
                page = ctx.new_page()
                errors = []
                page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                pages.append((page, errors))
            (alice, alice_errors), (bob, bob_errors) = pages
            alice.goto(lb.url.rstrip("/") + game["white_url"])
            bob.goto(lb.url.rstrip("/") + game["black_url"])
            ready(alice, 0)
            ready(bob, 0)
            acknowledged = []
            n = 0
            for turn in range(8):
                page, seat, other = ((alice, white, bob) if turn % 2 == 0
                                     else (bob, black, alice))
                play(lb, page, gid, seat)
                n += 1
                ready(page, n)  # acknowledged: the page has the server's answer
                _, view = lb.api(f"/api/games/{gid}")
                acknowledged = view["moves"]
                check(len(acknowledged) == n, f"{n} moves acknowledged, stored {acknowledged}")
                if turn in (2, 5):
                    # White's move is in: White's instance dies before Black answers; later
                    # Black's, after Black's move: both pages end on the third instance.
                    dead = instances[0 if turn == 2 else 1].proc
                    dead.send_signal(signal.SIGKILL)
                    dead.wait(timeout=10)
                    killed = time.time()
                ready(other, n)  # pushed to the other page, through another instance
                if turn in (3, 6):
                    who = ("Black's move reached White's page" if turn == 3
                           else "White's move reached Black's page")
                    print(f"{who} {time.time() - killed:.1f} s after its instance was killed")
            check(board(alice) == board(bob), "both pages show the same position")
            _, view = lb.api(f"/api/games/{gid}")
            check(view["moves"] == acknowledged, f"stored {view['moves']}, acknowledged "
                                                 f"{acknowledged}")
            check(not alice_errors and not bob_errors,
                  f"script errors: {alice_errors} {bob_errors}")
            browser.close()
        print(f"failover: {n} moves by clicks on two instances, both killed mid-game in turn, "
              "none lost")
    finally:
        if lb:
            lb.stop()
        for i in instances:
            if i.proc.poll() is None:
                i.stop()
        db.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
