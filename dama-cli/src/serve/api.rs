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
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use dama_rules::explain::Candidate;
use dama_rules::notation::{self, fen};
use dama_rules::variant::Priority;
use dama_rules::{with_rules, Color, DrawReason, Error, Game, Illegal, Move, Outcome};
use dama_rules::{Position, Rules, Square, Variant};
use dama_search::{ChaCha8Rng, Level, SeedableRng};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::assets;
use super::computer::{Computer, HARD_TIME};
use super::names;
use super::store::{Entry, GameId, Shared, Store};
use super::Options;
use crate::play::model::{piece_moves, Model};

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
// Errors

/// An error answer: a status, a code for programs, a message for people and, for a refused
/// move or selection, the rules' reason.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    reason: Option<Box<ReasonView>>,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            reason: None,
        }
    }

    fn bad(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    fn conflict(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, code, message)
    }

    fn illegal(reason: ReasonView) -> ApiError {
        ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "illegal_move",
            message: reason.message.clone(),
            reason: Some(Box::new(reason)),
        }
    }

    /// An extractor's rejection (a body too large, a bad path or query) as JSON.
    fn rejected(status: StatusCode, text: String) -> ApiError {
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "body_too_large",
            _ => "bad_request",
        };
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("the request body is too large: at most {BODY_LIMIT} bytes are accepted")
        } else {
            text
        };
        ApiError::new(status, code, message)
    }
}

impl From<BytesRejection> for ApiError {
    fn from(r: BytesRejection) -> ApiError {
        ApiError::rejected(r.status(), r.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> ApiError {
        ApiError::rejected(r.status(), r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::rejected(r.status(), r.body_text())
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorView<'a>,
}

#[derive(Serialize)]
struct ErrorView<'a> {
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a ReasonView>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::warn!(status = %self.status, code = self.code, "{}", self.message);
        } else {
            tracing::debug!(status = %self.status, code = self.code, "{}", self.message);
        }
        let body = ErrorBody {
            error: ErrorView {
                code: self.code,
                message: &self.message,
                reason: self.reason.as_deref(),
            },
        };
        (self.status, no_store(), Json(body)).into_response()
    }
}

fn no_store() -> [(header::HeaderName, HeaderValue); 1] {
    [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))]
}

async fn not_found(uri: Uri) -> ApiError {
    let path = uri.path();
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "nothing at {}: the page is at / and the API under /api",
            dama_rules::quote(path)
        ),
    )
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!(
            "{} does not take {method} (see GET /api for the API)",
            dama_rules::quote(uri.path())
        ),
    )
}

// ---------------------------------------------------------------------------------------
// Views

/// The rules in force, as flags the page puts into words.
#[derive(Serialize)]
struct RulesView {
    kings_fly: bool,
    men_capture_backwards: bool,
    men_capture_kings: bool,
    promotion_continues: bool,
    priority: &'static str,
    no_progress_moves: u32,
    man_move_is_progress: bool,
    repetition: bool,
    kings_against_king: Option<u32>,
}

fn rules_view(variant: Variant) -> RulesView {
    fn of<R: Rules>() -> (bool, bool, bool, bool) {
        (
            R::KINGS_FLY,
            R::MEN_CAPTURE_BACKWARDS,
            R::MEN_CAPTURE_KINGS,
            R::PROMOTION_CONTINUES,
        )
    }
    let (fly, back, take_kings, continues) = with_rules!(variant, R => of::<R>());
    let draws = variant.draw_rules();
    RulesView {
        kings_fly: fly,
        men_capture_backwards: back,
        men_capture_kings: take_kings,
        promotion_continues: continues,
        priority: match variant.priority() {
            Priority::Italian => "italian",
            Priority::Spanish => "spanish",
            Priority::KingFirst => "king_first",
            Priority::MostPieces => "most_pieces",
            Priority::Free => "free",
        },
        no_progress_moves: draws.no_progress_plies / 2,
        man_move_is_progress: draws.man_move_is_progress,
        repetition: draws.repetition.is_some(),
        kings_against_king: draws.kings_against_king,
    }
}

