//! `dama match`: games between two players, the result with its Elo difference.
//!
//! `--json` prints one line per game, `{"type": "game", "data": {"index", "first_is_white",
//! "result", "reason", "plies"}}`, then `{"type": "result", "data": {"wins", "draws",
//! "losses", "games", "score", "elo", "elo_error", "elo_bound"}}` (`score` is 0..1 for the
//! first player; `elo_error` is the half-width of the 95 % confidence interval). When one
//! side scored everything the Elo difference has no estimate, only a bound: `elo` and
//! `elo_error` are null and `elo_bound` is `{"op": ">", "elo": 182.7}` (every game won:
//! above +182.7 with 95 % confidence, the exact binomial bound, see
//! `dama_lab::matches::MatchResult::elo_bound`) or `{"op": "<", "elo": -182.7}`;
//! otherwise `elo_bound` is null. The text line reads `elo > +182.7 (95% bound)` then.
//! The `result` also has `pentanomial`, the game pairs counted by the first player's score
//! over the pair (see `sprt.rs`), and `sprt`, the test's final state or null.
//!
//! With `--sprt`, an `sprt` line follows the `game` line that ends each pair (see
//! `sprt.rs`), the match stops when the test decides (the pairs under way finish), and the
//! text output has the `sprt` line before the result line.

use dama_protocol::{ClientConfig, HubPlayer};
use std::collections::BTreeMap;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dama_lab::matches::{
    continuations, italian_openings, opening_lines, play_match_streaming, EloBound, GameRecord,
    LevelPlayer, MatchConfig, MatchResult, Player, SearchPlayer,
};
use dama_lab::sprt::Sprt;
use dama_rules::notation::fen;
use dama_rules::notation::pdn::{GameResult, Reader};
use dama_rules::{Game, Move, Position, Variant};
use dama_search::weights::Weights;
use dama_search::{Endgames, Knobs, Level, Limits};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use super::progress::Progress;
use super::source;
use super::sprt::{FilePairs, Pairs};
use crate::error::CliError;
use crate::exit::Status;

/// A player as given on the command line.
#[derive(Clone, Debug)]
pub enum PlayerSpec {
    /// `level:<name>`, or `level:<name>:nobook` to play without the opening book.
    Level(Level, bool),
    /// `depth:N`, `nodes:N`, `time:S` or `clock` (the match's `--clock` alone): full
    /// strength under those limits (on a clock, the clock replaces `time:`), optionally
    /// followed by `/switches` (the search's knobs, e.g. `nodes:20000/hand=1` to play the
    /// hand-set weights, `nodes:20000/weights=my.weights` to play the weights of a file
    /// `dama tune fit` wrote), for comparing them.
    Search(String, Limits, Knobs, Option<Arc<Weights>>),
    /// `hub:<command>`: any Hub engine, launched as a subprocess.
    Hub(String),
}

