"""Measures dama's engine in the browser (dama-wasm) for docs/browser.md.

Usage: wasm-measure.py DAMA_BINARY [CHROMIUM]   (Playwright for Python installed)

Prints, each with what produced it:
- the bench (`dama bench`'s positions at depth 14) natively and in Chromium's worker, in one
  run, and their node rates' ratio;
- a Hard reply's time in the page at Chromium's CPU throttle 1 and 4 (a phone's), over the
  first ten replies of a game against a Novice player of the same engine;
- the module's size, and the bytes of a first load of the game page with the engine;
- the server's CPU time for a game against Hard: searched by the server (POST .../reply with
  no move) and by the browser (with the browser's move).
"""
import os
import re
import subprocess
import sys
import time
import urllib.request

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "browser"))
import serving  # noqa: E402

BENCH = """
async () => {
  const { browserEngine } = await import('/engine.js');
  const engine = await browserEngine();
  await engine.call({ cmd: 'bench', depth: 14 });
  return engine.call({ cmd: 'bench', depth: 14 });
}
"""

# A game against `level`, the player a Novice of the same engine; `server` true: the server
# searches the computer's moves. Returns each reply's time in ms.
GAME = """
async ([level, server, replies]) => {
  const { browserEngine, browserReply } = await import('/engine.js');
  const engine = await browserEngine();
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
  const times = [];
  for (let ply = 0; ply < 400 && game.turn !== 'over' && times.length < replies; ply++) {
    if (game.turn === 'player') {
      const r = await engine.play({ variant: game.variant, fen: game.start_fen,
        moves: game.history, level: 'novice', seed: 7 + ply });
      game = (await post(`/api/games/${game.id}/move`, { move: r.best.move }, secret)).game;
    } else {
      const t0 = performance.now();
      const mv = server ? null : await browserReply(game);
      game = (await post(`/api/games/${game.id}/reply`, mv ? { move: mv } : {}, secret)).game;
      times.push(performance.now() - t0);
    }
  }
  return times;
}
"""


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def main():
    binary = sys.argv[1]
    chromium = sys.argv[2] if len(sys.argv) > 2 else "/usr/bin/chromium"
    native = subprocess.run([binary, "bench", "--depth", "14"], capture_output=True,
                            text=True, check=True).stdout.strip().splitlines()
    total = next(line for line in native if line.startswith("total"))
    native_nps = int(total.split()[-1])
    print(f"native `dama bench --depth 14`: {total}")
    server = serving.Server(binary, timeout=120)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"])
            context = browser.new_context(bypass_csp=True)
            page = context.new_page()
            loaded = []
            page.on("response", lambda r: loaded.append(r))
            page.goto(server.url)
            page.wait_for_selector("#pieces .piece", timeout=20000)
            bench = page.evaluate(BENCH)
            nps = bench["nodes"] / bench["ms"] * 1000
            print(f"Chromium worker bench depth 14: nodes {bench['nodes']} (signature "
                  f"{bench['signature']}), {bench['ms']:.0f} ms, {nps:,.0f} nodes/s: "
                  f"{nps / native_nps:.2f} of native")
            body_bytes = 0
            for r in loaded:
                try:
                    body_bytes += len(r.body())
                except Exception:  # noqa: BLE001 (a stream, or a redirect)
                    pass
            print(f"first load of the page with the engine: {len(loaded)} responses, "
                  f"{body_bytes:,} bytes (uncompressed; dama serve does not compress)")
            cdp = context.new_cdp_session(page)
            for rate in (1, 4):
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
                times = page.evaluate(GAME, ["hard", False, 10])
                searched = [t for t in times if t > 50]  # book moves answer at once
                print(f"Hard reply in the page at CPU throttle x{rate}: "
                      f"{len(times)} replies, {len(searched)} searched, "
                      f"mean {sum(searched) / max(1, len(searched)):.0f} ms, "
                      f"max {max(times):.0f} ms")
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
            # The browser's game first: the server's own searches may leave endgame classes
            # building in the background, which would count in the next window.
            for label, by_server in (("browser", False), ("server", True)):
                before = cpu_seconds(server.proc.pid)
                times = page.evaluate(GAME, ["hard", by_server, 30])
                spent = cpu_seconds(server.proc.pid) - before
                print(f"server CPU for 30 Hard replies searched by the {label}: {spent:.2f} s "
                      f"({spent / max(1, len(times)) * 1000:.1f} ms a reply)")
            browser.close()
    finally:
        server.stop()
    size = os.path.getsize(os.path.join(os.path.dirname(__file__), "..", "..", "dama-wasm",
                                        "dama.wasm"))
    print(f"dama-wasm/dama.wasm: {size:,} bytes")


if __name__ == "__main__":
    main()
