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
        Variant::Italian => &ITALIAN_FITTED,
        Variant::English => &SHORT_KINGS,
        Variant::Spanish | Variant::Czech | Variant::Russian | Variant::Brazilian => &FLYING_KINGS,
    }
}

/// The hand-set table of `variant` (strategy.md's values), kept to compare with the fitted
/// one in matches.
pub fn hand_set(variant: Variant) -> &'static [i32; COUNT] {
    match variant {
        Variant::Italian | Variant::English => &SHORT_KINGS,
        Variant::Spanish | Variant::Czech | Variant::Russian | Variant::Brazilian => &FLYING_KINGS,
    }
}

/// Fitted by `examples/tune.rs` (511960 positions, K = 78.8).
static ITALIAN_FITTED: [i32; COUNT] = [
    3200, // man
    5302, // king
    478,  // has_king
    263,  // safe_king
    -38,  // man_mobility
    78,   // king_mobility
    -61,  // loose
    -5,   // tempo_crowded
    12,   // tempo_sparse
    65,   // trade
    -94,  // imbalance
    403,  // runaway_1
    -173, // runaway_2
    -813, // runaway_3
    735,  // man_sq5
    1091, // man_sq6
    1004, // man_sq7
    -15,  // man_sq8
    383,  // man_sq9
    612,  // man_sq10
    481,  // man_sq11
    517,  // man_sq12
    473,  // man_sq13
    108,  // man_sq14
    581,  // man_sq15
    718,  // man_sq16
    215,  // man_sq17
    -463, // man_sq18
    -249, // man_sq19
    -129, // man_sq20
    -153, // man_sq21
    -189, // man_sq22
    -346, // man_sq23
    -278, // man_sq24
    128,  // man_sq25
    -15,  // man_sq26
    237,  // man_sq27
    -132, // man_sq28
    -233, // king_sq1
    -178, // king_sq2
    -31,  // king_sq3
    64,   // king_sq4
    -76,  // king_sq5
    27,   // king_sq6
    300,  // king_sq7
    72,   // king_sq8
    -201, // king_sq9
    58,   // king_sq10
    278,  // king_sq11
    180,  // king_sq12
    380,  // king_sq13
    325,  // king_sq14
    324,  // king_sq15
    -178, // king_sq16
    572,  // king_sq17
    631,  // king_sq18
    474,  // king_sq19
    -251, // king_sq20
    427,  // king_sq21
    688,  // king_sq22
    103,  // king_sq23
    -203, // king_sq24
    -110, // king_sq25
    155,  // king_sq26
    -272, // king_sq27
    -244, // king_sq28
    122,  // king_sq29
    -115, // king_sq30
    177,  // king_sq31
    -27,  // king_sq32
    313,  // back_row_0000
    397,  // back_row_0001
    -472, // back_row_0010
    303,  // back_row_0011
    495,  // back_row_0100
    569,  // back_row_0101
    1004, // back_row_0110
    1793, // back_row_0111
    -245, // back_row_1000
    -208, // back_row_1001
    -55,  // back_row_1010
    382,  // back_row_1011
    206,  // back_row_1100
    763,  // back_row_1101
    468,  // back_row_1110
    1099, // back_row_1111
];
