//! The JSON API of `dama serve`: the server owns the rules and the games.
//!
//! Squares are the engine's numbers 1..32 (Italian numbering, 1 at the top left of the
//! unmirrored board); each game's `names` gives the variant's own name of each square.
//!
//! | request | body | answer |
//! | --- | --- | --- |
//! | `GET /api` | | the variants with their rules, the levels, the limits |
//! | `POST /api/games` | `{"variant"?, "level"?, "seed"?, "fen"?}` | 201, the new game |
//! | `GET /api/games/{id}` | | the game |
//! | `DELETE /api/games/{id}` | | 204 |
//! | `GET /api/games/{id}/targets?square=N` | | the piece's moves, or the reason it has none |
//! | `POST /api/games/{id}/move` | `{"path": [from, landing, ...]}` or `{"move": "22-18"}` | the game and the move played |
//! | `POST /api/games/{id}/reply` | | the game after the computer's move, and that move |
//! | `POST /api/games/{id}/level` | `{"level": "easy"}` or `{"level": 2}` | the game |
//!
//! Errors are JSON, `{"error": {"code", "message", "reason"?}}`, with a 4xx status naming
//! the problem: 400 malformed request, 404 unknown game or route, 405 wrong method, 409 not
//! the moment (the computer's turn, the game is over, the computer is thinking), 413 body
//! too large, 422 an illegal move (with the rules' reason), 503 too many live games.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Path, Query};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use dama_rules::explain::Candidate;
use dama_rules::notation::{self, fen};
use dama_rules::{with_rules, Color, Error, Game, Illegal, Move};
use dama_rules::{Position, Square, Variant};
use dama_search::{ChaCha8Rng, Level, SeedableRng};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::assets;
use super::computer::{Computer, HARD_TIME};
use super::error::{method_not_allowed, no_store, not_found, ApiError};
use super::names;
use super::store::{Entry, GameId, Shared, Store};
use super::views::{
    game_view, landing_path, last_computer_view, move_view, numbers, reason_view, rules_view,
    GameView, MoveView, ReasonView, RulesView,
};
use super::Options;
use dama_play::{piece_moves, Model};

/// The largest request body accepted; every request of the API fits in a few hundred bytes.
pub const BODY_LIMIT: usize = 4 * 1024;

/// What every request handler shares.
pub struct State {
    /// The live games.
    pub store: Arc<Store>,
    /// The engines.
    pub computer: Computer,
}

impl State {
    /// The state for `opts`.
    pub fn new(opts: &Options) -> State {
        State {
            store: Arc::new(Store::new(opts.max_games, opts.idle)),
            computer: Computer::new(opts.searchers),
        }
    }
}

type AxState = axum::extract::State<Arc<State>>;

/// The routes: the page, its script and styles, and the API.
pub fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/", get(assets::page))
        .route("/app.js", get(assets::script))
        .route("/style.css", get(assets::styles))
        .route("/api", get(info))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(show).delete(forget))
        .route("/api/games/{id}/targets", get(targets))
        .route("/api/games/{id}/move", post(play))
        .route("/api/games/{id}/reply", post(reply))
        .route("/api/games/{id}/level", post(set_level))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(refuse_announced_large_bodies))
        .with_state(state)
}

/// Refuses a request whose announced length is over [`BODY_LIMIT`] before reading any of
/// it (a body without a length is cut at the limit as it is read, by `DefaultBodyLimit`).
async fn refuse_announced_large_bodies(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match announced {
        Some(n) if n > BODY_LIMIT as u64 => {
            ApiError::rejected(StatusCode::PAYLOAD_TOO_LARGE, String::new()).into_response()
        }
        _ => next.run(req).await,
    }
}

// ---------------------------------------------------------------------------------------
// Request bodies and arguments

/// The JSON object of a request body (an empty body is `{}`), with no fields but `allowed`.
fn body_object(body: &[u8], allowed: &[&str]) -> Result<serde_json::Map<String, Value>, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::Map::new());
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad("malformed_json", format!("the body is not JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(ApiError::bad(
            "malformed_json",
            "the body must be a JSON object, like {\"level\": \"easy\"}",
        ));
    };
    if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(ApiError::bad(
            "unknown_field",
            format!(
                "unknown field {}: expected {}",
                dama_rules::quote(k),
                allowed.join(", ")
            ),
        ));
    }
    Ok(map)
}

