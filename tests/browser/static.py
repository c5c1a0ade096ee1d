"""The page with no dama server: `dama serve --export` on a plain static host, and a page
from `dama serve` played with the network cut.

Usage: static.py DAMA_BINARY

1. `DAMA_BINARY serve --export DIR`, served by Python's own static server (no dama server
   behind it): in Chromium, a move by clicks gets the computer's reply from the page's
   engine; the game survives a reload (kept in the browser's storage); a friend game is
   refused, saying it needs the server; the analysis board opens and gives live lines; a
   PDN file is reviewed by the page's engine and offered for download.
2. `DAMA_BINARY serve`: the page loads, then the browser is set offline, and a whole game
   at each level, Novice to Hard, is played through the page's own API client (`/api.js`):
   the game against the computer is kept and searched in the browser; once back online the
   server's /metrics has counted no search and no game.
3. `DAMA_BINARY serve`, the page told it is offline all along (as Chromium says on a machine
   whose only network is loopback) and one request lost: the new game is made in the
   browser; once the server answers again, with no `online` event, new games are the
   server's again.

Exit status 0 when every check passes; the first failure raises with what was seen.
"""
import http.server
import os
import re
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

from playwright.sync_api import sync_playwright

import serving

DEADLINE = 600
LEVELS = ["novice", "easy", "normal", "strong", "hard"]

check = serving.check
metric = serving.metric

# A whole game at a level through the page's API client, as the page plays it: the
# computer's move from the page's engine (`browserReply`), the player's a Novice's.
PLAY_GAME = """
async ([level, seed, id, most]) => {
  const { api, useSeat } = await import('/api.js');
  const { browserEngine, browserReply } = await import('/engine.js');
  const engine = await browserEngine();
  if (!engine) return { error: 'no browser engine' };
  let game = id ? await api('GET', `/api/games/${id}`) : await api('POST', '/api/games', { level });
  if (game.secret) useSeat(game.secret);
  let computer = 0;
  for (let ply = 0; ply < (most || 400) && game.turn !== 'over'; ply++) {
    if (game.turn === 'player') {
      const r = await engine.play({ variant: game.variant, fen: game.start_fen,
        moves: game.history, level: 'novice', seed: seed + ply });
      game = (await api('POST', `/api/games/${game.id}/move`, { move: r.best.move })).game;
    } else if (game.turn === 'computer') {
      const mv = await browserReply(game);
      if (!mv) return { error: 'the browser engine gave no move' };
      game = (await api('POST', `/api/games/${game.id}/reply`, { move: mv })).game;
      computer += 1;
    } else {
      return { error: 'turn ' + game.turn };
    }
  }
  const kept = JSON.parse(localStorage.getItem('dama.local-games') || '{}')[game.id];
  return { id: game.id, turn: game.turn, outcome: game.outcome, plies: game.ply, computer,
           kept: kept ? kept.record.moves.length : null };
}
"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def static_host(root):
    """Python's static file server on a free loopback port, in a thread: its address."""
    handler = lambda *a, **kw: Quiet(*a, directory=root, **kw)  # noqa: E731
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def wait_reply(page):
    for _ in range(600):
        if (page.get_attribute("body", "data-busy") == "0"
                and page.get_attribute("body", "data-turn") == "player"):
            return
        time.sleep(0.1)
    raise AssertionError("no reply in 60 s")


