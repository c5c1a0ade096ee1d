//! Command-line arguments. Converted into library types in `commands` and going no further.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{PossibleValue, RangedU64ValueParser, TypedValueParser};
use clap::{Parser, Subcommand, ValueEnum};
use dama_rules::Variant;
use dama_search::{Level, Limits};

/// dama: Italian draughts (dama italiana) engine and tools.
#[derive(Parser, Debug)]
#[command(name = "dama", version, about, after_help = crate::exit::HELP)]
pub struct Cli {
    /// Log filter for stderr (e.g. `debug`); defaults to RUST_LOG, then `warn`.
    #[arg(long, global = true)]
    pub log_level: Option<String>,
    /// More logs on stderr: -v info, -vv debug, -vvv trace (--log-level and RUST_LOG win).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

/// Parses `--variant`: one of the library's variant names (listed in `--help`).
fn variant_parser() -> impl TypedValueParser<Value = Variant> {
    clap::builder::PossibleValuesParser::new(Variant::ALL.map(Variant::name)).map(|name| {
        name.parse()
            .expect("the parser only lets listed variant names through")
    })
}

/// The deepest `dama perft --depth`: the start position's depth 20 would take days.
pub const MAX_PERFT_DEPTH: u32 = 20;

/// Parses a count of 1 or more (`--multipv`, `dama match --games`).
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("expected 1 or more".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number, 1 or more".into()),
    }
}

/// Parses a node limit (`--nodes`): 1 or more, as every limit (`--time 0` is refused too).
fn node_count(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("expected a whole number of nodes, 1 or more".into()),
    }
}

/// Parses a finite number, 0 or more (`--margin`, `--l2`).
fn non_negative(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err("expected a finite number, 0 or more, like 0.5".into()),
    }
}

/// Parses a finite number above 0 (`--rate`).
fn unit(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("\"{text}\": expected a number from 0 to 1")),
    }
}

fn positive(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err("expected a finite number above 0, like 4".into()),
    }
}

/// Parses a search time in seconds (`--time`, `--movetime`, a match player's `time:`): a
/// number above 0 and at most [`Limits::MAX_TIME`] (a year); the message says what is wrong.
pub fn seconds(text: &str) -> Result<Duration, String> {
    let max = Limits::MAX_TIME.as_secs();
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_nan() => Err("not a number: expected a number of seconds".into()),
        Ok(s) if s <= 0.0 => Err("expected a positive number of seconds".into()),
        Ok(s) if s.is_infinite() => Err(format!(
            "not a finite number: expected at most {max} seconds (a year)"
        )),
        Ok(s) if s > max as f64 => Err(format!("too large, at most {max} seconds (a year)")),
        // Finite, positive and at most a year: the conversion cannot fail.
        Ok(s) => Ok(Duration::from_secs_f64(s)),
        Err(_) => Err("expected a number of seconds, like 5 or 0.25".into()),
    }
}

/// Parses a game clock, `--clock BASE[+INC]`: the seconds each player starts with (as
/// [`seconds`]) and, after a `+`, the seconds added at each move (0 or more, at most a
/// year); `moves_to_go` is left unset (sudden death).
pub fn clock(text: &str) -> Result<dama_search::Clock, String> {
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let time = seconds(base).map_err(|e| format!("the time \"{base}\": {e}"))?;
    let increment = match inc.trim().parse::<f64>() {
        Ok(0.0) => Duration::ZERO,
        Ok(_) => seconds(inc).map_err(|e| format!("the increment \"{inc}\": {e}"))?,
        Err(_) => {
            return Err(format!(
                "the increment \"{inc}\": expected a number of seconds, like 0.1"
            ))
        }
    };
    Ok(dama_search::Clock {
        time,
        increment,
        moves_to_go: None,
    })
}

/// Parses a match setting given for both players or for each (time odds): `A`, or `A,B`
/// (the first player's, then the second's), each part read by `one`.
fn each_player<T>(text: &str, one: fn(&str) -> Result<T, String>) -> Result<[T; 2], String>
where
    T: Copy,
{
    match text.split_once(',') {
        None => one(text).map(|a| [a, a]),
        Some((a, b)) => {
            let part = |t: &str| one(t).map_err(|e| format!("\"{t}\" in \"{text}\": {e}"));
            Ok([part(a)?, part(b)?])
        }
    }
}

/// Parses `dama match --movetime`: seconds a move for both players, or `A,B` for each.
pub fn movetimes(text: &str) -> Result<[Duration; 2], String> {
    each_player(text, seconds)
}

/// Parses `dama match --clock`: a game clock (as [`clock`]) for both players, or `A,B` for
/// each (`0.5+0.005,2.5+0.025`: the second player has five times the first's time).
pub fn clocks(text: &str) -> Result<[dama_search::Clock; 2], String> {
    each_player(text, clock)
}

/// Parses `--level`: a level name or its number 1..5.
pub fn level_parser() -> impl TypedValueParser<Value = Level> {
    let names = Level::ALL.map(|l| PossibleValue::new(l.name()).help(level_help(l)));
    let numbers = ["1", "2", "3", "4", "5"].map(|n| PossibleValue::new(n).hide(true));
    clap::builder::PossibleValuesParser::new(names.into_iter().chain(numbers)).map(|name| {
        name.parse()
            .expect("the parser only lets level names and numbers through")
    })
}

