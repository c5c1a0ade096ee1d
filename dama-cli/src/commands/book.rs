//! `dama book`: build, extend, show and measure the opening book.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use dama_lab::book::Builder;
use dama_rules::notation::fen;
use dama_rules::{Game, Variant};
use dama_search::book::{Book, BuildConfig};

use crate::cli::BookAction;
use crate::error::CliError;
use crate::exit::Status;

/// A book error naming the file (an I/O error names it already).
fn book_error(path: &Path) -> impl Fn(dama_search::book::BookError) -> CliError + '_ {
    move |e| match e {
        dama_search::book::BookError::Io { .. } => CliError::Usage(e.to_string()),
        _ => CliError::Usage(format!("{}: {e}", path.display())),
    }
}

/// The book of `--book FILE`, else the embedded one.
pub fn book_of(path: Option<&Path>) -> Result<Arc<Book>, CliError> {
    match path {
        Some(p) => Ok(Arc::new(Book::load(p).map_err(book_error(p))?)),
        None => Ok(Book::embedded()),
    }
}

pub fn run(action: BookAction) -> Result<Status, CliError> {
    match action {
        BookAction::Build {
            out,
            positions,
            leaf_nodes,
            dropout,
            shallow_depth,
            save_every,
        } => {
            if out.exists() {
                return Err(CliError::Usage(format!(
                    "{} exists: `dama book extend {}` goes on with it",
                    out.display(),
                    out.display()
                )));
            }
            let config = BuildConfig {
                variant: Variant::Italian,
                leaf_nodes: leaf_nodes.max(1),
                dropout: dropout.max(1),
                shallow_depth: shallow_depth.max(1),
            };
            grow(Builder::new(config), &out, positions, save_every)
        }
        BookAction::Extend {
            file,
            positions,
            save_every,
        } => {
            let book = Book::load(&file).map_err(book_error(&file))?;
            grow(Builder::from_book(&book), &file, positions, save_every)
        }
        BookAction::Show { fen: text, book } => show(&*book_of(book.as_deref())?, text.as_deref()),
        BookAction::Stats { book } => stats(&*book_of(book.as_deref())?),
    }
}

/// Expands `positions` positions more, saving every `save_every` and at the end, with a
/// progress line on stderr after each expansion.
fn grow(
    mut builder: Builder,
    out: &Path,
    positions: usize,
    save_every: usize,
) -> Result<Status, CliError> {
    let start = Instant::now();
    let first = builder.len();
    let mut nodes = 0u64;
    let save = |b: &Builder| b.book().save(out).map_err(book_error(out));
    for i in 1..=positions {
        let Some(p) = builder.expand_once() else {
            eprintln!("nothing left to expand");
            break;
        };
        nodes += p.nodes;
        let root = p
            .root
            .map_or_else(String::new, |m| format!("{} {}", m.mv, m.score));
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "book {}/{} positions  ply {:2} for {:5}  start {root}  {:.0} s  {:.0} knodes/s",
            p.positions,
            first + positions,
            p.ply,
            p.side.name(),
            secs,
            nodes as f64 / secs.max(1e-3) / 1e3
        );
        if i % save_every.max(1) == 0 {
            save(&builder)?;
        }
    }
    save(&builder)?;
    let s = builder.book().stats();
    eprintln!(
        "wrote {}: {} positions, {} moves, depth {}, {} bytes, {:.1} s",
        out.display(),
        s.positions,
        s.moves,
        s.depth,
        s.bytes,
        start.elapsed().as_secs_f64()
    );
    Ok(Status::Ok)
}

fn show(book: &Book, text: Option<&str>) -> Result<Status, CliError> {
    let pos = text.map_or(Ok(dama_rules::Position::start()), fen::parse)?;
    let game = Game::from_position(book.config().variant, pos);
    let moves = book.moves(game.position());
    let mut out = io::stdout().lock();
    let w = |e| CliError::Output(e);
    if moves.is_empty() {
        writeln!(out, "not in the book").map_err(w)?;
        return Ok(Status::Ok);
    }
    for m in moves {
        let pdn = game.pdn_move(m.mv).unwrap_or_else(|_| m.mv.to_string());
        writeln!(out, "{pdn:10} {}", m.score).map_err(w)?;
    }
    Ok(Status::Ok)
}

fn stats(book: &Book) -> Result<Status, CliError> {
    let s = book.stats();
    let c = book.config();
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "variant {}\npositions {}\nmoves {}\nreachable {}\nillegal {}\ndepth {}\nbytes {}\nleaf-nodes {}\ndropout {}\nshallow-depth {}",
        c.variant.name(),
        s.positions,
        s.moves,
        s.reachable,
        s.illegal,
        s.depth,
        s.bytes,
        c.leaf_nodes,
        c.dropout,
        c.shallow_depth
    )
    .map_err(CliError::Output)?;
    Ok(Status::Ok)
}
