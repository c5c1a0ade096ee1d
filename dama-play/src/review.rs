//! Game reviews: every position of a PDN game searched, every move marked by what it loses.
//! `dama serve` reviews on its analysis slots (`POST /api/reviews`); the browser's engine
//! (dama-wasm) makes the same review with no server, from the same code.
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
//!
//! ```
//! use dama_play::review::{games_of, ready, review_game, Eval};
//! use dama_rules::Variant;
//! use dama_search::Score;
//!
//! let games = games_of("1. 22-18 10-14 *", Variant::Italian).unwrap();
//! // Every position "searched" as even, with no best move: nothing is marked.
//! let even = |_| std::future::ready(Some(Eval {
//!     score: Score(0), best: None, pv: Vec::new(), lines: Vec::new(),
//!     depth: 1, nodes: 1, table: None,
//! }));
//! let mut lines = 0;
//! let review = ready(review_game(0, &games[0], even, |_| {
//!     lines += 1;
//!     std::future::ready(true)
//! }));
//! let review = review.flatten().unwrap();
//! assert_eq!(review.plies.len(), 2);
//! assert_eq!(lines, 4); // the game, two moves, the final position
//! ```

use std::future::Future;

use dama_egtb::Value as TableValue;
use dama_rules::notation::fen;
use dama_rules::notation::pdn::{self, PdnGame};
use dama_rules::{Error, Game, Move, Outcome, Position, Square, Variant};
use dama_search::{Limits, RootLine, Score, SearchResult};
use serde::Serialize;

use crate::view::{
    landing_path, line_view, move_text, names, numbers, score_view, table_view, LineView,
    ScoreView, TableView,
};

/// What a search of one position found.
#[derive(Clone, Debug)]
pub struct Eval {
    /// The score for the side to move.
    pub score: Score,
    /// The best move (none when the game is over there).
    pub best: Option<Move>,
    /// Its line.
    pub pv: Vec<Move>,
    /// The best lines (as many as asked).
    pub lines: Vec<RootLine>,
    /// The depth completed.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// The endgame tables' verdict, where they cover the position.
    pub table: Option<TableValue>,
}

/// A review searches each position this many nodes unless asked for fewer or more.
pub const REVIEW_NODES: u64 = 200_000;
/// The most nodes a review may ask for per position.
pub const REVIEW_MAX_NODES: u64 = 2_000_000;
/// The deepest a review or an analysis may search.
pub const MAX_DEPTH: u32 = 40;

/// The limits of a review's search of one position: `nodes` (else [`REVIEW_NODES`]) within
/// 1,000..=[`REVIEW_MAX_NODES`], `depth` (else [`MAX_DEPTH`]) within 1..=[`MAX_DEPTH`].
pub fn review_limits(depth: Option<u32>, nodes: Option<u64>) -> Limits {
    Limits {
        depth: Some(depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH)),
        nodes: Some(nodes.unwrap_or(REVIEW_NODES).clamp(1_000, REVIEW_MAX_NODES)),
        ..Limits::default()
    }
}

impl Eval {
    /// The value of a game that is over, with no search: `None` while it goes on.
    pub fn settled(game: &Game) -> Option<Eval> {
        let outcome = game.outcome()?;
        let score = match outcome {
            Outcome::Win(c) if c == game.position().turn() => Score::win_in(0),
            Outcome::Win(_) => Score::loss_in(0),
            Outcome::Draw(_) => Score::DRAW,
        };
        Some(Eval {
            score,
            best: None,
            pv: Vec::new(),
            lines: Vec::new(),
            depth: 0,
            nodes: 0,
            table: None,
        })
    }

