//! The Hub protocol (the line protocol of the Scan engine and the Hub GUI) for dama: the
//! engine side, run by the `dama-engine` binary, and a client for driving any Hub engine.
//!
//! ```
//! // A bad move list is refused with the move, its index and the rules' reason.
//! let input = "pos start moves=\"22-18 22-18\"\nping\n";
//! let mut out = Vec::new();
//! dama_protocol::run(input.as_bytes(), &mut out)?;
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.starts_with("error message=\"pos: move 2 of 2"));
//! assert!(out.ends_with("\npong\n"));
//! # Ok::<_, dama_protocol::Error>(())
//! ```
//!
//! The binary `dama-engine` runs [`run`] on its standard input and output. [`client`] drives
//! any Hub engine, dama's or another, as a subprocess.
//!
//! # The dialect
//!
//! Scan's `protocol.txt` restated for the 32 squares of Italian draughts and its relatives.
//!
//! **Lines.** One command per line: a command word, then tokens separated by spaces: bare
//! words (`go think`) or `name=value`, a value holding spaces or `=` in double quotes
//! (`moves="22-18 11-15"`). There are no escapes; a `"` inside a message the engine sends is
//! written `'`. Lines end with `\n` (a `\r` before it is dropped). A line longer than 64 KiB is
//! read to its end, dropped, and answered with `error`. Blank lines are ignored.
//!
//! **Squares and moves.** Squares are numbered 1..32, 1 the top-left dark square as White sees
//! the board and 29..32 White's back row, for every variant. A quiet move is `22-18`; a capture
//! is `from x to x captured x captured...` listing every captured square (`27x20x23`: 27 to 20
//! taking 23), ascending when the engine writes it, in any order when it reads it; `from x to`
//! alone is read when it names exactly one legal capture. Lower- and upper-case `x` are read.
//!
//! **Positions.** `<side><32 characters>`: side `W` or `B`, then one character per square in
//! 1..32 order: `w` `b` men, `W` `B` kings, `e` empty. The start position is
//! `Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww`.
//!
//! **GUI to engine.**
//!
//! | command | meaning |
//! | --- | --- |
//! | `hub` | answered by `id`, one `param` line per parameter, then `wait` |
//! | `set-param name=N value=V` | sets a parameter; bad values get `error`, and so do unknown names (ignored; the message lists the known ones) |
//! | `init` | answered by `ready` (the transposition table is allocated here; with `egtb-init`, the default, `ready` comes once the kings-only endgame tables are built, and the lines sent meanwhile are answered after it, in order; a `quit` right after `init` ends the engine at once) |
//! | `pos pos=<position> [moves="m1 m2 ..."]` | the position to search: the start and the moves since (each checked by the rules) |
//! | `pos start [moves="..."]` | the same from the start position; a refused `pos` (bad position or move) leaves no position: every `go` then answers `error` and a bare `done` until a valid `pos`, `new-game` or a `variant` |
//! | `level depth=N` / `nodes=N` / `move-time=S` / `[moves=N] time=S [inc=S]` / `infinite` | the limits of the following searches, until the next `level` (several limits may be combined; the first reached ends the search) |
//! | `go think` | search and answer `done` |
//! | `go ponder` | search on the opponent's time: time limits wait for `ponder-hit`; `done` comes only after `ponder-hit` (once the search ends) or `stop` |
//! | `go analyze` | search without limit, streaming `info` (a single legal move is searched like any other); `done` comes only after `stop` |
//! | `ponder-hit` | the expected move was played: the clock applies, counted from the start of the search |
//! | `stop` | answer `done` now (within milliseconds), with the best move of the last complete depth |
//! | `ping` | answered by `pong`, at once, also during a search |
//! | `new-game` | stops any search, clears the table, restarts the level choices' generator |
//! | `quit` | exits at once; so does the end of the input |
//!
//! Times are in seconds (decimals allowed). Following Scan, `time` excludes the increment of
//! the move to play, which the engine adds; a negative `time` (some clients subtract the
//! increment themselves) is clamped so that the engine thinks only within what is really left.
//! A `move-time` or `inc` below zero is refused, and so is a number that is not finite; a time
//! above a year ([`dama_search::Limits::MAX_TIME`]) counts as a year.
//! Without any `level` line the engine thinks [`DEFAULT_MOVE_TIME`] (one second) per move.
//! `go` always gets exactly one `done`: a `go` that cannot be read, or in a position without a
//! legal move, gets `error` then a bare `done`; a `go` during a search ends the running search
//! (which answers first) and then starts. A game drawn by one of dama's draw rules that the
//! GUI plays on is searched all the same (the engine answers a legal move).
//!
//! **Engine to GUI.**
//!
//! | line | meaning |
//! | --- | --- |
//! | `id name=dama version=... author=... country=...` | identity |
//! | `param name=N value=V type=int min=A max=B` / `type=enum values="..."` / `type=bool` / `type=string` | a parameter |
//! | `wait`, `ready`, `pong` | answers to `hub`, `init`, `ping` |
//! | `info depth=D score=S nodes=N time=T nps=R pv="..."` | after each completed iteration; `multipv=K` is added when several lines are searched |
//! | `done move=M [ponder=P]` | the end of a search; a bare `done` when there is no move |
//! | `error message="..."` | bad input, quoted, with the reason; the engine keeps its state |
//!
//! `depth` and `nodes` are integers; `score` is in men for the side to move (`0.35`), a win in
//! n plies `100 - n/100` (`99.93`), a loss its negative. Every token is `key=value`.
//!
//! **Parameters.** `variant` (enum of every variant: italian, spanish, czech, english, russian,
//! brazilian; setting it resets the position to the start); `level` (novice, easy, normal,
//! strong, hard; default hard, full strength within the GUI's limits: the lower levels cap the
//! search and may pick a slightly weaker move, and report one `info` with `done`); `hash`
//! (MiB, 1..4096, default 32); `threads` (1..64); `seed` (0..2^31-1: the level choices are
//! reproducible for a seed above 0, and 0, the default, draws a seed at each new game);
//! `multipv` (1..32 lines); `egtb-init` (bool, default true: at `init`, before `ready`, the
//! engine builds in memory the endgame tables, both metrics, of the kings-only endings of up
//! to 5 pieces of the variant set then (3 kings against 2, 4 against 1, and every smaller
//! one), about 3.4 s of CPU on two threads, so that its first move in such an ending is
//! already the tables' quickest win; false leaves them to be built on first need, in the
//! background while the first moves are searched, since a move on the clock never waits for a
//! table; test harnesses that start many engines switch it off); `book` (bool, default true: Hard, Strong and Normal answer at
//! once with a book move in a position of the opening book, reporting it as one `info` with
//! depth 0 and its book value; `go analyze` never uses the book); `book-margin` (0..1000
//! hundredths of a man, default 5: Hard and Strong choose, with the seeded generator, among
//! the book moves at most this much below the best; 0 plays the best, its strong draw first;
//! Normal keeps its own margin of 20); `contempt` (0..100 hundredths of a man, default 0: a
//! draw by repetition, by the 40-move rule or in the endgame tables is worth this much less
//! than even to the side the engine plays, so that it does not steer into one when it is not
//! worse); `book-file` (string: a book file written by `dama book
//! build`, empty for the built-in book; a file that cannot be read or is damaged is refused
//! with `error` and the book in use stays); `eval-file` (string: an evaluation file, weights
//! written by `dama tune fit` or a network written by `dama tune train`, empty for the
//! built-in evaluation, for Italian the embedded network; a bad file is refused with `error`
//! and the evaluation in use stays).
//!
//! **Errors.** Every bad line gets one `error message="..."` that quotes the input and says
//! what was expected; for `moves=` it names the move, its index and the rules' reason
//! (malformed, illegal with the explanation, or ambiguous with the candidates), and the previous
//! position stays. Logs go to stderr only, through `tracing`, and are off unless `DAMA_LOG` sets
//! a filter (e.g. `DAMA_LOG=debug`); log lines start with a timestamp, never with a protocol
//! word.

#![warn(missing_docs)]
// Safe Rust only (the workspace denies `unsafe`; here it cannot be allowed back).
#![forbid(unsafe_code)]

pub mod client;
pub mod command;
mod controller;
mod error;
pub mod lexer;
mod prepare;
pub mod reader;
pub mod response;
mod searcher;

pub use client::{ClientConfig, HubClient, HubPlayer};
pub use command::{Command, GoMode};
pub use controller::{run, DEFAULT_MOVE_TIME};
pub use error::Error;
pub use response::Response;
