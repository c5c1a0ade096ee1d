// dama serve: the games kept in this browser. Where there is no server (a static copy of the
// page, see `dama serve --export`) or no network, api.js sends a game against the computer
// here instead: the engine in the page's worker (dama-wasm's `api` command) answers as the
// server would, from the same views, and the game is kept in local storage, so that it
// survives a reload. A game between people needs the server: it is refused (`needs_server`).

import { browserEngine } from '/engine.js';

const KEY = 'dama.local-games';

function all() {
  try { return JSON.parse(localStorage.getItem(KEY) || '{}') || {}; } catch (e) { return {}; }
}

function keep(games) {
  // The newest 20 games are kept.
  const kept = Object.entries(games).sort((a, b) => b[1].at - a[1].at).slice(0, 20);
  try { localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(kept))); } catch (e) { /* private mode */ }
}

/// Whether game `id` is kept in this browser.
export function isLocalGame(id) {
  return Object.prototype.hasOwnProperty.call(all(), id);
}

/// Keeps game `id` (a game of the server's, carried over when the network went) as `record`.
export function keepGame(id, record) {
  const games = all();
  games[id] = { record, at: Date.now() };
  keep(games);
}

function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/// `method path` with `body`, answered by the page's engine: `{status, body}`; null where
/// the browser cannot run the engine.
export async function localRequest(method, path, body) {
  const worker = await browserEngine();
  if (!worker) return null;
  const m = path.match(/^\/api\/games\/([^/?]+)/);
  const games = all();
  const id = m ? decodeURIComponent(m[1]) : (method === 'POST' && path === '/api/games' ? newId() : null);
  const kept = id && games[id] ? games[id].record : null;
  const r = await worker.call({ cmd: 'api', method, path, body: body === undefined ? null : body, record: kept, id: id || undefined });
  if (id && (r.status < 400 || r.status === 404)) {
    if (r.record) games[id] = { record: r.record, at: Date.now() };
    else delete games[id];
    keep(games);
  }
  return r;
}
