//! Builds `tests/data/shots.txt`: Italian shot positions (*tiri*), each proven by an exhaustive
//! full-width search written here for the purpose (it shares nothing with the engine's search).
//!
//! # Definition
//!
//! Material is counted in half-men: a man is 2, a king 3, from the side to move's view.
//!
//! `value(p, d)` is a plain minimax (alpha-beta, which stays exhaustive) of position `p`:
//! - a side with no legal move loses (`-WIN`), at any depth;
//! - while `d > 0` every legal move is searched, each one costing one ply;
//! - once `d <= 0` the search goes on only while the side to move must capture (all its legal
//!   captures are searched) and the material is counted at the first position whose side to move
//!   has no capture.
//!
//! A position is a shot at depth `D` (the `--depth` option) when:
//! 1. the side to move has no capture, at least two legal moves and at least 6 pieces on each
//!    side (so every root move is quiet);
//! 2. some root move wins at least one man: `-value(position after the move, D - 1)` is at least
//!    the root material + 2;
//! 3. at least one winning move is a sacrifice: after it the opponent must capture;
//! 4. the shallow search (depth 2, plus capture resolution) shows no such gain for any move, so
//!    the piece is not simply hanging and no one-move threat wins it;
//! 5. every winning move wins the same amount (the gain), which is not a won game (a blocked or
//!    wiped-out side), and at most 3 moves win (where nearly every move wins, nothing is tested);
//! 6. every other move scores at least one man less than the winning moves, so a test tells
//!    them apart;
//! 7. the proof depth, the smallest `d` such that the searches at every depth from `d` to `D`
//!    find the same winning moves with the same gain, is at most `D - 2`: at least three
//!    consecutive depths agree, so the gain does not come and go at the horizon.
//!
//! The accepted answers are all the winning root moves. Every candidate is proved a second time
//! turned round with the colours swapped ([`Position::flip`]); the two verdicts must agree (the
//! same gain and proof depth, the answers flipped by [`Move::flip`]), or the run panics.
//!
//! Candidates are the positions of random legal games from the start position (a seeded
//! splitmix64 generator, so a run is reproducible, in a single thread); at most one shot is kept
//! per game, and no position is tried twice (nor flipped).
//!
//! # Output
//!
//! One line per shot: `<FEN>;<accepted Hub moves, space separated>;<gain in men>;<proof depth>`,
//! after a `#` header that explains the format and gives the command that wrote the file.
//!
//! # Running
//!
//! ```text
//! cargo run --release -p dama-search --example prove_shots -- --count 200 --depth 11 --seed 1
//! ```
//!
//! This command wrote the committed file: 200 shots from 2,583 random games, 2.95 billion nodes,
//! 89 s of CPU time on one core (153 s wall clock on the shared, loaded 2-core build machine).
//! The run is single-threaded and deterministic: the same options give the same file.
//!
//! Options: `--count N` (shots to find, default 200), `--depth D` (default 11), `--seed S`
//! (default 1), `--games G` (give up after G random games, default 1000000), `--out PATH`
//! (default `tests/data/shots.txt` at the workspace root). `--show FEN` prints, for one
//! position, every root move's value at `--depth` with the line the minimax expects, and the
//! verdict.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use dama_rules::{notation::fen, variant::Italian, Move, MoveList, Position};

/// A man, in half-men.
const MAN: i32 = 2;
/// A king, in half-men.
const KING: i32 = 3;
/// The value of a won game (the side to move's opponent has no legal move).
const WIN: i32 = 10_000;
/// Above every value.
const INF: i32 = WIN + 1;
/// The gain a shot must reach: one man.
const MIN_GAIN: i32 = MAN;
/// The depth of the search that must not see the gain.
const SHALLOW: i32 = 2;
/// The fewest pieces a side may have in a candidate.
const MIN_PIECES: u32 = 6;
/// The most winning moves a shot may have.
const MAX_ANSWERS: usize = 3;
/// The proof must hold this many plies deeper than its proof depth (so at least `CONFIRM + 1`
/// consecutive depths agree).
const CONFIRM: i32 = 2;
/// Random games stop after this many plies.
const MAX_GAME_PLIES: u32 = 120;

