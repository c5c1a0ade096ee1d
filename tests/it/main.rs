//! The facade's integration tests: the rules through `dama`, perft, PDN, properties, no allocation.
//!
//! One test binary per crate (each module was once a binary of its own): the
//! workspace links far fewer programs.

mod common;
mod game_api;
mod no_alloc;
mod pdn;
mod perft;
mod properties;
mod rules_italian;
mod rules_variants;
