//! dama in the browser: the rules of every variant, the search with its five levels, the
//! network, the opening book and the in-memory endgame tables, compiled to
//! `wasm32-unknown-unknown` and driven from JavaScript by JSON requests.
//!
//! The boundary is one call: a request (a JSON object naming a command) in, an answer (a
//! JSON object) out; a search's progress goes out as JSON lines on the way (see
//! [`Session::handle`]). The same code runs natively, so that its answers are tested by
//! `cargo test` and compared with `dama`'s own.
//!
//! ```
//! use dama_wasm::Session;
//!
//! let mut session = Session::new();
//! let answer = session.handle(r#"{"cmd":"moves","fen":"W:W21,22:B13,14"}"#, &mut |_| {});
//! assert!(answer.starts_with(r#"{"ok":{"moves":[{"captured":[],"from":21,"move":"21-17","#));
//! // A level's reply to a game given by its moves; a search's progress comes on the way.
//! let mut lines = 0;
//! let answer = session.handle(
//!     r#"{"cmd":"play","level":"easy","moves":["22-18","11-15"],"seed":1}"#,
//!     &mut |_| lines += 1,
//! );
//! assert!(answer.contains(r#""best":{"#), "{answer}");
//!
//! // Bad input is an error that says what was wrong; the session goes on.
//! let answer = session.handle(r#"{"cmd":"moves","fen":"hello"}"#, &mut |_| {});
//! assert!(answer.starts_with(r#"{"error":"#), "{answer}");
//! ```
//!
//! In a browser the module is loaded by `js/dama.mjs` (or run in a Web Worker by
//! `js/client.mjs`); the README shows the JavaScript side.

mod local;
mod request;

#[cfg(target_arch = "wasm32")]
mod boundary;

use std::time::Duration;

use dama_rules::notation::{fen, pdn_move_for};
use dama_rules::{Game, Move, Position, Square, Variant};
use dama_search::{ChaCha8Rng, Engine, Info, Level, Limits, SearchResult, SeedableRng, Signals};
use serde_json::{json, Map, Value};

pub use request::Request;

/// How long Hard thinks a move, as on `dama serve`.
pub const HARD_TIME: Duration = Duration::from_secs(1);

/// Default size of the transposition table, in MiB: the server's, and little for a phone.
pub const DEFAULT_HASH_MIB: usize = 16;

/// Largest table a request may ask for, in MiB (a browser tab's memory is not a server's).
pub const MAX_HASH_MIB: usize = 1024;

/// The positions of `dama bench`, searched to a depth by the `bench` command: the total of
/// their nodes is the same signature as `dama bench` prints for the same build of the net.
pub use dama_search::bench::POSITIONS as BENCH_POSITIONS;

/// An engine and its settings, kept between requests (the transposition table helps the
/// next search of the same game).
#[derive(Debug)]
pub struct Session {
    engine: Engine,
}

impl Default for Session {
    fn default() -> Session {
        Session::new()
    }
}

impl Session {
    /// A session with a [`DEFAULT_HASH_MIB`] table.
    pub fn new() -> Session {
        Session {
            engine: Engine::with_hash(DEFAULT_HASH_MIB),
        }
    }

    /// Answers `request` (a JSON object with a `cmd`): `{"ok": ...}` with the command's
    /// answer, or `{"error": "..."}` saying what was wrong with the request, quoting it. A
    /// search sends each completed iteration to `progress` as a JSON object on the way.
    ///
    /// The commands, their fields and answers are listed in the crate's README.
    pub fn handle(&mut self, request: &str, progress: &mut dyn FnMut(&str)) -> String {
        let answer = Request::parse(request).and_then(|r| self.run(&r, progress));
        match answer {
            Ok(v) => json!({ "ok": v }).to_string(),
            Err(why) => json!({ "error": why }).to_string(),
        }
    }

    fn run(&mut self, r: &Request, progress: &mut dyn FnMut(&str)) -> Result<Value, String> {
        match r.cmd.as_str() {
            "version" => Ok(version()),
            "api" => local::api(&mut self.engine, r),
            "review" => self.review(r, progress),
            "moves" => moves(&r.game()?),
            "fen" => Ok(json!({ "fen": fen::write(r.game()?.position()) })),
            "explain" => explain(r),
            "perft" => perft(r),
            "bench" => Ok(self.bench(r.depth_or(14)?, r.knobs()?)),
            "play" => self.play(r, progress),
            "analyse" | "analyze" => self.analyse(r, progress),
            "tables" => Ok(json!({ "built": dama_search::egtb::build_deferred() })),
            "new-game" => {
                self.engine.clear();
                Ok(json!({}))
            }
            "options" => self.options(r),
            other => Err(format!(
                "unknown command \"{}\": expected version, api, review, moves, fen, explain, \
                 perft, bench, play, analyse, tables, new-game or options",
                request::excerpt(other)
            )),
        }
    }

