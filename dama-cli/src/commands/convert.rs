//! `dama egtb convert`: won endings played out against a perfect defender.
//!
//! Positions are drawn from the table files: a class with men (of exactly `--pieces`
//! pieces) at random, then an index at random, kept when the side to move wins and no
//! capture is pending for either side (and, with `--min-distance D`, when the win is at
//! least D plies from its conversion: most random wins are a man move away). Hard plays the winning side at a fixed node budget,
//! with the tables of `--dir` (the default) or with none at all (`--no-tables`, its search
//! alone); the defender plays from the tables the move that keeps the longest loss (MTC).
//! A game counts as converted when the attacker wins it under the game's own draw rules
//! (for Italian, 40 moves each without a capture or a man move is a draw).

use std::io::{self, Write};
use std::path::Path;

use dama_egtb::{solve::build_order, Tables, Value};
use dama_rules::{Color, Game, Outcome, Position, Rules, Variant};
use dama_search::{ChaCha8Rng, Endgames, Engine, Level, Limits, SeedableRng, Signals};
use rand::RngExt;

use crate::error::CliError;
use crate::exit::Status;

/// What `dama egtb convert` was asked.
pub struct Options {
    /// The rules.
    pub variant: Variant,
    /// Games to play.
    pub positions: usize,
    /// Pieces of each start position.
    pub pieces: u32,
    /// Nodes a move for the attacker.
    pub nodes: u64,
    /// Only wins at least this many plies from conversion.
    pub min_distance: u32,
    /// The attacker without tables.
    pub no_tables: bool,
    /// Seed of the positions and of Hard's choices.
    pub seed: u64,
    /// Games at once.
    pub threads: usize,
}

/// How one game went.
#[derive(Clone, Copy, Debug)]
struct Played {
    value: Value,
    converted: bool,
    plies: usize,
    /// The first ply after which the tables no longer called it a win for the attacker.
    spoiled: Option<usize>,
}

pub fn run(dir: &Path, o: &Options) -> Result<Status, CliError> {
    dama_rules::with_rules!(o.variant, R => run_for::<R>(dir, o))
}

fn run_for<R: Rules>(dir: &Path, o: &Options) -> Result<Status, CliError> {
    let tables = Tables::open(dir).map_err(|e| CliError::Usage(e.to_string()))?;
    if tables.max_pieces(R::VARIANT) < o.pieces {
        return Err(CliError::Usage(format!(
            "the {} tables in {} hold up to {} pieces, not {}: build them with `dama egtb build --pieces {}`",
            R::VARIANT,
            dir.display(),
            tables.max_pieces(R::VARIANT),
            o.pieces,
            o.pieces
        )));
    }
    let starts = sample::<R>(&tables, o)?;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(vec![None; starts.len()]);
    let out = std::sync::Mutex::new(io::stdout());
    let work = || -> Result<(), CliError> {
        let mut engine = Engine::with_hash(16);
        engine.set_endgames(if o.no_tables {
            Endgames::none()
        } else {
            Endgames::from_dir(dir, false)
        });
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(&(start, value)) = starts.get(i) else {
                return Ok(());
            };
            let mut rng = ChaCha8Rng::seed_from_u64(o.seed.wrapping_add(i as u64));
            let played = play::<R>(&tables, &mut engine, start, value, o.nodes, &mut rng)?;
            let line = format!(
                "{} {}: {} after {} plies{}",
                start.fen(),
                value,
                if played.converted { "won" } else { "not won" },
                played.plies,
                played
                    .spoiled
                    .map_or(String::new(), |p| format!(", the win let go at ply {p}")),
            );
            results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(played);
            let out = out.lock().unwrap_or_else(|e| e.into_inner());
            let mut out = out.lock();
            writeln!(out, "{line}")
                .and_then(|_| out.flush())
                .map_err(CliError::Output)?;
        }
    };
    let joined: Vec<Result<(), CliError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..o.threads.clamp(1, 64)).map(|_| s.spawn(work)).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(CliError::Internal("a game thread panicked".into())))
            })
            .collect()
    });
    for r in joined {
        r?;
    }
    let played: Vec<Played> = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect();
    let converted = played.iter().filter(|p| p.converted).count();
    let spoiled = played.iter().filter(|p| p.spoiled.is_some()).count();
    let long: Vec<&Played> = played
        .iter()
        .filter(|p| p.value.distance().is_some_and(|d| d >= 10))
        .collect();
    let long_converted = long.iter().filter(|p| p.converted).count();
    crate::output::line(format_args!(
        "converted {converted}/{} ({:.1} %), the win let go in {spoiled}; of those {} \
         or more plies from conversion: {long_converted}/{}; Hard at {} nodes a move {}, \
         the defender perfect",
        played.len(),
        100.0 * converted as f64 / played.len().max(1) as f64,
        10,
        long.len(),
        o.nodes,
        if o.no_tables {
            "without tables"
        } else {
            "with the tables"
        },
    ))?;
    Ok(Status::Ok)
}