fn level_help(level: Level) -> &'static str {
    match level {
        Level::Novice => "1: shallow, often not the best move",
        Level::Easy => "2: a beginner's opponent",
        Level::Normal => "3: a club player's opponent",
        Level::Strong => "4: deep and exact",
        Level::Hard => "5: full strength, a second a move",
    }
}

/// How moves are written.
#[derive(Copy, Clone, Debug, ValueEnum, Default, PartialEq, Eq)]
pub enum FormatArg {
    /// Hub: captures list every captured square, ascending (`27x20x23`).
    #[default]
    Hub,
    /// PDN: captures give start and end (`27x20`), the landing path only when ambiguous.
    Pdn,
}

/// The pieces the player takes in `dama play`.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorArg {
    /// The light pieces (White).
    Light,
    /// The dark pieces (Black).
    Dark,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play draughts against the computer, full screen (or plain text with --plain).
    ///
    /// You have the light pieces at the bottom and move first (--color dark, or the key c
    /// before your first move, gives you the dark pieces: the computer moves first). Select a
    /// piece with the arrow keys and Enter or a click, then a square it may go to (a
    /// multi-jump one landing at a time); or press `:` and type a square or a whole move
    /// (`22-18`, `22x13`). When a capture is compulsory, the screen says so and marks the
    /// pieces that must capture. Keys 1-5 set the level (remembered for the next game); a win
    /// counts at the lowest level played in the game, and the panel says so when that is
    /// lower than the level set. Moves are counted as players count them (one by each side),
    /// and from 10 moves without progress (a capture or a man move) the panel counts them
    /// towards the variant's draw (40 in Italian). n starts a new game, q quits. Every
    /// variant is shown with its own square names and board: English numbers and Russian,
    /// Brazilian and Czech algebraic squares, on a board with the dark corner at your left.
    #[command(after_help = "Examples:
  dama play                       the full-screen game
  dama play --level hard          start at Hard (keys 1-5 change it)
  dama play --color dark          play the dark pieces: the computer moves first
  dama play --variant english     English checkers, in English numbers
  dama play --plain --level 1 --seed 7 < moves.txt
                                  a scripted, reproducible game as text

