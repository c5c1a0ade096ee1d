// dama serve: the analysis board. Two screens on one board: the review of a game (`/review/{id}`
// or a PDN pasted or opened here), stepped through with ← → or the move list, its evaluations
// filled in as the server streams them, an SVG graph, the best move as an arrow and the marks;
// and the editor (`/analysis?fen=...`), with live analysis of the position on the board and a
// game against the computer from it. The server owns the rules and the engine.
import { TEXTS, translator } from '/texts.js';
import { api, ApiError, SEATS, serverless } from '/api.js';
import { createBoard, el } from '/board.js';
import { createEditor, writeFen } from '/editor.js';
import { browserEngine } from '/engine.js';
import '/offline.js';

const { LANG, t, err } = translator(TEXTS);
const $ = (id) => document.getElementById(id);
const LEVELS = ['novice', 'easy', 'normal', 'strong', 'hard'];
const query = new URLSearchParams(location.search);
/// A review's budget per position, from the address (for slow machines and tests).
const BUDGET = {};
for (const k of ['depth', 'nodes']) if (query.get(k)) BUDGET[k] = Number(query.get(k));

const S = {
  screen: 'editor',
  variants: {},         // name -> { names, mirrored }
  variant: query.get('variant') || 'italian',
  games: [],            // the reviewed games: { head, bases, plies: [], final, summary }
  game: 0,              // which of them is shown
  cur: 0,               // the position shown: after `cur` moves
  live: null,           // the EventSource of live analysis
  liveLines: [],
};

const pieceName = { e: 'empty', w: 'white_man', W: 'white_king', b: 'black_man', B: 'black_king' };
const board = createBoard($('board'), {
  describe: (sq, letter, name) => t('square', { n: name, what: t(pieceName[letter] || 'empty') }),
  onSquare: (sq) => { editor.place(sq); },
});
const editor = createEditor(() => { if (S.screen === 'editor') showEditor(); });

function say(text) { $('status').textContent = text || ''; }
function announce(text) {
  const a = $('announce');
  a.textContent = '';
  setTimeout(() => { a.textContent = text; }, 30);
}

const variantInfo = (v) => S.variants[v] || { names: null, mirrored: false };

// -----------------------------------------------------------------------------------------
// Scores.

/// A score for the side to move as White's number of men (clamped to ±5 for the graph).
function whiteMen(score, side) {
  const s = side === 'white' ? score : -score;
  return Math.max(-5, Math.min(5, s / 100));
}

/// A score for the side to move `side`, as players read it: from White's point of view, a
/// win named by its winner, the endgame tables' verdict where they have one.
function scoreText(e, side) {
  if (!e) return '…';
  if (e.table) return tableText(e.table, side);
  const m = /^(win|loss) in (\d+)$/.exec(e.score_text) || /^table (win|loss), (\d+)/.exec(e.score_text);
  if (m) return t('wins_in', { c: t((m[1] === 'win') === (side === 'white') ? 'White' : 'Black'), n: m[2] });
  const s = side === 'white' ? e.score : -e.score;
  return (s >= 0 ? '+' : '−') + Math.abs(s / 100).toFixed(2);
}

function tableText(tb, side) {
  if (tb.result === 'draw') return t('table_draw');
  const c = t((tb.result === 'win') === (side === 'white') ? 'White' : 'Black');
  return t(tb.plies === 1 ? 'table_win_one' : 'table_win', { c, n: tb.plies });
}

// -----------------------------------------------------------------------------------------
// The review.

const current = () => S.games[S.game];
const sideOf = (fen) => (String(fen || 'W')[0].toUpperCase() === 'B' ? 'black' : 'white');

/// The evaluation of position `i` of the game shown (before move i; the last is the final).
function evalAt(g, i) {
  return i < g.bases.length ? g.plies[i] : g.final;
}

function positionAt(g, i) {
  if (i < g.bases.length) return { board: g.bases[i].board, fen: g.bases[i].fen };
  return { board: g.head.end_board, fen: g.head.end_fen };
}

