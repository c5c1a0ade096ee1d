//! One test per rule that differs from Italian (docs/rules.md), on positions built by hand.
//!
//! Square geometry: row r = (n-1)/4 from the top, column c = 2*((n-1)%4) + (r odd).

use crate::common::moves;
use dama::rules::{Color, DrawReason, Game, Outcome, Variant};

use Variant::{Brazilian, Czech, English, Russian, Spanish};

fn game(variant: Variant, fen: &str) -> Game {
    Game::from_position(variant, crate::common::pos(fen))
}

#[test]
fn flying_king_moves_along_whole_diagonals() {
    // King on 29: up the long diagonal 25? No: 29's diagonals are 25 (one step, then the edge)
    // and 26-22-19-15-12-8 up to the right.
    for v in [Spanish, Czech, Russian, Brazilian] {
        assert_eq!(
            moves(v, "W:WK29:B1"),
            ["29-8", "29-12", "29-15", "29-19", "29-22", "29-25", "29-26"],
            "{v}"
        );
    }
}

#[test]
fn flying_king_captures_from_a_distance_and_chooses_its_landing() {
    // King on 29, man on 15 up the diagonal: it flies over 26, 22, 19, takes 15 and may land on
    // 12 or 8.
    assert_eq!(moves(Spanish, "W:WK29:B15"), ["29x8x15", "29x12x15"]);
}

#[test]
fn flying_king_must_land_where_it_can_go_on() {
    // As above with a man on 7: from 12 the king can go on over 7 to 3, from 8 it cannot, so
    // it must land on 12 (Czech, Russian; Spanish by the most-pieces rule).
    for v in [Czech, Russian, Spanish, Brazilian] {
        assert_eq!(moves(v, "W:WK29:B15,7"), ["29x3x7x15"], "{v}");
    }
}

#[test]
fn flying_king_is_blocked_by_a_captured_piece() {
    // The king takes 22 (landing on 19 or beyond), then 11 and 10 or the reverse, and could reach
    // 13, from where 27 would be in reach down the 18-22-27 diagonal if 22 had already left the
    // board. It has not: 22 blocks the way, so no sequence takes 27.
    let list = moves(Spanish, "W:WK29:B22,11,10,27");
    assert!(!list.is_empty());
    for m in &list {
        assert!(!m.contains("x27"), "{m}");
        assert_eq!(m.matches('x').count(), 4, "three pieces taken: {m}");
    }
}

#[test]
fn men_take_kings_outside_italian() {
    for v in [Spanish, Czech, English, Russian, Brazilian] {
        assert_eq!(moves(v, "W:W22:BK18"), ["22x13x18"], "{v}");
    }
}

#[test]
fn spanish_quantity_rule() {
    // The king on 4 could take 18 alone; the man on 31 takes two.
    assert_eq!(
        moves(Spanish, "W:WK4,31:B27,19,18"),
        ["31x13x18x27", "31x15x19x27"]
    );
}

#[test]
fn spanish_quality_rule() {
    // One piece either way: the man on 18 or the king on 19; the king must be taken.
    assert_eq!(moves(Spanish, "W:W22:B18,K19"), ["22x15x19"]);
}

#[test]
fn czech_king_must_capture_first() {
    // The same position as the quantity rule: in Czech the king's single capture is compulsory
    // and the man's double is not allowed.
    assert_eq!(moves(Czech, "W:WK4,31:B27,19,18"), ["4x21x18", "4x25x18"]);
}

#[test]
fn czech_men_captures_are_free_when_no_king_captures() {
    // No king can capture: the man's single capture of 18 is as good as the double.
    assert_eq!(
        moves(Czech, "W:W31,21:B27,19,18"),
        ["21x14x18", "31x13x18x27", "31x15x19x27"]
    );
}

#[test]
fn english_and_russian_free_choice() {
    // English: the single capture is as legal as the doubles.
    assert_eq!(
        moves(English, "W:W31,21:B27,19,18"),
        ["21x14x18", "31x13x18x27", "31x15x19x27"]
    );
    // Russian: 21 goes on backwards over 19 and 27, three pieces, yet the doubles stay legal.
    assert_eq!(
        moves(Russian, "W:W31,21:B27,19,18"),
        ["21x30x18x19x27", "31x13x18x27", "31x15x19x27"]
    );
}

#[test]
fn russian_men_capture_backwards() {
    assert_eq!(moves(Russian, "W:W18:B22"), ["18x27x22"]);
    assert_eq!(moves(Brazilian, "W:W18:B22"), ["18x27x22"]);
    assert_eq!(moves(Spanish, "W:W18:B22"), ["18-13", "18-14"]);
}

