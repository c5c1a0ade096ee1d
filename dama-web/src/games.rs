//! The games: `POST /api/games`, `GET` and `DELETE /api/games/{id}`, and
//! `POST /api/games/{id}/level`.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{ConnectInfo, Extension, Path};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use dama_play::Model;
use dama_rules::notation::fen;
use dama_rules::Position;
use dama_search::Level;
use serde::Serialize;
use serde_json::Value;

use super::error::ApiError;
use super::guard::Player;
use super::request::{
    body_object, commit, duration_text, find, found, game_id, level_of, limited, ok, shown,
    undo_point, unknown_game, variant_of,
};
use super::seats::{a_player, seat_secret};
use super::state::{AxState, State};
use super::store::{Entry, GameId, Kind, Seat, Shared};
use super::views::{game_view, last_computer_view, piece_view, seat_url, GameView, TargetsView};

#[derive(Serialize)]
struct Created {
    #[serde(flatten)]
    game: GameView,
    /// The creator's secret, to send as `X-Dama-Seat` (the owner of a computer game, White
    /// in a friend game, the one seat of a pass game).
    secret: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    white_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    black_url: Option<String>,
}

pub(crate) async fn new_game(
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
    let (id, game) = create(&state, entry).await?;
    let entry = game.lock().await;
    tracing::info!(%id, variant = variant.name(), level = level.name(), opponent = kind.name(), "new game");
    let seat = match kind {
        Kind::Computer => Seat::Owner,
        Kind::Friend => Seat::White,
        Kind::Pass => Seat::Both,
    };
    let (white_url, black_url) = match (&entry.secrets, kind) {
        (Some([w, b]), Kind::Friend) => (Some(seat_url(id, Some(w))), Some(seat_url(id, Some(b)))),
        (Some([w, _]), Kind::Pass) => (Some(seat_url(id, Some(w))), None),
        _ => (None, None),
    };
    let created = Created {
        game: game_view(id, &entry, None, Some(seat)),
        secret: entry.secrets.as_ref().map(|[w, _]| w.clone()),
        white_url,
        black_url,
    };
    Ok(ok(StatusCode::CREATED, created))
}

/// Puts the new game `entry` into the store and the database: its id and the game.
pub(crate) async fn create(state: &State, entry: Entry) -> Result<(GameId, Shared), ApiError> {
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
    drop(entry);
    Ok((id, game))
}

/// A start position given as FEN (the player has the side to move: the light pieces from
/// the start position, either side from a position set up in the editor).
fn start_position(text: &str) -> Result<Position, ApiError> {
    fen::parse(text).map_err(|e| ApiError::bad("bad_fen", e.to_string()))
}

pub(crate) async fn show(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, game) = found(&state, path).await?;
    let mut entry = game.lock().await;
    let last = last_computer_view(&entry);
    let seat = entry.seat(seat_secret(&headers));
    // The invitation opened: the friend has joined.
    if seat == Some(Seat::Black) && entry.kind == Kind::Friend && !entry.joined[1] {
        entry.joined[1] = true;
        entry.poke();
    }
    Ok(ok(StatusCode::OK, game_view(id, &entry, last, seat)))
}

pub(crate) async fn forget(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, game) = found(&state, path).await?;
    {
        let entry = game.lock().await;
        a_player(&entry, entry.seat(seat_secret(&headers)))?;
        if entry.kind == Kind::Friend {
            return Err(ApiError::forbidden(
                "shared_game",
                format!(
                    "a game between friends belongs to both seats: neither deletes it; it ends \
                     by its result, a resignation or an agreed draw, and is forgotten after {} \
                     untouched",
                    duration_text(state.store.keep().as_secs())
                ),
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

pub(crate) async fn set_level(
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
    let seat = entry.seat(seat_secret(&headers));
    a_player(&entry, seat)?;
    if entry.kind != Kind::Computer {
        return Err(ApiError::conflict(
            "not_a_computer_game",
            "only a game against the computer has a level: a game between people has none to \
             change",
        ));
    }
    let undo = undo_point(&entry);
    entry.model.set_level(level);
    commit(&state, id, &mut entry, undo).await?;
    let last = last_computer_view(&entry);
    Ok(ok(StatusCode::OK, game_view(id, &entry, last, seat)))
}

/// The query of `GET /api/preview`.
#[derive(serde::Deserialize)]
pub(crate) struct PreviewQuery {
    variant: Option<String>,
    level: Option<String>,
}

/// `GET /api/preview?variant=&level=`: a new computer game as its page shows it before the
/// first move, stored nowhere (its `id` is empty), with `targets`, what `GET .../targets`
/// would answer for each of the player's pieces: a page shows it to a visitor and creates the
/// game (`POST /api/games`) only with the first move, so that idle visitors take no place
/// among the live games.
pub(crate) async fn preview(
    query: Result<axum::extract::Query<PreviewQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let axum::extract::Query(q) = query?;
    let variant = variant_of(q.variant.map(Value::String).as_ref())?;
    let level = match q.level {
        None => Level::Normal,
        Some(text) => level_of(&Value::String(text))?,
    };
    let entry = Entry::new(
        Model::new(variant, Position::start(), level),
        Kind::Computer,
        0,
        None,
    );
    let mut game = game_view(GameId::NONE, &entry, None, Some(Seat::Owner));
    game.id = String::new();
    // What `GET .../targets` would answer for each of the player's pieces, so that the first
    // move is chosen before the game exists.
    let g = entry.model.game();
    let pos = g.position();
    let targets = dama_rules::Square::ALL
        .into_iter()
        .filter(|&sq| pos.piece_at(sq).is_some_and(|p| p.color == pos.turn()))
        .map(|sq| (sq.number().to_string(), piece_view(g, sq)))
        .collect();
    Ok(ok(StatusCode::OK, Preview { game, targets }))
}

/// A game before it exists, and its first move's choices.
#[derive(Serialize)]
struct Preview {
    #[serde(flatten)]
    game: GameView,
    /// Per square of the player's pieces: what `GET .../targets` would answer.
    targets: std::collections::BTreeMap<String, TargetsView>,
}
