//! Search integration tests: tactics, properties, the book, the endgame tables.
//!
//! One test binary per crate (each module was once a binary of its own): the
//! workspace links far fewer programs.

mod book;
mod egtb;
mod properties;
mod search;
mod shots_data;
mod tactics;
