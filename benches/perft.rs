//! Perft benchmarks: leaves per second of the bulk-counting perft, from the start position and
//! from a king-heavy middle game. The node counts are asserted so a fast wrong generator fails.
//!
//! Run with `cargo bench --bench perft`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dama::rules::notation::fen;
use dama::rules::perft::perft;
use dama::rules::variant::{Czech, English, Italian, Russian, Spanish};
use dama::rules::{Position, Rules};

/// A middle game with kings on both sides; its Italian perft(7) was confirmed by the
/// independent reference in `tests/reference`.
const KINGS_FEN: &str = "W:WK4,K13,22,25,26,27,30,31:B1,2,5,K20,K23,11,12,K32";

fn bench_one<R: Rules>(c: &mut Criterion, name: &str, pos: Position, depth: u32, leaves: u64) {
    assert_eq!(perft::<R>(&pos, depth), leaves, "{name}: perft({depth})");
    let mut group = c.benchmark_group("perft");
    group.throughput(Throughput::Elements(leaves));
    group.sample_size(10);
    group.bench_function(name, |b| b.iter(|| perft::<R>(&pos, depth)));
    group.finish();
}

fn perft_benches(c: &mut Criterion) {
    let start = Position::start();
    bench_one::<Italian>(c, "italian start d10", start, 10, 17_761_384);
    let kings = fen::parse(KINGS_FEN).expect("valid FEN");
    bench_one::<Italian>(c, "italian kings d7", kings, 7, 3_733_589);
    bench_one::<Spanish>(c, "spanish start d9", start, 9, 3_860_866);
    bench_one::<Czech>(c, "czech start d9", start, 9, 3_963_671);
    bench_one::<English>(c, "english start d9", start, 9, 3_963_680);
    bench_one::<Russian>(c, "russian start d9", start, 9, 4_570_586);
}

criterion_group!(benches, perft_benches);
criterion_main!(benches);
