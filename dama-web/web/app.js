// dama serve: the page's script. The server owns the rules and the games; this script draws
// the board, turns taps, clicks and keys into API calls, and animates what the server says.
// An ES module (no build step): the texts are in texts.js, the API client in api.js.
import { TEXTS, translator } from '/texts.js';
import { api, ApiError, useSeat, SEATS } from '/api.js';
import { el } from '/board.js';
import { browserReply, whyUnavailable } from '/engine.js';
import '/offline.js';

(() => {
  // ---------------------------------------------------------------------------------------
  // Texts (texts.js): English, Polish or Italian, chosen from the browser's languages.

  const { LANG, TX, t, err } = translator(TEXTS);

  // ---------------------------------------------------------------------------------------
  // State and storage.

  const LEVELS = ['novice', 'easy', 'normal', 'strong', 'hard'];
  const STORE = {
    get(k) { try { return localStorage.getItem('dama.' + k); } catch (e) { return null; } },
    set(k, v) { try { localStorage.setItem('dama.' + k, v); } catch (e) { /* private mode */ } },
    del(k) { try { localStorage.removeItem('dama.' + k); } catch (e) { /* private mode */ } },
  };

  const S = {
    game: null,          // the server's view of the game
    sel: null,           // { from, moves, path }
    draft: false,        // the game is the server's preview: created at the first move
    marked: [],          // squares of pieces that must capture (after a refusal)
    busy: false,         // a request or an animation is under way
    level: LEVELS.includes(STORE.get('level')) ? STORE.get('level') : 'normal',
    variant: STORE.get('variant') || 'italian',
    variants: [],
    focus: 22,
    pieceEls: new Map(),
    drawnVariant: null,
    seat: null,          // the seat's secret from the address (friend and pass games)
    events: null,        // the EventSource following a friend game
  };

  {
    const q = new URLSearchParams(location.search);
    S.urlGame = q.get('game');
    S.seat = q.get('seat');
    if (S.urlGame && S.seat) SEATS.set(S.urlGame, S.seat, location.pathname + location.search);
    // A computer game opened by its address (from the editor, or a reload) is this page's
    // when this browser started it.
    if (S.urlGame && !S.seat) {
      const mine = SEATS.get(S.urlGame);
      if (mine && !mine.url) S.seat = mine.secret;
    }
    useSeat(S.seat);
  }

  const $ = (id) => document.getElementById(id);
  const CELL = 100;

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const reducedMotion = () => window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;


  // ---------------------------------------------------------------------------------------
  // Geometry: engine squares 1..32 (Italian numbering) on the drawn board.

  /// The dark pieces' seat sees the board turned round, its own pieces at the bottom.
  /// (Against the computer, a player given the dark pieces from a set-up position too.)
  const flipped = () => !!(S.game && (S.game.seat === 'black' || (S.game.opponent === 'computer' && S.game.player === 'black')));

  function coords(sq) {
    const i = sq - 1;
    const row = Math.floor(i / 4);
    const col = 2 * (i % 4) + (row & 1);
    let shown = S.game && S.game.mirrored ? 7 - col : col;
    let shownRow = row;
    if (flipped()) {
      shown = 7 - shown;
      shownRow = 7 - row;
    }
    return { row: shownRow, col: shown, x: shown * CELL, y: shownRow * CELL };
  }

  function squareAt(shownRow, shownCol) {
    if (shownRow < 0 || shownRow > 7 || shownCol < 0 || shownCol > 7) return null;
    const row = flipped() ? 7 - shownRow : shownRow;
    const seen = flipped() ? 7 - shownCol : shownCol;
    const col = S.game && S.game.mirrored ? 7 - seen : seen;
    if ((row + col) % 2 !== 0) return null;
    return row * 4 + Math.floor(col / 2) + 1;
  }

  const nameOf = (sq) => (S.game ? S.game.names[sq - 1] : String(sq));
  const pieceOn = (sq) => (S.game ? S.game.board[sq - 1] : 'e');
  /// Whether a piece of the side the page plays is on `sq` (between friends: the seat's).
  const isOwn = (sq) => {
    const p = pieceOn(sq);
    return S.game && S.game.player === 'black' ? p === 'b' || p === 'B' : p === 'w' || p === 'W';
  };

  function describe(sq) {
    const what = { e: t('empty'), w: t('white_man'), W: t('white_king'), b: t('black_man'), B: t('black_king') }[pieceOn(sq)] || t('empty');
    return t('square', { n: nameOf(sq), what });
  }

  // ---------------------------------------------------------------------------------------
  // Drawing.

  function drawBoard() {
    const squares = $('squares');
    const labels = $('labels');
    squares.textContent = '';
    labels.textContent = '';
    for (let row = 0; row < 8; row++) {
      for (let c = 0; c < 8; c++) {
        const sq = squareAt(row, c);
        if (sq === null) {
          el('rect', { x: c * CELL, y: row * CELL, width: CELL, height: CELL, class: 'sq-light' }, squares);
          continue;
        }
        el('rect', {
          x: c * CELL, y: row * CELL, width: CELL, height: CELL,
          class: 'square sq-dark', 'data-sq': sq, tabindex: sq === S.focus ? 0 : -1, role: 'button',
        }, squares);
        const label = el('text', { x: c * CELL + 3, y: row * CELL + 19, class: 'label' }, labels);
        label.textContent = nameOf(sq);
      }
    }
    S.drawnVariant = S.game.variant + (flipped() ? ':turned' : '');
  }

  function drawPieces() {
    const layer = $('pieces');
    layer.textContent = '';
    S.pieceEls.clear();
    for (let sq = 1; sq <= 32; sq++) {
      const p = pieceOn(sq);
      if (p === 'e') continue;
      const colour = p.toLowerCase() === 'w' ? 'white' : 'black';
      const g = el('g', { class: 'piece', 'data-sq': sq, 'data-piece': p }, layer);
      const { x, y } = coords(sq);
      g.style.transform = `translate(${x}px, ${y}px)`;
      el('circle', { cx: 50, cy: 52, r: 38, class: 'man-' + colour }, g);
      el('circle', { cx: 50, cy: 52, r: 27, class: 'man-' + colour + '-inner' }, g);
      if (p === 'W' || p === 'B') el('circle', { cx: 50, cy: 52, r: 15, class: 'crown' }, g);
      S.pieceEls.set(sq, g);
    }
  }

  function tint(sq, cls, layer) {
    const { x, y } = coords(sq);
    el('rect', { x, y, width: CELL, height: CELL, class: cls, 'data-sq': sq }, layer);
  }

  function drawMarks() {
    const tints = $('tints');
    const marks = $('marks');
    tints.textContent = '';
    marks.textContent = '';
    const last = S.game && S.game.last_computer_move;
    if (last) {
      tint(last.from, 'tint-last', tints);
      for (const sq of last.path) tint(sq, 'tint-last', tints);
      for (const sq of last.captured) tint(sq, 'tint-captured', tints);
    }
    if (S.sel) {
      tint(S.sel.from, 'tint-select', tints);
      for (const sq of S.sel.path) tint(sq, 'tint-select', tints);
      const { next, ends } = openTargets();
      for (const sq of next) {
        const { x, y } = coords(sq);
        el('circle', { cx: x + 50, cy: y + 50, r: 16, class: 'dot', 'data-sq': sq }, marks);
      }
      for (const sq of ends) {
        const { x, y } = coords(sq);
        el('circle', { cx: x + 50, cy: y + 50, r: 40, class: 'ring', 'data-sq': sq }, marks);
      }
    }
    for (const sq of S.marked) {
      // A frame along the square's edge: clear of the square's number and of the piece.
      const { x, y } = coords(sq);
      el('rect', { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, class: 'must', 'data-sq': sq }, marks);
    }
  }

  function drawFocus() {
    const layer = $('focus-ring');
    layer.textContent = '';
    const active = document.activeElement;
    if (!active || !active.classList || !active.classList.contains('square')) return;
    // The ring is for the keyboard; a click or a tap shows the selection instead.
    if (!active.matches(':focus-visible')) return;
    const { x, y } = coords(S.focus);
    el('rect', { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, class: 'focus' }, layer);
  }

  function labelSquares() {
    for (const r of document.querySelectorAll('#squares .square')) {
      const sq = Number(r.dataset.sq);
      r.setAttribute('aria-label', describe(sq));
      r.setAttribute('tabindex', sq === S.focus ? '0' : '-1');
      const selected = S.sel && S.sel.from === sq;
      r.setAttribute('aria-pressed', selected ? 'true' : 'false');
    }
  }

  function render() {
    const g = S.game;
    if (!g) return;
    if (S.drawnVariant !== g.variant + (flipped() ? ':turned' : '')) drawBoard();
    drawPieces();
    drawMarks();
    labelSquares();
    drawFocus();
    const both = g.scores && watcher(g);
    $('score-caption').textContent = both ? t('scores') : watcher(g) ? t('score_player') : t('score');
    $('score').textContent = both
      ? `${t('White')} ${g.scores.white} · ${t('Black')} ${g.scores.black}`
      : String(g.score);
    drawLevelNote();
    drawHint();
    $('draw').textContent = `${Math.floor(g.quiet_plies / 2)}/${g.rules.no_progress_moves}`;
    const moves = $('moves');
    moves.textContent = '';
    for (let i = 0; i < g.moves.length; i += 2) {
      const li = document.createElement('li');
      li.textContent = g.moves[i] + (g.moves[i + 1] ? '  ' + g.moves[i + 1] : '');
      moves.appendChild(li);
    }
    moves.scrollTop = moves.scrollHeight;
    drawRules();
    drawStatus();
    drawEnd();
    document.body.dataset.turn = g.turn;
    document.body.dataset.gameId = g.id;
    document.body.dataset.opponent = g.opponent;
    document.body.dataset.ply = String(g.ply);
    drawInvite();
    drawFriend();
  }

  const colorName = (c) => t(c === 'white' ? 'White' : 'Black');

  /// A friend game's seat: resign, offer or answer a draw, and whether the friend is there.
  function drawFriend() {
    const g = S.game;
    const mine = g.opponent === 'friend' && (g.seat === 'white' || g.seat === 'black');
    const live = mine && g.turn !== 'over';
    const friend = mine && g.presence ? g.presence[g.seat === 'white' ? 'black' : 'white'] : null;
    // Nothing to resign or offer before the friend has come.
    $('friend-actions').classList.toggle('hidden', !live || !friend || !friend.joined);
    const offered = live && g.draw_offer && g.draw_offer !== g.seat;
    const sent = live && g.draw_offer === g.seat;
    $('offer-draw').classList.toggle('hidden', !!offered);
    $('offer-draw').disabled = !!sent;
    $('accept-draw').classList.toggle('hidden', !offered);
    $('decline-draw').classList.toggle('hidden', !offered);
    let text = '';
    if (friend) {
      text = !friend.joined ? t('friend_not_joined') : friend.connected ? t('friend_here') : t('friend_away');
      if (offered) text += ' ' + t('draw_offered');
      else if (sent) text += ' ' + t('draw_sent');
    } else if (!mine && g.opponent === 'friend' && g.turn !== 'over' && g.draw_offer) {
      // A watcher is told of the offer too.
      text = t('side_offers_draw', { c: colorName(g.draw_offer) });
    }
    if (!live && mine) text = '';
    // The event stream dropped (the server or the network): said until it is back.
    if (S.connection === 'lost') text = t('connection_lost');
    else if (S.connection === 'back') text = t('connection_back') + (text ? ' ' + text : '');
    $('presence').textContent = text;
    document.body.dataset.connection = S.connection || '';
    document.body.dataset.drawOffer = g.draw_offer || '';
  }

  async function friendAction(path, body) {
    if (S.busy || !S.game) return;
    setBusy(true);
    try {
      S.game = await api('POST', `/api/games/${S.game.id}/${path}`, body);
      render();
    } catch (e) {
      await failed(e);
    } finally {
      setBusy(false);
    }
  }

  /// Whether `g` is seen from a seat of a friend game (White's or Black's).
  const friendSeat = (g) => !!g && g.opponent === 'friend' && (g.seat === 'white' || g.seat === 'black');

  /// A finished friend game's seat that may still be sent to a rematch: it keeps following.
  const awaitsRematch = (g) => !!g && g.opponent === 'friend' && g.turn === 'over' && !g.rematch_url;

  /// The rematch: asked for (the server makes it once, colours swapped), then this seat's
  /// new page; the other seat is sent there by its event stream.
  async function rematch() {
    if (S.busy || !S.game) return;
    if (!S.game.rematch_url) await friendAction('rematch', {});
    if (S.game && S.game.rematch_url) location.assign(S.game.rematch_url);
  }

  /// Whether the page may leave its game: a game in progress asks first (one against the
  /// computer is deleted when left; a friend or pass game stays at its link).
  function mayLeave() {
    const g = S.game;
    if (!g || S.draft || g.turn === 'over' || !g.seat) return true;
    if (g.opponent === 'computer') return g.seat !== 'owner' || window.confirm(t('confirm_abandon'));
    return window.confirm(t('confirm_leave'));
  }

  /// The invitation and the spectators' link, for the creator of a friend game.
  function drawInvite() {
    const g = S.game;
    const box = $('invite');
    const abs = (u) => new URL(u, location.href).href;
    if ((!g.invite_url && !g.watch_url) || g.turn === 'over') {
      box.classList.add('hidden');
      return;
    }
    // Once the friend has opened it (a rematch's friend is there already), the invitation
    // is no use: only the spectators' link stays.
    const invite = g.invite_url && !(g.presence && g.presence.black.joined) ? g.invite_url : null;
    if (!invite && !g.watch_url) {
      box.classList.add('hidden');
      return;
    }
    box.classList.remove('hidden');
    $('invite-text').textContent = invite ? t('invite') : t('watch_link');
    $('invite-url').value = abs(invite || g.watch_url);
    $('watch-url').value = abs(g.watch_url || '');
    $('watch-caption').textContent = t('watch_link');
    $('watch-row').classList.toggle('hidden', !invite);
    $('invite-copy').textContent = t('copy');
  }

  function drawStatus() {
    const g = S.game;
    let text = '';
    if (g.opponent !== 'computer') {
      if (g.turn === 'player' && g.opponent === 'pass') text = t('to_move', { c: colorName(g.to_move) });
      else if (g.turn === 'player') text = t('your_move_color', { c: t(g.seat === 'black' ? 'dark' : 'light') });
      else if (g.turn === 'opponent') text = t('friend_move');
      else if (g.turn === 'watching') text = t('watching') + ' ' + t('to_move', { c: colorName(g.to_move) });
      else text = endTitle();
    }
    else if (g.turn === 'player') {
      text = g.player === 'black' ? t('your_move_color', { c: t('dark') }) : t('your_move');
      // A non-breaking hyphen keeps a move like 14-18 on one line.
      if (g.last_computer_move) text += ' ' + t('computer_played', { m: g.last_computer_move.text.replace(/-/g, '\u2011') });
    }
    else if (g.turn === 'computer') text = t('thinking');
    else if (g.turn === 'watching') text = t('watching');
    else text = endTitle();
    $('status').textContent = text;
  }

  /// Whether the page only watches the game (no seat of it).
  const watcher = (g) => !g.seat;

  function endTitle() {
    const o = S.game.outcome;
    if (!o) return '';
    if (watcher(S.game) && S.game.opponent === 'computer' && o.winner) {
      return t(o.winner === 'player' ? 'player_wins' : 'computer_wins');
    }
    if (o.winner === 'white' || o.winner === 'black') {
      if (S.game.opponent === 'friend' && (S.game.seat === 'white' || S.game.seat === 'black')) {
        return t(o.winner === S.game.seat ? 'win' : 'friend_wins');
      }
      return t('side_wins', { c: colorName(o.winner) });
    }
    if (o.winner === 'player') return t('win');
    if (o.winner === 'computer') return t('loss');
    return t('draw');
  }

  function drawEnd() {
    const g = S.game;
    const box = $('end');
    if (g.turn !== 'over' || !g.outcome) {
      box.classList.add('hidden');
      return;
    }
    const o = g.outcome;
    let why;
    if (o.reason === 'no_moves' && g.opponent !== 'computer') {
      why = t('why_no_moves_side', { c: colorName(o.winner === 'white' ? 'black' : 'white') });
    }
    else if (o.reason === 'no_moves' && watcher(g)) why = t(o.winner === 'player' ? 'why_no_moves_win' : 'why_no_moves_player');
    else if (o.reason === 'no_moves') why = t(o.winner === 'player' ? 'why_no_moves_win' : 'why_no_moves_loss');
    else if (o.reason === 'resigned') why = t('why_resigned', { c: colorName(o.winner === 'white' ? 'black' : 'white') });
    else why = t('why_' + o.reason, { n: g.rules.no_progress_moves });
    $('end-title').textContent = endTitle();
    // A game from a set-up position is practice: kept out of the record, and said so.
    const apart = g.from_setup && g.opponent !== 'pass' ? ` · ${t('not_in_record')}` : '';
    $('end-detail').textContent = `${o.result} · ${why}${apart}`;
    // A watcher is told whose score it is.
    $('end-score').textContent = g.scores && watcher(g)
      ? `${t('White')} ${g.scores.white} · ${t('Black')} ${g.scores.black}`
      : watcher(g) ? `${t('score_player')}: ${g.score}` : t('final_score', { n: g.score });
    $('end-score').dataset.score = String(g.score);
    $('end-review').href = `/review/${g.id}`;
    $('end-rematch').classList.toggle('hidden', !friendSeat(g));
    // Closed by the player to see the final position: stays closed for this game.
    box.classList.toggle('hidden', S.endClosed === g.id);
    loadRecord();
  }

  /// The player's record (from the cookie), summed over the games finished.
  async function loadRecord() {
    let me;
    try { me = await api('GET', '/api/me'); } catch (e) { return; }
    const r = me.total;
    $('record-caption').textContent = t('record');
    $('record-total').textContent = t('record_line', { g: r.games, w: r.wins, d: r.draws, l: r.losses, s: r.score });
    $('record-total').dataset.games = String(r.games);
    $('record-total').dataset.score = String(r.score);
    const ul = $('record-levels');
    ul.textContent = '';
    for (const l of me.levels) {
      const li = document.createElement('li');
      const name = l.level === 'friend' ? t('friend_level') : levelName(l.level);
      li.textContent = t('record_level', { name, g: l.games, w: l.wins, s: l.score });
      ul.appendChild(li);
    }
  }

  function drawRules() {
    const g = S.game;
    const r = g.rules;
    // Inside a sentence, Polish and Italian write the variant's adjective in lower case.
    const v = LANG === 'en' ? variantName(g.variant) : variantName(g.variant).toLowerCase();
    $('rules-caption').textContent = t('rules_in_force', { v });
    const you = watcher(g) ? 'r_you_both' : g.seat === 'black' || (g.opponent === 'computer' && g.player === 'black') ? 'r_you_dark' : g.opponent !== 'computer' && g.seat !== 'white' ? 'r_you_both' : 'r_you';
    const lines = [
      t(you),
      t(r.men_capture_backwards ? 'r_men_back' : 'r_men_forward'),
      t(r.men_capture_kings ? 'r_men_kings' : 'r_men_not_kings'),
      t(r.kings_fly ? 'r_kings_fly' : 'r_kings_short'),
      t('r_mandatory') + ' ' + t('r_prio_' + r.priority),
      t(r.promotion_continues ? 'r_promo_continues' : r.promotion_at_end_only ? 'r_promo_at_end' : 'r_promo_ends'),
      t(r.man_move_is_progress ? 'r_no_progress' : 'r_no_progress_czech', { n: r.no_progress_moves }),
    ];
    if (r.repetition) lines.push(t('r_repetition'));
    if (r.kings_against_king) lines.push(t('r_kak', { n: r.kings_against_king }));
    lines.push(t('r_numbers', { v }));
    const ul = $('rules');
    ul.textContent = '';
    for (const line of lines) {
      const li = document.createElement('li');
      li.textContent = line;
      ul.appendChild(li);
    }
  }

  function variantName(name) {
    return (TX.variants && TX.variants[name]) || TEXTS.en.variants[name] || name;
  }

  function levelName(name) {
    const i = LEVELS.indexOf(name);
    return i >= 0 ? TX.levels[i] : name;
  }

  /// A win counts at the lowest level played: said when the level is above it.
  function drawLevelNote() {
    const g = S.game;
    const lowest = g.opponent === 'computer' ? LEVELS.indexOf(g.scored_level) : -1;
    const shown = lowest >= 0 && lowest < LEVELS.indexOf(g.level);
    $('level-note').textContent = shown ? t('level_note', { k: lowest + 1, name: levelName(g.scored_level) }) : '';
    $('level-note').classList.toggle('hidden', !shown);
  }

  /// The keys (not on a touch screen) and the score's rule; no level keys between people.
  function drawHint() {
    const computer = !S.game || S.game.opponent === 'computer';
    const hint = t(computer ? 'hint' : 'hint_people');
    const touch = window.matchMedia && window.matchMedia('(hover: none) and (pointer: coarse)').matches;
    $('level-hint').textContent = touch ? hint.slice(hint.indexOf('. ') + 2) : hint;
  }

  function drawLevel() {
    const b = $('level');
    b.textContent = t('level', { name: levelName(S.level) });
    b.dataset.level = S.level;
    b.setAttribute('aria-label', t('level', { name: levelName(S.level) }) + ' (1–5)');
  }

  function say(text) { $('message').textContent = text; }

  // ---------------------------------------------------------------------------------------
  // Recovery: a request that fails for want of the server is asked again, then left to the
  // Retry button, which reads the game afresh and goes on from there.

  /// Seconds between the tries of a request the server did not answer.
  const BACKOFF = [1, 2, 4];
  /// The most times a "busy, ask again in N s" answer (503 with Retry-After) is honoured.
  const BUSY_TRIES = 30;

  const lost = (e) => !(e instanceof ApiError) || e.status >= 500;

  /// `call()` (an API request) until it is answered: after Retry-After seconds when the
  /// server is busy, after 1, 2 and 4 s when it did not answer; then the error is thrown.
  async function persist(call) {
    let tries = 0;
    let busy = 0;
    for (;;) {
      try {
        return await call();
      } catch (e) {
        if (!lost(e)) throw e;
        if (e instanceof ApiError && e.status === 503 && e.retryAfter && busy < BUSY_TRIES) {
          busy += 1;
          waiting(t('busy_wait', { n: e.retryAfter }));
          await sleep(e.retryAfter * 1000);
        } else if (tries < BACKOFF.length) {
          waiting(t('retrying', { n: BACKOFF[tries] }));
          await sleep(BACKOFF[tries] * 1000);
          tries += 1;
        } else {
          throw e;
        }
      }
    }
  }

  /// One state, one message: while a request waits to be asked again, the status says so
  /// (not "thinking" beside it) and the message line is empty.
  function waiting(text) {
    $('status').textContent = text;
    say('');
  }

  function showRetry(e) {
    if (e) console.debug('no answer:', e);
    waiting(t('failed_retry'));
    $('retry-row').classList.remove('hidden');
  }

  function hideRetry() { $('retry-row').classList.add('hidden'); }

  function announce(text) {
    // Cleared first so that the same words twice are read twice.
    const a = $('announce');
    a.textContent = '';
    setTimeout(() => { a.textContent = text; }, 30);
  }

  function setBusy(b) {
    S.busy = b;
    document.body.dataset.busy = b ? '1' : '0';
  }

  // ---------------------------------------------------------------------------------------
  // Selection: the selected piece's moves (from the server) and the landings entered so far.

  const startsWith = (path, prefix) => prefix.every((sq, i) => path[i] === sq);

  function openMoves() {
    if (!S.sel) return [];
    return S.sel.moves.filter((m) => m.paths.some((p) => startsWith(p, S.sel.path)));
  }

  /// The next landing squares (dots), and the ends of moves that a tap may complete at once
  /// (rings): a square only one open move ends on, beyond the next landing.
  function openTargets() {
    const open = openMoves();
    const k = S.sel.path.length;
    const next = new Set();
    const endCount = new Map();
    for (const m of open) {
      for (const p of m.paths) {
        if (!startsWith(p, S.sel.path)) continue;
        if (p.length > k) next.add(p[k]);
      }
      if (m.paths.some((p) => startsWith(p, S.sel.path) && p.length > k + 1)) {
        endCount.set(m.to, (endCount.get(m.to) || 0) + 1);
      }
    }
    const ends = [...endCount].filter(([sq, n]) => n === 1 && !next.has(sq)).map(([sq]) => sq);
    return { next: [...next].sort((a, b) => a - b), ends };
  }

  function clearSelection() {
    S.sel = null;
    S.marked = [];
  }

  async function onSquare(sq) {
    if (S.busy || !S.game || S.game.turn !== 'player') return;
    S.focus = sq;
    if (S.sel) {
      const { next, ends } = openTargets();
      if (next.includes(sq)) return extend(sq);
      if (ends.includes(sq)) {
        const m = openMoves().find((x) => x.to === sq);
        const p = m.paths.find((x) => startsWith(x, S.sel.path));
        return play(m, p);
      }
      const refused = S.sel.path.length === 0 && (S.sel.kings || []).find((k) => k.to === sq);
      if (refused) {
        // Italian: a man may not capture a king (the rules' fact, from the server).
        clearSelection();
        S.marked = refused.king ? [refused.king] : [];
        say(kingText(refused.king));
        render();
        return;
      }
      if (sq === S.sel.from || !isOwn(sq)) {
        // Not a square this piece may go to: say where it may (a tap on itself deselects).
        const why = sq === S.sel.from ? '' : t('not_a_target', {
          s: nameOf(sq), p: nameOf(S.sel.from), list: next.concat(ends).sort((a, b) => a - b).map(nameOf).join(', '),
        });
        clearSelection();
        say(why);
        render();
        return;
      }
    }
    if (!isOwn(sq)) {
      clearSelection();
      if (pieceOn(sq) !== 'e') say(t(S.game.opponent === 'computer' ? 'not_your_piece' : 'not_your_piece_friend'));
      render();
      return;
    }
    await select(sq);
  }

  async function select(sq) {
    setBusy(true);
    try {
      // A game not created yet: its preview has every piece's targets.
      let r = S.draft && S.game.targets ? S.game.targets[sq] : null;
      if (!r) {
        await created();
        r = await api('GET', `/api/games/${S.game.id}/targets?square=${sq}`);
      }
      clearSelection();
      if (r.reason) {
        S.marked = r.reason.squares || [];
        say(reasonText(r.reason));
      } else {
        S.sel = { from: sq, moves: r.moves, path: [], kings: r.kings_refused || [] };
        say(t('selected', { s: nameOf(sq) }));
      }
    } catch (e) {
      await failed(e);
    } finally {
      setBusy(false);
    }
    render();
  }

  function kingText(king) {
    return king ? t('man_takes_king', { s: nameOf(king) }) : t('man_takes_king_plain');
  }

  function reasonText(reason) {
    const list = (reason.squares || []).map(nameOf).join(', ');
    switch (reason.code) {
      case 'man_takes_king': return kingText((reason.squares || [])[0]);
      case 'must_capture': return t('must_capture', { s: list });
      case 'outranked':
      case 'loses_by_priority': return t('outranked', { b: reason.better || '' });
      case 'blocked': return t('blocked');
      case 'not_your_piece': return t('not_your_piece');
      case 'empty_square': return '';
      default: return reason.message || '';
    }
  }

  function extend(sq) {
    S.sel.path.push(sq);
    const open = openMoves();
    const k = S.sel.path.length;
    const done = open.find((m) => m.paths.some((p) => p.length === k && startsWith(p, S.sel.path)));
    if (done && open.every((m) => m === done)) {
      return play(done, S.sel.path.slice());
    }
    if (open.length === 1) {
      // A unique way on: completed at once.
      const p = open[0].paths.find((x) => startsWith(x, S.sel.path));
      return play(open[0], p);
    }
    say(t('go_on', { s: [S.sel.from, ...S.sel.path].map(nameOf).join('x') }));
    render();
    return undefined;
  }

  // ---------------------------------------------------------------------------------------
  // Moves: the player's, then the computer's reply.

  async function animate(move) {
    const piece = S.pieceEls.get(move.from);
    if (!piece || reducedMotion()) return;
    for (const sq of move.path) {
      const { x, y } = coords(sq);
      piece.style.transform = `translate(${x}px, ${y}px)`;
      await sleep(240);
    }
    for (const sq of move.captured) {
      const p = S.pieceEls.get(sq);
      if (p) p.classList.add('gone');
    }
    if (move.captured.length) await sleep(180);
  }

  async function play(m, path) {
    setBusy(true);
    const from = S.sel ? S.sel.from : m.from;
    clearSelection();
    say('');
    drawMarks();
    try {
      // The first move creates the game (until now the server's preview).
      await created();
      const r = await api('POST', `/api/games/${S.game.id}/move`, { path: [from, ...path] });
      await animate(r.played);
      S.game = r.game;
      render();
      announce(t('you_played', { m: r.played.text }));
    } catch (e) {
      await failed(e);
      render();
      setBusy(false);
      return;
    }
    setBusy(false);
    if (S.game.turn === 'computer') await reply();
  }

  async function reply() {
    setBusy(true);
    drawStatus();
    try {
      // The browser's engine searches where it can; the server checks and records its move.
      const mv = await browserReply(S.game);
      const body = mv ? { move: mv } : undefined;
      const r = await persist(() => api('POST', `/api/games/${S.game.id}/reply`, body));
      // Told, as lichess tells, when this browser cannot run the engine: the server searched.
      say(!mv && whyUnavailable() ? t('engine_on_server', { e: whyUnavailable() }) : '');
      await animate(r.played);
      S.game = r.game;
      render();
      announce(t('computer_played', { m: r.played.text }));
    } catch (e) {
      if (e.code === 'computer_thinking' || e.code === 'not_computer_turn') {
        // Already under way (or done, when an earlier try's answer was lost): read it.
        await sleep(400);
        setBusy(false);
        return refresh();
      }
      await failed(e);
    } finally {
      setBusy(false);
    }
  }

  async function refresh() {
    try {
      S.game = await persist(() => api('GET', `/api/games/${S.game.id}`));
      hideRetry();
      render();
      if (S.game.turn === 'computer') {
        if (S.game.thinking) {
          await sleep(400);
          return refresh();
        }
        return reply();
      }
    } catch (e) {
      await failed(e);
    }
    return undefined;
  }

  async function failed(e) {
    if (lost(e)) {
      showRetry(e);
      return;
    }
    if (e instanceof ApiError) {
      if (e.code === 'unknown_game') {
        await newGame(t('expired'));
        return;
      }
      say(e.reason ? reasonText(e.reason) || err(e) : err(e));
      if (e.reason && e.reason.squares) S.marked = e.reason.squares;
      return;
    }
    say(t('offline', { e: e && e.message ? e.message : String(e) }));
  }

  /// A new game against the computer, shown before it exists: the server's preview of it
  /// (stored nowhere, with its pieces' targets); the game is created with the first move
  /// (`created`), so an idle visitor takes no place among the server's live games.
  async function newGame(message) {
    setBusy(true);
    const old = S.game && !S.draft && S.game.opponent === 'computer' && S.game.turn !== 'over' && S.game.seat === 'owner'
      ? { id: S.game.id, secret: S.seat } : null;
    clearSelection();
    unfollow();
    if (S.seat || S.urlGame) {
      S.seat = null;
      useSeat(null);
      S.urlGame = null;
      // Pushed, not replaced: Back returns to the seat's address (and so to the seat).
      history.pushState(null, '', '/');
    }
    try {
      const q = `variant=${encodeURIComponent(S.variant)}&level=${encodeURIComponent(S.level)}`;
      S.game = await api('GET', `/api/preview?${q}`);
      S.draft = true;
      S.seat = null;
      useSeat(null);
      STORE.del('game');
      // An unfinished game left for a new one is deleted; a finished one stays for its review.
      if (old && old.secret) api('DELETE', `/api/games/${old.id}`, undefined, old.secret).catch(() => {});
      render();
      say(message || t('new_started', { v: variantName(S.game.variant), name: levelName(S.level) }));
    } catch (e) {
      if (e instanceof ApiError) say(err(e));
      else say(t('offline', { e: e.message }));
    } finally {
      setBusy(false);
    }
  }

  /// The game shown as a preview, created now that the player moves first (a new game on
  /// this page has the light pieces, which move first). Throws what the server refused.
  async function created() {
    if (!S.draft) return true;
    const g = await api('POST', '/api/games', { variant: S.variant, level: S.level });
    SEATS.set(g.id, g.secret);
    S.seat = g.secret;
    useSeat(S.seat);
    S.game = g;
    S.draft = false;
    STORE.set('game', g.id);
    render();
    return true;
  }

  /// A game between people (`friend`: two browsers; `pass`: this one): its seat's page.
  async function newFriendGame(kind) {
    if (S.busy) return;
    setBusy(true);
    try {
      const g = await api('POST', '/api/games', { variant: S.variant, opponent: kind });
      location.assign(g.white_url);
    } catch (e) {
      await failed(e);
      setBusy(false);
    }
  }

  /// Follows a game between people: each move committed arrives as an event; a dropped
  /// connection reconnects by itself and the server sends the moves after the last seen.
  function follow() {
    unfollow(false);
    const g = S.game;
    if (!g || g.opponent === 'computer' || typeof EventSource === 'undefined') return;
    if (g.turn === 'over' && !awaitsRematch(g)) return;
    let url = `/api/games/${g.id}/events?after=${g.ply}`;
    if (S.seat) url += `&seat=${encodeURIComponent(S.seat)}`;
    const es = new EventSource(url);
    S.events = es;
    S.stateSeq = 0;
    // A reconnection (a restarted server counts its state events afresh) starts over.
    es.addEventListener('open', () => {
      S.stateSeq = 0;
      clearTimeout(S.lostTimer);
      S.lostTimer = null;
      if (S.connection === 'lost') connection('back');
    });
    S.pending = [];
    es.addEventListener('state', (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      const apply = () => {
        if (!S.game || data.ply !== S.game.ply || data.seq <= (S.stateSeq || 0)) return;
        if (S.busy || S.draining) { setTimeout(apply, 100); return; }
        S.stateSeq = data.seq;
        const asked = !S.game.rematch_url && data.game.rematch_url;
        S.game = data.game;
        render();
        // The other seat asked for a rematch: this seat goes to its place in it, a watcher
        // to watch it.
        if (asked && S.game.opponent === 'friend') {
          unfollow();
          location.assign(S.game.rematch_url);
          return;
        }
        if (S.game.turn === 'over' && !awaitsRematch(S.game)) unfollow();
      };
      apply();
    });
    es.addEventListener('move', (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      S.pending.push(data);
      drain();
    });
    es.addEventListener('error', () => {
      // A stream ended by the server comes back within its retry delay (1 s): only one that
      // stays away is said to be lost.
      if (S.events === es && !S.lostTimer) {
        S.lostTimer = setTimeout(() => {
          S.lostTimer = null;
          if (!S.events || S.events.readyState !== EventSource.OPEN) connection('lost');
        }, 2000);
      }
      // The browser retries by itself while the stream is CONNECTING; once it has given up
      // (CLOSED), catch up with a fresh read and follow again.
      if (es.readyState !== EventSource.CLOSED || S.events !== es) return;
      S.events = null;
      setTimeout(async () => {
        if (S.events || !S.game) return;
        try {
          const g = await api('GET', `/api/games/${S.game.id}`);
          if (g.ply > S.game.ply && !S.busy) {
            S.game = g;
            render();
          }
        } catch (e) { /* still down: the next try follows */ }
        follow();
      }, 2000);
    });
  }

  async function drain() {
    if (S.draining) return;
    S.draining = true;
    try {
      while (S.pending && S.pending.length) {
        while (S.busy) await sleep(50);
        const data = S.pending.shift();
        if (!S.game || data.ply <= S.game.ply) continue;
        if (data.ply === S.game.ply + 1) await animate(data.played);
        if (data.game) {
          S.game = data.game;
          clearSelection();
          render();
          announce(data.played.text);
          if (S.game.turn === 'over' && !awaitsRematch(S.game)) unfollow();
        }
      }
    } finally {
      S.draining = false;
    }
  }

  /// The event stream's connection: `lost` (said at once) or `back` (said for a few
  /// seconds), then nothing.
  function connection(state) {
    S.connection = state;
    clearTimeout(S.connectionTimer);
    if (state === 'back') S.connectionTimer = setTimeout(() => connection(null), 4000);
    if (S.game) drawFriend();
  }

  /// Stops following; `reset` (by default) forgets the connection's state too.
  function unfollow(reset = true) {
    if (S.events) S.events.close();
    S.events = null;
    if (reset) {
      clearTimeout(S.lostTimer);
      S.lostTimer = null;
      clearTimeout(S.connectionTimer);
      S.connection = null;
    }
  }

  async function setLevel(name) {
    if (!LEVELS.includes(name)) return;
    S.level = name;
    STORE.set('level', name);
    drawLevel();
    say(t('level_set', { k: LEVELS.indexOf(name) + 1, name: levelName(name) }));
    if (!S.game || S.game.opponent !== 'computer' || S.game.seat !== 'owner') return;
    const draft = S.draft;
    try {
      // A game not created yet: its preview at the new level.
      const g = draft
        ? await api('GET', `/api/preview?variant=${encodeURIComponent(S.variant)}&level=${encodeURIComponent(name)}`)
        : await api('POST', `/api/games/${S.game.id}/level`, { level: name });
      // Created meanwhile (its level is the one asked: S.level).
      if (draft && !S.draft) return;
      if (!S.busy) {
        S.game = g;
        render();
      } else {
        S.game.level = g.level;
      }
    } catch (e) {
      await failed(e);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Input: pointer, keyboard, controls.

  /// The arrows move the focus one row (Up, Down) or one column (Left, Right) as drawn; the
  /// dark squares being on diagonals, the other coordinate steps by one to either side,
  /// toward the line the arrows started on, so that Up, Up goes straight up.
  function moveFocus(dRow, dCol) {
    const { row, col } = coords(S.focus);
    const axis = dRow ? 'col' : 'row';
    if (!S.line || S.line.axis !== axis || S.line.from !== S.focus) S.line = { axis, at: dRow ? col : row };
    const at = S.line.at;
    const near = (a, b) => Math.abs(a - at) - Math.abs(b - at) || a - b;
    const target = dRow
      ? [col - 1, col + 1].sort(near).map((c) => squareAt(row + dRow, c)).find((sq) => sq !== null)
      : [row - 1, row + 1].sort(near).map((r) => squareAt(r, col + dCol)).find((sq) => sq !== null);
    if (target === undefined) return;
    S.line.from = target;
    S.focus = target;
    labelSquares();
    const r = document.querySelector(`#squares .square[data-sq="${target}"]`);
    if (r) r.focus();
    drawFocus();
  }

  function wire() {
    const board = $('board');
    board.addEventListener('click', (ev) => {
      const r = ev.target.closest && ev.target.closest('.square');
      if (!r) return;
      onSquare(Number(r.dataset.sq));
    });
    board.addEventListener('keydown', (ev) => {
      const keys = {
        ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
      };
      if (keys[ev.key]) {
        ev.preventDefault();
        moveFocus(keys[ev.key][0], keys[ev.key][1]);
      } else if (ev.key === 'Enter' || ev.key === ' ') {
        const r = ev.target.closest && ev.target.closest('.square');
        if (r) {
          ev.preventDefault();
          onSquare(Number(r.dataset.sq));
        }
      }
    });
    board.addEventListener('focusin', (ev) => {
      const r = ev.target.closest && ev.target.closest('.square');
      if (r) S.focus = Number(r.dataset.sq);
      drawFocus();
    });
    board.addEventListener('focusout', () => setTimeout(drawFocus, 0));
    document.addEventListener('keydown', (ev) => {
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      const tag = ev.target && ev.target.tagName;
      if (tag === 'SELECT' || tag === 'INPUT' || tag === 'TEXTAREA') return;
      if (ev.key >= '1' && ev.key <= '5') {
        ev.preventDefault();
        setLevel(LEVELS[Number(ev.key) - 1]);
      } else if (ev.key === 'n' || ev.key === 'N') {
        if (!S.busy && mayLeave()) newGame();
      } else if (ev.key === 'Escape') {
        clearSelection();
        say('');
        render();
      }
    });
    $('level').addEventListener('click', () => {
      setLevel(LEVELS[(LEVELS.indexOf(S.level) + 1) % LEVELS.length]);
    });
    $('new-game').addEventListener('click', () => { if (!S.busy && mayLeave()) newGame(); });
    $('resign').addEventListener('click', () => { if (window.confirm(t('confirm_resign'))) friendAction('resign'); });
    $('offer-draw').addEventListener('click', () => friendAction('draw', { action: 'offer' }));
    $('accept-draw').addEventListener('click', () => friendAction('draw', { action: 'accept' }));
    $('decline-draw').addEventListener('click', () => friendAction('draw', { action: 'decline' }));
    $('retry').addEventListener('click', async () => {
      if (S.busy || !S.game) return;
      hideRetry();
      say('');
      setBusy(true);
      try { await refresh(); } finally { setBusy(false); }
    });
    $('friend-game').addEventListener('click', () => { if (mayLeave()) newFriendGame('friend'); });
    $('pass-game').addEventListener('click', () => { if (mayLeave()) newFriendGame('pass'); });
    // Back to a seat's address (kept in the history when a new game replaced it): load it.
    window.addEventListener('popstate', () => location.reload());
    $('invite-copy').addEventListener('click', async () => {
      const input = $('invite-url');
      try {
        await navigator.clipboard.writeText(input.value);
        say(t('copied'));
      } catch (e) {
        input.select();
      }
    });
    $('end-new').addEventListener('click', () => { if (!S.busy) newGame(); });
    $('end-rematch').addEventListener('click', rematch);
    $('end-close').addEventListener('click', () => {
      if (!S.game) return;
      S.endClosed = S.game.id;
      drawEnd();
      // The focus was on the card's button: back to the board's square in the tab order.
      const square = document.querySelector('#squares .square[tabindex="0"]');
      if (square) square.focus();
    });
    $('variant').addEventListener('change', (ev) => {
      if (!mayLeave()) {
        ev.target.value = S.game.variant;
        return;
      }
      S.variant = ev.target.value;
      STORE.set('variant', S.variant);
      if (!S.busy) newGame();
    });
  }

  function staticTexts() {
    document.documentElement.lang = LANG;
    $('variant-caption').textContent = t('rules_select');
    $('new-game').textContent = t('new_game');
    $('retry').textContent = t('retry');
    $('resign').textContent = t('resign');
    $('offer-draw').textContent = t('offer_draw');
    $('accept-draw').textContent = t('accept_draw');
    $('decline-draw').textContent = t('decline_draw');
    $('friend-game').textContent = t('play_friend');
    $('pass-game').textContent = t('pass_play');
    $('end-new').textContent = t('new_game');
    $('end-review').textContent = t('review_game');
    $('end-rematch').textContent = t('rematch');
    $('board-link').textContent = t('analysis_board');
    $('board-caption').textContent = t('board');
    $('score-caption').textContent = t('score');
    $('draw-caption').textContent = t('draw_counter');
    $('moves-caption').textContent = t('moves');
    // The keys are no use on a touch screen: there only the score's rule is said.
    drawHint();
    $('end-close').setAttribute('aria-label', t('close'));
    $('end-close').title = t('close');
    drawLevel();
    if (window.matchMedia && window.matchMedia('(min-width: 900px) and (min-height: 600px)').matches) {
      $('rules-box').open = true;
      $('moves-box').open = true;
    }
  }

  async function start() {
    staticTexts();
    wire();
    setBusy(true);
    try {
      const info = await api('GET', '/api');
      S.variants = info.variants.map((v) => v.name);
    } catch (e) {
      S.variants = ['italian'];
      say(t('offline', { e: e.message }));
    }
    if (!S.variants.includes(S.variant)) S.variant = 'italian';
    const select = $('variant');
    for (const v of S.variants) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = variantName(v);
      select.appendChild(o);
    }
    select.value = S.variant;
    setBusy(false);
    loadRecord();
    if (S.urlGame) {
      try {
        S.game = await api('GET', `/api/games/${encodeURIComponent(S.urlGame)}`);
        S.variant = S.game.variant;
        select.value = S.variant;
        if (S.game.opponent === 'computer' && LEVELS.includes(S.game.level)) {
          S.level = S.game.level;
          drawLevel();
        }
        render();
        if (S.game.opponent === 'computer') STORE.set('game', S.game.id);
        follow();
        if (S.game.turn === 'computer') await refresh();
        return;
      } catch (e) {
        await failed(e);
        return;
      }
    }
    const saved = STORE.get('game');
    const mine = saved && SEATS.get(saved);
    if (mine) {
      try {
        S.seat = mine.secret;
        useSeat(S.seat);
        S.game = await api('GET', `/api/games/${encodeURIComponent(saved)}`);
        if (S.game.seat !== 'owner') throw new Error('not this page\'s game');
        S.variant = S.game.variant;
        select.value = S.variant;
        render();
        if (S.game.level !== S.level) await setLevel(S.level);
        if (S.game.turn === 'computer') await refresh();
        return;
      } catch (e) {
        STORE.del('game');
        S.seat = null;
        useSeat(null);
      }
    }
    await newGame();
  }

  document.addEventListener('DOMContentLoaded', start);
})();