function showReview() {
  const g = current();
  if (!g) return;
  const info = { names: g.head.names, mirrored: g.head.mirrored };
  const { board: letters, fen } = positionAt(g, S.cur);
  const tints = [];
  const arrows = [];
  if (S.cur > 0) {
    const played = g.bases[S.cur - 1];
    for (const sq of played.path) tints.push({ sq, cls: 'tint-last' });
  }
  const e = evalAt(g, S.cur);
  if (e && e.best_arrow) arrows.push({ from: e.best_arrow[0], to: e.best_arrow[1], path: e.best_path, cls: 'arrow-best' });
  const prev = S.cur > 0 ? g.plies[S.cur - 1] : null;
  if (prev && prev.mark && prev.best_arrow) arrows.push({ from: prev.best_arrow[0], to: prev.best_arrow[1], path: prev.best_path, cls: 'arrow-better' });
  board.draw({ board: letters, ...info, interactive: false, tints, arrows });
  drawLegend(arrows);
  document.body.dataset.ply = String(S.cur);
  document.body.dataset.fen = fen;
  $('position-eval').textContent = positionText(g, S.cur);
  $('mark-detail').textContent = prev && prev.mark ? markText(prev) : '';
  drawMoveList(g);
  drawGraph(g);
  drawSummary(g);
  const dl = $('download');
  if (dl.dataset.for !== String(S.game)) {
    if (dl.href.startsWith('blob:')) URL.revokeObjectURL(dl.href);
    dl.href = URL.createObjectURL(new Blob([g.head.pdn], { type: 'application/x-pdn' }));
    dl.download = pdnName(g);
    dl.dataset.for = String(S.game);
  }
  if (S.live) startLive();
}

function pdnName(g) {
  const tag = (k) => (g.head.tags.find(([n]) => n === k) || [])[1];
  const date = (tag('Date') || '').replace(/[^0-9]/g, '');
  return `dama${date ? '-' + date : ''}.pdn`;
}

function positionText(g, i) {
  const e = evalAt(g, i);
  const side = sideOf(positionAt(g, i).fen);
  if (!e) return t('evaluating');
  let text = t('eval_is', { s: scoreText(e, side) });
  if (e.best_text) text += ' · ' + t('best_is', { m: e.best_text });
  return text;
}

function markText(p) {
  const name = { '?!': 'was_inaccuracy', '?': 'was_mistake', '??': 'was_blunder' }[p.mark];
  return t('mark_line', { m: p.text + p.mark, kind: t(name), b: p.best_text || '', line: (p.pv_text || []).join(' ') });
}

function drawMoveList(g) {
  const ol = $('move-list');
  const firstBlack = g.bases.length && g.bases[0].side === 'black';
  if (ol.dataset.game !== String(S.game) || ol.children.length === 0) {
    ol.textContent = '';
    ol.dataset.game = String(S.game);
    let li = null;
    g.bases.forEach((b, i) => {
      const slot = i + (firstBlack ? 1 : 0);
      if (slot % 2 === 0 || !li) {
        li = document.createElement('li');
        ol.appendChild(li);
        if (firstBlack && i === 0) li.appendChild(document.createTextNode('… '));
      }
      const btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'mv';
      btn.dataset.ply = String(i);
      btn.addEventListener('click', () => go(i + 1));
      li.appendChild(btn);
    });
  }
  for (const btn of ol.querySelectorAll('.mv')) {
    const i = Number(btn.dataset.ply);
    const p = g.plies[i];
    const mark = p && p.mark ? p.mark : '';
    btn.textContent = g.bases[i].text + mark;
    btn.dataset.mark = mark;
    btn.classList.toggle('current', i === S.cur - 1);
    btn.setAttribute('aria-current', i === S.cur - 1 ? 'step' : 'false');
    const label = t('move_label', { n: Math.floor((i + (firstBlack ? 1 : 0)) / 2) + 1, m: g.bases[i].text })
      + (mark ? ', ' + t({ '?!': 'inaccuracy', '?': 'mistake', '??': 'blunder' }[mark]) : '');
    btn.setAttribute('aria-label', label);
  }
  // The current move shown inside the list's own box: the list scrolls, never the page
  // (on a phone the page would carry the board away).
  const cur = ol.querySelector('.mv.current');
  if (cur) {
    const top = cur.offsetTop;
    const bottom = top + cur.offsetHeight;
    if (top < ol.scrollTop) ol.scrollTop = top;
    else if (bottom > ol.scrollTop + ol.clientHeight) ol.scrollTop = bottom - ol.clientHeight;
  }
}

