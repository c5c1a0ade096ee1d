"""`dama serve` in a real browser: a whole game against Novice, played by clicking.

Usage: play.py DAMA_BINARY [SCREENSHOT_DIR]

Starts `DAMA_BINARY serve --port 0`, opens the page in Chromium (Debian's, through
Playwright for Python; CHROMIUM names another executable) and checks on the way:
- the page shows a new game without creating it on the server (`dama_live_games` 0 in
  `/metrics`, a piece's targets shown from the server's preview); the first move creates it;
- the page starts at Normal; key 1 switches to Novice, which survives a reload (browser
  storage), as does the game itself;
- another browser opening the game's address only watches: told so, its clicks select
  nothing, and its move is refused with 403 `not_a_player`;
- a reply whose every try is lost (the connection dropped) leaves a Retry button, which
  brings the computer's move;
- the squares' names for screen readers (`square 22, white man`, `square 17, empty`) and
  selection from the keyboard;
- the dots after selecting a piece, and after each landing of a multi-jump, are exactly the
  squares the API says the piece may land on next;
- touching a piece that may not move because a capture is compulsory elsewhere shows that
  message and rings the pieces that must capture (the API's list);
- after every computer move, the tinted squares are its start and landing squares, and the
  screen-reader announcement names it;
- the end shows the result, a button to review the game (its /review/{id} page) and the score, which is recomputed here from the final board:
  10 per enemy piece captured, plus 100 + 50 x 1 for a win at Novice; the player's record
  in the panel then counts one game with that score.
The player's moves are chosen by `dama analyze` (depth 8) from the game's FEN and entered by
clicks; where a unique path is completed at once the remaining landings are not clicked.
Screenshots at 1280x800 and 390x844 (portrait phone) are written mid-game to
SCREENSHOT_DIR/serve-desktop.png and serve-phone.png (default: docs).

Exit status 0 when every check passes; the first failure raises with what was seen.
"""
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

from playwright.sync_api import sync_playwright

import serving

# Seconds for the whole test (the retry check waits 7 s of back-off). A game takes about 30 s
# on two idle cores, but one that reaches an ending costs the player's `dama analyze` about
# 1.7 s a move (each process builds the small in-memory tables again): a CI run once took
# over 160 s so.
DEADLINE = 330
SHOT_AT = 6  # the player's move at which the screenshots are taken


Server = serving.Server
# Whether the page's game is one the browser keeps (carried over from the server).
KEPT_HERE = ("(() => { try { return Object.keys(JSON.parse(localStorage.getItem('dama.local-games')"
             " || '{}')).includes(document.body.dataset.gameId); } catch (e) { return null; } })()")
check = serving.check


