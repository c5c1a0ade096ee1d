//! `dama egtb convert`: endings played out against perfect play.
//!
//! Positions are drawn from the table files: a class (of exactly `--pieces` pieces; with
//! men, kings only, or either, by `--classes`) at random, then an index at random, kept when
//! the tables give the side to move the value asked for (`--start won|drawn|lost`) and no
//! capture is pending for either side (and, for wins, with `--min-distance D`, when the win
//! is at least D plies from its conversion: most random wins with men are a man move away);
//! every other start is turned round, so that Black is to move in half of them. Hard plays
//! the side to move at a fixed node budget, with the tables of `--dir` (the default) or with
//! none at all (`--no-tables`, its search alone). The tables play the other side:
//!
//! - against a win, the move that puts the end furthest off: by DTW (plies to the end of the
//!   game) where the in-memory DTW tables hold the position, else by the files' MTC;
//! - against a draw, a drawing move at random, and the quickest win if Hard lets one in;
//! - against a loss, the quickest win (DTW, else MTC).
//!
//! With `--engine`, Hard's side is played by a Hub engine instead (`dama-engine`, or any
//! other), a fresh process for each game, as a GUI starts one: so that what an engine builds
//! at its start or on first need (its in-memory tables) counts, as it does for a user; the
//! time from `hub` to `ready` is reported. `--move-time` plays Hard's moves on the clock
//! (where a search never waits for a table to be built) rather than at a node budget.
//!
//! The game's own draw rules apply (for Italian, 40 moves each without a capture or a man
//! move is a draw), and a threefold repetition counts as a draw too, as referees and other
//! programs count it. A won game is set against its perfect length, the start's DTW, when
//! the DTW tables hold it (every class of at most 5 pieces and the kings-only ones of 6;
//! they are built in memory first, which takes a minute or two for 5 and 6 pieces), and
//! Hard's moves that come back to a position of the game are counted.

use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use dama_egtb::{solve::build_order, Material, Memory, Placement, Tables, Value, Wdl};
use dama_protocol::client::{ClientConfig, HubClient};
use dama_rules::{Game, Move, Outcome, Position, Rules, Variant};
use dama_search::{ChaCha8Rng, Endgames, Engine, Level, Limits, SeedableRng, Signals};
use rand::RngExt;

use crate::error::CliError;
use crate::exit::Status;

/// Which classes the starts come from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Classes {
    /// With at least one man.
    WithMen,
    /// Kings only.
    KingsOnly,
    /// Either.
    All,
}

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
    /// The classes of the starts.
    pub classes: Classes,
    /// The tables' value of the starts for Hard.
    pub start: Wdl,
    /// Seed of the positions and of Hard's choices.
    pub seed: u64,
    /// Games at once.
    pub threads: usize,
    /// A Hub engine for Hard's side, started afresh for each game.
    pub engine: Option<ClientConfig>,
    /// A time a move for Hard, in place of the node budget.
    pub move_time: Option<Duration>,
}

/// Who plays Hard's side of one game.
enum Attacker<'a> {
    /// dama's search, in this process.
    Own(&'a mut Engine),
    /// A Hub engine, started for this game.
    Hub(Box<HubClient>),
}

/// How one game went.
#[derive(Clone, Copy, Debug)]
struct Played {
    kings_only: bool,
    plies: usize,
    /// The start's DTW, when known.
    perfect: Option<u32>,
    /// The first ply after which the tables called Hard's side worse than at the start.
    spoiled: Option<usize>,
    /// Hard's moves to a position the game had seen.
    repeats: usize,
    /// Whether the game ended in a threefold repetition.
    threefold: bool,
    /// How it ended for Hard: won, drawn (or not finished) or lost.
    result: Wdl,
    /// With a Hub engine, the time from its start to `ready`.
    init: Option<Duration>,
}

