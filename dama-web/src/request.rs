//! What the handlers share: reading request bodies and arguments, finding a game, committing
//! a change, and the JSON answer.

use axum::extract::rejection::PathRejection;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{ConnectInfo, Extension, Path};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use dama_play::Model;
use dama_rules::{Square, Variant};
use dama_search::Level;
use serde::Serialize;
use serde_json::Value;

use super::error::{no_store, ApiError};
use super::guard::{self, Limit};
use super::state::State;
use super::store::{Entry, Finish, GameId, Kind, Shared};

/// The JSON object of a request body (an empty body is `{}`), with no fields but `allowed`.
pub(crate) fn body_object(
    body: &[u8],
    allowed: &[&str],
) -> Result<serde_json::Map<String, Value>, ApiError> {
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

/// A short rendering of a JSON value for an error message: a string quoted once, anything
/// else as its JSON text.
pub(crate) use dama_play::view::shown;

/// `secs` as a person writes it: "30 days", "1 hour", "90 s".
pub(crate) fn duration_text(secs: u64) -> String {
    let (n, unit) = match secs {
        s if s >= 86_400 && s % 86_400 == 0 => (s / 86_400, "day"),
        s if s >= 3_600 && s % 3_600 == 0 => (s / 3_600, "hour"),
        s if s >= 60 && s % 60 == 0 => (s / 60, "minute"),
        s => return format!("{s} s"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

pub(crate) fn level_of(v: &Value) -> Result<Level, ApiError> {
    Ok(dama_play::view::level_of(v)?)
}

pub(crate) fn square_of(v: &Value) -> Result<Square, ApiError> {
    Ok(dama_play::view::square_of(v)?)
}

pub(crate) fn game_id(path: Result<Path<String>, PathRejection>) -> Result<GameId, ApiError> {
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

/// The game a request's path names, with its id.
pub(crate) async fn found(
    state: &State,
    path: Result<Path<String>, PathRejection>,
) -> Result<(GameId, Shared), ApiError> {
    let id = game_id(path)?;
    Ok((id, find(state, id).await?))
}

pub(crate) async fn find(state: &State, id: GameId) -> Result<Shared, ApiError> {
    match state.store.get(id).await {
        Ok(Some(game)) => Ok(game),
        Ok(None) => Err(unknown_game(state, id)),
        Err(err) => Err(ApiError::storage(&err)),
    }
}

/// What [`commit`] puts back when a write fails.
pub(crate) struct Undo {
    model: Model,
    rng: dama_search::ChaCha8Rng,
    players: [Option<String>; 2],
    ended: Option<Finish>,
}

pub(crate) fn undo_point(entry: &Entry) -> Undo {
    Undo {
        model: entry.model.clone(),
        rng: entry.rng.clone(),
        players: entry.players.clone(),
        ended: entry.ended,
    }
}

/// Commits `entry`'s change (with the records of a game just ended) and tells the pages
/// that follow it; when the database refuses, puts `before` back and answers 503.
pub(crate) async fn commit(
    state: &State,
    id: GameId,
    entry: &mut Entry,
    before: Undo,
) -> Result<(), ApiError> {
    let credits = entry.credits();
    match state.store.commit(id, entry, credits).await {
        Ok(()) => {
            if entry.finish().is_some() {
                entry.credited = true;
            }
            let ply = entry.model.game().moves().len();
            entry
                .changes
                .send_if_modified(|n| std::mem::replace(n, ply) != ply);
            Ok(())
        }
        Err(err) => {
            entry.model = before.model;
            entry.rng = before.rng;
            entry.players = before.players;
            entry.ended = before.ended;
            if err.unavailable() {
                return Err(ApiError::storage(&err));
            }
            // Another server committed a change first: this one is answered as a stale
            // move is, from the game as it now stands.
            let mover = entry.model.game().position().turn();
            match state.store.refresh(id, entry).await {
                Ok(true) => Err(stale(entry, mover)),
                Ok(false) => Err(unknown_game(state, id)),
                Err(err) => Err(ApiError::storage(&err)),
            }
        }
    }
}

/// The answer to a change refused because another server changed the game first (`mover`
/// was to move before): the answer the same change gets when it comes after the other on
/// one server.
fn stale(entry: &Entry, mover: dama_rules::Color) -> ApiError {
    if let Err(over) = not_over(entry) {
        return over;
    }
    let now = entry.model.game().position().turn();
    if now != mover {
        let wait = match entry.kind {
            Kind::Computer => "the computer has moved meanwhile: look at the game again".into(),
            Kind::Friend | Kind::Pass => {
                format!("it is {}'s turn: wait for your friend's move", now.name())
            }
        };
        return ApiError::conflict("not_your_turn", wait);
    }
    ApiError::conflict(
        "not_your_turn",
        "the game changed meanwhile (a change from another page came first): look at it \
         again and retry",
    )
}

pub(crate) fn unknown_game(state: &State, id: GameId) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "unknown_game",
        format!(
            "no game {id}: it never existed, was deleted, or expired after {} untouched",
            duration_text(state.store.keep().as_secs())
        ),
    )
}

pub(crate) fn ok<T: Serialize>(status: StatusCode, body: T) -> Response {
    (status, no_store(), Json(body)).into_response()
}

/// Counts a request from its client against `limit`.
pub(crate) fn limited(
    state: &State,
    limit: Option<&Limit>,
    headers: &HeaderMap,
    peer: Option<&Extension<ConnectInfo<SocketAddr>>>,
) -> Result<(), ApiError> {
    let Some(limit) = limit else {
        return Ok(());
    };
    let ip = guard::request_ip(state, headers, peer.map(|e| &e.0));
    limit.check(ip).inspect_err(|_| {
        state
            .metrics
            .rate_limited
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    })
}

/// Refuses a game that is over.
pub(crate) fn not_over(entry: &Entry) -> Result<(), ApiError> {
    match entry.finish() {
        Some(o) => Err(ApiError::conflict(
            "game_over",
            format!("the game is over ({o}); start a new one"),
        )),
        None => Ok(()),
    }
}

/// The variant a request names (absent or null: Italian).
pub(crate) fn variant_of(v: Option<&Value>) -> Result<Variant, ApiError> {
    Ok(dama_play::view::variant_of(v)?)
}

/// A stream of Server-Sent Events as an answer: kept alive, never cached, and passed on at
/// once by a reverse proxy.
pub(crate) fn event_stream<S>(events: S) -> Response
where
    S: futures_util::Stream<Item = Result<Event, Infallible>> + Send + 'static,
{
    let mut res = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response();
    let h = res.headers_mut();
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_quoted_once_and_durations_written_as_people_do() {
        assert_eq!(
            shown(&Value::String("grandmaster".into())),
            "\"grandmaster\""
        );
        assert_eq!(shown(&serde_json::json!(7)), "\"7\"");
        assert_eq!(duration_text(30 * 86_400), "30 days");
        assert_eq!(duration_text(86_400), "1 day");
        assert_eq!(duration_text(1800), "30 minutes");
        assert_eq!(duration_text(3600), "1 hour");
        assert_eq!(duration_text(90), "90 s");
    }
}
