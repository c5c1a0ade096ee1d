"""`dama serve` in a real browser: the page's states that a player could lose or misread.

Usage: states.py DAMA_BINARY [SCREENSHOT_DIR]

Starts `DAMA_BINARY serve --port 0 --memory`, opens the page in Chromium (Debian's, through
Playwright for Python; CHROMIUM names another executable) and checks:
- no game lost by a key press: after 22-18 and the computer's reply, the N key, the New game
  button and the Rules select each ask first; answered no, the game stays (on the page and on
  the server) and the select shows its rules again; answered yes, the game is deleted and a
  new one shown; a game not started yet (the preview) is left without a question;
- a page of another site cannot create a game through the visitor's browser: its post
  reaches the server and is refused (403, counted in /metrics), and no game is made;
- the computer's queue full (503 busy): the status says so alone, then the reply comes;
- a level above the lowest played says where a win counts ("A win counts at level 1");
- a tap on a square the selected piece cannot reach says where it may go;
- the end card can be closed to see the final position;
- a stranger opening someone's finished computer game is spoken to as a watcher;
- the keyboard: the board itself is no Tab stop, only its squares;
- legibility: the ring of the pieces that must capture has at least 3:1 against the dark
  squares, the square numbers at least 4.5:1 against their outline and 9 CSS px on a phone.
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


live_games = serving.live_games


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


def check_busy(page):
    """The computer's queue full twice (503 busy, Retry-After: 1): the status says so, alone
    (not "thinking" beside it), then the reply comes."""
    answers = {"busy": 2}

    def reply(route):
        if answers["busy"]:
            answers["busy"] -= 1
            route.fulfill(status=503, headers={"retry-after": "1"}, content_type="application/json",
                          body='{"error": {"code": "busy", "message": "the computer is busy"}}')
        else:
            route.continue_()

    page.route("**/api/games/*/reply", reply)
    page.click('#squares .square[data-sq="22"]')
    page.wait_for_selector("#marks .dot")
    page.click('#squares .square[data-sq="18"]')
    page.wait_for_function(
        "document.getElementById('status').textContent.startsWith('The computer is busy')")
    seen = [page.inner_text("#status"), page.inner_text("#message")]
    check(seen == ["The computer is busy: asking again in 1 s…", ""], f"while busy: {seen}")
    ready(page, 2)
    page.unroute("**/api/games/*/reply")
    check(page.inner_text("#status").startswith("Your move"), page.inner_text("#status"))


def check_level_note(page):
    """Novice, one move, then Hard: a win still counts at Novice, and the page says so."""
    check(page.is_hidden("#level-note"), "a level note at the level played")
    page.keyboard.press("5")
    page.wait_for_selector("#level-note:not(.hidden)")
    note = page.inner_text("#level-note")
    check(note == "A win counts at level 1, Novice: the lowest played in this game.", note)
    page.keyboard.press("1")
    ready(page)


def pass_game(server, page, fen=None):
    body = {"opponent": "pass"}
    if fen:
        body["fen"] = fen
    status, game = server.api("/api/games", "POST", body)
    check(status == 201, f"{status} {game}")
    page.goto(server.url.rstrip("/") + game["white_url"])
    page.wait_for_selector("#pieces .piece")
    ready(page, 0)
    return game


def check_not_a_target(server, page):
    """A tap on a square the selected piece cannot reach says why."""
    pass_game(server, page)
    page.click('#squares .square[data-sq="22"]')
    page.wait_for_selector("#marks .dot")
    page.click('#squares .square[data-sq="14"]')
    said = page.inner_text("#message")
    check(said == "14 is not a move of the piece on 22: it may go to 18, 19.", f"said {said!r}")


def check_end_closed(server, page, out_dir):
    """The end card closes: the final position is seen whole."""
    pass_game(server, page, "W:W22:B18")
    page.click('#squares .square[data-sq="22"]')
    page.wait_for_selector("#marks .dot")
    page.click('#squares .square[data-sq="13"]')
    page.wait_for_selector("#end:not(.hidden)")
    shoot(page, out_dir, "end")
    page.click("#end-close")
    check(page.is_hidden("#end"), "the end card stays")
    check(page.inner_text("#status") == "White wins.", page.inner_text("#status"))
    shoot(page, out_dir, "end-closed")


def check_watching_a_finished_game(server, page, out_dir):
    """A stranger opening someone's computer game that the computer won."""
    # White to move, its one man blocked and nothing to capture: lost at once.
    status, game = server.api("/api/games", "POST", {"fen": "W:W29:B25,26,22", "level": 1})
    check(status == 201, f"{status} {game}")
    check(game["turn"] == "over", f"the game: {game}")
    page.goto(server.url + f"?game={game['id']}")
    page.wait_for_selector("#end:not(.hidden)")
    title, detail = page.inner_text("#end-title"), page.inner_text("#end-detail")
    check(title == "The computer wins.", title)
    check("The player has no move left." in detail and "You" not in detail, detail)
    score = page.inner_text("#end-score")
    check(score == "The player’s score: 0", f"a watcher reads {score!r}")
    rule = page.inner_text("#rules li")
    check(not rule.startswith("You"), f"a watcher reads {rule!r}")
    shoot(page, out_dir, "watching-end")