impl std::str::FromStr for PlayerSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<PlayerSpec, String> {
        // `clock[/knobs]`: the search on the match's clock alone.
        if let Some(rest) = s.strip_prefix("clock") {
            if rest.is_empty() || rest.starts_with('/') {
                let k = rest.strip_prefix('/').unwrap_or("");
                let (knobs, weights) = switches(k).map_err(|e| format!("{s:?}: {e}"))?;
                return Ok(PlayerSpec::Search(
                    s.into(),
                    Limits::default(),
                    knobs,
                    weights,
                ));
            }
        }
        let (kind, value) = s.split_once(':').unwrap_or((s, ""));
        let (value, knobs, weights) = match value.split_once('/') {
            Some((v, k)) if matches!(kind, "depth" | "nodes" | "time") => {
                let (knobs, weights) = switches(k).map_err(|e| format!("{s:?}: {e}"))?;
                (v, knobs, weights)
            }
            _ => (value, Knobs::default(), None),
        };
        let bad = || {
            format!(
                "{s:?} is not a player: expected level:<novice..hard>[:nobook], hub:<command>, \
                 or depth:N, nodes:N, time:SECONDS or clock (these four with /knobs if wanted)"
            )
        };
        match kind {
            "level" => {
                let (name, book) = match value.split_once(':') {
                    Some((name, "nobook")) => (name, false),
                    Some(_) => return Err(bad()),
                    None => (value, true),
                };
                name.parse()
                    .map(|l| PlayerSpec::Level(l, book))
                    .map_err(|_| bad())
            }
            "depth" => match whole(value, u64::from(Limits::MAX_DEPTH)) {
                Ok(d) => {
                    let d = u32::try_from(d).expect("at most MAX_DEPTH, a u32");
                    Ok(PlayerSpec::Search(
                        s.into(),
                        Limits::depth(d),
                        knobs,
                        weights,
                    ))
                }
                Err(Some(why)) => Err(format!("{s:?}: {why}")),
                Err(None) => Err(bad()),
            },
            "nodes" => match whole(value, u64::MAX) {
                Ok(n) => Ok(PlayerSpec::Search(
                    s.into(),
                    Limits::nodes(n),
                    knobs,
                    weights,
                )),
                Err(Some(why)) => Err(format!("{s:?}: {why}")),
                Err(None) => Err(bad()),
            },
            "time" => match crate::cli::seconds(value) {
                Ok(t) => Ok(PlayerSpec::Search(
                    s.into(),
                    Limits::move_time(t),
                    knobs,
                    weights,
                )),
                Err(why) => Err(format!("{s:?}: {why}")),
            },
            "hub" if !value.trim().is_empty() => Ok(PlayerSpec::Hub(value.trim().into())),
            _ => Err(bad()),
        }
    }
}

/// A player's whole number `1..=max`: `Err(Some(why))` for a number out of range,
/// `Err(None)` for text that is not a number.
fn whole(text: &str, max: u64) -> Result<u64, Option<String>> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(None);
    }
    match text.parse::<u64>() {
        Ok(0) => Err(Some("expected 1 or more".into())),
        Ok(n) if n <= max => Ok(n),
        _ => Err(Some(format!("too large, at most {max}"))),
    }
}

/// The switches after a player's `/`: the search's knobs (`hand=1,lmr=0`) and
/// `weights=FILE`, read here.
fn switches(text: &str) -> Result<(Knobs, Option<Arc<Weights>>), String> {
    let mut knobs = Vec::new();
    let mut weights = None;
    for item in text.split(',') {
        match item.strip_prefix("weights=") {
            Some(path) => {
                let read = Weights::read(Path::new(path)).map_err(|e| e.to_string())?;
                weights = Some(Arc::new(read));
            }
            None => knobs.push(item),
        }
    }
    Ok((knobs.join(",").parse()?, weights))
}

/// How the match is played.
pub struct Options {
    pub first: PlayerSpec,
    pub second: PlayerSpec,
    /// Games in all; `None`: 20, or no limit with an SPRT.
    pub games: Option<usize>,
    /// Seconds a move, the first player's and the second's.
    pub movetime: Option<[Duration; 2]>,
    /// The game clocks, the first player's and the second's, in place of a time a move.
    pub clock: Option<[dama_search::Clock; 2]>,
    pub nodes: Option<u64>,
    pub concurrency: usize,
    pub openings: Option<PathBuf>,
    pub pdn: Option<PathBuf>,
    pub json: bool,
    pub shard: Option<(usize, usize)>,
    /// Keep the games already in the `pdn` file and play the rest.
    pub resume: bool,
    pub seed: u64,
    pub variant: Variant,
    /// Each player's endgame tables: `memory`, `none` or a directory.
    pub egtb: [String; 2],
    /// Play until this test decides (or `games` are played).
    pub sprt: Option<Sprt>,
}

/// The pairs of a match with no limit on its games: more than any match plays.
const NO_LIMIT: usize = usize::MAX / 8;
/// The opening pairs a match varies (see `continuations`); a longer match cycles through them.
const MAX_VARIED_PAIRS: usize = 100_000;

