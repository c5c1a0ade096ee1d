//! `GET /api/games/{id}/events`: each move committed to a game, pushed to the pages that
//! follow it as Server-Sent Events, the number of moves so far as each event's id (a page
//! that reconnects with `Last-Event-ID`, or `?after=N`, gets every move after that one, once).
//!
//! One client address follows at most `streams_per_address` streams at once (429 beyond), and
//! a stream ends after `stream_lifetime`: the browser's EventSource reconnects by itself with
//! `Last-Event-ID` (after the `retry` delay sent first), so a held stream never pins a slot
//! for ever.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, Extension, Path, Query};
use axum::http::HeaderMap;
use axum::response::sse::Event;
use axum::response::Response;
use futures_util::StreamExt as _;
use serde::Deserialize;
use tokio::sync::watch;

use super::error::ApiError;
use super::fair::Ticket;
use super::guard;
use super::request::{event_stream, find, game_id};
use super::seats::seat_secret;
use super::state::State;
use super::store::{Entry, GameId, Kind, Seat, Shared};
use super::views::{game_view, landing_path, last_computer_view, move_view};

/// The query of `GET /api/games/{id}/events`.
#[derive(Deserialize)]
pub struct EventsQuery {
    after: Option<String>,
    seat: Option<String>,
}

/// Where a page following a game has got to.
struct Follow {
    id: GameId,
    game: Shared,
    changes: watch::Receiver<usize>,
    /// Changes that are not moves: offers, resignations, presence.
    pulse: watch::Receiver<u64>,
    /// The seat this stream counts as connected, while it lasts.
    _present: Option<Present>,
    stopping: watch::Receiver<bool>,
    sent: usize,
    seat: Option<String>,
    /// When the stream ends (the client reconnects).
    until: tokio::time::Instant,
    /// The address's place among its streams, given back when the stream ends.
    _ticket: Ticket,
}

/// A seat of a friend game counted as connected while its stream is open.
struct Present {
    game: Shared,
    side: usize,
}

impl Drop for Present {
    fn drop(&mut self) {
        let (game, side) = (Shared::clone(&self.game), self.side);
        // The game's lock is async: taken on a task of its own.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let mut entry = game.lock().await;
                entry.connected[side] = entry.connected[side].saturating_sub(1);
                entry.poke();
            });
        }
    }
}

/// How long the browser waits before reconnecting to an ended stream.
const RETRY: Duration = Duration::from_secs(1);

/// `GET /api/games/{id}/events`.
pub async fn events(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    path: Result<Path<String>, PathRejection>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    query: Result<Query<EventsQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let id = game_id(path)?;
    let Query(query) = query?;
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or(query.after);
    let sent = match resume {
        None => 0,
        Some(text) => text.trim().parse::<usize>().map_err(|_| {
            ApiError::bad(
                "bad_event_id",
                format!(
                    "event id {}: expected the number of moves already seen",
                    dama_rules::quote(&text)
                ),
            )
        })?,
    };
    let ticket = stream_ticket(&state, &headers, peer.as_ref())?;
    let game = find(&state, id).await?;
    let seat = query
        .seat
        .or_else(|| seat_secret(&headers).map(str::to_string));
    let (changes, pulse, present) = {
        let mut entry = game.lock().await;
        let side = match entry.seat(seat.as_deref()) {
            Some(Seat::White) if entry.kind == Kind::Friend => Some(0),
            Some(Seat::Black) if entry.kind == Kind::Friend => Some(1),
            _ => None,
        };
        let present = side.map(|side| {
            entry.joined[side] = true;
            entry.connected[side] += 1;
            entry.poke();
            Present {
                game: Shared::clone(&game),
                side,
            }
        });
        (entry.changes.subscribe(), entry.pulse.subscribe(), present)
    };
    let follow = Follow {
        pulse,
        _present: present,
        until: tokio::time::Instant::now() + state.stream_lifetime,
        _ticket: ticket,
        id,
        game,
        changes,
        stopping: state.stopping.clone(),
        sent,
        seat,
    };
    let first = futures_util::stream::iter([Ok::<_, Infallible>(Event::default().retry(RETRY))]);
    let stream = first.chain(
        futures_util::stream::unfold(follow, next_events).flat_map(|batch| {
            futures_util::stream::iter(batch.into_iter().map(Ok::<_, Infallible>))
        }),
    );
    Ok(event_stream(stream))
}