/// A move: engine squares, the landing squares in order, and the text in the variant's
/// notation.
#[derive(Serialize)]
struct MoveView {
    from: u8,
    to: u8,
    captured: Vec<u8>,
    path: Vec<u8>,
    text: String,
    hub: String,
}

fn numbers(squares: impl IntoIterator<Item = Square>) -> Vec<u8> {
    squares.into_iter().map(Square::number).collect()
}

/// The first landing path of `m` from `pos` (its end square for a quiet move).
fn landing_path(variant: Variant, pos: &Position, m: Move) -> Vec<Square> {
    with_rules!(variant, R => pos.capture_paths::<R>(m))
        .into_iter()
        .next()
        .unwrap_or_else(|| vec![m.to()])
}

/// `m` from `pos` as the page shows it, taking landing path `path`.
fn move_view(variant: Variant, pos: &Position, m: Move, path: &[Square]) -> MoveView {
    MoveView {
        from: m.from().number(),
        to: m.to().number(),
        captured: numbers(m.captured().iter()),
        path: numbers(path.iter().copied()),
        text: move_text(variant, pos, m),
        hub: m.to_string(),
    }
}

/// `m` from `pos` in the variant's notation, as PDN writes it: a capture by its start and
/// end, with the landings only when another capture joins the same two squares.
fn move_text(variant: Variant, pos: &Position, m: Move) -> String {
    let path = if m.is_capture() && notation::pdn_move_for(variant, pos, m).matches('x').count() > 1
    {
        landing_path(variant, pos, m)
    } else {
        Vec::new()
    };
    names::move_text(variant, m, &path)
}

#[derive(Serialize)]
struct OutcomeView {
    result: &'static str,
    winner: Option<&'static str>,
    reason: &'static str,
    message: String,
}

fn outcome_view(outcome: Outcome, human: Color) -> OutcomeView {
    let (winner, reason) = match outcome {
        Outcome::Win(c) if c == human => (Some("player"), "no_moves"),
        Outcome::Win(_) => (Some("computer"), "no_moves"),
        Outcome::Draw(DrawReason::NoProgress { .. }) => (None, "no_progress"),
        Outcome::Draw(DrawReason::Repetition) => (None, "repetition"),
        Outcome::Draw(DrawReason::KingsAgainstKing { .. }) => (None, "kings_against_king"),
    };
    OutcomeView {
        result: outcome.pdn(),
        winner,
        reason,
        message: outcome.to_string(),
    }
}

/// A game as the page sees it.
#[derive(Serialize)]
struct GameView {
    id: String,
    variant: &'static str,
    rules: RulesView,
    names: Vec<String>,
    mirrored: bool,
    level: &'static str,
    level_number: u32,
    scored_level: &'static str,
    /// The 32 squares, engine square 1 first: `w` `b` men, `W` `B` kings, `e` empty.
    board: String,
    /// Whose turn: `player`, `computer` or `over`.
    turn: &'static str,
    player: &'static str,
    thinking: bool,
    /// The player's pieces that have a move (when it is the player's turn).
    movable: Vec<u8>,
    moves: Vec<String>,
    last_computer_move: Option<MoveView>,
    outcome: Option<OutcomeView>,
    score: u32,
    quiet_plies: u32,
    fen: String,
}