/// The greatest common divisor.
fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The endgame tables named on the command line: `memory`, `none` or a directory holding
/// tables of `variant`.
fn endgames(text: &str, variant: Variant) -> Result<Endgames, CliError> {
    match text {
        "memory" => Ok(Endgames::memory_only()),
        "none" => Ok(Endgames::none()),
        dir => {
            let e = Endgames::from_dir(Path::new(dir), false);
            if e.file_pieces(variant) == 0 {
                return Err(CliError::Usage(format!(
                    "{dir:?}: no complete set of {variant} endgame tables there: expected \
                     memory, none or a directory that `dama egtb build` filled"
                )));
            }
            Ok(e)
        }
    }
}

/// Reads `K/N` (1 <= K <= N).
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("{s:?} is not a shard: expected K/N with 1 <= K <= N, like 3/10");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

fn factory(
    spec: &PlayerSpec,
    extra: Limits,
    seed: u64,
    tables: Endgames,
) -> impl Fn() -> Box<dyn Player> + Sync {
    let spec = spec.clone();
    let counter = std::sync::atomic::AtomicU64::new(0);
    move || -> Box<dyn Player> {
        let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match &spec {
            PlayerSpec::Level(level, book) => {
                let player =
                    LevelPlayer::new(*level, extra, seed + n).with_endgames(tables.clone());
                Box::new(if *book { player } else { player.without_book() })
            }
            PlayerSpec::Search(name, limits, knobs, weights) => {
                let mut limits = *limits;
                limits.nodes = limits.nodes.or(extra.nodes);
                Box::new(
                    SearchPlayer::new(name.clone(), limits, 16)
                        .with_knobs(*knobs)
                        .with_weights(weights.clone())
                        .with_endgames(tables.clone()),
                )
            }
            PlayerSpec::Hub(command) => {
                let mut words = command.split_whitespace().map(String::from);
                let mut config = ClientConfig::new(words.next().unwrap_or_default());
                config.args = words.collect();
                // Without --movetime or --nodes an engine gets a second a move.
                let limits = if extra.is_infinite() {
                    Limits::move_time(Duration::from_secs(1))
                } else {
                    extra
                };
                Box::new(HubEngine(HubPlayer::new(
                    format!("hub:{command}"),
                    config,
                    limits,
                )))
            }
        }
    }
}

/// A Hub engine as a match player: dama-protocol's [`HubPlayer`] (which knows nothing of
/// matches, so that the engine's front end does not build the laboratory) under
/// dama-lab's [`Player`] trait. A failure is the move's forfeit, with the client's reason.
struct HubEngine(HubPlayer);

impl Player for HubEngine {
    fn name(&self) -> String {
        self.0.name()
    }

    fn new_game(&mut self) {
        self.0.new_game();
    }

    fn set_clock(&mut self, clock: dama_search::Clock) {
        self.0.set_clock(clock);
    }

    fn choose(&mut self, game: &Game) -> Result<Move, String> {
        self.0.choose(game).map_err(|e| e.to_string())
    }
}

/// An opening: a start position and moves played from it.
type Opening = (Position, Vec<Move>);