/// The events of the moves committed after those `f` has sent; waits for the next move,
/// and ends when the server stops or the stream's lifetime is over.
async fn next_events(mut f: Follow) -> Option<(Vec<Event>, Follow)> {
    loop {
        if *f.stopping.borrow() {
            return None;
        }
        let batch = {
            let entry = f.game.lock().await;
            let committed = (*f.changes.borrow_and_update()).min(entry.model.game().moves().len());
            (committed > f.sent).then(|| {
                let batch = move_events(f.id, &entry, f.sent, committed, f.seat.as_deref());
                (batch, committed)
            })
        };
        if let Some((batch, committed)) = batch {
            f.sent = committed;
            return Some((batch, f));
        }
        tokio::select! {
            changed = f.changes.changed() => changed.ok()?,
            poked = f.pulse.changed() => {
                poked.ok()?;
                f.pulse.borrow_and_update();
                let event = {
                    let entry = f.game.lock().await;
                    // Sent only once the moves are: its id is the moves seen so far.
                    (entry.model.game().moves().len() == f.sent)
                        .then(|| state_event(f.id, &entry, f.sent, f.seat.as_deref()))
                };
                if let Some(event) = event {
                    return Some((vec![event], f));
                }
            }
            _ = f.stopping.changed() => return None,
            () = tokio::time::sleep_until(f.until) => return None,
        }
    }
}

/// A `state` event: the game as `secret`'s seat sees it (a draw offer, a resignation, who is
/// connected), its id the `ply` moves already sent.
fn state_event(id: GameId, entry: &Entry, ply: usize, secret: Option<&str>) -> Event {
    let view = game_view(id, entry, last_computer_view(entry), entry.seat(secret));
    // `seq` orders the state events (a page drops one older than the last it applied).
    let data = serde_json::json!({"ply": ply, "seq": *entry.pulse.borrow(), "game": view});
    Event::default()
        .id(ply.to_string())
        .event("state")
        .data(data.to_string())
}

/// One event per move `from + 1 ..= to`: its id the number of moves after it, its data the
/// move and, with the last one, the game as `secret`'s seat sees it.
fn move_events(
    id: GameId,
    entry: &Entry,
    from: usize,
    to: usize,
    secret: Option<&str>,
) -> Vec<Event> {
    let game = entry.model.game();
    let variant = game.variant();
    let mut pos = *game.start();
    let mut out = Vec::with_capacity(to - from);
    for (i, &m) in game.moves()[..to].iter().enumerate() {
        let ply = i + 1;
        if ply > from {
            let played = move_view(variant, &pos, m, &landing_path(variant, &pos, m));
            let view = (ply == to)
                .then(|| game_view(id, entry, last_computer_view(entry), entry.seat(secret)));
            let data = serde_json::json!({"ply": ply, "played": played, "game": view});
            out.push(
                Event::default()
                    .id(ply.to_string())
                    .event("move")
                    .data(data.to_string()),
            );
        }
        pos.play_unchecked(m);
    }
    out
}

/// A place among the client address's event streams (game events and live analysis alike),
/// held while the stream is open; 429 `too_many_streams` beyond the per-address cap.
pub(crate) fn stream_ticket(
    state: &State,
    headers: &HeaderMap,
    peer: Option<&Extension<ConnectInfo<SocketAddr>>>,
) -> Result<crate::fair::Ticket, ApiError> {
    let ip = guard::request_ip(state, headers, peer.map(|e| &e.0));
    state
        .streams
        .take(ip, state.streams_per_address)
        .ok_or_else(|| {
            state
                .metrics
                .rate_limited
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            ApiError::too_many_streams(state.streams_per_address)
        })
}
