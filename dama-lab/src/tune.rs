//! Fitting an evaluation to self-play results by logistic regression (what
//! `dama tune gen` and `dama tune fit` run; see docs/tuning.md).
//!
//! 1. [`generate`]: self-play games at a fixed node budget, each from an opening (drawn
//!    from the built-in balanced set in Italian, every two-ply line from the start in the
//!    other variants, see [`crate::matches::opening_lines`]) plus a few random plies; every
//!    position with no capture pending for either side is kept with the game's result, in
//!    the compact sample file below (the engine plays both sides; the random plies make
//!    the games differ). Game `i` depends only on `i` and the seed, so `--shard K/N` (the
//!    games `i` with `i mod N = K - 1`) splits a run into parts whose union is the whole;
//!    the opening is drawn, not `i mod` their number, so that every shard sees them all.
//! 2. [`fit`]: finds the scale `K` that best maps the starting evaluation to results, then
//!    fits every weight (features and patterns, the man held at 100) by full-batch Adam on the
//!    log loss of `sigmoid(eval / K)`, with an L2 penalty on the patterns; every
//!    [`FitConfig::holdout`]-th game is held out to measure the loss on unseen games.
//! 3. [`label_by_search`]: the positions of sample files labelled again by a deeper search
//!    than the self-play's (for the network trainer, [`crate::train`]), written back with
//!    [`write_samples`].
//!
//! # The sample file (version 4)
//!
//! `DAMASAMP`, then the version as a little-endian `u32`, then the variant (`u8`, its place
//! in [`Variant::ALL`]: 0 Italian, 1 Spanish, 2 Czech, ...), then the games one after another:
//! the result (`u8`: 0 Black won, 1 draw, 2 White won), the number of positions (`u16`
//! little-endian), and per position the White, Black and king squares as `u32` bit sets
//! (bit `n - 1` for square `n`), the side to move (`u8`: 0 White, 1 Black) and the position's
//! score (`i16` little-endian, hundredths of a man from the side to move's view, as a
//! [`Score`]: wins and losses beyond ±29,000): 15 bytes. The score is the
//! self-play search's own, or the endgame tables' exact value (a table win is
//! [`TABLE_LABEL`], a loss minus it, a draw [`TABLE_DRAW`]) when they cover the position.
//! Version 3 is the same but for a table draw, which it carries as 0, like a search that
//! found the sides even ([`label_from_tables`] labels such files again). Version 2 has no
//! score (13 bytes a position), version 1 not the variant byte either (read as Italian);
//! their games have no scores.
//!
//! ```
//! use dama_lab::tune::{generate, read_samples, GenConfig};
//! let config = GenConfig { games: 2, nodes: 200, ..GenConfig::default() };
//! let mut file = Vec::new();
//! let stats = generate(&config, &mut file, &|_| {}).unwrap();
//! let samples = read_samples(&file).unwrap();
//! assert_eq!(samples.variant, dama_rules::Variant::Italian);
//! assert_eq!(samples.games.len(), 2);
//! let positions: usize = samples.games.iter().map(|g| g.positions.len()).sum();
//! assert_eq!(positions, stats.positions);
//! ```

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use dama_rules::{Bitboard, Color, Game, Outcome, Position, Square, Variant};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::matches::{italian_openings, opening_lines};
use dama_search::eval::{feature, features, phase, PHASES, SCALE};
use dama_search::pattern::{self, free_slot, ENTRIES, FREE_WINDOWS, WINDOWS};
use dama_search::weights::Weights;
use dama_search::{Endgames, Engine, Knobs, Limits, Score, Signals};

use crate::Error;

/// The sample file's first bytes.
pub const SAMPLE_MAGIC: &[u8; 8] = b"DAMASAMP";
/// The sample file format's version.
pub const SAMPLE_VERSION: u32 = 4;
/// The score a sample carries for a position the endgame tables win for the side to move
/// (minus it for a loss): a table win at distance 0 to conversion.
pub const TABLE_LABEL: i16 = Score::TABLE_WIN.0 as i16;
/// The score a sample carries for a position the endgame tables prove drawn: a value no
/// search score takes (they are kept within ±`i16::MAX`), so that training can tell an
/// exact draw from a search that found the sides even.
pub const TABLE_DRAW: i16 = i16::MIN;

/// The most threads [`generate`] and [`label_by_search`] start (each has its own engine and
/// an 8 MiB table): a larger count is taken as this one.
pub const MAX_THREADS: usize = 256;

/// How [`generate`] plays.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// The rules of the games.
    pub variant: Variant,
    /// Games in the whole run (all shards).
    pub games: usize,
    /// The node budget of every move.
    pub nodes: u64,
    /// Random plies after the opening.
    pub random_plies: usize,
    /// Play only shard `K` of `N` (`(K, N)`, 1-based).
    pub shard: (usize, usize),
    /// Threads playing games at once (1 to [`MAX_THREADS`]; 0 counts as 1, more as the most).
    pub threads: usize,
    /// Seed of the random plies (game `i` uses `seed + i`).
    pub seed: u64,
    /// The search's switches (the `classic` knob plays the previous evaluation).
    pub knobs: Knobs,
    /// The endgame tables the games search with and label their positions by.
    pub endgames: Endgames,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            variant: Variant::Italian,
            games: 1000,
            nodes: 2000,
            random_plies: 4,
            shard: (1, 1),
            threads: 1,
            seed: 0,
            knobs: Knobs::default(),
            endgames: Endgames::memory_only(),
        }
    }
}