Plain mode: before each of your moves it prints the board (`w`/`b` men, `W`/`B` kings, `.`
empty; as you see it, each row's square names on the right), then, when they apply,
`capture compulsory: <squares> must capture (<captures>)` and `moves without progress: N/40`,
then `fen <FEN>` (engine numbers, as every FEN dama reads and writes). Give one move a line
(Hub or PDN text in the variant's square names), or `level N`; blank lines are ignored. A move
not legal here prints `illegal <reason>`, a line that is not a move (or a level that does not
exist) `refused <reason>`; `level N` prints `level N <Name>` (and why a win
counts at a lower level, when it does); the computer's moves print `computer <move>`; the
end prints `result <1-0|0-1|1/2-1/2> score <points>` (10 points per piece you captured; a
win adds 100 + 50 x the level, the lowest level played in the game).")]
    Play {
        /// Plain text on standard input and output instead of the full screen.
        #[arg(long)]
        plain: bool,
        /// The computer's level (a name or 1..5); by default the last one chosen (full
        /// screen) or normal (plain).
        #[arg(long, value_parser = level_parser())]
        level: Option<Level>,
        /// Seed of the computer's choices: the same seed and moves give the same game.
        #[arg(long)]
        seed: Option<u64>,
        /// Start from this position (PDN-style FEN, engine numbers) instead of the start;
        /// you play the side to move unless --color says otherwise.
        #[arg(long)]
        fen: Option<String>,
        /// The pieces you play: light (White, who moves first from the start) or dark
        /// (Black: the computer moves first). By default light, or the side to move of --fen.
        #[arg(long, value_enum)]
        color: Option<ColorArg>,
        /// The rules.
        #[arg(long, default_value = "italian", value_parser = variant_parser())]
        variant: Variant,
    },
    /// Serve the game in a web browser: a local web server and one page, the engine behind it.
    ///
    /// Tap or click a piece to see where it may go; the computer plays at five levels (keys
    /// 1-5), in Italian or any other rule set dama knows, or "Play a friend" sends a link to
    /// another person. Games are kept in a database and survive a restart. The page and its
    /// script are built into the binary; nothing is downloaded. Stop the server with Ctrl-C.
    #[command(after_help = "Examples:
  dama serve                          http://127.0.0.1:8080/
  dama serve --open                   and open it in the desktop's browser
  dama serve --port 0                 any free port (the address is printed)
  dama serve --bind 0.0.0.0           reachable from other machines (a phone on the LAN)
  dama serve --memory                 keep no games on disk
  dama serve --database postgres://dama@db/dama   games in PostgreSQL, shared by several servers
  dama serve --trust-proxy            behind a reverse proxy (see docs/deploy.md)
  dama serve --export site/           the page as static files, for any static web host:
                                      the computer plays in the browser, no server needed

The JSON API (under /api) is described by GET /api and in the README.")]
    Serve {
        /// The TCP port (0: any free port).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// The address to listen on (loopback unless told otherwise).
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// Open the page in the desktop's browser (a failure is only a warning).
        #[arg(long)]
        open: bool,
        /// The most games kept in memory at once; a new game beyond that, when none is idle,
        /// is refused (503).
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        max_games: u64,
        /// Seconds after which an untouched game leaves memory (it stays in the database).
        #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..=604_800))]
        idle: u64,
        /// Searches run at the same time (each with a 16 MiB table); by default the number
        /// of processors, at most 8.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=64))]
        searchers: Option<u64>,
        /// Analysis searches (game reviews, live analysis) run at the same time, apart from
        /// the computer's moves, each with an 8 MiB table and a budget; by default half the
        /// processors, at least 1.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=64))]
        analysts: Option<u64>,
        /// The directory of the games' database (default: $DAMA_DATA_DIR, else
        /// $XDG_DATA_HOME/dama, else ~/.local/share/dama).
        #[arg(long, value_name = "DIR", conflicts_with = "memory")]
        data: Option<std::path::PathBuf>,
        /// Keep nothing on disk: games and records live in memory and end with the server.
        #[arg(long)]
        memory: bool,
        /// Keep the games in PostgreSQL (postgres://user:password@host:port/name), not in
        /// SQLite: any number of servers on one database serve the same games (default:
        /// $DAMA_DATABASE, unless --data or --memory is given; see docs/deploy.md).
        #[arg(long, value_name = "URL", conflicts_with_all = ["data", "memory"])]
        database: Option<String>,
        /// Days a finished (or abandoned) game is kept in the database.
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=36_500))]
        keep_days: u64,
        /// The most connections open at once; more are closed at once.
        #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        max_connections: u64,
        /// The most connections one client address may hold open (not counted with
        /// --trust-proxy: the proxy must limit its clients itself, see docs/deploy.md).
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        connections_per_address: u64,
        /// The most event streams (games followed, live analyses) one client address may
        /// hold open; more are refused (429).
        #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        streams_per_address: u64,
        /// Seconds after which an event stream ends; the browser reconnects by itself and
        /// misses nothing (Last-Event-ID).
        #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        stream_seconds: u64,
        /// Seconds a client has to send a request's headers (and, apart, its body).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=30))]
        request_timeout: u64,
        /// New games a minute from one client address (0: no limit).
        #[arg(long, default_value_t = 30)]
        games_per_minute: u32,
        /// Computer replies a minute to one client address (0: no limit); each game review
        /// and live analysis counts as one.
        #[arg(long, default_value_t = 600)]
        replies_per_minute: u32,
        /// Behind a reverse proxy: the client's address is the last one of X-Forwarded-For.
        #[arg(long)]
        trust_proxy: bool,
        /// The endgame tables the computer and the analysis read (default: $DAMA_EGTB, else
        /// ~/.cache/dama/egtb; `dama egtb build` makes them), never written. Without files,
        /// the tables of up to 4 pieces are built in memory.
        #[arg(long, value_name = "DIR")]
        egtb: Option<std::path::PathBuf>,
        /// Write the page as static files into DIR and stop (no server): served at the root
        /// of any static web host, the game against the computer (searched in the browser),
        /// the analysis board and the editor work with no dama server; a game between
        /// friends needs one.
        #[arg(long, value_name = "DIR")]
        export: Option<std::path::PathBuf>,
    },
    /// List the legal moves of a position, one per line.
    Moves {
        /// The rules.
        #[arg(long, default_value = "italian", value_parser = variant_parser())]
        variant: Variant,
        /// The position (PDN-style FEN); the start position when absent.
        #[arg(long, conflicts_with = "stdin")]
        fen: Option<String>,
        /// Move notation.
        #[arg(long, value_enum, default_value_t)]
        format: FormatArg,
        /// Read FENs from standard input, one per line, and print each one's moves on one line,
        /// separated by spaces (an empty line when there are none, `error: ...` for a bad FEN
        /// or a line that is not UTF-8).
        #[arg(long)]
        stdin: bool,
    },
    /// Count the leaves of the legal-move tree (perft), one line per depth.
    Perft {
        /// The rules.
        #[arg(long, default_value = "italian", value_parser = variant_parser())]
        variant: Variant,
        /// The position (PDN-style FEN); the start position when absent.
        #[arg(long)]
        fen: Option<String>,
        /// The deepest depth counted (from depth 1; `0` prints perft(0) = 1), at most 20 (the
        /// start position's depth 12 counts 3.7 × 10^8 leaves, each depth about 4.5 times the
        /// one before). Counting stops after a depth with no leaves.
        #[arg(long, short, value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_PERFT_DEPTH)))]
        depth: u32,
        /// First print each legal move's count at the full depth.
        #[arg(long)]
        divide: bool,
    },
    /// Search a position: progress lines (depth, score, pv) and the best move.
    #[command(after_help = "Examples:
  dama analyze --fen \"W:W22,29:B18,9\" --depth 12
  dama analyze --time 5 --multipv 3                 the start position, three best lines
  dama analyze --pdn game.pdn --ply 20 --json       JSON Lines: info..., bestmove
  dama analyze --pdn game.pdn --annotate --depth 10 > annotated.pdn
  echo \"B:W18:B11\" | dama analyze --nodes 100000

With no limit it thinks for one second (--annotate: depth 10 a position).