/// Won positions without a capture pending, drawn from the classes with men.
fn sample<R: Rules>(tables: &Tables, o: &Options) -> Result<Vec<(Position, Value)>, CliError> {
    let classes: Vec<_> = build_order(o.pieces)
        .into_iter()
        .flat_map(|m| [m, m.flip()])
        .filter(|m| m.pieces() == o.pieces && m.men() > 0)
        .collect();
    if classes.is_empty() {
        return Err(CliError::Usage(format!(
            "no class of {} pieces with men: expected --pieces 3 or more",
            o.pieces
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed);
    let mut out = Vec::new();
    let mut tries = 0u64;
    while out.len() < o.positions {
        tries += 1;
        if tries > 1_000_000 + 10_000 * o.positions as u64 {
            return Err(CliError::Internal(
                "no won position found in the tables".into(),
            ));
        }
        let m = classes[rng.random_range(0..classes.len())];
        let Some(p) = m.placement(rng.random_range(0..m.len())) else {
            continue;
        };
        let pos = p.position();
        if pos.must_capture::<R>() || pos.with_turn(Color::Black).must_capture::<R>() {
            continue;
        }
        match tables.probe_rules::<R>(&pos) {
            Ok(Some(v @ Value::Win(d))) if d >= o.min_distance => out.push((pos, v)),
            Ok(_) => {}
            Err(e) => return Err(CliError::Usage(e.to_string())),
        }
    }
    Ok(out)
}

/// Plays `start` out: Hard for the side to move, the tables for the other.
fn play<R: Rules>(
    tables: &Tables,
    engine: &mut Engine,
    start: Position,
    value: Value,
    nodes: u64,
    rng: &mut ChaCha8Rng,
) -> Result<Played, CliError> {
    let attacker = start.turn();
    let mut game = Game::from_position(R::VARIANT, start);
    engine.clear();
    let mut spoiled = None;
    let limits = Limits::nodes(nodes);
    // A safety net far beyond what the draw rules allow.
    while game.outcome().is_none() && game.moves().len() < 2000 {
        let pos = *game.position();
        let m = if pos.turn() == attacker {
            engine
                .play_level(&game, Level::Hard, &limits, &Signals::default(), rng)
                .best
        } else {
            tables.best_move::<R>(&pos)
        }
        .ok_or_else(|| CliError::Internal(format!("no move in {}", pos.fen())))?;
        game.play(m)
            .map_err(|e| CliError::Internal(format!("{}: {e}", pos.fen())))?;
        if pos.turn() == attacker && spoiled.is_none() {
            let after = tables
                .probe_rules::<R>(game.position())
                .map_err(|e| CliError::Usage(e.to_string()))?;
            if game.outcome().is_none() && !matches!(after, Some(Value::Loss(_))) {
                spoiled = Some(game.moves().len());
            }
        }
    }
    Ok(Played {
        value,
        converted: game.outcome() == Some(Outcome::Win(attacker)),
        plies: game.moves().len(),
        spoiled,
    })
}