/// What [`generate`] wrote.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct GenStats {
    /// Games played.
    pub games: usize,
    /// Positions written.
    pub positions: usize,
    /// Games won by White, drawn, won by Black.
    pub results: [usize; 3],
}

/// A sample file's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Samples {
    /// The rules the games were played by.
    pub variant: Variant,
    /// The games.
    pub games: Vec<SampleGame>,
}

/// A game's kept positions and its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleGame {
    /// 0 Black won, 1 draw, 2 White won.
    pub result: u8,
    /// The positions with no capture pending.
    pub positions: Vec<Position>,
    /// Per position, its score from the side to move's view (see the module docs); empty
    /// for files of version 1 and 2, which have none.
    pub scores: Vec<i16>,
}

/// Plays `config`'s shard of self-play games and writes them to `out` as a sample file;
/// `progress` is called with the number of games finished so far.
///
/// # Errors
/// Writing to `out` failed.
pub fn generate(
    config: &GenConfig,
    out: &mut (dyn Write + Send),
    progress: &(dyn Fn(usize) + Sync),
) -> std::io::Result<GenStats> {
    let openings = match config.variant {
        Variant::Italian => italian_openings(),
        v => opening_lines(v, 2),
    };
    let (k, n) = (config.shard.0.max(1), config.shard.1.max(1));
    let mine: Vec<usize> = (0..config.games).filter(|i| i % n == k - 1).collect();
    let next = AtomicUsize::new(0);
    let stats = Mutex::new(GenStats::default());
    write_header(out, config.variant)?;
    let out = Mutex::new(out);
    let failed = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..config.threads.clamp(1, MAX_THREADS) {
            s.spawn(|| {
                let mut engine = lab_engine(config.knobs, &config.endgames);
                loop {
                    let at = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = mine.get(at) else { break };
                    let game = play_game(&mut engine, &openings, i, config);
                    let bytes = encode_game(&game);
                    let done = {
                        let mut st = stats.lock().unwrap_or_else(|e| e.into_inner());
                        st.games += 1;
                        st.positions += game.positions.len();
                        st.results[2 - usize::from(game.result)] += 1;
                        st.games
                    };
                    let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
                    if let Err(e) = o.write_all(&bytes) {
                        *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        break;
                    }
                    drop(o);
                    progress(done);
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    Ok(stats.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// The sample file's header: magic, version, variant.
fn write_header(out: &mut (impl Write + ?Sized), variant: Variant) -> std::io::Result<()> {
    out.write_all(SAMPLE_MAGIC)?;
    out.write_all(&SAMPLE_VERSION.to_le_bytes())?;
    out.write_all(&[variant_code(variant)])
}

/// A search engine of the generation and the labelling: a small table, these switches and
/// these endgame tables.
fn lab_engine(knobs: Knobs, endgames: &Endgames) -> Engine {
    let mut engine = Engine::with_hash(8);
    engine.set_knobs(knobs);
    engine.set_endgames(endgames.clone());
    engine
}

/// The variant's byte in the sample file.
fn variant_code(variant: Variant) -> u8 {
    Variant::ALL
        .iter()
        .position(|&v| v == variant)
        .map_or(0, |i| i as u8)
}

/// Whether `pos` is kept as a sample: no capture pending for either side by `variant`'s rules.
fn quiet(pos: &Position, variant: Variant) -> bool {
    dama_rules::with_rules!(variant, R => {
        !pos.must_capture::<R>() && !pos.with_turn(!pos.turn()).must_capture::<R>()
    })
}

/// Game `i` of a run: its start ([`game_start`]), then the engine against itself.
fn play_game(
    engine: &mut Engine,
    openings: &[Vec<dama_rules::Move>],
    i: usize,
    config: &GenConfig,
) -> SampleGame {
    let mut game = game_start(openings, i, config);
    engine.clear();
    let mut positions = Vec::new();
    let mut scores = Vec::new();
    let result = loop {
        if let Some(outcome) = game.outcome() {
            break outcome;
        }
        let pos = *game.position();
        let r = engine.search(&game, &Limits::nodes(config.nodes));
        if quiet(&pos, config.variant) {
            positions.push(pos);
            scores.push(label(engine, &pos, config.variant, r.score));
        }
        let Some(m) = r.best else {
            break Outcome::Win(!pos.turn());
        };
        if game.play(m).is_err() {
            break Outcome::Win(!pos.turn());
        }
    };
    positions.truncate(usize::from(u16::MAX));
    scores.truncate(usize::from(u16::MAX));
    SampleGame {
        result: match result {
            Outcome::Win(Color::White) => 2,
            Outcome::Win(Color::Black) => 0,
            Outcome::Draw(_) => 1,
        },
        positions,
        scores,
    }
}

/// Where game `i` of a run starts: an opening and `random_plies` random plies, drawn by a
/// generator seeded by `seed + i`.
fn game_start(openings: &[Vec<dama_rules::Move>], i: usize, config: &GenConfig) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed.wrapping_add(i as u64));
    let mut game = Game::from_position(config.variant, Position::start());
    let drawn = rng.random_range(0..openings.len().max(1));
    if let Some(opening) = openings.get(drawn) {
        for &m in opening {
            if game.play(m).is_err() {
                break;
            }
        }
    }
    for _ in 0..config.random_plies {
        let legal = game.legal_moves().clone();
        if legal.is_empty() || game.outcome().is_some() {
            break;
        }
        let _ = game.play(legal[rng.random_range(0..legal.len())]);
    }
    game
}

/// A kept position's score: the tables' exact value where they cover it, else the search's.
fn label(engine: &Engine, pos: &Position, variant: Variant, searched: Score) -> i16 {
    table_label(engine.endgames(), pos, variant)
        .unwrap_or_else(|| searched.0.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16)
}

/// The tables' exact label of `pos` ([`TABLE_LABEL`], its negation or [`TABLE_DRAW`]), or
/// `None` where they do not cover it.
fn table_label(endgames: &Endgames, pos: &Position, variant: Variant) -> Option<i16> {
    if !endgames.may_cover(variant, pos.occupied().count()) {
        return None;
    }
    match dama_rules::with_rules!(variant, R => endgames.probe::<R>(pos))? {
        dama_search::egtb::Value::Win(_) => Some(TABLE_LABEL),
        dama_search::egtb::Value::Loss(_) => Some(-TABLE_LABEL),
        dama_search::egtb::Value::Draw => Some(TABLE_DRAW),
    }
}

/// Labels again, by `endgames`, every position of `games` (of `variant`) that they cover:
/// a win [`TABLE_LABEL`], a loss its negation, a draw [`TABLE_DRAW`], as [`generate`] labels
/// with those tables. For samples made with fewer tables, or before [`TABLE_DRAW`] (their
/// table draws are 0). Games without scores are left alone. Returns how many scores
/// changed.
pub fn label_from_tables(games: &mut [SampleGame], variant: Variant, endgames: &Endgames) -> usize {
    let mut changed = 0;
    for game in games {
        for (pos, score) in game.positions.iter().zip(game.scores.iter_mut()) {
            if let Some(exact) = table_label(endgames, pos, variant) {
                changed += usize::from(*score != exact);
                *score = exact;
            }
        }
    }
    changed
}

/// How [`label_by_search`] searches.
#[derive(Clone, Debug)]
pub struct LabelConfig {
    /// The node budget of every position's search.
    pub nodes: u64,
    /// Games labelled at once (1 to [`MAX_THREADS`]; 0 counts as 1, more as the most).
    pub threads: usize,
    /// The search's switches.
    pub knobs: Knobs,
    /// The endgame tables: a position they cover takes their exact label, unsearched.
    pub endgames: Endgames,
}

impl Default for LabelConfig {
    fn default() -> LabelConfig {
        LabelConfig {
            nodes: 10_000,
            threads: 1,
            knobs: Knobs::default(),
            endgames: Endgames::memory_only(),
        }
    }
}

/// Labels every position of `games` (of `variant`) again: by `config`'s endgame tables where
/// they cover it, else by a search of `config.nodes` nodes, for labels deeper than the
/// self-play's own (whose budget a move is also its label's). A position with one legal
/// move is searched like any other (an analysis, [`Engine::analyze_with`]), where self-play
/// plays it at once with a shallow score. Each game is searched position
/// by position in order, from a cleared table, so a game's labels depend only on the game,
/// not on the threads. Games without scores get them. `progress` is called with the number
/// of games done; returns how many positions were searched.
pub fn label_by_search(
    games: &mut [SampleGame],
    variant: Variant,
    config: &LabelConfig,
    progress: &(dyn Fn(usize) + Sync),
) -> usize {
    let queue = Mutex::new(games.iter_mut());
    let done = AtomicUsize::new(0);
    let searched = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..config.threads.clamp(1, MAX_THREADS) {
            s.spawn(|| {
                let mut engine = lab_engine(config.knobs, &config.endgames);
                let stop = Signals::default();
                loop {
                    let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                    let Some(game) = next else { break };
                    engine.clear();
                    let mut n = 0;
                    game.scores = game
                        .positions
                        .iter()
                        .map(|pos| {
                            table_label(engine.endgames(), pos, variant).unwrap_or_else(|| {
                                n += 1;
                                let g = Game::from_position(variant, *pos);
                                let limits = Limits::nodes(config.nodes);
                                let r = engine.analyze_with(&g, &limits, &stop, &mut |_| {});
                                r.score.0.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16
                            })
                        })
                        .collect();
                    searched.fetch_add(n, Ordering::Relaxed);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                }
            });
        }
    });
    searched.into_inner()
}

/// Writes `games` of `variant` as a sample file of the current version (see the module
/// docs); a position without a score is written with 0.
///
/// # Errors
/// Writing to `out` failed.
pub fn write_samples(
    out: &mut dyn Write,
    variant: Variant,
    games: &[SampleGame],
) -> std::io::Result<()> {
    write_header(out, variant)?;
    for game in games {
        out.write_all(&encode_game(game))?;
    }
    Ok(())
}

fn squares(b: Bitboard) -> u32 {
    b.iter().fold(0, |acc, sq| acc | 1 << sq.index())
}

fn bitboard(bits: u32) -> Bitboard {
    (0..32)
        .filter(|i| bits >> i & 1 == 1)
        .filter_map(Square::from_index)
        .collect()
}

fn encode_game(game: &SampleGame) -> Vec<u8> {
    let mut out = Vec::with_capacity(3 + 15 * game.positions.len());
    out.push(game.result);
    out.extend_from_slice(&(game.positions.len() as u16).to_le_bytes());
    for (i, p) in game.positions.iter().enumerate() {
        for b in [p.pieces(Color::White), p.pieces(Color::Black)] {
            out.extend_from_slice(&squares(b).to_le_bytes());
        }
        let kings = p.kings(Color::White) | p.kings(Color::Black);
        out.extend_from_slice(&squares(kings).to_le_bytes());
        out.push(u8::from(p.turn() == Color::Black));
        let score = game.scores.get(i).copied().unwrap_or(0);
        out.extend_from_slice(&score.to_le_bytes());
    }
    out
}

/// Reads a sample file (see the module docs).
///
/// # Errors
/// [`Error::BadSamples`] when the bytes are not a sample file of version 1 to 4, are
/// cut short, or hold an impossible position; the error says at which byte.
pub fn read_samples(bytes: &[u8]) -> Result<Samples, Error> {
    let bad = |why: String| Error::BadSamples { why };
    if bytes.len() < 12 || &bytes[..8] != SAMPLE_MAGIC {
        return Err(bad(
            "the file does not start with \"DAMASAMP\": expected a dama sample file".into(),
        ));
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    let (variant, mut at) = match version {
        1 => (Variant::Italian, 12),
        2..=4 => {
            let code = bytes.get(12).copied().ok_or_else(|| {
                bad("the header is cut short at byte 12: expected the variant".into())
            })?;
            let variant = Variant::ALL
                .get(usize::from(code))
                .copied()
                .ok_or_else(|| {
                    bad(format!(
                        "variant {code} at byte 12: expected 0 to {}",
                        Variant::ALL.len() - 1
                    ))
                })?;
            (variant, 13)
        }
        _ => {
            return Err(bad(format!(
                "version {version}: expected version 1 to {SAMPLE_VERSION}"
            )))
        }
    };
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let size = if version >= 3 { 15 } else { 13 };
    let mut games = Vec::new();
    while at < bytes.len() {
        if at + 3 > bytes.len() {
            return Err(bad(format!("a game header cut short at byte {at}")));
        }
        let result = bytes[at];
        if result > 2 {
            return Err(bad(format!(
                "result {result} at byte {at}: expected 0, 1 or 2"
            )));
        }
        let count = usize::from(u16::from_le_bytes([bytes[at + 1], bytes[at + 2]]));
        at += 3;
        if at + size * count > bytes.len() {
            return Err(bad(format!(
                "a game of {count} positions cut short at byte {at}"
            )));
        }
        let mut positions = Vec::with_capacity(count);
        let mut scores = Vec::with_capacity(if size == 15 { count } else { 0 });
        for _ in 0..count {
            let turn = match bytes[at + 12] {
                0 => Color::White,
                1 => Color::Black,
                t => {
                    return Err(bad(format!(
                        "side to move {t} at byte {}: expected 0 or 1",
                        at + 12
                    )))
                }
            };
            let pos = Position::from_bitboards(
                bitboard(word(at)),
                bitboard(word(at + 4)),
                bitboard(word(at + 8)),
                turn,
            )
            .map_err(|e| bad(format!("the position at byte {at}: {e}")))?;
            positions.push(pos);
            if size == 15 {
                scores.push(i16::from_le_bytes([bytes[at + 13], bytes[at + 14]]));
            }
            at += size;
        }
        games.push(SampleGame {
            result,
            positions,
            scores,
        });
    }
    Ok(Samples { variant, games })
}

/// How [`fit`] works.
#[derive(Clone, Debug)]
pub struct FitConfig {
    /// Passes over the training set.
    pub epochs: usize,
    /// Adam's step, in weight units (1/32 of a hundredth of a man).
    pub rate: f64,
    /// L2 penalty on the pattern weights (per position, in squared weight units).
    pub l2: f64,
    /// Every this many games one is held out (0: none).
    pub holdout: usize,
    /// Threads computing the gradient.
    pub threads: usize,
    /// Fit the pattern tables (else the features only).
    pub patterns: bool,
}

impl Default for FitConfig {
    fn default() -> FitConfig {
        FitConfig {
            epochs: 300,
            rate: 4.0,
            l2: 1e-6,
            holdout: 10,
            threads: 1,
            patterns: true,
        }
    }
}

/// What [`fit`] found.
#[derive(Clone, Debug)]
pub struct FitReport {
    /// Positions trained on and held out.
    pub positions: [usize; 2],
    /// The scale: `sigmoid(eval / k)` with eval in hundredths of a man.
    pub k: f64,
    /// Log loss of the starting weights on the training and the held-out positions.
    pub before: [f64; 2],
    /// Log loss of the fitted weights (as rounded for the file) on the same.
    pub after: [f64; 2],
    /// The fitted weights.
    pub weights: Weights,
}

/// Parameters: the features, then per free window and index a middle-game and an endgame
/// weight.
const PARAMS: usize = feature::COUNT + 2 * FREE_WINDOWS * ENTRIES;
const NO_SLOT: u32 = u32::MAX;
const NEGATIVE: u32 = 1 << 31;

/// The training positions, flattened.
#[derive(Default)]
struct Data {
    /// Per position: the start of its features in `features`.
    starts: Vec<u32>,
    features: Vec<(u8, i16)>,
    /// Per position: its windows' middle-game parameter (with [`NEGATIVE`] for a mirrored
    /// window), or [`NO_SLOT`].
    slots: Vec<[u32; WINDOWS]>,
    phase: Vec<u8>,
    /// 0, 0.5 or 1 for White.
    result: Vec<f32>,
}

impl Data {
    fn push(&mut self, pos: &Position, result: u8) {
        self.starts.push(self.features.len() as u32);
        for (i, &c) in features(pos).iter().enumerate() {
            if c != 0 {
                self.features
                    .push((i as u8, c.clamp(i16::MIN.into(), i16::MAX.into()) as i16));
            }
        }
        let idx = pattern::indices(pos);
        self.slots
            .push(std::array::from_fn(|w| match free_slot(w, idx[w]) {
                Some((fw, fi, sign)) => {
                    let p = (feature::COUNT + 2 * (fw * ENTRIES + usize::from(fi))) as u32;
                    if sign < 0 {
                        p | NEGATIVE
                    } else {
                        p
                    }
                }
                None => NO_SLOT,
            }));
        self.phase.push(phase(pos) as u8);
        self.result.push(f32::from(result) / 2.0);
    }

    fn len(&self) -> usize {
        self.result.len()
    }

    fn features_of(&self, i: usize) -> &[(u8, i16)] {
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.features.len(), |&e| e as usize);
        &self.features[self.starts[i] as usize..end]
    }

    /// White's evaluation of position `i` in hundredths of a man (no damping).
    #[inline]
    fn eval(&self, w: &[f64], i: usize) -> f64 {
        let mut sum: f64 = self
            .features_of(i)
            .iter()
            .map(|&(f, c)| w[usize::from(f)] * f64::from(c))
            .sum();
        let mg = f64::from(self.phase[i]) / f64::from(PHASES);
        for &slot in &self.slots[i] {
            if slot != NO_SLOT {
                let p = (slot & !NEGATIVE) as usize;
                let v = w[p] * mg + w[p + 1] * (1.0 - mg);
                sum += if slot & NEGATIVE != 0 { -v } else { v };
            }
        }
        sum / f64::from(SCALE)
    }

    /// The summed log loss over `range`, and the gradient added to `grad` if given.
    fn loss_range(
        &self,
        w: &[f64],
        k: f64,
        range: std::ops::Range<usize>,
        mut grad: Option<&mut [f64]>,
    ) -> f64 {
        let mut total = 0.0;
        for i in range {
            let p = sigmoid(self.eval(w, i) / k).clamp(1e-9, 1.0 - 1e-9);
            let r = f64::from(self.result[i]);
            total -= r * p.ln() + (1.0 - r) * (1.0 - p).ln();
            if let Some(g) = grad.as_deref_mut() {
                let d = (p - r) / (k * f64::from(SCALE));
                for &(f, c) in self.features_of(i) {
                    g[usize::from(f)] += d * f64::from(c);
                }
                let mg = f64::from(self.phase[i]) / f64::from(PHASES);
                for &slot in &self.slots[i] {
                    if slot != NO_SLOT {
                        let p = (slot & !NEGATIVE) as usize;
                        let s = if slot & NEGATIVE != 0 { -d } else { d };
                        g[p] += s * mg;
                        g[p + 1] += s * (1.0 - mg);
                    }
                }
            }
        }
        total
    }

    /// The mean log loss, and the mean gradient if asked, over `threads` threads.
    fn loss(&self, w: &[f64], k: f64, threads: usize, with_grad: bool) -> (f64, Vec<f64>) {
        let n = self.len();
        if n == 0 {
            return (0.0, vec![0.0; if with_grad { w.len() } else { 0 }]);
        }
        let threads = threads.clamp(1, 64);
        let chunk = n.div_ceil(threads);
        let parts: Vec<(f64, Vec<f64>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    s.spawn(move || {
                        let range = (t * chunk).min(n)..((t + 1) * chunk).min(n);
                        let mut g = vec![0.0; if with_grad { w.len() } else { 0 }];
                        let l = self.loss_range(w, k, range, with_grad.then_some(&mut g[..]));
                        (l, g)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        let mut grad = vec![0.0; if with_grad { w.len() } else { 0 }];
        let mut total = 0.0;
        for (l, g) in parts {
            total += l;
            for (a, b) in grad.iter_mut().zip(g) {
                *a += b;
            }
        }
        grad.iter_mut().for_each(|x| *x /= n as f64);
        (total / n as f64, grad)
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The parameter vector of `weights`.
fn params(weights: &Weights) -> Vec<f64> {
    let mut w = vec![0.0; PARAMS];
    for (i, &f) in weights.features.iter().enumerate() {
        w[i] = f64::from(f);
    }
    for fw in 0..FREE_WINDOWS {
        for i in 0..ENTRIES as u16 {
            let [m, e] = weights.pattern(fw, i);
            let p = feature::COUNT + 2 * (fw * ENTRIES + usize::from(i));
            w[p] = f64::from(m);
            w[p + 1] = f64::from(e);
        }
    }
    w
}

/// The weights of a parameter vector, rounded.
fn weights_of(w: &[f64], patterns: bool) -> Weights {
    let mut features = [0i32; feature::COUNT];
    for (f, &x) in features.iter_mut().zip(w) {
        *f = x.round() as i32;
    }
    if !patterns {
        return Weights::classic(features);
    }
    let round = |x: f64| x.round().clamp(-32767.0, 32767.0) as i16;
    let mut free = vec![[[0i16; 2]; ENTRIES]; FREE_WINDOWS];
    for (fw, table) in free.iter_mut().enumerate() {
        for (i, e) in table.iter_mut().enumerate() {
            let p = feature::COUNT + 2 * (fw * ENTRIES + i);
            *e = [round(w[p]), round(w[p + 1])];
        }
    }
    Weights::with_patterns(features, &free)
}

/// Fits weights to `games`, starting from `start`; `progress` gets each epoch's number and
/// training loss (every 10 epochs).
pub fn fit(
    games: &[SampleGame],
    start: &Weights,
    config: &FitConfig,
    progress: &dyn Fn(usize, f64),
) -> FitReport {
    let (mut train, mut held) = (Data::default(), Data::default());
    for (g, game) in games.iter().enumerate() {
        let set = if config.holdout > 0 && g % config.holdout == config.holdout - 1 {
            &mut held
        } else {
            &mut train
        };
        for p in &game.positions {
            set.push(p, game.result);
        }
    }
    let threads = config.threads;
    let start_w = params(start);
    // The scale: the K that best maps the starting evaluation to results.
    let mut k: f64 = 100.0;
    for _ in 0..40 {
        let lo = train.loss(&start_w, k * 0.95, threads, false).0;
        let hi = train.loss(&start_w, k * 1.05, threads, false).0;
        k *= if lo < hi { 0.97 } else { 1.03 };
    }
    let before = [
        train.loss(&start_w, k, threads, false).0,
        held.loss(&start_w, k, threads, false).0,
    ];
    let mut w = start_w;
    let (mut m, mut v) = (vec![0.0; PARAMS], vec![0.0; PARAMS]);
    let fixed = |i: usize| i == feature::MAN || (!config.patterns && i >= feature::COUNT);
    for epoch in 1..=config.epochs {
        let (l, grad) = train.loss(&w, k, threads, true);
        let t = epoch as i32;
        for i in 0..PARAMS {
            if fixed(i) {
                continue;
            }
            let mut g = grad[i];
            if i >= feature::COUNT {
                g += config.l2 * w[i];
            }
            m[i] = 0.9 * m[i] + 0.1 * g;
            v[i] = 0.999 * v[i] + 0.001 * g * g;
            let mh = m[i] / (1.0 - 0.9f64.powi(t));
            let vh = v[i] / (1.0 - 0.999f64.powi(t));
            w[i] -= config.rate * mh / (vh.sqrt() + 1e-12);
        }
        if epoch % 10 == 0 || epoch == config.epochs {
            progress(epoch, l);
        }
    }
    let weights = weights_of(&w, config.patterns);
    let rounded = params(&weights);
    FitReport {
        positions: [train.len(), held.len()],
        k,
        before,
        after: [
            train.loss(&rounded, k, threads, false).0,
            held.loss(&rounded, k, threads, false).0,
        ],
        weights,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_file(games: usize) -> Vec<u8> {
        let config = GenConfig {
            games,
            nodes: 300,
            threads: 2,
            ..GenConfig::default()
        };
        let mut out = Vec::new();
        generate(&config, &mut out, &|_| {}).expect("writing to memory");
        out
    }

    #[test]
    fn every_shard_of_a_run_starts_from_all_the_openings() {
        // Game i used to play opening i mod 170: shard 1 of 4 (i = 0, 4, 8, ...) saw only
        // the 85 even ones, and a shard of 100 only 17.
        let openings = italian_openings();
        assert_eq!(openings.len(), 170);
        let config = GenConfig {
            random_plies: 0,
            seed: 80,
            ..GenConfig::default()
        };
        let starts: std::collections::HashSet<Position> = (0..1600)
            .step_by(4)
            .map(|i| *game_start(&openings, i, &config).position())
            .collect();
        // 400 draws from 170 reach about 154 of them.
        assert!(starts.len() > 130, "{} openings", starts.len());
        // The start is the seed's: another seed, other openings for the same games.
        let other = GenConfig {
            seed: 81,
            ..config.clone()
        };
        assert_ne!(
            *game_start(&openings, 0, &config).position(),
            *game_start(&openings, 0, &other).position()
        );
    }

    #[test]
    fn the_tables_label_again_what_they_cover_and_a_draw_is_told_from_a_zero() {
        let pos = |fen: &str| dama_rules::notation::fen::parse(fen).expect("a good FEN");
        let kings = pos("W:WK6:BK31");
        let start = Position::start();
        let mut games = vec![
            SampleGame {
                result: 2,
                positions: vec![start, kings, kings],
                scores: vec![17, 0, TABLE_DRAW],
            },
            SampleGame {
                result: 1,
                positions: vec![kings],
                scores: Vec::new(),
            },
        ];
        let tables = Endgames::memory_only();
        // The start is not covered, the kings are drawn (one of the two already said so),
        // a game without scores keeps none.
        let n = label_from_tables(&mut games, Variant::Italian, &tables);
        assert_eq!(
            (n, &games[0].scores),
            (1, &vec![17, TABLE_DRAW, TABLE_DRAW])
        );
        assert!(games[1].scores.is_empty());
        // Self-play labels its table positions the same way.
        let file = sample_file(4);
        let mut read = read_samples(&file).expect("a good file").games;
        assert_eq!(label_from_tables(&mut read, Variant::Italian, &tables), 0);
    }

    #[test]
    fn a_deeper_search_labels_again_what_the_tables_do_not_cover_whatever_the_threads() {
        let kings = dama_rules::notation::fen::parse("W:WK6:BK31").expect("a good FEN");
        let mut games = read_samples(&sample_file(3)).expect("a good file").games;
        games.push(SampleGame {
            result: 1,
            positions: vec![Position::start(), kings],
            scores: Vec::new(),
        });
        let before = games.clone();
        let config = LabelConfig {
            nodes: 2_000,
            ..LabelConfig::default()
        };
        let done = AtomicUsize::new(0);
        let searched = label_by_search(&mut games, Variant::Italian, &config, &|n| {
            done.fetch_max(n, Ordering::Relaxed);
        });
        assert_eq!(done.into_inner(), 4);
        // The game without scores has them now: the start searched, the kings drawn.
        assert_eq!(games[3].scores.len(), 2);
        assert_eq!(games[3].scores[1], TABLE_DRAW);
        // A game's first position is what a fresh engine's search at that budget says.
        let mut engine = Engine::with_hash(8);
        let first = games[0].positions[0];
        let r = engine.analyze_with(
            &Game::from_position(Variant::Italian, first),
            &Limits::nodes(2_000),
            &Signals::default(),
            &mut |_| {},
        );
        assert_eq!(i32::from(games[0].scores[0]), r.score.0);
        // Most self-play labels (at 300 nodes) move with a search of 2,000, the positions not.
        let old: Vec<i16> = before[..3].iter().flat_map(|g| g.scores.clone()).collect();
        let new: Vec<i16> = games[..3].iter().flat_map(|g| g.scores.clone()).collect();
        assert_eq!(old.len(), new.len());
        assert!(old.iter().zip(&new).filter(|(a, b)| a != b).count() > old.len() / 4);
        assert!(games
            .iter()
            .zip(&before)
            .all(|(a, b)| a.positions == b.positions));
        let tabled = new
            .iter()
            .filter(|&&s| s == TABLE_DRAW || s.abs() == TABLE_LABEL);
        assert_eq!(searched, new.len() + 1 - tabled.count());
        // Two threads label the same, and the file round-trips.
        let mut again = before.clone();
        let two = LabelConfig {
            threads: 2,
            ..config
        };
        label_by_search(&mut again, Variant::Italian, &two, &|_| {});
        assert_eq!(again, games);
        let mut file = Vec::new();
        write_samples(&mut file, Variant::Italian, &games).expect("writing to memory");
        let read = read_samples(&file).expect("a good file");
        assert_eq!((read.variant, read.games), (Variant::Italian, games));
    }

    #[test]
    fn shards_split_the_games() {
        let config = GenConfig {
            games: 5,
            nodes: 200,
            shard: (2, 3),
            ..GenConfig::default()
        };
        let mut out = Vec::new();
        let stats = generate(&config, &mut out, &|_| {}).expect("writing to memory");
        // Games 1 and 4.
        assert_eq!(stats.games, 2);
        assert_eq!(read_samples(&out).expect("a good file").games.len(), 2);
    }

    #[test]
    fn a_sample_file_round_trips_and_bad_ones_are_refused() {
        let file = sample_file(2);
        let games = read_samples(&file).expect("a good file").games;
        assert_eq!(games.len(), 2);
        assert!(games.iter().all(|g| !g.positions.is_empty()));
        let e = read_samples(&file[..file.len() - 1])
            .unwrap_err()
            .to_string();
        assert!(e.contains("cut short"), "{e}");
        let e = read_samples(b"DAMASAMPxxxx").unwrap_err().to_string();
        assert!(e.contains("expected version 1 to 4"), "{e}");
        // Version 3: the same bytes but for the version (its table draws are plain 0s).
        let mut v3 = file.clone();
        v3[8] = 3;
        assert_eq!(read_samples(&v3).expect("a version-3 file").games, games);
        let mut broken = file.clone();
        broken[13] = 7;
        let e = read_samples(&broken).unwrap_err().to_string();
        assert!(e.contains("result 7 at byte 13"), "{e}");
        let mut foreign = file.clone();
        foreign[12] = 99;
        let e = read_samples(&foreign).unwrap_err().to_string();
        assert!(e.contains("variant 99 at byte 12"), "{e}");
        // Version 2 (no scores) and version 1 (no variant byte either, read as Italian).
        let unscored: Vec<SampleGame> = games
            .iter()
            .map(|g| SampleGame {
                scores: Vec::new(),
                ..g.clone()
            })
            .collect();
        let mut body = Vec::new();
        for g in &unscored {
            let e = encode_game(g);
            body.push(e[0]);
            body.extend_from_slice(&e[1..3]);
            for p in e[3..].chunks(15) {
                body.extend_from_slice(&p[..13]);
            }
        }
        let mut v2 = file[..13].to_vec();
        v2[8] = 2;
        v2.extend_from_slice(&body);
        let read = read_samples(&v2).expect("a version-2 file");
        assert_eq!(read.games, unscored);
        let mut old = file[..12].to_vec();
        old[8] = 1;
        old.extend_from_slice(&body);
        let read = read_samples(&old).expect("a version-1 file");
        assert_eq!(read.variant, Variant::Italian);
        assert_eq!(read.games, unscored);
    }

    #[test]
    fn fitting_lowers_the_training_loss() {
        let games = read_samples(&sample_file(6)).expect("a good file").games;
        let config = FitConfig {
            epochs: 30,
            holdout: 3,
            threads: 2,
            ..FitConfig::default()
        };
        let start = dama_search::weights::classic(dama_rules::Variant::Italian);
        let r = fit(&games, start, &config, &|_, _| {});
        assert!(r.positions[0] > 0 && r.positions[1] > 0);
        assert!(r.after[0] < r.before[0], "{:?} -> {:?}", r.before, r.after);
        assert!(r.weights.has_patterns());
        assert_eq!(r.weights.features[feature::MAN], 3200);
    }

    #[test]
    fn other_variants_start_from_their_own_lines_and_say_so() {
        for variant in [Variant::Spanish, Variant::Czech] {
            let config = GenConfig {
                variant,
                games: 6,
                nodes: 200,
                random_plies: 0,
                threads: 2,
                ..GenConfig::default()
            };
            let mut out = Vec::new();
            generate(&config, &mut out, &|_| {}).expect("writing to memory");
            let samples = read_samples(&out).expect("a good file");
            assert_eq!(samples.variant, variant);
            assert_eq!(samples.games.len(), 6);
            // Without random plies, game i starts after one of the variant's lines, and its
            // first position is that one where it is kept (no capture pending for either side).
            let lines = opening_lines(variant, 2);
            let after: std::collections::HashSet<Position> = lines
                .iter()
                .map(|line| {
                    let mut game = Game::from_position(variant, Position::start());
                    for &m in line {
                        game.play(m).expect("a legal opening");
                    }
                    *game.position()
                })
                .collect();
            let mut checked = 0;
            for i in 0..6 {
                let pos = *game_start(&lines, i, &config).position();
                assert!(
                    after.contains(&pos),
                    "{variant:?}: game {i} starts off the lines"
                );
                if quiet(&pos, variant) {
                    let first = samples
                        .games
                        .iter()
                        .find(|g| g.positions.first() == Some(&pos));
                    assert!(first.is_some(), "{variant:?}: no game {i} in the samples");
                    checked += 1;
                }
            }
            assert!(checked >= 2, "{variant:?}: {checked} quiet lines");
        }
    }

    #[test]
    fn the_fitters_evaluation_is_the_engines() {
        // Without damping (no king on either side), the fitter's sum is the engine's.
        let w = dama_search::weights::with_patterns(dama_rules::Variant::Italian);
        let pos = dama_rules::notation::fen::parse("W:W18,22,23,24,29,31:B3,5,6,7,11,12")
            .expect("a good FEN");
        let mut d = Data::default();
        d.push(&pos, 1);
        let fitted = d.eval(&params(w), 0);
        let engine = dama_search::eval::evaluate_with(&pos, w);
        assert!(
            (fitted - f64::from(engine)).abs() <= 1.0,
            "{fitted} {engine}"
        );
    }
}
