//! Live analysis: `GET /api/analysis?fen=...&variant=...&multipv=3` answers with Server-Sent
//! Events while one search runs, and ends when its budget is spent.
//!
//! Events, each a JSON object:
//! - `table` first, where the endgame tables cover the position: `result` (`win`, `draw`,
//!   `loss` for the side to move) and `plies` to the next conversion;
//! - `info` after each completed iteration of each line: `depth`, `multipv` (1 = best),
//!   `score`, `score_text`, `nodes`, `time_ms`, and the line (`move`, `text`, `arrow`, `pv`,
//!   `pv_text`);
//! - `done` last: `depth`, `nodes`, `lines` (the final lines, best first) and `table`.
//!
//! The search has a budget (`time_ms`, at most 30 s, 10 s unless asked; `depth`; `nodes`) and
//! a slot of the analysis's own (503 `analysis_busy` when none is free within 10 s); it stops
//! as soon as the page closes the stream. The stream counts against the client address's cap
//! on event streams, as a game's does (429 `too_many_streams` beyond), and ends after the
//! same lifetime.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{ConnectInfo, Extension, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::Event;
use axum::response::Response;
use dama_rules::notation::fen;
use dama_rules::{Game, Variant};
use serde::Deserialize;
use serde_json::json;

use super::analysis::{line_view, table_view, Asked, MAX_LINES, SLOT_WAIT};
use super::error::ApiError;
use super::request::{event_stream, limited, variant_of};
use super::state::State;

/// The query of `GET /api/analysis`.
#[derive(Deserialize)]
pub struct AnalysisQuery {
    fen: Option<String>,
    variant: Option<String>,
    multipv: Option<String>,
    depth: Option<String>,
    nodes: Option<String>,
    time_ms: Option<String>,
}

/// `text` as a number 1..=`max`, named `name` in the error.
fn number(name: &str, text: Option<&str>, max: u64) -> Result<Option<u64>, ApiError> {
    let Some(text) = text else { return Ok(None) };
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|&n| (1..=max).contains(&n))
        .map(Some)
        .ok_or_else(|| {
            ApiError::bad(
                "bad_budget",
                format!(
                    "{name} {}: expected a whole number 1..{max}",
                    dama_rules::quote(text)
                ),
            )
        })
}

/// The game to analyse and how: the position, its rules, the lines and the budget.
fn ask(q: &AnalysisQuery) -> Result<(Game, usize, Asked), ApiError> {
    let variant = match q.variant.as_deref() {
        None | Some("") => Variant::Italian,
        Some(s) => variant_of(Some(&serde_json::Value::String(s.to_string())))?,
    };
    let pos = match q.fen.as_deref() {
        None | Some("") => dama_rules::Position::start(),
        Some(text) => fen::parse(text).map_err(|e| ApiError::bad("bad_fen", e.to_string()))?,
    };
    let lines = number("multipv", q.multipv.as_deref(), MAX_LINES as u64)?.unwrap_or(3) as usize;
    let asked = Asked {
        depth: number("depth", q.depth.as_deref(), 40)?.map(|d| d as u32),
        nodes: number("nodes", q.nodes.as_deref(), u64::MAX)?,
        time_ms: number("time_ms", q.time_ms.as_deref(), 30_000)?,
    };
    Ok((Game::from_position(variant, pos), lines, asked))
}

/// `GET /api/analysis`: the live lines as Server-Sent Events.
pub async fn analysis(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    query: Result<Query<AnalysisQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    // An analysis counts against the address's limit on computer replies.
    limited(&state, state.replies.as_ref(), &headers, peer.as_ref())?;
    let Query(q) = query?;
    let (game, lines, asked) = ask(&q)?;
    // A stream like a game's: under the address's cap on streams, and with their lifetime.
    let ticket = crate::follow::stream_ticket(&state, &headers, peer.as_ref())?;
    let until = tokio::time::Instant::now() + state.stream_lifetime;
    let analyst = Arc::clone(&state.analyst);
    let permit = analyst.slot(Some(SLOT_WAIT)).await.ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "analysis_busy",
            format!(
                "all {} analysis slots are busy: try again in a few seconds",
                analyst.slots()
            ),
        )
    })?;
    let variant = game.variant();
    let pos = *game.position();
    let (tx, rx) = tokio::sync::mpsc::channel::<Event>(64);
    if let Some(v) = analyst.table(variant, &pos) {
        let data = json!(table_view(v)).to_string();
        let _ = tx.try_send(Event::default().event("table").data(data));
    }
    let info_tx = tx.clone();
    tokio::spawn(async move {
        let eval = analyst
            .search(permit, game, asked.live(), lines, move |info| {
                let line = line_view(variant, &pos, info.score, &info.pv);
                let data = json!({
                    "depth": info.depth,
                    "seldepth": info.seldepth,
                    "multipv": info.multipv,
                    "nodes": info.nodes,
                    "time_ms": info.time.as_millis() as u64,
                    "line": line,
                    "score": info.score.0,
                    "score_text": info.score.to_string(),
                });
                // The page closed the stream: stop.
                info_tx
                    .blocking_send(Event::default().event("info").data(data.to_string()))
                    .is_ok()
            })
            .await;
        let done = match eval {
            Some(e) => json!({
                "depth": e.depth,
                "nodes": e.nodes,
                "score": e.score.0,
                "score_text": e.score.to_string(),
                "lines": e.lines.iter()
                    .filter_map(|l| line_view(variant, &pos, l.score, &l.pv))
                    .collect::<Vec<_>>(),
                "table": e.table.map(table_view),
            }),
            None => json!({"stopped": true}),
        };
        let _ = tx
            .send(Event::default().event("done").data(done.to_string()))
            .await;
    });
    // The ticket is held while the stream lasts; past its lifetime the stream ends (and the
    // search with it: its sender is closed).
    let stream = futures_util::stream::unfold((rx, ticket), move |(mut rx, ticket)| async move {
        tokio::select! {
            e = rx.recv() => e.map(|e| (Ok::<_, Infallible>(e), (rx, ticket))),
            () = tokio::time::sleep_until(until) => None,
        }
    });
    Ok(event_stream(stream))
}