/// Run settings, from the command line.
struct Options {
    count: usize,
    depth: i32,
    seed: u64,
    games: u64,
    out: PathBuf,
    show: Option<String>,
}

impl Options {
    fn parse() -> Result<Options, String> {
        let mut opts = Options {
            count: 200,
            depth: 11,
            seed: 1,
            games: 1_000_000,
            out: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/shots.txt"),
            show: None,
        };
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            let value = args
                .next()
                .ok_or_else(|| format!("option {flag} needs a value"))?;
            let bad = |_| format!("option {flag}: \"{value}\" is not a number");
            match flag.as_str() {
                "--count" => opts.count = value.parse().map_err(bad)?,
                "--depth" => opts.depth = value.parse().map_err(bad)?,
                "--seed" => opts.seed = value.parse().map_err(bad)?,
                "--games" => opts.games = value.parse().map_err(bad)?,
                "--out" => opts.out = PathBuf::from(value),
                "--show" => opts.show = Some(value),
                _ => {
                    return Err(format!(
                        "unknown option {flag}: expected --count, --depth, --seed, --games, --out or --show"
                    ))
                }
            }
        }
        if opts.depth <= SHALLOW + CONFIRM {
            return Err(format!(
                "--depth {} is too shallow: expected at least {}",
                opts.depth,
                SHALLOW + CONFIRM + 1
            ));
        }
        Ok(opts)
    }
}

/// splitmix64: small, seeded, reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Material in half-men from the side to move's view.
fn material(pos: &Position) -> i32 {
    let side = |c| MAN * pos.men(c).count() as i32 + KING * pos.kings(c).count() as i32;
    side(pos.turn()) - side(!pos.turn())
}

/// The exhaustive search, counting its nodes.
#[derive(Default)]
struct Prover {
    nodes: u64,
}