/// Openings from a file, in one of two forms:
/// - a PDN file (its first text is a `[Tag "..."]`): each game is an opening, its moves
///   played from its `FEN` tag (or the start position);
/// - lines, each an opening: a FEN (`W:W21,22:B1,2`, the position to start from), or moves
///   from the start separated by spaces (`22-18 10-14`); `#` starts a comment, blank lines
///   are skipped.
///
/// A line or game that cannot be read is an error naming the file and the line.
fn read_openings(path: &Path, variant: Variant) -> Result<Vec<Opening>, CliError> {
    let mut text = String::new();
    source::open(path)?
        .read_to_string(&mut text)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
    let first = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find(|l| !l.is_empty());
    if first.is_some_and(|l| l.starts_with('[')) {
        return read_pdn_openings(path, &text, variant);
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |why: String| CliError::Usage(format!("{}:{}: {why}", path.display(), i + 1));
        let bare = line.trim_matches('"');
        let is_fen = bare.len() >= 2 && matches!(&bare.as_bytes()[..2], b"W:" | b"B:");
        if is_fen {
            let pos = fen::parse(line).map_err(|e| at(e.to_string()))?;
            out.push((pos, Vec::new()));
            continue;
        }
        let mut game = Game::from_position(variant, Position::start());
        let moves = line
            .split_whitespace()
            .map(|t| game.play_text(t))
            .collect::<Result<Vec<Move>, _>>()
            .map_err(|e| {
                at(format!(
                    "{e} (a line is moves from the start, like `22-18 10-14`, or a FEN, \
                     like `W:W21,22:B1,2`)"
                ))
            })?;
        out.push((Position::start(), moves));
    }
    Ok(out)
}

/// The games of a PDN file as openings (see [`read_openings`]).
fn read_pdn_openings(path: &Path, text: &str, variant: Variant) -> Result<Vec<Opening>, CliError> {
    let mut out = Vec::new();
    for (i, game) in Reader::new(text.as_bytes(), variant).enumerate() {
        let game = game.map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
        if game.variant != variant {
            return Err(CliError::Usage(format!(
                "{}: game {} is {} draughts, the match is {} draughts (--variant)",
                path.display(),
                i + 1,
                game.variant.name(),
                variant.name()
            )));
        }
        out.push((game.start, game.moves));
    }
    Ok(out)
}