def check_static(browser, binary):
    root = tempfile.mkdtemp(prefix="dama-static-")
    out = subprocess.run([binary, "serve", "--export", root], capture_output=True, text=True,
                         timeout=60)
    check(out.returncode == 0, f"--export failed: {out.stderr}")
    check(os.path.isfile(os.path.join(root, "engine", "dama.wasm")), "no module exported")
    httpd, url = static_host(root)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        asked = []
        page.on("request", lambda r: asked.append(r.url) if re.search(r"/api(/|\?|$)", r.url) else None)
        page.goto(url)
        page.wait_for_selector("#pieces .piece", timeout=30000)
        page.click('#squares .square[data-sq="22"]')
        page.wait_for_selector("#marks .dot")
        page.click('#squares .square[data-sq="18"]')
        wait_reply(page)
        gid = page.get_attribute("body", "data-game-id")
        check(gid and page.get_attribute("body", "data-ply") == "2",
              f"static: after a move and the reply, game {gid} ply "
              f"{page.get_attribute('body', 'data-ply')}")
        # A reload: the same game, from the browser's storage.
        page.reload()
        page.wait_for_selector("#pieces .piece", timeout=30000)
        for _ in range(100):
            if page.get_attribute("body", "data-game-id") == gid:
                break
            time.sleep(0.1)
        check(page.get_attribute("body", "data-game-id") == gid
              and page.get_attribute("body", "data-ply") == "2",
              f"static: the game did not survive a reload: {page.get_attribute('body', 'data-game-id')}")
        # A friend game needs the server: the page says so.
        refused = page.evaluate("""async () => {
          const { api } = await import('/api.js');
          try { await api('POST', '/api/games', { opponent: 'friend' }); return null; }
          catch (e) { return { code: e.code, status: e.status, message: e.message }; }
        }""")
        check(refused and refused["code"] == "needs_server", f"static friend game: {refused}")
        # The analysis board, its live lines from the page's engine.
        page.goto(url + "analysis/?fen=W%3AW22%2C23%2C27%3AB10%2C11%2C14")
        page.wait_for_selector("#squares .square", timeout=30000)
        page.click("#live-toggle")
        page.wait_for_selector("#live-lines li", timeout=30000)
        # PDN in: a review made by the page's engine; PDN out: the download.
        page.goto(url + "analysis/")
        page.wait_for_selector("#pdn-text", state="attached", timeout=30000)
        pdn = open(os.path.join(os.path.dirname(__file__), "review.pdn")).read()
        page.evaluate("(t) => { document.getElementById('pdn-text').value = t; }", pdn)
        page.evaluate("document.getElementById('pdn-review').click()")
        for _ in range(1200):
            if page.get_attribute("body", "data-reviewed") == "1":
                break
            check(page.get_attribute("body", "data-review-error") is None,
                  f"review refused: {page.get_attribute('body', 'data-review-error')}")
            time.sleep(0.1)
        check(page.get_attribute("body", "data-reviewed") == "1", "no review in 120 s")
        summary = page.get_attribute("#summary", "data-white")
        download = page.get_attribute("#download", "href") or ""
        check(summary is not None and download.startswith("blob:"),
              f"review: summary {summary}, download {download}")
        check(not asked, f"the static copy asked a server: {asked[:5]}")
        check(not errors, f"page errors: {errors}")
        print(f"static copy: a move and its reply, the game kept over a reload, the friend "
              f"game refused ({refused['message']}), live lines on the analysis board, a PDN "
              f"reviewed (White's marks {summary}) and offered for download")
        page.close()
    finally:
        httpd.shutdown()


def check_offline_games(browser, binary, started):
    server = serving.Server(binary)
    try:
        context = browser.new_context(bypass_csp=True)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        page.wait_for_selector("#pieces .piece", timeout=30000)
        page.evaluate("import('/engine.js').then((m) => m.browserEngine())")
        context.set_offline(True)
        for i, level in enumerate(LEVELS):
            t0 = time.time()
            r = page.evaluate(PLAY_GAME, [level, 100 * i + 7, None, None])
            check("error" not in r, f"{level}: {r}")
            check(r["turn"] == "over" and r["outcome"], f"{level}: the game did not end: {r}")
            check(r["kept"] == r["plies"], f"{level}: the browser kept {r['kept']} of "
                  f"{r['plies']} moves")
            print(f"offline {level}: {r['plies']} plies, {r['computer']} computer moves in the "
                  f"browser, {time.time() - t0:.1f} s, {r['outcome']['message']}")
            check(time.time() - started < DEADLINE, "over the deadline")
        context.set_offline(False)
        check(metric(server, "dama_server_searches_total") == 0, "the server searched")
        check(serving.live_games(server) == 0, "the server keeps a game of the offline page")
        # A game begun on the server goes on in the browser when the network goes.
        page.reload()
        page.wait_for_selector("#pieces .piece", timeout=30000)
        begun = page.evaluate(PLAY_GAME, ["normal", 901, None, 6])
        check("error" not in begun and begun["plies"] == 6 and begun["kept"] is None,
              f"the game on the server: {begun}")
        context.set_offline(True)
        r = page.evaluate(PLAY_GAME, ["normal", 907, begun["id"], None])
        check("error" not in r and r["turn"] == "over" and r["kept"] == r["plies"]
              and r["plies"] > 6, f"the game carried over: {r}")
        print(f"a game begun on the server (6 plies) ended in the browser offline: "
              f"{r['plies']} plies, {r['outcome']['message']}")
        context.set_offline(False)
        check(metric(server, "dama_browser_replies_total") == 3, "browser replies on the server")
        check(not errors, f"page errors: {errors}")
        context.close()
    finally:
        server.stop()


