//! Who may act on a game: the seat a request holds (its secret in `X-Dama-Seat`) and what
//! that seat may do now. The friend actions (resignation, draw offers, presence) join here.

use axum::http::HeaderMap;

use super::error::ApiError;
use super::request::not_over;
use super::store::{Entry, Kind, Seat};

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
