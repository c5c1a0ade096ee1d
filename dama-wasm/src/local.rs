//! `dama serve`'s JSON API for games against the computer kept in the browser: the page's
//! `api.js` sends here what it would send the server when there is none (a static copy of
//! the page, or no network), and gets the same answers, built from the same views
//! (`dama_play::view`). The game itself is kept by the page (in its local storage) as a
//! record, given with each request and returned changed:
//! `{"variant", "start_fen", "moves": [Hub texts], "level", "scored_level", "human"}`.
//!
//! A request is `{"cmd": "api", "method", "path", "body"?, "record"?, "id"?}` (`id`: the new
//! game's, for `POST /api/games`); the answer is `{"status", "body", "id", "record"}`, with
//! `record` null once the game is deleted. Games between people need the server: they are
//! refused with 503 `needs_server`.

use dama_play::view::{
    self, move_of_path, move_of_text, move_view, names, piece_view, rules_view, shown, GameView,
    Refusal,
};
use dama_play::Model;
use dama_rules::notation::{self, fen};
use dama_rules::{Color, Game, Move, Position, Square, Variant};
use dama_search::{ChaCha8Rng, Level, Limits, SeedableRng, Signals};
use serde_json::{json, Map, Value};

use crate::request::{excerpt, Request};
use crate::HARD_TIME;

/// An API answer: a status and a JSON body.
struct Answer {
    status: u16,
    body: Value,
}

fn answer(status: u16, body: impl serde::Serialize) -> Answer {
    Answer {
        status,
        body: serde_json::to_value(body).unwrap_or(Value::Null),
    }
}

fn refused(status: u16, code: &str, message: impl Into<String>) -> Answer {
    Answer {
        status,
        body: json!({ "error": { "code": code, "message": message.into() } }),
    }
}

impl From<Refusal> for Answer {
    fn from(r: Refusal) -> Answer {
        let mut error = json!({ "code": r.code, "message": r.message });
        if let Some(reason) = r.reason {
            error["reason"] = serde_json::to_value(*reason).unwrap_or(Value::Null);
        }
        Answer {
            status: r.status,
            body: json!({ "error": error }),
        }
    }
}

/// A game kept by the page, read back from its record.
struct Kept {
    model: Model,
}

impl Kept {
    fn read(record: &Value) -> Result<Kept, String> {
        let text = |name: &str| {
            record
                .get(name)
                .and_then(Value::as_str)
                .ok_or_else(|| format!("the game's record has no {name}"))
        };
        let variant: Variant = text("variant")?.parse().map_err(|e| format!("{e}"))?;
        let start = fen::parse(text("start_fen")?).map_err(|e| e.to_string())?;
        let level: Level = text("level")?.parse().map_err(|e| format!("{e}"))?;
        let scored: Level = text("scored_level")?.parse().map_err(|e| format!("{e}"))?;
        let human = match text("human")? {
            "black" => Color::Black,
            _ => Color::White,
        };
        let mut pos = start;
        let mut moves = Vec::new();
        for m in record
            .get("moves")
            .and_then(Value::as_array)
            .ok_or("the game's record has no moves")?
        {
            let m = m
                .as_str()
                .ok_or("a move of the game's record is not text")?;
            let m = notation::parse_move_for(variant, &pos, m).map_err(|e| e.to_string())?;
            pos.play_unchecked(m);
            moves.push(m);
        }
        let model = Model::new(variant, start, level)
            .playing(human)
            .resume(&moves, level, scored)
            .map_err(|e| e.to_string())?;
        Ok(Kept { model })
    }

    fn record(&self) -> Value {
        let game = self.model.game();
        json!({
            "variant": game.variant().name(),
            "start_fen": fen::write(game.start()),
            "moves": game.moves().iter().map(Move::to_string).collect::<Vec<_>>(),
            "level": self.model.level().name(),
            "scored_level": self.model.scored_level().name(),
            "human": self.model.human().name(),
        })
    }
}

/// The query parameter `name` of `query` (`a=1&b=2`), percent-decoded.
fn param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == name).then(|| decode(v))
    })
}

