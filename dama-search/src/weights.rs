//! Evaluation weights per variant, in 1/32 of a hundredth of a man (see [`crate::eval`]).
//!
//! The Italian table starts from the values of strategy.md and is refitted to self-play
//! results by `examples/tune.rs`; the other variants share the positional terms and value
//! flying kings far higher.

use dama_rules::Variant;

use crate::eval::feature::{self, COUNT};

const fn base(king: i32) -> [i32; COUNT] {
    let mut w = [0; COUNT];
    w[feature::MAN] = 100 * 32;
    w[feature::KING] = king * 32;
    w[feature::HAS_KING] = 20 * 32;
    w[feature::SAFE_KING] = 10 * 32;
    w[feature::MAN_MOBILITY] = 2 * 32;
    w[feature::KING_MOBILITY] = 32;
    w[feature::LOOSE] = -3 * 32;
    w[feature::TEMPO_CROWDED] = -1;
    w[feature::TEMPO_SPARSE] = 2;
    w[feature::TRADE] = 48;
    w[feature::IMBALANCE] = -2 * 32;
    w[feature::RUNAWAY] = 60 * 32;
    w[feature::RUNAWAY + 1] = 40 * 32;
    w[feature::RUNAWAY + 2] = 20 * 32;
    // Men: a little for each row advanced, more in the centre, less on the side edges.
    let mut i = 4;
    while i < 28 {
        let row = (i / 4) as i32;
        let col = 2 * (i % 4) as i32 + (row & 1);
        let mut v = (7 - row) * 2;
        if col == 0 || col == 7 {
            v -= 4;
        } else if col >= 2 && col <= 5 && row >= 2 && row <= 5 {
            v += 4;
        }
        w[feature::MAN_SQUARE + i - 4] = v * 32;
        i += 1;
    }
    // Kings: the centre, not the edges.
    let mut i = 0;
    while i < 32 {
        let row = (i / 4) as i32;
        let col = 2 * (i % 4) as i32 + (row & 1);
        let edge = row == 0 || row == 7 || col == 0 || col == 7;
        w[feature::KING_SQUARE + i] = if edge { -8 * 32 } else { 4 * 32 };
        i += 1;
    }
    // Back row: each guard is worth something, the pair 30/31 (the middle) most.
    let mut cfg = 0;
    while cfg < 16 {
        let guards = (cfg as u32).count_ones() as i32;
        let middle = if cfg & 0b0110 == 0b0110 { 8 } else { 0 };
        w[feature::BACK_ROW + cfg] = (guards * 6 + middle) * 32;
        cfg += 1;
    }
    w
}

static SHORT_KINGS: [i32; COUNT] = base(150);
static FLYING_KINGS: [i32; COUNT] = base(300);

/// The weight table of `variant`.
pub fn for_variant(variant: Variant) -> &'static [i32; COUNT] {
    match variant {
        Variant::Italian | Variant::English => &SHORT_KINGS,
        Variant::Spanish | Variant::Czech | Variant::Russian | Variant::Brazilian => &FLYING_KINGS,
    }
}
