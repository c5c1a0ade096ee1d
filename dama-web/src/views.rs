//! What the API answers: the shared views of `dama_play::view`, completed with what only a
//! server knows (seats, friends, presence, resignations and agreed draws).

pub(super) use dama_play::view::*;

use dama_rules::Color;

use super::error::ApiError;
use super::store::{Entry, Finish, GameId, Kind, Seat};

/// How the game ended, from the player's side (`human`); between friends the winner is
/// named by colour.
pub(super) fn finish_view(finish: Finish, human: Color, kind: Kind) -> OutcomeView {
    match finish {
        Finish::Rules(o) => outcome_view(o, human, kind != Kind::Computer),
        Finish::Resigned(c) => OutcomeView {
            result: finish.pdn(),
            winner: Some((!c).name()),
            reason: "resigned",
            message: finish.to_string(),
        },
        Finish::Agreed => OutcomeView {
            result: finish.pdn(),
            winner: None,
            reason: "agreed",
            message: finish.to_string(),
        },
    }
}

/// Game `id` as the one holding `seat` sees it, with `last`, the computer's last move.
pub(super) fn game_view(
    id: GameId,
    entry: &Entry,
    last: Option<MoveView>,
    seat: Option<Seat>,
) -> GameView {
    let model = &entry.model;
    let game = model.game();
    let mover = game.position().turn();
    let mut view = GameView::of(id.to_string(), model);
    let turn = if entry.finish().is_some() {
        "over"
    } else if entry.kind == Kind::Computer {
        if seat.is_none() {
            "watching"
        } else if model.human_to_move() {
            "player"
        } else {
            "computer"
        }
    } else {
        match seat {
            Some(s) if s.plays(mover) => "player",
            Some(_) => "opponent",
            None => "watching",
        }
    };
    if turn != view.turn {
        view.movable = if turn == "player" {
            movable(game)
        } else {
            Vec::new()
        };
        view.turn = turn;
    }
    let friendly = entry.kind != Kind::Computer;
    (view.invite_url, view.watch_url) = match (&entry.secrets, seat) {
        (Some([_, black]), Some(Seat::White)) if entry.kind == Kind::Friend => {
            (Some(seat_url(id, Some(black))), Some(seat_url(id, None)))
        }
        (Some(_), Some(_)) if friendly => (None, Some(seat_url(id, None))),
        _ => (None, None),
    };
    if seat == Some(Seat::Black) {
        view.score = model.score_of(Color::Black);
    }
    view.player = match seat {
        Some(Seat::Black) => "black",
        Some(Seat::Both) => mover.name(),
        _ => model.human().name(),
    };
    view.opponent = entry.kind.name();
    view.seat = seat.map(Seat::name);
    view.scores = friendly.then(|| Scores {
        white: model.score_of(Color::White),
        black: model.score_of(Color::Black),
    });
    view.thinking = entry.thinking;
    view.last_computer_move = last;
    view.outcome = entry
        .finish()
        .map(|o| finish_view(o, model.human(), entry.kind));
    view.draw_offer = entry.draw_offer.map(Color::name);
    view.presence = (entry.kind == Kind::Friend).then(|| Presence {
        white: SeatPresence {
            joined: entry.joined[0],
            connected: entry.connected[0] > 0,
        },
        black: SeatPresence {
            joined: entry.joined[1],
            connected: entry.connected[1] > 0,
        },
    });
    view.from_setup = entry.set_up();
    view.rematch_url = entry.rematch.as_ref().and_then(|r| match seat {
        Some(Seat::White) => Some(seat_url(r.id, Some(&r.secrets[1]))),
        Some(Seat::Black) => Some(seat_url(r.id, Some(&r.secrets[0]))),
        None => Some(seat_url(r.id, None)),
        Some(Seat::Owner | Seat::Both) => None,
    });
    view
}

/// The page address of game `id` for the seat with `secret` (none: to watch).
pub(super) fn seat_url(id: GameId, secret: Option<&str>) -> String {
    match secret {
        Some(s) => format!("/?game={id}&seat={s}"),
        None => format!("/?game={id}"),
    }
}

/// The computer's last move in `entry` as the page shows it.
pub(super) fn last_computer_view(entry: &Entry) -> Option<MoveView> {
    dama_play::view::last_computer_view(&entry.model)
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> ApiError {
        match r.reason {
            Some(reason) => ApiError::illegal(*reason),
            None => ApiError::new(
                axum::http::StatusCode::from_u16(r.status)
                    .unwrap_or(axum::http::StatusCode::BAD_REQUEST),
                r.code,
                r.message,
            ),
        }
    }
}
