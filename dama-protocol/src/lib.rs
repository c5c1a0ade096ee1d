//! The Hub protocol (the line protocol of the Scan engine and the Hub GUI) for dama.
//!
//! Not written yet: this crate holds only its documentation until its issue is done. Nothing
//! here pretends to work.
//!
//! ```
//! // Positions already travel in the Hub's 32-square form:
//! use dama_rules::{notation::hub, Position};
//! assert_eq!(hub::write(&Position::start()).len(), 33);
//! ```

#![warn(missing_docs)]
