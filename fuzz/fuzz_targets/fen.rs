//! FEN and Hub position text: never a panic; an accepted text round-trips through the
//! canonical writer to the same position, and the canonical text is a fixed point.
#![no_main]

use dama_rules::notation::{fen, hub};
use dama_rules::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(pos) = fen::parse(text) {
        let canonical = fen::write(&pos);
        let again = fen::parse(&canonical).expect("the canonical FEN reads back");
        assert_eq!(again, pos, "{text:?} -> {canonical}");
        assert_eq!(fen::write(&again), canonical);
        assert_eq!(text.parse::<Position>().ok(), Some(pos));
        assert_eq!(hub::parse(&hub::write(&pos)).ok(), Some(pos));
    } else {
        // The error names the input (quoted, perhaps shortened): it displays without panic.
        let _ = fen::parse(text).unwrap_err().to_string();
    }
    let _ = fen::parse_setup(text);
    if let Ok(pos) = hub::parse(text) {
        let canonical = hub::write(&pos);
        assert_eq!(hub::parse(&canonical).ok(), Some(pos), "{text:?}");
        assert_eq!(fen::parse(&fen::write(&pos)).ok(), Some(pos));
    }
});
