//! The errors of this crate: bad protocol input on the engine side, and a misbehaving engine
//! on the client side.

/// Everything that can go wrong reading a Hub line, applying it, or talking to an engine.
///
/// On the engine side every error becomes one `error message="..."` line and the engine keeps
/// its previous state, but for a refused `pos`: the engine then has no position, and `go`
/// answers [`Error::NoPosition`] until a valid `pos` (or `new-game`, or a new `variant`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A line that cannot be split into tokens.
    #[error("malformed line \"{line}\": {why}")]
    MalformedLine {
        /// The line (an excerpt if long).
        line: String,
        /// What is wrong.
        why: String,
    },
    /// A line longer than the reader accepts; it was discarded unread.
    #[error("line of {bytes} bytes refused: lines are limited to {limit} bytes")]
    LineTooLong {
        /// Bytes the line had (up to its end or the end of input).
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A command the protocol does not have.
    #[error("unknown command \"{command}\": expected hub, init, set-param, pos, level, go, ponder-hit, stop, ping, new-game or quit")]
    UnknownCommand {
        /// The command word (an excerpt if long).
        command: String,
    },
    /// A command without an argument it needs.
    #[error("{command}: missing {argument}: expected {expected}")]
    MissingArgument {
        /// The command.
        command: &'static str,
        /// The argument missing.
        argument: &'static str,
        /// What was expected.
        expected: &'static str,
    },
    /// An argument whose value cannot be read.
    #[error("{command}: {argument}=\"{value}\" is not valid: expected {expected}")]
    BadValue {
        /// The command.
        command: &'static str,
        /// The argument.
        argument: String,
        /// The value given (an excerpt if long).
        value: String,
        /// What was expected.
        expected: String,
    },
    /// A `set-param` for a parameter the engine does not have: ignored, said so.
    #[error("set-param: unknown parameter \"{name}\" (ignored): expected one of {known}")]
    UnknownParameter {
        /// The name given (an excerpt if long).
        name: String,
        /// The parameters the engine declares, comma-separated.
        known: String,
    },
    /// A `pos=` value that is not a position.
    #[error("pos: {0}")]
    BadPosition(dama_rules::Error),
    /// A move in `moves="..."` that cannot be played.
    #[error("pos: move {index} of {count} in the moves list cannot be played: {reason}")]
    BadMove {
        /// The move's index in the list, from 1.
        index: usize,
        /// How many moves the list has.
        count: usize,
        /// Why: [`dama_rules::Error::MalformedMove`], [`dama_rules::Error::IllegalMove`] (with
        /// the rules' explanation), [`dama_rules::Error::AmbiguousMove`] or
        /// [`dama_rules::Error::GameOver`].
        reason: dama_rules::Error,
    },
    /// `go` after a refused `pos`, before any valid one.
    #[error("go: no position to search, the last pos was refused ({why}): expected a valid pos (or new-game) first")]
    NoPosition {
        /// Why that `pos` was refused (an excerpt if long).
        why: String,
    },
    /// `go` in a position where the side to move has no move, or one side has no piece left
    /// (a finished game).
    #[error("go: no legal move in this position ({why})")]
    NoLegalMove {
        /// How the game ended.
        why: String,
    },
    /// The searcher thread failed.
    #[error("the search failed: {why}")]
    SearchFailed {
        /// What happened.
        why: String,
    },
    /// Reading or writing a stream failed.
    #[error("I/O error: {0}")]
    Io(String),
    /// An engine process could not be started.
    #[error("cannot start engine \"{program}\": {why}")]
    Spawn {
        /// The program.
        program: String,
        /// The system's reason.
        why: String,
    },
    /// The engine closed its output (it exited or crashed).
    #[error("engine {engine} exited while we waited for {waiting_for}")]
    EngineExited {
        /// The engine's name.
        engine: String,
        /// What we waited for.
        waiting_for: String,
    },
    /// The engine did not answer in time (it was killed).
    #[error("engine {engine} did not send {waiting_for} within {seconds:.1} s and was killed")]
    Timeout {
        /// The engine's name.
        engine: String,
        /// What we waited for.
        waiting_for: String,
        /// How long we waited.
        seconds: f64,
    },
    /// The engine answered something we cannot use.
    #[error("engine {engine} sent \"{line}\": {why}")]
    BadReply {
        /// The engine's name.
        engine: String,
        /// Its line (an excerpt if long).
        line: String,
        /// What is wrong with it.
        why: String,
    },
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Io(e.to_string())
    }
}

/// At most 80 characters of `text` with control characters escaped, for messages.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    for c in text.chars().take(MAX) {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if text.chars().nth(MAX).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_is_bounded_and_escapes_control_characters() {
        assert_eq!(excerpt("a\tb"), "a\\tb");
        let long = "x".repeat(1000);
        assert_eq!(excerpt(&long).chars().count(), 81);
    }
}
