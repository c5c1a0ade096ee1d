//! One test per rule of docs/rules.md (Italian), on positions built by hand.
//!
//! Square geometry (docs/rules.md): row r = (n-1)/4 from the top,
//! column c = 2*((n-1)%4) + (r odd); White men move up. Each position's comment says what the pieces do.

use crate::common::{italian, pos};
use dama::rules::explain::Candidate;
use dama::rules::variant::Italian;
use dama::rules::{Color, DrawReason, Error, Game, Illegal, Outcome, Square, Variant};

fn sq(n: u8) -> Square {
    Square::new(n).expect("test square in 1..=32")
}

#[test]
fn start_position_has_seven_moves() {
    assert_eq!(
        italian("W:W21-32:B1-12"),
        ["21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"]
    );
}

#[test]
fn man_moves_forward_only() {
    // Man on 18 with empty squares all around: 13 and 14 are ahead, 21 and 22 behind.
    assert_eq!(italian("W:W18:B1"), ["18-13", "18-14"]);
    assert_eq!(italian("B:W32:B18"), ["18-21", "18-22"]);
}

#[test]
fn man_captures_forward_only() {
    // Black man on 22 behind White's man on 18, 26 empty: no backward capture.
    assert_eq!(italian("W:W18:B22"), ["18-13", "18-14"]);
}

#[test]
fn man_cannot_capture_king() {
    // The black king on 18 is a wall for the man on 22 (13 is empty behind it).
    assert_eq!(italian("W:W22:BK18"), ["22-19"]);
}

#[test]
fn man_captures_man() {
    assert_eq!(italian("W:W22:B18"), ["22x13x18"]);
}

#[test]
fn king_moves_one_square_in_every_direction() {
    assert_eq!(italian("W:WK18:B1"), ["18-13", "18-14", "18-21", "18-22"]);
}

#[test]
fn king_does_not_fly() {
    // King on 29 with the whole long diagonal empty: one step only.
    assert_eq!(italian("W:WK29:B4"), ["29-25", "29-26"]);
}

#[test]
fn king_takes_king() {
    assert_eq!(italian("W:WK22:BK18"), ["22x13x18"]);
}

#[test]
fn king_captures_backwards() {
    // King on 14 takes the man on 18 behind it, landing on 21.
    assert_eq!(italian("W:WK14:B18"), ["14x21x18"]);
}

#[test]
fn capture_is_compulsory() {
    // The man on 22 must take 18; the man on 29 may not move quietly.
    assert_eq!(italian("W:W22,29:B18"), ["22x13x18"]);
}

#[test]
fn multi_capture_must_be_completed() {
    // 31 takes 27 landing on 22, then must go on over 19 or 18.
    let moves = italian("W:W31:B27,19");
    assert_eq!(moves, ["31x15x19x27"]);
}

#[test]
fn tier1_most_pieces() {
    // 21 could take 18 alone; 31 takes two (27 then 18 or 19): only the doubles are legal.
    assert_eq!(
        italian("W:W31,21:B27,19,18"),
        ["31x13x18x27", "31x15x19x27"]
    );
}

#[test]
fn tier1_two_men_beat_one_king() {
    // The king on 17 can take the king on 21 (one piece, landing on 26); the man on 31 takes
    // two men (27, then 19).
    assert_eq!(italian("W:W31,K17:B27,19,K21"), ["31x15x19x27"]);
}

#[test]
fn tier2_king_beats_man() {
    // One piece each: the man on 23 could take 19, the king on 30 takes 26.
    assert_eq!(italian("W:W23,K30:B19,26"), ["30x21x26"]);
}

#[test]
fn tier3_most_kings() {
    // King on 22 takes one piece either way: the man on 18 or the king on 19.
    assert_eq!(italian("W:WK22:B18,K19"), ["22x15x19"]);
}

#[test]
fn tier4_rules_example_compares_every_king() {
    // docs/rules.md: 30x5 takes 26, 18, 10 (kings at jumps 1 and 2); 30x7 takes 27, 20, 12
    // (kings at jumps 1 and 3). Comparing only the first king would keep both.
    assert_eq!(italian("W:WK30:B10,K12,K18,20,K26,K27"), ["30x5x10x18x26"]);
}

#[test]
fn tier4_first_king_earlier_wins() {
    // King on 22, two pieces and one king either way: over the king on 19 to 15 then the man on
    // 12 to 8 (king at jump 1), or over the man on 18 to 13 then the king on 10 to 6 (king at
    // jump 2). The king met first decides.
    assert_eq!(italian("W:WK22:BK10,12,18,K19"), ["22x8x12x19"]);
}

#[test]
fn tier5_free_choice() {
    // The man on 22 may take 18 or 19: nothing tells them apart.
    assert_eq!(italian("W:W22:B18,19"), ["22x13x18", "22x15x19"]);
}

