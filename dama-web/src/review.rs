//! Game reviews: PDN in (`POST /api/reviews`), every position searched at a fixed budget,
//! every move marked by what it loses; and PDN out (`GET /api/games/{id}/pdn`).
//!
//! # Marks
//!
//! A move's loss is the mover's score before it (the best move's) minus the mover's score
//! after it (the negated score of the next position, searched at the same budget), both
//! first clamped to ±[`CLAMP`] hundredths (5 men: beyond that a position is won or lost, so
//! going from +9 to +6 loses nothing that matters, while a win thrown into a draw loses 500).
//! A loss of at least [`INACCURACY`] (half a man) is `?!`, of [`MISTAKE`] (a man) `?`, of
//! [`BLUNDER`] (two men, or a won position no longer won, or a drawn one lost) `??`. The
//! engine's own choice and a forced move (the only legal one) are never marked.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{ConnectInfo, Extension, Path};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use dama_rules::notation::fen;
use dama_rules::notation::pdn::{self, GameResult, PdnGame};
use dama_rules::{Color, Error, Game, Position, Square, Variant};
use dama_search::{Limits, Score};
use serde::Serialize;
use serde_json::Value;

use super::analysis::{line_view, score_view, table_view, Analyst, Asked, ScoreView, TableView};
use super::analysis::{Eval, LineView, REVIEW_MAX_NODES};
use super::error::{no_store, ApiError};
use super::request::{body_object, found, limited, ok, shown, variant_of};
use super::state::State;
use super::store::{Entry, Kind};
use super::views::{landing_path, move_text, numbers};

/// Scores are clamped to ±this (hundredths of a man) before a loss is measured.
pub const CLAMP: i32 = 500;
/// The least loss marked `?!`.
pub const INACCURACY: i32 = 50;
/// The least loss marked `?`.
pub const MISTAKE: i32 = 100;
/// The least loss marked `??`.
pub const BLUNDER: i32 = 200;
/// The most positions (moves and final positions, over every game) one review may ask for.
pub const MAX_POSITIONS: usize = 1_000;
/// The most nodes one review may ask for in all (positions × nodes per position): about two
/// minutes of one core.
pub const MAX_NODES: u64 = 200_000_000;
/// The largest PDN text a review accepts, in bytes (the body of `POST /api/reviews`).
pub const REVIEW_BODY_LIMIT: usize = 256 * 1024;

/// The loss of a move: the mover's clamped score `before` it, minus the mover's clamped score
/// after it (`after` is the next position's score, for the opponent).
pub fn loss(before: Score, after: Score) -> i32 {
    before.0.clamp(-CLAMP, CLAMP) - (-after.0).clamp(-CLAMP, CLAMP)
}

/// The mark of a move losing `loss`: `?!`, `?`, `??` or none.
pub fn mark(loss: i32) -> Option<&'static str> {
    match loss {
        l if l >= BLUNDER => Some("??"),
        l if l >= MISTAKE => Some("?"),
        l if l >= INACCURACY => Some("?!"),
        _ => None,
    }
}

/// A position of a game and the move played from it, before any search.
#[derive(Serialize, Clone, Debug)]
struct PlyBase {
    /// The move as played (Hub text).
    #[serde(rename = "move")]
    mv: String,
    /// The move in the variant's notation.
    text: String,
    /// Its start and landing squares, engine numbers (for the board).
    path: Vec<u8>,
    /// Squares of the pieces it captures.
    captured: Vec<u8>,
    /// The side that played it.
    side: &'static str,
    /// The position before it.
    fen: String,
    /// The position before it as 32 letters `w b W B e`, engine square 1 first.
    board: String,
}

/// What the search says of one position.
#[derive(Serialize, Clone, Debug)]
struct EvalView {
    #[serde(flatten)]
    score: ScoreView,
    /// The engine's best move there (Hub text), null when the game is over.
    best: Option<String>,
    best_text: Option<String>,
    /// The best move's start and end squares.
    best_arrow: Option<[u8; 2]>,
    /// Its start and landing squares.
    best_path: Option<Vec<u8>>,
    /// Its line (Hub texts, then the variant's).
    pv: Vec<String>,
    pv_text: Vec<String>,
    depth: u32,
    nodes: u64,
    /// The endgame tables' verdict, where they cover the position.
    table: Option<TableView>,
}

fn eval_view(variant: Variant, pos: &Position, e: &Eval) -> EvalView {
    let line: Option<LineView> = line_view(variant, pos, e.score, &e.pv);
    EvalView {
        score: score_view(e.score),
        best: line.as_ref().map(|l| l.mv.clone()),
        best_text: line.as_ref().map(|l| l.text.clone()),
        best_arrow: line.as_ref().map(|l| l.arrow),
        best_path: line.as_ref().map(|l| l.path.clone()),
        pv: line.as_ref().map_or_else(Vec::new, |l| l.pv.clone()),
        pv_text: line.map_or_else(Vec::new, |l| l.pv_text),
        depth: e.depth,
        nodes: e.nodes,
        table: e.table.map(table_view),
    }
}

