//! Helpers shared by the tests and examples.

pub mod independent;
