//! Hub protocol integration tests: transcripts, the binary, a torture test.
//!
//! One test binary per crate (each module was once a binary of its own): the
//! workspace links far fewer programs.

mod binary;
mod torture;
mod transcript;
