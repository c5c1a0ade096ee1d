//! CheckerBoard's board, colours and moves, mapped to dama's: the one place that knows them.
//!
//! CheckerBoard hands an engine `int board[8][8]` indexed `board[x][y]`, and for game type 22
//! (Italian) numbers the squares as Italian notation does, which is dama's numbering:
//!
//! ```text
//!  x →   0   1   2   3   4   5   6   7
//!  y=0   1       2       3       4          Black's men start on 1..=12 (y = 0..=2)
//!  y=1       5       6       7       8
//!  y=2   9      10      11      12
//!   …
//!  y=7      29      30      31      32      White's men start on 21..=32 (y = 5..=7)
//! ```
//!
//! Square `n` (1..=32) is at `y = (n - 1) / 4`, `x = 2 * ((n - 1) % 4) + y % 2`: `y` is dama's
//! row (0 = top, as White sees the board) and `x` its column, so `board[x][y]` is
//! [`Square::from_coords`]`(y, x)`. CheckerBoard draws an Italian board mirrored (its
//! `mirror` and `row reversed` settings for type 22) but only on the screen: the array an
//! engine receives uses the numbering above, and White (`CB_WHITE`), on 21..=32, moves first.
//!
//! A cell holds a colour bit (`CB_WHITE` 1, `CB_BLACK` 2) or'ed with a kind bit (`CB_MAN` 4,
//! `CB_KING` 8), or 0 for an empty square.

use dama_rules::{Bitboard, Color, Move, Piece, Position, Role, Setup, Square};

/// `CB_WHITE`: the colour bit of White's pieces, and the colour argument for White to move.
pub const CB_WHITE: i32 = 1;
/// `CB_BLACK`: the same for Black.
pub const CB_BLACK: i32 = 2;
/// `CB_MAN`: the kind bit of a man.
pub const CB_MAN: i32 = 4;
/// `CB_KING`: the kind bit of a king.
pub const CB_KING: i32 = 8;

/// CheckerBoard's board, `board[x][y]`.
pub type CbBoard = [[i32; 8]; 8];

/// `struct coor`: a square as column `x` and row `y`, both 0..=7.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Coor {
    /// Column, 0..=7.
    pub x: i32,
    /// Row, 0..=7.
    pub y: i32,
}

/// `struct CBmove`, as CheckerBoard lays it out (C, 4-byte ints, 268 bytes).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CbMove {
    /// Pieces captured.
    pub jumps: i32,
    /// The piece that lands on `to` (a man crowned on the last row lands a king).
    pub newpiece: i32,
    /// The piece that leaves `from`.
    pub oldpiece: i32,
    /// Where the moving piece starts.
    pub from: Coor,
    /// Where it ends.
    pub to: Coor,
    /// The landing squares of a capture, from `path[1]` (`path[0]` is unused).
    pub path: [Coor; 12],
    /// The captured pieces' squares, in the order they are taken.
    pub del: [Coor; 12],
    /// The captured pieces, as board cells.
    pub delpiece: [i32; 12],
}

/// The coordinates of `sq`.
pub fn coor(sq: Square) -> Coor {
    Coor {
        x: i32::from(sq.column()),
        y: i32::from(sq.row()),
    }
}

/// The square at `c`, if it is a playing square.
pub fn square_at(c: Coor) -> Option<Square> {
    let x = u8::try_from(c.x).ok()?;
    let y = u8::try_from(c.y).ok()?;
    Square::from_coords(y, x)
}

/// The cell value of `piece`.
pub fn cell(piece: Piece) -> i32 {
    let color = match piece.color {
        Color::White => CB_WHITE,
        Color::Black => CB_BLACK,
    };
    let kind = match piece.role {
        Role::Man => CB_MAN,
        Role::King => CB_KING,
    };
    color | kind
}

/// The piece a cell holds: `Ok(None)` for an empty square, `Err` for a value no piece has.
fn piece_of(value: i32) -> Result<Option<Piece>, ()> {
    let (color, role) = match value {
        0 => return Ok(None),
        v if v == CB_WHITE | CB_MAN => (Color::White, Role::Man),
        v if v == CB_WHITE | CB_KING => (Color::White, Role::King),
        v if v == CB_BLACK | CB_MAN => (Color::Black, Role::Man),
        v if v == CB_BLACK | CB_KING => (Color::Black, Role::King),
        _ => return Err(()),
    };
    Ok(Some(Piece { color, role }))
}

/// The side a colour argument names.
///
/// # Errors
/// A message quoting the value when it is neither `CB_WHITE` (1) nor `CB_BLACK` (2).
pub fn color_of(color: i32) -> Result<Color, String> {
    match color {
        CB_WHITE => Ok(Color::White),
        CB_BLACK => Ok(Color::Black),
        other => Err(format!("colour {other} is neither White (1) nor Black (2)")),
    }
}