# A new game through the page's API client: its id, whether the page now runs without a
# server, and whether this browser keeps the game.
NEW_GAME = """
async () => {
  const { api, serverless } = await import('/api.js');
  const game = await api('POST', '/api/games', { level: 'novice' });
  const kept = JSON.parse(localStorage.getItem('dama.local-games') || '{}')[game.id];
  return { id: game.id, serverless: serverless(), kept: !!kept };
}
"""


def check_server_back(browser, binary, started):
    """A page that believes it is offline all along (as Chromium on a machine whose only network
    is loopback: a laptop running `dama serve` with no network) loses one request: its new game
    is made in the browser. Once the server answers again, with no `online` event ever, new
    games go to the server again, and the game carried into the browser stays there."""
    server = serving.Server(binary)
    try:
        context = browser.new_context(service_workers="block")
        context.add_init_script("Object.defineProperty(Navigator.prototype, 'onLine',"
                                " { get: () => false, configurable: true });")
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        page.wait_for_selector("#pieces .piece", timeout=30000)
        down = {"on": True}

        def drop(route):
            if down["on"]:
                route.abort()
            else:
                route.continue_()

        page.route("**/api/games", drop)
        page.route("**/healthz", drop)
        lost = page.evaluate(NEW_GAME)
        check(lost["serverless"] and lost["kept"],
              f"a lost request with the browser offline: {lost}")
        check(serving.live_games(server) == 0, "the server has the game made in the browser")
        # Still down: the page keeps asking the browser's engine.
        time.sleep(12)
        again = page.evaluate(NEW_GAME)
        check(again["serverless"] and again["kept"], f"the server still gone: {again}")
        down["on"] = False
        t0 = time.time()
        back = None
        while time.time() - t0 < 30:
            time.sleep(1)
            if not page.evaluate("import('/api.js').then((m) => m.serverless())"):
                back = time.time() - t0
                break
        check(back is not None, "the page did not find its server again within 30 s")
        fresh = page.evaluate(NEW_GAME)
        check(not fresh["serverless"] and not fresh["kept"] and serving.live_games(server) == 1,
              f"a new game once the server answers: {fresh}, "
              f"{serving.live_games(server)} live games on the server")
        # The game carried into the browser stays there, answered by its engine.
        kept = page.evaluate("""async (id) => {
          const { api } = await import('/api.js');
          const g = await api('GET', `/api/games/${id}`);
          return g.id === id && g.turn === 'player';
        }""", lost["id"])
        check(kept, f"the game kept in the browser was lost: {lost['id']}")
        check(not errors, f"page errors: {errors}")
        print(f"offline by the browser's word, a lost request: the game made in the browser; "
              f"the server found again {back:.0f} s after it answered, the next game its own")
        check(time.time() - started < DEADLINE, "over the deadline")
        context.close()
    finally:
        server.stop()


def main():
    binary = sys.argv[1]
    started = time.time()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        check_static(browser, binary)
        check_offline_games(browser, binary, started)
        check_server_back(browser, binary, started)
        browser.close()
    print(f"static.py: every check passed in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
