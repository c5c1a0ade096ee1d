//! The lines the engine sends, written so that strict clients can read them: every token
//! after the command word is `key=value`.

use std::fmt;
use std::time::Duration;

use dama_rules::Move;
use dama_search::{Info, Score};

use crate::lexer::quote;

/// The type of a declared parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// An integer in `min..=max`.
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// `true` or `false`.
    Bool,
    /// Any text.
    String,
    /// One of a list of words.
    Enum {
        /// The words.
        values: Vec<String>,
    },
}

/// One search report for the `info` line.
#[derive(Clone, Debug, PartialEq)]
pub struct InfoLine {
    /// Completed depth.
    pub depth: u32,
    /// Which line, when several are searched (printed only when above 1).
    pub multipv: usize,
    /// The score for the side to move.
    pub score: Score,
    /// Nodes searched.
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Nodes per second.
    pub nps: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
}

impl From<&Info> for InfoLine {
    fn from(i: &Info) -> InfoLine {
        InfoLine {
            depth: i.depth,
            multipv: i.multipv,
            score: i.score,
            nodes: i.nodes,
            time: i.time,
            nps: i.nps,
            pv: i.pv.clone(),
        }
    }
}

/// A line sent by the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    /// `id name=... version=... author=... country=...`.
    Id {
        /// Engine name.
        name: String,
        /// Version.
        version: String,
        /// Author.
        author: String,
        /// Country.
        country: String,
    },
    /// `param name=... value=... type=...`.
    Param {
        /// Parameter name.
        name: String,
        /// Current value.
        value: String,
        /// Its type.
        kind: ParamType,
    },
    /// `wait`: the end of the `hub` answer.
    Wait,
    /// `ready`: the answer to `init`.
    Ready,
    /// `pong`: the answer to `ping`.
    Pong,
    /// `info ...`: search progress.
    Info(InfoLine),
    /// `done [move=...] [ponder=...]`: the end of a search.
    Done {
        /// The move to play, if there is one.
        mv: Option<Move>,
        /// The expected reply.
        ponder: Option<Move>,
    },
    /// `error message="..."`.
    Error(String),
}

impl fmt::Display for Response {
    /// The line, without its newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Id {
                name,
                version,
                author,
                country,
            } => write!(
                f,
                "id name={} version={} author={} country={}",
                quote(name),
                quote(version),
                quote(author),
                quote(country)
            ),
            Response::Param { name, value, kind } => {
                write!(f, "param name={} value={}", quote(name), quote(value))?;
                match kind {
                    ParamType::Int { min, max } => write!(f, " type=int min={min} max={max}"),
                    ParamType::Bool => f.write_str(" type=bool"),
                    ParamType::String => f.write_str(" type=string"),
                    ParamType::Enum { values } => {
                        write!(f, " type=enum values=\"{}\"", values.join(" "))
                    }
                }
            }
            Response::Wait => f.write_str("wait"),
            Response::Ready => f.write_str("ready"),
            Response::Pong => f.write_str("pong"),
            Response::Info(i) => write_info(f, i),
            Response::Done { mv, ponder } => {
                f.write_str("done")?;
                if let Some(m) = mv {
                    write!(f, " move={}", m.hub())?;
                    if let Some(p) = ponder {
                        write!(f, " ponder={}", p.hub())?;
                    }
                }
                Ok(())
            }
            Response::Error(message) => {
                let q = quote(message);
                if q.starts_with('"') {
                    write!(f, "error message={q}")
                } else {
                    write!(f, "error message=\"{q}\"")
                }
            }
        }
    }
}

fn write_info(f: &mut fmt::Formatter<'_>, i: &InfoLine) -> fmt::Result {
    write!(f, "info depth={}", i.depth)?;
    if i.multipv > 1 {
        write!(f, " multipv={}", i.multipv)?;
    }
    let pv: Vec<String> = i.pv.iter().map(|m| m.hub().to_string()).collect();
    write!(
        f,
        " score={:.2} nodes={} time={:.3} nps={} pv=\"{}\"",
        i.score.men(),
        i.nodes,
        i.time.as_secs_f64(),
        i.nps,
        pv.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;
    use dama_rules::Game;

    #[test]
    fn info_has_only_key_value_tokens() {
        let mut game = Game::new();
        let a = game.play_text("22-18").unwrap();
        let b = game.play_text("11-14").unwrap();
        let c = game.play_text("18x11x14").unwrap();
        let line = Response::Info(InfoLine {
            depth: 7,
            multipv: 1,
            score: Score::win_in(7),
            nodes: 1234,
            time: Duration::from_millis(1500),
            nps: 822,
            pv: vec![a, b, c],
        })
        .to_string();
        assert_eq!(
            line,
            "info depth=7 score=99.93 nodes=1234 time=1.500 nps=822 pv=\"22-18 11-14 18x11x14\""
        );
        let lexed = lex(&line).unwrap().unwrap();
        assert!(lexed.tokens.iter().all(|t| t.value.is_some()));
    }

    #[test]
    fn done_error_and_param_lines() {
        let m = Game::new().legal_moves()[0];
        assert_eq!(
            Response::Done {
                mv: Some(m),
                ponder: None
            }
            .to_string(),
            format!("done move={}", m.hub())
        );
        assert_eq!(
            Response::Done {
                mv: None,
                ponder: None
            }
            .to_string(),
            "done"
        );
        assert_eq!(
            Response::Error("move \"1-2\" is bad".into()).to_string(),
            "error message=\"move '1-2' is bad\""
        );
        assert_eq!(
            Response::Error("oops".into()).to_string(),
            "error message=\"oops\""
        );
        assert_eq!(
            Response::Param {
                name: "hash".into(),
                value: "32".into(),
                kind: ParamType::Int { min: 1, max: 4096 }
            }
            .to_string(),
            "param name=hash value=32 type=int min=1 max=4096"
        );
    }
}
