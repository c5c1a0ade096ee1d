//! Command-line arguments. Converted into library types in `commands` and going no further.

use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::builder::TypedValueParser;
use clap::{Parser, Subcommand, ValueEnum};
use dama_rules::Variant;
use dama_search::Level;

/// dama: Italian draughts (dama italiana) engine and tools.
#[derive(Parser, Debug)]
#[command(name = "dama", version, about)]
pub struct Cli {
    /// Log filter for stderr (e.g. `debug`); defaults to RUST_LOG, then `warn`.
    #[arg(long, global = true)]
    pub log_level: Option<String>,
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

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play Italian draughts against the computer, full screen (or plain text with --plain).
    ///
    /// You have the light pieces at the bottom and move first. Select a piece with the arrow
    /// keys and Enter or a click, then a square it may go to (a multi-jump one landing at a
    /// time); or press `:` and type a square number or a whole move (`22-18`, `22x13`). Keys
    /// 1-5 set the level (remembered for the next game), n starts a new game, q quits.
    #[command(after_help = "Examples:
  dama play                       the full-screen game
  dama play --level hard          start at Hard (keys 1-5 change it)
  dama play --plain --level 1 --seed 7 < moves.txt
                                  a scripted, reproducible game as text

Plain mode: before each of your moves it prints the board and `fen <FEN>`; give one move a
line (Hub or PDN text), or `level N`. A refused move prints `illegal <reason>`; the computer's
moves print `computer <move>`; the end prints `result <1-0|0-1|1/2-1/2> score <points>`
(10 points per piece you captured; a win adds 100 + 50 x the level number).")]
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
        /// Start from this position (PDN-style FEN) instead of the start; you play the side
        /// to move.
        #[arg(long)]
        fen: Option<String>,
        /// The rules.
        #[arg(long, default_value = "italian", value_parser = variant_parser())]
        variant: Variant,
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
        /// The deepest depth counted (from depth 1; `0` prints perft(0) = 1). Counting stops
        /// after a depth with no leaves.
        #[arg(long, short)]
        depth: u32,
        /// First print each legal move's count at the full depth.
        #[arg(long)]
        divide: bool,
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
}
