#!/usr/bin/env node
// dama's WebAssembly engine from the command line, for tests: the same lines as the native
// `dama` prints, so that both engines are checked by the same scripts.
//   node dama-wasm/cli.mjs moves [--variant V] --stdin   one FEN a line in, its moves out
//   node dama-wasm/cli.mjs perft --depth N [--fen F] [--variant V]
//   node dama-wasm/cli.mjs bench [--depth N]
// Exit status: 0, or 2 for bad input (its error on stderr, or `error: ...` lines in --stdin).
import fs from 'node:fs';
import readline from 'node:readline';
import { Dama } from './js/dama.mjs';

const usage =
  'usage: cli.mjs moves [--variant V] (--stdin | --fen F) | perft --depth N [--fen F] ' +
  '[--variant V] | bench [--depth N]';

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

function options(args) {
  const out = { _: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--stdin') out.stdin = true;
    else if (['--variant', '--fen', '--depth'].includes(a)) {
      if (i + 1 >= args.length) fail(`${a} needs a value`);
      out[a.slice(2)] = args[++i];
    } else if (a.startsWith('--')) fail(`unknown option "${a}": ${usage}`);
    else out._.push(a);
  }
  return out;
}

function depthOf(text, fallback) {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) fail(`--depth "${text}": expected a whole number`);
  return Number(text);
}

const [command, ...rest] = process.argv.slice(2);
const o = options(rest);
const wasm = process.env.DAMA_WASM || new URL('./dama.wasm', import.meta.url);
const engine = await Dama.create(fs.readFileSync(wasm));
const game = {};
if (o.variant !== undefined) game.variant = o.variant;
if (o.fen !== undefined) game.fen = o.fen;
const out = [];
const flush = () => {
  if (out.length) process.stdout.write(out.join('\n') + '\n');
  out.length = 0;
};

try {
  if (command === 'moves') {
    if (!o.stdin) {
      for (const m of engine.moves(game).moves) out.push(m.move);
    } else {
      let bad = false;
      const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
      for await (const line of lines) {
        try {
          out.push(engine.moves({ ...game, fen: line }).moves.map((m) => m.move).join(' '));
        } catch (e) {
          bad = true;
          out.push(`error: ${e.message}`);
        }
        if (out.length >= 256) flush();
      }
      flush();
      if (bad) process.exitCode = 2;
    }
  } else if (command === 'perft') {
    const depth = depthOf(o.depth, 1);
    for (let d = Math.min(depth, 1); d <= depth; d++) {
      const start = performance.now();
      const nodes = engine.perft(game, d);
      const secs = (performance.now() - start) / 1000;
      const nps = secs > 0 ? Math.trunc(nodes / secs) : 0;
      out.push(`depth ${d} nodes ${nodes} time ${secs.toFixed(3)} nps ${nps}`);
      if (nodes === 0) break;
    }
  } else if (command === 'bench') {
    const r = engine.bench(depthOf(o.depth, 14));
    const perSecond = (n, ms) => (ms > 0 ? Math.trunc((n * 1000) / ms) : 0);
    r.positions.forEach((p, i) => {
      out.push(
        `position ${i + 1} nodes ${p.nodes} time ${(p.ms / 1000).toFixed(3)} ` +
          `nps ${perSecond(p.nodes, p.ms)} best ${p.best ?? 'none'}`,
      );
    });
    out.push(`total nodes ${r.nodes} time ${(r.ms / 1000).toFixed(3)} nps ${perSecond(r.nodes, r.ms)}`);
    out.push(`signature ${r.signature}`);
  } else {
    fail(command === undefined ? usage : `unknown command "${command}": ${usage}`);
  }
} catch (e) {
  flush();
  fail(e.message);
}
flush();
