//! Helpers shared by the integration tests.

#![allow(dead_code)]

use dama::rules::notation::fen;
use dama::rules::{Position, Variant};

/// The position of a FEN written by hand in a test.
pub fn pos(text: &str) -> Position {
    fen::parse(text).unwrap_or_else(|e| panic!("test FEN {text:?}: {e}"))
}

/// The legal moves of `fen` under `variant`, in Hub notation, sorted.
pub fn moves(variant: Variant, text: &str) -> Vec<String> {
    let mut list = pos(text).legal_moves_for(variant);
    list.sort();
    list.iter().map(|m| m.to_string()).collect()
}

/// The Italian legal moves of `fen`, in Hub notation, sorted.
pub fn italian(text: &str) -> Vec<String> {
    moves(Variant::Italian, text)
}