Scores: the progress lines, bestmove and --json give them for the side to move (+0.35: a
third of a man up for the player to move; `win in 7`, `loss in 4`: plies to the end).
--annotate writes each move's score from White's side instead, as PDN readers expect (+0.35:
White is better), names the winner of a forced result (`black: win in 8`), and says so in an
Annotator tag.")]
    Analyze {
        #[command(flatten)]
        position: PositionArgs,
        /// Deepest iteration, in plies (1..=120).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(Limits::MAX_DEPTH)))]
        depth: Option<u32>,
        /// Seconds to think (above 0, at most a year).
        #[arg(long, value_name = "SECONDS", value_parser = seconds, allow_negative_numbers = true)]
        time: Option<Duration>,
        /// Nodes to search (1 or more).
        #[arg(long, value_parser = node_count)]
        nodes: Option<u64>,
        /// Choose as this level of the game would (its budget and its margin of choice).
        #[arg(long, value_parser = level_parser(), conflicts_with = "multipv")]
        level: Option<Level>,
        /// Report the best K lines (1 or more).
        #[arg(long, default_value_t = 1, value_parser = at_least_one)]
        multipv: usize,
        /// Search threads (1..=256).
        #[arg(long, default_value_t = 1, value_parser = RangedU64ValueParser::<usize>::new().range(1..=256))]
        threads: usize,
        /// JSON Lines: `{"type": "info"|"bestmove", "data": {...}}`.
        #[arg(long)]
        json: bool,
        /// Write the PDN game back with each move's score (from White's side) and the
        /// engine's better move.
        #[arg(long, requires = "pdn", conflicts_with_all = ["json", "ply"])]
        annotate: bool,
        /// With --annotate: name a better move when the move played loses more than this
        /// many men.
        #[arg(long, default_value_t = 0.5, requires = "annotate", value_parser = non_negative)]
        margin: f64,
    },
    /// Play games between two players and print the result with the Elo difference.
    ///
    /// A player is `level:<novice|easy|normal|strong|hard>`, or full strength under a limit:
    /// `depth:N`, `nodes:N`, `time:SECONDS` or `clock` (on `--clock` alone), each optionally
    /// followed by `/switches`: the search's knobs (`hand=1`: the hand-set evaluation) and
    /// `weights=FILE` (the weights a `dama tune fit` wrote); or `hub:<command>`, any Hub
    /// engine. Each opening is played twice, once with each colour; a match longer than its
    /// openings plays them again with two moves of choice more, different ones each time
    /// round, so that players limited by nodes or depth do not repeat their games.
    #[command(after_help = "Examples:
  dama match level:strong level:normal --games 100 --concurrency 2
  dama match nodes:20000/weights=my.weights nodes:20000 --games 400   fitted weights v shipped
  dama match level:hard depth:8 --movetime 0.2 --pdn games.pdn
  dama match level:easy level:novice --games 1000 --shard 3/10 --pdn part3.pdn
  dama pdn stats part*.pdn                          the merged result of the shards
  dama match level:hard depth:8 --pdn games.pdn --resume   go on where a stopped match ended
  dama match nodes:2000 nodes:1000 --sprt elo0=0 elo1=20 --pdn t.pdn   until the SPRT decides
  dama match clock/soft=80 clock --clock 2+0.02 --games 200   on a game clock, 2 s + 0.02 s a move
  dama match level:hard 'hub:dama-engine' --movetime 0.1,0.5   time odds: 0.1 s a move against 0.5 s