/// The colour argument of `color`.
pub fn color_value(color: Color) -> i32 {
    match color {
        Color::White => CB_WHITE,
        Color::Black => CB_BLACK,
    }
}

/// The position on `board` with `turn` to move.
///
/// # Errors
/// A message saying what is wrong, naming the square: a cell holding a value that is no
/// piece, a piece on a light square, or pieces that are no position (none at all, a man on
/// its own promotion row, more than 12 a side).
pub fn position(board: &CbBoard, turn: Color) -> Result<Position, String> {
    let mut setup = Setup::empty();
    setup.turn = turn;
    for (x, column) in board.iter().enumerate() {
        for (y, &value) in column.iter().enumerate() {
            let c = Coor {
                x: x as i32,
                y: y as i32,
            };
            let piece = piece_of(value).map_err(|()| {
                format!("board[{x}][{y}] holds {value}: expected 0, 5, 6, 9 or 10")
            })?;
            match (square_at(c), piece) {
                (Some(sq), piece) => setup.set(sq, piece),
                (None, None) => {}
                (None, Some(_)) => {
                    return Err(format!(
                        "board[{x}][{y}] is a light square but holds {value}"
                    ))
                }
            }
        }
    }
    Position::from_setup(&setup).map_err(|e| e.to_string())
}

/// CheckerBoard's board of `pos`.
pub fn board(pos: &Position) -> CbBoard {
    let mut board = [[0; 8]; 8];
    for sq in Square::ALL {
        if let Some(piece) = pos.piece_at(sq) {
            let c = coor(sq);
            board[c.x as usize][c.y as usize] = cell(piece);
        }
    }
    board
}

/// The `CBmove` of `m` played in `pos`, with the landing squares of `path` (a capture's,
/// ending on `m.to()`; empty for a quiet move).
pub fn cb_move(pos: &Position, m: Move, path: &[Square]) -> CbMove {
    let mover = pos.piece_at(m.from());
    let oldpiece = mover.map_or(0, cell);
    let newpiece = match mover {
        Some(p) if m.promotes() => cell(Piece {
            color: p.color,
            role: Role::King,
        }),
        _ => oldpiece,
    };
    let mut out = CbMove {
        jumps: m.captured().count() as i32,
        newpiece,
        oldpiece,
        from: coor(m.from()),
        to: coor(m.to()),
        ..CbMove::default()
    };
    let mut at = m.from();
    for (i, &land) in path.iter().enumerate() {
        if let Some(slot) = out.path.get_mut(i + 1) {
            *slot = coor(land);
        }
        if let (Some(taken), Some(slot)) = (between(at, land, m.captured()), out.del.get_mut(i)) {
            *slot = coor(taken);
            out.delpiece[i] = pos.piece_at(taken).map_or(0, cell);
        }
        at = land;
    }
    out
}

/// The square of `captured` on the diagonal strictly between `a` and `b`.
fn between(a: Square, b: Square, captured: Bitboard) -> Option<Square> {
    let (ar, ac) = (i32::from(a.row()), i32::from(a.column()));
    let (br, bc) = (i32::from(b.row()), i32::from(b.column()));
    let (dr, dc) = ((br - ar).signum(), (bc - ac).signum());
    let steps = (br - ar).abs();
    (1..steps).find_map(|k| {
        let sq = square_at(Coor {
            x: ac + k * dc,
            y: ar + k * dr,
        })?;
        captured.contains(sq).then_some(sq)
    })
}