/// A short rendering of a JSON value for an error message.
fn shown(v: &Value) -> String {
    dama_rules::quote(&v.to_string()).to_string()
}

fn level_of(v: &Value) -> Result<Level, ApiError> {
    let level = match v {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .and_then(Level::from_number),
        _ => None,
    };
    level.ok_or_else(|| {
        ApiError::bad(
            "bad_level",
            format!(
                "level {}: expected novice, easy, normal, strong, hard or 1..5",
                shown(v)
            ),
        )
    })
}

fn square_of(v: &Value) -> Result<Square, ApiError> {
    let n = match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.and_then(|n| u8::try_from(n).ok())
        .and_then(Square::new)
        .ok_or_else(|| ApiError::bad("bad_square", format!("square {}: expected 1..32", shown(v))))
}

fn game_id(path: Result<Path<String>, PathRejection>) -> Result<GameId, ApiError> {
    let Path(text) = path?;
    GameId::parse(&text).ok_or_else(|| {
        ApiError::bad(
            "bad_game_id",
            format!(
                "game id {}: expected 32 hexadecimal digits",
                dama_rules::quote(&text)
            ),
        )
    })
}

fn find(state: &State, id: GameId) -> Result<Shared, ApiError> {
    state.store.get(id).ok_or_else(|| unknown_game(state, id))
}

fn unknown_game(state: &State, id: GameId) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "unknown_game",
        format!(
            "no game {id}: it never existed, was deleted, or expired after {} s idle",
            state.store.idle().as_secs()
        ),
    )
}

/// Refuses when the player may not act on the game now.
fn players_turn(entry: &Entry) -> Result<(), ApiError> {
    if entry.thinking {
        return Err(ApiError::conflict(
            "computer_thinking",
            "the computer is thinking: wait for its move (POST .../reply)",
        ));
    }
    if let Some(o) = entry.model.outcome() {
        return Err(ApiError::conflict(
            "game_over",
            format!("the game is over ({o}); start a new one"),
        ));
    }
    if !entry.model.human_to_move() {
        return Err(ApiError::conflict(
            "not_your_turn",
            "it is the computer's turn: ask for its move (POST .../reply)",
        ));
    }
    Ok(())
}

fn ok<T: Serialize>(status: StatusCode, body: T) -> Response {
    (status, no_store(), Json(body)).into_response()
}

// ---------------------------------------------------------------------------------------
// Handlers

#[derive(Serialize)]
struct VariantInfo {
    name: &'static str,
    rules: RulesView,
    mirrored: bool,
}

#[derive(Serialize)]
struct LevelInfo {
    name: &'static str,
    number: u32,
}

#[derive(Serialize)]
struct Info {
    variants: Vec<VariantInfo>,
    levels: Vec<LevelInfo>,
    max_games: usize,
    live_games: usize,
    idle_seconds: u64,
    hard_seconds: f64,
    body_limit: usize,
}

async fn info(axum::extract::State(state): AxState) -> Response {
    let info = Info {
        variants: Variant::ALL
            .iter()
            .map(|&v| VariantInfo {
                name: v.name(),
                rules: rules_view(v),
                mirrored: names::mirrored(v),
            })
            .collect(),
        levels: Level::ALL
            .iter()
            .map(|&l| LevelInfo {
                name: l.name(),
                number: l.number(),
            })
            .collect(),
        max_games: state.store.cap(),
        live_games: state.store.len(),
        idle_seconds: state.store.idle().as_secs(),
        hard_seconds: HARD_TIME.as_secs_f64(),
        body_limit: BODY_LIMIT,
    };
    ok(StatusCode::OK, info)
}