def best_move(binary, fen):
    out = subprocess.run(
        [binary, "analyze", "--fen", fen, "--depth", "8", "--json"],
        capture_output=True, text=True, check=True, timeout=30,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg["type"] == "bestmove":
            return msg["data"]["move"]
    raise AssertionError(f"dama analyze gave no best move for {fen}")


def numbers(page, selector):
    return sorted(int(x) for x in page.eval_on_selector_all(
        selector, "els => els.map(e => e.dataset.sq)"))


def wait_ready(page):
    page.wait_for_function(
        "document.body.dataset.busy === '0' && "
        "['player', 'over'].includes(document.body.dataset.turn)", timeout=30000)


def game_of(server, page):
    gid = page.evaluate("document.body.dataset.gameId")
    status, game = server.api(f"/api/games/{gid}", seat=serving.page_secret(page, gid))
    check(status == 200, f"GET game {gid}: {status} {game}")
    return game


def next_landings(move_list, entered):
    """The dots the page must show after the landings `entered` (engine squares)."""
    k = len(entered)
    out = set()
    for m in move_list:
        for p in m["paths"]:
            if p[:k] == entered and len(p) > k:
                out.add(p[k])
    return sorted(out)


live_games = serving.live_games


def check_created_by_first_move(server, page):
    """The page shows a new game without creating it; the first move does."""
    check(page.evaluate("document.body.dataset.gameId") == "", "a game id before any move")
    check(live_games(server) == 0, f"{live_games(server)} games before the first move")
    # Choosing the piece asks the server nothing that creates a game.
    page.click('#squares .square[data-sq="22"]')
    page.wait_for_selector("#marks .dot")
    check(numbers(page, "#marks .dot") == [18, 19], "22's targets before the game exists")
    check(live_games(server) == 0, "a game created by a selection")
    page.click('#squares .square[data-sq="22"]')  # deselected again


def choose_novice(page):
    """The page starts at Normal; key 1 switches to Novice (before the game exists)."""
    check(page.get_attribute("#level", "data-level") == "normal", "the game starts at Normal")
    check(page.inner_text("#level") == "Level: Normal", page.inner_text("#level"))
    page.keyboard.press("1")
    page.wait_for_function("document.getElementById('level').dataset.level === 'novice'")


def check_reload(server, page):
    """The game (made by the first move, at Novice) and the level survive a reload."""
    check(live_games(server) == 1, f"{live_games(server)} games after the first move")
    before = game_of(server, page)
    check(before["moves"][:1] == ["22-18"], f"the first move: {before['moves']}")
    check(before["level"] == "novice", f"the server's game level: {before['level']}")
    page.reload()
    page.wait_for_selector("#pieces .piece")
    wait_ready(page)
    check(page.get_attribute("#level", "data-level") == "novice", "Novice survives a reload")
    check(page.inner_text("#level") == "Level: Novice", page.inner_text("#level"))
    after = game_of(server, page)
    check(after["id"] == before["id"], "the game survives a reload")
    check(after["level"] == "novice", "the server plays at Novice after the reload")


def check_names_and_keyboard(page):
    label = page.get_attribute('#squares .square[data-sq="22"]', "aria-label")
    check(label == "square 22, white man", f"square 22 is named {label!r}")
    label = page.get_attribute('#squares .square[data-sq="17"]', "aria-label")
    check(label == "square 17, empty", f"square 17 is named {label!r}")
    label = page.get_attribute('#squares .square[data-sq="9"]', "aria-label")
    check(label == "square 9, black man", f"square 9 is named {label!r}")
    page.focus('#squares .square[data-sq="22"]')
    page.keyboard.press("Enter")
    page.wait_for_selector("#marks .dot")
    check(numbers(page, "#marks .dot") == [18, 19], "Enter on 22 marks 18 and 19")
    # One column a press, back to the row it started on: Right, Right from 22 is 23 (by 19);
    # Up, Up goes straight up (by 18 to 14), Down, Down back; Left from 22 is 18 then 21.
    for keys, want in [(["ArrowRight"], "19"), (["ArrowRight"], "23"), (["ArrowLeft"] * 2, "22"),
                       (["ArrowUp"], "18"), (["ArrowUp"], "14"), (["ArrowDown"] * 2, "22"),
                       (["ArrowLeft"], "18"), (["ArrowLeft"], "21")]:
        for key in keys:
            page.keyboard.press(key)
        focused = page.evaluate("document.activeElement.dataset.sq")
        check(focused == want, f"{'+'.join(keys)} focuses {focused}, not {want}")
    page.keyboard.press("Escape")
    check(numbers(page, "#marks .dot") == [], "Escape clears the selection")


def try_capture_elsewhere(server, page, game):
    """Touches a piece kept still by a capture elsewhere, if there is one; whether it did."""
    own = [i + 1 for i, c in enumerate(game["board"]) if c in "wW"]
    for sq in own:
        if sq in game["movable"]:
            continue
        status, t = server.api(f"/api/games/{game['id']}/targets?square={sq}",
                               seat=serving.page_secret(page, game["id"]))
        check(status == 200, f"targets of {sq}: {status} {t}")
        reason = t["reason"]
        if not reason or reason["code"] != "must_capture":
            continue
        page.click(f'#squares .square[data-sq="{sq}"]')
        wait_ready(page)
        text = page.inner_text("#message")
        check(text.startswith("A capture is compulsory"), f"message after touching {sq}: {text!r}")
        rings = numbers(page, "#marks .must")
        check(rings == sorted(reason["squares"]), f"rings {rings}, must capture {reason['squares']}")
        check(numbers(page, "#marks .dot") == [], "no dots for a piece that may not move")
        return True
    return False


def check_last_move(page, game, announced=True):
    last = game["last_computer_move"]
    if not last:
        return
    tinted = numbers(page, "#tints .tint-last")
    check(tinted == sorted({last["from"], *last["path"]}),
          f"tinted {tinted} for the computer's {last['hub']}")
    if game["turn"] != "player" or not announced:
        return  # the player's move ended the game (or a reload came since the computer's)
    page.wait_for_function(
        "document.getElementById('announce').textContent.startsWith('The computer played')")
    said = page.text_content("#announce")
    check(last["text"] in said, f"announced {said!r} for {last['text']}")


def shoot(page, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    page.screenshot(path=os.path.join(out_dir, "serve-desktop.png"))
    # A phone opens the page with the rules and the moves folded (the desktop unfolds them).
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = false; })")
    page.wait_for_timeout(150)
    page.screenshot(path=os.path.join(out_dir, "serve-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_timeout(150)


def play_move(binary, server, page, game, out_dir, turn):
    hub = best_move(binary, game["fen"])
    start = int(re.split("[-x]", hub)[0])
    status, t = server.api(f"/api/games/{game['id']}/targets?square={start}",
                           seat=serving.page_secret(page, game["id"]))
    check(status == 200 and not t["reason"], f"targets of {start}: {status} {t}")
    move = next((m for m in t["moves"] if m["hub"] == hub), None)
    check(move is not None, f"{hub} among the moves of {start}: {t['moves']}")
    page.click(f'#squares .square[data-sq="{start}"]')
    wait_ready(page)
    dots = numbers(page, "#marks .dot")
    check(dots == t["targets"], f"dots {dots} after selecting {start}, API {t['targets']}")
    if turn == SHOT_AT and out_dir:
        shoot(page, out_dir)
    path = move["paths"][0]
    entered = []
    for landing in path:
        if page.evaluate("document.body.dataset.busy") == "1":
            break  # a unique path was completed at once
        expected = next_landings(t["moves"], entered)
        dots = numbers(page, "#marks .dot")
        check(dots == expected, f"dots {dots} after {[start] + entered}, expected {expected}")
        page.click(f'#squares .square[data-sq="{landing}"]')
        entered.append(landing)
    return move


def check_stranger(browser, server, gid):
    """Another browser (no storage) opening the game's address may watch, not play."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US",
                                  bypass_csp=True)
    page = context.new_page()
    page.goto(server.url + f"?game={gid}")
    page.wait_for_selector("#pieces .piece")
    page.wait_for_function("document.body.dataset.turn === 'watching'")
    status = page.inner_text("#status")
    check(status == "You are watching this game.", f"a stranger is told {status!r}")
    before = game_of(server, page)
    page.click('#squares .square[data-sq="22"]')
    page.wait_for_timeout(300)
    check(numbers(page, "#marks .dot") == [], "a stranger's click selects nothing")
    # Asked directly, the server refuses the stranger with a JSON error.
    answer = page.evaluate(
        "async (gid) => { const r = await fetch(`/api/games/${gid}/move`, {method: 'POST',"
        " headers: {'content-type': 'application/json'}, body: JSON.stringify({move: '22-18'})});"
        " return [r.status, (await r.json()).error.code]; }", gid)
    check(answer == [403, "not_a_player"], f"a stranger's move: {answer}")
    after = game_of(server, page)
    check(after["ply"] == before["ply"], "the stranger changed nothing")
    context.close()


def check_retry(page, errors, failed):
    """A reply lost on the way (the connection dropped, every try) leaves a Retry button that
    goes on with the game."""
    seen = len(errors)
    aborted = []

    def lose(route):
        aborted.append(time.time())
        route.abort()

    page.route("**/api/games/*/reply", lose)
    page.click('#squares .square[data-sq="22"]')
    page.wait_for_selector("#marks .dot")
    page.click('#squares .square[data-sq="18"]')
    began = time.time()
    # The page tries 4 times, 1, 2 and 4 s apart, after its engine searched the reply (the
    # module compiled and started first). The bound is for a machine under load; on a failure
    # the page's state says where it stood.
    try:
        page.wait_for_selector("#retry-row:not(.hidden)", timeout=90000)
    except Exception as e:
        raise AssertionError(
            f"no Retry button {time.time() - began:.0f} s after the move: "
            f"{len(aborted)} replies lost, status {page.inner_text('#status')!r}, "
            f"busy {page.evaluate('document.body.dataset.busy')!r}, "
            f"ply {page.evaluate('document.body.dataset.ply')!r}, "
            f"{page.evaluate('document.visibilityState')}, game "
            f"{page.evaluate('document.body.dataset.gameId')!r} "
            f"(kept in the browser: {page.evaluate(KEPT_HERE)}), "
            f"console {errors[seen:]}, failed requests {failed}") from e
    print(f"browser: Retry offered {time.time() - began:.1f} s after the move, "
          f"{len(aborted)} replies lost", flush=True)
    check(len(aborted) == 4, f"the reply was asked {len(aborted)} times, expected 4")
    # One state, one message: the status says it (not "thinking"), the message line is empty.
    said = page.inner_text("#status")
    check(said == "The server did not answer. Press Retry to go on.", f"after the lost replies: {said!r}")
    check(page.inner_text("#message") == "", f"and beside it: {page.inner_text('#message')!r}")
    check(page.inner_text("#retry") == "Retry", "the Retry button")
    page.unroute("**/api/games/*/reply")
    page.click("#retry")
    page.wait_for_function("document.body.dataset.ply === '2'", timeout=60000)
    wait_ready(page)
    check(page.is_hidden("#retry-row"), "the Retry button goes once the reply came")
    # The aborted requests' console lines are this check's own.
    del errors[seen:]


def main():
    binary = sys.argv[1]
    out_dir = sys.argv[2] if len(sys.argv) > 2 else "docs"
    began = time.time()
    server = Server(binary)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
            context = serving.routed_context(
                browser, viewport={"width": 1280, "height": 800}, locale="en-US",
                # The page forbids eval; wait_for_function needs it.
                bypass_csp=True)
            page = context.new_page()
            failed = serving.watch_failures(page)
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.set_default_timeout(15000)
            page.goto(server.url)
            page.wait_for_selector("#pieces .piece")
            wait_ready(page)
            check(page.inner_text("#status").startswith("Your move"), "the player starts")
            check_created_by_first_move(server, page)
            check_names_and_keyboard(page)
            choose_novice(page)
            # The first move (22-18) creates the game; its reply is lost, then retried.
            check_retry(page, errors, failed)
            check_reload(server, page)
            check_stranger(browser, server, page.evaluate("document.body.dataset.gameId"))

            capture_seen = False
            turn = 0
            multi_jumps = 0
            while True:
                check(time.time() - began < DEADLINE, f"the game took over {DEADLINE} s")
                wait_ready(page)
                game = game_of(server, page)
                # The first: the page was reloaded since that move (nothing is announced).
                check_last_move(page, game, announced=turn > 0)
                if game["turn"] == "over":
                    break
                if not capture_seen:
                    capture_seen = try_capture_elsewhere(server, page, game)
                turn += 1
                move = play_move(binary, server, page, game, out_dir, turn)
                multi_jumps += len(move["captured"]) > 1

            page.wait_for_selector("#end:not(.hidden)")
            game = game_of(server, page)
            enemy_left = sum(c in "bB" for c in game["board"])
            won = game["outcome"]["winner"] == "player"
            expected = 10 * (12 - enemy_left) + (100 + 50 * 1 if won else 0)
            check(game["score"] == expected, f"API score {game['score']}, expected {expected}")
            shown = page.inner_text("#end-score")
            check(shown == f"Score: {expected}", f"the end shows {shown!r}, expected {expected}")
            title = page.inner_text("#end-title")
            wanted = {"player": "You win!", "computer": "The computer wins."}.get(
                game["outcome"]["winner"], "Draw.")
            check(title == wanted, f"the end says {title!r} for {game['outcome']}")
            # A button at the end opens the game's review.
            review = page.get_attribute("#end-review", "href")
            check(review == f"/review/{game['id']}", f"the review button leads to {review!r}")
            # New game from the end: the finished game stays (the page deletes no finished
            # game), so its review link still works.
            page.click("#end-new")
            page.wait_for_function(f"document.body.dataset.gameId !== '{game['id']}'")
            with urllib.request.urlopen(server.url + f"api/games/{game['id']}/pdn") as res:
                check(res.status == 200, f"the review's game after New game: {res.status}")
            page.goto(server.url.rstrip("/") + review + "?depth=2")
            page.wait_for_function("document.body.dataset.reviewed === '1'", timeout=60000)
            page.go_back()
            page.wait_for_selector("#pieces .piece")
            # The player's record (the cookie's) counts the game, shown in the panel.
            page.wait_for_selector('#record-total[data-games="1"]', state="attached")
            recorded = page.get_attribute("#record-total", "data-score")
            check(recorded == str(expected), f"the record's score {recorded}, expected {expected}")
            check(capture_seen, "no position let the test touch a piece kept still by a capture")
            check(not errors, f"errors in the page: {errors}")
            browser.close()
    finally:
        server.stop()
    print(f"browser: {turn} moves played by clicks, {multi_jumps} multi-jumps, result "
          f"{game['outcome']['result']}, score {game['score']}, in {time.time() - began:.1f} s")


if __name__ == "__main__":
    main()
