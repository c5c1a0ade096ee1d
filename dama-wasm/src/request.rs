//! A request read from its JSON text, every field checked: a wrong type, a value out of
//! range or a field the command does not take is an error quoting it.

use std::time::Duration;

use dama_rules::notation::fen;
use dama_rules::{Game, Position, Square, Variant};
use dama_search::{Level, Limits};
use serde_json::{Map, Value};

/// The fields each command takes (besides `cmd`).
const FIELDS: [(&str, &[&str]); 14] = [
    ("version", &[]),
    ("review", &["pdn", "variant", "depth", "nodes"]),
    ("api", &["method", "path", "body", "record", "id"]),
    ("moves", &["variant", "fen", "moves"]),
    ("fen", &["variant", "fen", "moves"]),
    ("explain", &["variant", "fen", "moves", "square", "move"]),
    ("perft", &["variant", "fen", "depth"]),
    ("bench", &["depth", "knobs"]),
    (
        "play",
        &[
            "variant", "fen", "moves", "level", "seed", "depth", "nodes", "time_ms",
        ],
    ),
    (
        "analyse",
        &[
            "variant", "fen", "moves", "depth", "nodes", "time_ms", "multipv", "knobs",
        ],
    ),
    (
        "analyze",
        &[
            "variant", "fen", "moves", "depth", "nodes", "time_ms", "multipv",
        ],
    ),
    ("new-game", &[]),
    ("tables", &[]),
    ("options", &["hash_mib"]),
];

/// The longest piece of input an error quotes.
const QUOTE: usize = 60;