async fn new_game(
    axum::extract::State(state): AxState,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = body?;
    let fields = body_object(&body, &["variant", "level", "seed", "fen"])?;
    let variant = match fields.get("variant") {
        None | Some(Value::Null) => Variant::Italian,
        Some(Value::String(s)) => s
            .parse()
            .map_err(|e: Error| ApiError::bad("bad_variant", e.to_string()))?,
        Some(v) => {
            return Err(ApiError::bad(
                "bad_variant",
                format!("variant {}: expected a name such as \"italian\"", shown(v)),
            ))
        }
    };
    let level = match fields.get("level") {
        None | Some(Value::Null) => Level::Normal,
        Some(v) => level_of(v)?,
    };
    let seed = match fields.get("seed") {
        None | Some(Value::Null) => rand::random(),
        Some(v) => v.as_u64().ok_or_else(|| {
            ApiError::bad(
                "bad_seed",
                format!("seed {}: expected a whole number 0..2^64", shown(v)),
            )
        })?,
    };
    let start = match fields.get("fen") {
        None | Some(Value::Null) => Position::start(),
        Some(Value::String(text)) => start_position(text)?,
        Some(v) => {
            return Err(ApiError::bad(
                "bad_fen",
                format!("fen {}: expected text like \"W:W21-32:B1-12\"", shown(v)),
            ))
        }
    };
    let entry = Entry {
        model: Model::new(variant, start, level),
        rng: ChaCha8Rng::seed_from_u64(seed),
        thinking: false,
    };
    let (id, game) = state.store.insert(entry).map_err(|full| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_games",
            format!(
                "{} games are in play, the most this server keeps; try again when one has \
                 ended or expired",
                full.cap
            ),
        )
    })?;
    tracing::info!(%id, variant = variant.name(), level = level.name(), "new game");
    let entry = game.lock().await;
    Ok(ok(StatusCode::CREATED, game_view(id, &entry, None)))
}

/// A start position given as FEN: the player has the light pieces, so White is to move.
fn start_position(text: &str) -> Result<Position, ApiError> {
    let pos = fen::parse(text).map_err(|e| ApiError::bad("bad_fen", e.to_string()))?;
    if pos.turn() != Color::White {
        return Err(ApiError::bad(
            "bad_fen",
            format!(
                "fen {}: the player has the light pieces and moves first, so White must be to move",
                dama_rules::quote(text)
            ),
        ));
    }
    Ok(pos)
}

async fn show(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    let game = find(&state, id)?;
    let entry = game.lock().await;
    let last = last_computer_view(&entry);
    Ok(ok(StatusCode::OK, game_view(id, &entry, last)))
}

async fn forget(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    if state.store.remove(id) {
        tracing::info!(%id, "game deleted");
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(unknown_game(&state, id))
    }
}

#[derive(Deserialize)]
struct TargetsQuery {
    square: Option<String>,
}

#[derive(Serialize)]
struct PieceMove {
    #[serde(flatten)]
    mv: MoveView,
    /// Every landing path the move may take (usually one).
    paths: Vec<Vec<u8>>,
}

#[derive(Serialize)]
struct TargetsView {
    square: u8,
    moves: Vec<PieceMove>,
    /// The squares the piece may land on first.
    targets: Vec<u8>,
    reason: Option<ReasonView>,
}

async fn targets(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<TargetsQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    let Query(query) = query?;
    let text = query.square.ok_or_else(|| {
        ApiError::bad(
            "bad_square",
            "which square? add ?square=N (N in 1..32) to the address",
        )
    })?;
    let sq = square_of(&Value::String(text))?;
    let game = find(&state, id)?;
    let entry = game.lock().await;
    players_turn(&entry)?;
    let g = entry.model.game();
    let variant = g.variant();
    let view = match piece_moves(variant, g.position(), sq) {
        Ok(list) => {
            let mut targets: Vec<u8> = list
                .iter()
                .flat_map(|(_, paths)| paths.iter().filter_map(|p| p.first()))
                .map(|s| s.number())
                .collect();
            targets.sort_unstable();
            targets.dedup();
            let moves = list
                .into_iter()
                .map(|(m, paths)| PieceMove {
                    mv: move_view(
                        variant,
                        g.position(),
                        m,
                        paths.first().map_or(&[], Vec::as_slice),
                    ),
                    paths: paths.into_iter().map(numbers).collect(),
                })
                .collect();
            TargetsView {
                square: sq.number(),
                moves,
                targets,
                reason: None,
            }
        }
        Err(why) => TargetsView {
            square: sq.number(),
            moves: Vec::new(),
            targets: Vec::new(),
            reason: Some(reason_view(g, &why)),
        },
    };
    Ok(ok(StatusCode::OK, view))
}

#[derive(Serialize)]
struct Played {
    played: MoveView,
    game: GameView,
}