/// Plays the match (or this shard of it) and prints the result line.
pub fn run(o: Options) -> Result<Status, CliError> {
    let mut openings = match &o.openings {
        Some(path) => read_openings(path, o.variant)?,
        None if o.variant == Variant::Italian => italian_openings()
            .into_iter()
            .map(|moves| (Position::start(), moves))
            .collect(),
        // No built-in balanced set: every three-ply line from the start.
        None => opening_lines(o.variant, 3)
            .into_iter()
            .map(|moves| (Position::start(), moves))
            .collect(),
    };
    let pairs = match (o.games, o.sprt) {
        (Some(games), _) => games.div_ceil(2),
        (None, Some(_)) => NO_LIMIT,
        (None, None) => 10,
    };
    // The whole match plays pair p from opening p (cycling); a shard plays the pairs p with
    // p mod N = K - 1, after a shuffle of the openings seeded by --seed. Its pair j is pair
    // j N + K - 1, whose opening repeats after L / gcd(L, N) pairs (L openings): `mine` is
    // one such period, which the match cycles through.
    openings.shuffle(&mut ChaCha8Rng::seed_from_u64(o.seed));
    let (k, n) = o.shard.unwrap_or((1, 1));
    let my_pairs = (pairs + n - k) / n;
    let period = if openings.is_empty() {
        1
    } else {
        openings.len() / gcd(openings.len(), n)
    };
    let mut mine: Vec<Opening> = (0..my_pairs.min(period))
        .map(|j| match openings.len() {
            0 => (Position::start(), Vec::new()),
            len => openings[(j * n + k - 1) % len].clone(),
        })
        .collect();
    // Past the openings each comes back with two moves of choice more, different ones each
    // time round (`continuations`, by the match's pair number, so that shards play the
    // whole match's games): players limited by nodes or depth would otherwise play the very
    // same games again.
    let rounds = my_pairs.min(MAX_VARIED_PAIRS);
    let len = openings.len();
    if len > 0 && rounds > 0 && (rounds - 1) * n + k > len {
        let mut lines: Vec<Option<Vec<Vec<Move>>>> = vec![None; len];
        mine = (0..rounds)
            .map(|j| {
                let p = j * n + k - 1;
                let (start, moves) = &openings[p % len];
                let mut moves = moves.clone();
                if p >= len {
                    let lines = lines[p % len].get_or_insert_with(|| {
                        let seed = o.seed ^ ((p % len) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                        continuations(o.variant, start, &moves, seed)
                    });
                    if !lines.is_empty() {
                        moves.extend_from_slice(&lines[(p / len - 1) % lines.len()]);
                    }
                }
                (*start, moves)
            })
            .collect();
    }
    if let (0, Some((k, n))) = (my_pairs, o.shard) {
        return Err(CliError::Usage(format!(
            "--shard {k}/{n}: --games {} makes {pairs} opening pairs, none of them this \
             shard's: expected --games {} or more",
            2 * pairs,
            2 * n
        )));
    }
    for spec in [&o.first, &o.second] {
        if let (PlayerSpec::Search(name, limits, ..), None) = (spec, o.clock) {
            if limits.is_infinite() && o.nodes.is_none() {
                return Err(CliError::Usage(format!(
                    "player {name:?} plays on the match's clock: expected --clock BASE+INC"
                )));
            }
        }
    }
    // The limits the match adds to each player's own: --nodes, and --movetime (its own).
    let extra = [0, 1].map(|k| {
        let extra = Limits {
            nodes: o.nodes,
            ..Limits::default()
        };
        match o.movetime {
            Some(t) => extra.with_time(t[k]),
            None => extra,
        }
    });
    // --resume: the games the file holds, checked to be this match's first games.
    let done = match &o.pdn {
        Some(path) if o.resume && path.exists() => {
            let name =
                |spec: &PlayerSpec, k: usize| factory(spec, extra[k], 0, Endgames::none())().name();
            let match_ = Scheduled {
                openings: &mine,
                pairs: my_pairs,
                rounds: (k, n),
            };
            played(
                path,
                o.variant,
                &match_,
                &[name(&o.first, 0), name(&o.second, 1)],
            )?
        }
        _ => Vec::new(),
    };
    let config = MatchConfig {
        variant: o.variant,
        games: 2 * my_pairs,
        skip: done.len(),
        first_round: k,
        round_step: n,
        starts: mine.iter().map(|(start, _)| *start).collect(),
        openings: mine.into_iter().map(|(_, moves)| moves).collect(),
        parallel: o.concurrency.max(1),
        clock: o.clock.map(|c| c[0]),
        second_clock: o.clock.map(|c| c[1]),
        ..MatchConfig::default()
    };
    let first = factory(
        &o.first,
        extra[0],
        o.seed.wrapping_mul(2) + 1,
        endgames(&o.egtb[0], o.variant)?,
    );
    let second = factory(
        &o.second,
        extra[1],
        o.seed.wrapping_mul(2) + 1_000_003,
        endgames(&o.egtb[1], o.variant)?,
    );
    let mut before = MatchResult::default();
    let mut pairs = Pairs::new(o.sprt);
    for (i, game) in done.iter().enumerate() {
        before.count(game);
        let ended = pairs.game(i, game.result, game.first_is_white);
        if o.json {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", game_line(i, game)).map_err(CliError::Output)?;
            if let Some(line) = sprt_line(&pairs, ended) {
                writeln!(out, "{line}").map_err(CliError::Output)?;
            }
        }
    }
    // Games ended so far (with an SPRT, its state), on stderr when it is a terminal.
    let progress = if pairs.testing() {
        let progress = Progress::line("games");
        progress.message(pairs.progress());
        progress
    } else {
        Progress::count((config.games - done.len()) as u64, "games")
    };
    // A test that decided in the games read back is over.
    let over = config.games <= done.len() || pairs.decided().is_some();
    let pdn = match &o.pdn {
        Some(path) => {
            let file = if done.is_empty() {
                std::fs::File::create(path)
            } else {
                std::fs::OpenOptions::new().append(true).open(path)
            };
            Some((
                BufWriter::new(file.map_err(|e| cannot_write(path, &e))?),
                path.as_path(),
            ))
        }
        None => None,
    };
    let sink = Mutex::new(Sink {
        next: done.len(),
        ended: BTreeMap::new(),
        pdn,
        json: o.json,
        failed: None,
        progress: progress.clone(),
        pairs,
        stop: config.stop.clone(),
    });
    let mut result = if over {
        MatchResult::default()
    } else {
        play_match_streaming(&first, &second, &config, &|i, game| {
            sink.lock().unwrap_or_else(|e| e.into_inner()).add(i, game);
        })
    };
    result.wins += before.wins;
    result.draws += before.draws;
    result.losses += before.losses;
    progress.finish();
    let sink = sink.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = sink.failed {
        return Err(e);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if !o.json {
        if let Some(line) = sink.pairs.text() {
            writeln!(out, "{line}").map_err(CliError::Output)?;
        }
    }
    print_result(&mut out, &result, &sink.pairs, o.json)?;
    Ok(Status::Ok)
}

/// The JSON `sprt` line after a game that `ended` a pair, if a test is run.
fn sprt_line(pairs: &Pairs, ended: bool) -> Option<serde_json::Value> {
    let data = pairs.json().filter(|_| ended)?;
    Some(json!({"type": "sprt", "data": data}))
}

/// Where the games go as they end: the PDN file and the JSON `game` lines, in the match's
/// order (a game that ends before an earlier one waits here for it), so that memory does not
/// grow with the number of games and the file holds every game ended so far.
struct Sink<'a> {
    /// The index of the next game to write.
    next: usize,
    /// Games ended before an earlier one.
    ended: BTreeMap<usize, GameRecord>,
    pdn: Option<(BufWriter<std::fs::File>, &'a Path)>,
    json: bool,
    /// The first error; nothing is written after it.
    failed: Option<CliError>,
    /// The games ended so far.
    progress: Progress,
    /// The pairs written so far, and the test on them.
    pairs: Pairs,
    /// Set when the test decides: the match starts no new pair.
    stop: Arc<AtomicBool>,
}

impl Sink<'_> {
    fn add(&mut self, i: usize, game: GameRecord) {
        self.progress.inc(1);
        self.ended.insert(i, game);
        while let Some(game) = self.ended.remove(&self.next) {
            if self.failed.is_none() {
                if let Err(e) = self.write(self.next, &game) {
                    self.failed = Some(e);
                    // Nothing more is written: start no new pair.
                    self.stop.store(true, Ordering::Relaxed);
                }
            }
            self.next += 1;
        }
    }

    fn write(&mut self, i: usize, g: &GameRecord) -> Result<(), CliError> {
        if let Some((file, path)) = &mut self.pdn {
            let separator = if i == 0 { "" } else { "\n" };
            write!(file, "{separator}{}", g.pdn)
                .and_then(|()| file.flush())
                .map_err(|e| cannot_write(path, &e))?;
        }
        if self.json {
            let line = game_line(i, g);
            self.progress
                .suspend(|| writeln!(std::io::stdout().lock(), "{line}"))
                .map_err(CliError::Output)?;
        }
        let ended = self.pairs.game(i, g.result, g.first_is_white);
        if self.pairs.decided().is_some() {
            self.stop.store(true, Ordering::Relaxed);
        }
        if let Some(line) = sprt_line(&self.pairs, ended) {
            self.progress.message(self.pairs.progress());
            if self.json {
                self.progress
                    .suspend(|| writeln!(std::io::stdout().lock(), "{line}"))
                    .map_err(CliError::Output)?;
            }
        }
        Ok(())
    }
}

/// The JSON `game` line of game `i`.
fn game_line(i: usize, g: &GameRecord) -> serde_json::Value {
    json!({"type": "game", "data": {
        "index": i, "first_is_white": g.first_is_white, "result": g.result.as_str(),
        "reason": g.reason, "plies": g.plies,
    }})
}

/// The games a match (or its shard) plays: `pairs` pairs, pair `j` from opening `j` of
/// `openings` (cycling), written as round `j N + K` for `rounds` `(K, N)`.
struct Scheduled<'a> {
    openings: &'a [Opening],
    pairs: usize,
    rounds: (usize, usize),
}