    /// What search `r` found, with the tables' verdict `table`.
    pub fn of(r: SearchResult, table: Option<TableValue>) -> Eval {
        Eval {
            score: r.score,
            best: r.best,
            pv: r.pv,
            lines: r.lines,
            depth: r.depth,
            nodes: r.nodes,
            table,
        }
    }
}

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
pub struct PlyBase {
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
pub struct EvalView {
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

/// What the search `e` of `pos` says, as a review shows it.
pub fn eval_view(variant: Variant, pos: &Position, e: &Eval) -> EvalView {
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
pub struct PlyView {
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
pub struct Counts {
    #[serde(rename = "?!")]
    inaccuracies: u32,
    #[serde(rename = "?")]
    mistakes: u32,
    #[serde(rename = "??")]
    blunders: u32,
}

/// The marks of each side.
#[derive(Serialize, Clone, Debug, Default)]
pub struct Summary {
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
pub struct GameHead {
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
pub struct FinalView {
    fen: String,
    board: String,
    #[serde(flatten)]
    eval: EvalView,
}

/// A reviewed game.
#[derive(Serialize, Clone, Debug)]
pub struct GameReview {
    /// The game's tags, result, PDN and start.
    #[serde(flatten)]
    pub head: GameHead,
    /// Every move reviewed.
    pub plies: Vec<PlyView>,
    /// The final position, searched.
    #[serde(rename = "final")]
    pub last: FinalView,
    /// The marks of each side.
    pub summary: Summary,
}

/// What a streamed review sends, one JSON object a line.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Item<'a> {
    /// A game's moves, before their review.
    Game {
        /// The game's index in the file, from 0.
        game: usize,
        /// Its tags, result, PDN and start.
        #[serde(flatten)]
        head: &'a GameHead,
        /// Its moves.
        plies: &'a [PlyBase],
    },
    /// A move reviewed.
    Ply {
        /// The game's index.
        game: usize,
        /// The move and its review.
        #[serde(flatten)]
        ply: &'a PlyView,
    },
    /// The final position of a game, and its summary.
    Final {
        /// The game's index.
        game: usize,
        /// The final position, searched.
        #[serde(flatten)]
        last: &'a FinalView,
        /// The marks of each side.
        summary: &'a Summary,
    },
    /// The end of the review.
    Done {
        /// The number of games reviewed.
        games: usize,
    },
    /// The review stopped (the server is stopping).
    Stopped {
        /// Why.
        message: &'static str,
    },
}

/// The 32 letters of `pos`.
pub fn board_letters(pos: &Position) -> String {
    Square::ALL
        .iter()
        .map(|&sq| pos.piece_at(sq).map_or('e', |p| p.hub_char()))
        .collect()
}

fn head_of(g: &PdnGame) -> Result<GameHead, String> {
    let end = g.positions().last().unwrap_or(g.start);
    Ok(GameHead {
        end_fen: fen::write(&end),
        end_board: board_letters(&end),
        variant: g.variant.name(),
        tags: g.tags.clone(),
        result: g.result.as_str(),
        pdn: pdn::write(g).map_err(|e| e.to_string())?,
        start_fen: fen::write(&g.start),
        names: names::all(g.variant),
        mirrored: names::mirrored(g.variant),
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

/// `item` as one line of JSON (with its newline), as a streamed review sends it.
pub fn line_of(item: &Item<'_>) -> Vec<u8> {
    let mut line = serde_json::to_vec(item).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Reviews `g`, the `index`-th game of its file: each position searched by `evaluate`, each
/// item sent to `emit` as it is done (as a line of JSON, see [`line_of`]); `None` when
/// stopped (`evaluate` found nothing, or `emit` answered false: nobody listens any more).
///
/// Both are futures, so that a server awaits its search slots and its client; a caller
/// without a runtime gives ready ones and drives the review with [`ready`].
pub async fn review_game<E, EF, S, SF>(
    index: usize,
    g: &PdnGame,
    mut evaluate: E,
    mut emit: S,
) -> Option<GameReview>
where
    E: FnMut(Game) -> EF,
    EF: Future<Output = Option<Eval>>,
    S: FnMut(Vec<u8>) -> SF,
    SF: Future<Output = bool>,
{
    let head = head_of(g).ok()?;
    let bases = bases_of(g);
    let item = Item::Game {
        game: index,
        head: &head,
        plies: &bases,
    };
    if !emit(line_of(&item)).await {
        return None;
    }
    let mut game = Game::from_position(g.variant, g.start);
    let mut before = evaluate(game.clone()).await?;
    let mut plies = Vec::with_capacity(g.moves.len());
    let mut summary = Summary::default();
    for (i, (&m, base)) in g.moves.iter().zip(bases).enumerate() {
        let pos = *game.position();
        let forced = game.legal_moves().len() == 1;
        game.play(m).ok()?;
        let after = evaluate(game.clone()).await?;
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
        let item = Item::Ply {
            game: index,
            ply: &ply,
        };
        if !emit(line_of(&item)).await {
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
    if !emit(line_of(&item)).await {
        return None;
    }
    Some(GameReview {
        head,
        plies,
        last,
        summary,
    })
}

/// A PDN refused: the API's code (`bad_pdn`, `too_long`), a message quoting the reader, and
/// where in the text (line and column, from 1) when the reader says.
#[derive(Debug, Clone)]
pub struct PdnRefusal {
    /// `bad_pdn` or `too_long`.
    pub code: &'static str,
    /// What was wrong.
    pub message: String,
    /// Line and column.
    pub at: Option<(usize, usize)>,
}

/// The reader's error, quoted with its line and column.
fn pdn_error(err: &Error) -> PdnRefusal {
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
    PdnRefusal {
        code: "bad_pdn",
        message,
        at,
    }
}

/// The games of `text`, every one readable, with at most [`MAX_POSITIONS`] positions.
///
/// # Errors
/// A game the reader refuses, no game, or too many positions.
pub fn games_of(text: &str, default: Variant) -> Result<Vec<PdnGame>, PdnRefusal> {
    let games = pdn::read_str(text, default)
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pdn_error(&e))?;
    if games.is_empty() {
        return Err(PdnRefusal {
            code: "bad_pdn",
            message: "the PDN holds no game: expected tags like [GameType \"22\"] and moves \
                      like 1. 22-18 10-14"
                .into(),
            at: None,
        });
    }
    let positions: usize = games.iter().map(|g| g.moves.len() + 1).sum();
    if positions > MAX_POSITIONS {
        return Err(PdnRefusal {
            code: "too_long",
            message: format!(
                "the PDN holds {positions} positions to review: at most {MAX_POSITIONS} are \
                 reviewed at once"
            ),
            at: None,
        });
    }
    Ok(games)
}

/// The thresholds of the marks, as a review's answer gives them.
pub fn thresholds() -> serde_json::Value {
    serde_json::json!({"?!": INACCURACY, "?": MISTAKE, "??": BLUNDER, "clamp": CLAMP})
}

/// The output of `future`, which must be ready at once (no runtime here: the futures given
/// to [`review_game`] by a caller without one are all ready); `None` if it is not.
pub fn ready<F: Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => Some(v),
        std::task::Poll::Pending => None,
    }
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
}
