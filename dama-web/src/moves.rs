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
use dama_play::{king_capture_refused, piece_moves};
use dama_rules::explain::Candidate;
use dama_rules::notation;
use dama_rules::{with_rules, Color, Error, Game, Illegal, Move, Square};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::computer::SearchError;
use super::error::ApiError;
use super::guard::Player;
use super::names;
use super::request::{
    body_object, commit, find, game_id, limited, not_over, ok, shown, square_of, undo_point,
};
use super::seats::{a_player, players_turn, seat_secret};
use super::state::{AxState, State};
use super::store::{side, Entry, GameId, Seat, Shared};
use super::views::{
    game_view, king_reason, landing_path, last_computer_view, move_view, numbers, reason_view,
    GameView, MoveView, ReasonView,
};

#[derive(Deserialize)]
pub(crate) struct TargetsQuery {
    square: Option<String>,
}

#[derive(Serialize)]
struct PieceMove {
    #[serde(flatten)]
    mv: MoveView,
    /// Every landing path the move may take (usually one).
    paths: Vec<Vec<u8>>,
}

/// A piece's moves, or why it has none (`GET .../targets`).
#[derive(Serialize)]
pub(crate) struct TargetsView {
    square: u8,
    moves: Vec<PieceMove>,
    /// The squares the piece may land on first.
    targets: Vec<u8>,
    /// The squares a man may not go to because it would capture a king there (Italian),
    /// each with the king jumped over when the step passes one.
    kings_refused: Vec<KingRefused>,
    reason: Option<ReasonView>,
}

#[derive(Serialize)]
struct KingRefused {
    to: u8,
    king: Option<u8>,
}

/// The empty squares the man on `from` may not go to because it would capture a king there.
fn kings_refused(game: &Game, from: Square) -> Vec<KingRefused> {
    let pos = game.position();
    Square::ALL
        .into_iter()
        .filter(|&to| pos.piece_at(to).is_none())
        .filter_map(|to| {
            king_capture_refused(game.variant(), pos, from, to).map(|r| KingRefused {
                to: to.number(),
                king: r.king.map(Square::number),
            })
        })
        .collect()
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

/// The moves of the piece on `sq` in `g` with their landing paths, or the reason it has none.
pub(crate) fn piece_view(g: &Game, sq: Square) -> TargetsView {
    let variant = g.variant();
    match piece_moves(variant, g.position(), sq) {
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
                kings_refused: kings_refused(g, sq),
                reason: None,
            }
        }
        Err(why) => TargetsView {
            square: sq.number(),
            moves: Vec::new(),
            targets: Vec::new(),
            kings_refused: kings_refused(g, sq),
            reason: Some(reason_view(g, &why)),
        },
    }
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
    let first = landings.first().copied().unwrap_or(last);
    let king_refused =
        || king_capture_refused(variant, pos, from, first).map(|r| king_reason(variant, r));
    let list = piece_moves(variant, pos, from).map_err(|why| {
        ApiError::illegal(king_refused().unwrap_or_else(|| reason_view(game, &why)))
    })?;
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
            if let Some(reason) = king_refused() {
                return Err(ApiError::illegal(reason));
            }
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
    use super::*;
    use crate::request::body_object;
    use dama_rules::notation::fen;
    use dama_rules::Variant;

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
    fn a_man_jumping_a_king_is_told_it_may_not_capture_kings() {
        let game = Game::from_position(Variant::Italian, fen::parse("W:W22,30:BK18").unwrap());
        let sq = |n| Square::new(n).unwrap();
        let reason = move_of_path(&game, &[sq(22), sq(13)])
            .unwrap_err()
            .reason
            .unwrap();
        assert_eq!(reason.code, "man_takes_king");
        assert_eq!(reason.squares, [18]);
        assert!(
            reason.message.contains("capture a king"),
            "{}",
            reason.message
        );
        let refused = kings_refused(&game, sq(22));
        assert_eq!(refused.len(), 1);
        assert_eq!((refused[0].to, refused[0].king), (13, Some(18)));
        // Spanish men take kings: no such refusal there.
        let spanish = Game::from_position(Variant::Spanish, *game.position());
        assert!(kings_refused(&spanish, sq(22)).is_empty());
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
