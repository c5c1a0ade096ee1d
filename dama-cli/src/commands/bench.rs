//! `dama bench`: a fixed-depth search of a fixed set of positions, to compare builds.
//!
//! One thread and a fresh table per position make the node counts depend on the code only:
//! the total (the signature) changes exactly when the search does.

use std::time::{Duration, Instant};

use dama_rules::notation::fen;
use dama_rules::{Game, Variant};
use std::sync::Arc;

use dama_search::bench::POSITIONS;
use dama_search::weights::Weights;
use dama_search::{Engine, Knobs, Limits};

use super::progress::Progress;
use crate::error::CliError;
use crate::exit::Status;
use crate::output;

/// Searches every position to `depth` and prints nodes, time and nodes/s, with the search
/// switches `knobs` and the evaluation of the weights or net file `eval_file`.
pub fn run(
    depth: u32,
    knobs: Option<&str>,
    eval_file: Option<&std::path::Path>,
) -> Result<Status, CliError> {
    let knobs: Knobs = match knobs {
        Some(text) => text
            .parse()
            .map_err(|e| CliError::Usage(format!("--knobs \"{text}\": {e}")))?,
        None => Knobs::default(),
    };
    let weights = match eval_file {
        Some(path) => Some(Arc::new(
            Weights::read(path).map_err(|e| CliError::Usage(e.to_string()))?,
        )),
        None => None,
    };
    let engine = || {
        let mut e = Engine::with_hash(16);
        e.set_knobs(knobs);
        e.set_weights(weights.clone());
        e
    };
    warm_up(depth, &engine)?;
    let (mut nodes, mut time) = (0u64, Duration::ZERO);
    // Positions searched so far, on stderr when it is a terminal.
    let progress = Progress::count(POSITIONS.len() as u64, "positions");
    for (i, text) in POSITIONS.iter().enumerate() {
        let pos = fen::parse(text)?;
        let game = Game::from_position(Variant::Italian, pos);
        let mut engine = engine();
        let start = Instant::now();
        let r = engine.search(&game, &Limits::depth(depth));
        let spent = start.elapsed();
        nodes += r.nodes;
        time += spent;
        progress.suspend(|| {
            output::line(format_args!(
                "position {} nodes {} time {:.3} nps {} best {}",
                i + 1,
                r.nodes,
                spent.as_secs_f64(),
                per_second(r.nodes, spent),
                r.best.map_or("none".to_string(), |m| m.to_string())
            ))
        })?;
        progress.inc(1);
    }
    progress.finish();
    output::line(format_args!(
        "total nodes {nodes} time {:.3} nps {}",
        time.as_secs_f64(),
        per_second(nodes, time)
    ))?;
    output::line(format_args!("signature {nodes}"))?;
    Ok(Status::Ok)
}

/// One untimed pass over the positions, so that the in-memory endgame tables they reach are
/// built before the clock starts (a search to a fixed depth waits for them): the times then
/// measure the search alone. Node counts do not change: every timed search has a fresh engine.
fn warm_up(depth: u32, engine: &dyn Fn() -> Engine) -> Result<(), CliError> {
    for text in POSITIONS {
        let game = Game::from_position(Variant::Italian, fen::parse(text)?);
        engine().search(&game, &Limits::depth(depth));
    }
    Ok(())
}

fn per_second(nodes: u64, time: Duration) -> u64 {
    let secs = time.as_secs_f64();
    if secs > 0.0 {
        (nodes as f64 / secs) as u64
    } else {
        0
    }
}
