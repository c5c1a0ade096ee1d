//! Game reviews: PDN in (`POST /api/reviews`), every position searched at a fixed budget on
//! the analysis slots, every move marked by what it loses (the review itself, and its marks,
//! are `dama_play::review`'s, which the browser's engine runs too); and PDN out
//! (`GET /api/games/{id}/pdn`).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{ConnectInfo, Extension, Path};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use dama_play::review::{review_game, thresholds, Eval, Item, PdnRefusal, MAX_NODES};
use dama_rules::notation::pdn::{self, GameResult, PdnGame};
use dama_rules::{Color, Game, Variant};
use dama_search::Limits;
use serde_json::Value;

use super::analysis::{Analyst, Asked, REVIEW_MAX_NODES};
use super::error::{no_store, ApiError};
use super::request::{body_object, found, limited, ok, shown, variant_of};
use super::state::State;
use super::store::{Entry, Kind};

pub use dama_play::review::REVIEW_BODY_LIMIT;

/// The games of `text` (see `dama_play::review::games_of`), a refusal as an API error.
fn games_of(text: &str, default: Variant) -> Result<Vec<PdnGame>, ApiError> {
    dama_play::review::games_of(text, default).map_err(|r: PdnRefusal| {
        let mut e = ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, r.code, r.message);
        e.at = r.at;
        e
    })
}

/// Searches one position with a slot of its own; `None` when the server stops.
async fn evaluate(analyst: Arc<Analyst>, game: Game, limits: Limits) -> Option<Eval> {
    let permit = analyst.slot(None).await?;
    analyst.search(permit, game, limits, 1, |_| true).await
}

/// Where a streamed review's lines go (none: the review is answered whole).
type Lines = Option<tokio::sync::mpsc::Sender<Bytes>>;

/// Sends `line` to `lines`: false when nobody listens any more.
async fn send(lines: Lines, line: Vec<u8>) -> bool {
    match lines {
        Some(tx) => tx.send(Bytes::from(line)).await.is_ok(),
        None => true,
    }
}

/// Reviews `g` on the analysis slots, each item sent to `lines` as it is done.
async fn review(
    analyst: &Arc<Analyst>,
    index: usize,
    g: &PdnGame,
    limits: Limits,
    lines: &Lines,
) -> Option<dama_play::review::GameReview> {
    review_game(
        index,
        g,
        |game| evaluate(Arc::clone(analyst), game, limits),
        |line| send(lines.clone(), line),
    )
    .await
}

/// A number of a request body (absent or null: none).
fn number_of(
    fields: &serde_json::Map<String, Value>,
    name: &str,
    max: u64,
) -> Result<Option<u64>, ApiError> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|&n| n >= 1 && n <= max)
            .map(Some)
            .ok_or_else(|| {
                ApiError::bad(
                    "bad_budget",
                    format!("{name} {}: expected a whole number 1..{max}", shown(v)),
                )
            }),
    }
}

/// What a review request asks for.
struct ReviewAsk {
    games: Vec<PdnGame>,
    limits: Limits,
    stream: bool,
}

fn review_ask(body: &[u8]) -> Result<ReviewAsk, ApiError> {
    let fields = body_object(body, &["pdn", "variant", "depth", "nodes", "stream"])?;
    let text = match fields.get("pdn") {
        Some(Value::String(s)) => s,
        Some(v) => {
            return Err(ApiError::bad(
                "bad_pdn",
                format!("pdn {}: expected the text of a PDN file", shown(v)),
            ))
        }
        None => {
            return Err(ApiError::bad(
                "bad_pdn",
                "which games? send {\"pdn\": \"[GameType \\\"22\\\"] 1. 22-18 *\"}",
            ))
        }
    };
    let variant = variant_of(fields.get("variant"))?;
    let asked = Asked {
        depth: number_of(&fields, "depth", u64::from(super::analysis::MAX_DEPTH))?
            .map(|d| d as u32),
        nodes: number_of(&fields, "nodes", REVIEW_MAX_NODES)?,
        time_ms: None,
    };
    let stream = match fields.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => {
            return Err(ApiError::bad(
                "bad_request",
                format!("stream {}: expected true or false", shown(v)),
            ))
        }
    };
    let games = games_of(text, variant)?;
    let limits = asked.review();
    let positions: u64 = games.iter().map(|g| g.moves.len() as u64 + 1).sum();
    let per = limits.nodes.unwrap_or(REVIEW_MAX_NODES);
    if positions.saturating_mul(per) > MAX_NODES {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "too_long",
            format!(
                "{positions} positions at {per} nodes each is more than the {MAX_NODES} nodes one \
                 review may search: ask for fewer nodes or send fewer games"
            ),
        ));
    }
    Ok(ReviewAsk {
        games,
        limits,
        stream,
    })
}

