"""`dama serve` with the computer in the browser: dama-wasm searching in Chromium.

Usage: engine.py DAMA_BINARY

Starts `DAMA_BINARY serve --port 0`, opens the page in Chromium (Debian's, through Playwright
for Python; CHROMIUM names another executable) and checks:
- a move played by clicks gets the computer's reply from the page's Web Worker: the server
  counts a browser reply and no search of its own (`/metrics`);
- a whole game at each level, Novice to Hard, the computer's moves searched by the page's
  engine (`/engine.js`, the module the page uses) and recorded by the server, the player's
  moves those of a Novice in the same engine: every game ends by the rules, and the server
  has searched nothing (`dama_server_searches_total` 0, `dama_browser_replies_total` the
  number of computer moves);
- the analysis board's live lines (and the tables' verdict) come from the worker: the
  server is asked for none;
- a bad request to the worker rejects with the engine's message and the worker goes on;
- after a first visit, with the network cut, the analysis board opens from the service
  worker's copy and its live lines come from the worker; the manifest makes it installable.

Exit status 0 when every check passes; the first failure raises with what was seen.
"""
import os
import sys
import time

from playwright.sync_api import sync_playwright

import serving

DEADLINE = 600  # seconds for the whole test (Hard thinks a second a move)
LEVELS = ["novice", "easy", "normal", "strong", "hard"]

check = serving.check
metric = serving.metric


# In the page: a whole game at a level, through the same API the page uses and the same
# browser engine (`/engine.js`). The player's moves are a Novice's of the same engine.
PLAY_GAME = """
async ([level, seed]) => {
  const { browserEngine, browserReply } = await import('/engine.js');
  const engine = await browserEngine();
  if (!engine) return { error: 'no browser engine' };
  const post = async (path, body, secret) => {
    const res = await fetch(path, { method: 'POST', headers: Object.assign(
      { 'content-type': 'application/json' }, secret ? { 'x-dama-seat': secret } : {}),
      body: JSON.stringify(body || {}) });
    const data = await res.json();
    if (!res.ok) throw new Error(path + ': ' + JSON.stringify(data));
    return data;
  };
  let game = await post('/api/games', { level });
  const secret = game.secret;
  let computer = 0;
  for (let ply = 0; ply < 400 && game.turn !== 'over'; ply++) {
    if (game.turn === 'player') {
      const r = await engine.play({ variant: game.variant, fen: game.start_fen,
        moves: game.history, level: 'novice', seed: seed + ply });
      game = (await post(`/api/games/${game.id}/move`, { move: r.best.move }, secret)).game;
    } else if (game.turn === 'computer') {
      const mv = await browserReply(game);
      if (!mv) return { error: 'the browser engine gave no move' };
      game = (await post(`/api/games/${game.id}/reply`, { move: mv }, secret)).game;
      computer += 1;
    } else {
      return { error: 'turn ' + game.turn };
    }
  }
  return { turn: game.turn, outcome: game.outcome, plies: game.ply, computer };
}
"""

BAD_REQUEST = """
async () => {
  const { browserEngine } = await import('/engine.js');
  const engine = await browserEngine();
  let message = null;
  try { await engine.moves({ fen: 'hello world' }); } catch (e) { message = e.message; }
  const after = await engine.moves({});
  return { message, moves: after.moves.length };
}
"""