    fn options(&mut self, r: &Request) -> Result<Value, String> {
        if let Some(mib) = r.hash_mib()? {
            self.engine
                .try_set_hash(mib)
                .map_err(|e| format!("hash {mib}: {e}"))?;
        }
        Ok(json!({ "hash_mib": self.engine.hash_bytes() >> 20 }))
    }

    /// `dama bench`: each position searched to `depth` by a fresh engine, after an untimed
    /// pass that builds the in-memory tables they reach.
    fn bench(&mut self, depth: u32, knobs: dama_search::Knobs) -> Value {
        let fresh = || {
            let mut e = Engine::with_hash(16);
            e.set_knobs(knobs);
            e
        };
        let games: Vec<Game> = BENCH_POSITIONS
            .iter()
            .filter_map(|text| fen::parse(text).ok())
            .map(|pos| Game::from_position(Variant::Italian, pos))
            .collect();
        for game in &games {
            fresh().search(game, &Limits::depth(depth));
        }
        let mut rows = Vec::new();
        let (mut nodes, mut ms) = (0u64, 0f64);
        for game in &games {
            let mut engine = fresh();
            let start = dama_search::Moment::now();
            let r = engine.search(game, &Limits::depth(depth));
            let spent = start.elapsed().as_secs_f64() * 1000.0;
            nodes += r.nodes;
            ms += spent;
            rows.push(json!({
                "nodes": r.nodes,
                "ms": spent,
                "best": r.best.map(|m| m.to_string()),
            }));
        }
        json!({ "positions": rows, "nodes": nodes, "ms": ms, "signature": nodes })
    }

    /// A level's move in a game with its history.
    fn play(&mut self, r: &Request, progress: &mut dyn FnMut(&str)) -> Result<Value, String> {
        let game = r.game()?;
        let level = r.level()?;
        let seed = r.seed()?;
        let limits = match r.limits()? {
            Some(l) => l,
            None if level == Level::Hard => Limits::move_time(HARD_TIME),
            None => Limits::infinite(),
        };
        check_playable(&game)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let variant = game.variant();
        let pos = *game.position();
        let mut on_info = |info: &Info| progress(&info_json(variant, &pos, info).to_string());
        let result = self.engine.play_level_with(
            &game,
            level,
            &limits,
            &Signals::default(),
            &mut rng,
            &mut on_info,
        );
        Ok(result_json(&game, &result))
    }

    /// A review of every game of a PDN text, as `dama serve` makes it (`dama_play::review`):
    /// each item (a game's moves, each move reviewed, its final position, the end) goes to
    /// `progress` as a JSON line; the answer counts the games and gives the marks' thresholds.
    fn review(&mut self, r: &Request, progress: &mut dyn FnMut(&str)) -> Result<Value, String> {
        use dama_play::review::{games_of, ready, review_game, review_limits, Eval, Item};
        let text = r
            .text("pdn")?
            .ok_or("review needs the text of a PDN file (pdn)")?;
        let variant = r.variant()?;
        let depth = r.get("depth").map(|_| r.depth_or(1)).transpose()?;
        let nodes = match r.get("nodes") {
            None => None,
            Some(v) => Some(v.as_u64().filter(|&n| n >= 1).ok_or_else(|| {
                format!(
                    "nodes {}: expected a whole number of at least 1",
                    request::excerpt(&v.to_string())
                )
            })?),
        };
        let games = games_of(text, variant).map_err(|e| e.message)?;
        let limits = review_limits(depth, nodes);
        let engine = &mut self.engine;
        engine.set_multipv(1);
        for (i, g) in games.iter().enumerate() {
            let evaluate = |game: Game| {
                let eval = Eval::settled(&game).unwrap_or_else(|| {
                    // Each position from an empty table: the same answer as the server's.
                    engine.clear();
                    let result =
                        engine.analyze_with(&game, &limits, &Signals::default(), &mut |_| {});
                    let table = table_value(engine, &game);
                    Eval::of(result, table)
                });
                std::future::ready(Some(eval))
            };
            let emit = |line: Vec<u8>| {
                progress(String::from_utf8_lossy(&line).trim_end());
                std::future::ready(true)
            };
            ready(review_game(i, g, evaluate, emit))
                .flatten()
                .ok_or("the review stopped")?;
        }
        let done = dama_play::review::line_of(&Item::Done { games: games.len() });
        progress(String::from_utf8_lossy(&done).trim_end());
        Ok(json!({ "games": games.len(), "thresholds": dama_play::review::thresholds() }))
    }

