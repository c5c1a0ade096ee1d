//! The player's record (`GET /api/me`), health (`GET /healthz`) and counters (`GET /metrics`).

use std::sync::Arc;

use axum::extract::Extension;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use dama_search::Level;
use serde::Serialize;

use super::error::{no_store, ApiError};
use super::guard::Player;
use super::request::ok;
use super::state::State;

#[derive(Serialize, Default)]
struct RecordView {
    level: String,
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    score: u64,
}

#[derive(Serialize)]
struct MeView {
    player: String,
    levels: Vec<RecordView>,
    total: RecordView,
}

pub async fn me(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(player): Extension<Player>,
) -> Result<Response, ApiError> {
    let who = player.0.clone();
    let records = state
        .store
        .db()
        .records(&who)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    let order = |level: &str| {
        Level::ALL
            .iter()
            .position(|l| l.name() == level)
            .unwrap_or(Level::ALL.len())
    };
    let mut levels: Vec<RecordView> = records
        .into_iter()
        .map(|r| RecordView {
            level: r.level,
            games: r.games,
            wins: r.wins,
            draws: r.draws,
            losses: r.losses,
            score: r.score,
        })
        .collect();
    levels.sort_by_key(|r| order(&r.level));
    let mut total = RecordView {
        level: "all".into(),
        ..RecordView::default()
    };
    for r in &levels {
        total.games += r.games;
        total.wins += r.wins;
        total.draws += r.draws;
        total.losses += r.losses;
        total.score += r.score;
    }
    let view = MeView {
        player: player.0,
        levels,
        total,
    };
    Ok(ok(StatusCode::OK, view))
}

/// `GET /healthz`: 200 when the database answers (and, on PostgreSQL, the other servers'
/// changes reach this one), else 503 with `Retry-After`; the body says which database, its
/// schema version, and what is wrong.
pub async fn healthz(axum::extract::State(state): axum::extract::State<Arc<State>>) -> Response {
    let db = state.store.db();
    let kind = db.kind();
    let (status, body) = match db.version().await {
        Ok(schema) if db.relay_up() => (
            StatusCode::OK,
            serde_json::json!({"status": "ok", "database": kind, "schema": schema}),
        ),
        Ok(schema) => (
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({"status": "relay_down", "database": kind, "schema": schema,
                "error": "not listening to the other servers' changes yet"}),
        ),
        Err(err) => (
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({"status": "database_down", "database": kind,
                "error": err.to_string()}),
        ),
    };
    let mut res = ok(status, body);
    if status != StatusCode::OK {
        res.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
    }
    res
}

pub async fn metrics(axum::extract::State(state): axum::extract::State<Arc<State>>) -> Response {
    let stored = state.store.db().count().await.ok();
    let text = state.metrics.render(state.store.len(), stored);
    let kind = HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");
    ([(header::CONTENT_TYPE, kind)], no_store(), text).into_response()
}