/// What the arrows drawn mean: the best move from the position shown (green), and after a
/// marked move, the better move instead of it (blue, dashed).
function drawLegend(arrows) {
  const box = $('arrow-legend');
  box.textContent = '';
  for (const cls of ['arrow-best', 'arrow-better']) {
    if (!arrows.some((a) => a.cls === cls)) continue;
    const item = document.createElement('span');
    item.dataset.arrow = cls;
    const swatch = document.createElement('span');
    swatch.className = 'swatch swatch-' + cls.slice(6);
    item.append(swatch, t(cls === 'arrow-best' ? 'legend_best' : 'legend_better'));
    box.appendChild(item);
  }
}

function drawGraph(g) {
  const n = g.bases.length;
  const w = 300;
  const x = (i) => (n === 0 ? w / 2 : (i / n) * w);
  const y = (men) => 40 - men * 7.6;
  const pts = [];
  const layer = $('graph-points');
  layer.textContent = '';
  for (let i = 0; i <= n; i++) {
    const e = evalAt(g, i);
    if (!e) continue;
    const side = sideOf(positionAt(g, i).fen);
    const v = e.table ? (e.table.result === 'draw' ? 0 : (e.table.result === 'win') === (side === 'white') ? 5 : -5) : whiteMen(e.score, side);
    pts.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    const marked = i > 0 && g.plies[i - 1] && g.plies[i - 1].mark;
    el('circle', {
      cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: i === S.cur ? 4 : 2.2,
      class: 'graph-point' + (marked ? ' marked' : ''), 'data-ply': i,
    }, layer);
  }
  $('graph-line').setAttribute('points', pts.join(' '));
  const cursor = $('graph-cursor');
  cursor.textContent = '';
  el('line', { x1: x(S.cur), x2: x(S.cur), y1: 0, y2: 80, class: 'graph-cursor' }, cursor);
}

function drawSummary(g) {
  const count = (side) => g.plies.reduce((acc, p) => {
    if (p && p.mark && p.side === side) acc[p.mark] += 1;
    return acc;
  }, { '?!': 0, '?': 0, '??': 0 });
  const line = (side) => {
    const c = count(side);
    return t('summary_line', { c: t(side === 'white' ? 'White' : 'Black'), a: c['?!'], b: c['?'], d: c['??'] });
  };
  const done = g.final ? '' : ' ' + t('reviewing', { k: g.plies.filter(Boolean).length, n: g.bases.length });
  $('summary').textContent = line('white') + ' · ' + line('black') + done;
  const s = $('summary');
  for (const side of ['white', 'black']) {
    const c = count(side);
    s.dataset[side] = `${c['?!']},${c['?']},${c['??']}`;
  }
}

function go(i) {
  const g = current();
  if (!g) return;
  S.cur = Math.max(0, Math.min(g.bases.length, i));
  showReview();
}

