//! Exit statuses of the `dama` command.

use std::process::ExitCode;

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
