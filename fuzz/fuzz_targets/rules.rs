//! The rules from fuzzed positions of every variant, playing fuzzed choices of moves, with
//! their invariants checked at every ply:
//! - the incremental hash (`Position::hash_after`, and the game's keys) equals a fresh one;
//! - every generated move is accepted by `Position::play`, which gives `Position::after`;
//! - the generator gives no move twice and `count_moves` agrees;
//! - notation round-trips: Hub text and PDN text read back as the same move, and a capture's
//!   paths end on its end square;
//! - the colour-flipped position has the flipped move list, and flips back;
//! - a move that is not legal is refused, explained, and changes nothing;
//! - `Game` agrees with the position (legal moves, keys, undo).
#![no_main]

mod common;

use dama_rules::notation::{fen, hub, parse_move, pdn_move, MoveFormat};
use dama_rules::{with_rules, Error, Game, Move, Outcome, Position, Rules, Variant};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

fn sorted(moves: impl IntoIterator<Item = Move>) -> Vec<Move> {
    let mut v: Vec<Move> = moves.into_iter().collect();
    v.sort();
    v
}

fn check_position<R: Rules>(pos: &Position, hash: u64) {
    assert_eq!(hash, pos.hash(), "incremental hash of {pos:?}");
    assert_eq!(fen::parse(&pos.fen()).ok(), Some(*pos));
    assert_eq!(hub::parse(&hub::write(pos)).ok(), Some(*pos));
    let legal = pos.moves::<R>();
    assert_eq!(pos.count_moves::<R>(), legal.len() as u64);
    assert_eq!(
        pos.must_capture::<R>(),
        legal.iter().any(|m| m.is_capture())
    );
    let mine = sorted(legal.iter().copied());
    assert!(
        mine.windows(2).all(|w| w[0] != w[1]),
        "a move twice: {mine:?}"
    );
    let flipped = pos.flip();
    assert_eq!(flipped.flip(), *pos);
    let theirs = flipped.moves::<R>();
    assert_eq!(
        sorted(theirs.iter().copied()),
        sorted(mine.iter().map(|m| m.flip())),
        "flipped move list of {pos:?}"
    );
    for &m in &legal {
        let mut next = *pos;
        next.play::<R>(m)
            .unwrap_or_else(|e| panic!("{pos:?}: generated {m:?} refused: {e}"));
        assert_eq!(next, pos.after(m));
        assert_eq!(pos.hash_after(hash, m), next.hash(), "{pos:?} {m:?}");
        let text = m.to_string();
        let back = parse_move::<R>(pos, &text, MoveFormat::Hub);
        assert_eq!(
            back.as_ref().ok(),
            Some(&m),
            "{pos:?}: Hub {text}: {back:?}"
        );
        let pdn = pdn_move::<R>(pos, m);
        let back = parse_move::<R>(pos, &pdn, MoveFormat::Pdn);
        assert_eq!(back.as_ref().ok(), Some(&m), "{pos:?}: PDN {pdn}: {back:?}");
        match parse_move::<R>(pos, &pdn, MoveFormat::Any) {
            Ok(x) => assert_eq!(x, m, "{pos:?}: PDN {pdn} read as {x:?} in either notation"),
            Err(Error::AmbiguousMove { .. }) => {}
            Err(e) => panic!("{pos:?}: PDN {pdn} in either notation: {e}"),
        }
        if m.is_capture() {
            let paths = pos.capture_paths::<R>(m);
            assert!(!paths.is_empty(), "{pos:?}: {m:?} has no path");
            for p in &paths {
                assert_eq!(p.last(), Some(&m.to()), "{pos:?}: {m:?} path {p:?}");
            }
        } else {
            assert!(pos.capture_paths::<R>(m).is_empty());
        }
    }
    // The other side's moves on this board are refused here unless also legal.
    let other = pos.with_turn(!pos.turn());
    for &m in other.moves::<R>().iter().take(8) {
        if legal.contains(&m) {
            continue;
        }
        let mut p = *pos;
        assert!(
            p.play::<R>(m).is_err(),
            "{pos:?}: {m:?} of the other side accepted"
        );
        assert_eq!(p, *pos, "a refused move changed the position");
        let _ = pos.why_illegal::<R>(m).to_string();
    }
}

fn play<R: Rules>(variant: Variant, start: Position, u: &mut Unstructured) -> Result<()> {
    let mut game = Game::from_position(variant, start);
    let mut pos = start;
    let mut hash = start.hash();
    let plies = u.int_in_range(0..=20)?;
    for _ in 0..plies {
        check_position::<R>(&pos, hash);
        assert_eq!(*game.position(), pos);
        assert_eq!(game.keys().last(), Some(&hash));
        assert_eq!(game.legal_moves()[..], pos.moves::<R>()[..]);
        let legal = pos.moves::<R>();
        if legal.is_empty() {
            assert_eq!(game.outcome(), Some(Outcome::Win(!pos.turn())));
            return Ok(());
        }
        let m = legal[u.choose_index(legal.len())?];
        assert_eq!(game.pdn_move(m).ok(), Some(pdn_move::<R>(&pos, m)));
        hash = pos.hash_after(hash, m);
        let before = pos;
        pos.play_unchecked(m);
        match game.play(m) {
            Ok(()) => {}
            Err(Error::GameOver { outcome }) => {
                assert!(
                    matches!(outcome, Outcome::Draw(_)),
                    "{outcome:?} with moves left"
                );
                // Play on from here, as a GUI may.
                game = Game::from_position(variant, before);
                game.play(m).expect("a legal move in a fresh game");
                hash = pos.hash();
            }
            Err(e) => panic!("{before:?}: Game refused {m:?}: {e}"),
        }
        if u.arbitrary::<u8>()? < 32 {
            let keys = game.keys().to_vec();
            assert_eq!(game.undo(), Some(m));
            assert_eq!(*game.position(), before);
            game.play(m).expect("replayed after undo");
            assert_eq!(game.keys(), &keys[..]);
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(Some((variant, pos))) = common::position(&mut u) else {
        return;
    };
    let _ = with_rules!(variant, R => play::<R>(variant, pos, &mut u));
});
