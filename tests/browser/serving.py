"""What the browser tests of `dama serve` share: a server on a free loopback port and a check."""

import json
import re
import subprocess
import urllib.error
import urllib.request


class Server:
    """A `dama serve` on a free loopback port."""

    def __init__(self, binary, timeout=10):
        self.timeout = timeout  # seconds for one API request
        self.proc = subprocess.Popen(
            [binary, "serve", "--port", "0", "--memory"], stdout=subprocess.PIPE, text=True
        )
        line = self.proc.stdout.readline()
        match = re.search(r"http://\S+/", line)
        if not match:
            self.proc.kill()
            raise SystemExit(f"dama serve printed no address: {line!r}")
        self.url = match.group(0)

    def api(self, path, method="GET", body=None, seat=None):
        """`method path` with the JSON `body` (and a seat's or owner's secret): status, JSON."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path.lstrip("/"), data=data, method=method)
        req.add_header("content-type", "application/json")
        if seat:
            req.add_header("x-dama-seat", seat)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return res.status, json.loads(res.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")

    def stop(self):
        self.proc.send_signal(2)  # Ctrl-C
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise SystemExit("dama serve did not stop within 10 s of Ctrl-C")
        if code != 0:
            raise SystemExit(f"dama serve exited with status {code} after Ctrl-C")


# Chromium tells a page it is offline (`navigator.onLine` false) on a machine whose only
# network interface is loopback, as CI's is; a page that loses a request then carries its game
# into the browser, by design. The checks that drop or refuse requests mean a connection lost
# while online: their pages are told so.
ONLINE = ("Object.defineProperty(Navigator.prototype, 'onLine',"
          " { get: () => true, configurable: true });")


def routed_context(browser, **options):
    """A browser context for checks that route the page's requests: told it is online (see
    ONLINE), and without the service worker, whose requests Playwright's routes may not see."""
    context = browser.new_context(service_workers="block", **options)
    context.add_init_script(ONLINE)
    return context


def watch_failures(page):
    """The requests of `page` that failed, as `METHOD path: reason` lines, kept from now on."""
    failed = []
    page.on("requestfailed", lambda r: failed.append(
        f"{r.method} {re.sub(r'^https?://[^/]+', '', r.url)}: {r.failure}"))
    return failed


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def page_secret(page, gid):
    """The secret the page keeps for game `gid` (its owner's or seat's), or None."""
    return page.evaluate(
        "(gid) => { try { const s = JSON.parse(localStorage.getItem('dama.seats') || '{}')[gid];"
        " return s ? s.secret : null; } catch (e) { return null; } }", gid)


def live_games(server):
    """Games in the server's memory (`dama_live_games` in /metrics)."""
    with urllib.request.urlopen(server.url + "metrics") as res:
        text = res.read().decode()
    match = re.search(r"^dama_live_games (\d+)$", text, re.M)
    check(match, f"no dama_live_games in /metrics: {text[:200]}")
    return int(match.group(1))


def metric(server, name):
    """A counter of the server's /metrics."""
    with urllib.request.urlopen(server.url + "metrics", timeout=10) as res:
        text = res.read().decode()
    match = re.search(rf"^{name} (\d+)$", text, re.M)
    check(match, f"no {name} in /metrics")
    return int(match.group(1))