/// `text`, cut to a length an error message can quote.
pub(crate) fn excerpt(text: &str) -> String {
    match text.char_indices().nth(QUOTE) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// A request: its command and its fields.
#[derive(Clone, Debug)]
pub struct Request {
    /// The command.
    pub cmd: String,
    fields: Map<String, Value>,
}

impl Request {
    /// Reads a request from its JSON text.
    ///
    /// # Errors
    /// Not JSON, not an object, no `cmd`, or a field its command does not take.
    pub fn parse(text: &str) -> Result<Request, String> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| format!("request \"{}\" is not JSON: {e}", excerpt(text)))?;
        let Value::Object(mut fields) = value else {
            return Err(format!(
                "request \"{}\": expected a JSON object such as {{\"cmd\":\"moves\"}}",
                excerpt(text)
            ));
        };
        let cmd = match fields.remove("cmd") {
            Some(Value::String(s)) => s,
            Some(other) => {
                return Err(format!(
                    "cmd {}: expected a command name (a string)",
                    excerpt(&other.to_string())
                ))
            }
            None => {
                return Err("the request has no \"cmd\": expected e.g. {\"cmd\":\"moves\"}".into())
            }
        };
        if let Some((_, allowed)) = FIELDS.iter().find(|(c, _)| *c == cmd) {
            if let Some(bad) = fields.keys().find(|k| !allowed.contains(&k.as_str())) {
                let expected = if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                };
                return Err(format!(
                    "{cmd}: unknown option \"{}\": expected {expected}",
                    excerpt(bad)
                ));
            }
        }
        Ok(Request { cmd, fields })
    }

    /// A field's value (none when missing or null).
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        self.fields.get(name).filter(|v| !v.is_null())
    }

    /// A string field.
    pub(crate) fn text(&self, name: &str) -> Result<Option<&str>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(format!(
                "{name} {}: expected a string",
                excerpt(&v.to_string())
            )),
        }
    }

    /// A whole-number field within `lo..=hi`.
    fn number(&self, name: &str, lo: u64, hi: u64, what: &str) -> Result<Option<u64>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => match v.as_u64().filter(|n| (lo..=hi).contains(n)) {
                Some(n) => Ok(Some(n)),
                None => Err(format!(
                    "{name} {}: expected {what} from {lo} to {hi}",
                    excerpt(&v.to_string())
                )),
            },
        }
    }

    /// The rules: `variant`, Italian by default.
    pub(crate) fn variant(&self) -> Result<Variant, String> {
        match self.text("variant")? {
            None => Ok(Variant::Italian),
            Some(name) => name.parse().map_err(|_| {
                let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
                format!(
                    "variant \"{}\": expected one of {}",
                    excerpt(name),
                    names.join(", ")
                )
            }),
        }
    }

    /// The game: the position `fen` (the variant's start by default) and the `moves` played
    /// from it, each checked by the rules.
    pub(crate) fn game(&self) -> Result<Game, String> {
        let variant = self.variant()?;
        let start = match self.text("fen")? {
            None => Position::start(),
            Some(text) => fen::parse(text).map_err(|e| e.to_string())?,
        };
        let mut game = Game::from_position(variant, start);
        let moves = match self.get("moves") {
            None => return Ok(game),
            Some(Value::Array(list)) => list,
            Some(Value::String(s)) => {
                for (i, text) in s.split_whitespace().enumerate() {
                    play(&mut game, i, text)?;
                }
                return Ok(game);
            }
            Some(v) => {
                return Err(format!(
                    "moves {}: expected a list of moves such as [\"22-18\", \"10-14\"]",
                    excerpt(&v.to_string())
                ))
            }
        };
        for (i, m) in moves.iter().enumerate() {
            let Value::String(text) = m else {
                return Err(format!(
                    "move {} of the game, {}: expected a move text such as \"22-18\"",
                    i + 1,
                    excerpt(&m.to_string())
                ));
            };
            play(&mut game, i, text)?;
        }
        Ok(game)
    }

    /// The level: `level`, a name or a number 1 to 5.
    pub(crate) fn level(&self) -> Result<Level, String> {
        match self.get("level") {
            None => Err("play needs a level: novice, easy, normal, strong or hard".into()),
            Some(Value::String(s)) => s.parse().map_err(|_| {
                format!(
                    "level \"{}\": expected novice, easy, normal, strong or hard (or 1 to 5)",
                    excerpt(s)
                )
            }),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .and_then(Level::from_number)
                .ok_or_else(|| {
                    format!(
                        "level {}: expected novice, easy, normal, strong or hard (or 1 to 5)",
                        excerpt(&v.to_string())
                    )
                }),
        }
    }

    /// The seed of a level's choice among its good moves (0 by default).
    pub(crate) fn seed(&self) -> Result<u64, String> {
        Ok(self
            .number("seed", 0, u64::from(u32::MAX) * 2048, "a whole number")?
            .unwrap_or(0))
    }

    /// `depth`, or `default`.
    pub(crate) fn depth_or(&self, default: u32) -> Result<u32, String> {
        let max = u64::from(Limits::MAX_DEPTH);
        Ok(self
            .number("depth", 0, max, "a depth")?
            .map_or(default, |d| d as u32))
    }

    /// The search limits the request gives (`depth`, `nodes`, `time_ms`), if any.
    pub(crate) fn limits(&self) -> Result<Option<Limits>, String> {
        let max = u64::from(Limits::MAX_DEPTH);
        let depth = self.number("depth", 1, max, "a depth")?;
        let nodes = self.number("nodes", 1, 1 << 50, "a node count")?;
        let time = self.number("time_ms", 1, 24 * 3_600_000, "milliseconds")?;
        if depth.is_none() && nodes.is_none() && time.is_none() {
            return Ok(None);
        }
        let mut limits = Limits::infinite();
        limits.depth = depth.map(|d| d as u32);
        limits.nodes = nodes;
        if let Some(ms) = time {
            limits = limits.with_time(Duration::from_millis(ms));
        }
        Ok(Some(limits))
    }

    /// The lines of an analysis (1 by default).
    pub(crate) fn multipv(&self) -> Result<usize, String> {
        Ok(self
            .number("multipv", 1, 64, "a number of lines")?
            .map_or(1, |n| n as usize))
    }

    /// A square, 1 to 32.
    pub(crate) fn square(&self) -> Result<Option<Square>, String> {
        Ok(self
            .number("square", 1, 32, "a square")?
            .and_then(|n| Square::new(n as u8)))
    }

    /// The search's switches (`dama bench --knobs`), for measurements: not a stable interface.
    pub(crate) fn knobs(&self) -> Result<dama_search::Knobs, String> {
        match self.text("knobs")? {
            None => Ok(dama_search::Knobs::default()),
            Some(text) => text
                .parse()
                .map_err(|e| format!("knobs \"{}\": {e}", excerpt(text))),
        }
    }

    /// The table's size in MiB.
    pub(crate) fn hash_mib(&self) -> Result<Option<usize>, String> {
        Ok(self
            .number("hash_mib", 1, crate::MAX_HASH_MIB as u64, "MiB")?
            .map(|n| n as usize))
    }
}

/// Plays move `i` (from 0) of a game's history, or says why it cannot be played.
fn play(game: &mut Game, i: usize, text: &str) -> Result<(), String> {
    let before = game.clone();
    game.play_text(text).map(|_| ()).map_err(|e| {
        format!(
            "move {} of the game: {}",
            i + 1,
            dama_play::refusal(&before, &e)
        )
    })
}
