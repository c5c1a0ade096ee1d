//! The values of docs/egtb.md's "Known endings" (stronger side to move, every legal placement)
//! and the verify pass on every table of at most 3 pieces (4 in the deep tests).

use dama_egtb::{solve::build_order, Material, Memory, Stats};
use dama_rules::variant::{Czech, Italian, Spanish};
use dama_rules::Rules;

fn stats<R: Rules>(t: &Memory<R>, name: &str) -> Stats {
    let m: Material = name.parse().unwrap();
    t.stats(m).unwrap()
}

fn percent(part: u64, s: &Stats) -> f64 {
    100.0 * part as f64 / s.positions as f64
}

#[test]
fn kings_only_endings_match_the_reference_solve() {
    let t = Memory::<Italian>::new(5).with_threads(2);
    // 2K v K: 34 draws, the longest win 33 plies.
    let s = stats(&t, "KK-K");
    assert_eq!(s.positions, 32 * 31 * 30 / 2);
    assert_eq!((s.wins, s.draws, s.losses), (14_846, 34, 0));
    assert_eq!(s.longest_win, 33);
    // 3K v K: all won, at most 12 plies to a capture.
    let s = stats(&t, "KKK-K");
    assert_eq!((s.wins, s.draws, s.losses), (143_840, 0, 0));
    assert_eq!(s.longest_win, 12);
    // 2K v 2K: 27 % / 71 %, 19.
    let s = stats(&t, "KK-KK");
    assert_eq!((s.wins, s.draws, s.losses), (58_361, 153_456, 3_943));
    assert_eq!(s.longest_win.max(s.longest_loss), 19);
    // 3K v 2K: 99.0 % / 0.9 %, 48.
    let s = stats(&t, "KKK-KK");
    assert_eq!((s.wins, s.draws, s.losses), (1_994_608, 18_090, 1_062));
    assert_eq!(s.longest_win.max(s.longest_loss), 48);
}

#[test]
fn endings_with_men_match_the_reference_solve() {
    let t = Memory::<Italian>::new(5).with_threads(2);
    // K+M v K: 95.5 % / 4.5 %, 13.
    let s = stats(&t, "KM-K");
    eprintln!("KM-K {s:?}");
    assert!((percent(s.wins, &s) - 95.5).abs() < 0.05, "{s:?}");
    assert!((percent(s.draws, &s) - 4.5).abs() < 0.05, "{s:?}");
    assert_eq!(s.longest_win, 13);
    // 2K v K+M: 50 % / 50 %, 43.
    let s = stats(&t, "KK-KM");
    eprintln!("KK-KM {s:?}");
    assert!((percent(s.wins, &s) - 50.0).abs() < 0.5, "{s:?}");
    assert!((percent(s.draws, &s) - 50.0).abs() < 0.5, "{s:?}");
    assert_eq!(s.longest_win.max(s.longest_loss), 43);
    // 3M v K: 99.7 % / 0.3 %.
    let s = stats(&t, "MMM-K");
    eprintln!("MMM-K {s:?}");
    assert!((percent(s.wins, &s) - 99.7).abs() < 0.05, "{s:?}");
    assert!((percent(s.draws, &s) - 0.3).abs() < 0.05, "{s:?}");
    // 2K+M v 2K: 87 % / 13 %, 69.
    let s = stats(&t, "KKM-KK");
    eprintln!("KKM-KK {s:?}");
    assert!((percent(s.wins, &s) - 87.0).abs() < 0.5, "{s:?}");
    assert!((percent(s.draws, &s) - 13.0).abs() < 0.5, "{s:?}");
    assert_eq!(s.longest_win.max(s.longest_loss), 69);
}

fn verify_all<R: Rules>(pieces: u32) {
    let t = Memory::<R>::new(pieces).with_threads(2);
    for m in build_order(pieces) {
        for m in [m, m.flip()] {
            let n = t
                .verify(m)
                .unwrap_or_else(|e| panic!("{}: {e}", R::VARIANT));
            assert!(n > 0, "{m}");
        }
    }
}

/// The DTW tables of up to 3 pieces and the kings-only classes of 4: every position's
/// distance to the end agrees with its successors' (for wins and losses a chain of strictly
/// decreasing distances to a position without a move). The same check over every table of
/// 4 pieces and the kings-only ones of 5 (14 M positions, about 45 s) is in the deep tests
/// (`cargo test -p dama-egtb --test deep`, run by `.ci/run`).
#[test]
fn italian_dtw_tables_of_three_pieces_and_four_kings_agree_with_their_successors() {
    let t = Memory::<Italian>::new(3).with_kings_only(4).dtw();
    for m in build_order(4) {
        if m.pieces() == 4 && m.men() > 0 {
            continue;
        }
        for m in [m, m.flip()] {
            let n = t.verify(m).unwrap_or_else(|e| panic!("{m}: {e}"));
            assert!(n > 0, "{m}");
        }
    }
    // 2K v K: the only conversion that keeps the win is the capture that ends the game, so
    // DTW and MTC agree (33, docs/egtb.md, "Known endings").
    assert_eq!(stats(&t, "KK-K").longest_win, 33);
}

/// Every position of every table of up to 3 pieces agrees with its successors in each full
/// variant, promotions into the kings' tables included; Italian's 4 pieces are in the deep
/// tests.
#[test]
fn every_table_of_three_pieces_agrees_with_its_successors() {
    verify_all::<Italian>(3);
    verify_all::<Spanish>(3);
    verify_all::<Czech>(3);
}