fn decode(text: &str) -> String {
    let hex = |b: u8| char::from(b).to_digit(16);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let pair = (b == b'%')
            .then(|| Some((hex(*bytes.get(i + 1)?)?, hex(*bytes.get(i + 2)?)?)))
            .flatten();
        match (b, pair) {
            (_, Some((hi, lo))) => {
                out.push((hi * 16 + lo) as u8);
                i += 2;
            }
            (b'+', None) => out.push(b' '),
            (b, None) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn variant_of(v: Option<&Value>) -> Result<Variant, Answer> {
    Ok(view::variant_of(v)?)
}

fn level_of(v: Option<&Value>) -> Result<Level, Answer> {
    match v {
        None | Some(Value::Null) => Ok(Level::Normal),
        Some(v) => Ok(view::level_of(v)?),
    }
}

fn square_of(v: &Value) -> Result<Square, Answer> {
    Ok(view::square_of(v)?)
}

/// The body's fields, each one known.
fn fields(body: Option<&Value>, known: &[&str]) -> Result<Map<String, Value>, Answer> {
    match body {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => {
            if let Some(k) = m.keys().find(|k| !known.contains(&k.as_str())) {
                return Err(refused(
                    400,
                    "unknown_field",
                    format!(
                        "unknown field \"{}\": expected {}",
                        excerpt(k),
                        known.join(", ")
                    ),
                ));
            }
            Ok(m.clone())
        }
        Some(v) => Err(refused(
            400,
            "malformed_json",
            format!("body {}: expected a JSON object", shown(v)),
        )),
    }
}

/// `GET /api`: the variants, the levels, and no server limits.
fn info() -> Value {
    json!({
        "variants": Variant::ALL.iter().map(|&v| json!({
            "name": v.name(),
            "rules": rules_view(v),
            "mirrored": names::mirrored(v),
            "names": names::all(v),
        })).collect::<Vec<_>>(),
        "levels": Level::ALL.iter().map(|l| json!({ "name": l.name(), "number": l.number() })).collect::<Vec<_>>(),
        "max_games": null,
        "live_games": null,
        "idle_seconds": null,
        "keep_seconds": null,
        "hard_seconds": HARD_TIME.as_secs_f64(),
        "body_limit": null,
        "local": true,
    })
}

/// The game `view` with `targets` for each of the player's pieces (`GET /api/preview`).
fn with_targets(mut view: Value, game: &Game) -> Value {
    let pos = game.position();
    let targets: Map<String, Value> = Square::ALL
        .into_iter()
        .filter(|&sq| pos.piece_at(sq).is_some_and(|p| p.color == pos.turn()))
        .map(|sq| {
            let v = serde_json::to_value(piece_view(game, sq)).unwrap_or(Value::Null);
            (sq.number().to_string(), v)
        })
        .collect();
    view["targets"] = Value::Object(targets);
    view
}

/// Answers an API request of the page for a game kept in the browser (see the module's
/// documentation); `engine` searches the computer's move when the page sends none.
pub(crate) fn api(engine: &mut dama_search::Engine, r: &Request) -> Result<Value, String> {
    let method = r.text("method")?.unwrap_or("GET").to_ascii_uppercase();
    let path = r
        .text("path")?
        .ok_or("api needs a path, such as \"/api\"")?;
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let id = match (r.text("id")?, path.strip_prefix("/api/games/")) {
        (Some(id), _) => id.to_string(),
        (None, Some(rest)) => decode(rest.split('/').next().unwrap_or("")),
        (None, None) => String::new(),
    };
    let record = r.get("record");
    let kept = record.map(Kept::read).transpose()?;
    let body = r.get("body");
    let (answer, kept) = route(engine, &method, path, query, &id, body, kept);
    let record = match &kept {
        Some(k) => k.record(),
        None => Value::Null,
    };
    Ok(json!({
        "status": answer.status,
        "body": answer.body,
        "id": id,
        "record": record,
    }))
}

fn route(
    engine: &mut dama_search::Engine,
    method: &str,
    path: &str,
    query: &str,
    id: &str,
    body: Option<&Value>,
    kept: Option<Kept>,
) -> (Answer, Option<Kept>) {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let result = match (method, segments.as_slice()) {
        ("GET", ["api"]) => Ok(Answer {
            status: 200,
            body: info(),
        }),
        ("GET", ["api", "preview"]) => preview(query),
        ("GET", ["api", "me"]) => Err(refused(
            503,
            "needs_server",
            "the players' records are kept by the dama server: this page runs without one",
        )),
        ("POST", ["api", "games"]) => {
            return match new_game(id, body) {
                Ok((a, k)) => (a, Some(k)),
                Err(a) => (a, kept),
            }
        }
        (_, ["api", "games", _, ..]) => {
            let Some(mut k) = kept else {
                return (
                    refused(
                        404,
                        "unknown_game",
                        format!("no game {}: it is not kept in this browser", excerpt(id)),
                    ),
                    None,
                );
            };
            let a = match (method, &segments[3..]) {
                ("DELETE", []) => {
                    return (
                        Answer {
                            status: 204,
                            body: Value::Null,
                        },
                        None,
                    )
                }
                ("GET", []) => Ok(answer(200, GameView::of(id.to_string(), &k.model))),
                (_, [action]) => game_action(engine, method, action, query, id, body, &mut k),
                _ => Err(refused(
                    404,
                    "not_found",
                    format!("no such request here: {method} {}", excerpt(path)),
                )),
            };
            return (a.unwrap_or_else(|a| a), Some(k));
        }
        (_, ["api", "reviews"]) | (_, ["api", "analysis"]) => Err(refused(
            503,
            "needs_server",
            "reviews are made by the dama server: this page runs without one",
        )),
        _ => Err(refused(
            404,
            "not_found",
            format!("no such request here: {method} {}", excerpt(path)),
        )),
    };
    (result.unwrap_or_else(|a| a), kept)
}

fn preview(query: &str) -> Result<Answer, Answer> {
    let variant = variant_of(param(query, "variant").map(Value::String).as_ref())?;
    let level = level_of(param(query, "level").map(Value::String).as_ref())?;
    let model = Model::new(variant, Position::start(), level);
    let view = serde_json::to_value(GameView::of(String::new(), &model)).unwrap_or(Value::Null);
    Ok(Answer {
        status: 200,
        body: with_targets(view, model.game()),
    })
}

fn new_game(id: &str, body: Option<&Value>) -> Result<(Answer, Kept), Answer> {
    let f = fields(body, &["variant", "level", "seed", "fen", "opponent"])?;
    match f.get("opponent") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s == "computer" => {}
        Some(Value::String(s)) if s == "friend" || s == "pass" => {
            return Err(refused(
                503,
                "needs_server",
                "a game between people is relayed by the dama server: this page runs without \
                 one, so only games against the computer can be played here",
            ))
        }
        Some(v) => {
            return Err(refused(
                400,
                "bad_opponent",
                format!(
                    "opponent {}: expected \"computer\", \"friend\" or \"pass\"",
                    shown(v)
                ),
            ))
        }
    }
    if id.is_empty() {
        return Err(refused(400, "bad_request", "a new game needs an id"));
    }
    let variant = variant_of(f.get("variant"))?;
    let level = level_of(f.get("level"))?;
    let start = match f.get("fen") {
        None | Some(Value::Null) => Position::start(),
        Some(Value::String(text)) => {
            fen::parse(text).map_err(|e| refused(400, "bad_fen", e.to_string()))?
        }
        Some(v) => {
            return Err(refused(
                400,
                "bad_fen",
                format!("fen {}: expected text like \"W:W21-32:B1-12\"", shown(v)),
            ))
        }
    };
    let kept = Kept {
        model: Model::new(variant, start, level),
    };
    let mut view =
        serde_json::to_value(GameView::of(id.to_string(), &kept.model)).unwrap_or(Value::Null);
    view["secret"] = json!("local");
    Ok((
        Answer {
            status: 201,
            body: view,
        },
        kept,
    ))
}

/// `.../targets`, `.../move`, `.../reply`, `.../level` and the friend actions.
fn game_action(
    engine: &mut dama_search::Engine,
    method: &str,
    action: &str,
    query: &str,
    id: &str,
    body: Option<&Value>,
    k: &mut Kept,
) -> Result<Answer, Answer> {
    let over = |k: &Kept| {
        if k.model.outcome().is_some() {
            Err(refused(409, "game_over", "the game is over"))
        } else {
            Ok(())
        }
    };
    match (method, action) {
        ("GET", "targets") => {
            let text = param(query, "square").ok_or_else(|| {
                refused(
                    400,
                    "bad_square",
                    "which square? add ?square=N (N in 1..32) to the address",
                )
            })?;
            let sq = square_of(&Value::String(text))?;
            over(k)?;
            if !k.model.human_to_move() {
                return Err(refused(
                    409,
                    "not_your_turn",
                    "it is the computer's turn: wait for its move",
                ));
            }
            Ok(answer(200, piece_view(k.model.game(), sq)))
        }
        ("POST", "move") => {
            let f = fields(body, &["path", "move"])?;
            over(k)?;
            if !k.model.human_to_move() {
                return Err(refused(
                    409,
                    "not_your_turn",
                    "it is the computer's turn: wait for its move",
                ));
            }
            let g = k.model.game();
            let m = match (f.get("path"), f.get("move")) {
                (Some(Value::Array(items)), None) if items.len() <= 32 => {
                    let squares = items.iter().map(square_of).collect::<Result<Vec<_>, _>>()?;
                    move_of_path(g, &squares)?
                }
                (None, Some(Value::String(text))) => move_of_text(g, text)?,
                _ => {
                    return Err(refused(
                        400,
                        "bad_request",
                        "which move? send {\"path\": [22, 18]} or {\"move\": \"22-18\"}",
                    ))
                }
            };
            played(k, m, false, id)
        }
        ("POST", "reply") => {
            let f = fields(body, &["move"])?;
            over(k)?;
            if !k.model.computer_to_move() {
                return Err(refused(
                    409,
                    "not_computer_turn",
                    "it is your turn: play a move first (POST .../move)",
                ));
            }
            let m = match f.get("move") {
                Some(Value::String(text)) => move_of_text(k.model.game(), text)?,
                None => search(engine, &k.model)?,
                Some(v) => {
                    return Err(refused(
                        400,
                        "malformed_move",
                        format!("move {}: expected text like \"22-18\"", shown(v)),
                    ))
                }
            };
            played(k, m, true, id)
        }
        ("POST", "level") => {
            let f = fields(body, &["level"])?;
            let level = level_of(Some(f.get("level").ok_or_else(|| {
                refused(
                    400,
                    "bad_level",
                    "which level? send {\"level\": \"easy\"} or a number 1..5",
                )
            })?))?;
            k.model.set_level(level);
            Ok(answer(200, GameView::of(id.to_string(), &k.model)))
        }
        ("POST", "resign" | "draw" | "rematch") => Err(refused(
            409,
            "not_a_friend_game",
            "only a game between friends is resigned, drawn by agreement or played again",
        )),
        _ => Err(refused(
            404,
            "not_found",
            format!("no such request here: {method} .../{}", excerpt(action)),
        )),
    }
}

/// The computer's move at the game's level, searched here.
fn search(engine: &mut dama_search::Engine, model: &Model) -> Result<Move, Answer> {
    let level = model.level();
    let limits = if level == Level::Hard {
        Limits::move_time(HARD_TIME)
    } else {
        Limits::infinite()
    };
    let seed = model.game().moves().len() as u64 ^ 0x5eed;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let result = engine.play_level_with(
        model.game(),
        level,
        &limits,
        &Signals::default(),
        &mut rng,
        &mut |_| {},
    );
    result
        .best
        .ok_or_else(|| refused(409, "game_over", "the computer has no move"))
}

/// Plays `m` (the player's, or the computer's when `computer`) and answers as the server.
fn played(k: &mut Kept, m: Move, computer: bool, id: &str) -> Result<Answer, Answer> {
    let variant = k.model.game().variant();
    let before = *k.model.game().position();
    let landing = dama_play::view::landing_path(variant, &before, m);
    let done = if computer {
        k.model.computer_moved(m)
    } else {
        k.model.play_own(m)
    };
    done.map_err(|e| refused(422, "illegal_move", e.to_string()))?;
    Ok(answer(
        200,
        json!({
            "played": move_view(variant, &before, m, &landing),
            "game": GameView::of(id.to_string(), &k.model),
        }),
    ))
}
