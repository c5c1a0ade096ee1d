//! Set-up validation: any arrangement of pieces (empty boards, 13 a side, men on
//! their promotion row included) is accepted or refused alike by `Position::from_setup`, the
//! FEN reader, the Hub reader and a PDN game's `FEN` tag, as the rules say (rules.md: at
//! least one piece, at most 12 a side, no man on its own promotion row); a refusal names the
//! offending square, an accepted set-up is the same position everywhere.
//!
//! Bytes: the first is the side to move (bit 0: Black), then one byte a square, 1 to 32
//! (missing bytes are empty squares): 0..=149 empty, then white man, black man, white king,
//! black king.
#![no_main]

use dama_rules::notation::{fen, hub, pdn};
use dama_rules::{Bitboard, Color, Error, Piece, Position, Role, Setup, Square, Variant};
use libfuzzer_sys::fuzz_target;

fn piece_of(b: u8) -> Option<Piece> {
    let piece = |color, role| Some(Piece { color, role });
    match b {
        0..=149 => None,
        150..=179 => piece(Color::White, Role::Man),
        180..=209 => piece(Color::Black, Role::Man),
        210..=232 => piece(Color::White, Role::King),
        _ => piece(Color::Black, Role::King),
    }
}

/// The rules' verdict, written apart from the library: `None` for a position, else a
/// square the refusal must name (`Some(None)`: a refusal naming no square).
fn expected_flaw(setup: &Setup) -> Option<Option<Square>> {
    let pieces: Vec<(Square, Piece)> = Square::ALL
        .into_iter()
        .filter_map(|sq| Some((sq, setup.get(sq)?)))
        .collect();
    let count = |c: Color| pieces.iter().filter(|(_, p)| p.color == c).count();
    if pieces.is_empty() || count(Color::White) > 12 || count(Color::Black) > 12 {
        return Some(None);
    }
    let crowned = |&(sq, p): &(Square, Piece)| {
        p.role == Role::Man
            && match p.color {
                Color::White => (1..=4).contains(&sq.number()),
                Color::Black => (29..=32).contains(&sq.number()),
            }
    };
    pieces.iter().find(|x| crowned(x)).map(|&(sq, _)| Some(sq))
}

/// FEN text of a set-up, valid or not (`W:W21,K22:B1`).
fn fen_text(setup: &Setup) -> String {
    let side = |c: Color| {
        Square::ALL
            .into_iter()
            .filter_map(|sq| {
                let p = setup.get(sq).filter(|p| p.color == c)?;
                let k = if p.role == Role::King { "K" } else { "" };
                Some(format!("{k}{}", sq.number()))
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let turn = if setup.turn == Color::White { 'W' } else { 'B' };
    format!("{turn}:W{}:B{}", side(Color::White), side(Color::Black))
}

/// Hub text of a set-up: the side, then one letter a square.
fn hub_text(setup: &Setup) -> String {
    let mut text = String::from(if setup.turn == Color::White { "W" } else { "B" });
    for sq in Square::ALL {
        text.push(setup.get(sq).map_or('e', Piece::hub_char));
    }
    text
}

/// Checks one reader's answer against the verdict.
fn agrees(what: &str, got: &Result<Position, String>, want: &Result<Position, Option<Square>>) {
    match (got, want) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{what}"),
        (Err(msg), Err(sq)) => {
            if let Some(sq) = sq {
                let n = sq.number().to_string();
                assert!(
                    msg.split(|c: char| !c.is_ascii_digit()).any(|w| w == n),
                    "{what}: {msg:?} does not name square {n}"
                );
            }
        }
        (got, want) => panic!("{what}: got {got:?}, the rules say {want:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&turn, squares)) = data.split_first() else {
        return;
    };
    let mut setup = Setup::empty();
    setup.turn = if turn & 1 == 0 {
        Color::White
    } else {
        Color::Black
    };
    for (sq, &b) in Square::ALL.into_iter().zip(squares) {
        setup.set(sq, piece_of(b));
    }
    let want = match expected_flaw(&setup) {
        None => {
            let on = |f: &dyn Fn(Piece) -> bool| {
                Bitboard::from_squares(
                    Square::ALL
                        .into_iter()
                        .filter(|&sq| setup.get(sq).is_some_and(f)),
                )
            };
            let white = on(&|p| p.color == Color::White);
            let black = on(&|p| p.color == Color::Black);
            let kings = on(&|p| p.role == Role::King);
            Ok(Position::from_bitboards(white, black, kings, setup.turn)
                .expect("at most 12 a side"))
        }
        Some(sq) => Err(sq),
    };
    let msg = |e: Error| e.to_string();
    agrees(
        "from_setup",
        &Position::from_setup(&setup).map_err(msg),
        &want,
    );
    let text = fen_text(&setup);
    assert_eq!(
        fen::parse_setup(&text).ok().as_ref(),
        Some(&setup),
        "{text}"
    );
    agrees(&text, &fen::parse(&text).map_err(msg), &want);
    let hub_line = hub_text(&setup);
    agrees(&hub_line, &hub::parse(&hub_line).map_err(msg), &want);
    // A PDN game starting there (Italian: the file's squares are the engine's).
    let game = format!("[FEN \"{text}\"]\n\n*\n");
    let mut read = pdn::read_str(&game, Variant::Italian);
    assert_eq!(read.len(), 1, "{game}");
    let read = read.remove(0).map(|g| g.start).map_err(|e| {
        assert!(matches!(e, Error::PdnFen { .. }), "{game}: {e}");
        msg(e)
    });
    agrees(&game, &read, &want);
});
