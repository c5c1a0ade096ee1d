//! Plays a match between two players and prints the result with its Elo margin.
//!
//! `cargo run --release -p dama-lab --example match -- FIRST SECOND [games] [parallel] [pdn-file]`
//!
//! A player is `novice`, `easy`, `normal`, `strong` or `hard` (a level; Hard at 0.1 s a move
//! unless `hard@S`), `depth:N`, `nodes:N` or `time:S` (full strength on that budget; `S` in
//! seconds, as in `dama match`), optionally followed by `/knobs` (`time:0.02/lmr=1,rfp=0`) to
//! compare search features.

use std::time::Duration;

use dama_lab::matches::{play_match, LevelPlayer, MatchConfig, Player, SearchPlayer};
use dama_search::{Level, Limits};

fn player(full: &str, seed: u64) -> Box<dyn Player> {
    let (spec, knobs) = full.split_once('/').unwrap_or((full, ""));
    // `threads=N` among the switches sets the search threads.
    let threads = knobs
        .split(',')
        .find_map(|k| k.strip_prefix("threads="))
        .map_or(1, |n| n.parse().expect("a thread count"));
    let knobs: String = knobs
        .split(',')
        .filter(|k| !k.starts_with("threads="))
        .collect::<Vec<_>>()
        .join(",");
    let knobs: dama_search::Knobs = knobs.parse().expect("knobs after '/'");
    let (kind, value) = spec.split_once([':', '@']).unwrap_or((spec, ""));
    let num = || {
        value
            .parse::<u64>()
            .expect("a number after the player kind")
    };
    let seconds = || {
        let s: f64 = value.parse().expect("seconds after time: or hard@");
        Duration::try_from_secs_f64(s).expect("a time of 0 s or more")
    };
    match kind {
        "depth" => {
            Box::new(SearchPlayer::new(full, Limits::depth(num() as u32), 16).with_knobs(knobs))
        }
        "nodes" => Box::new(SearchPlayer::new(full, Limits::nodes(num()), 16).with_knobs(knobs)),
        "time" => Box::new(
            SearchPlayer::new(full, Limits::move_time(seconds()), 16)
                .with_knobs(knobs)
                .with_threads(threads),
        ),
        level => {
            let level: Level = level.parse().expect("a level or depth:/nodes:/time:");
            let time = if value.is_empty() {
                Duration::from_millis(100)
            } else {
                seconds()
            };
            let limits = if level == Level::Hard {
                Limits::move_time(time)
            } else {
                Limits::default()
            };
            Box::new(LevelPlayer::new(level, limits, seed))
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (a, b) = (args[0].clone(), args[1].clone());
    let games = args.get(2).map_or(100, |s| s.parse().expect("games"));
    let parallel = args.get(3).map_or(2, |s| s.parse().expect("parallel"));
    let config = MatchConfig {
        games,
        parallel,
        ..MatchConfig::default()
    };
    let seeds = std::sync::atomic::AtomicU64::new(1);
    let next = || seeds.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let start = std::time::Instant::now();
    let result = play_match(&|| player(&a, next()), &|| player(&b, next()), &config);
    println!(
        "{a} vs {b}: {} in {:.0} s",
        result.summary(),
        start.elapsed().as_secs_f64()
    );
    if let Some(path) = args.get(4) {
        let text: String = result.games.iter().map(|g| g.pdn.clone() + "\n").collect();
        std::fs::write(path, text).expect("writing the PDN file");
    }
}
