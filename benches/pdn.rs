//! PDN reading speed: a file of 10,000 random legal Italian games (written by the canonical
//! writer, with a comment and a variation now and then) is read and every move checked.
//! Criterion reports the time per file and the bytes per second; games per second is 10,000
//! divided by the time.
//!
//! Run with `cargo bench --bench pdn`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dama::rules::notation::pdn::{self, Comment, GameResult, PdnGame};
use dama::rules::{Position, Variant};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const GAMES: usize = 10_000;

/// A random legal game of at most 120 plies.
fn random_game(rng: &mut ChaCha8Rng, number: usize) -> PdnGame {
    let mut game = PdnGame::new(Variant::Italian, Position::start());
    let mut pos = game.start;
    for _ in 0..rng.random_range(20..120) {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.random_range(0..legal.len())];
        pos.play_unchecked(m);
        game.moves.push(m);
    }
    game.tags = vec![
        ("Event".into(), "Random games".into()),
        ("Round".into(), number.to_string()),
        ("White".into(), "Bianco".into()),
        ("Black".into(), "Nero".into()),
    ];
    if number.is_multiple_of(4) {
        game.comments.push(Comment {
            ply: rng.random_range(0..=game.moves.len()),
            text: "a comment of a few words, as annotators write them".into(),
        });
    }
    game.result = [
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
    ][rng.random_range(0..3)];
    game
}

/// The file of `games` games: canonical games, with a variation added to every tenth.
fn file(games: usize) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut out = String::new();
    for number in 1..=games {
        let text = pdn::write(&random_game(&mut rng, number)).expect("legal moves");
        if number % 10 == 0 {
            out.push_str(&text.replacen("1. ", "(1. 21-17 {aside} (1. 22-18)) 1. ", 1));
        } else {
            out.push_str(&text);
        }
        out.push('\n');
    }
    out
}

fn read_all(text: &str) -> usize {
    pdn::Reader::new(text.as_bytes(), Variant::Italian)
        .map(|g| g.expect("a good game").moves.len())
        .sum()
}

/// Reading 10,000 games, and 1,000 for comparison: the time per byte should not grow with
/// the file.
fn pdn_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("pdn");
    group.sample_size(10);
    for games in [GAMES / 10, GAMES] {
        let text = file(games);
        let plies = read_all(&text);
        eprintln!(
            "pdn: {games} games, {plies} plies, {:.2} MB",
            text.len() as f64 / 1e6
        );
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("read {games} games"), |b| {
            b.iter(|| read_all(&text))
        });
    }
    group.finish();
}

criterion_group!(benches, pdn_benches);
criterion_main!(benches);
