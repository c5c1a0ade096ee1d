//! Search benchmarks: time to a fixed depth and nodes per second on an opening, a middle game
//! and a king ending, one thread.
//!
//! The node count of each search is checked against the figure below before timing: the
//! search is deterministic on one thread, so a different count means its behaviour changed
//! (intended or not). After an intended change, put the new counts here with the commit
//! that explains the change.
//!
//! Run with `cargo bench --bench search`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dama::rules::notation::fen;
use dama::rules::{Game, Variant};
use dama::search::{Engine, Limits};

/// (name, FEN, depth, nodes at that depth).
const CASES: [(&str, &str, u32, u64); 3] = [
    ("opening", "W:W21-32:B1-12", 19, NODES[0]),
    (
        "middle game",
        "W:W17,21,22,23,25,26,27,29,30:B2,3,5,6,7,9,10,11,12",
        19,
        NODES[1],
    ),
    ("king ending", "W:WK18,K27,21,30:BK4,K11,5", 19, NODES[2]),
];

/// The node signature of the current search (see the module docs): LMR scheme 2, reverse
/// futility, no single-reply extension, table from depth 2, the refitted Italian features
/// (italian.weights; the previous release's weights, knob `classic=1`, gave 1,532,627, 829,580
/// and 1,617,152; the pattern evaluation, knob `patterns=1`, 2,159,404, 594,283 and
/// 2,169,672), endgame tables of dama-egtb in memory (every class of up to 4 pieces and the
/// kings-only ones of 5).
const NODES: [u64; 3] = [1_681_777, 652_069, 1_932_422];

fn search_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for (name, f, depth, nodes) in CASES {
        let game = Game::from_position(Variant::Italian, fen::parse(f).expect("valid FEN"));
        let run = || {
            let mut engine = Engine::with_hash(64);
            engine.search(&game, &Limits::depth(depth))
        };
        // The first run also builds the endgame tables it needs, outside the timing.
        let counted = run().nodes;
        assert_eq!(counted, nodes, "{name}: the search's behaviour changed");
        group.throughput(Throughput::Elements(counted));
        group.bench_function(format!("{name} d{depth}"), |b| b.iter(run));
    }
    group.finish();
}

criterion_group!(benches, search_benches);
criterion_main!(benches);
