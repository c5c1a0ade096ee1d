//! The JSON API of `dama serve`: the server owns the rules and the games.
//!
//! Squares are the engine's numbers 1..32 (Italian numbering, 1 at the top left of the
//! unmirrored board); each game's `names` gives the variant's own name of each square.
//!
//! | request | body | answer |
//! | --- | --- | --- |
//! | `GET /api` | | the variants with their rules, the levels, the limits |
//! | `POST /api/games` | `{"variant"?, "level"?, "seed"?, "fen"?, "opponent"?}` | 201, the new game (and its seats' page addresses) |
//! | `GET /api/games/{id}` | | the game |
//! | `GET /api/games/{id}/events?after=N` | | Server-Sent Events: each move after the N-th |
//! | `DELETE /api/games/{id}` | | 204 |
//! | `GET /api/games/{id}/targets?square=N` | | the piece's moves, or the reason it has none |
//! | `POST /api/games/{id}/move` | `{"path": [from, landing, ...]}` or `{"move": "22-18"}` | the game and the move played |
//! | `POST /api/games/{id}/reply` | | the game after the computer's move, and that move |
//! | `POST /api/games/{id}/level` | `{"level": "easy"}` or `{"level": 2}` | the game |
//! | `GET /api/games/{id}/pdn` | | the game as a PDN file (tags `Event`, `Site`, `Date`, `White`, `Black`, `Result`, `GameType`, `FEN`, `Level`) |
//! | `POST /api/reviews` | `{"pdn", "variant"?, "depth"?, "nodes"?, "stream"?}` | every move of every game with its mark, the score before it, the best move and line (see `review.rs`) |
//! | `GET /api/analysis?fen=&variant=&multipv=3&depth=&nodes=&time_ms=` | | Server-Sent Events: the live lines, the tables' verdict (see `live.rs`) |
//! | `GET /api/me` | | the player's record (the `dama_player` cookie) per level |
//! | `GET /healthz` | | 200 while the server and its database answer |
//! | `GET /metrics` | | counters in the Prometheus text format |
//!
//! `opponent` is `computer` (the default), `friend` or `pass`. A friend game answers with
//! three page addresses: `white_url` (the creator's seat), `black_url` (the invitation) and
//! `watch_url`; a pass-and-play game with `white_url` (one seat that plays both sides) and
//! `watch_url`. A seat is its secret, sent as the `X-Dama-Seat` header (the page takes it
//! from its address): a move or a selection without the seat of the side to move is refused
//! with 403. Each committed move is pushed to `GET .../events`, with the number of moves so
//! far as the event's id: a client that reconnects with `Last-Event-ID` (or `?after=N`)
//! gets every move after that one, once.
//!
//! A change is answered only once it is committed to the database.
//!
//! Errors are JSON, `{"error": {"code", "message", "reason"?}}`, with a 4xx status naming
//! the problem: 400 malformed request, 403 not this seat's move, 404 unknown game or route,
//! 405 wrong method, 409 not the moment (the computer's turn, the game is over, the
//! computer is thinking), 413 body too large, 422 an illegal move (with the rules' reason)
//! or a PDN the reader refuses (its message, and `line` and `column`),
//! 429 too many requests from one address (with `Retry-After`), 503 too many live games or
//! the database refused a write, or no analysis slot came free in time.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Extension, Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use dama_rules::explain::Candidate;
use dama_rules::notation::{self, fen};
use dama_rules::{with_rules, Color, Error, Game, Illegal, Move};
use dama_rules::{Position, Square, Variant};
use dama_search::Level;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::watch;
use tower_http::timeout::RequestBodyTimeoutLayer;

use super::analysis::Analyst;
use super::assets;
use super::computer::{Computer, HARD_TIME};
use super::db::Db;
use super::error::{method_not_allowed, not_found, ApiError};
use super::guard::{self, Limit, Player};
use super::live;
use super::metrics::Metrics;
use super::names;
use super::request::{
    body_object, commit, find, found, game_id, level_of, limited, not_over, ok, players_turn,
    seat_secret, shown, square_of, undo_point, unknown_game, variant_of,
};
use super::review::{self, REVIEW_BODY_LIMIT};
use super::store::{side, Entry, GameId, Kind, Seat, Shared, Store};
use super::views::{
    game_view, landing_path, last_computer_view, move_view, numbers, reason_view, rules_view,
    seat_url, GameView, MoveView, ReasonView, RulesView,
};
use super::Options;
use super::{follow, status};
use dama_play::{piece_moves, Model};

/// The largest request body accepted; every request of the API fits in a few hundred bytes.
pub const BODY_LIMIT: usize = 4 * 1024;

