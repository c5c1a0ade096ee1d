//! Fits the Italian evaluation weights to self-play results by logistic regression, the way
//! the strongest draughts engines tune theirs.
//!
//! 1. `tune gen GAMES NODES > data.txt`: self-play games at a fixed node budget from the
//!    built-in openings (each with both colours) plus two random plies; every quiet position
//!    after the opening is written as `FEN;result` (1 White won, 0.5 draw, 0 Black won).
//! 2. `tune fit data.txt > weights.txt`: finds the scale K that best maps the current
//!    evaluation to results, then fits every weight by gradient descent (Adam) on the log
//!    loss of `sigmoid(eval / K)` against the results, and prints the fitted table as Rust
//!    for `src/weights.rs`, with the loss before and after on stderr.
//!
//! Regenerate: `cargo run --release -p dama-search --example tune -- gen 4000 4000 > /tmp/d.txt`
//! then `cargo run --release -p dama-search --example tune -- fit /tmp/d.txt`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use dama_rules::notation::fen;
use dama_rules::{Color, Game, Outcome, Position, Variant};
use dama_search::eval::{feature, features, SCALE};
use dama_search::matches::italian_openings;
use dama_search::{weights, Engine, Limits};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("gen") => {
            let games = args.get(1).map_or(1000, |s| s.parse().expect("games"));
            let nodes = args.get(2).map_or(4000, |s| s.parse().expect("nodes"));
            generate(games, nodes);
        }
        Some("fit") => fit(args.get(1).expect("a data file")),
        _ => eprintln!("usage: tune gen GAMES NODES | tune fit FILE"),
    }
}

fn generate(games: usize, nodes: u64) {
    let openings = italian_openings();
    let next = AtomicUsize::new(0);
    let out = Mutex::new(std::io::stdout());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut engine = Engine::with_hash(8);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= games {
                        break;
                    }
                    let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
                    let mut game = Game::new();
                    for &m in &openings[i % openings.len()] {
                        game.play(m).expect("opening moves are legal");
                    }
                    for _ in 0..2 {
                        let legal = game.legal_moves().clone();
                        if legal.is_empty() {
                            break;
                        }
                        let m = legal[rng.random_range(0..legal.len())];
                        game.play(m).expect("a legal move");
                    }
                    let mut seen = Vec::new();
                    engine.clear();
                    let result = loop {
                        if let Some(outcome) = game.outcome() {
                            break outcome;
                        }
                        let pos = *game.position();
                        if !pos.must_capture::<dama_rules::variant::Italian>()
                            && !pos
                                .with_turn(!pos.turn())
                                .must_capture::<dama_rules::variant::Italian>()
                        {
                            seen.push(pos);
                        }
                        let r = engine.search(&game, &Limits::nodes(nodes));
                        game.play(r.best.expect("a move")).expect("a legal move");
                    };
                    let value = match result {
                        Outcome::Win(Color::White) => "1",
                        Outcome::Win(Color::Black) => "0",
                        Outcome::Draw(_) => "0.5",
                    };
                    let text: String = seen
                        .iter()
                        .map(|p| format!("{};{value}\n", p.fen()))
                        .collect();
                    use std::io::Write;
                    let mut o = out.lock().expect("stdout lock");
                    o.write_all(text.as_bytes()).expect("writing");
                }
            });
        }
    });
}

struct Sample {
    features: Vec<(u16, i32)>,
    result: f64,
}

fn load(path: &str) -> Vec<Sample> {
    let text = std::fs::read_to_string(path).expect("reading the data");
    text.lines()
        .filter_map(|l| {
            let (f, r) = l.split_once(';')?;
            let pos: Position = fen::parse(f).ok()?;
            let counts = features(&pos);
            Some(Sample {
                features: counts
                    .iter()
                    .enumerate()
                    .filter(|(_, &c)| c != 0)
                    .map(|(i, &c)| (i as u16, c))
                    .collect(),
                result: r.parse().ok()?,
            })
        })
        .collect()
}

fn eval(w: &[f64], s: &Sample) -> f64 {
    s.features
        .iter()
        .map(|&(i, c)| w[usize::from(i)] * f64::from(c))
        .sum::<f64>()
        / f64::from(SCALE)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn loss(w: &[f64], k: f64, data: &[Sample]) -> f64 {
    data.iter()
        .map(|s| {
            let p = sigmoid(eval(w, s) / k).clamp(1e-9, 1.0 - 1e-9);
            -(s.result * p.ln() + (1.0 - s.result) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / data.len() as f64
}

fn fit(path: &str) {
    let data = load(path);
    let start: Vec<f64> = weights::for_variant(Variant::Italian)
        .iter()
        .map(|&w| f64::from(w))
        .collect();
    // The scale: the K that best maps the current evaluation to results.
    let mut k = 100.0;
    for _ in 0..30 {
        let (lo, hi) = (loss(&start, k * 0.9, &data), loss(&start, k * 1.1, &data));
        k *= if lo < hi { 0.95 } else { 1.05 };
    }
    eprintln!(
        "{} positions, K = {k:.1}, loss {:.5}",
        data.len(),
        loss(&start, k, &data)
    );
    let mut w = start.clone();
    let (mut m, mut v) = (vec![0.0; w.len()], vec![0.0; w.len()]);
    let lr = 8.0;
    for epoch in 1..=400 {
        let mut grad = vec![0.0; w.len()];
        for s in &data {
            let p = sigmoid(eval(&w, s) / k);
            let g = (p - s.result) / (k * f64::from(SCALE));
            for &(i, c) in &s.features {
                grad[usize::from(i)] += g * f64::from(c);
            }
        }
        for i in 0..w.len() {
            // A man stays worth 100: the unit of every score.
            if i == feature::MAN {
                continue;
            }
            let g = grad[i] / data.len() as f64;
            m[i] = 0.9 * m[i] + 0.1 * g;
            v[i] = 0.999 * v[i] + 0.001 * g * g;
            let mh = m[i] / (1.0 - 0.9f64.powi(epoch));
            let vh = v[i] / (1.0 - 0.999f64.powi(epoch));
            w[i] -= lr * mh / (vh.sqrt() + 1e-12);
        }
        if epoch % 50 == 0 {
            eprintln!("epoch {epoch}: loss {:.5}", loss(&w, k, &data));
        }
    }
    println!(
        "/// Fitted by `examples/tune.rs` ({} positions, K = {k:.1}).",
        data.len()
    );
    println!("pub(crate) static ITALIAN_FITTED: [i32; COUNT] = [");
    for (i, x) in w.iter().enumerate() {
        println!("    {}, // {}", x.round() as i32, feature::name(i));
    }
    println!("];");
}