def contrast(a, b):
    def lum(rgb):
        def ch(c):
            c = c / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        r, g, bl = (ch(x) for x in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * bl
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def rgb(text):
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def check_legibility(server, page, out_dir):
    """The capture ring against the dark square; the square numbers on a phone."""
    pass_game(server, page, "W:W18,21,29:B14,5")
    page.click('#squares .square[data-sq="21"]')
    page.wait_for_selector("#marks .must")
    style = page.evaluate(
        "() => { const m = getComputedStyle(document.querySelector('#marks .must'));"
        " const d = getComputedStyle(document.querySelector('#squares .sq-dark'));"
        " const l = getComputedStyle(document.querySelector('#labels .label'));"
        " return [m.stroke, d.fill, l.fill, l.stroke]; }")
    ring, square, number, outline = (rgb(x) for x in style)
    check(contrast(ring, square) >= 3, f"the ring {ring} on {square}: {contrast(ring, square):.2f}")
    check(contrast(number, outline) >= 4.5, f"numbers {number} on {outline}")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    size = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#labels .label')).fontSize)"
        " * document.getElementById('board').getBoundingClientRect().width / 800")
    check(size >= 9, f"the square numbers in {size:.1f} CSS px on a phone")
    page.screenshot(path=os.path.join(out_dir, "states-must-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 800})


def check_tab_order(page):
    """Tab from the last control of the bar goes to a square of the board (the one last
    focused), not to the board itself."""
    page.focus("#pass-game")
    page.keyboard.press("Tab")
    at = page.evaluate("document.activeElement.tagName + ' ' + (document.activeElement.dataset.sq || '')")
    check(at.startswith("rect ") and at != "rect ", f"Tab after the bar focuses {at!r}, not a square")


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
            context = serving.routed_context(
                browser, viewport={"width": 1280, "height": 800}, locale="en-US", bypass_csp=True)
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_default_timeout(15000)
            page.goto(server.url)
            page.wait_for_selector("#pieces .piece")
            ready(page)
            page.keyboard.press("1")  # Novice: quick replies
            check_no_game_lost(server, page, out_dir)
            check_tab_order(page)
            check_other_site(context, server)
            check_busy(page)
            check_level_note(page)
            check_not_a_target(server, page)
            check_end_closed(server, page, out_dir)
            check_legibility(server, page, out_dir)
            check_watching_a_finished_game(server, page, out_dir)
            check(not errors, f"errors in the page: {errors}")
            browser.close()
    finally:
        server.stop()
    print(f"browser states: every check passed in {time.time() - began:.1f} s")


if __name__ == "__main__":
    main()
