// dama's engine as WebAssembly: the module's boundary (src/boundary.rs) and a small
// synchronous API over it. Runs wherever WebAssembly does: a Web Worker (worker.mjs), the
// page itself, node. Each call takes a JSON-able request and returns the answer, or throws
// an Error saying what was wrong with the request; the engine goes on either way.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The module's own URL, beside this file. */
export const wasmUrl = new URL('../dama.wasm', import.meta.url);

/**
 * Whether this host has WebAssembly at all. The module also needs SIMD128 and exception
 * handling (Chromium 95, Firefox 100, Safari 16.4 and later; node 20): where they are
 * missing, `compile` rejects, and a page falls back to the server's search.
 */
export function supported() {
  return typeof WebAssembly === 'object' && typeof WebAssembly.compile === 'function';
}

/** Compiles the module from its bytes or a URL (fetched), for `Dama.create`. */
export async function compile(source = wasmUrl) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return WebAssembly.compile(source);
  }
  const response = await fetch(source);
  if (!response.ok) throw new Error(`dama: cannot load ${source}: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}

/** The engine: one instance of the module, its transposition table kept between calls. */
export class Dama {
  /** An engine from a compiled module (see `compile`). */
  constructor(module) {
    this.module = module;
    this.onProgress = null;
    this.#start();
  }

  /** An engine from the module's bytes, a URL, or nothing (the module beside this file). */
  static async create(source) {
    return new Dama(await compile(source));
  }

  #start() {
    const now =
      typeof performance === 'object' && performance.now
        ? () => performance.now()
        : () => Date.now();
    const imports = {
      dama: {
        now_ms: now,
        progress: (ptr, len) => {
          if (!this.onProgress) return;
          const text = decoder.decode(new Uint8Array(this.exports.memory.buffer, ptr, len));
          this.onProgress(JSON.parse(text));
        },
      },
    };
    this.exports = new WebAssembly.Instance(this.module, imports).exports;
  }

  /**
   * Sends one request (an object with `cmd`) and returns its answer. Throws an Error with
   * the engine's message when the request is refused. A search's progress goes to
   * `onProgress` (a function of one info object) while it runs.
   */
  call(request, onProgress = null) {
    const bytes = encoder.encode(JSON.stringify(request));
    let text;
    this.onProgress = onProgress;
    try {
      const ptr = this.exports.dama_buffer(bytes.length);
      new Uint8Array(this.exports.memory.buffer, ptr, bytes.length).set(bytes);
      const len = this.exports.dama_call(bytes.length);
      const out = this.exports.dama_output();
      text = decoder.decode(new Uint8Array(this.exports.memory.buffer, out, len));
    } catch (e) {
      // A trap (out of memory, a bug the boundary could not catch): the instance is
      // unusable, a fresh one answers the next call.
      this.#start();
      throw new Error(`dama: the engine failed and was restarted: ${e.message}`);
    } finally {
      this.onProgress = null;
    }
    const answer = JSON.parse(text);
    if ('error' in answer) throw new Error(answer.error);
    return answer.ok;
  }

  /** Name, version, variants, levels and whether the module uses SIMD. */
  version() {
    return this.call({ cmd: 'version' });
  }

  /** The legal moves of a game (`{variant, fen, moves}`), sorted as `dama moves` prints. */
  moves(game = {}) {
    return this.call({ cmd: 'moves', ...game });
  }

  /** Where the piece on `square` may go, or why it cannot move; or why a move is illegal. */
  explain(game, what) {
    return this.call({ cmd: 'explain', ...game, ...what });
  }

  /** Leaves of the legal-move tree to `depth`. */
  perft(game, depth) {
    return this.call({ cmd: 'perft', ...game, depth }).nodes;
  }

  /** `dama bench`: nodes, time and the signature. */
  bench(depth) {
    return this.call(depth === undefined ? { cmd: 'bench' } : { cmd: 'bench', depth });
  }

  /** A level's move: `{level, seed, variant, fen, moves}` (Hard thinks a second). */
  play(request, onProgress) {
    return this.call({ cmd: 'play', ...request }, onProgress);
  }

  /** An analysis to `{depth, nodes, time_ms}` with `multipv` lines, progress on the way. */
  analyse(request, onProgress) {
    return this.call({ cmd: 'analyse', ...request }, onProgress);
  }

  /**
   * Builds the endgame classes that searches on the clock asked for (the module has no
   * thread to build them meanwhile): call it while nothing waits, e.g. after the computer's
   * move. Returns how many were built.
   */
  buildTables() {
    return this.call({ cmd: 'tables' }).built;
  }

  /**
   * Reviews every game of a PDN text (`{pdn, variant, depth, nodes}`) as `dama serve` does:
   * each item (a game's moves, each move marked, the final position, the end) to
   * `onItem` as it is done.
   */
  review(request, onItem) {
    return this.call({ cmd: 'review', ...request }, onItem);
  }

  /**
   * `dama serve`'s API answered for a game against the computer kept by the caller:
   * `{method, path, body, record, id}` in, `{status, body, id, record}` out (see the README).
   */
  api(request) {
    return this.call({ cmd: 'api', ...request });
  }

  /** Forgets what the table learnt (a new game). */
  newGame() {
    return this.call({ cmd: 'new-game' });
  }

  /** Sets `hash_mib`. */
  options(options) {
    return this.call({ cmd: 'options', ...options });
  }
}
