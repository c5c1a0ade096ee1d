// dama serve: the API client, the one place that talks to the server (or, without one, to
// the page's own engine: see local.js). Every call sends
// the seat's secret (a friend or pass game's seat, a computer game's owner) when the page
// has one; an error answer becomes
// an ApiError with the server's code, message and reason.

export class ApiError extends Error {
  constructor(status, error, retryAfter) {
    super(error && error.message ? error.message : 'HTTP ' + status);
    this.status = status;
    this.code = error && error.code;
    this.reason = error && error.reason;
    /// Seconds the server asked to wait before asking again (429, 503), or 0.
    this.retryAfter = retryAfter || 0;
  }
}

let seat = null;

/// A static copy of the page (`dama serve --export`) has no server: every call is answered
/// by the page's own engine (local.js). A page from a server goes there too once the
/// network is gone, for what a game against the computer needs.
const STATIC = !!document.querySelector('meta[name="dama-static"]');
let offline = STATIC;

/// How often a page that lost its server asks whether it is back.
const PROBE_MS = 10000;
let probe = null;

/// The server again, for what is not kept in this browser (a game already carried into the
/// browser stays there).
function backOnline() {
  offline = STATIC;
  if (probe) { clearInterval(probe); probe = null; }
}

/// No server from now on, until it answers again. The browser's `online` event is not
/// enough to bring the page back: on a machine whose only network is loopback (a laptop
/// with `dama serve` and no network) Chromium says offline all along and never says online,
/// so the page asks the server's /healthz (never kept by the service worker) now and then.
function goOffline() {
  offline = true;
  if (STATIC || probe) return;
  probe = setInterval(() => {
    fetch('/healthz', { cache: 'no-store' })
      .then((res) => { if (res.ok) backOnline(); })
      .catch(() => { /* still no server */ });
  }, PROBE_MS);
}

window.addEventListener('online', backOnline);

/// Whether the page runs without a server (a static copy, or the network gone).
export function serverless() {
  return offline;
}

/// The calls the page's engine can answer when no server does.
function answerable(method, path) {
  return (method === 'GET' && (path === '/api' || path.startsWith('/api/preview') || path === '/api/me'))
    || (method === 'POST' && path === '/api/games');
}

async function local(method, path, body) {
  const { localRequest } = await import('/local.js');
  const r = await localRequest(method, path, body);
  if (!r) {
    throw new ApiError(503, { code: 'needs_server', message: 'this browser cannot run the engine, and there is no server' }, 0);
  }
  if (r.status === 204) return null;
  if (r.status >= 400) throw new ApiError(r.status, r.body && r.body.error, 0);
  return r.body;
}

async function localGame(path) {
  const m = path.match(/^\/api\/games\/([^/?]+)/);
  if (!m) return false;
  const { isLocalGame } = await import('/local.js');
  return isLocalGame(decodeURIComponent(m[1]));
}

/// The last view of each game against the computer this page owns (in memory): what a game
/// needs to go on in the browser when the network goes in the middle of it.
const owned = new Map();

function remember(data) {
  const g = data && data.game ? data.game : data;
  if (g && g.id && g.opponent === 'computer' && g.seat === 'owner' && g.start_fen) owned.set(g.id, g);
}

/// Game `path` names, if this page owns it and knows its last view: carried over into the
/// browser (from now on its moves are kept and searched here).
async function adopt(path) {
  const m = path.match(/^\/api\/games\/([^/?]+)/);
  const g = m && owned.get(decodeURIComponent(m[1]));
  if (!g) return false;
  const { keepGame } = await import('/local.js');
  keepGame(g.id, {
    variant: g.variant, start_fen: g.start_fen, moves: g.history, level: g.level,
    scored_level: g.scored_level, human: g.player,
  });
  return true;
}

/// The seat's secret sent with every call from now on (null: none).
export function useSeat(secret) {
  seat = secret || null;
}

/// `method path` with the JSON `body`: the answer's JSON (null for 204). `as` is a seat's
/// secret for this one call (another game's), instead of the page's.
export async function api(method, path, body, as) {
  if ((offline && !path.startsWith('/api/games/')) || await localGame(path)) {
    return local(method, path, body);
  }
  const init = { method, headers: {} };
  const secret = as || seat;
  if (secret) init.headers['x-dama-seat'] = secret;
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    // No answer. A new game against the computer is made here; with the browser offline,
    // everything a game against the computer needs is answered here from now on, the game
    // under way included. A request that failed while the browser is online (a dropped
    // connection) is the page's to retry: its game stays the server's.
    const gone = navigator.onLine === false;
    if (!answerable(method, path) && !(gone && await adopt(path))) throw e;
    if (gone) goOffline();
    return local(method, path, body);
  }
  if (res.status === 204) return null;
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new ApiError(res.status, data && data.error, Number(res.headers.get('retry-after')) || 0);
  remember(data);
  return data;
}

function stored(k) { try { return localStorage.getItem('dama.' + k); } catch (e) { return null; } }
function store(k, v) { try { localStorage.setItem('dama.' + k, v); } catch (e) { /* private mode */ } }

/// The seats this browser holds ("your games", in local storage): game id -> { secret, url,
/// at }, the newest 50 kept. A computer game's secret makes a page its owner (url null); a
/// friend game's seat link (url) brings Back or a reload to the same seat.
export const SEATS = {
  all() {
    try { return JSON.parse(stored('seats') || '{}') || {}; } catch (e) { return {}; }
  },
  get(id) { const s = SEATS.all()[id]; return s && s.secret ? s : null; },
  set(id, secret, url) {
    if (!id || !secret) return;
    const all = SEATS.all();
    all[id] = { secret, url: url || null, at: Date.now() };
    const kept = Object.entries(all).sort((a, b) => b[1].at - a[1].at).slice(0, 50);
    store('seats', JSON.stringify(Object.fromEntries(kept)));
  },
};
