//! Exit statuses of the `dama` command: what they mean ([`HELP`], shown by `dama --help` and
//! repeated in the README) and the values ([`Status`]).

use std::process::ExitCode;

/// The meaning of the exit statuses, the end of `dama --help`. Every command holds to it.
pub const HELP: &str = "Exit status:
  0  success; also when the reader of the output goes away first (`dama perft | head -1`):
     the command then stops at once, quietly
  1  the command ran, and what it checks is not all good: `dama pdn check|fens|convert|stats`
     met a bad game (each one reported), `dama egtb verify` a wrong value or a damaged file,
     `dama egtb info` a damaged file
  2  bad input or I/O: an argument, FEN or move that cannot be used, a file that cannot be
     read, is not what it should be, or cannot be written; with --stdin, any bad line (each
     answered by `error: ...`, the others as usual)
Any other status (101: a panic) is a bug.";

/// How a command ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Success.
    Ok,
    /// A negative answer the user asked for (a check found a problem).
    Negative,
    /// Bad input or I/O.
    BadInput,
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(match s {
            Status::Ok => 0,
            Status::Negative => 1,
            Status::BadInput => 2,
        })
    }
}