#[test]
fn promotion_ends_capture() {
    // The man on 10 takes 6 and becomes a king on 3; as a king it could go on over 7 to 12,
    // but the move ends on promotion.
    let p = pos("W:W10:B6,7");
    let moves = p.legal_moves();
    assert_eq!(moves.len(), 1);
    let m = moves[0];
    assert_eq!(m.to_string(), "10x3x6");
    assert!(m.promotes());
    let after = p.after(m);
    assert!(after.kings(Color::White).contains(sq(3)));
    assert!(after.pieces(Color::Black).contains(sq(7)));
}

#[test]
fn quiet_move_to_far_row_promotes() {
    let p = pos("W:W5:B28");
    for m in &p.legal_moves() {
        assert!(m.promotes());
        assert!(p.after(*m).kings(Color::White).contains(m.to()));
    }
}

#[test]
fn start_square_is_passable_and_pieces_are_taken_once() {
    // King on 22 circles 14: over 19, 11, 10, 18 back to 22 (its own start square, empty during
    // the move). It cannot jump 18 or 19 a second time. Both directions round the loop give the
    // same move, listed once.
    assert_eq!(italian("W:WK22:B10,11,18,19"), ["22x22x10x11x18x19"]);
    let p = pos("W:WK22:B10,11,18,19");
    let after = p.after(p.legal_moves()[0]);
    assert_eq!(after.pieces(Color::Black).count(), 0);
    assert!(after.kings(Color::White).contains(sq(22)));
}

#[test]
fn king_loop_passes_its_start_square_and_goes_on() {
    // As above, plus a man on 26: after the loop the king crosses 22 again and takes 26, landing
    // on 29. Five pieces beat the four of the loop alone.
    assert_eq!(italian("W:WK22:B10,11,18,19,26"), ["22x29x10x11x18x19x26"]);
}

#[test]
fn captured_pieces_are_removed_together_at_the_end() {
    // With short kings a captured piece can never stand on a later landing square (landings
    // keep the parity of the first one, captured squares have the other), so "captured pieces
    // stay" shows as "never jumped twice" and as all of them leaving at once.
    let p = pos("W:WK22:B10,11,18,19,26,1");
    let m = p.legal_moves()[0];
    assert_eq!(m.captured().count(), 5);
    let after = p.after(m);
    assert_eq!(after.pieces(Color::Black).count(), 1);
    assert_eq!(after.occupied().count(), 2);
}

#[test]
fn no_moves_loses() {
    // No white pieces at all.
    let game = Game::from_position(Variant::Italian, pos("W:W:B1"));
    assert_eq!(game.outcome(), Some(Outcome::Win(Color::Black)));
    // A white man on 29 boxed in by 25 and 26 (22 behind 26 is occupied).
    let game = Game::from_position(Variant::Italian, pos("W:W29:B25,26,22"));
    assert!(game.legal_moves().is_empty());
    assert_eq!(game.outcome(), Some(Outcome::Win(Color::Black)));
}

#[test]
fn forty_move_draw_after_80_king_plies() {
    let mut game = Game::from_position(Variant::Italian, pos("W:WK29:BK4"));
    let shuffle = ["29-25", "4-8", "25-29", "8-4"];
    for ply in 0..80 {
        assert_eq!(game.outcome(), None, "ply {ply}");
        game.play_text(shuffle[ply % 4]).expect("legal shuffle");
    }
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw(DrawReason::NoProgress { plies: 80 }))
    );
    assert!(matches!(
        game.play_text("29-25"),
        Err(Error::GameOver { .. })
    ));
}

#[test]
fn man_move_resets_the_forty_move_count() {
    let mut game = Game::from_position(Variant::Italian, pos("W:WK29,21:BK4"));
    let shuffle = ["29-25", "4-8", "25-29", "8-4"];
    for ply in 0..78 {
        game.play_text(shuffle[ply % 4]).expect("legal shuffle");
    }
    assert_eq!(game.quiet_plies(), 78);
    // Ply 79 is White's: a man move instead of the king.
    game.play_text("21-17").expect("man move");
    assert_eq!(game.quiet_plies(), 0);
    assert_eq!(game.outcome(), None);
}

#[test]
fn rejected_move_leaves_the_game_unchanged() {
    let mut game = Game::from_position(Variant::Italian, pos("W:W22,29:B18"));
    let before = *game.position();
    let err = game.play_text("29-25").unwrap_err();
    assert!(matches!(
        err,
        Error::IllegalMove {
            why: Illegal::MustCapture { .. },
            ..
        }
    ));
    assert!(err.to_string().contains("\"29-25\""), "{err}");
    assert_eq!(*game.position(), before);
    assert!(game.moves().is_empty());
}