/// The square number of `c` as CheckerBoard writes it for Italian (`coorstonumber`).
pub fn number(c: Coor) -> Option<u8> {
    square_at(c).map(Square::number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::notation::fen;
    use dama_rules::Game;

    fn sq(n: u8) -> Square {
        Square::new(n).unwrap()
    }

    /// CheckerBoard's own start array (`InitCheckerBoard`), written out by hand.
    fn cb_start() -> CbBoard {
        let mut b = [[0; 8]; 8];
        for x in [0, 2, 4, 6] {
            b[x][0] = CB_BLACK | CB_MAN;
            b[x][2] = CB_BLACK | CB_MAN;
            b[x][6] = CB_WHITE | CB_MAN;
        }
        for x in [1, 3, 5, 7] {
            b[x][1] = CB_BLACK | CB_MAN;
            b[x][5] = CB_WHITE | CB_MAN;
            b[x][7] = CB_WHITE | CB_MAN;
        }
        b
    }

    #[test]
    fn checkerboard_start_array_is_the_start_position() {
        let pos = position(&cb_start(), Color::White).unwrap();
        assert_eq!(pos, Position::start());
        assert_eq!(board(&Position::start()), cb_start());
    }

    #[test]
    fn squares_sit_where_checkerboard_numbers_them() {
        // cb_interface.h's numbertocoors for GT_ITALIAN, worked by hand for a few squares.
        assert_eq!(coor(sq(1)), Coor { x: 0, y: 0 });
        assert_eq!(coor(sq(4)), Coor { x: 6, y: 0 });
        assert_eq!(coor(sq(5)), Coor { x: 1, y: 1 });
        assert_eq!(coor(sq(21)), Coor { x: 1, y: 5 });
        assert_eq!(coor(sq(32)), Coor { x: 7, y: 7 });
        for s in Square::ALL {
            assert_eq!(square_at(coor(s)), Some(s));
            let c = coor(s);
            assert_eq!(number(c), Some((1 + 4 * c.y + c.x / 2) as u8));
        }
        assert_eq!(square_at(Coor { x: 1, y: 0 }), None);
    }

    #[test]
    fn start_moves_are_the_seven_italian_openings() {
        let pos = position(&cb_start(), Color::White).unwrap();
        let mut moves: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| format!("{}-{}", m.from(), m.to()))
            .collect();
        moves.sort();
        let expected = [
            "21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20",
        ];
        assert_eq!(moves, expected);
    }

    #[test]
    fn checkerboard_api_examples_map_to_their_moves() {
        // The API reference's "get movelist" examples: B:W31:B3 gives 3-6 and 3-7; the
        // black man on 9 of B:W11,13,19,21:B6,9 takes 13 and 21 landing on 18 and 25.
        let pos = fen::parse("B:W31:B3").unwrap();
        let mut b = [[0; 8]; 8];
        b[5][7] = CB_WHITE | CB_MAN; // 31
        b[4][0] = CB_BLACK | CB_MAN; // 3
        assert_eq!(board(&pos), b);
        assert_eq!(position(&b, Color::Black).unwrap(), pos);
        let moves: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| format!("{}-{}", m.from(), m.to()))
            .collect();
        assert_eq!(moves.len(), 2);
        assert!(moves.contains(&"3-6".to_string()) && moves.contains(&"3-7".to_string()));
        let pos = fen::parse("B:W11,13,19,21:B6,9").unwrap();
        let game = Game::from_position(dama_rules::Variant::Italian, pos);
        let m = game
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.from() == sq(9))
            .unwrap();
        let cm = cb_move(&pos, m, &[sq(18), sq(25)]);
        assert_eq!(cm.jumps, 2);
        assert_eq!((cm.oldpiece, cm.newpiece), (6, 6));
        assert_eq!((number(cm.from), number(cm.to)), (Some(9), Some(25)));
        assert_eq!(
            (number(cm.path[1]), number(cm.path[2])),
            (Some(18), Some(25))
        );
        assert_eq!((number(cm.del[0]), number(cm.del[1])), (Some(13), Some(21)));
        assert_eq!(cm.delpiece[..2], [5, 5]);
    }

    #[test]
    fn move_struct_has_checkerboards_layout() {
        // 3 ints, 2 coors, 12 + 12 coors, 12 ints: 268 bytes, 4-byte aligned, as in C.
        assert_eq!(std::mem::size_of::<CbMove>(), 268);
        assert_eq!(std::mem::align_of::<CbMove>(), 4);
        assert_eq!(std::mem::offset_of!(CbMove, from), 12);
        assert_eq!(std::mem::offset_of!(CbMove, path), 28);
        assert_eq!(std::mem::offset_of!(CbMove, del), 124);
        assert_eq!(std::mem::offset_of!(CbMove, delpiece), 220);
        assert_eq!(std::mem::size_of::<CbBoard>(), 256);
    }

    #[test]
    fn promotion_lands_a_king() {
        let pos = fen::parse("W:W5:B20").unwrap();
        let m = pos.legal_moves()[0];
        let cm = cb_move(&pos, m, &[]);
        assert_eq!((cm.oldpiece, cm.newpiece), (5, 9));
        assert_eq!(cm.jumps, 0);
    }

    #[test]
    fn refused_boards_say_why() {
        let mut b = [[0; 8]; 8];
        assert!(position(&b, Color::White)
            .unwrap_err()
            .contains("no pieces"));
        b[0][0] = CB_WHITE | CB_MAN; // square 1: White's promotion row
        b[7][7] = CB_BLACK | CB_MAN;
        let err = position(&b, Color::White).unwrap_err();
        assert!(err.contains("promotion row"), "{err}");
        let mut b = [[0; 8]; 8];
        b[1][0] = CB_WHITE | CB_KING;
        assert!(position(&b, Color::White)
            .unwrap_err()
            .contains("light square"));
        b[1][0] = 7;
        assert!(position(&b, Color::White).unwrap_err().contains("holds 7"));
        assert!(color_of(3).is_err());
    }
}
