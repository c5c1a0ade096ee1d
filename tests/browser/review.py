"""`dama serve`'s analysis board in a real browser: a review, the editor, a game from it.

Usage: review.py DAMA_BINARY [SCREENSHOT_DIR]

Starts `DAMA_BINARY serve --port 0 --memory`, opens /analysis in Chromium (Debian's, through
Playwright for Python; CHROMIUM names another executable) and checks:
- a PDN file (tests/browser/review.pdn, two games) opened with the file input is reviewed:
  the graph has one point per position (moves + 1), every move's mark is the API's for the
  same text and budget (POST /api/reviews, depth 4), 23-19 is marked `??`;
- stepping with the arrow keys and clicking a move shows that position: the best-move arrow
  joins the squares the API gives for it, and after the blunder a second arrow shows the
  better move, named in the text beside the board;
- the PDN downloaded from the page passes `dama pdn check` and reads back (through the API) as
  the same moves;
- `/review/{id}` reviews a game played through the API;
- on a phone held upright (touch, 390x844) the board stays in view when the move list is
  scrolled to and a move tapped, and no keyboard hint is shown (it is on the desktop);
- the arrows have a legend (the best move, the better one), the graph a scale, a mark its
  article ("an inaccuracy"); the editor does not keep the review's "Review complete."; on a
  phone, Download PDN is in its neighbour's size, and the editor's pieces stay under the
  board while the panel scrolls;
- the editor: clear, a white king on 18, a white man on 22, a black king on 29: the FEN
  field, the address and the squares' names say so; the address opens it again; live
  analysis shows the endgame tables' verdict (a win) and its lines;
- from the start position less the man on 21, "Play the computer" at Novice opens a game
  from that position; a move by clicks gets the computer's reply.
Screenshots of the review and the editor at 1280x800 and 390x844 are written to
SCREENSHOT_DIR (default: docs) as review-desktop.png, review-phone.png, editor-desktop.png
and editor-phone.png.

Exit status 0 when every check passes; the first failure raises with what was seen.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from playwright.sync_api import sync_playwright

import serving

DEADLINE = 150  # seconds for the whole test
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "review.pdn")
DEPTH = 4  # the review's budget per position, small to keep the test quick


class Server(serving.Server):
    """A `dama serve` whose API requests may take a review's time."""

    def __init__(self, binary):
        super().__init__(binary, timeout=60)


check = serving.check


def data(page, key):
    return page.evaluate(f"document.body.dataset.{key}")


def arrows(page, cls):
    return page.eval_on_selector_all(
        f"#arrows .{cls}", "els => els.map(e => [Number(e.dataset.from), Number(e.dataset.to)])")