#[test]
fn explanations_name_the_reason() {
    let p = pos("W:W22,29:B18,1");
    let why = |from: u8, to: u8| {
        p.explain_move::<Italian>(Candidate {
            from: sq(from),
            to: sq(to),
            captured: None,
        })
        .unwrap_err()
    };
    assert_eq!(why(17, 13), Illegal::EmptySquare { square: sq(17) });
    assert!(matches!(
        why(1, 5),
        Illegal::NotYourPiece {
            owner: Color::Black,
            ..
        }
    ));
    assert!(matches!(why(29, 25), Illegal::MustCapture { capturers } if capturers.count() == 1));
    assert!(matches!(why(22, 15), Illegal::NoSuchMove { .. }));
    // A half-finished capture.
    let p = pos("W:W31:B27,19");
    let half = p.explain_move::<Italian>(Candidate {
        from: sq(31),
        to: sq(22),
        captured: None,
    });
    assert!(matches!(half, Err(Illegal::Incomplete { .. })), "{half:?}");
    // A capture that loses by tier 2.
    let p = pos("W:W23,K30:B19,26");
    let lost = p
        .explain_move::<Italian>(Candidate {
            from: sq(23),
            to: sq(14),
            captured: None,
        })
        .unwrap_err();
    assert!(lost.to_string().contains("tier 2"), "{lost}");
    // A blocked piece.
    let p = pos("W:W29,21:B25,26,22");
    assert_eq!(
        p.explain_square::<Italian>(sq(29)).unwrap_err(),
        Illegal::Blocked { square: sq(29) }
    );
}

/// One case per priority tier: a position, a capture that loses, in Hub and in PDN text, the
/// capture that beats it and the tier.
const LOSING_CAPTURES: [(&str, &str, &str, &str, u32); 5] = [
    // The man on 22 takes one piece; the king on 30 takes two.
    (
        "W:W22,K30:B18,K26,17",
        "22x13x18",
        "22x13",
        "30x14x18x26",
        1,
    ),
    // One piece each: the man on 23 takes 19, the king on 30 takes 26.
    ("W:W23,K30:B19,26", "23x14x19", "23x14", "30x21x26", 2),
    // One piece each, both by kings: 18 takes the man on 13, 14 takes the king on 19.
    ("W:WK14,K18:B13,K19", "18x9x13", "18x9", "14x23x19", 3),
    // Two pieces and one king each: 1 meets the king at its second jump, 11 at its first.
    ("W:WK1,K11:B5,K6", "1x3x5x6", "1x3", "11x9x5x6", 4),
    // The rules' example: 30x7 meets its second king later than 30x5 does.
    (
        "W:WK30:B10,K12,K18,20,K26,K27",
        "30x7x12x20x27",
        "30x7",
        "30x5x10x18x26",
        4,
    ),
];

#[test]
fn a_losing_capture_gets_the_same_reason_in_hub_and_pdn_text_for_every_tier() {
    use dama::rules::notation::{parse_move, MoveFormat};
    for (fen, hub, pdn, better, tier) in LOSING_CAPTURES {
        let p = pos(fen);
        let expected = format!("this capture loses to {better} by tier {tier}: ");
        for (text, format) in [
            (hub, MoveFormat::Hub),
            (hub, MoveFormat::Any),
            (pdn, MoveFormat::Pdn),
            (pdn, MoveFormat::Any),
            (pdn, MoveFormat::Hub),
        ] {
            let err = parse_move::<Italian>(&p, text, format).unwrap_err();
            let Error::IllegalMove { why, .. } = &err else {
                panic!("{fen} {text} {format:?}: {err}");
            };
            assert!(
                why.to_string().starts_with(&expected),
                "{fen} {text} {format:?}: {why}"
            );
            let mut game = Game::from_position(Variant::Italian, p);
            let err = game.play_text(text).unwrap_err().to_string();
            assert!(err.contains(&expected), "{fen} {text}: {err}");
        }
    }
}

#[test]
fn a_piece_whose_captures_lose_is_told_which_capture_beats_it() {
    for (fen, hub, _, better, tier) in &LOSING_CAPTURES[..4] {
        let p = pos(fen);
        let from: Square = hub
            .split('x')
            .next()
            .expect("a start")
            .parse()
            .expect("a square");
        let why = p.explain_square::<Italian>(from).unwrap_err();
        assert!(matches!(why, Illegal::Outranked { .. }), "{fen}: {why:?}");
        assert!(
            why.to_string().starts_with(&format!(
                "the piece on {from} can capture, but {hub} loses to {better} by tier {tier}: "
            )),
            "{fen}: {why}"
        );
        // A quiet move of that piece gets the same reason.
        let mut game = Game::from_position(Variant::Italian, p);
        let quiet = game
            .play_text(&format!(
                "{from}-{}",
                p.empty_squares().iter().next().expect("a square")
            ))
            .unwrap_err();
        assert!(
            quiet.to_string().contains(&why.to_string()),
            "{fen}: {quiet}"
        );
    }
}
