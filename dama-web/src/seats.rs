//! Who may act on a game: the seat a request holds (its secret in `X-Dama-Seat`) and what
//! that seat may do now. The friend actions (resignation, draw offers, presence) join here.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Extension, Path};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use dama_play::Model;
use dama_rules::Color;
use serde_json::Value;

use super::error::ApiError;
use super::games::create;
use super::guard::Player;
use super::request::{body_object, commit, found, not_over, ok, shown, undo_point};
use super::state::AxState;
use super::store::{self, Entry, Finish, Kind, Rematch, Seat};
use super::views::{game_view, last_computer_view};

/// The seat secret a request carries (`X-Dama-Seat`).
pub(crate) fn seat_secret(headers: &HeaderMap) -> Option<&str> {
    headers.get("x-dama-seat").and_then(|v| v.to_str().ok())
}

/// The seat of one who may change the game: the owner of a computer game, either seat
/// (or the one seat) of a game between people. A watcher, or a made-up secret, gets 403.
pub(crate) fn a_player(entry: &Entry, seat: Option<Seat>) -> Result<Seat, ApiError> {
    seat.ok_or_else(|| match entry.kind {
        Kind::Computer => ApiError::forbidden(
            "not_a_player",
            "this game belongs to the page that started it: only that page (with the game's \
             secret in X-Dama-Seat) may play or change it; review and watch links are read-only",
        ),
        Kind::Friend | Kind::Pass => ApiError::forbidden(
            "not_a_player",
            "you are watching this game: only the players' links (with their seat's secret in \
             X-Dama-Seat) may play or change it",
        ),
    })
}

/// Refuses when the one holding `seat` may not act on the game now: 403 without a seat,
/// 409 when it is not the moment.
pub(crate) fn players_turn(entry: &Entry, seat: Option<Seat>) -> Result<(), ApiError> {
    let seat = a_player(entry, seat)?;
    if entry.thinking {
        return Err(ApiError::conflict(
            "computer_thinking",
            "the computer is thinking: wait for its move (POST .../reply)",
        ));
    }
    not_over(entry)?;
    if entry.kind != Kind::Computer {
        let mover = entry.model.game().position().turn();
        if !seat.plays(mover) {
            return Err(ApiError::conflict(
                "not_your_turn",
                format!("it is {}'s turn: wait for your friend's move", mover.name()),
            ));
        }
        return Ok(());
    }
    if !entry.model.human_to_move() {
        return Err(ApiError::conflict(
            "not_your_turn",
            "it is the computer's turn: ask for its move (POST .../reply)",
        ));
    }
    Ok(())
}

/// The side a seat of a friend game plays, for a resignation or a draw offer.
fn friend_side(entry: &Entry, seat: Option<Seat>) -> Result<Color, ApiError> {
    let seat = a_player(entry, seat)?;
    match (entry.kind, seat) {
        (Kind::Friend, Seat::White) => Ok(Color::White),
        (Kind::Friend, Seat::Black) => Ok(Color::Black),
        _ => Err(ApiError::conflict(
            "not_a_friend_game",
            "only a game between two browsers is resigned or drawn by agreement: start a new \
             game instead",
        )),
    }
}

/// `POST /api/games/{id}/resign`: the seat's side resigns; the result is final and in both
/// players' records.
pub(crate) async fn resign(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    Extension(player): Extension<Player>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    body_object(&body?, &[])?;
    let (id, game) = found(&state, path).await?;
    let mut entry = game.lock().await;
    let seat = entry.seat(seat_secret(&headers));
    let side = friend_side(&entry, seat)?;
    not_over(&entry)?;
    let undo = undo_point(&entry);
    // The result counts in the record of whoever holds the seat, moved or not.
    entry.players[store::side(side)].get_or_insert(player.0);
    entry.ended = Some(Finish::Resigned(side));
    entry.draw_offer = None;
    commit(&state, id, &mut entry, undo).await?;
    entry.poke();
    tracing::debug!(%id, side = side.name(), "resigned");
    let last = last_computer_view(&entry);
    Ok(ok(StatusCode::OK, game_view(id, &entry, last, seat)))
}