#[test]
fn russian_promotion_in_mid_capture_continues_as_king() {
    // The man on 10 takes 6 and reaches 3, becomes a king, and flies on over 7 to 12 or 16.
    let p = crate::common::pos("W:W10:B6,7");
    let list = p.legal_moves_for(Russian);
    let texts: Vec<String> = list.iter().map(|m| m.to_string()).collect();
    assert_eq!(texts, ["10x12x6x7", "10x16x6x7"]);
    assert!(list.iter().all(|m| m.promotes()));
    // In Spanish and Czech the move ends on promotion.
    assert_eq!(moves(Spanish, "W:W10:B6,7"), ["10x3x6"]);
    assert_eq!(moves(Czech, "W:W10:B6,7"), ["10x3x6"]);
}

#[test]
fn brazilian_man_passing_the_far_row_stays_a_man() {
    // The man takes 6 to 3 and goes on backwards over 7 to 12 as a man: no promotion.
    let p = crate::common::pos("W:W10:B6,7");
    let list = p.legal_moves_for(Brazilian);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].to_string(), "10x12x6x7");
    assert!(!list[0].promotes());
}

/// Plays `plies` moves that capture nothing and leave the opponent nothing to capture, never
/// repeating a position, picking the first such move in sorted order.
fn play_quietly(game: &mut Game, plies: usize) {
    for ply in 0..plies {
        assert_eq!(game.outcome(), None, "ply {ply}");
        let variant = game.variant();
        let pos = *game.position();
        let mut list = game.legal_moves().clone();
        list.sort();
        let m = list
            .iter()
            .copied()
            .find(|&m| {
                let next = pos.after(m);
                !m.is_capture()
                    && next
                        .legal_moves_for(variant)
                        .iter()
                        .all(|r| !r.is_capture())
                    && !game.keys().contains(&next.hash())
            })
            .expect("a quiet new move");
        game.play(m).expect("legal");
    }
}

#[test]
fn spanish_threefold_repetition() {
    let mut g = game(Spanish, "W:WK29:BK4");
    for (i, text) in ["29-25", "4-8", "25-29", "8-4", "29-25", "4-8", "25-29"]
        .iter()
        .enumerate()
    {
        g.play_text(text).expect("legal shuffle");
        assert_eq!(g.outcome(), None, "after {} plies", i + 1);
    }
    g.play_text("8-4").expect("legal");
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
}

#[test]
fn italian_has_no_repetition_draw() {
    let mut g = game(Variant::Italian, "W:WK29:BK4");
    for text in ["29-25", "4-8", "25-29", "8-4"].iter().cycle().take(12) {
        g.play_text(text).expect("legal shuffle");
    }
    assert_eq!(g.outcome(), None);
}

#[test]
fn spanish_forty_king_moves_draw() {
    let mut g = game(Spanish, "W:WK29,K30:BK1,K2");
    play_quietly(&mut g, 40);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::NoProgress { plies: 40 }))
    );
}

#[test]
fn spanish_three_kings_rule() {
    // Three white kings, one on the long diagonal (1), against a lone black king: 13 white
    // moves to win. White's 13th move is ply 25.
    let mut g = game(Spanish, "W:WK1,K2,K3:BK29");
    play_quietly(&mut g, 24);
    assert_eq!(g.outcome(), None);
    play_quietly(&mut g, 1);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::KingsAgainstKing { moves: 13 }))
    );
    // Without a king on the long diagonal the count does not start.
    let mut g = game(Spanish, "W:WK2,K3,K4:BK29");
    play_quietly(&mut g, 26);
    assert_eq!(g.outcome(), None);
}

#[test]
fn czech_draw_counts_man_moves_as_no_progress() {
    // Czech: 40 moves each without capture or promotion; a man move does not reset the count.
    let mut g = game(Czech, "W:WK29,21:BK4");
    for text in ["29-25", "4-8", "21-17", "8-4"] {
        g.play_text(text).expect("legal");
    }
    assert_eq!(g.quiet_plies(), 4);
    // In Italian the man move resets it.
    let mut g = game(Variant::Italian, "W:WK29,21:BK4");
    for text in ["29-25", "4-8", "21-17", "8-4"] {
        g.play_text(text).expect("legal");
    }
    assert_eq!(g.quiet_plies(), 1);
}

#[test]
fn russian_kings_against_king_and_repetition() {
    // 15 moves for three kings against one: White's 15th move is ply 29.
    let mut g = game(Russian, "W:WK1,K2,K3:BK29");
    play_quietly(&mut g, 28);
    assert_eq!(g.outcome(), None);
    play_quietly(&mut g, 1);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::KingsAgainstKing { moves: 15 }))
    );
    let mut g = game(English, "W:WK29:BK4");
    for text in ["29-25", "4-8", "25-29", "8-4"].iter().cycle().take(8) {
        g.play_text(text).expect("legal shuffle");
    }
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
}

#[test]
fn no_moves_loses_in_every_variant() {
    for v in Variant::ALL {
        let g = game(v, "B:W22:B");
        assert_eq!(g.outcome(), Some(Outcome::Win(Color::White)), "{v}");
    }
}
