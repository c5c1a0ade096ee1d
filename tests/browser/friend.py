"""`dama serve` in a real browser: two people play each other from a link, and a server
killed with SIGKILL mid-game is started again without losing a move.

Usage: friend.py DAMA_BINARY [SCREENSHOT_DIR]

Starts `DAMA_BINARY serve` on a free loopback port with a fresh data directory, and opens
two browser contexts (two people, no shared cookies) in Chromium (Debian's, through
Playwright for Python; CHROMIUM names another executable). It checks:
- "Play a friend" opens the creator's seat with the invitation and spectators' links;
- the invitation, opened in the other context, plays the dark pieces; a third context with
  the spectators' link can see but not select;
- a game is played to its end by clicks, each side seeing the other's moves pushed by the
  server (a short position, made through the API, so that the game ends in a few moves);
- a reload of one page continues the same game;
- the server killed with SIGKILL after an acknowledged move and started again (same port,
  same data directory) has that move, and both pages go on: the next move arrives at the
  other page over the reconnected event stream;
- the end says who won, on both pages; the game, from a set-up position, is kept out of the
  winner's record, and the end says so;
- "Pass and play" plays both sides in one page;
- an Italian page says the server's errors in Italian by their code (and an unknown code as
  the server's message);
- a man told to jump a king (Italian) is refused with "A man may not capture a king", the king
  ringed;
- the creator sees that the friend is here; a draw offered is shown to the other seat,
  declined, offered again and accepted (a draw on both pages); a resignation ends the game
  on both pages; Rematch on one page starts the same game again with the colours swapped,
  and the other page is sent to its new seat by the event stream;
- N or New game in an unfinished friend game asks first (staying keeps the game), and Back
  after leaving returns to the seat;
- no clutter: before the friend has come, no Resign nor Offer a draw, and the invitation; once
  the friend is there, only the spectators' link; at the end, neither; no level keys in the
  hint between people; a watcher sees each side's score and is told of a draw offer, and is
  taken along to the rematch;
- the server killed: both pages say within seconds that the connection is lost, and that it
  is back once the server is.
Screenshots of these states (desktop and phone) go to SCREENSHOT_DIR/friend-*.png.

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

import serving

DEADLINE = 90  # seconds for the whole test


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A `dama serve` on `port` with its data in `data`."""

    def __init__(self, binary, port, data):
        self.proc = subprocess.Popen(
            [binary, "serve", "--port", str(port), "--data", data],
            stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        match = re.search(r"http://\S+/", line)
        if not match:
            self.proc.kill()
            raise SystemExit(f"dama serve printed no address: {line!r}")
        self.url = match.group(0)

    def api(self, path, method="GET", body=None, seat=None, cookie=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path.lstrip("/"), data=data, method=method)
        req.add_header("content-type", "application/json")
        if seat:
            req.add_header("x-dama-seat", seat)
        if cookie:
            req.add_header("cookie", cookie)
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                return res.status, json.loads(res.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise SystemExit("dama serve did not stop within 10 s of SIGTERM")
        if code != 0:
            raise SystemExit(f"dama serve exited with status {code} after SIGTERM")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def ready(page, ply=None):
    cond = "document.body.dataset.busy === '0' && document.body.dataset.turn"
    if ply is not None:
        cond += f" && document.body.dataset.ply === '{ply}'"
    try:
        page.wait_for_function(cond, timeout=20000)
    except Exception:
        seen = page.evaluate("[document.body.dataset.busy, document.body.dataset.turn, document.body.dataset.ply, location.href]")
        raise AssertionError(f"the page never got to move {ply}: busy, turn, ply, address = {seen}")


def board(page):
    """The pieces drawn: engine square -> class list, from the page's own drawing."""
    return page.eval_on_selector_all(
        "#pieces .piece:not(.gone)", "els => els.map(e => e.getAttribute('class')).sort()")


def click(page, *squares):
    """Clicks the squares in turn, each once the page has answered the one before."""
    for sq in squares:
        page.wait_for_function("document.body.dataset.busy === '0'")
        page.click(f'#squares .square[data-sq="{sq}"]')


def check_leave_and_back(alice):
    """Leaving an unfinished friend game asks first; Back returns to the seat."""
    gid = alice.evaluate("document.body.dataset.gameId")
    asked = []

    def answer(dialog, accept):
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    alice.once("dialog", lambda d: answer(d, False))
    alice.keyboard.press("n")
    alice.wait_for_timeout(300)
    check(asked and asked[0].startswith("This game is not over"), f"asked {asked}")
    check(alice.evaluate("document.body.dataset.gameId") == gid, "staying keeps the game")
    alice.once("dialog", lambda d: answer(d, True))
    alice.click("#new-game")
    alice.wait_for_function(f"document.body.dataset.gameId !== '{gid}'")
    check("seat=" not in alice.url, f"a new game at {alice.url}")
    alice.go_back()
    alice.wait_for_url(re.compile(r"seat="))
    alice.wait_for_function(f"document.body.dataset.gameId === '{gid}'")
    ready(alice)
    check(alice.is_visible("#friend-actions"), "Back returns to the seat, with its actions")


SHOTS = {"dir": "target/browser-shots"}


def shoot(page, name):
    """The page as a desktop and as a phone shows it."""
    page.screenshot(path=os.path.join(SHOTS["dir"], f"friend-{name}-desktop.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(150)
    page.screenshot(path=os.path.join(SHOTS["dir"], f"friend-{name}-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_timeout(150)


def check_draw_offers(alice, bob, carol):
    """Presence, then a draw offered and declined, offered again and accepted; the watcher
    is told of the offer and sees each side's score."""
    alice.wait_for_function(
        "document.getElementById('presence').textContent === 'Your friend is here.'")
    check(carol.inner_text("#score-caption") == "Scores", carol.inner_text("#score-caption"))
    check(carol.inner_text("#score") == "White 0 · Black 0", carol.inner_text("#score"))
    bob.click("#offer-draw")
    carol.wait_for_function(
        "document.getElementById('presence').textContent === 'Black offers a draw.'")
    shoot(carol, "watcher-offer")
    alice.wait_for_selector("#accept-draw:not(.hidden)")
    said = alice.inner_text("#presence")
    check(said.endswith("Your friend offers a draw."), f"the offer shown as {said!r}")
    check(bob.inner_text("#presence").endswith("You offered a draw."), bob.inner_text("#presence"))
    alice.click("#decline-draw")
    bob.wait_for_function("document.body.dataset.drawOffer === ''")
    # Bob's page may hear of the decline (by its event stream) before Alice's page has the answer
    # to its own request: wait for hers rather than look at once.
    try:
        alice.wait_for_selector("#accept-draw", state="hidden", timeout=10000)
    except Exception:
        raise AssertionError("declined: the answer buttons stayed for 10 s")
    bob.wait_for_function("document.body.dataset.busy === '0'")
    bob.click("#offer-draw")
    alice.wait_for_function("document.body.dataset.drawOffer === 'black'")
    alice.wait_for_function("document.body.dataset.busy === '0'")
    alice.click("#accept-draw")
    for page in (alice, bob):
        page.wait_for_selector("#end:not(.hidden)")
        check(page.inner_text("#end-title") == "Draw.", page.inner_text("#end-title"))
        check("Draw agreed." in page.inner_text("#end-detail"), page.inner_text("#end-detail"))


def check_resign(server, alice, bob, carol):
    status, game = server.api("/api/games", "POST", {"opponent": "friend"})
    check(status == 201, f"{status} {game}")
    alice.goto(server.url.rstrip("/") + game["white_url"])
    bob.goto(server.url.rstrip("/") + game["black_url"])
    carol.goto(server.url.rstrip("/") + game["watch_url"])
    ready(alice, 0)
    ready(bob, 0)
    ready(carol, 0)
    alice.once("dialog", lambda d: d.accept())
    alice.click("#resign")
    alice.wait_for_selector("#end:not(.hidden)")
    bob.wait_for_selector("#end:not(.hidden)")
    check(alice.inner_text("#end-title") == "Your friend wins.", alice.inner_text("#end-title"))
    check(bob.inner_text("#end-title") == "You win!", bob.inner_text("#end-title"))
    check("White resigned." in bob.inner_text("#end-detail"), bob.inner_text("#end-detail"))
    check(alice.is_hidden("#invite"), "the links stay after the end")
    shoot(alice, "end")
    check_rematch(alice, bob, game["id"])
    # The watcher is taken along to the rematch, to watch it.
    carol.wait_for_function(
        f"document.body.dataset.gameId && document.body.dataset.gameId !== '{game['id']}'")
    ready(carol, 1)
    check(carol.evaluate("document.body.dataset.gameId") == alice.evaluate(
        "document.body.dataset.gameId"), "the watcher watches the rematch")
    check(carol.inner_text("#status").startswith("You are watching"), carol.inner_text("#status"))
    # In the rematch, the friend is there: no invitation.
    check(alice.inner_text("#invite-text") == "Link for spectators", alice.inner_text("#invite-text"))


def check_rematch(alice, bob, old_id):
    """Alice asks for a rematch at the end: she goes to the new game's dark pieces, and Bob's
    page is sent to its light pieces by the event stream, without a click."""
    alice.click("#end-rematch")
    alice.wait_for_function(f"document.body.dataset.gameId && document.body.dataset.gameId !== '{old_id}'")
    bob.wait_for_function(f"document.body.dataset.gameId && document.body.dataset.gameId !== '{old_id}'")
    ready(alice, 0)
    ready(bob, 0)
    new_a = alice.evaluate("document.body.dataset.gameId")
    new_b = bob.evaluate("document.body.dataset.gameId")
    check(new_a == new_b, f"Alice in {new_a}, Bob in {new_b}")
    check(bob.inner_text("#status").startswith("Your move: you have the light pieces"),
          bob.inner_text("#status"))
    check(alice.inner_text("#status") == "Your friend’s move.", alice.inner_text("#status"))
    check(alice.is_hidden("#end") and bob.is_hidden("#end"), "the end panel is gone")
    click(bob, 22, 18)
    ready(alice, 1)
    check(alice.inner_text("#status").startswith("Your move: you have the dark pieces"),
          alice.inner_text("#status"))


def check_king_capture(server, page):
    status, game = server.api("/api/games", "POST", {"opponent": "pass", "fen": "W:W22,30:BK18"})
    check(status == 201, f"{status} {game}")
    page.goto(server.url.rstrip("/") + game["white_url"])
    ready(page, 0)
    click(page, 22, 13)
    ready(page, 0)
    message = page.inner_text("#message")
    check(message == "A man may not capture a king (the king on 18).", message)
    check(numbers_marked(page) == [18], f"marked {numbers_marked(page)}")
    # Not a move: the man may still step forward.
    click(page, 22, 19)
    ready(page, 1)


def numbers_marked(page):
    return sorted(int(x) for x in page.eval_on_selector_all(
        "#marks .must", "els => els.map(e => e.dataset.sq)"))


def check_error_texts(server, page):
    """An Italian page says the server's errors in Italian, by their code; an unknown code
    shows the server's own message."""
    status, game = server.api("/api/games", "POST", {"opponent": "pass"})
    check(status == 201, f"{status} {game}")
    page.goto(server.url.rstrip("/") + game["white_url"])
    ready(page, 0)
    answers = iter([
        (409, {"code": "not_your_turn", "message": "it is Black's turn"}),
        (409, {"code": "some_future_code", "message": "a message from a newer server"}),
    ])

    def refuse(route):
        status, error = next(answers)
        route.fulfill(status=status, content_type="application/json",
                      body=json.dumps({"error": error}))

    page.route("**/api/games/*/move", refuse)
    # The move is answered by a stand-in for the server: first a known code, then one this
    # page does not know.
    click(page, 22, 18)
    page.wait_for_function("document.getElementById('message').textContent.length > 0")
    message = page.inner_text("#message")
    check(message == "Non tocca a te.", f"Italian text for not_your_turn: {message!r}")
    click(page, 22, 18)
    page.wait_for_function(
        "document.getElementById('message').textContent.includes('newer server')")
    page.unroute("**/api/games/*/move")


def new_context(browser, locale="en-US"):
    # The page forbids eval; wait_for_function needs it.
    ctx = serving.routed_context(browser, viewport={"width": 1280, "height": 800}, locale=locale,
                                 bypass_csp=True)
    page = ctx.new_page()
    page.set_default_timeout(15000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: print("console:", m.type, m.text) if os.environ.get("DEBUG") else None)
    return ctx, page, errors


def main():
    binary = sys.argv[1]
    SHOTS["dir"] = sys.argv[2] if len(sys.argv) > 2 else "target/browser-shots"
    os.makedirs(SHOTS["dir"], exist_ok=True)
    began = time.time()
    data = tempfile.mkdtemp(prefix="dama-friend-")
    port = free_port()
    server = Server(binary, port, data)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
            ctx_a, alice, errors_a = new_context(browser)
            ctx_b, bob, errors_b = new_context(browser)

            # "Play a friend" by a click: the creator's seat with the invitation.
            alice.goto(server.url)
            ready(alice)
            alice.click("#friend-game")
            alice.wait_for_url(re.compile(r"seat="))
            ready(alice)
            invite = alice.input_value("#invite-url")
            check("seat=" in invite and invite != alice.url, f"invitation {invite!r}")
            check(alice.inner_text("#status").startswith("Your move"), alice.inner_text("#status"))
            check(alice.is_hidden("#friend-actions"), "Resign and Offer a draw before anyone came")
            hint = alice.inner_text("#level-hint")
            check("1–5" not in hint and "level" not in hint, f"a level hint between people: {hint!r}")
            shoot(alice, "invite")
            bob.goto(invite)
            ready(bob)
            alice.wait_for_selector("#friend-actions:not(.hidden)")
            alice.wait_for_function(
                "document.getElementById('invite-text').textContent === 'Link for spectators'")
            check(alice.is_hidden("#watch-row"), "the spectators' link twice")
            shoot(alice, "joined")
            check(bob.inner_text("#status") == "Your friend’s move.", bob.inner_text("#status"))
            click(alice, 22, 18)
            ready(bob, 1)
            check(bob.inner_text("#status").startswith("Your move: you have the dark pieces"),
                  bob.inner_text("#status"))
            check_leave_and_back(alice)
            ctx_w, carol, _ = new_context(browser)
            carol.goto(alice.input_value("#invite-url"))
            ready(carol)
            check_draw_offers(alice, bob, carol)
            check_resign(server, alice, bob, carol)
            ctx_w.close()

            # A short game, made through the API for Alice (her cookie), played by clicks.
            player = next(c["value"] for c in ctx_a.cookies() if c["name"] == "dama_player")
            status, game = server.api("/api/games", "POST",
                                      {"opponent": "friend", "fen": "W:W22,31:B18,5"},
                                      cookie=f"dama_player={player}")
            check(status == 201, f"{status} {game}")
            alice.goto(server.url.rstrip("/") + game["white_url"])
            bob.goto(server.url.rstrip("/") + game["black_url"])
            ctx_c, carol, _ = new_context(browser)
            carol.goto(server.url.rstrip("/") + game["watch_url"])
            ready(alice, 0)
            ready(bob, 0)
            ready(carol, 0)
            check(carol.inner_text("#status").startswith("You are watching"), carol.inner_text("#status"))

            # A capture is compulsory: the other piece is refused with the reason.
            click(alice, 31)
            ready(alice)
            check(alice.inner_text("#message").startswith("A capture is compulsory"),
                  alice.inner_text("#message"))
            click(alice, 22, 13)
            ready(alice, 1)
            ready(bob, 1)
            ready(carol, 1)
            check(board(bob) == board(alice), "both pages show the same board after White's capture")
            # The dark pieces' seat sees its pieces at the bottom: square 5 drawn low.
            y_bob = bob.get_attribute('#squares .square[data-sq="5"]', "y")
            y_alice = alice.get_attribute('#squares .square[data-sq="5"]', "y")
            check(float(y_bob) > 400 > float(y_alice), f"square 5 at y {y_bob} (Bob), {y_alice} (Alice)")

            # Bob reloads: the same game, still his move.
            bob.reload()
            ready(bob, 1)
            check(bob.inner_text("#status").startswith("Your move"), bob.inner_text("#status"))
            click(bob, 5, 10)
            ready(bob, 2)
            ready(alice, 2)
            check(board(bob) == board(alice), "both pages show the same board after Black's move")

            # SIGKILL after the acknowledged move; the same port and data again.
            server.kill()
            killed = time.time()
            for page in (alice, bob):
                page.wait_for_function("document.body.dataset.connection === 'lost'", timeout=8000)
                said = page.inner_text("#presence")
                check(said.startswith("Connection to the server lost"), f"during the outage: {said!r}")
            check(time.time() - killed < 8, "the lost connection said late")
            shoot(bob, "lost")
            server = Server(binary, port, data)
            for page in (alice, bob):
                page.wait_for_function("document.body.dataset.connection !== 'lost'", timeout=15000)
            alice.wait_for_function(
                "document.getElementById('presence').textContent.includes('Your friend is here.')",
                timeout=15000)
            status, stored = server.api(f"/api/games/{game['id']}")
            check(status == 200 and len(stored["moves"]) == 2, f"after SIGKILL: {status} {stored}")
            # Alice's page goes on with the restarted server: her move reaches Bob's page over
            # the event stream it reconnected by itself.
            click(alice, 13, 6)
            ready(alice, 3)
            ready(bob, 3)
            check(alice.inner_text("#end-title") == "You win!", alice.inner_text("#end-title"))
            check(bob.inner_text("#end-title") == "Your friend wins.", bob.inner_text("#end-title"))
            # A game from a set-up position is kept out of her record, and the end says so.
            detail = alice.inner_text("#end-detail")
            check("does not count in the record" in detail, detail)
            alice.wait_for_selector('#record-total[data-games]', state="attached")
            score = int(alice.get_attribute("#record-total", "data-score"))
            check(score < 120, f"her record's score {score}: the set-up game's 120 not in it")

            # Pass and play: one page plays both sides.
            alice.goto(server.url)
            ready(alice)
            alice.click("#pass-game")
            alice.wait_for_url(re.compile(r"seat="))
            ready(alice, 0)
            check(alice.inner_text("#status") == "White to move.", alice.inner_text("#status"))
            click(alice, 22, 18)
            ready(alice, 1)
            check(alice.inner_text("#status") == "Black to move.", alice.inner_text("#status"))
            click(alice, 11, 15)
            ready(alice, 2)
            check_king_capture(server, alice)
            ctx_i, italian, errors_i = new_context(browser, "it-IT")
            check_error_texts(server, italian)
            check(not errors_i, f"errors in the Italian page: {errors_i}")

            check(not errors_a and not errors_b, f"errors in the pages: {errors_a} {errors_b}")
            check(time.time() - began < DEADLINE, f"the test took over {DEADLINE} s")
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
    print(f"browser: a friend game by clicks in two contexts, a reload and a SIGKILL "
          f"restart, in {time.time() - began:.1f} s")


if __name__ == "__main__":
    main()