def check_offline(page, server):
    """After a first visit the service worker has the pages and the engine: with the network
    cut, the analysis board opens and its live lines come from the worker."""
    page.goto(server.url + "analysis")
    page.wait_for_selector("#squares .square")
    cached = page.evaluate("""async () => {
      await navigator.serviceWorker.ready;
      for (let i = 0; i < 100; i++) {
        const cache = await caches.open('dama-shell-v2');
        if (await cache.match('/engine/dama.wasm') && await cache.match('/analysis')) return true;
        await new Promise((r) => setTimeout(r, 100));
      }
      return false;
    }""")
    check(cached, "the service worker kept no copy of the page and the engine")
    manifest = page.evaluate("fetch('/manifest.webmanifest').then((r) => r.json())")
    check(manifest["display"] == "standalone" and len(manifest["icons"]) >= 2,
          f"manifest: {manifest}")
    page.context.set_offline(True)
    try:
        page.goto(server.url + "analysis?fen=W%3AW22%2C23%2C27%3AB10%2C11%2C14")
        page.wait_for_selector("#squares .square", timeout=20000)
        page.click("#live-toggle")
        page.wait_for_selector("#live-lines li", timeout=30000)
        lines = page.locator("#live-lines li").count()
        check(lines >= 1, "no live line offline")
        print(f"offline: the analysis board opened from the service worker, {lines} live lines")
    finally:
        page.context.set_offline(False)


def main():
    binary = sys.argv[1]
    started = time.time()
    server = serving.Server(binary)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync", "--no-first-run"])
            # The page under its own Content-Security-Policy (which must let it compile the
            # module): no script evaluated in it, its state read from its attributes.
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url)
            page.wait_for_selector("#pieces .piece", timeout=20000)
            # A move by clicks: the reply comes from the page's worker.
            page.click('#squares .square[data-sq="22"]')
            page.wait_for_selector("#marks .dot")
            page.click('#squares .square[data-sq="18"]')
            for _ in range(600):
                if (page.get_attribute("body", "data-busy") == "0"
                        and page.get_attribute("body", "data-turn") == "player"):
                    break
                time.sleep(0.1)
            check(page.get_attribute("body", "data-turn") == "player", "no reply in 60 s")
            check(metric(server, "dama_browser_replies_total") == 1,
                  "the page's first reply was not the browser's")
            check(metric(server, "dama_server_searches_total") == 0,
                  "the server searched the page's first reply")
            # The analysis board's live lines, from the worker too: no request for them reaches
            # the server, and the tables' verdict comes first.
            asked = []
            page.on("request", lambda r: asked.append(r.url) if "/api/analysis" in r.url else None)
            page.goto(server.url + "analysis?fen=W%3AWK18%2C22%3ABK29")
            page.wait_for_selector("#squares .square")
            page.click("#live-toggle")
            for _ in range(300):
                if (page.get_attribute("#live-table", "data-result") == "win"
                        and page.locator("#live-lines li").count() >= 1):
                    break
                time.sleep(0.1)
            check(page.get_attribute("#live-table", "data-result") == "win",
                  "no tables' verdict in the live analysis")
            check(page.locator("#live-lines li").count() >= 1, "no live line")
            check(not asked, f"the live analysis asked the server: {asked}")
            # The rest drives the page's engine from scripts of the test's own: the policy
            # bypassed for those.
            page = browser.new_context(bypass_csp=True).new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url)
            page.wait_for_selector("#pieces .piece", timeout=20000)
            bad = page.evaluate(BAD_REQUEST)
            check(bad["message"] and "is not W or B" in bad["message"], f"bad request: {bad}")
            check(bad["moves"] == 7, f"the worker after a bad request: {bad}")
            replies = 1
            for i, level in enumerate(LEVELS):
                t0 = time.time()
                r = page.evaluate(PLAY_GAME, [level, 100 * i + 1])
                check("error" not in r, f"{level}: {r}")
                check(r["turn"] == "over" and r["outcome"], f"{level}: the game did not end: {r}")
                replies += r["computer"]
                print(f"{level}: {r['plies']} plies, {r['computer']} computer moves in the "
                      f"browser, {time.time() - t0:.1f} s, {r['outcome']}")
                check(time.time() - started < DEADLINE, "over the deadline")
            check(metric(server, "dama_server_searches_total") == 0,
                  "the server searched a computer move")
            check_offline(page, server)
            check(metric(server, "dama_browser_replies_total") == replies,
                  f"browser replies counted: {metric(server, 'dama_browser_replies_total')}, "
                  f"played: {replies}")
            check(not errors, f"page errors: {errors}")
            browser.close()
    finally:
        server.stop()
    print(f"engine.py: every check passed in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
