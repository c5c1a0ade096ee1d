// dama serve: the page's script. The server owns the rules and the games; this script draws
// the board, turns taps, clicks and keys into API calls, and animates what the server says.
'use strict';

(() => {
  // ---------------------------------------------------------------------------------------
  // Texts: English, Polish and Italian, chosen from the browser's languages.

  const TEXTS = {
    en: {
      title: 'dama', rules_select: 'Rules', level: 'Level: {name}', new_game: 'New game',
      board: 'Board', square: 'square {n}, {what}', empty: 'empty',
      white_man: 'white man', white_king: 'white king', black_man: 'black man', black_king: 'black king',
      levels: ['Novice', 'Easy', 'Normal', 'Strong', 'Hard'],
      variants: { italian: 'Italian', spanish: 'Spanish', czech: 'Czech', english: 'English', russian: 'Russian', brazilian: 'Brazilian' },
      your_move: 'Your move: you have the light pieces.', thinking: 'The computer is thinking…',
      computer_played: 'The computer played {m}.', you_played: 'You played {m}.',
      selected: '{s} selected.', go_on: 'Go on capturing: {s}.',
      must_capture: 'A capture is compulsory: the marked pieces must capture ({s}).',
      outranked: 'This piece may not capture: {b} has priority.',
      blocked: 'This piece cannot move.', not_your_piece: 'That is the computer’s piece.',
      win: 'You win!', loss: 'The computer wins.', draw: 'Draw.',
      why_no_moves_win: 'The computer has no move left.', why_no_moves_loss: 'You have no move left.',
      why_no_progress: '{n} moves each without a capture or a man move.',
      why_repetition: 'The same position for the third time.',
      why_kings_against_king: 'The kings did not win against the lone king in time.',
      final_score: 'Score: {n}', score: 'Score', draw_counter: 'Moves without progress', moves: 'Moves',
      rules_in_force: 'Rules in force: {v} draughts',
      level_set: 'Level {k}: {name}.', new_started: 'New game: {v}, level {name}.',
      expired: 'That game had expired: a new one has started.', offline: 'The server cannot be reached: {e}',
      hint: 'Keys: arrows move on the board, Enter or Space selects, 1–5 set the level, N starts a new game. Score: 10 per piece captured; a win adds 100 + 50 × level.',
      r_you: 'You play the light pieces, at the bottom, and move first.',
      r_men_forward: 'Men move and capture forward only.', r_men_back: 'Men move forward and capture backwards too.',
      r_men_not_kings: 'A man may never capture a king.', r_men_kings: 'Men may capture kings.',
      r_kings_short: 'Kings move one square, in every direction.', r_kings_fly: 'Kings fly along whole diagonals.',
      r_mandatory: 'Capturing is compulsory.',
      r_prio_italian: 'Priority: most pieces; then a capture by a king; then most kings; then the kings met earliest.',
      r_prio_spanish: 'Priority: most pieces, then most kings.',
      r_prio_king_first: 'Priority: a king must capture when a king can.',
      r_prio_most_pieces: 'Priority: the capture of most pieces.', r_prio_free: 'Any capture may be chosen.',
      r_promo_ends: 'A man reaching the far row becomes a king and its move ends.',
      r_promo_continues: 'A man reaching the far row mid-capture goes on as a king.',
      r_promo_at_end: 'A man is crowned only if its move ends on the far row; passing it mid-capture, it stays a man.',
      r_no_progress: 'Draw after {n} moves each without a capture or a man move.',
      r_no_progress_czech: 'Draw after {n} moves each without a capture or a promotion.',
      r_repetition: 'Draw at the third repetition of a position.',
      r_kak: 'Three kings against one must win within {n} moves.',
      r_numbers: 'Squares are named as {v} players write them.',
      play_friend: 'Play a friend', pass_play: 'Pass and play',
      invite: 'Send this link to your friend: whoever opens it plays the dark pieces.', copy: 'Copy link', copied: 'Link copied.',
      watch_link: 'Link for spectators', friend_move: 'Your friend’s move.', watching: 'You are watching this game.',
      your_move_color: 'Your move: you have the {c} pieces.', to_move: '{c} to move.',
      light: 'light', dark: 'dark', White: 'White', Black: 'Black',
      side_wins: '{c} wins.', friend_wins: 'Your friend wins.', why_no_moves_side: '{c} has no move left.',
      record: 'Your record', record_line: '{g} games · {w} won · {d} drawn · {l} lost · {s} points',
      record_level: '{name}: {g} games, {w} won, {s} points', friend_level: 'Friends',
      not_your_piece_friend: 'That is your friend’s piece.',
      r_you_dark: 'You play the dark pieces, at the bottom; the light pieces move first.',
      r_you_both: 'The light pieces, at the bottom, move first.',
    },
    pl: {
      title: 'dama', rules_select: 'Zasady', level: 'Poziom: {name}', new_game: 'Nowa gra',
      board: 'Plansza', square: 'pole {n}, {what}', empty: 'puste',
      white_man: 'biały pionek', white_king: 'biała damka', black_man: 'czarny pionek', black_king: 'czarna damka',
      levels: ['Nowicjusz', 'Łatwy', 'Normalny', 'Silny', 'Trudny'],
      variants: { italian: 'Włoskie', spanish: 'Hiszpańskie', czech: 'Czeskie', english: 'Angielskie', russian: 'Rosyjskie', brazilian: 'Brazylijskie' },
      your_move: 'Twój ruch: grasz jasnymi pionkami.', thinking: 'Komputer myśli…',
      computer_played: 'Komputer zagrał {m}.', you_played: 'Twój ruch: {m}.',
      selected: 'Wybrano {s}.', go_on: 'Bij dalej: {s}.',
      must_capture: 'Bicie jest obowiązkowe: bić muszą zaznaczone pionki ({s}).',
      outranked: 'Ten pionek nie może bić: pierwszeństwo ma bicie {b}.',
      blocked: 'Ten pionek nie może się ruszyć.', not_your_piece: 'To pionek komputera.',
      win: 'Wygrywasz!', loss: 'Wygrywa komputer.', draw: 'Remis.',
      why_no_moves_win: 'Komputer nie ma już ruchu.', why_no_moves_loss: 'Nie masz już ruchu.',
      why_no_progress: '{n} ruchów każdej strony bez bicia i bez ruchu pionka.',
      why_repetition: 'Ta sama pozycja po raz trzeci.',
      why_kings_against_king: 'Damki nie wygrały z samotną damką na czas.',
      final_score: 'Wynik: {n} pkt', score: 'Wynik', draw_counter: 'Ruchy bez postępu', moves: 'Ruchy',
      rules_in_force: 'Zasady: warcaby {v}',
      level_set: 'Poziom {k}: {name}.', new_started: 'Nowa gra: {v}, poziom {name}.',
      expired: 'Tamta gra wygasła: zaczęła się nowa.', offline: 'Brak połączenia z serwerem: {e}',
      hint: 'Klawisze: strzałki po planszy, Enter lub spacja wybiera, 1–5 poziom, N nowa gra. Punkty: 10 za zbity pionek; wygrana dodaje 100 + 50 × poziom.',
      r_you: 'Grasz jasnymi pionkami, na dole, i zaczynasz.',
      r_men_forward: 'Pionki chodzą i biją tylko do przodu.', r_men_back: 'Pionki chodzą do przodu, a biją także do tyłu.',
      r_men_not_kings: 'Pionek nigdy nie bije damki.', r_men_kings: 'Pionki mogą bić damki.',
      r_kings_short: 'Damka chodzi o jedno pole, w każdą stronę.', r_kings_fly: 'Damka chodzi po całej przekątnej.',
      r_mandatory: 'Bicie jest obowiązkowe.',
      r_prio_italian: 'Pierwszeństwo: najwięcej bierek; potem bicie damką; potem najwięcej damek; potem damki zbite najwcześniej.',
      r_prio_spanish: 'Pierwszeństwo: najwięcej bierek, potem najwięcej damek.',
      r_prio_king_first: 'Pierwszeństwo: damka musi bić, jeśli może.',
      r_prio_most_pieces: 'Pierwszeństwo: bicie największej liczby bierek.', r_prio_free: 'Można wybrać dowolne bicie.',
      r_promo_ends: 'Pionek na ostatnim rzędzie zostaje damką i jego ruch się kończy.',
      r_promo_continues: 'Pionek, który w trakcie bicia dojdzie do ostatniego rzędu, bije dalej jako damka.',
      r_promo_at_end: 'Pionek zostaje damką tylko, gdy kończy ruch na ostatnim rzędzie; przechodząc przez niego w trakcie bicia, pozostaje pionkiem.',
      r_no_progress: 'Remis po {n} ruchach każdej strony bez bicia i bez ruchu pionka.',
      r_no_progress_czech: 'Remis po {n} ruchach każdej strony bez bicia i bez promocji.',
      r_repetition: 'Remis przy trzecim powtórzeniu pozycji.',
      r_kak: 'Trzy damki przeciw jednej muszą wygrać w {n} ruchach.',
      r_numbers: 'Pola są nazwane tak, jak zapisują je gracze (warcaby {v}).',
      play_friend: 'Graj ze znajomym', pass_play: 'Gra przy jednym urządzeniu',
      invite: 'Wyślij ten link znajomemu: kto go otworzy, gra ciemnymi pionkami.', copy: 'Kopiuj link', copied: 'Link skopiowany.',
      watch_link: 'Link dla widzów', friend_move: 'Ruch znajomego.', watching: 'Oglądasz tę grę.',
      your_move_color: 'Twój ruch: grasz {c} pionkami.', to_move: 'Ruch: {c}.',
      light: 'jasnymi', dark: 'ciemnymi', White: 'białe', Black: 'czarne',
      side_wins: 'Wygrywają {c}.', friend_wins: 'Wygrywa twój znajomy.', why_no_moves_side: '{c} nie mają już ruchu.',
      record: 'Twoje wyniki', record_line: 'gry: {g} · wygrane: {w} · remisy: {d} · przegrane: {l} · punkty: {s}',
      record_level: '{name}: gry {g}, wygrane {w}, punkty {s}', friend_level: 'Ze znajomymi',
      not_your_piece_friend: 'To pionek twojego znajomego.',
      r_you_dark: 'Grasz ciemnymi pionkami, na dole; jasne zaczynają.',
      r_you_both: 'Jasne pionki, na dole, zaczynają.',
    },
    it: {
      title: 'dama', rules_select: 'Regole', level: 'Livello: {name}', new_game: 'Nuova partita',
      board: 'Damiera', square: 'casella {n}, {what}', empty: 'vuota',
      white_man: 'pedina bianca', white_king: 'dama bianca', black_man: 'pedina nera', black_king: 'dama nera',
      levels: ['Principiante', 'Facile', 'Normale', 'Forte', 'Difficile'],
      variants: { italian: 'Italiana', spanish: 'Spagnola', czech: 'Ceca', english: 'Inglese', russian: 'Russa', brazilian: 'Brasiliana' },
      your_move: 'Tocca a te: hai i pezzi chiari.', thinking: 'Il computer sta pensando…',
      computer_played: 'Il computer ha giocato {m}.', you_played: 'Hai giocato {m}.',
      selected: '{s} selezionata.', go_on: 'Continua la presa: {s}.',
      must_capture: 'La presa è obbligatoria: devono prendere i pezzi segnati ({s}).',
      outranked: 'Questo pezzo non può prendere: ha la precedenza {b}.',
      blocked: 'Questo pezzo non può muoversi.', not_your_piece: 'Quello è un pezzo del computer.',
      win: 'Hai vinto!', loss: 'Vince il computer.', draw: 'Patta.',
      why_no_moves_win: 'Il computer non ha più mosse.', why_no_moves_loss: 'Non hai più mosse.',
      why_no_progress: '{n} mosse per parte senza prese né mosse di pedina.',
      why_repetition: 'La stessa posizione per la terza volta.',
      why_kings_against_king: 'Le dame non hanno vinto contro la dama sola in tempo.',
      final_score: 'Punteggio: {n}', score: 'Punteggio', draw_counter: 'Mosse senza progresso', moves: 'Mosse',
      rules_in_force: 'Regole in vigore: dama {v}',
      level_set: 'Livello {k}: {name}.', new_started: 'Nuova partita: {v}, livello {name}.',
      expired: 'Quella partita era scaduta: ne è iniziata una nuova.', offline: 'Il server non risponde: {e}',
      hint: 'Tasti: frecce sulla damiera, Invio o Spazio seleziona, 1–5 il livello, N nuova partita. Punti: 10 per pezzo preso; la vittoria aggiunge 100 + 50 × livello.',
      r_you: 'Hai i pezzi chiari, in basso, e muovi per primo.',
      r_men_forward: 'Le pedine muovono e prendono solo in avanti.', r_men_back: 'Le pedine muovono in avanti e prendono anche all’indietro.',
      r_men_not_kings: 'La pedina non può mai prendere la dama.', r_men_kings: 'Le pedine possono prendere le dame.',
      r_kings_short: 'La dama muove di una casella, in ogni direzione.', r_kings_fly: 'La dama percorre l’intera diagonale.',
      r_mandatory: 'La presa è obbligatoria.',
      r_prio_italian: 'Precedenza: più pezzi; poi la presa con la dama; poi più dame; poi le dame incontrate prima.',
      r_prio_spanish: 'Precedenza: più pezzi, poi più dame.',
      r_prio_king_first: 'Precedenza: la dama deve prendere se può.',
      r_prio_most_pieces: 'Precedenza: la presa del maggior numero di pezzi.', r_prio_free: 'Si può scegliere qualunque presa.',
      r_promo_ends: 'La pedina che raggiunge l’ultima riga diventa dama e la mossa finisce.',
      r_promo_continues: 'La pedina che raggiunge l’ultima riga durante una presa continua come dama.',
      r_promo_at_end: 'La pedina diventa dama solo se la mossa finisce sull’ultima riga; se la attraversa durante una presa resta pedina.',
      r_no_progress: 'Patta dopo {n} mosse per parte senza prese né mosse di pedina.',
      r_no_progress_czech: 'Patta dopo {n} mosse per parte senza prese né promozioni.',
      r_repetition: 'Patta alla terza ripetizione di una posizione.',
      r_kak: 'Tre dame contro una devono vincere entro {n} mosse.',
      r_numbers: 'Le caselle sono indicate come le scrivono i giocatori (dama {v}).',
      play_friend: 'Gioca con un amico', pass_play: 'Due giocatori, un dispositivo',
      invite: 'Manda questo link al tuo amico: chi lo apre gioca con i pezzi scuri.', copy: 'Copia il link', copied: 'Link copiato.',
      watch_link: 'Link per gli spettatori', friend_move: 'Tocca al tuo amico.', watching: 'Stai guardando questa partita.',
      your_move_color: 'Tocca a te: hai i pezzi {c}.', to_move: 'Muove il {c}.',
      light: 'chiari', dark: 'scuri', White: 'Bianco', Black: 'Nero',
      side_wins: 'Vince il {c}.', friend_wins: 'Vince il tuo amico.', why_no_moves_side: 'Il {c} non ha più mosse.',
      record: 'I tuoi risultati', record_line: '{g} partite · {w} vinte · {d} patte · {l} perse · {s} punti',
      record_level: '{name}: {g} partite, {w} vinte, {s} punti', friend_level: 'Con gli amici',
      not_your_piece_friend: 'Quello è un pezzo del tuo amico.',
      r_you_dark: 'Hai i pezzi scuri, in basso; muovono prima i chiari.',
      r_you_both: 'I pezzi chiari, in basso, muovono per primi.',
    },
  };

  function pickLanguage() {
    const wanted = (navigator.languages && navigator.languages.length) ? navigator.languages : [navigator.language || 'en'];
    for (const tag of wanted) {
      const base = String(tag).toLowerCase().split('-')[0];
      if (TEXTS[base]) return base;
    }
    return 'en';
  }

  const LANG = pickLanguage();
  const TX = TEXTS[LANG];

  function t(key, vars) {
    let s = TX[key] !== undefined ? TX[key] : TEXTS.en[key];
    if (typeof s !== 'string') return String(key);
    if (vars) for (const [k, v] of Object.entries(vars)) s = s.split('{' + k + '}').join(String(v));
    return s;
  }

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
  }

  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  const CELL = 100;

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (parent) parent.appendChild(e);
    return e;
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const reducedMotion = () => window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

  // ---------------------------------------------------------------------------------------
  // The API.

  class ApiError extends Error {
    constructor(status, error) {
      super(error && error.message ? error.message : 'HTTP ' + status);
      this.status = status;
      this.code = error && error.code;
      this.reason = error && error.reason;
    }
  }

  async function api(method, path, body) {
    const init = { method, headers: {} };
    if (S.seat) init.headers['x-dama-seat'] = S.seat;
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    if (res.status === 204) return null;
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) throw new ApiError(res.status, data && data.error);
    return data;
  }

  // ---------------------------------------------------------------------------------------
  // Geometry: engine squares 1..32 (Italian numbering) on the drawn board.

  /// The dark pieces' seat sees the board turned round, its own pieces at the bottom.
  const flipped = () => !!(S.game && S.game.seat === 'black');

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
        const label = el('text', { x: c * CELL + 6, y: row * CELL + 20, class: 'label' }, labels);
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
      const { x, y } = coords(sq);
      el('circle', { cx: x + 50, cy: y + 52, r: 44, class: 'must', 'data-sq': sq }, marks);
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
    $('score').textContent = String(g.score);
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
  }

  const colorName = (c) => t(c === 'white' ? 'White' : 'Black');

  /// The invitation and the spectators' link, for the creator of a friend game.
  function drawInvite() {
    const g = S.game;
    const box = $('invite');
    const abs = (u) => new URL(u, location.href).href;
    if (!g.invite_url && !g.watch_url) {
      box.classList.add('hidden');
      return;
    }
    box.classList.remove('hidden');
    $('invite-text').textContent = g.invite_url ? t('invite') : t('watch_link');
    $('invite-url').value = abs(g.invite_url || g.watch_url);
    $('watch-url').value = abs(g.watch_url || '');
    $('watch-caption').textContent = t('watch_link');
    $('watch-row').classList.toggle('hidden', !g.invite_url);
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
      text = t('your_move');
      // A non-breaking hyphen keeps a move like 14-18 on one line.
      if (g.last_computer_move) text += ' ' + t('computer_played', { m: g.last_computer_move.text.replace(/-/g, '\u2011') });
    }
    else if (g.turn === 'computer') text = t('thinking');
    else text = endTitle();
    $('status').textContent = text;
  }

  function endTitle() {
    const o = S.game.outcome;
    if (!o) return '';
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
    else if (o.reason === 'no_moves') why = t(o.winner === 'player' ? 'why_no_moves_win' : 'why_no_moves_loss');
    else why = t('why_' + o.reason, { n: g.rules.no_progress_moves });
    $('end-title').textContent = endTitle();
    $('end-detail').textContent = `${o.result} · ${why}`;
    $('end-score').textContent = t('final_score', { n: g.score });
    $('end-score').dataset.score = String(g.score);
    box.classList.remove('hidden');
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
    const you = g.seat === 'black' ? 'r_you_dark' : g.opponent !== 'computer' && g.seat !== 'white' ? 'r_you_both' : 'r_you';
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

  function drawLevel() {
    const b = $('level');
    b.textContent = t('level', { name: levelName(S.level) });
    b.dataset.level = S.level;
    b.setAttribute('aria-label', t('level', { name: levelName(S.level) }) + ' (1–5)');
  }

  function say(text) { $('message').textContent = text; }

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
      if (sq === S.sel.from || !isOwn(sq)) {
        clearSelection();
        say('');
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
      const r = await api('GET', `/api/games/${S.game.id}/targets?square=${sq}`);
      clearSelection();
      if (r.reason) {
        S.marked = r.reason.squares || [];
        say(reasonText(r.reason));
      } else {
        S.sel = { from: sq, moves: r.moves, path: [] };
        say(t('selected', { s: nameOf(sq) }));
      }
    } catch (e) {
      await failed(e);
    } finally {
      setBusy(false);
    }
    render();
  }

  function reasonText(reason) {
    const list = (reason.squares || []).map(nameOf).join(', ');
    switch (reason.code) {
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
      const r = await api('POST', `/api/games/${S.game.id}/reply`);
      await animate(r.played);
      S.game = r.game;
      render();
      announce(t('computer_played', { m: r.played.text }));
    } catch (e) {
      if (e.code === 'computer_thinking') {
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
      S.game = await api('GET', `/api/games/${S.game.id}`);
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
    if (e instanceof ApiError) {
      if (e.code === 'unknown_game') {
        await newGame(t('expired'));
        return;
      }
      say(e.reason ? reasonText(e.reason) : e.message);
      if (e.reason && e.reason.squares) S.marked = e.reason.squares;
      return;
    }
    say(t('offline', { e: e && e.message ? e.message : String(e) }));
  }

  async function newGame(message) {
    setBusy(true);
    const old = S.game && S.game.opponent === 'computer' && S.game.id;
    clearSelection();
    unfollow();
    if (S.seat || S.urlGame) {
      S.seat = null;
      S.urlGame = null;
      history.replaceState(null, '', '/');
    }
    try {
      S.game = await api('POST', '/api/games', { variant: S.variant, level: S.level });
      STORE.set('game', S.game.id);
      if (old) api('DELETE', `/api/games/${old}`).catch(() => {});
      render();
      say(message || t('new_started', { v: variantName(S.game.variant), name: levelName(S.level) }));
    } catch (e) {
      if (e instanceof ApiError) say(e.message);
      else say(t('offline', { e: e.message }));
    } finally {
      setBusy(false);
    }
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
    unfollow();
    const g = S.game;
    if (!g || g.opponent === 'computer' || g.turn === 'over' || typeof EventSource === 'undefined') return;
    let url = `/api/games/${g.id}/events?after=${g.ply}`;
    if (S.seat) url += `&seat=${encodeURIComponent(S.seat)}`;
    const es = new EventSource(url);
    S.events = es;
    S.pending = [];
    es.addEventListener('move', (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      S.pending.push(data);
      drain();
    });
    es.addEventListener('error', () => {
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
          if (S.game.turn === 'over') unfollow();
        }
      }
    } finally {
      S.draining = false;
    }
  }

  function unfollow() {
    if (S.events) S.events.close();
    S.events = null;
  }

  async function setLevel(name) {
    if (!LEVELS.includes(name)) return;
    S.level = name;
    STORE.set('level', name);
    drawLevel();
    say(t('level_set', { k: LEVELS.indexOf(name) + 1, name: levelName(name) }));
    if (!S.game || S.game.opponent !== 'computer') return;
    try {
      const g = await api('POST', `/api/games/${S.game.id}/level`, { level: name });
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

  function moveFocus(dRow, dCol) {
    const { row, col } = coords(S.focus);
    let target = null;
    if (dRow === 0) target = squareAt(row, col + 2 * dCol);
    else target = squareAt(row + dRow, col + dCol) || squareAt(row + dRow, col - dCol);
    if (target === null) return;
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
        ArrowUp: [-1, 1], ArrowDown: [1, -1], ArrowLeft: [0, -1], ArrowRight: [0, 1],
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
        if (!S.busy) newGame();
      } else if (ev.key === 'Escape') {
        clearSelection();
        say('');
        render();
      }
    });
    $('level').addEventListener('click', () => {
      setLevel(LEVELS[(LEVELS.indexOf(S.level) + 1) % LEVELS.length]);
    });
    $('new-game').addEventListener('click', () => { if (!S.busy) newGame(); });
    $('friend-game').addEventListener('click', () => newFriendGame('friend'));
    $('pass-game').addEventListener('click', () => newFriendGame('pass'));
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
    $('variant').addEventListener('change', (ev) => {
      S.variant = ev.target.value;
      STORE.set('variant', S.variant);
      if (!S.busy) newGame();
    });
  }

  function staticTexts() {
    document.documentElement.lang = LANG;
    $('variant-caption').textContent = t('rules_select');
    $('new-game').textContent = t('new_game');
    $('friend-game').textContent = t('play_friend');
    $('pass-game').textContent = t('pass_play');
    $('end-new').textContent = t('new_game');
    $('board-caption').textContent = t('board');
    $('score-caption').textContent = t('score');
    $('draw-caption').textContent = t('draw_counter');
    $('moves-caption').textContent = t('moves');
    $('level-hint').textContent = t('hint');
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
    if (saved) {
      try {
        S.game = await api('GET', `/api/games/${encodeURIComponent(saved)}`);
        S.variant = S.game.variant;
        select.value = S.variant;
        render();
        if (S.game.level !== S.level) await setLevel(S.level);
        if (S.game.turn === 'computer') await refresh();
        return;
      } catch (e) {
        STORE.del('game');
      }
    }
    await newGame();
  }

  document.addEventListener('DOMContentLoaded', start);
})();