impl Prover {
    /// `value(pos, depth)` as defined at the top, within the window (`alpha`, `beta`);
    /// fail-soft.
    fn search(&mut self, pos: &Position, depth: i32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if depth <= 0 && !pos.must_capture::<Italian>() {
            return if pos.count_moves::<Italian>() == 0 {
                -WIN
            } else {
                material(pos)
            };
        }
        let mut list = MoveList::new();
        pos.generate::<Italian>(&mut list);
        let mut best = -WIN;
        for &m in &list {
            let v = -self.search(&pos.after(m), depth - 1, -beta, -alpha);
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Whether root move `m` reaches `target` at `depth`; its exact value when it does.
    fn reaches(&mut self, pos: &Position, m: Move, depth: i32, target: i32) -> Option<i32> {
        let v = -self.search(&pos.after(m), depth - 1, -INF, -(target - 1));
        (v >= target).then_some(v)
    }

    /// The root moves reaching `target` at `depth` with their exact values, in generation order.
    fn winners(
        &mut self,
        pos: &Position,
        moves: &[Move],
        depth: i32,
        target: i32,
    ) -> Vec<(Move, i32)> {
        moves
            .iter()
            .filter_map(|&m| self.reaches(pos, m, depth, target).map(|v| (m, v)))
            .collect()
    }

    /// A line the minimax expects from `pos` at `depth`, with the position's value.
    fn line(&mut self, pos: &Position, depth: i32) -> (i32, Vec<Move>) {
        let value = self.search(pos, depth, -INF, INF);
        let mut line = Vec::new();
        let (mut pos, mut depth) = (*pos, depth);
        while depth > 0 || pos.must_capture::<Italian>() {
            let moves = pos.moves::<Italian>();
            let want = if line.len() % 2 == 0 { value } else { -value };
            let Some(&m) = moves
                .iter()
                .find(|&&m| -self.search(&pos.after(m), depth - 1, -INF, INF) == want)
            else {
                break;
            };
            line.push(m);
            pos.play_unchecked(m);
            depth -= 1;
        }
        (value, line)
    }

    /// Proves `pos` a shot at `depth` (see the top of the file), or says why not (`None`).
    fn prove(&mut self, pos: &Position, depth: i32) -> Option<Shot> {
        if pos.must_capture::<Italian>() {
            return None;
        }
        let moves = pos.moves::<Italian>();
        if moves.len() < 2 {
            return None;
        }
        let target = material(pos) + MIN_GAIN;
        let (sacrifices, others): (Vec<Move>, Vec<Move>) = moves
            .iter()
            .partition(|m| pos.after(**m).must_capture::<Italian>());
        if sacrifices.is_empty() || !self.winners(pos, &moves, SHALLOW, target).is_empty() {
            return None;
        }
        // A winning sacrifice first: most candidates fail here, without searching the others.
        let mut wins = self.winners(pos, &sacrifices, depth, target);
        if wins.is_empty() {
            return None;
        }
        wins.extend(self.winners(pos, &others, depth, target));
        let value = wins[0].1;
        if value >= WIN || wins.len() > MAX_ANSWERS || wins.iter().any(|&(_, v)| v != value) {
            return None;
        }
        let rest: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| wins.iter().all(|&(w, _)| w != *m))
            .collect();
        if !self.winners(pos, &rest, depth, value - MAN + 1).is_empty() {
            return None;
        }
        wins.sort_by_key(|&(m, _)| m);
        let proof = self.proof_depth(pos, &moves, &wins, depth, target);
        if proof + CONFIRM > depth {
            return None;
        }
        Some(Shot {
            pos: *pos,
            answers: wins.iter().map(|&(m, _)| m).collect(),
            gain: value - material(pos),
            proof,
        })
    }

    /// The smallest depth from which every search up to `depth` finds `wins` (sorted).
    fn proof_depth(
        &mut self,
        pos: &Position,
        moves: &[Move],
        wins: &[(Move, i32)],
        depth: i32,
        target: i32,
    ) -> i32 {
        let mut proof = depth;
        while proof - 1 > SHALLOW {
            let mut shallower = self.winners(pos, moves, proof - 1, target);
            shallower.sort_by_key(|&(m, _)| m);
            if shallower != wins {
                break;
            }
            proof -= 1;
        }
        proof
    }
}

/// A proven shot.
#[derive(Debug, PartialEq)]
struct Shot {
    pos: Position,
    /// Every winning root move, sorted.
    answers: Vec<Move>,
    /// In half-men.
    gain: i32,
    /// The smallest depth from which the proof holds up to the run's depth.
    proof: i32,
}

impl Shot {
    /// The same shot turned round with the colours swapped.
    fn flip(&self) -> Shot {
        let mut answers: Vec<Move> = self.answers.iter().map(|m| m.flip()).collect();
        answers.sort();
        Shot {
            pos: self.pos.flip(),
            answers,
            gain: self.gain,
            proof: self.proof,
        }
    }

