// dama serve: the board editor of the analysis board. It keeps a position (32 letters and the
// side to move), turns clicks into placed or removed pieces, and reads and writes it as FEN
// (the engine's square numbers: `W:W21,22,K30:B1,2`). Whether the position is legal is the
// server's to say, when it is analysed or played.

export const START = 'b'.repeat(12) + 'e'.repeat(8) + 'w'.repeat(12);

/// The FEN of `board` (32 letters) with `turn` ('W' or 'B') to move.
export function writeFen(board, turn) {
  const side = (c) => {
    const out = [];
    for (let sq = 1; sq <= 32; sq++) {
      const p = board[sq - 1];
      if (p === c) out.push(String(sq));
      if (p === c.toUpperCase()) out.push('K' + sq);
    }
    return out.join(',');
  };
  return `${turn}:W${side('w')}:B${side('b')}`;
}

/// The board and side to move of `fen`, or an Error saying what is wrong.
export function readFen(fen) {
  const text = String(fen || '').trim().replace(/\.$/, '');
  const parts = text.split(':');
  const turn = (parts[0] || '').toUpperCase();
  if (turn !== 'W' && turn !== 'B') throw new Error(`"${text}": expected W or B first, like W:W21-32:B1-12`);
  const board = Array(32).fill('e');
  for (const part of parts.slice(1)) {
    const colour = (part[0] || '').toUpperCase();
    if (colour !== 'W' && colour !== 'B') throw new Error(`"${part}": expected a list of white (W) or black (B) squares`);
    for (const item of part.slice(1).split(',').filter((x) => x.trim())) {
      let s = item.trim();
      const king = /^K/i.test(s);
      if (king) s = s.slice(1);
      const range = s.split('-').map(Number);
      const [a, b] = range.length === 2 ? range : [range[0], range[0]];
      if (!(a >= 1 && b <= 32 && a <= b) || range.length > 2) throw new Error(`"${item}": expected squares 1..32`);
      for (let sq = a; sq <= b; sq++) board[sq - 1] = king ? colour : colour.toLowerCase();
    }
  }
  return { board: board.join(''), turn };
}

/// The editor's state and its changes; `changed()` is called after each.
export function createEditor(changed) {
  const ed = { board: START, turn: 'W', tool: 'w' };
  const set = (board, turn) => {
    ed.board = board;
    ed.turn = turn;
    changed();
  };
  return {
    get board() { return ed.board; },
    get turn() { return ed.turn; },
    get tool() { return ed.tool; },
    fen: () => writeFen(ed.board, ed.turn),
    setTool(tool) { ed.tool = tool; },
    /// Places the tool's piece on `sq`; the same piece again removes it.
    place(sq) {
      const b = ed.board.split('');
      b[sq - 1] = b[sq - 1] === ed.tool ? 'e' : ed.tool;
      set(b.join(''), ed.turn);
    },
    setTurn(turn) { set(ed.board, turn === 'B' ? 'B' : 'W'); },
    clear() { set('e'.repeat(32), ed.turn); },
    start() { set(START, 'W'); },
    load(fen) {
      const { board, turn } = readFen(fen);
      set(board, turn);
    },
  };
}
