//! Endgame table integration tests: index, files, known values, an independent solver.
//!
//! One test binary per crate (each module was once a binary of its own): the
//! workspace links far fewer programs.

mod files;
mod independent;
mod index;
mod known;
mod support;
