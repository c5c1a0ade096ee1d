//! How each variant's players name the squares, and which way round they see the board.
//!
//! The engine numbers the squares 1..32 the Italian way for every variant; the page shows
//! each variant's own notation (as `dama_rules::notation::pdn` writes its files):
//! - Italian and Spanish: the engine's numbers, on a board with a light square at each
//!   player's left;
//! - English: English numbers (each row numbered the other way round), on a board with the
//!   dark corner at each player's left;
//! - Russian, Brazilian, Czech: algebraic names with a dark `a1` at White's left.
//!
//! Boards with the dark corner on the left are the engine's board seen in a mirror, which
//! changes no rule.

use dama_rules::notation::pdn;
use dama_rules::{Move, Square, Variant};

/// Whether `variant`'s board is drawn mirrored (dark corner at the player's left).
pub fn mirrored(variant: Variant) -> bool {
    !matches!(variant, Variant::Italian | Variant::Spanish)
}

/// The name of engine square `sq` in `variant`'s notation.
pub fn square(variant: Variant, sq: Square) -> String {
    match variant {
        Variant::Russian | Variant::Brazilian | Variant::Czech => {
            let file = char::from(b'a' + 7 - sq.column());
            let rank = char::from(b'8' - sq.row());
            format!("{file}{rank}")
        }
        _ => pdn::file_square(variant, sq).number().to_string(),
    }
}

/// The names of the 32 squares, engine square 1 first.
pub fn all(variant: Variant) -> Vec<String> {
    Square::ALL.iter().map(|&sq| square(variant, sq)).collect()
}

/// Move text for a player of `variant`: the start and the landing squares (`path`, whose
/// last square is the end), joined by `-` for a quiet move and `x` for a capture.
pub fn move_text(variant: Variant, m: Move, path: &[Square]) -> String {
    let sep = if m.is_capture() { "x" } else { "-" };
    let mut text = square(variant, m.from());
    if path.is_empty() {
        text.push_str(sep);
        text.push_str(&square(variant, m.to()));
    }
    for &sq in path {
        text.push_str(sep);
        text.push_str(&square(variant, sq));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::notation::fen;
    use dama_rules::Game;

    fn sq(n: u8) -> Square {
        Square::new(n).unwrap()
    }

    #[test]
    fn italian_and_spanish_use_the_engine_numbers() {
        assert_eq!(square(Variant::Italian, sq(22)), "22");
        assert_eq!(square(Variant::Spanish, sq(1)), "1");
        assert!(!mirrored(Variant::Italian));
    }

    #[test]
    fn english_numbers_each_row_the_other_way() {
        // English 1 is the engine's 4, English 29 (White's single corner) the engine's 32.
        assert_eq!(square(Variant::English, sq(4)), "1");
        assert_eq!(square(Variant::English, sq(32)), "29");
        assert_eq!(square(Variant::English, sq(22)), "23");
        assert!(mirrored(Variant::English));
    }

    #[test]
    fn algebraic_names_put_a_dark_a1_at_the_bottom_left() {
        // The engine's 32 is its bottom-right corner: seen in the mirror, a1.
        assert_eq!(square(Variant::Russian, sq(32)), "a1");
        assert_eq!(square(Variant::Czech, sq(1)), "h8");
        assert_eq!(square(Variant::Brazilian, sq(22)), "e3");
    }

    #[test]
    fn the_names_agree_with_what_pdn_files_write() {
        for variant in [Variant::English, Variant::Russian] {
            let start = fen::parse("W:W22:B9").unwrap();
            let game = Game::from_position(variant, start);
            let m = game.legal_moves()[0];
            let mut record = pdn::PdnGame::new(variant, start);
            record.moves.push(m);
            let written = pdn::write(&record).unwrap();
            let text = move_text(variant, m, &[m.to()]);
            assert!(written.contains(&text), "{variant:?}: {text} in {written}");
        }
    }

    #[test]
    fn a_multi_jump_lists_its_landings() {
        let pos = fen::parse("W:W30:B26,18").unwrap();
        let m = pos.legal_moves()[0];
        let path = [sq(21), sq(14)];
        assert_eq!(move_text(Variant::Italian, m, &path), "30x21x14");
        assert_eq!(move_text(Variant::Italian, m, &[]), "30x14");
    }
}
