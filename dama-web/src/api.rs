//! The JSON API of `dama serve`: the server owns the rules and the games.
//!
//! This module is the router; the handlers live by resource: `games.rs` (create, show,
//! delete, level), `moves.rs` (targets, the player's move, the computer's reply),
//! `seats.rs` (who may act: seats and the friend actions), `follow.rs` (the event stream),
//! `review.rs` (reviews and PDN), `live.rs` (analysis) and `status.rs` (record, health,
//! counters). What they share is in `state.rs` (the state) and `request.rs` (reading a
//! request, committing a change).
//!
//! Squares are the engine's numbers 1..32 (Italian numbering, 1 at the top left of the
//! unmirrored board); each game's `names` gives the variant's own name of each square.
//!
//! | request | body | answer |
//! | --- | --- | --- |
//! | `GET /api` | | the variants with their rules, the levels, the limits |
//! | `POST /api/games` | `{"variant"?, "level"?, "seed"?, "fen"?, "opponent"?}` | 201, the new game (and its seats' page addresses) |
//! | `GET /api/preview?variant=&level=` | | a new computer game as it looks before the first move, stored nowhere (`id` empty), with `targets` (per square of the player's pieces, what `.../targets` would answer): the page shows it and creates the game with the first move |
//! | `GET /api/games/{id}` | | the game |
//! | `GET /api/games/{id}/events?after=N` | | Server-Sent Events: each move after the N-th |
//! | `DELETE /api/games/{id}` | | 204 (a computer game's owner, a pass game's seat; a friend game is deleted by no one) |
//! | `GET /api/games/{id}/targets?square=N` | | the piece's moves, or the reason it has none; `kings_refused`: the squares a man may not go to because it would capture a king there (Italian), each with the king (`to`, `king`) |
//! | `POST /api/games/{id}/move` | `{"path": [from, landing, ...]}` or `{"move": "22-18"}` | the game and the move played |
//! | `POST /api/games/{id}/reply` | `{"move"?}` | the game after the computer's move, and that move: searched here, or, with `move`, the move the player's browser searched (the engine in WebAssembly), checked and recorded with no search |
//! | `POST /api/games/{id}/level` | `{"level": "easy"}` or `{"level": 2}` | the game (a computer game only) |
//! | `POST /api/games/{id}/resign` | | a friend game: the seat's side resigns |
//! | `POST /api/games/{id}/draw` | `{"action": "offer" \| "accept" \| "decline"}` | a friend game: a draw offered to the other seat, accepted or declined (`draw_offer` in the game) |
//! | `POST /api/games/{id}/rematch` | | a finished friend game: the same start again, colours swapped; each seat's new address in `rematch_url` (pushed to the other seat as a `state` event) |
//! | `GET /api/games/{id}/pdn` | | the game as a PDN file (tags `Event`, `Site`, `Date`, `White`, `Black`, `Result`, `GameType`, `FEN`, `Level`) |
//! | `POST /api/reviews` | `{"pdn", "variant"?, "depth"?, "nodes"?, "stream"?}` | every move of every game with its mark, the score before it, the best move and line (see `review.rs`) |
//! | `GET /api/analysis?fen=&variant=&multipv=3&depth=&nodes=&time_ms=` | | Server-Sent Events: the live lines, the tables' verdict (see `live.rs`) |
//! | `GET /api/me` | | the player's record (the `dama_player` cookie) per level; a game from a set-up position (`from_setup` in the game) is not in it |
//! | `GET /healthz` | | 200 while the server and its database answer (503 and `Retry-After` when not; the body names the database) |
//! | `GET /metrics` | | counters in the Prometheus text format |
//!
//! `opponent` is `computer` (the default), `friend` or `pass`. Every game has an owner: the
//! answer to `POST /api/games` carries the creator's `secret`, sent as the `X-Dama-Seat`
//! header on every later request. A computer game's secret makes its holder the `owner`
//! seat: moves, targets, replies, level changes and deletion need it; anyone else (the
//! review link, the game's address in another browser) may only look (`turn: "watching"`),
//! and is refused with 403 `not_a_player`. A friend game answers with three page addresses:
//! `white_url` (the creator's seat), `black_url` (the invitation) and `watch_url`; a
//! pass-and-play game with `white_url` (one seat that plays both sides) and `watch_url`. A
//! seat is its secret (the page takes it from its address): a move, a selection, a level
//! change or a deletion without a seat of the game is refused with 403, a move out of the
//! seat's turn with 409. A friend game belongs to both seats: neither may delete it (403
//! `shared_game`; it ends by its result, a resignation or an agreed draw, and is forgotten
//! when untouched), and it has no level to change (409 `not_a_computer_game`, as a
//! pass-and-play game). Each committed move is pushed to `GET .../events`, with the number
//! of moves so far as the event's id: a client that reconnects with `Last-Event-ID` (or
//! `?after=N`) gets every move after that one, once.
//!
//! A change is answered only once it is committed to the database.
//!
//! A request that changes something (`POST`, `DELETE`) is taken only from this server's own
//! page: one whose `Origin` names another host than the request's `Host` (behind
//! `--trust-proxy`, the `X-Forwarded-Host` if the proxy sets one), or without `Origin` whose
//! `Sec-Fetch-Site` is `cross-site` or `same-site`, is refused with 403 `other_site`; a
//! program that sends neither header is taken. Its body, if any, must be sent as
//! `Content-Type: application/json`, else 415 `not_json`: another site's page can send a
//! `text/plain` body without asking the browser's permission, never a JSON one. Live
//! analysis (`GET /api/analysis`), which searches, is refused to other sites' pages too.
//!
//! Errors are JSON, `{"error": {"code", "message", "reason"?}}`, with a 4xx status naming
//! the problem: 400 malformed request, 403 not a player of this game (no seat or owner secret)
//! or a request from another site's page, 404 unknown game or route,
//! 405 wrong method, 409 not the moment (the computer's turn, the game is over, the
//! computer is thinking), 413 body too large, 415 a body that is not JSON, 422 an illegal
//! move (with the rules' reason)
//! or a PDN the reader refuses (its message, and `line` and `column`),
//! 429 too many requests from one address (with `Retry-After`), 503 too many live games or
//! the database refused a write, or no analysis slot came free in time.
//!
//! `code` is stable, one of a fixed list: `ambiguous_move`, `analysis_busy`, `bad_action`,
//! `bad_budget`, `bad_event_id`, `bad_fen`, `bad_game_id`, `bad_level`, `bad_opponent`,
//! `bad_path`, `bad_pdn`, `bad_request`, `bad_seed`, `bad_square`, `bad_variant`,
//! `body_timeout`, `body_too_large`, `busy`, `computer_thinking`, `game_not_over`, `game_over`,
//! `illegal_move`, `internal`, `malformed_json`, `malformed_move`, `method_not_allowed`,
//! `needs_server` (never from the server: the page's own engine answering for a game kept in
//! the browser, offline or from a static copy, refuses so what only a server does), `no_offer`, `not_a_computer_game`, `not_a_friend_game`, `not_a_player`, `not_computer_turn`,
//! `not_found`, `not_json`, `not_your_turn`, `offer_pending`, `other_site`, `rate_limited`,
//! `shared_game`, `stopping`, `storage`, `too_long`, `too_many_games`, `too_many_streams`, `unknown_field`,
//! `unknown_game`. The page shows each in its language (a code it does not know, by `message`); `message` is English and may
//! change.

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use dama_rules::Variant;
use dama_search::Level;
use serde::Serialize;
use tower_http::timeout::RequestBodyTimeoutLayer;

