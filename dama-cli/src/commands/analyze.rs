//! `dama analyze`: search a position and print the progress and the best move, or annotate
//! a whole PDN game.
//!
//! `--json` prints JSON Lines, each `{"type": ..., "data": {...}}`:
//! - `info` after each completed iteration (and multi-PV line): `depth`, `seldepth`,
//!   `multipv`, `score` (hundredths of a man for the side to move; wins are 30000 minus the
//!   plies to the end), `score_text` (`+0.35`, `win in 7`), `nodes`, `nps`, `time` (seconds),
//!   `pv` (a list of Hub moves);
//! - `book` first, when the position is in the opening book: `moves`, each `move`, `score`
//!   and `score_text` (the book's backed-up values), best first;
//! - `bestmove` last: `move` (null when there is none), `score`, `score_text`, `depth`,
//!   `nodes`, `nps`, `time`, `pv`, and `lines` (the multi-PV lines: `move`, `score`, `pv`).

use std::io::{self, Write};
use std::time::Duration;

use dama_rules::notation::pdn::{self, Comment};
use dama_rules::{Color, Game, Move, Outcome};
use dama_search::{Engine, Info, Level, Limits, Score, SearchResult, Signals};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use crate::error::CliError;
use crate::exit::Status;

/// How long to search.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub depth: Option<u32>,
    pub time: Option<Duration>,
    pub nodes: Option<u64>,
    pub level: Option<Level>,
}

impl Budget {
    /// The limits; `default` when none was given.
    fn limits(&self, default: Limits) -> Result<Limits, CliError> {
        let mut limits = Limits {
            depth: self.depth,
            nodes: self.nodes,
            ..Limits::default()
        };
        if let Some(t) = self.time {
            limits = limits.with_time(t);
        }
        if limits.is_infinite() && self.level.is_none() {
            return Ok(default);
        }
        Ok(limits)
    }
}

/// What `dama analyze` prints.
pub struct Output {
    pub multipv: usize,
    pub threads: usize,
    pub json: bool,
}

/// An engine using the endgame tables that are there (`$DAMA_EGTB`, else
/// `~/.cache/dama/egtb`; `dama egtb build` makes them), and the small in-memory ones.
fn engine_with_tables() -> Engine {
    let mut engine = Engine::new();
    engine.set_endgames(dama_search::Endgames::from_dir(
        &dama_search::egtb::default_dir(),
        false,
    ));
    engine
}

/// Analyzes the current position of `game`.
pub fn run(game: &Game, budget: Budget, output: Output) -> Result<Status, CliError> {
    let limits = budget.limits(Limits::move_time(Duration::from_secs(1)))?;
    let mut engine = engine_with_tables();
    engine.set_threads(output.threads);
    engine.set_multipv(output.multipv);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if let Some(line) = book_line(&engine, game, output.json) {
        writeln!(out, "{line}").map_err(CliError::Output)?;
    }
    let mut failed = None;
    let signals = Signals::default();
    let mut on_info = |info: &Info| {
        let line = if output.json {
            json!({"type": "info", "data": info_json(info)}).to_string()
        } else {
            info_text(info, output.multipv > 1)
        };
        if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
            // No one reads the rest: the search ends at once.
            signals
                .stop
                .store(true, std::sync::atomic::Ordering::Relaxed);
            failed.get_or_insert(e);
        }
    };
    let result = match budget.level {
        Some(level) => {
            let mut rng = ChaCha8Rng::seed_from_u64(0);
            engine.play_level(game, level, &limits, &Signals::default(), &mut rng)
        }
        None => engine.analyze_with(game, &limits, &signals, &mut on_info),
    };
    if let Some(e) = failed {
        return Err(CliError::Output(e));
    }
    let line = if output.json {
        json!({"type": "bestmove", "data": best_json(&result)}).to_string()
    } else {
        best_text(&result)
    };
    writeln!(out, "{line}").map_err(CliError::Output)?;
    Ok(Status::Ok)
}

/// The book moves of the position, best first, as one line (`None` out of the book).
fn book_line(engine: &Engine, game: &Game, json: bool) -> Option<String> {
    let book = engine.book()?;
    if book.config().variant != game.variant() {
        return None;
    }
    let moves = book.moves(game.position());
    if moves.is_empty() {
        return None;
    }
    if json {
        let list: Vec<serde_json::Value> = moves
            .iter()
            .map(|m| json!({"move": m.mv.to_string(), "score": m.score.0, "score_text": m.score.to_string()}))
            .collect();
        return Some(json!({"type": "book", "data": {"moves": list}}).to_string());
    }
    let list: Vec<String> = moves
        .iter()
        .map(|m| format!("{} {}", m.mv, m.score))
        .collect();
    Some(format!("book {}", list.join(", ")))
}

fn moves_json(pv: &[Move]) -> Vec<String> {
    pv.iter().map(Move::to_string).collect()
}

fn moves_text(pv: &[Move]) -> String {
    moves_json(pv).join(" ")
}

fn nps(nodes: u64, time: Duration) -> u64 {
    let secs = time.as_secs_f64();
    if secs > 0.0 {
        (nodes as f64 / secs) as u64
    } else {
        0
    }
}

fn info_json(info: &Info) -> serde_json::Value {
    json!({
        "depth": info.depth,
        "seldepth": info.seldepth,
        "multipv": info.multipv,
        "score": info.score.0,
        "score_text": info.score.to_string(),
        "nodes": info.nodes,
        "nps": info.nps,
        "time": info.time.as_secs_f64(),
        "pv": moves_json(&info.pv),
    })
}

