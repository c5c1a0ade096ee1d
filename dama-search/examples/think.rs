//! Searches one position and prints each iteration: a quick look at speed and depth.
//!
//! `cargo run --release -p dama-search --example think -- [FEN|start] [millis|dDEPTH] [threads]`

use std::time::Duration;

use dama_rules::{notation::fen, Game, Position, Variant};
use dama_search::{Engine, Limits, Signals};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pos = match args.first().map(String::as_str) {
        None | Some("start") => Position::start(),
        Some(f) => fen::parse(f).expect("a FEN"),
    };
    let budget = args.get(1).map_or("1000", String::as_str);
    let threads: usize = args.get(2).map_or(1, |s| s.parse().expect("threads"));
    let game = Game::from_position(Variant::Italian, pos);
    let mut engine = Engine::with_hash(64);
    engine.set_threads(threads);
    if let Ok(k) = std::env::var("KNOBS") {
        engine.set_knobs(k.parse().expect("knobs"));
    }
    // `d15` searches to depth 15; a number is milliseconds.
    let limits = match budget.strip_prefix('d') {
        Some(d) => Limits::depth(d.parse().expect("a depth")),
        None => Limits::move_time(Duration::from_millis(budget.parse().expect("milliseconds"))),
    };
    let r = engine.search_with(&game, &limits, &Signals::default(), &mut |i| {
        let pv: Vec<String> = i.pv.iter().map(|m| m.to_string()).collect();
        println!(
            "depth {:2} sel {:2} score {:>8} nodes {:10} nps {:9} time {:6.3} pv {}",
            i.depth,
            i.seldepth,
            i.score.to_string(),
            i.nodes,
            i.nps,
            i.time.as_secs_f64(),
            pv.join(" ")
        );
    });
    println!(
        "best {:?} depth {} nodes {} time {:.3} nps {:.0}",
        r.best.map(|m| m.to_string()),
        r.depth,
        r.nodes,
        r.time.as_secs_f64(),
        r.nodes as f64 / r.time.as_secs_f64()
    );
}
