//! Perft against published numbers: `tests/data/perft.txt` holds positions and leaf counts;
//! cases above a node cap are left to the benchmarks and to `.ci/run`'s release-mode check.

use dama::rules::notation::fen;
// The `_of` forms: compiled in dama-rules with its optimisation, not here without any.
use dama::rules::perft::{divide_of, perft, perft_of};
use dama::rules::{Position, Variant};

/// Largest leaf count checked in the test suite (about a second in the test profile).
const NODE_CAP: u64 = 25_000_000;

struct Case {
    variant: Variant,
    fen: String,
    depth: u32,
    nodes: u64,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../data/perft.txt");
    let mut out = Vec::new();
    let mut current: Option<(Variant, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            [first, ..] if first.starts_with('#') => {}
            ["pos", variant, fen] => {
                let variant = variant.parse().expect("known variant");
                current = Some((variant, fen.to_string()));
            }
            ["perft", depth, nodes] => {
                let (variant, fen) = current.clone().expect("a pos line first");
                out.push(Case {
                    variant,
                    fen,
                    depth: depth.parse().expect("depth"),
                    nodes: nodes.parse().expect("nodes"),
                });
            }
            _ => panic!("perft.txt line {}: {line:?}", n + 1),
        }
    }
    out
}

#[test]
fn published_start_position_numbers() {
    let mut checked = 0;
    for case in cases().iter().filter(|c| c.nodes <= NODE_CAP) {
        let pos = fen::parse(&case.fen).expect("valid FEN in perft.txt");
        let got = perft_of(case.variant, &pos, case.depth);
        assert_eq!(
            got, case.nodes,
            "{} {} depth {}",
            case.variant, case.fen, case.depth
        );
        checked += 1;
    }
    // Every variant through depth 10 at least.
    assert!(checked >= 6 * 10, "only {checked} cases under the cap");
}

#[test]
fn italian_start_through_depth_9() {
    let expected = [7, 49, 302, 1469, 7361, 36473, 177532, 828783, 3860875];
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(
            perft::<dama::rules::variant::Italian>(&Position::start(), d as u32 + 1),
            n
        );
    }
}

#[test]
fn divide_sums_to_perft() {
    for variant in Variant::ALL {
        let pos = Position::start();
        let parts = divide_of(variant, &pos, 5);
        let total: u64 = parts.iter().map(|&(_, n)| n).sum();
        assert_eq!(parts.len(), 7);
        assert_eq!(total, perft_of(variant, &pos, 5), "{variant}");
    }
}

/// The tables of `docs/perft.md`: (variant, FEN, depth) → leaves. A table belongs to the
/// FEN written in backquotes on the line before it ends with a colon, the start position
/// before any such line; an empty cell is a count the page does not give.
fn documented() -> std::collections::BTreeMap<(String, String, u32), u64> {
    let text = include_str!("../../docs/perft.md");
    let mut out = std::collections::BTreeMap::new();
    let mut fen = "W:W21-32:B1-12".to_string();
    let mut header: Vec<String> = Vec::new();
    for line in text.lines() {
        if let Some(quoted) = line.strip_prefix('`').and_then(|l| l.strip_suffix("`:")) {
            fen = quoted.to_string();
            continue;
        }
        let Some(row) = line.strip_prefix('|') else {
            header.clear();
            continue;
        };
        let cells: Vec<String> = row
            .trim_end_matches('|')
            .split('|')
            .map(|c| c.trim().to_ascii_lowercase())
            .collect();
        if cells[0] == "depth" {
            header = cells;
            continue;
        }
        let Ok(depth) = cells[0].parse::<u32>() else {
            continue; // the |---:| line
        };
        for (variant, cell) in header.iter().zip(&cells).skip(1) {
            if !cell.is_empty() {
                let n = cell.parse().expect("a count in docs/perft.md");
                out.insert((variant.clone(), fen.clone(), depth), n);
            }
        }
    }
    out
}

#[test]
fn docs_perft_shows_exactly_the_numbers_of_the_data_file() {
    let data: std::collections::BTreeMap<_, _> = cases()
        .into_iter()
        .map(|c| ((c.variant.name().to_string(), c.fen, c.depth), c.nodes))
        .collect();
    let docs = documented();
    assert!(docs.len() > 6 * 13, "only {} counts read", docs.len());
    for (key, n) in &data {
        assert_eq!(docs.get(key), Some(n), "docs/perft.md for {key:?}");
    }
    for (key, n) in &docs {
        assert_eq!(data.get(key), Some(n), "tests/data/perft.txt for {key:?}");
    }
}
