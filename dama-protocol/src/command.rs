//! The commands a GUI sends, read from lexed lines.

use std::time::Duration;

use dama_rules::{notation::hub, Position};
use dama_search::{Clock, Limits, TimeControl};

use crate::error::{excerpt, Error};
use crate::lexer::{self, Line};

/// How a `go` searches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GoMode {
    /// Find a move under the current `level` and answer `done` when found.
    Think,
    /// Think on the opponent's time: time limits wait for `ponder-hit`; `done` only after
    /// `ponder-hit` (once the search ends) or `stop`.
    Ponder,
    /// Analyse without limit, streaming `info`; `done` only after `stop`.
    Analyze,
}

/// One command of the Hub protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `hub`: identify, declare the parameters, then `wait`.
    Hub,
    /// `init`: get ready, then `ready`.
    Init,
    /// `set-param name=N value=V`.
    SetParam {
        /// The parameter.
        name: String,
        /// Its new value, as text.
        value: String,
    },
    /// `pos pos=<side><32 squares> [moves="..."]` or `pos start [moves="..."]`.
    Pos {
        /// The position the moves start from.
        position: Position,
        /// The moves, in Hub text, not yet checked.
        moves: Vec<String>,
    },
    /// `level ...`: the limits of the next searches.
    Level(Limits),
    /// `go think|ponder|analyze`.
    Go(GoMode),
    /// `ponder-hit`: the expected move was played; the clock now applies.
    PonderHit,
    /// `stop`: answer now.
    Stop,
    /// `ping`: answer `pong`.
    Ping,
    /// `new-game`: forget the last game.
    NewGame,
    /// `quit`: exit.
    Quit,
}

impl Command {
    /// Reads one line; `Ok(None)` for a blank line.
    ///
    /// ```
    /// use dama_protocol::{Command, GoMode};
    /// assert_eq!(Command::parse("go think")?, Some(Command::Go(GoMode::Think)));
    /// assert_eq!(Command::parse("  ")?, None);
    /// assert!(Command::parse("fly away").is_err());
    /// # Ok::<_, dama_protocol::Error>(())
    /// ```
    ///
    /// # Errors
    /// A malformed line, an unknown command, or a missing or bad argument.
    pub fn parse(text: &str) -> Result<Option<Command>, Error> {
        let Some(line) = lexer::lex(text)? else {
            return Ok(None);
        };
        let command = match line.command.as_str() {
            "hub" => Command::Hub,
            "init" => Command::Init,
            "set-param" => set_param(&line)?,
            "pos" => pos(&line)?,
            "level" => Command::Level(level(&line)?),
            "go" => Command::Go(go(&line)?),
            "ponder-hit" => Command::PonderHit,
            "stop" => Command::Stop,
            "ping" => Command::Ping,
            "new-game" => Command::NewGame,
            "quit" => Command::Quit,
            other => {
                return Err(Error::UnknownCommand {
                    command: excerpt(other),
                })
            }
        };
        Ok(Some(command))
    }
}

/// Whether `text` is a `go` line (which must get a `done` even when it cannot be read).
pub(crate) fn is_go(text: &str) -> bool {
    text.split_whitespace().next() == Some("go")
}

/// Whether a line that could not be parsed was meant as `pos`.
pub(crate) fn is_pos(text: &str) -> bool {
    text.split_whitespace().next() == Some("pos")
}

fn set_param(line: &Line) -> Result<Command, Error> {
    let name = line.value("name").ok_or(Error::MissingArgument {
        command: "set-param",
        argument: "name",
        expected: "name=<parameter> value=<value>",
    })?;
    let value = line.value("value").ok_or(Error::MissingArgument {
        command: "set-param",
        argument: "value",
        expected: "name=<parameter> value=<value>",
    })?;
    Ok(Command::SetParam {
        name: name.to_string(),
        value: value.to_string(),
    })
}