def shots(page, out_dir, name):
    page.screenshot(path=os.path.join(out_dir, f"{name}-desktop.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(150)
    page.screenshot(path=os.path.join(out_dir, f"{name}-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_timeout(150)


def check_review(page, server, binary, text, out_dir):
    page.set_input_files("#pdn-file", FIXTURE)
    page.wait_for_function("document.body.dataset.reviewed === '1'", timeout=60000)
    status, api = server.api("/api/reviews", "POST", {"pdn": text, "depth": DEPTH})
    check(status == 200, f"POST /api/reviews: {status} {api}")
    game = api["games"][0]
    plies = game["plies"]
    points = page.eval_on_selector_all("#graph-points circle", "els => els.length")
    check(points == len(plies) + 1, f"{points} points in the graph for {len(plies)} moves")
    shown = page.eval_on_selector_all(
        "#move-list .mv", "els => els.map(e => [e.textContent, e.dataset.mark])")
    expected = [[p["text"] + (p["mark"] or ""), p["mark"] or ""] for p in plies]
    check(shown == expected, f"the move list {shown}, the API {expected}")
    check(shown[0] == ["23-19??", "??"], f"the first move is not marked ??: {shown[0]}")
    # Step with the keys: the position after two moves, its best move as an arrow.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    check(data(page, "ply") == "2", f"after two steps: ply {data(page, 'ply')}")
    # The steps stay on the screen under the board and its arrows' legend.
    bottom = page.evaluate("document.getElementById('step-last').getBoundingClientRect().bottom")
    check(bottom <= 800, f"the step buttons end at {bottom} px, below the 800 px screen")
    best = plies[2]["best_arrow"]
    check(arrows(page, "arrow-best") == [best], f"arrow {arrows(page, 'arrow-best')}, API {best}")
    # Click the blunder: the position after it, the better move as a second arrow.
    page.click('#move-list .mv[data-ply="0"]')
    check(data(page, "ply") == "1", f"after clicking the first move: ply {data(page, 'ply')}")
    check(arrows(page, "arrow-better") == [plies[0]["best_arrow"]],
          f"better-move arrow {arrows(page, 'arrow-better')}, API {plies[0]['best_arrow']}")
    detail = page.inner_text("#mark-detail")
    check(plies[0]["best_text"] in detail and "23-19?? was a blunder:" in detail,
          f"mark detail: {detail!r}")
    # Both arrows, each said in the legend; the graph has its scale.
    legend = page.eval_on_selector_all("#arrow-legend [data-arrow]",
                                       "els => els.map(e => [e.dataset.arrow, e.textContent])")
    check(legend == [["arrow-best", "the best move from here"],
                     ["arrow-better", "better than the move played"]], f"the legend: {legend}")
    scale = [page.inner_text(f"#graph-{k}") for k in ("top", "mid", "bottom")]
    check(scale == ["White +5", "0", "Black +5"], f"the graph's scale: {scale}")
    # Each mark with its article: "an inaccuracy", "a mistake".
    for i, p in enumerate(plies):
        if p["mark"] in ("?!", "?"):
            page.click(f'#move-list .mv[data-ply="{i}"]')
            kind = {"?!": "an inaccuracy", "?": "a mistake"}[p["mark"]]
            detail = page.inner_text("#mark-detail")
            check(f"{p['text']}{p['mark']} was {kind}:" in detail, f"mark detail: {detail!r}")
    # The editor does not keep the review's last word.
    check(page.inner_text("#status") == "Review complete.", page.inner_text("#status"))
    page.click("#tab-editor")
    check(page.inner_text("#status") == "", f"the editor says {page.inner_text('#status')!r}")
    page.click("#tab-review")
    page.click('#move-list .mv[data-ply="0"]')
    # The graph jumps to the position clicked (its right end: the last).
    box = page.locator("#graph").bounding_box()
    page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    check(data(page, "ply") == str(len(plies)), f"graph click: ply {data(page, 'ply')}")
    page.click('#move-list .mv[data-ply="0"]')
    shots(page, out_dir, "review")
    # Download, check with dama pdn check, read back.
    with page.expect_download() as info:
        page.click("#download")
    path = os.path.join(tempfile.mkdtemp(), "game.pdn")
    info.value.save_as(path)
    run = subprocess.run([binary, "pdn", "check", path], capture_output=True, text=True)
    check(run.returncode == 0 and "1 games, 0 bad" in run.stdout,
          f"dama pdn check: {run.returncode} {run.stdout} {run.stderr}")
    with open(path, encoding="utf-8") as f:
        downloaded = f.read()
    for tag in ['[White "Rossi"]', '[GameType "22', '[FEN "W:W23,24,27:B1,15"]', '[Result "*"]']:
        check(tag in downloaded, f"{tag} in the download: {downloaded}")
    status, again = server.api("/api/reviews", "POST", {"pdn": downloaded, "depth": 1})
    check(status == 200, f"the download reviewed: {status} {again}")
    moves = [p["move"] for p in again["games"][0]["plies"]]
    check(moves == [p["move"] for p in plies], f"read back {moves}")
    # The second game of the file.
    page.select_option("#game-pick", "1")
    n2 = len(api["games"][1]["plies"])
    count = page.eval_on_selector_all("#move-list .mv", "els => els.length")
    check(count == n2, f"game 2: {count} moves shown, {n2} in the file")


def check_stored_review(page, server):
    status, g = server.api("/api/games", "POST", {"level": "novice", "seed": 5})
    check(status == 201, f"new game: {status} {g}")
    gid = g["id"]
    server.api(f"/api/games/{gid}/move", "POST", {"move": "22-18"}, seat=g["secret"])
    server.api(f"/api/games/{gid}/reply", "POST", seat=g["secret"])
    page.goto(server.url + f"review/{gid}?depth={DEPTH}")
    page.wait_for_function("document.body.dataset.reviewed === '1'", timeout=30000)
    count = page.eval_on_selector_all("#move-list .mv", "els => els.length")
    check(count == 2, f"/review/{gid}: {count} moves")


def check_phone(browser, server, text):
    """A phone held upright (touch, 390x844): the move list scrolled to and a move tapped
    leave the board in view, and no keyboard hint is shown."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
        locale="en-US", bypass_csp=True)
    page = context.new_page()
    page.goto(server.url + f"analysis?depth={DEPTH}")
    page.wait_for_selector("#squares .square")
    check(page.is_hidden("#keys-hint"), "a keyboard hint on a touch screen")
    page.fill("#pdn-text", text)
    page.tap("#pdn-review")
    page.wait_for_function("document.body.dataset.reviewed === '1'", timeout=60000)
    moves = page.eval_on_selector_all("#move-list .mv", "els => els.length")
    last = moves - 1
    # The list is below the board: scrolled to, then its last move tapped.
    page.locator(f'#move-list .mv[data-ply="{last}"]').scroll_into_view_if_needed()
    page.tap(f'#move-list .mv[data-ply="{last}"]')
    page.wait_for_function(f"document.body.dataset.ply === '{last + 1}'")
    page.wait_for_timeout(300)
    box = page.evaluate("(() => { const r = document.getElementById('board')"
                        ".getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; })()")
    top, bottom, height = box
    check(top >= -1 and bottom <= height + 1,
          f"the board left the screen after a tap on a move: top {top}, bottom {bottom} of {height}")
    # Stepping on keeps the list where it is and the board in view.
    page.tap('#move-list .mv[data-ply="0"]')
    page.wait_for_function("document.body.dataset.ply === '1'")
    top = page.evaluate("document.getElementById('board').getBoundingClientRect().top")
    check(top >= -1, f"the board scrolled away after a tap on the first move: top {top}")
    # Download PDN, a link drawn as a button, in the size of its neighbour.
    sizes = page.evaluate("['say-eval', 'download'].map((id) =>"
                          " getComputedStyle(document.getElementById(id)).fontSize)")
    check(sizes[0] == sizes[1], f"Read the evaluation and Download PDN in {sizes}")
    context.close()


def place(page, tool, sq):
    page.click(f'.tool[data-tool="{tool}"]')
    page.click(f'#squares .square[data-sq="{sq}"]')


def check_editor(page, server, out_dir):
    page.goto(server.url + "analysis")
    page.wait_for_selector("#squares .square")
    page.click("#clear-board")
    place(page, "W", 18)
    place(page, "w", 22)
    place(page, "B", 29)
    fen = page.input_value("#fen")
    check(fen == "W:WK18,22:BK29", f"FEN field: {fen}")
    check("fen=W%3AWK18%2C22%3ABK29" in page.url, f"address: {page.url}")
    label = page.get_attribute('#squares .square[data-sq="18"]', "aria-label")
    check(label == "square 18, white king", f"square 18: {label!r}")
    page.click("#live-toggle")
    page.wait_for_function("document.querySelector('#live-table').dataset.result === 'win'")
    page.wait_for_function("document.querySelectorAll('#live-lines li').length >= 1")
    check(len(arrows(page, "arrow-best")) == 1, "no best-move arrow in the editor")
    shots(page, out_dir, "editor")
    # On a phone held upright, the pieces to place stay under the board as the panel scrolls.
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#play-here").scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    box = page.evaluate("(() => { const b = document.getElementById('board').getBoundingClientRect();"
                        " const p = document.getElementById('palette').getBoundingClientRect();"
                        " return [b.top, b.bottom, p.top, p.bottom, innerHeight]; })()")
    check(box[0] >= -1 and box[2] >= box[1] - 1 and box[3] <= box[4],
          f"board top, bottom; palette top, bottom; screen: {box}")
    page.screenshot(path=os.path.join(out_dir, "editor-phone-scrolled.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
    # Stop, unless its budget is already spent (a won ending is solved at once).
    if data(page, "live") == "on":
        page.click("#live-toggle")
        check(data(page, "live") == "off", f"live analysis after stop: {data(page, 'live')}")
    else:
        check(data(page, "live") == "done", f"live analysis: {data(page, 'live')}")
    # The address opens the same position.
    page.goto(page.url)
    page.wait_for_selector("#squares .square")
    check(page.input_value("#fen") == fen, f"reopened: {page.input_value('#fen')}")
    # A FEN typed in: the board follows.
    page.fill("#fen", "B:W30:BK1")
    page.press("#fen", "Enter")
    check(page.get_attribute('#pieces .piece[data-sq="1"]', "data-piece") == "B", "typed FEN")
    check(page.input_value("#turn") == "B", "typed FEN: side to move")


def check_play_from_editor(page, server):
    page.click("#start-board")
    place(page, "e", 21)
    fen = page.input_value("#fen")
    check(fen.startswith("W:W22,23,") and ":B1,2," in fen, f"start less 21: {fen}")
    page.select_option("#play-level", "novice")
    page.click("#play-here")
    page.wait_for_url(re.compile(r".*/\?game=[0-9a-f]{32}$"))
    page.wait_for_selector("#pieces .piece")
    gid = page.evaluate("new URL(location.href).searchParams.get('game')")
    status, g = server.api(f"/api/games/{gid}")
    check(status == 200 and g["fen"] == fen and g["level"] == "novice", f"the game: {g}")
    page.click('#squares .square[data-sq="22"]')
    page.wait_for_selector("#marks .dot")
    page.click('#squares .square[data-sq="18"]')
    page.wait_for_function("document.body.dataset.ply === '2'", timeout=30000)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    out_dir = sys.argv[2] if len(sys.argv) > 2 else "docs"
    os.makedirs(out_dir, exist_ok=True)
    with open(FIXTURE, encoding="utf-8") as f:
        text = f.read()
    began = time.time()
    server = Server(binary)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
            context = browser.new_context(
                viewport={"width": 1280, "height": 800}, locale="en-US", accept_downloads=True,
                # The page forbids eval; wait_for_function needs it.
                bypass_csp=True)
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_default_timeout(20000)
            page.goto(server.url + f"analysis?depth={DEPTH}")
            page.wait_for_selector("#squares .square")
            check_review(page, server, binary, text, out_dir)
            check(page.is_visible("#keys-hint"), "the keyboard hint on a desktop")
            check_stored_review(page, server)
            check_phone(browser, server, text)
            check_editor(page, server, out_dir)
            check_play_from_editor(page, server)
            check(not errors, f"errors in the page: {errors}")
            browser.close()
    finally:
        server.stop()
    took = time.time() - began
    check(took < DEADLINE, f"the test took {took:.0f} s")
    print(f"review.py: every check passed in {took:.1f} s")


if __name__ == "__main__":
    main()