/// Reviews the games of `pdn`, streamed: the moves at once, each evaluation as it comes.
async function review(pdn) {
  stopLive();
  if (serverless()) return reviewHere(pdn);
  say(t('reviewing_start'));
  let res;
  try {
    res = await fetch('/api/reviews', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pdn, variant: S.variant, stream: true, ...BUDGET }),
    });
  } catch (e) {
    say(t('offline', { e: e.message }));
    return;
  }
  if (!res.ok) {
    let fail = null;
    try { fail = (await res.json()).error; } catch (e) { /* not JSON */ }
    say(t('pdn_refused', { e: fail ? fail.message : 'HTTP ' + res.status }));
    document.body.dataset.reviewError = fail ? fail.code : String(res.status);
    return;
  }
  S.games = [];
  S.game = 0;
  S.cur = 0;
  document.body.dataset.reviewed = '0';
  setScreen('review');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) onItem(JSON.parse(line));
    }
  }
}

/// The same review made by the page's engine, with no server (a static copy, or offline):
/// the same items, one by one, from the worker.
async function reviewHere(pdn) {
  const engine = await browserEngine();
  if (!engine) {
    say(t('e_needs_server'));
    document.body.dataset.reviewError = 'needs_server';
    return;
  }
  say(t('reviewing_start'));
  let started = false;
  const item = (it) => {
    if (!started) {
      started = true;
      S.games = [];
      S.game = 0;
      S.cur = 0;
      document.body.dataset.reviewed = '0';
      setScreen('review');
    }
    onItem(it);
  };
  try {
    await engine.call({ cmd: 'review', pdn, variant: S.variant, ...BUDGET }, item);
  } catch (e) {
    say(t('pdn_refused', { e: e.message }));
    document.body.dataset.reviewError = 'bad_pdn';
  }
}

function onItem(item) {
  if (item.type === 'game') {
    const { game, plies, type, ...head } = item;
    S.games[game] = { head, bases: plies, plies: [], final: null };
    drawGamePick();
    if (game === S.game) showReview();
    say(t('reviewing_start'));
  } else if (item.type === 'ply') {
    S.games[item.game].plies[item.ply] = item;
    if (item.game === S.game) showReview();
  } else if (item.type === 'final') {
    const g = S.games[item.game];
    g.final = item;
    g.summary = item.summary;
    if (item.game === S.game) showReview();
  } else if (item.type === 'done') {
    say(t('review_done'));
    document.body.dataset.reviewed = '1';
  } else if (item.type === 'stopped') {
    say(item.message);
  }
}

function drawGamePick() {
  const pick = $('game-pick');
  $('game-pick-label').classList.toggle('hidden', S.games.length < 2);
  pick.textContent = '';
  S.games.forEach((g, i) => {
    if (!g) return;
    const tag = (k) => (g.head.tags.find(([n]) => n === k) || [])[1] || '?';
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = `${i + 1}. ${tag('White')} – ${tag('Black')} ${g.head.result}`;
    pick.appendChild(o);
  });
  pick.value = String(S.game);
}

// -----------------------------------------------------------------------------------------
// Live analysis of the position on the board.

function boardFen() {
  if (S.screen === 'review' && current()) return positionAt(current(), S.cur).fen;
  return editor.fen();
}

function boardVariant() {
  return S.screen === 'review' && current() ? current().head.variant : S.variant;
}

function stopLive() {
  if (S.live) S.live.close();
  S.live = null;
  $('live-toggle').textContent = t('start');
  $('live-toggle').setAttribute('aria-pressed', 'false');
  document.body.dataset.live = 'off';
}