fn info_text(info: &Info, multipv: bool) -> String {
    let line = if multipv {
        format!(" multipv {}", info.multipv)
    } else {
        String::new()
    };
    format!(
        "depth {}/{}{line} score {} nodes {} nps {} time {:.3} pv {}",
        info.depth,
        info.seldepth,
        info.score,
        info.nodes,
        info.nps,
        info.time.as_secs_f64(),
        moves_text(&info.pv)
    )
}

fn best_json(r: &SearchResult) -> serde_json::Value {
    let lines: Vec<serde_json::Value> = r
        .lines
        .iter()
        .map(|l| json!({"move": l.mv.to_string(), "score": l.score.0, "pv": moves_json(&l.pv)}))
        .collect();
    json!({
        "move": r.best.map(|m| m.to_string()),
        "score": r.score.0,
        "score_text": r.score.to_string(),
        "depth": r.depth,
        "nodes": r.nodes,
        "nps": nps(r.nodes, r.time),
        "time": r.time.as_secs_f64(),
        "pv": moves_json(&r.pv),
        "lines": lines,
    })
}

fn best_text(r: &SearchResult) -> String {
    match r.best {
        Some(m) => format!(
            "bestmove {m} score {} depth {} nodes {} nps {} time {:.3} pv {}",
            r.score,
            r.depth,
            r.nodes,
            nps(r.nodes, r.time),
            r.time.as_secs_f64(),
            moves_text(&r.pv)
        ),
        None => "bestmove none (the game is over)".to_string(),
    }
}

/// The tag `--annotate` adds, saying how to read its comments.
pub const ANNOTATOR: &str = "dama analyze --annotate: scores in men from White's side, \
    a forced win named by its winner";

/// A score for `mover` written from White's side, as `--annotate` writes it: `+0.35` (in
/// men, above 0 good for White), or the winner named where a forced result is known
/// (`black: win in 8`, `white: table win, 12 to conversion`): never `loss in 8`, which a
/// reader could take for either side's.
pub fn white_side(score: Score, mover: Color) -> String {
    let white = if mover == Color::White { score } else { -score };
    if white.is_win() || white.is_table_win() {
        format!("white: {white}")
    } else if white.is_loss() || white.is_table_loss() {
        format!("black: {}", -white)
    } else {
        white.to_string()
    }
}

/// Writes the PDN game back with each move's score (from White's side, see [`white_side`];
/// the tag `Annotator` says so) and the engine's better move where the move played loses
/// more than `margin` men.
pub fn annotate(
    record: &pdn::PdnGame,
    budget: Budget,
    threads: usize,
    margin: f64,
) -> Result<Status, CliError> {
    let limits = budget.limits(Limits::depth(10))?;
    let mut engine = engine_with_tables();
    engine.set_threads(threads);
    let mut game = Game::from_position(record.variant, record.start);
    // The best move and its score (for the side to move) in every position of the game.
    let mut best: Vec<(Option<Move>, Score)> = Vec::new();
    for &m in &record.moves {
        let r = engine.search(&game, &limits);
        best.push((r.best, r.score));
        game.play(m)?;
    }
    let end = match game.outcome() {
        Some(Outcome::Win(_)) => Score::loss_in(0),
        Some(Outcome::Draw(_)) => Score::DRAW,
        None => engine.search(&game, &limits).score,
    };
    let mut out = record.clone();
    let mut pos_turn = record.start.turn();
    for (i, &m) in record.moves.iter().enumerate() {
        let after = best.get(i + 1).map_or(end, |&(_, s)| s);
        // The played move's score for its mover is minus the next position's best, a
        // forced result one ply further off (its move is part of the road).
        let played = match after.plies_to_end() {
            Some(n) if after.is_win() => Score::loss_in(n + 1),
            Some(n) => Score::win_in(n + 1),
            None => -after,
        };
        let mut text = white_side(played, pos_turn);
        if let (Some(b), s) = best[i] {
            if b != m && f64::from(s.0 - played.0) / 100.0 > margin {
                text.push_str(&format!("; better {b} ({})", white_side(s, pos_turn)));
            }
        }
        out.comments.push(Comment { ply: i + 1, text });
        pos_turn = !pos_turn;
    }
    out.comments.sort_by_key(|c| c.ply);
    out.tags.retain(|(name, _)| name != "Annotator");
    out.tags
        .push(("Annotator".to_string(), ANNOTATOR.to_string()));
    let text = pdn::write(&out)?;
    io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(CliError::Output)?;
    Ok(Status::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_are_from_whites_side_and_name_the_winner() {
        assert_eq!(white_side(Score(35), Color::White), "+0.35");
        assert_eq!(white_side(Score(35), Color::Black), "-0.35");
        // Black to move and winning: Black's win, not White's "loss in 8".
        assert_eq!(
            white_side(Score::win_in(8), Color::Black),
            "black: win in 8"
        );
        assert_eq!(
            white_side(Score::loss_in(8), Color::Black),
            "white: win in 8"
        );
        assert_eq!(
            white_side(Score::win_in(3), Color::White),
            "white: win in 3"
        );
        assert_eq!(
            white_side(Score::loss_in(4), Color::White),
            "black: win in 4"
        );
        assert_eq!(white_side(Score::DRAW, Color::Black), "+0.00");
    }
}
