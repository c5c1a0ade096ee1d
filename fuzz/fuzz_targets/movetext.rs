//! Move text in Hub and PDN notation, read in any position of any variant: never a panic, and
//! whatever is accepted is a legal move that `Game::play_text` accepts too.
#![no_main]

mod common;

use dama_rules::notation::{parse_move, MoveFormat};
use dama_rules::{with_rules, Error, Game};
use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(Some((variant, pos))) = common::position(&mut u) else {
        return;
    };
    let Ok(format) = u.choose(&[MoveFormat::Hub, MoveFormat::Pdn, MoveFormat::Any]) else {
        return;
    };
    let text = String::from_utf8_lossy(u.take_rest());
    let legal = pos.legal_moves_for(variant);
    let parsed = with_rules!(variant, R => parse_move::<R>(&pos, &text, *format));
    match &parsed {
        Ok(m) => assert!(legal.contains(m), "{text:?} gave {m:?}, not legal"),
        Err(
            Error::MalformedMove { .. } | Error::IllegalMove { .. } | Error::AmbiguousMove { .. },
        ) => {}
        Err(e) => panic!("{text:?}: unexpected error {e}"),
    }
    let _ = parsed.map_err(|e| e.to_string());
    let mut game = Game::from_position(variant, pos);
    let played = game.play_text(&text);
    if let Ok(m) = played {
        assert!(legal.contains(&m));
        assert_eq!(*game.position(), pos.after(m));
    } else if game.outcome().is_none() {
        assert_eq!(*game.position(), pos, "a refused move changed nothing");
    }
});
