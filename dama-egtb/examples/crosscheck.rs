//! Table files against an independent solver (`tests/it/support/independent.rs`, which shares
//! nothing with `dama-egtb` but the `dama-rules` move generator): every position of a set
//! closed under moves, either side to move, captures pending included, is solved from
//! scratch and compared with what the files in DIR say (value and MTC distance).
//!
//! `cargo run --release -p dama-egtb --example crosscheck -- DIR SET...`
//!
//! A SET is a number N (every Italian position of at most N pieces) or a class name such as
//! `KKM-KK` (that class and every class play can reach from it). Exit status 1 on any
//! disagreement, which is printed.

#[path = "../tests/it/support/independent.rs"]
mod independent;

use std::time::Instant;

use dama_egtb::{Tables, Value};
use dama_rules::variant::Italian;
use dama_rules::Variant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), true) = (args.first(), args.len() > 1) else {
        eprintln!("usage: crosscheck DIR SET...   (SET: a piece count N, or a class like KKM-KK)");
        std::process::exit(2);
    };
    let tables = match Tables::open(dir) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut bad = 0u64;
    for set in &args[1..] {
        let t = Instant::now();
        let keys = if let Ok(n) = set.parse::<u32>() {
            independent::enumerate(n, &|_| true)
        } else if let Some(from) = independent::counts(set) {
            let n = from.iter().sum();
            independent::enumerate(n, &|c| independent::reachable(from, c))
        } else {
            eprintln!("{set:?}: expected a piece count or a class like KKM-KK");
            std::process::exit(2);
        };
        let solved = independent::solve::<Italian>(keys);
        let solve_s = t.elapsed().as_secs_f64();
        let (mut wins, mut draws, mut losses, mut captures, mut longest) = (0u64, 0, 0, 0, 0);
        for (&k, &expected) in solved.keys.iter().zip(&solved.values) {
            let pos = independent::position(k);
            match expected {
                Value::Win(d) => {
                    wins += 1;
                    longest = longest.max(d);
                }
                Value::Draw => draws += 1,
                Value::Loss(_) => losses += 1,
            }
            if pos.must_capture::<Italian>() {
                captures += 1;
            }
            let got = tables.probe(Variant::Italian, &pos);
            if !matches!(got, Ok(Some(v)) if v == expected) {
                bad += 1;
                if bad <= 20 {
                    println!("{}: independent {expected}, tables {got:?}", pos.fen());
                }
            }
        }
        println!(
            "{set}: {} positions (both sides to move; {captures} with a capture pending): \
             {wins} wins, {draws} draws, {losses} losses, longest win {longest}; \
             solved in {solve_s:.1} s, compared in {:.1} s; disagreements so far: {bad}",
            solved.keys.len(),
            t.elapsed().as_secs_f64() - solve_s,
        );
    }
    if bad > 0 {
        std::process::exit(1);
    }
}