    /// An analysis with progress: every completed iteration (each line of a multi-PV one)
    /// goes to `progress`.
    fn analyse(&mut self, r: &Request, progress: &mut dyn FnMut(&str)) -> Result<Value, String> {
        let game = r.game()?;
        check_playable(&game)?;
        let limits = r
            .limits()?
            .ok_or("an analysis needs a limit: depth, nodes or time_ms")?;
        self.engine.set_multipv(r.multipv()?);
        self.engine.set_knobs(r.knobs()?);
        // The tables' verdict first, where they cover the position (as dama serve's live
        // analysis sends it).
        if let Some(table) = table_json(&self.engine, &game) {
            progress(&json!({ "table": table }).to_string());
        }
        let variant = game.variant();
        let pos = *game.position();
        let mut on_info = |info: &Info| progress(&info_json(variant, &pos, info).to_string());
        let result = self
            .engine
            .analyze_with(&game, &limits, &Signals::default(), &mut on_info);
        self.engine.set_multipv(1);
        self.engine.set_knobs(dama_search::Knobs::default());
        Ok(result_json(&game, &result))
    }
}

fn version() -> Value {
    json!({
        "name": "dama",
        "version": env!("CARGO_PKG_VERSION"),
        "variants": Variant::ALL.iter().map(|v| v.name()).collect::<Vec<_>>(),
        "levels": Level::ALL.iter().map(|l| l.name()).collect::<Vec<_>>(),
        "simd": cfg!(target_feature = "simd128"),
    })
}

/// Whether a game has a move to search: not over by the rules, the side to move with a
/// legal move, and each side with a piece (a position where one side has none is a finished
/// game, whoever is to move).
fn check_playable(game: &Game) -> Result<(), String> {
    let pos = game.position();
    for side in [dama_rules::Color::White, dama_rules::Color::Black] {
        if !pos.pieces(side).any() {
            let name = side.to_string().to_lowercase();
            return Err(format!(
                "{name} has no piece: the game is over, there is no move to search"
            ));
        }
    }
    match game.outcome() {
        Some(outcome) => Err(format!(
            "the game is over ({outcome}): there is no move to search"
        )),
        None if game.legal_moves().is_empty() => {
            Err("the side to move has no legal move: there is no move to search".into())
        }
        None => Ok(()),
    }
}

/// A move as the answers give it: Hub text, PDN text, squares and captured squares.
fn move_json(variant: Variant, pos: &Position, m: Move) -> Value {
    json!({
        "move": m.to_string(),
        "pdn": pdn_move_for(variant, pos, m),
        "from": m.from().number(),
        "to": m.to().number(),
        "captured": m.captured().iter().map(Square::number).collect::<Vec<_>>(),
    })
}

/// The legal moves of the game's position, sorted as `dama moves` prints them.
fn moves(game: &Game) -> Result<Value, String> {
    let pos = game.position();
    let mut list = pos.legal_moves_for(game.variant());
    list.sort();
    // A game a draw rule ended still has legal moves: they are listed, with the outcome.
    let list: Vec<Value> = list
        .iter()
        .map(|&m| move_json(game.variant(), pos, m))
        .collect();
    Ok(json!({
        "moves": list,
        "turn": pos.turn().to_string().to_lowercase(),
        "outcome": game.outcome().map(|o| o.to_string()),
    }))
}

/// Why a square's piece cannot move, or where it may go; why a move text is illegal.
fn explain(r: &Request) -> Result<Value, String> {
    let game = r.game()?;
    let variant = game.variant();
    let pos = *game.position();
    if let Some(sq) = r.square()? {
        return Ok(match dama_play::piece_moves(variant, &pos, sq) {
            Ok(list) => {
                let moves: Vec<Value> = list
                    .iter()
                    .map(|(m, paths)| {
                        let mut v = move_json(variant, &pos, *m);
                        let paths: Vec<Vec<u8>> = paths
                            .iter()
                            .map(|p| p.iter().map(|s| s.number()).collect())
                            .collect();
                        v["paths"] = json!(paths);
                        v
                    })
                    .collect();
                json!({ "square": sq.number(), "moves": moves })
            }
            Err(why) => json!({ "square": sq.number(), "moves": [], "why": why.to_string() }),
        });
    }
    let text = r
        .text("move")?
        .ok_or("explain needs a square (1 to 32) or a move (\"22-18\")")?;
    let mut probe = game.clone();
    Ok(match probe.play_text(text) {
        Ok(m) => json!({ "legal": true, "move": move_json(variant, &pos, m) }),
        Err(e) => json!({ "legal": false, "why": dama_play::refusal(&game, &e) }),
    })
}