/// What every request handler shares.
pub struct State {
    /// The live games.
    pub store: Arc<Store>,
    /// The engines.
    pub computer: Computer,
    /// The engines and slots of reviews and live analysis.
    pub analyst: Arc<Analyst>,
    /// The counters of `GET /metrics`.
    pub metrics: Arc<Metrics>,
    /// The per-address limit on new games.
    pub new_games: Option<Limit>,
    /// The per-address limit on computer replies.
    pub replies: Option<Limit>,
    /// Whether `X-Forwarded-For` names the client.
    pub trust_proxy: bool,
    /// Turns true when the server stops (the event streams end).
    pub stopping: watch::Receiver<bool>,
    /// How long a request body may take to arrive.
    pub body_timeout: Duration,
}

impl State {
    /// The state for `opts`, over `db`, stopping when `stopping` turns true.
    pub fn new(opts: &Options, db: Db, stopping: watch::Receiver<bool>) -> State {
        let metrics = Arc::new(Metrics::default());
        let computer = Computer::new(opts.searchers, Arc::clone(&metrics));
        let analyst = Arc::new(Analyst::new(opts.analysts, computer.endgames()));
        State {
            store: Arc::new(Store::new(
                opts.max_games,
                opts.idle,
                db,
                opts.data.is_some(),
                opts.keep,
            )),
            computer,
            analyst,
            metrics,
            new_games: Limit::new(opts.games_per_minute, "new games"),
            replies: Limit::new(opts.replies_per_minute, "computer replies"),
            trust_proxy: opts.trust_proxy,
            stopping,
            body_timeout: opts.body_timeout,
        }
    }
}

type AxState = axum::extract::State<Arc<State>>;

/// The routes: the page, its script and styles, and the API.
pub fn router(state: Arc<State>) -> Router {
    let [csp, nosniff, frames, referrer, opener] = guard::security_headers();
    Router::new()
        .merge(assets::routes::<State>())
        .route("/api", get(info))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(show).delete(forget))
        .route("/api/games/{id}/targets", get(targets))
        .route("/api/games/{id}/move", post(play))
        .route("/api/games/{id}/reply", post(reply))
        .route("/api/games/{id}/level", post(set_level))
        .route("/api/games/{id}/events", get(follow::events))
        .route("/api/games/{id}/pdn", get(review::game_pdn))
        .route(
            "/api/reviews",
            post(review::reviews).layer(DefaultBodyLimit::max(REVIEW_BODY_LIMIT)),
        )
        .route("/api/analysis", get(live::analysis))
        .route("/api/me", get(status::me))
        .route("/healthz", get(status::healthz))
        .route("/metrics", get(status::metrics))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(
            guard::refuse_announced_large_bodies,
        ))
        .layer(axum::middleware::from_fn(guard::player_cookie))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            guard::count_requests,
        ))
        .layer(RequestBodyTimeoutLayer::new(state.body_timeout))
        .layer(csp)
        .layer(nosniff)
        .layer(frames)
        .layer(referrer)
        .layer(opener)
        .with_state(state)
}

// ---------------------------------------------------------------------------------------
// Handlers

#[derive(Serialize)]
struct VariantInfo {
    name: &'static str,
    rules: RulesView,
    mirrored: bool,
    /// The variant's names of the squares, engine square 1 first.
    names: Vec<String>,
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
    keep_seconds: u64,
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
                names: names::all(v),
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
        keep_seconds: state.store.keep().as_secs(),
        hard_seconds: HARD_TIME.as_secs_f64(),
        body_limit: BODY_LIMIT,
    };
    ok(StatusCode::OK, info)
}

#[derive(Serialize)]
struct Created {
    #[serde(flatten)]
    game: GameView,
    #[serde(skip_serializing_if = "Option::is_none")]
    white_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    black_url: Option<String>,
}

