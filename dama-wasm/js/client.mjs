// dama's engine in a Web Worker, from the page: every call returns a promise, a search's
// progress comes to a callback, and `stop()` ends a search at once.
//
// A search runs to its end inside the worker (the module has no thread to look at messages
// meanwhile), so `stop()` ends the worker and resolves the search with the last progress it
// reported; a fresh worker (the compiled module reused, the transposition table lost) takes
// the next request. Hidden tabs should call `pause()`, as lichess does, and the engine then
// starts again on the next request.
import { compile, wasmUrl } from './dama.mjs';

const workerUrl = new URL('./worker.mjs', import.meta.url);

export class DamaWorker {
  /** A worker engine; `module` is the module's URL (default: beside this file) or bytes. */
  constructor(module = wasmUrl) {
    this.moduleSource = module;
    this.compiled = null;
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map();
  }

  /** Resolves with the engine's name and version once it runs; rejects where it cannot. */
  async ready() {
    if (!this.compiled) this.compiled = compile(this.moduleSource);
    const module = await this.compiled;
    if (this.worker) return this.readyPromise;
    this.worker = new Worker(workerUrl, { type: 'module' });
    this.readyPromise = new Promise((resolve, reject) => {
      this.worker.onmessage = (event) => this.#onMessage(event.data, resolve, reject);
      this.worker.onerror = (event) => {
        reject(new Error(`dama: the engine's worker failed: ${event.message}`));
        this.#failAll(`dama: the engine's worker failed: ${event.message}`);
      };
    });
    this.worker.postMessage({ module });
    return this.readyPromise;
  }

  #onMessage(data, resolve, reject) {
    if (data.ready) return resolve(true);
    if (data.failed) return reject(new Error(data.failed));
    const job = this.pending.get(data.id);
    if (!job) return;
    if (data.info) {
      if (data.info.pv) job.last = data.info;
      if (job.onProgress) job.onProgress(data.info);
      return;
    }
    this.pending.delete(data.id);
    if ('ok' in data) job.resolve(data.ok);
    else job.reject(new Error(data.error));
  }

  #failAll(message) {
    for (const job of this.pending.values()) job.reject(new Error(message));
    this.pending.clear();
  }

  /** Sends a request; resolves with its answer, rejects with the engine's Error. */
  async call(request, onProgress = null) {
    await this.ready();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, last: null, request });
      this.worker.postMessage({ id, request });
    });
  }

  moves(game = {}) {
    return this.call({ cmd: 'moves', ...game });
  }

  explain(game, what) {
    return this.call({ cmd: 'explain', ...game, ...what });
  }

  play(request, onProgress) {
    return this.call({ cmd: 'play', ...request }, onProgress);
  }

  analyse(request, onProgress) {
    return this.call({ cmd: 'analyse', ...request }, onProgress);
  }

  /** Reviews the games of a PDN text (see Dama.review), each item to `onItem`. */
  review(request, onItem) {
    return this.call({ cmd: 'review', ...request }, onItem);
  }

  /** `dama serve`'s API for a game kept by the caller (see Dama.api). */
  api(request) {
    return this.call({ cmd: 'api', ...request });
  }

  /** Builds the endgame classes the searches asked for (see Dama.buildTables). */
  buildTables() {
    return this.call({ cmd: 'tables' }).then((r) => r.built);
  }

  /**
   * Ends the searches under way at once: each resolves with `{stopped: true, ...}` and the
   * last progress it reported (best line so far), or rejects when it had reported none.
   */
  stop() {
    if (!this.worker) return;
    this.worker.terminate();
    this.worker = null;
    for (const job of this.pending.values()) {
      if (job.last) {
        job.resolve({ stopped: true, depth: job.last.depth, score: job.last.score,
          score_text: job.last.score_text, pv: job.last.pv,
          best: job.last.pv.length ? { move: job.last.pv[0] } : null });
      } else {
        job.reject(new Error('dama: the search was stopped before its first depth'));
      }
    }
    this.pending.clear();
  }

  /** Ends the worker (a hidden tab); the next request starts a fresh one. */
  pause() {
    this.stop();
  }
}
