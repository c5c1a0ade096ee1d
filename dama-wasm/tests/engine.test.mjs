// The WebAssembly engine under node: the same answers as the native `dama` (DAMA_BIN, by
// default target/release/dama) and the published perft numbers, bad input refused with the
// engine going on, a level's reply, analysis with progress, and stop through the worker.
// Run: node --test dama-wasm/tests/
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { test } from 'node:test';
import { Worker as NodeWorker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

import { Dama } from '../js/dama.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const wasmPath = process.env.DAMA_WASM || `${root}dama-wasm/dama.wasm`;
const bytes = fs.readFileSync(wasmPath);
const engine = await Dama.create(bytes);
const native = process.env.DAMA_BIN || `${root}target/release/dama`;

/** The published perft numbers (tests/data/perft.txt), up to `most` leaves. */
function published(most) {
  const out = [];
  let pos = null;
  for (const line of fs.readFileSync(`${root}tests/data/perft.txt`, 'utf8').split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'pos') pos = { variant: words[1], fen: words[2] };
    if (words[0] === 'perft' && pos && Number(words[2]) <= most) {
      out.push({ ...pos, depth: Number(words[1]), nodes: Number(words[2]) });
    }
  }
  return out;
}

test('perft of every variant equals the published numbers', () => {
  const cases = published(5_000_000);
  const variants = new Set(cases.map((c) => c.variant));
  assert.ok(variants.size >= 6, [...variants].join(' '));
  for (const c of cases) {
    const game = { variant: c.variant, fen: c.fen };
    assert.equal(engine.perft(game, c.depth), c.nodes, `${c.variant} ${c.fen} depth ${c.depth}`);
  }
});