async fn new_game(
    axum::extract::State(state): AxState,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    Extension(player): Extension<Player>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    limited(&state, state.new_games.as_ref(), &headers, peer.as_ref())?;
    let body = body?;
    let fields = body_object(&body, &["variant", "level", "seed", "fen", "opponent"])?;
    let kind = match fields.get("opponent") {
        None | Some(Value::Null) => Kind::Computer,
        Some(Value::String(s)) if s == "computer" => Kind::Computer,
        Some(Value::String(s)) if s == "friend" => Kind::Friend,
        Some(Value::String(s)) if s == "pass" => Kind::Pass,
        Some(v) => {
            return Err(ApiError::bad(
                "bad_opponent",
                format!(
                    "opponent {}: expected \"computer\", \"friend\" or \"pass\"",
                    shown(v)
                ),
            ))
        }
    };
    let variant = variant_of(fields.get("variant"))?;
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
    let model = match kind {
        Kind::Computer => Model::new(variant, start, level),
        Kind::Friend | Kind::Pass => Model::friends(variant, start),
    };
    let entry = Entry::new(model, kind, seed, Some(player.0));
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
    let entry = game.lock().await;
    if let Err(err) = state.store.commit(id, &entry, Vec::new()).await {
        drop(entry);
        let _ = state.store.remove(id).await;
        return Err(ApiError::storage(&err));
    }
    tracing::info!(%id, variant = variant.name(), level = level.name(), opponent = kind.name(), "new game");
    let seat = match kind {
        Kind::Computer => None,
        Kind::Friend => Some(Seat::White),
        Kind::Pass => Some(Seat::Both),
    };
    let (white_url, black_url) = match (&entry.secrets, kind) {
        (Some([w, b]), Kind::Friend) => (Some(seat_url(id, Some(w))), Some(seat_url(id, Some(b)))),
        (Some([w, _]), _) => (Some(seat_url(id, Some(w))), None),
        _ => (None, None),
    };
    let created = Created {
        game: game_view(id, &entry, None, seat),
        white_url,
        black_url,
    };
    Ok(ok(StatusCode::CREATED, created))
}

/// A start position given as FEN (the player has the side to move: the light pieces from
/// the start position, either side from a position set up in the editor).
fn start_position(text: &str) -> Result<Position, ApiError> {
    fen::parse(text).map_err(|e| ApiError::bad("bad_fen", e.to_string()))
}

async fn show(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, game) = found(&state, path).await?;
    let entry = game.lock().await;
    let last = last_computer_view(&entry);
    let seat = entry.seat(seat_secret(&headers));
    Ok(ok(StatusCode::OK, game_view(id, &entry, last, seat)))
}

async fn forget(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, game) = found(&state, path).await?;
    {
        let entry = game.lock().await;
        if entry.kind != Kind::Computer && entry.seat(seat_secret(&headers)).is_none() {
            return Err(ApiError::forbidden(
                "not_a_player",
                "only a player of this game (with a seat's secret in X-Dama-Seat) may delete it",
            ));
        }
    }
    drop(game);
    if state
        .store
        .remove(id)
        .await
        .map_err(|e| ApiError::storage(&e))?
    {
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
    headers: HeaderMap,
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
    let game = find(&state, id).await?;
    let entry = game.lock().await;
    players_turn(&entry, entry.seat(seat_secret(&headers)))?;
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

/// The answer to a move: the move `view` and game `id` as `seat` sees it after it.
fn played(id: GameId, entry: &Entry, view: MoveView, seat: Option<Seat>) -> Response {
    let game = game_view(id, entry, last_computer_view(entry), seat);
    ok(StatusCode::OK, Played { played: view, game })
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
    Extension(player): Extension<Player>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    let body = body?;
    let fields = body_object(&body, &["path", "move"])?;
    let game = find(&state, id).await?;
    let mut entry = game.lock().await;
    let seat = entry.seat(seat_secret(&headers));
    players_turn(&entry, seat)?;
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
    let undo = undo_point(&entry);
    entry
        .model
        .play_own(m)
        .map_err(|e| ApiError::illegal_text(e.to_string()))?;
    // The first move from the invitation names the friend whose record the game counts in.
    if seat == Some(Seat::Black) && entry.players[side(Color::Black)].is_none() {
        entry.players[side(Color::Black)] = Some(player.0);
    }
    commit(&state, id, &mut entry, undo).await?;
    tracing::debug!(%id, mv = %m, "player moved");
    Ok(played(
        id,
        &entry,
        move_view(variant, &before, m, &landing),
        seat,
    ))
}

async fn reply(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    limited(&state, state.replies.as_ref(), &headers, peer.as_ref())?;
    body_object(&body?, &[])?;
    let game = find(&state, id).await?;
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
        not_over(&entry)?;
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
    let started = Instant::now();
    let result = state.computer.reply(snapshot.clone(), level, rng).await;
    state.metrics.reply(started.elapsed());
    let mut entry = game.lock().await;
    entry.thinking = false;
    let undo = undo_point(&entry);
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
    commit(&state, id, &mut entry, undo).await?;
    tracing::debug!(
        %id, mv = %m, level = level.name(), nodes = reply.nodes, depth = reply.depth,
        ms = reply.time.as_millis() as u64, "computer moved"
    );
    let view = move_view(variant, snapshot.position(), m, &landing);
    Ok(played(id, &entry, view, None))
}

async fn set_level(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
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
    let game = find(&state, id).await?;
    let mut entry = game.lock().await;
    let undo = undo_point(&entry);
    entry.model.set_level(level);
    commit(&state, id, &mut entry, undo).await?;
    let last = last_computer_view(&entry);
    let seat = entry.seat(seat_secret(&headers));
    Ok(ok(StatusCode::OK, game_view(id, &entry, last, seat)))
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