/// The legal move the player's `path` (start, then landing squares) names.
fn move_of_path(game: &Game, path: &[Square]) -> Result<Move, ApiError> {
    let (&from, landings) = path.split_first().ok_or_else(|| {
        ApiError::bad(
            "bad_path",
            "the path is empty: expected the start square and at least one landing square",
        )
    })?;
    let &last = landings.last().ok_or_else(|| {
        ApiError::bad(
            "bad_path",
            format!("the path has only the start square {from}: add where the piece goes"),
        )
    })?;
    let variant = game.variant();
    let pos = game.position();
    let list = piece_moves(variant, pos, from)
        .map_err(|why| ApiError::illegal(reason_view(game, &why)))?;
    let exact: Vec<Move> = list
        .iter()
        .filter(|(_, paths)| paths.iter().any(|p| p == landings))
        .map(|(m, _)| *m)
        .collect();
    // A start and an end alone name a capture when only one capture goes there.
    let short: Vec<Move> = if landings.len() == 1 {
        list.iter()
            .filter(|(m, _)| m.to() == last)
            .map(|(m, _)| *m)
            .collect()
    } else {
        Vec::new()
    };
    let found = if exact.is_empty() { short } else { exact };
    match found.as_slice() {
        [m] => Ok(*m),
        [] => {
            let candidate = Candidate {
                from,
                to: last,
                captured: None,
            };
            let why = with_rules!(variant, R => pos.explain_move::<R>(candidate)).err();
            let why = why.unwrap_or_else(|| Illegal::NoSuchMove {
                square: from,
                moves: list.iter().map(|(m, _)| *m).collect(),
            });
            Err(ApiError::illegal(reason_view(game, &why)))
        }
        several => {
            let texts: Vec<String> = several
                .iter()
                .map(|&m| names::move_text(variant, m, &landing_path(variant, pos, m)))
                .collect();
            Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "ambiguous_move",
                format!(
                    "{} captures go from {from} to {last}: give the landing squares ({})",
                    several.len(),
                    texts.join(", ")
                ),
            ))
        }
    }
}

/// The legal move written `text` (Hub or PDN, the engine's numbers).
fn move_of_text(game: &Game, text: &str) -> Result<Move, ApiError> {
    notation::parse_move_for(game.variant(), game.position(), text).map_err(|err| match err {
        Error::IllegalMove { why, .. } => ApiError::illegal(reason_view(game, &why)),
        Error::AmbiguousMove { .. } => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "ambiguous_move",
            err.to_string(),
        ),
        other => ApiError::bad("malformed_move", other.to_string()),
    })
}

async fn play(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    let body = body?;
    let fields = body_object(&body, &["path", "move"])?;
    let game = find(&state, id)?;
    let mut entry = game.lock().await;
    players_turn(&entry)?;
    let g = entry.model.game();
    let m = match (fields.get("path"), fields.get("move")) {
        (Some(Value::Array(items)), None) => {
            if items.len() > 32 {
                return Err(ApiError::bad(
                    "bad_path",
                    format!("a path of {} squares is longer than any move", items.len()),
                ));
            }
            let squares = items.iter().map(square_of).collect::<Result<Vec<_>, _>>()?;
            move_of_path(g, &squares)?
        }
        (None, Some(Value::String(text))) => move_of_text(g, text)?,
        (Some(v), None) => {
            return Err(ApiError::bad(
                "bad_path",
                format!(
                    "path {}: expected a list of squares like [22, 18]",
                    shown(v)
                ),
            ))
        }
        (None, Some(v)) => {
            return Err(ApiError::bad(
                "malformed_move",
                format!("move {}: expected text like \"22-18\"", shown(v)),
            ))
        }
        (Some(_), Some(_)) => {
            return Err(ApiError::bad(
                "bad_request",
                "give either \"path\" or \"move\", not both",
            ))
        }
        (None, None) => {
            return Err(ApiError::bad(
                "bad_request",
                "which move? send {\"path\": [22, 18]} or {\"move\": \"22-18\"}",
            ))
        }
    };
    let variant = g.variant();
    let before = *g.position();
    let landing = landing_path(variant, &before, m);
    entry
        .model
        .play_own(m)
        .map_err(|e| ApiError::illegal_text(e.to_string()))?;
    tracing::debug!(%id, mv = %m, "player moved");
    let played = move_view(variant, &before, m, &landing);
    let last = last_computer_view(&entry);
    Ok(ok(
        StatusCode::OK,
        Played {
            played,
            game: game_view(id, &entry, last),
        },
    ))
}

async fn reply(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    body_object(&body?, &[])?;
    let game = find(&state, id)?;
    // The search goes on (and its move is played) even when the client goes away.
    let task = tokio::spawn(computer_move(Arc::clone(&state), id, game));
    task.await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?
}

