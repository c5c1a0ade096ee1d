//! Shared by the fuzz targets: a variant and a position decoded from fuzzer bytes.

use dama_rules::notation::fen;
use dama_rules::{Color, Piece, Position, Role, Setup, Square, Variant};
use libfuzzer_sys::arbitrary::{Result, Unstructured};

/// Positions worth starting from: every perft position and a few shots, so that short inputs
/// reach captures, kings and promotions at once.
fn known_positions() -> Vec<Position> {
    let perft = include_str!("../../tests/data/perft.txt");
    let shots = include_str!("../../tests/data/shots.txt");
    let mut out: Vec<Position> = perft
        .lines()
        .filter_map(|l| l.strip_prefix("pos "))
        .filter_map(|l| l.split_once(' '))
        .filter_map(|(_, f)| fen::parse(f).ok())
        .collect();
    out.extend(
        shots
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split(';').next())
            .filter_map(|f| fen::parse(f).ok())
            .take(40),
    );
    out
}

/// A variant and a position: one of the known ones, or any arrangement of at most 12 pieces
/// a side (men may stand on any row, including their promotion row).
pub fn position(u: &mut Unstructured) -> Result<Option<(Variant, Position)>> {
    let variant = Variant::ALL[u.choose_index(Variant::ALL.len())?];
    if u.arbitrary::<bool>()? {
        thread_local! {
            static KNOWN: Vec<Position> = known_positions();
        }
        let i = u.arbitrary::<u8>()? as usize;
        let pos = KNOWN.with(|k| k[i % k.len()]);
        return Ok(Some((variant, pos)));
    }
    let mut setup = Setup::empty();
    setup.turn = if u.arbitrary::<bool>()? {
        Color::White
    } else {
        Color::Black
    };
    for sq in Square::ALL {
        let b: u8 = u.arbitrary()?;
        let piece = |color, role| Some(Piece { color, role });
        setup.set(
            sq,
            match b {
                0..=149 => None,
                150..=179 => piece(Color::White, Role::Man),
                180..=209 => piece(Color::Black, Role::Man),
                210..=232 => piece(Color::White, Role::King),
                _ => piece(Color::Black, Role::King),
            },
        );
    }
    Ok(Position::from_setup(&setup).ok().map(|p| (variant, p)))
}