use super::assets;
use super::computer::HARD_TIME;
use super::error::{method_not_allowed, not_found};
use super::guard;
use super::live;
use super::request::ok;
use super::review::{self, REVIEW_BODY_LIMIT};
use super::state::{AxState, State, BODY_LIMIT};
use super::views::{names, rules_view, RulesView};
use super::{follow, games, moves, seats, status};

/// The routes: the page, its script and styles, and the API.
pub fn router(state: Arc<State>) -> Router {
    let [csp, nosniff, frames, referrer, opener] = guard::security_headers();
    Router::new()
        .merge(assets::routes::<State>())
        .route("/api", get(info))
        .route("/api/games", post(games::new_game))
        .route("/api/preview", get(games::preview))
        .route("/api/games/{id}", get(games::show).delete(games::forget))
        .route("/api/games/{id}/targets", get(moves::targets))
        .route("/api/games/{id}/move", post(moves::play))
        .route("/api/games/{id}/reply", post(moves::reply))
        .route("/api/games/{id}/level", post(games::set_level))
        .route("/api/games/{id}/resign", post(seats::resign))
        .route("/api/games/{id}/draw", post(seats::draw))
        .route("/api/games/{id}/rematch", post(seats::rematch))
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
            guard::refuse_other_sites,
        ))
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
}