fn pos(line: &Line) -> Result<Command, Error> {
    let position = match line.value("pos") {
        Some(text) => hub::parse(text).map_err(|e| Error::BadPosition(shorten(e)))?,
        None if line.has_word("start") => Position::start(),
        None => {
            return Err(Error::MissingArgument {
                command: "pos",
                argument: "pos",
                expected: "pos=<side W or B><32 squares of w b W B e> or the word start",
            })
        }
    };
    let moves = line
        .value("moves")
        .map(|m| m.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    Ok(Command::Pos { position, moves })
}

/// Keeps a rules error that quotes a huge input readable.
fn shorten(e: dama_rules::Error) -> dama_rules::Error {
    match e {
        dama_rules::Error::MalformedHubPosition { text, why } => {
            dama_rules::Error::MalformedHubPosition {
                text: excerpt(&text),
                why,
            }
        }
        other => other,
    }
}

fn level(line: &Line) -> Result<Limits, Error> {
    if line.has_word("infinite") {
        return Ok(Limits::infinite());
    }
    let mut limits = Limits {
        depth: line
            .value("depth")
            .map(|v| number(v, "depth"))
            .transpose()?,
        nodes: line
            .value("nodes")
            .map(|v| number(v, "nodes"))
            .transpose()?,
        time: TimeControl::None,
    };
    if let Some(time) = line.value("time") {
        let time = seconds(time, "time")?;
        let inc = line
            .value("inc")
            .map(|v| non_negative_seconds(v, "inc"))
            .transpose()?
            .unwrap_or(0.0);
        let moves_to_go = line
            .value("moves")
            .map(|v| number::<u32>(v, "moves"))
            .transpose()?;
        // The increment of this move is added before thinking (Scan's convention); a
        // negative remaining time (a client that subtracted the increment) is clamped.
        let total = (time + inc).max(0.0);
        // The time manager may spend half an increment beyond a third of the time left,
        // counting on increments to come: keep that within the time really left.
        limits.time = TimeControl::Clock(Clock {
            time: duration(total),
            increment: duration(inc.min(total / 2.0)),
            moves_to_go,
        });
    } else if let Some(t) = line.value("move-time") {
        limits.time = TimeControl::MoveTime(duration(non_negative_seconds(t, "move-time")?));
    }
    if limits.is_infinite() {
        return Err(Error::MissingArgument {
            command: "level",
            argument: "a limit",
            expected: "depth=N, nodes=N, move-time=S, [moves=N] time=S [inc=S], or infinite",
        });
    }
    Ok(limits)
}

fn go(line: &Line) -> Result<GoMode, Error> {
    match line.words().next() {
        None | Some("think") => Ok(GoMode::Think),
        Some("ponder") => Ok(GoMode::Ponder),
        Some("analyze" | "analyse") => Ok(GoMode::Analyze),
        Some(other) => Err(Error::BadValue {
            command: "go",
            argument: "mode".into(),
            value: excerpt(other),
            expected: "think, ponder or analyze".into(),
        }),
    }
}

/// A whole number of `level`, 1 or more; one too large for `T` is refused as too large, with
/// the largest taken.
fn number<T: std::str::FromStr + PartialOrd + From<u8> + TryFrom<u128>>(
    text: &str,
    name: &str,
) -> Result<T, Error> {
    let bad = |expected: String| Error::BadValue {
        command: "level",
        argument: name.into(),
        value: excerpt(text),
        expected,
    };
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        Err(_) if digits && !text.trim_start_matches('0').is_empty() => {
            // The largest `T` (an unsigned type, so some 2^k - 1).
            let max = (1..=u128::BITS)
                .rev()
                .map(|k| u128::MAX >> (u128::BITS - k))
                .find(|&m| T::try_from(m).is_ok())
                .unwrap_or(0);
            Err(bad(format!(
                "a whole number, 1 or more: it is too large, at most {max}"
            )))
        }
        _ => Err(bad("a whole number, 1 or more".into())),
    }
}

fn seconds(text: &str, name: &str) -> Result<f64, Error> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite())
        .ok_or_else(|| Error::BadValue {
            command: "level",
            argument: name.into(),
            value: excerpt(text),
            expected: "a number of seconds, like 5 or 0.25".into(),
        })
}

/// Seconds that are not negative (`move-time`, `inc`).
fn non_negative_seconds(text: &str, name: &str) -> Result<f64, Error> {
    match seconds(text, name)? {
        s if s >= 0.0 => Ok(s),
        _ => Err(Error::BadValue {
            command: "level",
            argument: name.into(),
            value: excerpt(text),
            expected: "a number of seconds, 0 or more, like 5 or 0.25".into(),
        }),
    }
}