/// One reviewed move.
#[derive(Serialize, Clone, Debug)]
struct PlyView {
    /// The number of moves before it (0 for the first).
    ply: usize,
    #[serde(flatten)]
    base: PlyBase,
    /// `?!`, `?`, `??` or null.
    mark: Option<&'static str>,
    /// What it loses, in hundredths of a man (see the module's doc).
    loss: i32,
    /// The position before it, searched.
    #[serde(flatten)]
    eval: EvalView,
}

/// The marks of one side.
#[derive(Serialize, Clone, Debug, Default)]
struct Counts {
    #[serde(rename = "?!")]
    inaccuracies: u32,
    #[serde(rename = "?")]
    mistakes: u32,
    #[serde(rename = "??")]
    blunders: u32,
}

#[derive(Serialize, Clone, Debug, Default)]
struct Summary {
    white: Counts,
    black: Counts,
}

impl Summary {
    fn count(&mut self, side: &str, mark: Option<&str>) {
        let c = if side == "white" {
            &mut self.white
        } else {
            &mut self.black
        };
        match mark {
            Some("??") => c.blunders += 1,
            Some("?") => c.mistakes += 1,
            Some("?!") => c.inaccuracies += 1,
            _ => {}
        }
    }
}

/// A game of the PDN, before its review.
#[derive(Serialize, Clone, Debug)]
struct GameHead {
    variant: &'static str,
    tags: Vec<(String, String)>,
    result: &'static str,
    /// The game again as canonical PDN (what the page downloads).
    pdn: String,
    start_fen: String,
    /// The position after the last move (FEN, then 32 letters).
    end_fen: String,
    end_board: String,
    /// The square names of the variant, engine square 1 first.
    names: Vec<String>,
    mirrored: bool,
}

/// The final position of a game, searched.
#[derive(Serialize, Clone, Debug)]
struct FinalView {
    fen: String,
    board: String,
    #[serde(flatten)]
    eval: EvalView,
}

/// A reviewed game.
#[derive(Serialize, Clone, Debug)]
struct GameReview {
    #[serde(flatten)]
    head: GameHead,
    plies: Vec<PlyView>,
    #[serde(rename = "final")]
    last: FinalView,
    summary: Summary,
}

/// What a streamed review sends, one JSON object a line.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Item<'a> {
    /// A game's moves, before their review.
    Game {
        game: usize,
        #[serde(flatten)]
        head: &'a GameHead,
        plies: &'a [PlyBase],
    },
    /// A move reviewed.
    Ply {
        game: usize,
        #[serde(flatten)]
        ply: &'a PlyView,
    },
    /// The final position of a game, and its summary.
    Final {
        game: usize,
        #[serde(flatten)]
        last: &'a FinalView,
        summary: &'a Summary,
    },
    /// The end of the review.
    Done { games: usize },
    /// The review stopped (the server is stopping).
    Stopped { message: &'static str },
}

/// The 32 letters of `pos`.
pub fn board_letters(pos: &Position) -> String {
    Square::ALL
        .iter()
        .map(|&sq| pos.piece_at(sq).map_or('e', |p| p.hub_char()))
        .collect()
}

fn head_of(g: &PdnGame) -> Result<GameHead, ApiError> {
    let end = g.positions().last().unwrap_or(g.start);
    Ok(GameHead {
        end_fen: fen::write(&end),
        end_board: board_letters(&end),
        variant: g.variant.name(),
        tags: g.tags.clone(),
        result: g.result.as_str(),
        pdn: pdn::write(g).map_err(|e| {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_pdn", e.to_string())
        })?,
        start_fen: fen::write(&g.start),
        names: super::views::names::all(g.variant),
        mirrored: super::views::names::mirrored(g.variant),
    })
}

fn bases_of(g: &PdnGame) -> Vec<PlyBase> {
    let mut pos = g.start;
    let mut out = Vec::with_capacity(g.moves.len());
    for &m in &g.moves {
        let path = landing_path(g.variant, &pos, m);
        out.push(PlyBase {
            mv: m.to_string(),
            text: move_text(g.variant, &pos, m),
            path: std::iter::once(m.from().number())
                .chain(numbers(path))
                .collect(),
            captured: numbers(m.captured().iter()),
            side: pos.turn().name(),
            fen: fen::write(&pos),
            board: board_letters(&pos),
        });
        pos.play_unchecked(m);
    }
    out
}

/// Searches one position with a slot of its own; `None` when the server stops.
async fn evaluate(analyst: &Arc<Analyst>, game: &Game, limits: Limits) -> Option<Eval> {
    let permit = analyst.slot(None).await?;
    analyst
        .search(permit, game.clone(), limits, 1, |_| true)
        .await
}

/// Where a streamed review's lines go (none: the review is answered whole).
type Lines = Option<tokio::sync::mpsc::Sender<Bytes>>;

/// Sends `item` as a line to `lines`: false when nobody listens any more.
async fn emit(lines: &Lines, item: Item<'_>) -> bool {
    let Some(tx) = lines else { return true };
    let mut line = serde_json::to_vec(&item).unwrap_or_default();
    line.push(b'\n');
    tx.send(Bytes::from(line)).await.is_ok()
}