The last line: wins draws losses score% elo elo_error (95 % margin), for PLAYER1.")]
    Match {
        /// The first player (the result is its).
        player1: String,
        /// The second player.
        player2: String,
        /// Games in all (1 or more, rounded up to an even number) [default: 20]; with --sprt,
        /// the most to play [default: no limit].
        #[arg(long, value_parser = at_least_one)]
        games: Option<usize>,
        /// Seconds a move for every player (Hard needs a limit, else it thinks 1 s), above 0
        /// and at most a year; or `A,B`, the first player's and the second's (time odds:
        /// `0.1,0.5`).
        #[arg(long, value_name = "SECONDS[,SECONDS]", value_parser = movetimes, allow_negative_numbers = true)]
        movetime: Option<[Duration; 2]>,
        /// A game clock for each player in place of a time a move: `BASE[+INC]`, the
        /// seconds each starts with and those added at each move (`--clock 10+0.1`); or
        /// two clocks, `A,B`, the first player's and the second's (time odds:
        /// `--clock 1+0.01,5+0.05`). A player whose clock runs out loses on time; dama's
        /// players and Hub engines share out their clock themselves.
        #[arg(long, value_name = "BASE+INC[,BASE+INC]", value_parser = clocks, conflicts_with = "movetime")]
        clock: Option<[dama_search::Clock; 2]>,
        /// A node limit a move for every player (1 or more).
        #[arg(long, value_parser = node_count)]
        nodes: Option<u64>,
        /// Games played at the same time.
        #[arg(long, alias = "parallel", default_value_t = 1)]
        concurrency: usize,
        /// Openings: one a line, the moves from the start (`22-18 10-14 ...`) or a FEN to
        /// start from; or a PDN file, each game an opening (its moves, from its FEN tag);
        /// by default the built-in balanced Italian openings (other variants: every three-ply line).
        #[arg(long)]
        openings: Option<PathBuf>,
        /// Write every game to this PDN file.
        #[arg(long)]
        pdn: Option<PathBuf>,
        /// JSON Lines: a `game` line per game, then the `result` line.
        #[arg(long)]
        json: bool,
        /// Play only shard K of N (`K/N`): the match's opening pairs p with p mod N = K-1.
        #[arg(long, value_parser = crate::commands::parse_shard)]
        shard: Option<(usize, usize)>,
        /// Go on with a match that stopped: keep the games already in the --pdn file (they
        /// must be this match's first games: the same players, --openings, --seed and
        /// --shard), append the rest; the result counts them all. A larger --games extends
        /// a finished match. Without the file, the match starts from its first game.
        #[arg(long, requires = "pdn")]
        resume: bool,
        /// Seed of the opening order and of the levels' choices.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The rules.
        #[arg(long, default_value = "italian", value_parser = variant_parser())]
        variant: Variant,
        /// The endgame tables of the first player (dama's own players only): `memory` (the
        /// small ones built in memory, the default), `none`, or a directory of table files.
        #[arg(long, default_value = "memory")]
        egtb1: String,
        /// The endgame tables of the second player, as --egtb1.
        #[arg(long, default_value = "memory")]
        egtb2: String,
        /// Play game pairs until a sequential probability ratio test decides between H0,
        /// PLAYER1 is elo0 (logistic) Elo stronger, and H1, it is elo1 stronger: `--sprt
        /// elo0=0 elo1=5 [alpha=0.05] [beta=0.05]` (after the players; docs/tuning.md). The
        /// LLR and its bounds are shown as the pairs end.
        #[arg(long, num_args = 1..=4, value_name = "KEY=VALUE", value_parser = crate::commands::sprt_word)]
        sprt: Vec<String>,
    },
    /// Draw a position as coloured text, and as an SVG (--svg) or PNG (--png) picture.
    ///
    /// The board is the variant's own: its square names (English numbers; algebraic squares
    /// for Russian, Brazilian and Czech) and its orientation (the dark corner at each
    /// player's left for English, Russian, Brazilian and Czech), White at the bottom. --fen
    /// takes engine numbers, as every FEN dama reads; --move takes the variant's names.
    #[command(after_help = "Examples:
  dama board                                        the start position
  dama board --fen \"W:W22,29:B18,9\" --move 22x13 --svg board.svg
  dama board --png board.png                        a picture to share
  dama board --variant russian --move c3-d4         a Russian board, algebraic squares
  dama board --pdn game.pdn --game 2 --ply 31")]
    Board {
        #[command(flatten)]
        position: PositionArgs,
        /// Write an SVG picture of the board to this file.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Write a PNG picture of the board (the same drawing as --svg, 480×480) to this file.
        #[arg(long)]
        png: Option<PathBuf>,
        /// Highlight this legal move (Hub or PDN text, in the variant's square names): start,
        /// end and captured squares.
        #[arg(long = "move")]
        highlight: Option<String>,
        /// No colours, even on a terminal.
        #[arg(long)]
        plain: bool,
    },
    /// Run the Hub protocol loop on standard input and output (as `dama-engine` does).
    Engine,
    /// Search a fixed set of positions to a fixed depth: nodes, time, nodes/s and a signature.
    #[command(after_help = "Examples:
  dama bench                 depth 14, about a second and a half
  dama bench --depth 16      longer and steadier nodes/s