/// Seconds as a duration: negative values are zero, values above [`Limits::MAX_TIME`] (a
/// year) are a year.
fn duration(seconds: f64) -> Duration {
    Duration::from_secs_f64(seconds.clamp(0.0, Limits::MAX_TIME.as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Command {
        Command::parse(text).unwrap().unwrap()
    }

    #[test]
    fn simple_commands() {
        assert_eq!(parse("hub"), Command::Hub);
        assert_eq!(parse("init"), Command::Init);
        assert_eq!(parse("ping"), Command::Ping);
        assert_eq!(parse("stop"), Command::Stop);
        assert_eq!(parse("ponder-hit"), Command::PonderHit);
        assert_eq!(parse("new-game"), Command::NewGame);
        assert_eq!(parse("quit"), Command::Quit);
        assert_eq!(parse("go"), Command::Go(GoMode::Think));
        assert_eq!(parse("go ponder"), Command::Go(GoMode::Ponder));
        assert_eq!(parse("go analyze"), Command::Go(GoMode::Analyze));
    }

    #[test]
    fn a_level_number_too_large_is_called_too_large() {
        let err = Command::parse("level depth=99999999999999999999").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("too large, at most 4294967295"), "{text}");
        let err = Command::parse("level nodes=18446744073709551616").unwrap_err();
        assert!(
            err.to_string().contains("at most 18446744073709551615"),
            "{err}"
        );
        let err = Command::parse("level depth=0").unwrap_err();
        assert!(!err.to_string().contains("too large"), "{err}");
    }

    #[test]
    fn set_param_needs_name_and_value() {
        assert_eq!(
            parse("set-param name=hash value=64"),
            Command::SetParam {
                name: "hash".into(),
                value: "64".into()
            }
        );
        assert!(Command::parse("set-param name=hash").is_err());
        assert!(Command::parse("set-param value=1").is_err());
    }

    #[test]
    fn pos_forms() {
        let start = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";
        assert_eq!(
            parse(&format!("pos pos={start}")),
            Command::Pos {
                position: Position::start(),
                moves: vec![]
            }
        );
        assert_eq!(
            parse(r#"pos start moves="22-18  11-15""#),
            Command::Pos {
                position: Position::start(),
                moves: vec!["22-18".into(), "11-15".into()]
            }
        );
        assert!(matches!(
            Command::parse("pos pos=Wbbb"),
            Err(Error::BadPosition(_))
        ));
        // A man on its own promotion row, and a board without pieces, are no positions.
        let man_on_1 = format!("pos pos=Bw{}", "e".repeat(31));
        let err = Command::parse(&man_on_1).unwrap_err().to_string();
        assert!(err.contains("white man on 1"), "{err}");
        let empty = format!("pos pos=W{}", "e".repeat(32));
        let err = Command::parse(&empty).unwrap_err().to_string();
        assert!(err.contains("no pieces"), "{err}");
        assert!(matches!(
            Command::parse("pos"),
            Err(Error::MissingArgument { .. })
        ));
    }

    #[test]
    fn every_level_form() {
        assert_eq!(parse("level depth=7"), Command::Level(Limits::depth(7)));
        assert_eq!(
            parse("level nodes=5000"),
            Command::Level(Limits::nodes(5000))
        );
        assert_eq!(
            parse("level move-time=0.5"),
            Command::Level(Limits::move_time(Duration::from_millis(500)))
        );
        assert_eq!(parse("level infinite"), Command::Level(Limits::infinite()));
        let Command::Level(l) = parse("level moves=20 time=60 inc=2") else {
            panic!()
        };
        assert_eq!(
            l.time,
            TimeControl::Clock(Clock {
                time: Duration::from_secs(62),
                increment: Duration::from_secs(2),
                moves_to_go: Some(20)
            })
        );
        assert_eq!(parse("level depth=3 nodes=9").to_owned(), {
            Command::Level(Limits {
                depth: Some(3),
                nodes: Some(9),
                time: TimeControl::None,
            })
        });
    }

    #[test]
    fn negative_time_is_clamped() {
        let Command::Level(l) = parse("level time=-3.5 inc=1") else {
            panic!()
        };
        let TimeControl::Clock(c) = l.time else {
            panic!()
        };
        assert_eq!(c.time, Duration::ZERO);
        assert_eq!(c.increment, Duration::ZERO);
        let Command::Level(l) = parse("level time=-0.3 inc=0.5") else {
            panic!()
        };
        let TimeControl::Clock(c) = l.time else {
            panic!()
        };
        assert_eq!(c.time, Duration::from_millis(200));
        assert_eq!(c.increment, Duration::from_millis(100));
    }

    #[test]
    fn bad_levels_are_refused() {
        for bad in [
            "level",
            "level depth=x",
            "level depth=0",
            "level depth=-2",
            "level time=nan",
            "level time=inf",
            "level move-time=abc",
            "level move-time=-1",
            "level time=5 inc=-1",
        ] {
            assert!(Command::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn times_beyond_a_year_count_as_a_year() {
        assert_eq!(
            parse("level move-time=1e308"),
            Command::Level(Limits::move_time(Limits::MAX_TIME))
        );
        let Command::Level(l) = parse("level time=1e20 inc=1e300") else {
            panic!()
        };
        let TimeControl::Clock(c) = l.time else {
            panic!()
        };
        assert_eq!(c.time, Limits::MAX_TIME);
        assert_eq!(c.increment, Limits::MAX_TIME);
    }

    #[test]
    fn unknown_commands_and_go_modes_are_refused() {
        assert!(matches!(
            Command::parse("fly"),
            Err(Error::UnknownCommand { .. })
        ));
        assert!(matches!(
            Command::parse("go fast"),
            Err(Error::BadValue { .. })
        ));
        assert!(is_go("go fast"));
        assert!(!is_go("gone"));
    }
}