/// Live analysis of the board's position: searched by dama's engine in this browser (a Web
/// Worker, see engine.js) where it runs, else by the server (`GET /api/analysis`, events).
async function startLive() {
  if (S.live) S.live.close();
  const fen = boardFen();
  const variant = boardVariant();
  const side = sideOf(fen);
  const ms = query.get('live_ms') ? Number(query.get('live_ms')) : 10000;
  // A placeholder while the worker starts, so that a second start closes this one.
  const pending = { close() { this.closed = true; } };
  S.live = pending;
  const engine = await browserEngine();
  if (pending.closed || S.live !== pending) return;
  if (engine) {
    const run = { close() { this.closed = true; engine.stop(); } };
    beginLive(run, fen);
    engine.analyse({ variant, fen, multipv: 3, time_ms: ms }, (info) => {
      if (run.closed || S.live !== run) return;
      if (info.table) {
        $('live-table').textContent = tableText(info.table, side);
        $('live-table').dataset.result = info.table.result;
        return;
      }
      onLiveInfo({ depth: info.depth, multipv: info.multipv, score: info.cp,
        score_text: info.score_text, line: info.line }, side);
    }).then(() => {
      endLive(run);
      engine.buildTables().catch(() => undefined);
    }, () => endLive(run));
    return;
  }
  const url = `/api/analysis?fen=${encodeURIComponent(fen)}&variant=${encodeURIComponent(variant)}&multipv=3`
    + (query.get('live_ms') ? `&time_ms=${ms}` : '');
  const es = new EventSource(url);
  beginLive(es, fen);
  es.addEventListener('table', (ev) => {
    const tb = JSON.parse(ev.data);
    $('live-table').textContent = tableText(tb, side);
    $('live-table').dataset.result = tb.result;
  });
  es.addEventListener('info', (ev) => onLiveInfo(JSON.parse(ev.data), side));
  es.addEventListener('done', () => {
    es.close();
    endLive(es);
  });
  es.addEventListener('error', () => {
    if (es.readyState === EventSource.CLOSED && S.live === es) stopLive();
  });
}

/// The live analysis `live` (anything with `close()`) starts on `fen`: the panel cleared.
function beginLive(live, fen) {
  S.live = live;
  S.liveLines = [];
  S.liveFen = fen;
  $('live-toggle').textContent = t('stop');
  $('live-toggle').setAttribute('aria-pressed', 'true');
  $('live-table').textContent = '';
  $('live-lines').textContent = '';
  $('live-depth').textContent = '';
  $('live-eval').textContent = '';
  document.body.dataset.live = 'on';
}

/// One completed iteration of one line: the depth, the evaluation and the lines shown.
function onLiveInfo(d, side) {
  if (!d.line) return;
  S.liveLines[d.multipv - 1] = d;
  S.liveLines.length = Math.min(S.liveLines.length, 3);
  $('live-depth').textContent = t('depth', { d: d.depth });
  $('live-depth').dataset.depth = String(d.depth);
  if (S.liveLines[0]) $('live-eval').textContent = scoreText(S.liveLines[0], side);
  drawLiveLines(side);
}

/// The live analysis `live` spent its budget: the panel says it is done.
function endLive(live) {
  if (S.live !== live) return;
  S.live = null;
  $('live-toggle').textContent = t('start');
  $('live-toggle').setAttribute('aria-pressed', 'false');
  document.body.dataset.live = 'done';
}

function drawLiveLines(side) {
  const ol = $('live-lines');
  ol.textContent = '';
  for (const d of S.liveLines) {
    if (!d) continue;
    const li = document.createElement('li');
    li.textContent = `${scoreText(d, side)} · ${d.line.pv_text.join(' ')}`;
    li.dataset.move = d.line.move;
    ol.appendChild(li);
  }
  // The best line's first move as an arrow on the editor's board.
  if (S.screen === 'editor' && S.liveLines[0]) showEditor();
}

// -----------------------------------------------------------------------------------------
// The editor.

function showEditor() {
  const info = variantInfo(S.variant);
  const arrows = [];
  const best = S.liveLines[0];
  if (best && S.liveFen === editor.fen()) arrows.push({ from: best.line.arrow[0], to: best.line.arrow[1], path: best.line.path, cls: 'arrow-best' });
  board.draw({ board: editor.board, names: info.names, mirrored: info.mirrored, interactive: true, tints: [], arrows });
  drawLegend(arrows);
  const fen = editor.fen();
  if (document.activeElement !== $('fen')) $('fen').value = fen;
  $('turn').value = editor.turn;
  document.body.dataset.fen = fen;
  for (const b of document.querySelectorAll('.tool')) b.setAttribute('aria-checked', b.dataset.tool === editor.tool ? 'true' : 'false');
  const url = `/analysis?fen=${encodeURIComponent(fen)}${S.variant !== 'italian' ? '&variant=' + S.variant : ''}`;
  if (location.pathname + location.search !== url) history.replaceState(null, '', url);
  if (S.live && S.liveFen !== fen) startLive();
}

