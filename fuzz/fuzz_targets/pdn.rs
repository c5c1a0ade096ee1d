//! PDN files: reading any bytes never panics, every game read has legal moves, and the
//! writer's text of a game reads back as the same game and is a fixed point of the writer.
//!
//! The first byte picks the default variant (its value mod 6 in `Variant::ALL` order: `0` is
//! Italian, `1` Spanish...).
#![no_main]

use dama_rules::notation::pdn::{self, Reader};
use dama_rules::{with_rules, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let default = Variant::ALL[first as usize % Variant::ALL.len()];
    // Bytes, not text: the reader takes lines that are not UTF-8 as Latin-1.
    for game in Reader::new(body, default).take(64) {
        let Ok(game) = game.map_err(|e| e.to_string()) else {
            continue;
        };
        // The moves are legal in turn (the reader does not stop a game at a draw rule).
        let mut pos = game.start;
        for &m in &game.moves {
            with_rules!(game.variant, R => pos.play::<R>(m)).expect("every move read is legal");
        }
        assert_eq!(game.positions().count(), game.moves.len() + 1);
        // The writer puts the usual tags first (the Seven Tag Roster order): the game read
        // back is the same but for the order of its tags, and its text is the same.
        let text = pdn::write(&game).expect("a game read writes");
        let mut again = pdn::read_str(&text, default);
        assert_eq!(again.len(), 1, "{text}");
        let mut again = again.remove(0).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(pdn::write(&again).ok().as_deref(), Some(text.as_str()));
        let mut game = game;
        game.tags.sort();
        again.tags.sort();
        assert_eq!(again, game, "{text}");
    }
});
