//! Web server integration tests: the API and reviews.
//!
//! One test binary per crate (each module was once a binary of its own): the
//! workspace links far fewer programs.

mod api;
mod browser;
mod common;
mod instances;
mod review;