The signature (total nodes) is the same on every machine for the same code.")]
    Bench {
        /// The depth of every search.
        #[arg(long, default_value_t = 14)]
        depth: u32,
        /// Search switches, as after a `dama match` player (`net=0`, `lmr=1,rfp=0`, ...).
        #[arg(long)]
        knobs: Option<String>,
        /// Evaluate with this weights or net file (`dama tune fit` or `dama tune train`).
        #[arg(long)]
        eval_file: Option<std::path::PathBuf>,
    },
    /// Print a shell completion script.
    #[command(after_help = "Examples:
  dama completions bash > ~/.local/share/bash-completion/completions/dama
  dama completions zsh > ~/.zfunc/_dama")]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: ShellArg,
    },
    /// Read PDN game files: check the games, list their positions, or rewrite them.
    ///
    /// Exit status: 0 when every game is good, 1 when a game is bad (each is reported with its
    /// game number, line, move number, side, move text and why), 2 when the file cannot be read.
    Pdn {
        /// The rules of games without a GameType tag.
        #[arg(long, default_value = "italian", value_parser = variant_parser(), global = true)]
        variant: Variant,
        #[command(subcommand)]
        action: PdnAction,
    },
    /// Endgame tables: build them, probe positions, list and verify them.
    ///
    /// Tables live in --dir, else $DAMA_EGTB, else ~/.cache/dama/egtb (one subdirectory per
    /// variant). Values ignore the 40-move rule; distances are MTC, plies to the next capture
    /// or man move.
    #[command(after_help = "Examples:
  dama egtb build                     every Italian ending of up to 5 pieces (about a minute)
  dama egtb build --pieces 6          up to 6 pieces (resumable: rerun it after a stop)
  dama egtb probe --fen \"W:WK18,22:BK29\"      prints `win 7`
  dama egtb probe --stdin < fens.txt  one line per FEN: win N, draw, loss N, unknown, error: ...
  dama egtb info                      what is built
  dama egtb verify                    every stored value against its successors
  dama egtb verify --class KKM-KK     one class (and --threads 2 for two at once)
  dama egtb convert --pieces 6 --positions 100   Hard against a perfect defender")]
    Egtb {
        #[command(subcommand)]
        action: EgtbAction,
    },
    /// Fit a variant's evaluation (Italian by default) to self-play: generate games, then fit
    /// the weights.
    ///
    /// `gen` plays the engine against itself at a fixed node budget from the built-in openings
    /// plus random plies and writes a compact sample file; `fit` fits the evaluation (features
    /// and patterns) by logistic regression on the games' results and writes a weights file,
    /// to be copied to dama-search/src/<variant>.weights. See docs/tuning.md.
    #[command(after_help = "Examples:
  dama tune gen --games 20000 --nodes 1500 --threads 2 --out s.samples
  dama tune gen --games 20000 --shard 3/10 --out s3.samples     one part of ten
  dama tune fit s*.samples --threads 2 --out italian.weights
  dama tune label s3.samples --nodes 10000 --out s3-deep.samples   deeper labels
  dama tune gen --variant spanish --games 16000 --nodes 1000 --out es.samples")]
    Tune {
        #[command(subcommand)]
        action: TuneAction,
    },
    /// The opening book: build it by drop-out expansion, extend it, show and measure it.
    ///
    /// The book shipped with dama is embedded in the binary; --book reads another file.
    #[command(after_help = "Examples:
  dama book show                      the book moves of the start position, with values
  dama book show --fen \"B:W21,...\"    the book moves of a position
  dama book stats                     positions, moves, depth and size of the book
  dama book build --out my.book --positions 2000 --leaf-nodes 100000
  dama book extend my.book --positions 500     500 positions more (also resumes a build)")]
    Book {
        #[command(subcommand)]
        action: BookAction,
    },
}