/// The games a stopped match wrote to `path` (`--resume`), each checked to be the game of
/// this match with its index: game `i` from opening `i / 2` of the match, the player named
/// `names[0]` White in even games, its `Round` tag (if it has one) that of its pair. The
/// reason a game ended is its last comment.
fn played(
    path: &Path,
    variant: Variant,
    scheduled: &Scheduled<'_>,
    names: &[String; 2],
) -> Result<Vec<GameRecord>, CliError> {
    let at = |i: usize, why: String| {
        CliError::Usage(format!(
            "{}: game {}: {why}; --resume goes on with the match that wrote the file (the same \
             players, --openings, --seed and --shard)",
            path.display(),
            i + 1
        ))
    };
    let mut out = Vec::new();
    for (i, game) in Reader::new(source::open(path)?, variant).enumerate() {
        let game = game.map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
        let Some((start, opening)) = (i / 2 < scheduled.pairs)
            .then(|| &scheduled.openings[(i / 2) % scheduled.openings.len()])
        else {
            return Err(at(
                i,
                format!("this match has {} games only", 2 * scheduled.pairs),
            ));
        };
        let (k, n) = scheduled.rounds;
        let round = format!("{}.{}", (i / 2) * n + k, i % 2 + 1);
        if game.tag("Round").is_some_and(|r| r != round) {
            return Err(at(
                i,
                format!(
                    "its Round is {:?}, where this match has {round:?}",
                    game.tag("Round").unwrap_or("")
                ),
            ));
        }
        let first_is_white = i % 2 == 0;
        let (white, black) = if first_is_white {
            (&names[0], &names[1])
        } else {
            (&names[1], &names[0])
        };
        let found = (
            game.tag("White").unwrap_or(""),
            game.tag("Black").unwrap_or(""),
        );
        if found != (white.as_str(), black.as_str()) {
            return Err(at(
                i,
                format!(
                    "White {:?} and Black {:?}, where this match has White {white:?} and \
                     Black {black:?}",
                    found.0, found.1
                ),
            ));
        }
        if game.variant != variant || game.start != *start || !game.moves.starts_with(opening) {
            return Err(at(i, "it is not played from this match's opening".into()));
        }
        if game.result == GameResult::Unknown {
            return Err(at(i, "it has no result".into()));
        }
        out.push(GameRecord {
            first_is_white,
            result: game.result,
            reason: game
                .comments
                .last()
                .map_or_else(String::new, |c| c.text.clone()),
            pdn: String::new(),
            plies: game.moves.len() - opening.len(),
        });
    }
    Ok(out)
}