async fn computer_move(state: Arc<State>, id: GameId, game: Shared) -> Result<Response, ApiError> {
    let (snapshot, level, rng) = {
        let mut entry = game.lock().await;
        if entry.thinking {
            return Err(ApiError::conflict(
                "computer_thinking",
                "the computer is already thinking about this move",
            ));
        }
        if let Some(o) = entry.model.outcome() {
            return Err(ApiError::conflict(
                "game_over",
                format!("the game is over ({o}); start a new one"),
            ));
        }
        if !entry.model.computer_to_move() {
            return Err(ApiError::conflict(
                "not_computer_turn",
                "it is your turn: play a move first (POST .../move)",
            ));
        }
        entry.thinking = true;
        (
            entry.model.game().clone(),
            entry.model.level(),
            entry.rng.clone(),
        )
    };
    let result = state.computer.reply(snapshot.clone(), level, rng).await;
    let mut entry = game.lock().await;
    entry.thinking = false;
    let reply = result
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    entry.rng = reply.rng;
    let Some(m) = reply.best else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "stopping",
            "the server is stopping; the computer did not move",
        ));
    };
    let variant = snapshot.variant();
    let landing = landing_path(variant, snapshot.position(), m);
    entry.model.computer_moved(m).map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("the computer's move {m} was not legal: {e}"),
        )
    })?;
    tracing::debug!(
        %id, mv = %m, level = level.name(), nodes = reply.nodes, depth = reply.depth,
        ms = reply.time.as_millis() as u64, "computer moved"
    );
    let played = move_view(variant, snapshot.position(), m, &landing);
    let last = last_computer_view(&entry);
    Ok(ok(
        StatusCode::OK,
        Played {
            played,
            game: game_view(id, &entry, last),
        },
    ))
}

async fn set_level(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    let fields = body_object(&body?, &["level"])?;
    let level = level_of(fields.get("level").ok_or_else(|| {
        ApiError::bad(
            "bad_level",
            "which level? send {\"level\": \"easy\"} or a number 1..5",
        )
    })?)?;
    let game = find(&state, id)?;
    let mut entry = game.lock().await;
    entry.model.set_level(level);
    let last = last_computer_view(&entry);
    Ok(ok(StatusCode::OK, game_view(id, &entry, last)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_views_differ_where_the_rules_do() {
        let it = rules_view(Variant::Italian);
        assert!(!it.kings_fly && !it.men_capture_kings && it.priority == "italian");
        assert_eq!(it.no_progress_moves, 40);
        let ru = rules_view(Variant::Russian);
        assert!(ru.kings_fly && ru.men_capture_backwards && ru.promotion_continues);
        assert_eq!(ru.priority, "free");
        assert!(!it.promotion_at_end_only && !ru.promotion_at_end_only);
        assert!(rules_view(Variant::Brazilian).promotion_at_end_only);
    }

    #[test]
    fn a_path_names_a_multi_jump_or_its_end_alone() {
        let game = Game::from_position(Variant::Italian, fen::parse("W:W30:B26,18").unwrap());
        let sq = |n| Square::new(n).unwrap();
        let full = move_of_path(&game, &[sq(30), sq(21), sq(14)]).unwrap();
        assert_eq!(full.to_string(), "30x14x18x26");
        assert_eq!(move_of_path(&game, &[sq(30), sq(14)]).unwrap(), full);
        let half = move_of_path(&game, &[sq(30), sq(21)]).unwrap_err();
        assert_eq!(half.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(half.reason.unwrap().code, "incomplete");
    }

    #[test]
    fn a_capture_elsewhere_is_the_reason_with_the_capturers_marked() {
        let game = Game::from_position(Variant::Italian, fen::parse("W:W18,21:B14").unwrap());
        let sq = |n| Square::new(n).unwrap();
        let err = move_of_path(&game, &[sq(21), sq(17)]).unwrap_err();
        let reason = err.reason.unwrap();
        assert_eq!(reason.code, "must_capture");
        assert_eq!(reason.squares, [18]);
    }

    #[test]
    fn bodies_are_objects_with_known_fields_only() {
        assert!(body_object(b"", &["level"]).unwrap().is_empty());
        assert_eq!(body_object(b"[1]", &[]).unwrap_err().code, "malformed_json");
        assert_eq!(body_object(b"{", &[]).unwrap_err().code, "malformed_json");
        let err = body_object(br#"{"levle": 1}"#, &["level"]).unwrap_err();
        assert_eq!(err.code, "unknown_field");
        assert!(err.message.contains("\"levle\""), "{}", err.message);
    }
}