fn perft(r: &Request) -> Result<Value, String> {
    let game = r.game()?;
    let depth = r.depth_or(1)?;
    if depth > 12 {
        return Err(format!(
            "perft depth {depth}: expected 0 to 12 (a browser tab would take hours)"
        ));
    }
    let nodes = dama_rules::perft::perft_of(game.variant(), game.position(), depth);
    Ok(json!({ "depth": depth, "nodes": nodes }))
}

/// The endgame tables' value of the game's position for the side to move, where they cover
/// it (as `dama serve`'s analysis probes them).
fn table_value(engine: &Engine, game: &Game) -> Option<dama_egtb::Value> {
    let variant = game.variant();
    let pos = game.position();
    let tables = engine.endgames();
    if !tables.may_cover(variant, pos.occupied().count()) {
        return None;
    }
    dama_rules::with_rules!(variant, R => tables.probe::<R>(pos))
}

/// The endgame tables' value of the game's position for the side to move, where they cover
/// it: `result` (`win`, `draw`, `loss`) and `plies` to the next conversion.
fn table_json(engine: &Engine, game: &Game) -> Option<Value> {
    Some(match table_value(engine, game)? {
        dama_egtb::Value::Win(d) => json!({ "result": "win", "plies": d }),
        dama_egtb::Value::Loss(d) => json!({ "result": "loss", "plies": d }),
        dama_egtb::Value::Draw => json!({ "result": "draw", "plies": null }),
    })
}

/// One completed iteration, for `progress`: as `dama serve`'s live analysis sends it, with
/// `line` the first move's texts, its arrow and landing path, and the line in both notations.
fn info_json(variant: Variant, pos: &Position, info: &Info) -> Value {
    json!({
        "depth": info.depth,
        "seldepth": info.seldepth,
        "multipv": info.multipv,
        "score": info.score.men(),
        "cp": info.score.0,
        "score_text": info.score.to_string(),
        "nodes": info.nodes,
        "nps": info.nps,
        "ms": info.time.as_secs_f64() * 1000.0,
        "pv": pv_texts(variant, pos, &info.pv),
        "line": line_json(variant, pos, &info.pv),
    })
}

/// A line's first move (Hub and the variant's text, the arrow from its start to its end,
/// its start and landing squares) and the line in Hub and the variant's texts.
fn line_json(variant: Variant, pos: &Position, pv: &[Move]) -> Value {
    let Some(&first) = pv.first() else {
        return Value::Null;
    };
    let mut game = Game::from_position(variant, *pos);
    let (mut hub, mut text) = (Vec::new(), Vec::new());
    for &m in pv {
        let before = *game.position();
        if game.play(m).is_err() {
            break;
        }
        hub.push(m.to_string());
        text.push(pdn_move_for(variant, &before, m));
    }
    let landings = dama_rules::with_rules!(variant, R => pos.capture_paths::<R>(first))
        .into_iter()
        .next()
        .unwrap_or_else(|| vec![first.to()]);
    let path: Vec<u8> = std::iter::once(first.from())
        .chain(landings)
        .map(Square::number)
        .collect();
    json!({
        "move": hub.first(),
        "text": text.first(),
        "arrow": [first.from().number(), first.to().number()],
        "path": path,
        "pv": hub,
        "pv_text": text,
    })
}

/// The moves of a line in Hub text (each legal after the ones before).
fn pv_texts(variant: Variant, pos: &Position, pv: &[Move]) -> Vec<String> {
    let mut game = Game::from_position(variant, *pos);
    let mut out = Vec::new();
    for &m in pv {
        if game.play(m).is_err() {
            break;
        }
        out.push(m.to_string());
    }
    out
}

/// A search's answer.
fn result_json(game: &Game, r: &SearchResult) -> Value {
    let variant = game.variant();
    let pos = game.position();
    let lines: Vec<Value> = r
        .lines
        .iter()
        .map(|l| {
            json!({
                "move": l.mv.to_string(),
                "score": l.score.men(),
                "cp": l.score.0,
                "score_text": l.score.to_string(),
                "pv": pv_texts(variant, pos, &l.pv),
            })
        })
        .collect();
    let mut out = Map::new();
    out.insert(
        "best".into(),
        r.best.map_or(Value::Null, |m| move_json(variant, pos, m)),
    );
    out.insert("score".into(), json!(r.score.men()));
    out.insert("score_text".into(), json!(r.score.to_string()));
    out.insert("depth".into(), json!(r.depth));
    out.insert("nodes".into(), json!(r.nodes));
    out.insert("ms".into(), json!(r.time.as_secs_f64() * 1000.0));
    out.insert("book".into(), json!(r.depth == 0 && r.nodes == 0));
    out.insert("pv".into(), json!(pv_texts(variant, pos, &r.pv)));
    out.insert("lines".into(), json!(lines));
    Value::Object(out)
}

#[cfg(test)]
mod tests;
