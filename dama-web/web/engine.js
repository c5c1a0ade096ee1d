// dama serve: the computer in the player's browser. dama's engine, compiled to WebAssembly
// (dama-wasm), runs in a Web Worker of this tab; the page asks it for the computer's move
// and sends the move to the server, which checks it and records it without searching.
// Where the browser cannot run the module (no WebAssembly, no SIMD, an old engine), or the
// server has none to give, the page asks the server to search, as before.

let engine = null;      // a DamaWorker, once it runs
let unavailable = null; // why the browser's engine cannot run, once known

/// The worker engine, started on first need; null where the browser cannot run it.
export async function browserEngine() {
  if (unavailable) return null;
  if (engine) return engine;
  try {
    const { DamaWorker } = await import('/engine/js/client.mjs');
    const worker = new DamaWorker('/engine/dama.wasm');
    await worker.ready();
    engine = worker;
    // As lichess does: no engine runs in a hidden tab. A search under way then answers
    // with its best line so far; the next request starts a fresh worker.
    document.addEventListener('visibilitychange', () => {
      if (document.hidden && engine) engine.pause();
    });
    return engine;
  } catch (e) {
    unavailable = e && e.message ? e.message : String(e);
    console.warn('dama: the computer searches on the server:', unavailable);
    return null;
  }
}

/// Why the browser's engine does not run (null while it does or is not tried yet).
export function whyUnavailable() {
  return unavailable;
}

/// The computer's move in `game` (the server's view of it) at its level, searched in this
/// browser: its Hub text, or null when the browser cannot search it (the server then does).
export async function browserReply(game) {
  const worker = await browserEngine();
  if (!worker) return null;
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  try {
    const r = await worker.play({
      variant: game.variant,
      fen: game.start_fen,
      moves: game.history,
      level: game.level,
      seed,
    });
    // While the player thinks: the endgame classes the search asked for (no thread in the
    // worker builds them meanwhile).
    worker.buildTables().catch(() => undefined);
    return r.best ? r.best.move : null;
  } catch (e) {
    console.warn('dama: the browser engine failed, the server searches:', e);
    return null;
  }
}