/** Positions of seeded random games in `variant`, played by the engine's own moves. */
function randomPositions(variant, count, seed) {
  let state = seed >>> 0;
  const random = (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
  const fens = [];
  while (fens.length < count) {
    const moves = [];
    for (let ply = 0; ply < 120 && fens.length < count; ply++) {
      const { moves: legal } = engine.call({ cmd: 'moves', variant, moves });
      if (!legal.length) break;
      moves.push(legal[random(legal.length)].move);
      fens.push(moves.slice());
    }
  }
  return fens;
}

test('legal moves of a few thousand positions equal `dama moves`', { skip: !fs.existsSync(native) && `no ${native}` }, () => {
  for (const variant of ['italian', 'spanish', 'czech', 'english', 'russian', 'brazilian']) {
    const games = randomPositions(variant, 500, 7);
    const lines = games.map((moves) => engine.call({ cmd: 'fen', variant, moves }).fen);
    const text = lines.join('\n') + '\n';
    const want = execFileSync(native, ['moves', '--variant', variant, '--stdin'], { input: text })
      .toString()
      .trimEnd()
      .split('\n');
    const got = lines.map((fen) => engine.moves({ variant, fen }).moves.map((m) => m.move).join(' '));
    assert.equal(got.length, want.length);
    for (let i = 0; i < got.length; i++) assert.equal(got[i], want[i], `${variant} ${lines[i]}`);
  }
});

test('bad input is refused with an Error saying why, and the engine goes on', () => {
  const cases = [
    [{ cmd: 'moves', fen: 'hello world' }, /is not W or B/],
    [{ cmd: 'moves', fen: 'W:W33:B1' }, /33/],
    [{ cmd: 'moves', fen: 'W:W1,1:B2' }, /1/],
    [{ cmd: 'moves', moves: ['22-18', '22-17'] }, /move 2 of the game/],
    [{ cmd: 'moves', moves: ['99-98'] }, /move 1 of the game/],
    [{ cmd: 'moves', variant: 'chess' }, /variant "chess"/],
    [{ cmd: 'play', level: 'ultra' }, /level "ultra"/],
    [{ cmd: 'play', level: 2, depth: 'deep' }, /depth "deep"/],
    [{ cmd: 'analyse', depth: 3, multipv: -1 }, /multipv -1/],
    [{ cmd: 'analyse', nodes: 0 }, /nodes 0/],
    [{ cmd: 'analyse', time_ms: 1e12 }, /time_ms/],
    [{ cmd: 'options', hash_mib: 1e9 }, /hash_mib/],
    [{ cmd: 'moves', bogus: 1 }, /unknown option "bogus"/],
    [{ cmd: 'launch' }, /unknown command "launch"/],
    [{ cmd: 'play', level: 'hard', fen: 'W:W21:B' }, /black has no piece/],
  ];
  for (const [request, says] of cases) {
    assert.throws(() => engine.call(request), says, JSON.stringify(request));
  }
  assert.equal(engine.moves().moves.length, 7);
});

test('a panic inside the module is an error, never a trap, and the engine goes on', () => {
  const len = engine.exports.dama_panic_test();
  const text = new TextDecoder().decode(
    new Uint8Array(engine.exports.memory.buffer, engine.exports.dama_output(), len),
  );
  const answer = JSON.parse(text);
  assert.match(answer.error, /a panic on purpose/);
  assert.equal(answer.panic, true);
  assert.equal(engine.moves().moves.length, 7);
});

test('each level replies a legal move to a game with its history', () => {
  // Four plies: each side's first legal move.
  const history = [];
  for (let i = 0; i < 4; i++) history.push(engine.moves({ moves: history }).moves[0].move);
  const options = engine.moves({ moves: history }).moves.map((m) => m.move);
  for (const level of ['novice', 'easy', 'normal', 'strong', 'hard']) {
    const r = engine.play({ level, moves: history, seed: 3, time_ms: 300 });
    assert.ok(options.includes(r.best.move), `${level}: ${r.best.move}`);
  }
});

test('an analysis reports its depths and lines as it goes', () => {
  const infos = [];
  const r = engine.analyse({ depth: 6, multipv: 3 }, (info) => infos.push(info));
  assert.equal(r.depth, 6);
  assert.equal(r.lines.length, 3);
  assert.deepEqual(
    infos.filter((i) => i.multipv === 1).map((i) => i.depth),
    [1, 2, 3, 4, 5, 6],
  );
  assert.ok(infos.every((i) => i.pv.length > 0 && typeof i.score === 'number'));
});

test('bench gives the signature of the native `dama bench`', { skip: !fs.existsSync(native) && `no ${native}` }, () => {
  const r = engine.bench(12);
  const line = execFileSync(native, ['bench', '--depth', '12']).toString().trim().split('\n').pop();
  assert.equal(`signature ${r.signature}`, line);
});

test('the worker API answers, reports progress, and stop ends a search at once', async () => {
  // Web Workers for node: client.mjs's `new Worker(url)` runs js/worker.mjs in a thread.
  globalThis.Worker = class {
    constructor() {
      this.thread = new NodeWorker(new URL('./node-worker.mjs', import.meta.url));
      this.thread.on('message', (data) => this.onmessage && this.onmessage({ data }));
      this.thread.on('error', (e) => this.onerror && this.onerror({ message: e.message }));
    }
    postMessage(data) {
      this.thread.postMessage(data);
    }
    terminate() {
      this.thread.terminate();
    }
  };
  const { DamaWorker } = await import('../js/client.mjs');
  const worker = new DamaWorker(bytes);
  const moves = await worker.moves({ fen: 'W:W21,22:B13,14' });
  assert.equal(moves.moves.length, engine.moves({ fen: 'W:W21,22:B13,14' }).moves.length);
  await assert.rejects(worker.moves({ fen: 'nonsense' }), /is not W or B/);
  // An analysis without end, stopped after its first depths: it resolves with its line.
  let seen = 0;
  let resolveSeen;
  const firstDepths = new Promise((r) => (resolveSeen = r));
  const search = worker.analyse({ time_ms: 600_000 }, () => {
    if (++seen === 3) resolveSeen();
  });
  await firstDepths;
  const started = performance.now();
  worker.stop();
  const stopped = await search;
  assert.ok(performance.now() - started < 1000);
  assert.equal(stopped.stopped, true);
  assert.ok(stopped.pv.length > 0);
  // The next request gets a fresh worker.
  const again = await worker.play({ level: 'easy', seed: 1 });
  assert.ok(again.best.move);
  worker.stop();
});

test('a search on the clock queues the endgame classes it needs; `tables` builds them', () => {
  // 2K v 1K, a win the tables play at once (one node) when they have it. The classes may be
  // built already by an earlier test of this module's instance: then nothing is queued.
  const game = { fen: 'W:WK1,K3:BK29' };
  const first = engine.play({ level: 'hard', ...game, time_ms: 200 });
  let built = 0;
  for (let i = 0; i < 10; i++) {
    const n = engine.buildTables();
    if (n === 0) break;
    built += n;
    engine.play({ level: 'hard', ...game, time_ms: 200 });
  }
  const after = engine.play({ level: 'hard', ...game, time_ms: 200 });
  assert.ok(first.nodes > 1 || built === 0, JSON.stringify(first));
  assert.equal(after.nodes, 1, JSON.stringify(after));
  assert.equal(after.depth, 1);
  assert.match(after.score_text, /^win in/);
});

test("the CLI's edge values in every field: an Error quoting them, never a trap", () => {
  // The values of dama-cli's edge test (tests/it/cli.rs), as text and, where JSON has them, as
  // numbers; NaN and infinities become null in JSON, which is "not given".
  const texts = ['99999999999999999999', '1e308', '-1', 'NaN', 'inf', '', ' ',
    '999999999999999999999999999999x/0', '\uFFFD\uFFFE'];
  const numbers = [99999999999999999999, 1e308, -1, 0.5, NaN, Infinity];
  const fields = {
    moves: ['variant', 'fen', 'moves'],
    explain: ['variant', 'fen', 'moves', 'square', 'move'],
    perft: ['variant', 'fen', 'depth'],
    bench: ['depth'],
    play: ['variant', 'fen', 'moves', 'level', 'seed', 'depth', 'nodes', 'time_ms'],
    analyse: ['variant', 'fen', 'moves', 'depth', 'nodes', 'time_ms', 'multipv'],
    options: ['hash_mib'],
  };
  // What each command needs besides the field under test, kept quick.
  const base = {
    explain: { square: 22 }, perft: { depth: 1 }, bench: { depth: 1 },
    play: { level: 'novice' }, analyse: { depth: 1 },
  };
  let refused = 0;
  for (const [cmd, names] of Object.entries(fields)) {
    for (const name of names) {
      for (const v of [...texts, ...numbers]) {
        const request = { cmd, ...(base[cmd] || {}), [name]: v };
        try {
          engine.call(request);
        } catch (e) {
          refused += 1;
          assert.ok(!/restarted/.test(e.message), `${JSON.stringify(request)}: ${e.message}`);
          const shown = typeof v === 'string' ? v.trim() : JSON.stringify(v);
          if (typeof v === 'string' && shown && !/\uFFFD/.test(v)) {
            assert.ok(e.message.includes(shown) || e.message.includes(JSON.stringify(v)),
              `${JSON.stringify(request)}: the error does not quote it: ${e.message}`);
          }
        }
      }
    }
  }
  assert.ok(refused > 100, `only ${refused} refused`);
  assert.equal(engine.moves().moves.length, 7);
});

test('a PDN review gives its items as they are done; a game kept by the caller answers as the server', () => {
  const items = [];
  const done = engine.review({ pdn: '[FEN "W:W23,24,27:B15,1"]\n1. 23-19 15x31 *\n', nodes: 5000 },
    (item) => items.push(item));
  assert.deepEqual(items.map((i) => i.type), ['game', 'ply', 'ply', 'final', 'done']);
  assert.equal(items[1].mark, '??');
  assert.equal(done.thresholds['??'], 200);
  assert.throws(() => engine.review({ pdn: '1. 22-18 bogus *' }), /bogus/);
  let r = engine.api({ method: 'POST', path: '/api/games', body: { level: 'easy' }, id: 'g' });
  assert.equal(r.status, 201);
  r = engine.api({ method: 'POST', path: '/api/games/g/move', body: { path: [22, 18] }, record: r.record });
  assert.equal(r.status, 200);
  assert.equal(r.body.game.turn, 'computer');
  assert.deepEqual(r.record.moves, ['22-18']);
  const refused = engine.api({ method: 'POST', path: '/api/games', body: { opponent: 'friend' }, id: 'h' });
  assert.equal(refused.status, 503);
  assert.equal(refused.body.error.code, 'needs_server');
});