/// `POST /api/reviews`: every game of the PDN reviewed; with `"stream": true`, as JSON Lines
/// while the work goes on.
pub async fn reviews(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    // A review counts against the address's limit on computer replies.
    limited(&state, state.replies.as_ref(), &headers, peer.as_ref())?;
    let ask = review_ask(&body?)?;
    let analyst = Arc::clone(&state.analyst);
    if ask.stream {
        return Ok(streamed(analyst, ask));
    }
    let mut out = Vec::with_capacity(ask.games.len());
    for (i, g) in ask.games.iter().enumerate() {
        let r = review(&analyst, i, g, ask.limits, &None).await;
        out.push(r.ok_or_else(stopping)?);
    }
    Ok(ok(
        StatusCode::OK,
        serde_json::json!({ "games": out, "thresholds": thresholds() }),
    ))
}

fn stopping() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "stopping",
        "the server is stopping; the review did not finish",
    )
}

/// The review as JSON Lines, made on a task of its own that ends when the client goes.
fn streamed(analyst: Arc<Analyst>, ask: ReviewAsk) -> Response {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        let lines = Some(tx);
        for (i, g) in ask.games.iter().enumerate() {
            if review(&analyst, i, g, ask.limits, &lines).await.is_none() {
                if analyst.is_stopping() {
                    let message = "the server is stopping; the review did not finish";
                    let line = dama_play::review::line_of(&Item::Stopped { message });
                    send(lines.clone(), line).await;
                }
                return;
            }
        }
        let games = ask.games.len();
        send(lines, dama_play::review::line_of(&Item::Done { games })).await;
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, std::convert::Infallible>(b), rx))
    });
    let mut res = Body::from_stream(stream).into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

// ---------------------------------------------------------------------------------------
// PDN out

/// The calendar date (year, month, day) of Unix second `secs` (UTC).
pub fn civil_date(secs: i64) -> (i64, u32, u32) {
    // Howard Hinnant's days-to-civil, on days since 1970-01-01.
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Game `entry` as PDN: tags `Event`, `Site`, `Date` (its creation, UTC), `White`, `Black`,
/// `Result`, `GameType` (and `FEN` from another start), and against the computer `Level`
/// (the level it played at last, by name).
pub fn pdn_of(entry: &Entry) -> PdnGame {
    let game = entry.model.game();
    let mut g = PdnGame::new(game.variant(), *game.start());
    g.moves = game.moves().to_vec();
    g.result = match entry.finish() {
        None => GameResult::Unknown,
        Some(f) => match f.winner() {
            Some(Color::White) => GameResult::WhiteWins,
            Some(Color::Black) => GameResult::BlackWins,
            None => GameResult::Draw,
        },
    };
    let (y, m, d) = civil_date(entry.created);
    let level = entry.model.level();
    let (white, black) = match entry.kind {
        Kind::Computer => {
            let computer = format!("dama ({})", dama_play::title(level));
            if entry.model.human() == Color::White {
                ("Player".to_string(), computer)
            } else {
                (computer, "Player".to_string())
            }
        }
        Kind::Friend | Kind::Pass => ("?".to_string(), "?".to_string()),
    };
    let mut tags = vec![
        ("Event", "dama serve".to_string()),
        ("Site", "dama serve".to_string()),
        ("Date", format!("{y:04}.{m:02}.{d:02}")),
        ("White", white),
        ("Black", black),
    ];
    if entry.kind == Kind::Computer {
        tags.push(("Level", level.name().to_string()));
    }
    g.tags = tags.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    g
}

/// `GET /api/games/{id}/pdn`: the game as a PDN file.
pub async fn game_pdn(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let (id, game) = found(&state, path).await?;
    let g = pdn_of(&*game.lock().await);
    let text = pdn::write(&g)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    let disposition = format!("attachment; filename=\"dama-{id}.pdn\"");
    let mut res = (no_store(), text).into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-pdn; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_days_have_their_calendar_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(951_782_400), (2000, 2, 29));
        assert_eq!(civil_date(1_798_761_599), (2026, 12, 31));
    }

    #[test]
    fn pdn_errors_quote_the_reader_with_line_and_column() {
        let err = games_of("[GameType \"22\"]\n1. 22-18 bogus *", Variant::Italian).unwrap_err();
        assert_eq!(err.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(err.at, Some((2, 10)));
        assert!(err.message.contains("\"bogus\""), "{}", err.message);
        assert!(
            err.message.ends_with("(line 2, column 10)"),
            "{}",
            err.message
        );
        let none = games_of("  ", Variant::Italian).unwrap_err();
        assert_eq!(none.code, "bad_pdn");
    }
}