async function playHere() {
  const level = $('play-level').value;
  try {
    const g = await api('POST', '/api/games', { fen: editor.fen(), variant: S.variant, level });
    try { localStorage.setItem('dama.level', level); localStorage.setItem('dama.variant', S.variant); } catch (e) { /* private mode */ }
    SEATS.set(g.id, g.secret);
    location.assign(`/?game=${g.id}`);
  } catch (e) {
    say(e instanceof ApiError ? err(e) : t('offline', { e: e.message }));
  }
}

// -----------------------------------------------------------------------------------------
// Screens, input and start.

function setScreen(screen) {
  S.screen = screen;
  document.body.dataset.screen = screen;
  $('tab-review').setAttribute('aria-pressed', screen === 'review' ? 'true' : 'false');
  $('tab-editor').setAttribute('aria-pressed', screen === 'editor' ? 'true' : 'false');
  $('tab-review').disabled = S.games.length === 0 && screen !== 'review';
  if (S.live) stopLive();
  if (screen === 'review') showReview();
  else {
    // The review's last word ("Review complete.") is not the editor's.
    say('');
    showEditor();
  }
}

function typing(ev) {
  const tag = ev.target && ev.target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

function wire() {
  document.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev)) return;
    if (S.screen === 'review') {
      const moves = { ArrowLeft: S.cur - 1, ArrowRight: S.cur + 1, Home: 0, End: Infinity };
      if (ev.key in moves) {
        ev.preventDefault();
        go(moves[ev.key]);
        return;
      }
    }
    if (ev.key === 'e' || ev.key === 'E') sayEval();
  });
  $('step-first').addEventListener('click', () => go(0));
  $('step-back').addEventListener('click', () => go(S.cur - 1));
  $('step-next').addEventListener('click', () => go(S.cur + 1));
  $('step-last').addEventListener('click', () => go(Infinity));
  $('graph').addEventListener('click', (ev) => {
    const g = current();
    if (!g) return;
    const box = $('graph').getBoundingClientRect();
    go(Math.round(((ev.clientX - box.left) / box.width) * g.bases.length));
  });
  $('tab-review').addEventListener('click', () => { if (S.games.length) setScreen('review'); });
  $('tab-editor').addEventListener('click', () => {
    if (S.screen === 'review' && current()) {
      const { board: letters, fen } = positionAt(current(), S.cur);
      editor.load(fen || writeFen(letters, 'W'));
      S.variant = current().head.variant;
      $('editor-variant').value = S.variant;
    }
    setScreen('editor');
  });
  $('live-toggle').addEventListener('click', () => (S.live ? stopLive() : startLive()));
  $('say-eval').addEventListener('click', sayEval);
  for (const b of document.querySelectorAll('.tool')) {
    b.addEventListener('click', () => { editor.setTool(b.dataset.tool); showEditor(); });
  }
  $('turn').addEventListener('change', (ev) => editor.setTurn(ev.target.value));
  $('clear-board').addEventListener('click', () => editor.clear());
  $('start-board').addEventListener('click', () => editor.start());
  $('fen').addEventListener('change', (ev) => {
    try {
      editor.load(ev.target.value);
      say('');
    } catch (e) {
      say(t('bad_fen', { e: e.message }));
    }
  });
  $('editor-variant').addEventListener('change', (ev) => { S.variant = ev.target.value; showEditor(); });
  $('play-here').addEventListener('click', playHere);
  $('pdn-review').addEventListener('click', () => review($('pdn-text').value));
  $('pdn-file').addEventListener('change', async (ev) => {
    const file = ev.target.files && ev.target.files[0];
    if (!file) return;
    $('pdn-text').value = await file.text();
    review($('pdn-text').value);
  });
  $('game-pick').addEventListener('change', (ev) => {
    S.game = Number(ev.target.value);
    S.cur = 0;
    showReview();
  });
}