fn game_view(id: GameId, entry: &Entry, last: Option<MoveView>) -> GameView {
    let model = &entry.model;
    let game = model.game();
    let variant = game.variant();
    let pos = game.position();
    let board = Square::ALL
        .iter()
        .map(|&sq| pos.piece_at(sq).map_or('e', |p| p.hub_char()))
        .collect();
    let turn = if model.outcome().is_some() {
        "over"
    } else if model.human_to_move() {
        "player"
    } else {
        "computer"
    };
    let movable = if model.human_to_move() {
        let mut from: Vec<u8> = game
            .legal_moves()
            .iter()
            .map(|m| m.from().number())
            .collect();
        from.sort_unstable();
        from.dedup();
        from
    } else {
        Vec::new()
    };
    GameView {
        id: id.to_string(),
        variant: variant.name(),
        rules: rules_view(variant),
        names: names::all(variant),
        mirrored: names::mirrored(variant),
        level: model.level().name(),
        level_number: model.level().number(),
        scored_level: model.scored_level().name(),
        board,
        turn,
        player: model.human().name(),
        thinking: entry.thinking,
        movable,
        moves: move_texts(game),
        last_computer_move: last,
        outcome: model.outcome().map(|o| outcome_view(o, model.human())),
        score: model.score(),
        quiet_plies: game.quiet_plies(),
        fen: fen::write(pos),
    }
}

/// Every move of `game` in its variant's notation.
fn move_texts(game: &Game) -> Vec<String> {
    let variant = game.variant();
    let mut pos = *game.start();
    let mut out = Vec::with_capacity(game.moves().len());
    for &m in game.moves() {
        out.push(move_text(variant, &pos, m));
        pos.play_unchecked(m);
    }
    out
}

/// The computer's last move as the page shows it (with its landing path).
fn last_computer_view(entry: &Entry) -> Option<MoveView> {
    let m = entry.model.last_computer_move()?;
    let game = entry.model.game();
    let variant = game.variant();
    // Replay to the position before that move (it is the last or the one before).
    let moves = game.moves();
    let at = moves.iter().rposition(|&x| x == m)?;
    let mut pos = *game.start();
    for &x in &moves[..at] {
        pos.play_unchecked(x);
    }
    Some(move_view(variant, &pos, m, &landing_path(variant, &pos, m)))
}

/// Why a piece cannot move or a move is refused.
#[derive(Serialize, Debug, Clone)]
pub struct ReasonView {
    code: &'static str,
    message: String,
    /// Pieces to point at (those that must capture).
    squares: Vec<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    better: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
}

fn reason_view(game: &Game, why: &Illegal) -> ReasonView {
    let variant = game.variant();
    let pos = game.position();
    let text = |m: Move| move_text(variant, pos, m);
    let legal_from = || {
        let mut v: Vec<u8> = game
            .legal_moves()
            .iter()
            .map(|m| m.from().number())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (code, squares, better, rule) = match why {
        Illegal::EmptySquare { .. } => ("empty_square", Vec::new(), None, None),
        Illegal::NotYourPiece { .. } => ("not_your_piece", Vec::new(), None, None),
        Illegal::MustCapture { capturers } => {
            ("must_capture", numbers(capturers.iter()), None, None)
        }
        Illegal::Blocked { .. } => ("blocked", Vec::new(), None, None),
        Illegal::LosesByPriority { rule, better } => (
            "loses_by_priority",
            legal_from(),
            Some(text(*better)),
            Some(*rule),
        ),
        Illegal::Outranked { rule, better, .. } => {
            ("outranked", legal_from(), Some(text(*better)), Some(*rule))
        }
        Illegal::Incomplete { complete } => ("incomplete", Vec::new(), Some(text(*complete)), None),
        Illegal::NoSuchMove { .. } => ("no_such_move", Vec::new(), None, None),
    };
    ReasonView {
        code,
        message: capitalised(&why.to_string()),
        squares,
        better,
        rule,
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
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
    state.store.get(id).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_game",
            format!(
                "no game {id}: it never existed, was deleted, or expired after {} s idle",
                state.store.idle().as_secs()
            ),
        )
    })
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
        Err(find(&state, id).err().unwrap_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "unknown_game",
                format!("no game {id}"),
            )
        }))
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
            if items.len() > 33 {
                return Err(ApiError::bad(
                    "bad_path",
                    format!("a path of {} squares: a move has at most 13", items.len()),
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

impl ApiError {
    fn illegal_text(message: String) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "illegal_move", message)
    }
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
