//! The `dama` command's integration tests, run against the built binary.
//!
//! One test binary per crate (each module was once a binary of its own): the
//! workspace links far fewer programs.

mod cli;
mod common;
mod egtb_cli;
mod pdn_cli;
mod play_plain;
mod play_screen;
mod readme;
mod scale_out;
#[cfg(feature = "serve")]
mod serve_api;
mod sprt_cli;
mod tools_cli;
