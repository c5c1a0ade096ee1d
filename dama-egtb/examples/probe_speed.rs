//! Probe speed of table files: cold (each probe in a block not read yet, often a file not yet
//! opened), warm (the same probes again, from the block cache) and mixed (as a search
//! probes: three of four probes in a hot set of 64 positions, the fourth somewhere new, so
//! that the blocks read outgrow the cache and what it drops matters).
//!
//! `cargo run --release -p dama-egtb --example probe_speed -- DIR [PIECES] [PROBES]`

use std::time::Instant;

use dama_egtb::{solve::build_order, Tables};
use dama_rules::Variant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: probe_speed DIR [PIECES] [PROBES]");
        std::process::exit(2);
    };
    let pieces: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let probes: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let classes: Vec<_> = build_order(pieces)
        .into_iter()
        .filter(|m| m.pieces() == pieces)
        .flat_map(|m| [m, m.flip()])
        .collect();
    // Positions spread over the classes and their numbering.
    let mut positions = Vec::new();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while positions.len() < probes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let m = classes[(x % classes.len() as u64) as usize];
        if let Some(p) = m.placement((x >> 20) as usize % m.len()) {
            positions.push(p.position());
        }
    }
    let fresh: Vec<_> = (0..probes)
        .map(|_| loop {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = classes[(x % classes.len() as u64) as usize];
            if let Some(p) = m.placement((x >> 20) as usize % m.len()) {
                break p.position();
            }
        })
        .collect();
    let hot = &positions[..positions.len().min(64)];
    let mixed: Vec<_> = (0..probes * 4)
        .map(|i| {
            if i % 4 == 3 {
                fresh[i / 4]
            } else {
                hot[(i * 7 + i / 5) % hot.len()]
            }
        })
        .collect();
    let tables = Tables::open(dir).expect("a table directory");
    for (pass, positions) in [
        ("cold", &positions),
        ("warm", &positions),
        ("mixed", &mixed),
    ] {
        let t = Instant::now();
        let c = cpu_seconds();
        let mut known = 0;
        for pos in positions {
            if let Ok(Some(_)) = tables.probe(Variant::Italian, pos) {
                known += 1;
            }
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / positions.len() as f64;
        let cpu = c.zip(cpu_seconds()).map_or(String::new(), |(a, b)| {
            format!(", {:.1} µs CPU", (b - a) * 1e6 / positions.len() as f64)
        });
        println!(
            "{pass}: {} probes of {pieces}-piece positions, {known} known, {us:.1} µs a probe{cpu}",
            positions.len()
        );
    }
}

/// The CPU time of this process so far (Linux: `/proc/self/schedstat`), for figures taken on
/// a loaded machine.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}