/// `POST /api/games/{id}/draw` `{"action": "offer" | "accept" | "decline"}`: a draw offered
/// to the other seat (pushed to it and to the watchers), accepted (the game ends drawn) or
/// declined. An offer stands until it is answered or a move is played.
pub(crate) async fn draw(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    Extension(player): Extension<Player>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let fields = body_object(&body?, &["action"])?;
    let action = match fields.get("action") {
        Some(Value::String(s)) if ["offer", "accept", "decline"].contains(&s.as_str()) => s.clone(),
        Some(v) => {
            return Err(ApiError::bad(
                "bad_action",
                format!(
                    "action {}: expected \"offer\", \"accept\" or \"decline\"",
                    shown(v)
                ),
            ))
        }
        None => {
            return Err(ApiError::bad(
                "bad_action",
                "which action? send {\"action\": \"offer\"}, \"accept\" or \"decline\"",
            ))
        }
    };
    let (id, game) = found(&state, path).await?;
    let mut entry = game.lock().await;
    let seat = entry.seat(seat_secret(&headers));
    let side = friend_side(&entry, seat)?;
    not_over(&entry)?;
    let offered_to_me = entry.draw_offer == Some(!side);
    match action.as_str() {
        "accept" if offered_to_me => {}
        "offer" if offered_to_me => {}
        "offer" if entry.draw_offer == Some(side) => {
            return Err(ApiError::conflict(
                "offer_pending",
                "your draw offer waits for your friend's answer",
            ))
        }
        "offer" => {
            entry.draw_offer = Some(side);
            entry.poke();
            return Ok(ok(StatusCode::OK, game_view(id, &entry, None, seat)));
        }
        "decline" if offered_to_me => {
            entry.draw_offer = None;
            entry.poke();
            return Ok(ok(StatusCode::OK, game_view(id, &entry, None, seat)));
        }
        _ => {
            return Err(ApiError::conflict(
                "no_offer",
                "there is no draw offer to answer: offer one with {\"action\": \"offer\"}",
            ))
        }
    }
    // Accepted (or offered back): the game ends drawn.
    let undo = undo_point(&entry);
    entry.players[store::side(side)].get_or_insert(player.0);
    entry.ended = Some(Finish::Agreed);
    entry.draw_offer = None;
    commit(&state, id, &mut entry, undo).await?;
    entry.poke();
    tracing::debug!(%id, "draw agreed");
    Ok(ok(StatusCode::OK, game_view(id, &entry, None, seat)))
}

/// `POST /api/games/{id}/rematch`: a finished friend game is played again from the same
/// start, the colours swapped: the first seat to ask creates the new game, and both seats (and
/// the watchers) find their new page address in the old game's `rematch_url`, pushed to them
/// as a `state` event. Asked again, the same rematch.
pub(crate) async fn rematch(
    axum::extract::State(state): AxState,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    body_object(&body?, &[])?;
    let (id, game) = found(&state, path).await?;
    let mut entry = game.lock().await;
    let seat = entry.seat(seat_secret(&headers));
    let side = friend_side(&entry, seat)?;
    if entry.finish().is_none() {
        return Err(ApiError::conflict(
            "game_not_over",
            "the game is not over: a rematch follows a finished game (resign or offer a draw)",
        ));
    }
    if entry.rematch.is_none() {
        let g = entry.model.game();
        let mut next = Entry::new(
            Model::friends(g.variant(), *g.start()),
            Kind::Friend,
            rand::random(),
            None,
        );
        // The colours swapped: the old game's Black plays White, and the one asking is there.
        next.players = [entry.players[1].clone(), entry.players[0].clone()];
        next.joined = [side == Color::Black, side == Color::White];
        let secrets = next.secrets.clone().unwrap_or_default();
        let (next_id, _) = create(&state, next).await?;
        tracing::info!(%id, rematch = %next_id, "rematch");
        entry.rematch = Some(Rematch {
            id: next_id,
            secrets,
        });
        entry.poke();
    }
    let last = last_computer_view(&entry);
    Ok(ok(StatusCode::OK, game_view(id, &entry, last, seat)))
}