fn cannot_write(path: &Path, e: &std::io::Error) -> CliError {
    CliError::Usage(format!("cannot write {}: {e}", path.display()))
}

/// The result line (or the JSON `result` line, with the pairs' counts and the test).
pub fn print_result(
    out: &mut dyn Write,
    r: &MatchResult,
    pairs: &Pairs,
    json: bool,
) -> Result<(), CliError> {
    let (elo, error) = r.elo();
    let finite = |x: f64| (x.is_finite() && r.total() > 0).then_some(x);
    // `+ 0.0` turns -0.0 into 0.0.
    let (elo, error) = (finite(elo + 0.0), finite(error));
    let bound = r.elo_bound().map(|b| match b {
        EloBound::Above(x) => (">", x),
        EloBound::Below(x) => ("<", x),
    });
    let line = if json {
        let bound = bound.map(|(op, x)| json!({"op": op, "elo": (x * 10.0).round() / 10.0}));
        json!({"type": "result", "data": {
            "wins": r.wins, "draws": r.draws, "losses": r.losses, "games": r.total(),
            "score": r.score(), "elo": elo, "elo_error": error, "elo_bound": bound,
            "pentanomial": pairs.pentanomial(), "sprt": pairs.json(),
        }})
        .to_string()
    } else {
        let elo = match (bound, elo, error) {
            // Too few games won (or lost) in a row to tell even which side is stronger:
            // fewer than 5 (0.05^(1/4) is a score below 50 %).
            (Some((op, x)), _, _) if (op == ">") == (x <= 0.0) => {
                format!("elo {op} {x:+.1} (95% bound; too few games to tell which is stronger)")
            }
            (Some((op, x)), _, _) => format!("elo {op} {x:+.1} (95% bound)"),
            (None, Some(elo), Some(error)) => format!("elo {elo:+.1} elo_error {error:.1}"),
            _ => "elo - elo_error -".to_string(),
        };
        format!(
            "wins {} draws {} losses {} score {:.1}% {elo}",
            r.wins,
            r.draws,
            r.losses,
            100.0 * r.score(),
        )
    };
    writeln!(out, "{line}").map_err(CliError::Output)
}

