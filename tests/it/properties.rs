//! Property tests over positions reached by random legal play (and random king-heavy setups):
//! the incremental hash equals a fresh one, notation round-trips, mirroring the board mirrors
//! the move list, the bulk count equals the list, and every generated move is accepted by `play`.

use dama::rules::notation::{self, fen, hub, MoveFormat};
use dama::rules::{
    with_rules, Color, Game, Move, Piece, Position, Role, Rules, Setup, Square, Variant,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Positions along one random game of `variant` (the start included).
fn random_game(variant: Variant, seed: u64, plies: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = Position::start();
    let mut out = vec![pos];
    for _ in 0..plies {
        let moves = pos.legal_moves_for(variant);
        if moves.is_empty() {
            break;
        }
        pos = pos.after(moves[rng.random_range(0..moves.len())]);
        out.push(pos);
    }
    out
}

/// A random position with up to 12 pieces a side, many of them kings, and no man on its own
/// far row.
fn random_setup(seed: u64) -> Position {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut setup = Setup::empty();
    setup.turn = if rng.random_bool(0.5) {
        Color::White
    } else {
        Color::Black
    };
    for color in Color::ALL {
        let count = rng.random_range(1..=8);
        for _ in 0..count {
            let sq = Square::ALL[rng.random_range(0..32)];
            let far_row = match color {
                Color::White => sq.row() == 0,
                Color::Black => sq.row() == 7,
            };
            let role = if far_row || rng.random_bool(0.4) {
                Role::King
            } else {
                Role::Man
            };
            if setup.get(sq).is_none() {
                setup.set(sq, Some(Piece { color, role }));
            }
        }
    }
    Position::from_setup(&setup).expect("at most 8 pieces a side")
}

fn sorted(mut moves: Vec<Move>) -> Vec<Move> {
    moves.sort();
    moves
}

fn check_position<R: Rules>(pos: &Position) {
    let moves = pos.moves::<R>();
    assert_eq!(pos.count_moves::<R>(), moves.len() as u64, "{pos:?}");
    // A quiet move, found square by square: an empty diagonal neighbour ahead of a man or
    // anywhere beside a king.
    let quiet = Square::ALL.iter().any(|&sq| {
        let Some(piece) = pos.piece_at(sq).filter(|p| p.color == pos.turn()) else {
            return false;
        };
        let ahead: i8 = if pos.turn() == Color::White { -1 } else { 1 };
        [(ahead, -1), (ahead, 1), (-ahead, -1), (-ahead, 1)]
            .iter()
            .take(if piece.role == Role::King { 4 } else { 2 })
            .any(|&(dr, dc)| {
                let (r, c) = (sq.row() as i8 + dr, sq.column() as i8 + dc);
                (0..8).contains(&r)
                    && (0..8).contains(&c)
                    && Square::from_coords(r as u8, c as u8)
                        .is_some_and(|t| pos.piece_at(t).is_none())
            })
    });
    assert_eq!(pos.has_quiet_move(), quiet, "{pos:?}");
    if !pos.must_capture::<R>() {
        assert_eq!(quiet, !moves.is_empty(), "{pos:?}");
    }
    // Hash: incremental equals fresh.
    let h = pos.hash();
    for &m in &moves {
        assert_eq!(pos.hash_after(h, m), pos.after(m).hash(), "{pos:?} {m}");
    }
    // Notation round trips.
    assert_eq!(fen::parse(&fen::write(pos)).as_ref(), Ok(pos));
    assert_eq!(hub::parse(&hub::write(pos)).as_ref(), Ok(pos));
    for &m in &moves {
        let hub_text = m.to_string();
        assert_eq!(
            notation::parse_move::<R>(pos, &hub_text, MoveFormat::Hub),
            Ok(m),
            "{pos:?} hub {hub_text}"
        );
        let pdn_text = notation::pdn_move::<R>(pos, m);
        assert_eq!(
            notation::parse_move::<R>(pos, &pdn_text, MoveFormat::Pdn),
            Ok(m),
            "{pos:?} pdn {pdn_text}"
        );
    }
    // Mirror: turning the board and swapping colours turns the move list the same way.
    let flipped = pos.flip();
    assert_eq!(flipped.flip(), *pos);
    assert_eq!(
        sorted(flipped.moves::<R>().to_vec()),
        sorted(moves.iter().map(|m| m.flip()).collect()),
        "{pos:?}"
    );
    // Every generated move is accepted by play, which changes the game as `after` does.
    for &m in &moves {
        let mut game = Game::from_position(R::VARIANT, *pos);
        assert_eq!(game.play(m), Ok(()), "{pos:?} {m}");
        assert_eq!(*game.position(), pos.after(m));
        assert_eq!(
            *game.keys().last().expect("a key per position"),
            pos.after(m).hash()
        );
    }
}

fn variant_strategy() -> impl Strategy<Value = Variant> {
    prop::sample::select(Variant::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn positions_from_random_play(variant in variant_strategy(), seed: u64, plies in 0usize..160) {
        for pos in random_game(variant, seed, plies) {
            with_rules!(variant, R => check_position::<R>(&pos));
        }
    }

    #[test]
    fn random_king_heavy_positions(variant in variant_strategy(), seed: u64) {
        let pos = random_setup(seed);
        with_rules!(variant, R => check_position::<R>(&pos));
    }
}

#[test]
fn illegal_moves_leave_the_game_unchanged() {
    for seed in 0..40 {
        let positions = random_game(Variant::Italian, seed, 60);
        let pos = *positions.last().expect("at least the start");
        let mut game = Game::from_position(Variant::Italian, pos);
        let legal = game.legal_moves().clone();
        for from in Square::ALL {
            for to in Square::ALL {
                let text = format!("{from}-{to}");
                let expect_ok = legal
                    .iter()
                    .any(|m| !m.is_capture() && m.from() == from && m.to() == to);
                let result = game.clone().play_text(&text);
                assert_eq!(result.is_ok(), expect_ok, "{pos:?} {text}");
                if !expect_ok {
                    // The failed attempt on the real game changes nothing.
                    assert!(game.play_text(&text).is_err());
                    assert_eq!(*game.position(), pos);
                    assert!(game.moves().is_empty());
                }
            }
        }
    }
}

#[test]
fn move_lists_stay_well_below_capacity() {
    // Random king-heavy positions of every variant: the longest lists seen are about 60 moves
    // (flying kings); MAX_MOVES leaves a wide margin.
    for variant in Variant::ALL {
        let longest = (0..3000u64)
            .map(|seed| random_setup(seed).legal_moves_for(variant).len())
            .max()
            .unwrap_or(0);
        assert!(longest > 10, "{variant}: positions too tame ({longest})");
        assert!(
            longest < dama::rules::MAX_MOVES / 2,
            "{variant}: {longest} moves"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Readers return errors, never panic, on any text; what they accept reads back the same.
    #[test]
    fn readers_never_panic(text in "[WBKwbkHF0-9:,xX\\-. \"]{0,40}|\\PC{0,40}") {
        if let Ok(pos) = fen::parse(&text) {
            prop_assert_eq!(fen::parse(&fen::write(&pos)), Ok(pos));
        }
        let _ = hub::parse(&text);
        let pos = Position::start();
        for format in [MoveFormat::Hub, MoveFormat::Pdn, MoveFormat::Any] {
            if let Ok(m) = notation::parse_move::<dama::rules::variant::Italian>(&pos, &text, format) {
                prop_assert!(pos.legal_moves().contains(&m));
            }
        }
    }
}
