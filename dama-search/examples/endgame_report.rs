//! Builds the kings-only endgame tables and prints the figures quoted in the docs of
//! `dama_search::endgame`: build time per material class, size, and statistics per table.
//!
//! ```text
//! cargo run --release -p dama-search --example endgame_report -- [VARIANT] [--check]
//! ```
//!
//! `--check` also compares every stored value, with either colour to move, with the value
//! computed from its successors through the `dama-rules` move generator (which proves the tables
//! exact); it takes a few seconds more.

use std::process::ExitCode;
use std::time::Instant;

use dama_rules::{with_rules, Color, Piece, Position, Role, Rules, Setup, Square, Variant};
use dama_search::endgame::{self, Value};

/// Material classes in build order: captures lead only to earlier classes.
const CLASSES: [(u32, u32); 6] = [(1, 1), (2, 1), (3, 1), (2, 2), (4, 1), (3, 2)];

fn main() -> ExitCode {
    let mut variant = Variant::Italian;
    let mut check = false;
    for arg in std::env::args().skip(1) {
        if arg == "--check" {
            check = true;
        } else if let Ok(v) = arg.parse() {
            variant = v;
        } else {
            eprintln!("endgame_report: unknown argument {arg:?}: expected a variant or --check");
            return ExitCode::from(2);
        }
    }
    with_rules!(variant, R => report::<R>(check))
}

fn report<R: Rules>(check: bool) -> ExitCode {
    println!(
        "{} kings-only tables, up to {} pieces",
        R::VARIANT,
        endgame::MAX_PIECES
    );
    let all = Instant::now();
    let mut positions = 0;
    for (a, b) in CLASSES {
        let start = Instant::now();
        // The first probe of a class builds it (its smaller classes are built already).
        endgame::probe::<R>(&some_position(a, b)).expect("in the tables");
        let built = start.elapsed().as_secs_f64();
        println!("  class {a}v{b}: built in {built:.3} s");
        positions += stats_line::<R>(a, b) + if a == b { 0 } else { stats_line::<R>(b, a) };
    }
    println!(
        "total: {positions} positions, {:.2} MiB, {:.2} s (build and statistics)",
        positions as f64 / (1 << 20) as f64,
        all.elapsed().as_secs_f64()
    );
    if check {
        let start = Instant::now();
        let errors: usize = CLASSES
            .iter()
            .flat_map(|&(a, b)| [(a, b), (b, a)])
            .map(|(a, b)| check_table::<R>(a, b))
            .sum();
        println!(
            "check: {errors} disagreements ({:.1} s)",
            start.elapsed().as_secs_f64()
        );
        if errors > 0 {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Prints the statistics of the table `a v b`; returns its number of positions.
fn stats_line<R: Rules>(a: u32, b: u32) -> u64 {
    let s = endgame::stats::<R>(a, b).expect("a supported split");
    let pct = |n: u64| 100.0 * n as f64 / s.positions as f64;
    println!(
        "    {a}v{b} to move: win {:.2} % ({}), draw {:.2} % ({}), loss {:.2} % ({}); \
         longest win {}, longest loss {}, most plies to a capture {}",
        pct(s.wins),
        s.wins,
        pct(s.draws),
        s.draws,
        pct(s.losses),
        s.losses,
        s.longest_win,
        s.longest_loss,
        s.longest_to_capture
    );
    s.positions
}

/// A position with `a` White kings to move against `b` Black kings.
fn some_position(a: u32, b: u32) -> Position {
    let us = (1u32 << a) - 1;
    kings(us, ((1u32 << b) - 1) << 28, Color::White)
}

/// The position with the side to move's kings on `us` and the other side's on `them` (square
/// indices), `turn` to move.
fn kings(us: u32, them: u32, turn: Color) -> Position {
    let mut setup = Setup::empty();
    setup.turn = turn;
    for (set, color) in [(us, turn), (them, !turn)] {
        for sq in Square::ALL {
            if set & 1 << sq.index() != 0 {
                let role = Role::King;
                setup.set(sq, Some(Piece { color, role }));
            }
        }
    }
    Position::from_setup(&setup).expect("at most five pieces")
}

/// Compares every position of the table `a v b` (both colours to move) with its successors;
/// returns the number of disagreements.
fn check_table<R: Rules>(a: u32, b: u32) -> usize {
    let mut errors = 0;
    for us in small_sets(a, 0) {
        for them in small_sets(b, us) {
            for turn in Color::ALL {
                let pos = kings(us, them, turn);
                let stored = endgame::probe::<R>(&pos);
                let computed = pos
                    .moves::<R>()
                    .iter()
                    .map(|&m| endgame::probe::<R>(&pos.after(m)).map(Value::before))
                    .max_by_key(|v| v.map(key))
                    .unwrap_or(Some(Value::Loss(0)));
                if stored != computed {
                    errors += 1;
                    if errors <= 10 {
                        println!("  {pos:?}: stored {stored:?}, successors say {computed:?}");
                    }
                }
            }
        }
    }
    errors
}

/// The sets of `k` squares avoiding `taken`, as masks of square indices.
fn small_sets(k: u32, taken: u32) -> Vec<u32> {
    let mut out = vec![0u32];
    for _ in 0..k {
        out = out
            .iter()
            .flat_map(|&s| {
                let above = if s == 0 { 0 } else { 32 - s.leading_zeros() };
                (above..32).map(move |sq| s | 1 << sq)
            })
            .filter(|s| s & taken == 0)
            .collect();
    }
    out
}

/// Orders values from the side to move's view: larger is better.
fn key(v: Value) -> i64 {
    match v {
        Value::Win(d) => i64::MAX - i64::from(d),
        Value::Loss(d) => i64::MIN + i64::from(d),
        Value::Draw => 0,
    }
}