/// `dama pdn stats FILES...`: the result line of the games, for the player named `player`
/// (by default the White player of the first game), after the line of its game pairs
/// (`pairs N pentanomial a b c d e unpaired M`, see [`FilePairs`]) and, given a `test`,
/// the `sprt` line of those pairs.
pub fn stats(
    files: &[PathBuf],
    player: Option<&str>,
    variant: Variant,
    test: Option<Sprt>,
    json: bool,
) -> Result<Status, CliError> {
    let mut r = MatchResult::default();
    let mut pairs = FilePairs::default();
    let mut first: Option<String> = player.map(str::to_string);
    let mut bad = 0usize;
    for (file, path) in files.iter().enumerate() {
        for (index, game) in Reader::new(source::open(path)?, variant).enumerate() {
            let game = match game {
                Ok(g) => g,
                Err(e) => {
                    eprintln!("dama: {}: {e}", path.display());
                    bad += 1;
                    continue;
                }
            };
            let white = game.tag("White").unwrap_or("?").to_string();
            let black = game.tag("Black").unwrap_or("?").to_string();
            let me = first.get_or_insert_with(|| white.clone()).clone();
            let me_white = if white == me {
                true
            } else if black == me {
                false
            } else {
                continue;
            };
            pairs.game(file, index, game.tag("Round"), game.result, me_white);
            match (game.result, me_white) {
                (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => r.wins += 1,
                (GameResult::WhiteWins, false) | (GameResult::BlackWins, true) => r.losses += 1,
                (GameResult::Draw, _) => r.draws += 1,
                (GameResult::Unknown, _) => {}
            }
        }
    }
    if r.total() == 0 {
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let whose = first.map_or(String::new(), |name| format!(" of {name:?}"));
        return Err(CliError::Usage(format!(
            "no games{whose} to count in {}: expected games with a result (1-0, 0-1 or \
             1/2-1/2)",
            names.join(" ")
        )));
    }
    // The test replayed on the pairs in the match's order: it decides where the match did.
    let (found, unpaired) = pairs.finish();
    let mut pairs = Pairs::new(test);
    for (first, second) in found {
        pairs.pair(first, second);
    }
    let counts = pairs.counts();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if !json {
        if let Some(name) = &first {
            writeln!(out, "player {name}").map_err(CliError::Output)?;
        }
        let [a, b, c, d, e] = counts.0;
        let n = counts.pairs();
        writeln!(
            out,
            "pairs {n} pentanomial {a} {b} {c} {d} {e} unpaired {unpaired}"
        )
        .map_err(CliError::Output)?;
        if let Some(line) = pairs.text() {
            writeln!(out, "{line}").map_err(CliError::Output)?;
        }
    }
    print_result(&mut out, &r, &pairs, json)?;
    Ok(if bad > 0 {
        Status::Negative
    } else {
        Status::Ok
    })
}