    /// One line of the data file.
    fn line(&self) -> String {
        let answers: Vec<String> = self.answers.iter().map(Move::to_string).collect();
        let men = if self.gain % MAN == 0 {
            format!("{}", self.gain / MAN)
        } else {
            format!("{:.1}", f64::from(self.gain) / f64::from(MAN))
        };
        format!(
            "{};{};{men};{}",
            self.pos.fen(),
            answers.join(" "),
            self.proof
        )
    }
}

/// Whether a random-game position may be tried.
fn is_candidate(pos: &Position) -> bool {
    dama_rules::Color::ALL
        .iter()
        .all(|&c| pos.pieces(c).count() >= MIN_PIECES)
}

/// Plays one random game and returns the first shot found in it.
fn shot_in_game(
    rng: &mut Rng,
    prover: &mut Prover,
    depth: i32,
    seen: &mut HashSet<Position>,
) -> Option<Shot> {
    let mut pos = Position::start();
    let mut list = MoveList::new();
    for _ in 0..MAX_GAME_PLIES {
        if !is_candidate(&pos) {
            return None;
        }
        if seen.insert(pos) && seen.insert(pos.flip()) {
            let shot = prover.prove(&pos, depth);
            let flipped = prover.prove(&pos.flip(), depth);
            assert_eq!(
                flipped,
                shot.as_ref().map(Shot::flip),
                "the prover is not symmetric in {}",
                pos.fen()
            );
            if shot.is_some() {
                return shot;
            }
        }
        pos.generate::<Italian>(&mut list);
        if list.is_empty() {
            return None;
        }
        pos.play_unchecked(list[rng.below(list.len())]);
    }
    None
}

/// The data file: header, then one line per shot.
fn file_text(shots: &[Shot], opts: &Options, command: &str) -> String {
    let unique = shots.iter().filter(|s| s.answers.len() == 1).count();
    let depth = opts.depth;
    let header = [
        "Italian draughts shots (tiri), proven by dama-search/examples/prove_shots.rs (its top",
        "comment gives the definition in full).",
        "",
        "Line: <FEN>;<accepted moves>;<gain in men>;<proof depth>",
        "- FEN: White or Black to move; the side to move has no capture; each side has at least",
        "  6 pieces.",
        "- accepted moves: every root move (Hub notation; all quiet) that wins at least one man in",
        "  an exhaustive minimax on material (man 1, king 1.5): full width for the proof depth in",
        "  plies, then captures only, while the side to move must capture; a side with no legal",
        "  move loses. At least one accepted move is a sacrifice (the opponent must capture), and",
        &format!(
            "  at most 3 moves win; {unique} of {} positions have a single answer.",
            shots.len()
        ),
        "- gain: what every accepted move wins, in men; a depth-2 search does not show it.",
        &format!(
            "- proof depth: the smallest depth from which every search up to depth {depth} finds"
        ),
        &format!("  the same answers and gain (at most {}).", depth - CONFIRM),
        "",
        "Regenerate with:",
        &format!("  {command}"),
    ];
    let mut out = String::new();
    for line in header {
        out.push_str(format!("# {line}").trim_end());
        out.push('\n');
    }
    for shot in shots {
        out.push_str(&shot.line());
        out.push('\n');
    }
    out
}

/// `--show FEN`: every root move's value and expected line, and the verdict.
fn show(text: &str, depth: i32) -> ExitCode {
    let pos = match fen::parse(text) {
        Ok(pos) => pos,
        Err(e) => {
            eprintln!("prove_shots: {e}");
            return ExitCode::from(2);
        }
    };
    let mut prover = Prover::default();
    println!(
        "{pos}\nmaterial {} (half-men, side to move's view)",
        material(&pos)
    );
    for m in pos.moves::<Italian>() {
        let (v, line) = prover.line(&pos.after(m), depth - 1);
        let line: Vec<String> = line.iter().map(Move::to_string).collect();
        println!("{m:>8} {:>6}  {}", -v, line.join(" "));
    }
    match prover.prove(&pos, depth) {
        Some(shot) => println!("shot: {}", shot.line()),
        None => println!("not a shot at depth {depth}"),
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let opts = match Options::parse() {
        Ok(opts) => opts,
        Err(e) => {
            eprintln!("prove_shots: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(text) = &opts.show {
        return show(text, opts.depth);
    }
    let start = Instant::now();
    let mut rng = Rng(opts.seed);
    let mut prover = Prover::default();
    let mut seen = HashSet::new();
    let mut shots = Vec::new();
    let mut games = 0;
    while shots.len() < opts.count && games < opts.games {
        games += 1;
        if let Some(shot) = shot_in_game(&mut rng, &mut prover, opts.depth, &mut seen) {
            eprintln!(
                "{:4} {:7.1}s game {games}: {}",
                shots.len() + 1,
                start.elapsed().as_secs_f64(),
                shot.line()
            );
            shots.push(shot);
        }
    }
    let command = format!(
        "cargo run --release -p dama-search --example prove_shots -- --count {} --depth {} --seed {} --games {}",
        opts.count, opts.depth, opts.seed, opts.games
    );
    if let Err(e) = std::fs::write(&opts.out, file_text(&shots, &opts, &command)) {
        eprintln!("prove_shots: cannot write {}: {e}", opts.out.display());
        return ExitCode::from(2);
    }
    eprintln!(
        "{} shots from {games} games, {} nodes, {:.1}s, written to {}",
        shots.len(),
        prover.nodes,
        start.elapsed().as_secs_f64(),
        opts.out.display()
    );
    ExitCode::SUCCESS
}