/// The actions of `dama tune`.
#[derive(Subcommand, Debug)]
pub enum TuneAction {
    /// Self-play games at a fixed node budget, written as a sample file.
    Gen {
        /// The rules of the games (Italian starts from the built-in balanced openings, the
        /// others from every two-ply line).
        #[arg(long, default_value = "italian", value_parser = variant_parser())]
        variant: Variant,
        /// Games in the whole run (all shards together).
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Nodes a move.
        #[arg(long, default_value_t = 1500, value_parser = clap::value_parser!(u64).range(1..))]
        nodes: u64,
        /// Random plies after each built-in opening.
        #[arg(long, default_value_t = 4)]
        random_plies: usize,
        /// Play only shard K of N (`K/N`): the games i with i mod N = K-1.
        #[arg(long, value_parser = crate::commands::parse_shard)]
        shard: Option<(usize, usize)>,
        /// Games played at once, 1..=256 (default: the number of processors).
        #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=256))]
        threads: Option<usize>,
        /// Seed of the random plies.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Play with the previous release's evaluation (features without patterns).
        #[arg(long, conflicts_with = "patterns")]
        classic: bool,
        /// Play with the pattern evaluation (features and patterns).
        #[arg(long)]
        patterns: bool,
        /// Endgame table files to search with and to label positions by (`dama egtb
        /// build`'s directory; default: only the small tables built in memory).
        #[arg(long)]
        egtb: Option<PathBuf>,
        /// The sample file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Label sample files again by a deeper search: every position the endgame tables do
    /// not cover is searched at --nodes (from a cleared table at each game's start), the
    /// others take the tables' exact value; positions and results are kept.
    Label {
        /// Sample files written by `dama tune gen` (of one variant).
        #[arg(required = true)]
        samples: Vec<PathBuf>,
        /// Nodes of each position's search.
        #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
        nodes: u64,
        /// Games labelled at once, 1..=256 (default: the number of processors).
        #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=256))]
        threads: Option<usize>,
        /// Endgame table files to search with and to label by (`dama egtb build`'s directory;
        /// default: only the small tables built in memory).
        #[arg(long, value_name = "DIR")]
        egtb: Option<PathBuf>,
        /// The sample file to write (all the games of the inputs).
        #[arg(long)]
        out: PathBuf,
    },
    /// Fit the weights to sample files by logistic regression; print the log loss before and
    /// after on the training and the held-out games.
    Fit {
        /// Sample files written by `dama tune gen`.
        #[arg(required = true)]
        samples: Vec<PathBuf>,
        /// Passes over the training set.
        #[arg(long, default_value_t = 300)]
        epochs: usize,
        /// The optimiser's step (weight units: 1/32 of a hundredth of a man).
        #[arg(long, default_value_t = 4.0, value_parser = positive)]
        rate: f64,
        /// L2 penalty on the pattern weights.
        #[arg(long, default_value_t = 1e-6, value_parser = non_negative)]
        l2: f64,
        /// Hold out one game in this many (0: none).
        #[arg(long, default_value_t = 10)]
        holdout: usize,
        /// Fit the features only (no patterns).
        #[arg(long)]
        no_patterns: bool,
        /// Start from this weights file (default: the previous release's weights of the
        /// samples' variant, features only: for Spanish and Czech the hand-set ones).
        #[arg(long)]
        from: Option<PathBuf>,
        /// Threads (default: the number of processors).
        #[arg(long)]
        threads: Option<usize>,
        /// The weights file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Train the network evaluation on sample files with scores (version 3 or 4): Adam on the
    /// squared error of sigmoid(eval / K) against a blend of score and result; a checkpoint
    /// after every epoch, and the net file written at the end.
    Train {
        /// Sample files written by `dama tune gen` (version 3 or 4; older files have no scores).
        #[arg(required = true)]
        samples: Vec<PathBuf>,
        /// Passes over the training positions (in all, counting those of a resumed run).
        #[arg(long, default_value_t = 10)]
        epochs: usize,
        /// Positions per optimiser step.
        #[arg(long, default_value_t = 16_384)]
        batch: usize,
        /// Adam's step at the start (falls linearly to a tenth).
        #[arg(long, default_value_t = 1e-3, value_parser = positive)]
        rate: f64,
        /// Weight of the search score in the target, 0..=1 (the rest is the game's result).
        #[arg(long, default_value_t = 0.75, value_parser = unit)]
        lambda: f64,
        /// Hold out about one game in this many (0: none), chosen by its first position so
        /// that the copies of a game are held out with it.
        #[arg(long, default_value_t = 10)]
        holdout: usize,
        /// Threads (default: the number of processors).
        #[arg(long)]
        threads: Option<usize>,
        /// Seed of the initial weights and the shuffling.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The checkpoint written after every epoch, and read first if it exists (resume).
        #[arg(long)]
        checkpoint: Option<PathBuf>,
        /// Start from this net file's weights rather than random ones (a checkpoint that
        /// exists still wins: it resumes the run).
        #[arg(long)]
        from: Option<PathBuf>,
        /// Label again every position these endgame tables cover (`dama egtb build`'s
        /// directory) with its exact value, a draw included: for samples made with fewer
        /// tables, or before table draws had their own label.
        #[arg(long, value_name = "DIR")]
        egtb: Option<PathBuf>,
        /// The net file to write.
        #[arg(long)]
        out: PathBuf,
    },
}

/// The actions of `dama book`.
#[derive(Subcommand, Debug)]
pub enum BookAction {
    /// Build a new book by drop-out expansion, saved as it grows (resume with `extend`).
    Build {
        /// The file to write (refused when it exists: `extend` goes on with it).
        #[arg(long)]
        out: PathBuf,
        /// Positions to expand (each searches all its moves at the leaf budget).
        #[arg(long, default_value_t = 1000)]
        positions: usize,
        /// Nodes of each leaf's search (one thread, table cleared: load-independent).
        #[arg(long, default_value_t = 100_000)]
        leaf_nodes: u32,
        /// Hundredths of a man that cost as much as one ply when choosing what to expand.
        #[arg(long, default_value_t = 10)]
        dropout: u16,
        /// Depth of the shallow search that orders moves of equal value (strong draws first).
        #[arg(long, default_value_t = 4)]
        shallow_depth: u8,
        /// Save the file after this many expansions.
        #[arg(long, default_value_t = 20)]
        save_every: usize,
    },
    /// Expand more positions of an existing book, with the settings it was built with.
    Extend {
        /// The book file, rewritten as it grows.
        file: PathBuf,
        /// Positions to add.
        #[arg(long, default_value_t = 1000)]
        positions: usize,
        /// Save the file after this many expansions.
        #[arg(long, default_value_t = 20)]
        save_every: usize,
    },
    /// The book moves of a position with their values, best first.
    Show {
        /// The position (PDN-style FEN); the start position by default.
        #[arg(long)]
        fen: Option<String>,
        /// A book file instead of the embedded book.
        #[arg(long)]
        book: Option<PathBuf>,
    },
    /// Positions, moves, depth, size and build settings of the book.
    Stats {
        /// A book file instead of the embedded book.
        #[arg(long)]
        book: Option<PathBuf>,
    },
}

/// Where and for which rules `dama egtb` works.
#[derive(clap::Args, Debug, Clone)]
pub struct EgtbArgs {
    /// The rules.
    #[arg(long, default_value = "italian", value_parser = variant_parser())]
    pub variant: Variant,
    /// The tables' directory (default: $DAMA_EGTB, else ~/.cache/dama/egtb).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// The actions of `dama egtb`.
#[derive(Subcommand, Debug)]
pub enum EgtbAction {
    /// Build every table with at most N pieces (classes already built are kept).
    Build {
        #[command(flatten)]
        args: EgtbArgs,
        /// The most pieces, both sides together (2..=7; 6 pieces take 2.85 GB of memory, 7
        /// need --allow-huge).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=7))]
        pieces: u32,
        /// Threads.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Build 7 pieces even so (refused without it: far more memory and time than a
        /// machine usually has; the refusal gives the estimate).
        #[arg(long)]
        allow_huge: bool,
    },
    /// Print the value of each position for its side to move.
    Probe {
        #[command(flatten)]
        args: EgtbArgs,
        /// The position (PDN-style FEN).
        #[arg(long, conflicts_with = "stdin", required_unless_present = "stdin")]
        fen: Option<String>,
        /// Read FENs from standard input, one a line.
        #[arg(long)]
        stdin: bool,
    },
    /// List the built tables: class, positions, size, build time, checksum.
    Info {
        #[command(flatten)]
        args: EgtbArgs,
    },
    /// Check every stored value of every table against its successors' values.
    Verify {
        #[command(flatten)]
        args: EgtbArgs,
        /// Only tables with at most N pieces.
        #[arg(long)]
        pieces: Option<u32>,
        /// Only these classes (like KKM-K; repeat it or separate them with commas).
        #[arg(long, value_delimiter = ',')]
        class: Vec<String>,
        /// Classes verified at once (each thread one class).
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Play won positions out against a perfect defender: Hard takes the winning side at a
    /// fixed node budget, the tables defend (the move that keeps the longest loss); counts
    /// the games Hard wins under the game's draw rules.
    Convert {
        #[command(flatten)]
        args: EgtbArgs,
        /// Games to play (each from its own won position, drawn from the tables).
        #[arg(long, default_value_t = 100)]
        positions: usize,
        /// Pieces of each start position (a class with men; the tables must hold it).
        #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(3..=7))]
        pieces: u32,
        /// Nodes a move for Hard (1 or more).
        #[arg(long, default_value_t = 20_000, value_parser = node_count)]
        nodes: u64,
        /// Only wins at least this many plies (MTC) from their conversion.
        #[arg(long, default_value_t = 1)]
        min_distance: u32,
        /// Hard without any table, its search alone.
        #[arg(long)]
        no_tables: bool,
        /// The classes the starts are drawn from: `men` (with men), `kings` (kings only) or
        /// `all`. Half the starts have Black to move (the position turned round).
        #[arg(long, default_value = "men", value_parser = ["men", "kings", "all"])]
        classes: String,
        /// What the tables call the starts, for Hard, the side to move: `won` (Hard
        /// converts, the tables defend longest), `drawn` (Hard must not lose; the tables
        /// play a drawing move at random, and win if Hard lets them) or `lost` (Hard
        /// resists, the tables win as quickly as they can).
        #[arg(long, default_value = "won", value_parser = ["won", "drawn", "lost"])]
        start: String,
        /// Seed of the positions and of Hard's choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Games played at once.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Hard's side played by a Hub engine: a command and its arguments (`dama-engine`),
        /// started afresh for each game, as a GUI starts it (what it builds at its start or
        /// on first need counts); the time from its start to `ready` is reported.
        #[arg(long, value_name = "COMMAND")]
        engine: Option<String>,
        /// A parameter for --engine, sent before `init` (repeatable; the variant is sent
        /// for you).
        #[arg(long, value_name = "NAME=VALUE", requires = "engine")]
        engine_param: Vec<String>,
        /// Seconds a move for Hard, on the clock (where a search never waits for a table to
        /// be built), in place of --nodes.
        #[arg(long, value_name = "SECONDS", value_parser = seconds)]
        movetime: Option<Duration>,
    },
}

/// Where `dama analyze` and `dama board` take their position from.
#[derive(clap::Args, Debug)]
pub struct PositionArgs {
    /// The rules.
    #[arg(long, default_value = "italian", value_parser = variant_parser())]
    pub variant: Variant,
    /// The position (PDN-style FEN). Without it and without --pdn, one FEN line is read from
    /// standard input when it is not a terminal (none, or more than one, is an error), else
    /// the start position is used.
    #[arg(long, conflicts_with = "pdn")]
    pub fen: Option<String>,
    /// A PDN file (`-` for standard input): the position of game --game after --ply moves.
    #[arg(long)]
    pub pdn: Option<PathBuf>,
    /// The game of the PDN file, from 1.
    #[arg(long, default_value_t = 1, requires = "pdn")]
    pub game: usize,
    /// Moves of the PDN game played before the position (by default all of them).
    #[arg(long, requires = "pdn")]
    pub ply: Option<usize>,
}

/// A shell for `dama completions`.
#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum ShellArg {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// Elvish.
    Elvish,
    /// PowerShell.
    Powershell,
}

/// What `dama pdn` does with a file.
#[derive(Subcommand, Debug)]
pub enum PdnAction {
    /// Replay every game; print one line per bad game, then a count.
    Check {
        /// The PDN file (`-` for standard input).
        file: PathBuf,
    },
    /// Print the position before the first move and after every move: `game ply FEN`.
    Fens {
        /// The PDN file (`-` for standard input).
        file: PathBuf,
    },
    /// Write the games in canonical PDN to standard output.
    Convert {
        /// The PDN file (`-` for standard input).
        file: PathBuf,
    },
    /// The match result of the games: wins, draws, losses, score, Elo (as `dama match`).
    Stats {
        /// The PDN files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Whose result: the name in the White/Black tags (by default the first game's White).
        #[arg(long)]
        player: Option<String>,
        /// JSON: the `result` line of `dama match --json`.
        #[arg(long)]
        json: bool,
        /// The SPRT of `dama match --sprt` on the games' pairs: `--sprt elo0=0 elo1=5
        /// [alpha=0.05] [beta=0.05]` (after the files), its LLR and bounds.
        #[arg(long, num_args = 1..=4, value_name = "KEY=VALUE", value_parser = crate::commands::sprt_word)]
        sprt: Vec<String>,
    },
}
