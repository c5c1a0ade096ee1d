//! The exhaustive checks of the tables, too slow for every `cargo test` (about a minute at
//! opt-level 3): every position of every Italian table of up to 4 pieces, WDL and DTW, and
//! the kings-only DTW classes of 5, against their successors. Not run by `cargo test
//! --workspace` (`test = false` in Cargo.toml); `.ci/run` runs them with
//! `cargo test -p dama-egtb --test deep`. The lean suite checks the same way up to 3 pieces.

use dama_egtb::{solve::build_order, Memory};
use dama_rules::variant::Italian;

/// The DTW tables: every position's distance to the end agrees with its successors' (for
/// wins and losses a chain of strictly decreasing distances to a position without a move:
/// consistency here is correctness), up to 4 pieces and the kings-only classes of 5: 14 M
/// positions, the check that the root's DTW play rests on; the 5-piece classes with men are
/// left to `dama egtb convert` (docs/egtb.md).
#[test]
fn every_italian_dtw_table_agrees_with_its_successors() {
    let t = Memory::<Italian>::new(4).with_kings_only(5).dtw();
    for m in build_order(5) {
        if m.pieces() == 5 && m.men() > 0 {
            continue;
        }
        for m in [m, m.flip()] {
            let n = t.verify(m).unwrap_or_else(|e| panic!("{m}: {e}"));
            assert!(n > 0, "{m}");
        }
    }
    // 2K v K: the only conversion that keeps the win is the capture that ends the game, so
    // DTW and MTC agree (33, docs/egtb.md, "Known endings"). 3K v K: MTC's 12 counts a
    // sacrifice to 2K v K as a conversion, and the end comes later; 3K v 2K likewise beyond
    // its MTC of 48.
    for (class, mtc, same) in [
        ("KK-K", 33, true),
        ("KKK-K", 12, false),
        ("KKK-KK", 48, false),
    ] {
        let s = t.stats(class.parse().unwrap()).unwrap();
        assert!(
            s.longest_win == mtc || (!same && s.longest_win > mtc),
            "{class} {s:?}"
        );
    }
}

/// Every position of every Italian table of up to 4 pieces agrees with its successors: the
/// tables the engine's play and the web page's verdicts rest on, the men's promotions into
/// kings' tables included.
#[test]
fn every_italian_table_of_four_pieces_agrees_with_its_successors() {
    let t = Memory::<Italian>::new(4).with_threads(2);
    for m in build_order(4) {
        for m in [m, m.flip()] {
            let n = t.verify(m).unwrap_or_else(|e| panic!("{m}: {e}"));
            assert!(n > 0, "{m}");
        }
    }
}
