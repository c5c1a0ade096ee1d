"""`dama serve` in a real browser: the page's states that a player could lose or misread.

Usage: states.py DAMA_BINARY [SCREENSHOT_DIR]

Starts `DAMA_BINARY serve --port 0 --memory`, opens the page in Chromium (Debian's, through
Playwright for Python; CHROMIUM names another executable) and checks:
- no game lost by a key press: after 22-18 and the computer's reply, the N key, the New game
  button and the Rules select each ask first; answered no, the game stays (on the page and on
  the server) and the select shows its rules again; answered yes, the game is deleted and a
  new one shown; a game not started yet (the preview) is left without a question;
- a page of another site cannot create a game through the visitor's browser: its post
  reaches the server and is refused (403, counted in /metrics), and no game is made.
Screenshots at 1280x800 (desktop) and 390x844 (portrait phone) of each state are written to
SCREENSHOT_DIR/states-*.png (default: target/browser-shots).

Exit status 0 when every check passes; the first failure raises with what was seen.
"""
import http.server
import os
import re
import sys
import threading
import time
import urllib.request

from playwright.sync_api import sync_playwright

import serving

check = serving.check

PHONE = {"width": 390, "height": 844}


def ready(page, ply=None):
    cond = "document.body.dataset.busy === '0' && ['player', 'over'].includes(document.body.dataset.turn)"
    if ply is not None:
        cond += f" && document.body.dataset.ply === '{ply}'"
    page.wait_for_function(cond, timeout=30000)


def shoot(page, out_dir, name):
    """The page as a desktop and as a phone shows it, then back to the desktop size."""
    page.screenshot(path=os.path.join(out_dir, f"states-{name}-desktop.png"))
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    page.screenshot(path=os.path.join(out_dir, f"states-{name}-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_timeout(150)


def first_move(page):
    """22-18 (it creates the game) and the computer's reply."""
    page.click('#squares .square[data-sq="22"]')
    page.wait_for_selector("#marks .dot")
    page.click('#squares .square[data-sq="18"]')
    ready(page, 2)
    return page.evaluate("document.body.dataset.gameId")


def check_no_game_lost(server, page, out_dir):
    """N, New game and the Rules select ask before a game in progress is deleted."""
    gid = first_move(page)
    check(gid, "the first move made a game")
    secret = serving.page_secret(page, gid)
    asked = []

    def answer(accept):
        def on(dialog):
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()
        return on

    def kept(what):
        page.wait_for_timeout(300)
        check(len(asked) == kept.n + 1, f"{what}: asked {asked}")
        check(asked[-1].startswith("This game is not over. Abandon it?"), f"{what}: {asked[-1]!r}")
        check(page.evaluate("document.body.dataset.gameId") == gid, f"{what} left the game")
        status, game = server.api(f"/api/games/{gid}", seat=secret)
        check(status == 200 and game["ply"] == 2, f"{what}: the server's game {status} {game}")
        kept.n += 1
    kept.n = 0

    page.once("dialog", answer(False))
    page.keyboard.press("n")
    kept("the N key")
    page.once("dialog", answer(False))
    page.click("#new-game")
    kept("New game")
    page.once("dialog", answer(False))
    page.select_option("#variant", "spanish")
    kept("the Rules select")
    check(page.input_value("#variant") == "italian", "the select shows the game's rules again")
    check(page.evaluate("document.body.dataset.ply") == "2", "the moves are still on the board")
    shoot(page, out_dir, "kept")

    # Answered yes: the game is deleted, a new one shown; the preview asks nothing.
    page.once("dialog", answer(True))
    page.keyboard.press("N")
    page.wait_for_function("document.body.dataset.gameId === ''")
    ready(page, 0)
    check(len(asked) == 4, f"asked {asked}")
    deadline = time.time() + 5
    while server.api(f"/api/games/{gid}")[0] != 404 and time.time() < deadline:
        time.sleep(0.1)
    check(server.api(f"/api/games/{gid}")[0] == 404, "the abandoned game is deleted")
    page.keyboard.press("n")
    page.wait_for_timeout(300)
    ready(page, 0)
    check(len(asked) == 4, f"a game not started asked: {asked}")


def live_games(server):
    with urllib.request.urlopen(server.url + "metrics") as res:
        text = res.read().decode()
    match = re.search(r"^dama_live_games (\d+)$", text, re.M)
    check(match, f"no dama_live_games in /metrics: {text[:200]}")
    return int(match.group(1))


def refused_games(server):
    """How many POST /api/games the server answered 403 (from /metrics)."""
    with urllib.request.urlopen(server.url + "metrics") as res:
        text = res.read().decode()
    match = re.search(r'^dama_http_requests_total\{route="/api/games",status="403"\} (\d+)$',
                      text, re.M)
    return int(match.group(1)) if match else 0


class EvilPage(http.server.BaseHTTPRequestHandler):
    """Another site: one page, on another port (Chromium lets only a page on loopback send
    requests to loopback at all)."""

    def do_GET(self):
        body = b"<!doctype html><title>another site</title><p>nothing to see"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def check_other_site(context, server):
    """A page of another site makes the visitor's browser post a new game, as a simple
    request (text/plain, no-cors: the browser asks no permission): the server refuses it."""
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EvilPage)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        evil = context.new_page()
        evil.goto(f"http://127.0.0.1:{site.server_address[1]}/")
        live = live_games(server)
        before = refused_games(server)
        evil.evaluate(
            "async (url) => { try { await fetch(url + 'api/games', {method: 'POST',"
            " mode: 'no-cors', body: '{\"opponent\": \"friend\"}'}); } catch (e) { }"
            " }", server.url)
        deadline = time.time() + 5
        while refused_games(server) == before and time.time() < deadline:
            time.sleep(0.1)
        check(refused_games(server) == before + 1,
              "the other site's post did not reach the server, or was not refused with 403")
        check(live_games(server) == live, "another site's page created a game")
        evil.close()
    finally:
        site.shutdown()


def main():
    binary = sys.argv[1]
    out_dir = sys.argv[2] if len(sys.argv) > 2 else "target/browser-shots"
    os.makedirs(out_dir, exist_ok=True)
    began = time.time()
    server = serving.Server(binary)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
            context = browser.new_context(
                viewport={"width": 1280, "height": 800}, locale="en-US", bypass_csp=True)
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_default_timeout(15000)
            page.goto(server.url)
            page.wait_for_selector("#pieces .piece")
            ready(page)
            page.keyboard.press("1")  # Novice: quick replies
            check_no_game_lost(server, page, out_dir)
            check_other_site(context, server)
            check(not errors, f"errors in the page: {errors}")
            browser.close()
    finally:
        server.stop()
    print(f"browser states: every check passed in {time.time() - began:.1f} s")


if __name__ == "__main__":
    main()