function sayEval() {
  if (S.screen === 'review' && current()) {
    announce(positionText(current(), S.cur) + ($('mark-detail').textContent ? '. ' + $('mark-detail').textContent : ''));
  } else if (S.liveLines[0]) {
    announce(t('eval_is', { s: $('live-eval').textContent }) + ' · ' + t('best_is', { m: S.liveLines[0].line.text }));
  } else {
    announce(t('no_eval'));
  }
}

function staticTexts() {
  document.documentElement.lang = LANG;
  const texts = {
    'tab-review': 'review', 'tab-editor': 'setup', 'board-caption': 'board', 'review-caption': 'review',
    'graph-caption': 'graph', 'say-eval': 'say_eval', download: 'download', 'game-pick-caption': 'game',
    'live-caption': 'engine', 'live-toggle': 'start', 'editor-caption': 'setup', 'palette-caption': 'palette',
    'turn-caption': 'to_move_caption', 'editor-variant-caption': 'rules_select', 'clear-board': 'clear',
    'start-board': 'start_position', 'play-level-caption': 'level_caption', 'play-here': 'play_here',
    'import-caption': 'import', 'pdn-caption': 'paste_pdn', 'pdn-file-caption': 'open_file', 'pdn-review': 'review_button',
    'keys-hint': 'board_hint',
  };
  for (const [id, key] of Object.entries(texts)) $(id).textContent = t(key);
  for (const [id, key] of Object.entries({ 'step-first': 'first', 'step-back': 'back', 'step-next': 'next', 'step-last': 'last' })) {
    $(id).setAttribute('aria-label', t(key));
    $(id).title = t(key);
  }
  const tools = { w: 'white_man', W: 'white_king', b: 'black_man', B: 'black_king', e: 'remove' };
  for (const b of document.querySelectorAll('.tool')) b.textContent = t(tools[b.dataset.tool]);
  $('turn').options[0].textContent = t('White');
  $('turn').options[1].textContent = t('Black');
  const lv = $('play-level');
  LEVELS.forEach((name, i) => {
    const o = document.createElement('option');
    o.value = name;
    o.textContent = `${i + 1}. ${TEXTS[LANG].levels[i]}`;
    lv.appendChild(o);
  });
  lv.value = 'normal';
  $('graph').setAttribute('aria-label', t('graph'));
  // The graph's scale: a side's advantage in men, clamped at 5.
  $('graph-top').textContent = `${t('White')} +5`;
  $('graph-mid').textContent = '0';
  $('graph-bottom').textContent = `${t('Black')} +5`;
}

async function start() {
  staticTexts();
  wire();
  try {
    const info = await api('GET', '/api');
    for (const v of info.variants) S.variants[v.name] = v;
  } catch (e) {
    say(t('offline', { e: e.message }));
  }
  const sel = $('editor-variant');
  for (const name of Object.keys(S.variants)) {
    const o = document.createElement('option');
    o.value = name;
    o.textContent = (TEXTS[LANG].variants || {})[name] || name;
    sel.appendChild(o);
  }
  if (!S.variants[S.variant]) S.variant = 'italian';
  sel.value = S.variant;
  if (query.get('fen')) {
    try { editor.load(query.get('fen')); } catch (e) { say(t('bad_fen', { e: e.message })); }
  }
  const m = location.pathname.match(/^\/review\/([0-9a-fA-F]{32})$/);
  if (m) {
    try {
      const res = await fetch(`/api/games/${m[1]}/pdn`);
      if (!res.ok) throw new ApiError(res.status, (await res.json()).error);
      const text = await res.text();
      $('pdn-text').value = text;
      await review(text);
      return;
    } catch (e) {
      say(e instanceof ApiError ? err(e) : t('offline', { e: e.message }));
    }
  }
  setScreen('editor');
}

document.addEventListener('DOMContentLoaded', start);
