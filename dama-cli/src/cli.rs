//! Command-line arguments. Converted into library types in `commands` and going no further.

use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{Parser, Subcommand, ValueEnum};
use dama_rules::Variant;

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