/// Reviews `g`, sending each item to `lines` as it is done; `None` when stopped (the
/// server stops, or nobody listens any more).
async fn review_game(
    analyst: &Arc<Analyst>,
    index: usize,
    g: &PdnGame,
    limits: Limits,
    lines: &Lines,
) -> Option<GameReview> {
    let head = head_of(g).ok()?;
    let bases = bases_of(g);
    let item = Item::Game {
        game: index,
        head: &head,
        plies: &bases,
    };
    if !emit(lines, item).await {
        return None;
    }
    let mut game = Game::from_position(g.variant, g.start);
    let mut before = evaluate(analyst, &game, limits).await?;
    let mut plies = Vec::with_capacity(g.moves.len());
    let mut summary = Summary::default();
    for (i, (&m, base)) in g.moves.iter().zip(bases).enumerate() {
        let pos = *game.position();
        let forced = game.legal_moves().len() == 1;
        game.play(m).ok()?;
        let after = evaluate(analyst, &game, limits).await?;
        let lost = loss(before.score, after.score);
        let mark = if forced || before.best == Some(m) {
            None
        } else {
            mark(lost)
        };
        summary.count(base.side, mark);
        let ply = PlyView {
            ply: i,
            base,
            mark,
            loss: lost,
            eval: eval_view(g.variant, &pos, &before),
        };
        if !emit(
            lines,
            Item::Ply {
                game: index,
                ply: &ply,
            },
        )
        .await
        {
            return None;
        }
        plies.push(ply);
        before = after;
    }
    let pos = *game.position();
    let last = FinalView {
        fen: fen::write(&pos),
        board: board_letters(&pos),
        eval: eval_view(g.variant, &pos, &before),
    };
    let item = Item::Final {
        game: index,
        last: &last,
        summary: &summary,
    };
    if !emit(lines, item).await {
        return None;
    }
    Some(GameReview {
        head,
        plies,
        last,
        summary,
    })
}

/// The reader's error as an API error: 422 quoting it, with its line and column.
fn pdn_error(err: &Error) -> ApiError {
    let at = match err {
        Error::MalformedPdn { line, column, .. }
        | Error::PdnMove { line, column, .. }
        | Error::PdnGameType { line, column, .. }
        | Error::PdnFen { line, column, .. } => Some((*line, *column)),
        _ => None,
    };
    let message = match at {
        Some((line, column)) => format!("{err} (line {line}, column {column})"),
        None => err.to_string(),
    };
    let mut e = ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_pdn", message);
    e.at = at;
    e
}

/// The games of `text`, every one readable, with at most [`MAX_POSITIONS`] positions.
fn games_of(text: &str, default: Variant) -> Result<Vec<PdnGame>, ApiError> {
    let games = pdn::read_str(text, default)
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pdn_error(&e))?;
    if games.is_empty() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_pdn",
            "the PDN holds no game: expected tags like [GameType \"22\"] and moves like 1. 22-18 10-14",
        ));
    }
    let positions: usize = games.iter().map(|g| g.moves.len() + 1).sum();
    if positions > MAX_POSITIONS {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "too_long",
            format!(
                "the PDN holds {positions} positions to review: at most {MAX_POSITIONS} are reviewed at once"
            ),
        ));
    }
    Ok(games)
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
        let r = review_game(&analyst, i, g, ask.limits, &None).await;
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

fn thresholds() -> Value {
    serde_json::json!({"?!": INACCURACY, "?": MISTAKE, "??": BLUNDER, "clamp": CLAMP})
}

/// The review as JSON Lines, made on a task of its own that ends when the client goes.
fn streamed(analyst: Arc<Analyst>, ask: ReviewAsk) -> Response {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        let lines = Some(tx);
        for (i, g) in ask.games.iter().enumerate() {
            if review_game(&analyst, i, g, ask.limits, &lines)
                .await
                .is_none()
            {
                if analyst.is_stopping() {
                    let message = "the server is stopping; the review did not finish";
                    emit(&lines, Item::Stopped { message }).await;
                }
                return;
            }
        }
        let games = ask.games.len();
        emit(&lines, Item::Done { games }).await;
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
    fn marks_follow_the_thresholds() {
        assert_eq!(mark(INACCURACY - 1), None);
        assert_eq!(mark(INACCURACY), Some("?!"));
        assert_eq!(mark(MISTAKE), Some("?"));
        assert_eq!(mark(BLUNDER), Some("??"));
        assert_eq!(mark(-300), None);
    }

    #[test]
    fn losses_are_measured_on_clamped_scores() {
        // +9 to +6: still won, nothing lost.
        assert_eq!(loss(Score(900), Score(-600)), 0);
        // A table win thrown into a draw.
        assert_eq!(loss(Score::win_in(9), Score::DRAW), CLAMP);
        // A drawn position, a man lost.
        assert_eq!(loss(Score(0), Score(100)), 100);
    }

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