/// The DTW tables the defender and the perfect lengths come from.
fn dtw_tables<R: Rules>(pieces: u32) -> Memory<R> {
    Memory::<R>::new(pieces.min(5))
        .with_kings_only(pieces.min(6))
        .with_threads(2)
        .dtw()
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
    // The engine's DTW tables of the starts' classes, built before the games (a search would
    // build the large ones in the background and play by MTC meanwhile).
    if !o.no_tables && o.engine.is_none() {
        let endgames = Endgames::from_dir(dir, false);
        let mut classes: Vec<Material> = starts
            .iter()
            .map(|(p, _)| Placement::of(p).material())
            .collect();
        classes.sort();
        classes.dedup();
        for m in classes {
            endgames.prepare_dtw::<R>(m);
        }
    }
    let dtw = dtw_tables::<R>(o.pieces);
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
            let limits = o
                .move_time
                .map_or(Limits::nodes(o.nodes), Limits::move_time);
            let (attacker, init) = match &o.engine {
                None => (Attacker::Own(&mut engine), None),
                Some(config) => {
                    let t = Instant::now();
                    let client = HubClient::launch(config).map_err(|e| {
                        CliError::Usage(format!("the engine {}: {e}", config.program))
                    })?;
                    (Attacker::Hub(Box::new(client)), Some(t.elapsed()))
                }
            };
            let mut played = play::<R>(&tables, &dtw, attacker, start, value, &limits, &mut rng)?;
            played.init = init;
            let line = format!(
                "{} {}{}: {} after {} plies{}{}{}",
                start.fen(),
                value,
                played
                    .perfect
                    .map_or(String::new(), |d| format!(" (perfect {d})")),
                match played.result {
                    Wdl::Win => "won",
                    Wdl::Draw => "drawn",
                    Wdl::Loss => "lost",
                },
                played.plies,
                if played.threefold {
                    ", drawn by threefold repetition"
                } else {
                    ""
                },
                played.spoiled.map_or(String::new(), |p| format!(
                    ", {} let go at ply {p}",
                    if o.start == Wdl::Win {
                        "the win"
                    } else {
                        "the draw"
                    }
                )),
                match played.repeats {
                    0 => String::new(),
                    n => format!(", {n} repeating moves by Hard"),
                },
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
    let count = |w: Wdl| played.iter().filter(|p| p.result == w).count();
    let spoiled = played.iter().filter(|p| p.spoiled.is_some()).count();
    let repeats: usize = played.iter().map(|p| p.repeats).sum();
    let threefold = played.iter().filter(|p| p.threefold).count();
    let budget = match o.move_time {
        Some(t) => format!("{} s", t.as_secs_f64()),
        None => format!("{} nodes", o.nodes),
    };
    let hard = match &o.engine {
        Some(c) => format!(
            "the Hub engine {} at {budget} a move, one a game",
            c.program
        ),
        None => format!(
            "Hard at {budget} a move {}",
            if o.no_tables {
                "without tables"
            } else {
                "with the tables"
            }
        ),
    };
    match o.start {
        Wdl::Win => crate::output::line(format_args!(
            "converted {}/{} ({:.1} %), the win let go in {spoiled}, {repeats} repeating moves \
             by Hard, {threefold} threefold repetitions; {hard}, the defender perfect",
            count(Wdl::Win),
            played.len(),
            100.0 * count(Wdl::Win) as f64 / played.len().max(1) as f64,
        )),
        Wdl::Draw => crate::output::line(format_args!(
            "drawn starts: {} drawn, {} won, {} lost; the draw let go in {spoiled}; {hard}, \
             the tables drawing at random and winning when let",
            count(Wdl::Draw),
            count(Wdl::Win),
            count(Wdl::Loss),
        )),
        Wdl::Loss => crate::output::line(format_args!(
            "lost starts: {} lost, {} drawn, {} won; {hard}, the attacker perfect",
            count(Wdl::Loss),
            count(Wdl::Draw),
            count(Wdl::Win),
        )),
    }?;
    let inits: Vec<Duration> = played.iter().filter_map(|p| p.init).collect();
    if let Some(longest) = inits.iter().max() {
        crate::output::line(format_args!(
            "the engine from its start to ready: {:.2} s on average, {:.2} s at most",
            inits.iter().sum::<Duration>().as_secs_f64() / inits.len() as f64,
            longest.as_secs_f64()
        ))?;
    }
    for (name, kings_only) in [("kings only", true), ("with men", false)] {
        let set: Vec<&Played> = played
            .iter()
            .filter(|p| p.kings_only == kings_only && p.result == o.start && p.result != Wdl::Draw)
            .collect();
        let known: Vec<&&Played> = set.iter().filter(|p| p.perfect.is_some()).collect();
        if known.is_empty() {
            continue;
        }
        let plies: usize = known.iter().map(|p| p.plies).sum();
        let perfect: u32 = known.iter().filter_map(|p| p.perfect).sum();
        let worst = known
            .iter()
            .map(|p| match p.perfect {
                Some(0) | None => 1.0,
                Some(d) => p.plies as f64 / f64::from(d),
            })
            .fold(if o.start == Wdl::Win { 0.0 } else { f64::MAX }, |a, b| {
                if o.start == Wdl::Win {
                    a.max(b)
                } else {
                    a.min(b)
                }
            });
        crate::output::line(format_args!(
            "{name}: {} games {} with a known perfect length, {plies} plies against a perfect \
             {perfect} ({:.3}x; the {} game {:.2}x its perfect length), {:.1} plies a game \
             against {:.1}",
            known.len(),
            if o.start == Wdl::Win { "won" } else { "lost" },
            plies as f64 / f64::from(perfect.max(1)),
            if o.start == Wdl::Win {
                "longest"
            } else {
                "shortest"
            },
            worst,
            plies as f64 / known.len() as f64,
            f64::from(perfect) / known.len() as f64,
        ))?;
    }
    Ok(Status::Ok)
}

/// Positions of the value asked for without a capture pending, drawn from the classes asked
/// for; every other one turned round (Black to move).
fn sample<R: Rules>(tables: &Tables, o: &Options) -> Result<Vec<(Position, Value)>, CliError> {
    let classes: Vec<_> = build_order(o.pieces)
        .into_iter()
        .flat_map(|m| [m, m.flip()])
        .filter(|m| {
            m.pieces() == o.pieces
                && match o.classes {
                    Classes::WithMen => m.men() > 0,
                    Classes::KingsOnly => m.men() == 0,
                    Classes::All => true,
                }
        })
        .collect();
    if classes.is_empty() {
        return Err(CliError::Usage(format!(
            "no class of {} pieces of that kind: expected --pieces 3 or more",
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
        let pos = if out.len() % 2 == 1 { pos.flip() } else { pos };
        if pos.must_capture::<R>() || pos.with_turn(!pos.turn()).must_capture::<R>() {
            continue;
        }
        match tables.probe_rules::<R>(&pos) {
            Ok(Some(v))
                if v.wdl() == o.start
                    && (o.start != Wdl::Win || v.distance() >= Some(o.min_distance)) =>
            {
                out.push((pos, v))
            }
            Ok(_) => {}
            Err(e) => return Err(CliError::Usage(e.to_string())),
        }
    }
    Ok(out)
}

/// The tables' move: the quickest win where `pos` is won (by DTW where `dtw` holds it,
/// else by MTC), a drawing move at random where it is drawn, the longest loss where lost.
fn tables_move<R: Rules>(
    tables: &Tables,
    dtw: &Memory<R>,
    pos: &Position,
    rng: &mut ChaCha8Rng,
) -> Result<Option<Move>, CliError> {
    let probe = |p: &Position| {
        tables
            .probe_rules::<R>(p)
            .map_err(|e| CliError::Usage(e.to_string()))
    };
    if probe(pos)? == Some(Value::Draw) {
        let mut drawing = Vec::new();
        for &m in pos.moves::<R>().iter() {
            if probe(&pos.after(m))? == Some(Value::Draw) {
                drawing.push(m);
            }
        }
        if !drawing.is_empty() {
            return Ok(Some(drawing[rng.random_range(0..drawing.len())]));
        }
    }
    if dtw.covers(Placement::of(pos).material()) {
        if let Some(m) = dtw.best_move(pos) {
            return Ok(Some(m));
        }
    }
    Ok(tables.best_move::<R>(pos))
}

/// Hard's move in `game` under `limits`: its own search, or the Hub engine's answer.
fn attacker_move(
    attacker: &mut Attacker<'_>,
    game: &Game,
    limits: &Limits,
    rng: &mut ChaCha8Rng,
) -> Result<Option<Move>, CliError> {
    match attacker {
        Attacker::Own(engine) => Ok(engine
            .play_level(game, Level::Hard, limits, &Signals::default(), rng)
            .best),
        Attacker::Hub(client) => {
            let failed = |e: dama_protocol::Error| {
                CliError::Internal(format!("the engine in {}: {e}", game.position().fen()))
            };
            let reply = client
                .go(game.start(), game.moves(), limits)
                .map_err(failed)?;
            reply
                .mv
                .map(|text| {
                    dama_rules::notation::parse_move_for(game.variant(), game.position(), &text)
                        .map_err(|e| {
                            CliError::Internal(format!(
                                "the engine's move {text} in {}: {e}",
                                game.position().fen()
                            ))
                        })
                })
                .transpose()
        }
    }
}

/// Plays `start` (of value `start_value` for its side to move) out: Hard for the side to
/// move, the tables for the other.
fn play<R: Rules>(
    tables: &Tables,
    dtw: &Memory<R>,
    mut attacker: Attacker<'_>,
    start: Position,
    start_value: Value,
    limits: &Limits,
    rng: &mut ChaCha8Rng,
) -> Result<Played, CliError> {
    let hard = start.turn();
    let material: Material = Placement::of(&start).material();
    let perfect = if dtw.covers(material) {
        dtw.probe(&start).and_then(Value::distance)
    } else {
        None
    };
    let mut game = Game::from_position(R::VARIANT, start);
    if let Attacker::Own(engine) = &mut attacker {
        engine.clear();
    }
    let mut spoiled = None;
    let mut repeats = 0;
    let mut threefold = false;
    // A safety net far beyond what the draw rules allow.
    while game.outcome().is_none() && game.moves().len() < 2000 {
        let pos = *game.position();
        let m = if pos.turn() == hard {
            attacker_move(&mut attacker, &game, limits, rng)?
        } else {
            tables_move::<R>(tables, dtw, &pos, rng)?
        }
        .ok_or_else(|| CliError::Internal(format!("no move in {}", pos.fen())))?;
        game.play(m)
            .map_err(|e| CliError::Internal(format!("{}: {e}", pos.fen())))?;
        let key = game.position().hash();
        let seen = game.keys().iter().filter(|&&k| k == key).count();
        if pos.turn() == hard {
            repeats += usize::from(seen > 1);
            if spoiled.is_none() && game.outcome().is_none() {
                // After Hard's move, the tables' value for the other side.
                let after = tables
                    .probe_rules::<R>(game.position())
                    .map_err(|e| CliError::Usage(e.to_string()))?;
                // A win the 40-move counter leaves no time for is no win.
                let limit = R::VARIANT.draw_rules().no_progress_plies;
                let opponent_wins =
                    matches!(after, Some(Value::Win(d)) if game.quiet_plies() + d < limit);
                let kept = match start_value.wdl() {
                    Wdl::Win => matches!(after, Some(Value::Loss(_))),
                    Wdl::Draw => !opponent_wins,
                    Wdl::Loss => true,
                };
                if !kept {
                    spoiled = Some(game.moves().len());
                }
            }
        }
        if seen >= 3 {
            threefold = true;
            break;
        }
    }
    let result = match game.outcome() {
        _ if threefold => Wdl::Draw,
        Some(Outcome::Win(c)) if c == hard => Wdl::Win,
        Some(Outcome::Win(_)) => Wdl::Loss,
        _ => Wdl::Draw,
    };
    if let Attacker::Hub(client) = attacker {
        client.quit();
    }
    Ok(Played {
        init: None,
        kings_only: material.men() == 0,
        result,
        plies: game.moves().len(),
        perfect,
        spoiled,
        repeats,
        threefold,
    })
}
