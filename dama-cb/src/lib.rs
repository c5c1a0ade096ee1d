//! dama as a [CheckerBoard](https://github.com/eygilbert/CheckerBoard) engine: a Windows DLL
//! exporting CheckerBoard's engine API for Italian draughts (game type 22).
//!
//! CheckerBoard loads `engines\dama.dll` and calls four functions ([`ffi`]):
//! - `getmove`: the board in CheckerBoard's coordinates and colours ([`board`]), the side to
//!   move, the time, a status string, a "play now" flag and the info flags (reset, exact time,
//!   an incremental clock); dama plays by its search ([`session`]) and hands back the board
//!   after its move and the move itself;
//! - `enginecommand`: name, about, help, `get gametype` (22), `get protocolversion` (2),
//!   `get movelist`, `set gamehist`, and the options ([`command`]);
//! - `islegal` and `enginename`, which CheckerBoard asks for too.
//!
//! The work is done on plain Rust values, natively testable; only [`ffi`] touches pointers.
//! Nothing CheckerBoard sends crashes it: a board the rules refuse, an unknown command or
//! option, any time, a position without a move get an answer in the status string or the
//! reply, and a panic (a bug) is caught at each export.
//!
//! ```
//! use dama_cb::{board, command, session::{Request, Session}};
//! use dama_rules::{Color, Position};
//!
//! let mut session = Session::new();
//! assert_eq!(command::run(&mut session, "get gametype").text, "22");
//! let req = Request {
//!     board: board::board(&Position::start()),
//!     color: board::CB_WHITE,
//!     maxtime: 0.05,
//!     info: 0,
//!     moreinfo: 0,
//! };
//! let answer = session.get_move(&req, &|| false, &mut |_| {});
//! let after = board::position(&answer.board, Color::Black).unwrap();
//! assert!(Position::start().legal_moves().iter().any(|&m| Position::start().after(m) == after));
//! ```

#![warn(missing_docs)]

pub mod board;
pub mod command;
pub mod ffi;
pub mod session;
