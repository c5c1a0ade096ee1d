//! A game's moves: the legal targets of a piece (`GET .../targets`), the player's move
//! (`POST .../move`) and the computer's reply (`POST .../reply`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, Extension, Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use dama_rules::Color;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::computer::SearchError;
use super::error::ApiError;
use super::guard::Player;
use super::request::{
    body_object, commit, find, game_id, limited, not_over, ok, shown, square_of, undo_point,
};
use super::seats::{a_player, players_turn, seat_secret};
use super::state::{AxState, State};
use super::store::{side, Entry, GameId, Seat, Shared};
use super::views::{
    game_view, landing_path, last_computer_view, move_of_path, move_of_text, move_view, piece_view,
    GameView, MoveView,
};

#[derive(Deserialize)]
pub(crate) struct TargetsQuery {
    square: Option<String>,
}

pub(crate) async fn targets(
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
    let view = piece_view(entry.model.game(), sq);
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

pub(crate) async fn play(
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
    // A move answers a pending draw offer: it stands no more.
    entry.draw_offer = None;
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

pub(crate) async fn reply(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    limited(&state, state.replies.as_ref(), &headers, peer.as_ref())?;
    let fields = body_object(&body?, &["move"])?;
    let game = find(&state, id).await?;
    {
        let entry = game.lock().await;
        a_player(&entry, entry.seat(seat_secret(&headers)))?;
    }
    match fields.get("move") {
        None => {}
        Some(Value::String(text)) => return browser_move(&state, id, &game, text).await,
        Some(v) => {
            return Err(ApiError::bad(
                "malformed_move",
                format!("move {}: expected text like \"22-18\"", shown(v)),
            ))
        }
    }
    // The search goes on (and its move is played) even when the client goes away.
    let task = tokio::spawn(computer_move(Arc::clone(&state), id, game));
    task.await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?
}

/// The computer's move as the player's browser searched it (the engine in WebAssembly, see
/// dama-wasm): checked to be the computer's turn and legal, then played and committed as if
/// the server had found it; nothing is searched here. The player could send any legal move
/// for the computer: a game against the computer is the player's own, and the browser's
/// engine is the player's anyway.
async fn browser_move(
    state: &Arc<State>,
    id: GameId,
    game: &Shared,
    text: &str,
) -> Result<Response, ApiError> {
    let mut entry = game.lock().await;
    computers_turn(&entry)?;
    let g = entry.model.game();
    let m = move_of_text(g, text)?;
    let variant = g.variant();
    let before = *g.position();
    let landing = landing_path(variant, &before, m);
    let undo = undo_point(&entry);
    entry
        .model
        .computer_moved(m)
        .map_err(|e| ApiError::illegal_text(e.to_string()))?;
    commit(state, id, &mut entry, undo).await?;
    state
        .metrics
        .browser_replies
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    tracing::debug!(%id, mv = %m, "the browser's engine moved for the computer");
    let view = move_view(variant, &before, m, &landing);
    Ok(played(id, &entry, view, Some(Seat::Owner)))
}

/// Whether the computer may move now: not already searching, the game not over, its turn.
fn computers_turn(entry: &Entry) -> Result<(), ApiError> {
    if entry.thinking {
        return Err(ApiError::conflict(
            "computer_thinking",
            "the computer is already thinking about this move",
        ));
    }
    not_over(entry)?;
    if !entry.model.computer_to_move() {
        return Err(ApiError::conflict(
            "not_computer_turn",
            "it is your turn: play a move first (POST .../move)",
        ));
    }
    Ok(())
}

async fn computer_move(state: Arc<State>, id: GameId, game: Shared) -> Result<Response, ApiError> {
    let (snapshot, level, rng) = {
        let mut entry = game.lock().await;
        computers_turn(&entry)?;
        entry.thinking = true;
        (
            entry.model.game().clone(),
            entry.model.level(),
            entry.rng.clone(),
        )
    };
    let started = Instant::now();
    let result = state.computer.reply(snapshot.clone(), level, rng).await;
    if result.is_ok() {
        state.metrics.reply(started.elapsed());
        state
            .metrics
            .server_searches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    let mut entry = game.lock().await;
    entry.thinking = false;
    let undo = undo_point(&entry);
    let reply = result.map_err(|e| match e {
        SearchError::Busy { retry_after, .. } => ApiError::busy(e.to_string(), retry_after),
        SearchError::Failed(_) => {
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
        }
    })?;
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
    Ok(played(id, &entry, view, Some(Seat::Owner)))
}

#[cfg(test)]
mod tests {
    use crate::request::body_object;

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
