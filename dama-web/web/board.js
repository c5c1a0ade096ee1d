// dama serve: the board view of the analysis board and the editor. It draws what it is given
// (a position as 32 letters, the variant's square names, tints, arrows) and reports clicks
// and keys on squares; it knows no rules. Squares are the engine's numbers 1..32.

const SVG = 'http://www.w3.org/2000/svg';
const CELL = 100;

/// A new SVG element `name` with `attrs`, appended to `parent` when given.
export function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

/// The board in `svg` (with layers #squares #tints #labels #pieces #arrows #focus-ring).
/// `describe(sq, letter)` names a square for screen readers; `onSquare(sq)` hears a click,
/// Enter or Space on one.
export function createBoard(svg, { describe, onSquare }) {
  const layer = (id) => svg.querySelector('#' + id);
  const view = { board: 'e'.repeat(32), names: null, mirrored: false, flipped: false, focus: 22, interactive: false };

  function coords(sq) {
    const i = sq - 1;
    let row = Math.floor(i / 4);
    let col = 2 * (i % 4) + (row & 1);
    if (view.mirrored) col = 7 - col;
    if (view.flipped) { row = 7 - row; col = 7 - col; }
    return { row, col, x: col * CELL, y: row * CELL };
  }

  function squareAt(shownRow, shownCol) {
    if (shownRow < 0 || shownRow > 7 || shownCol < 0 || shownCol > 7) return null;
    let row = shownRow;
    let col = shownCol;
    if (view.flipped) { row = 7 - row; col = 7 - col; }
    if (view.mirrored) col = 7 - col;
    if ((row + col) % 2 !== 0) return null;
    return row * 4 + Math.floor(col / 2) + 1;
  }

  const nameOf = (sq) => (view.names ? view.names[sq - 1] : String(sq));

  function drawSquares() {
    const squares = layer('squares');
    const labels = layer('labels');
    squares.textContent = '';
    labels.textContent = '';
    for (let row = 0; row < 8; row++) {
      for (let c = 0; c < 8; c++) {
        const sq = squareAt(row, c);
        if (sq === null) {
          el('rect', { x: c * CELL, y: row * CELL, width: CELL, height: CELL, class: 'sq-light' }, squares);
          continue;
        }
        const attrs = { x: c * CELL, y: row * CELL, width: CELL, height: CELL, class: 'square sq-dark', 'data-sq': sq };
        if (view.interactive) Object.assign(attrs, { tabindex: sq === view.focus ? 0 : -1, role: 'button' });
        el('rect', attrs, squares);
        el('text', { x: c * CELL + 3, y: row * CELL + 19, class: 'label' }, labels).textContent = nameOf(sq);
      }
    }
  }

  function drawPieces() {
    const pieces = layer('pieces');
    pieces.textContent = '';
    for (let sq = 1; sq <= 32; sq++) {
      const p = view.board[sq - 1];
      if (!p || p === 'e') continue;
      const colour = p.toLowerCase() === 'w' ? 'white' : 'black';
      const { x, y } = coords(sq);
      const g = el('g', { class: 'piece', 'data-sq': sq, 'data-piece': p, transform: `translate(${x} ${y})` }, pieces);
      el('circle', { cx: 50, cy: 52, r: 38, class: 'man-' + colour }, g);
      el('circle', { cx: 50, cy: 52, r: 27, class: 'man-' + colour + '-inner' }, g);
      if (p === 'W' || p === 'B') el('circle', { cx: 50, cy: 52, r: 15, class: 'crown' }, g);
    }
  }

  function label() {
    for (const r of layer('squares').querySelectorAll('.square')) {
      const sq = Number(r.dataset.sq);
      r.setAttribute('aria-label', describe(sq, view.board[sq - 1], nameOf(sq)));
      if (view.interactive) r.setAttribute('tabindex', sq === view.focus ? '0' : '-1');
    }
  }

  /// Tints: [{ sq, cls }]; arrows: [{ from, to, path?, cls }].
  function drawMarks(tints, arrows) {
    const t = layer('tints');
    const a = layer('arrows');
    t.textContent = '';
    a.textContent = '';
    for (const { sq, cls } of tints || []) {
      const { x, y } = coords(sq);
      el('rect', { x, y, width: CELL, height: CELL, class: cls, 'data-sq': sq }, t);
    }
    for (const { from, to, path, cls } of arrows || []) {
      // Through every landing square of a multi-jump; the head stops short of the last
      // centre so that it sits on the square.
      const pts = (path && path.length > 1 ? path : [from, to]).map((sq) => {
        const c = coords(sq);
        return [c.x + 50, c.y + 50];
      });
      const [px, py] = pts[pts.length - 2];
      const [qx, qy] = pts[pts.length - 1];
      const len = Math.hypot(qx - px, qy - py) || 1;
      pts[pts.length - 1] = [px + (qx - px) * ((len - 22) / len), py + (qy - py) * ((len - 22) / len)];
      el('polyline', {
        points: pts.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' '),
        class: 'arrow ' + cls, 'data-from': from, 'data-to': to, 'marker-end': 'url(#head-' + cls + ')',
      }, a);
    }
  }

  function drawFocus() {
    const f = layer('focus-ring');
    f.textContent = '';
    const active = document.activeElement;
    if (!view.interactive || !active || !active.classList || !active.classList.contains('square')) return;
    if (!active.matches(':focus-visible')) return;
    const { x, y } = coords(view.focus);
    el('rect', { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, class: 'focus' }, f);
  }

  function moveFocus(dRow, dCol) {
    const { row, col } = coords(view.focus);
    const target = dRow === 0 ? squareAt(row, col + 2 * dCol)
      : squareAt(row + dRow, col + dCol) || squareAt(row + dRow, col - dCol);
    if (target === null) return;
    view.focus = target;
    label();
    const r = svg.querySelector(`#squares .square[data-sq="${target}"]`);
    if (r) r.focus();
    drawFocus();
  }

  svg.addEventListener('click', (ev) => {
    const r = ev.target.closest && ev.target.closest('.square');
    if (r && view.interactive) onSquare(Number(r.dataset.sq));
  });
  svg.addEventListener('keydown', (ev) => {
    if (!view.interactive) return;
    const keys = { ArrowUp: [-1, 1], ArrowDown: [1, -1], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (keys[ev.key]) {
      ev.preventDefault();
      ev.stopPropagation();
      moveFocus(keys[ev.key][0], keys[ev.key][1]);
    } else if (ev.key === 'Enter' || ev.key === ' ') {
      const r = ev.target.closest && ev.target.closest('.square');
      if (r) {
        ev.preventDefault();
        view.focus = Number(r.dataset.sq);
        onSquare(view.focus);
      }
    }
  });
  svg.addEventListener('focusin', (ev) => {
    const r = ev.target.closest && ev.target.closest('.square');
    if (r) view.focus = Number(r.dataset.sq);
    drawFocus();
  });
  svg.addEventListener('focusout', () => setTimeout(drawFocus, 0));

  let drawn = '';
  return {
    /// Draws `board` (32 letters) with the variant's `names` and `mirrored` flag; `tints` and
    /// `arrows` as drawMarks takes them.
    draw({ board, names, mirrored, flipped, interactive, tints, arrows }) {
      view.board = board || view.board;
      if (names) view.names = names;
      if (mirrored !== undefined) view.mirrored = !!mirrored;
      if (flipped !== undefined) view.flipped = !!flipped;
      if (interactive !== undefined) view.interactive = !!interactive;
      const key = [view.names && view.names.join(','), view.mirrored, view.flipped, view.interactive].join('|');
      if (key !== drawn) {
        drawSquares();
        drawn = key;
      }
      drawPieces();
      drawMarks(tints, arrows);
      label();
      drawFocus();
    },
    nameOf,
  };
}
