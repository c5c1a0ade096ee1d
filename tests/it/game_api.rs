//! The `Game` API an analysis tool or a GUI embeds: taking moves back, the end of the game,
//! the order of the legal moves, and PDN text of a move.

use crate::common::pos;
use dama::rules::{Error, Game, Illegal, Move, Outcome, Variant};

/// Everything a game holds, as text: two games with the same state print the same.
fn state(game: &Game) -> String {
    format!(
        "{:?} | outcome {:?} | sorted {:?}",
        game,
        game.outcome(),
        game.sorted_legal_moves()
    )
}

/// Plays `plies` moves picked by a fixed rule (no randomness), stopping at the end of the
/// game; checks after each move that `undo` brings back the exact state before it.
fn play_and_undo_each(game: &mut Game, plies: usize) {
    for ply in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let before = state(game);
        let legal = game.legal_moves();
        let m = legal[(ply * 7 + 3) % legal.len()];
        game.play(m).expect("a legal move");
        assert_eq!(game.undo(), Some(m));
        assert_eq!(state(game), before, "undo of {m} at ply {ply}");
        game.play(m).expect("a legal move");
    }
}

#[test]
fn undo_restores_position_counters_keys_and_legal_moves_exactly() {
    for (variant, fen) in [
        (Variant::Italian, "W:W21-32:B1-12"),
        (Variant::Italian, "W:WK29,21:BK4,12"),
        (Variant::Spanish, "W:WK1,K2,K3:BK29"),
        (Variant::Russian, "W:WK1,K2,K3,22:BK29,10"),
        (Variant::Czech, "W:W21-32:B1-12"),
        (Variant::English, "W:WK29:BK4"),
    ] {
        let fresh = Game::from_position(variant, pos(fen));
        let mut game = fresh.clone();
        play_and_undo_each(&mut game, 120);
        assert!(!game.moves().is_empty(), "{variant} {fen}");
        while game.undo().is_some() {}
        assert_eq!(
            state(&game),
            state(&fresh),
            "{variant} {fen}: back to the start"
        );
    }
}

#[test]
fn undo_at_the_start_is_none() {
    let mut game = Game::new();
    assert_eq!(game.undo(), None);
    assert_eq!(state(&game), state(&Game::new()));
}

#[test]
fn undo_reopens_a_finished_game() {
    // 18 takes the last black man: White wins; taking it back, Black's man is there again.
    let mut game = Game::from_position(Variant::Italian, pos("W:W18:B14"));
    let m = game.play_text("18x11").expect("legal");
    assert!(game.outcome().is_some());
    assert_eq!(game.undo(), Some(m));
    assert_eq!(game.outcome(), None);
    assert_eq!(game.position().fen(), "W:W18:B14");
}

#[test]
fn play_text_after_the_end_reports_game_over_whatever_the_text() {
    let mut game = Game::from_position(Variant::Italian, pos("W:W18:B14"));
    game.play_text("18x11x14").expect("legal");
    // Black to move, with no piece: a black move, a white move and garbage all get the end.
    for text in ["14-18", "11-7", "not a move", ""] {
        match game.play_text(text) {
            Err(Error::GameOver { outcome }) => {
                assert_eq!(outcome, Outcome::Win(dama::rules::Color::White));
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
    // A draw ends the game as well.
    let mut game = Game::from_position(Variant::English, pos("W:WK29:BK4"));
    for text in ["29-25", "4-8", "25-29", "8-4"].iter().cycle().take(8) {
        game.play_text(text).expect("legal shuffle");
    }
    let err = game.play_text("29-25").unwrap_err();
    assert!(matches!(err, Error::GameOver { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "the game is over: draw: the same position for the third time"
    );
}

#[test]
fn legal_moves_come_in_the_generators_stable_order() {
    for (variant, fen) in [
        (Variant::Italian, "W:W21-32:B1-12"),
        (Variant::Italian, "W:WK22:BK10,12,18,K19,26,27"),
        (Variant::Spanish, "W:WK29,21:B1,2,4,12"),
        (Variant::Russian, "B:W21-32:B1-12"),
    ] {
        let game = Game::from_position(variant, pos(fen));
        let generated = pos(fen).legal_moves_for(variant);
        assert_eq!(game.legal_moves()[..], generated[..], "{variant} {fen}");
        let again = Game::from_position(variant, pos(fen));
        assert_eq!(game.legal_moves()[..], again.legal_moves()[..]);
        // Sorted as `dama moves` prints them.
        let sorted: Vec<String> = game
            .sorted_legal_moves()
            .iter()
            .map(Move::to_string)
            .collect();
        assert_eq!(
            sorted,
            crate::common::moves(variant, fen),
            "{variant} {fen}"
        );
    }
}

#[test]
fn pdn_move_of_a_game_needs_no_rules_type_or_position() {
    // Two captures from 30 end on 14, by 21 or by 23: PDN gives their landing paths.
    let game = Game::from_position(Variant::Italian, pos("W:W28,30,31,32:B2,5,6,18,19,26,27"));
    let texts: Vec<String> = game
        .sorted_legal_moves()
        .iter()
        .map(|&m| game.pdn_move(m).expect("legal"))
        .collect();
    assert_eq!(texts, ["30x21x14", "30x23x14", "31x13", "31x15"]);
    for (text, &m) in texts.iter().zip(game.sorted_legal_moves().iter()) {
        let mut copy = game.clone();
        assert_eq!(copy.play_text(text).expect("its own PDN text"), m);
    }
    // A quiet game move, and a move that is not legal here.
    let mut game2 = Game::new();
    let m = game2.play_text("22-18").expect("legal");
    assert_eq!(Game::new().pdn_move(m).expect("legal"), "22-18");
    let err = game2.pdn_move(m).unwrap_err();
    assert!(
        matches!(
            err,
            Error::IllegalMove {
                why: Illegal::EmptySquare { .. },
                ..
            }
        ),
        "{err}"
    );
}
