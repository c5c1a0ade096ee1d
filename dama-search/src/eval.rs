//! Static evaluation: a weighted sum of position features plus, where the variant's weights
//! have them, patterns of men (see [`crate::pattern`]); the same code for every variant with
//! one table per variant (see [`crate::weights`]).
//!
//! Features are counted for White and for Black on the board turned 180° (so both are seen
//! "moving up"), and White's minus Black's is scored: a position and its colour-flipped mirror
//! score the same for the side to move by construction. The patterns are symmetric by the
//! way their tables are tied (see [`crate::pattern`]). Each pattern weight has a middle-game
//! and an endgame value, blended by [`phase`]. The features are public (see [`features`]) so
//! that the weights can be fitted to game results (`dama tune fit`, `dama_lab::tune`).

use dama_rules::{Position, Rules, Variant};

use crate::pattern::{self, ENTRIES};
use crate::weights::{self, Weights};

/// Weights are in 1/32 of a hundredth of a man, so that small terms can be tuned finely.
pub const SCALE: i32 = 32;

/// The padded 36-bit layout's playing squares (see `dama_rules::Bitboard`).
const BOARD: u64 = 0xF_7FBF_DFEF;
/// White's back row (squares 29..32).
const BACK_ROW: u64 = 0xF << 32;

/// Feature indices. Per-side features count White's minus Black's.
pub mod feature {
    /// Men.
    pub const MAN: usize = 0;
    /// Kings.
    pub const KING: usize = 1;
    /// Having at least one king.
    pub const HAS_KING: usize = 2;
    /// Kings when the opponent has none (in Italian no man can take them).
    pub const SAFE_KING: usize = 3;
    /// Quiet moves of men.
    pub const MAN_MOBILITY: usize = 4;
    /// One-step moves of kings.
    pub const KING_MOBILITY: usize = 5;
    /// Men with an empty square behind them on a diagonal (a man in front can take them).
    pub const LOOSE: usize = 6;
    /// Tempo (rows advanced by the men) times the number of pieces on the board.
    pub const TEMPO_CROWDED: usize = 7;
    /// Tempo times the number of missing pieces (24 minus those on the board).
    pub const TEMPO_SPARSE: usize = 8;
    /// Material lead (men and kings) times the number of missing pieces: trade when ahead.
    pub const TRADE: usize = 9;
    /// Men standing on their own long side minus the other (left-right balance, absolute).
    pub const IMBALANCE: usize = 10;
    /// Runaway men (no enemy piece in the cone ahead), by rows left to go: 1, 2, 3.
    pub const RUNAWAY: usize = 11;
    /// Men by square (squares 5..=28 as White sees them; the back row has its own table).
    pub const MAN_SQUARE: usize = 14;
    /// Kings by square (1..=32).
    pub const KING_SQUARE: usize = 38;
    /// The back row's occupation (squares 29..32 as four bits).
    pub const BACK_ROW: usize = 70;
    /// Number of features.
    pub const COUNT: usize = 86;

    /// A short name per feature, for the tuner's output.
    pub fn name(i: usize) -> String {
        match i {
            MAN => "man".into(),
            KING => "king".into(),
            HAS_KING => "has_king".into(),
            SAFE_KING => "safe_king".into(),
            MAN_MOBILITY => "man_mobility".into(),
            KING_MOBILITY => "king_mobility".into(),
            LOOSE => "loose".into(),
            TEMPO_CROWDED => "tempo_crowded".into(),
            TEMPO_SPARSE => "tempo_sparse".into(),
            TRADE => "trade".into(),
            IMBALANCE => "imbalance".into(),
            RUNAWAY..MAN_SQUARE => format!("runaway_{}", i - RUNAWAY + 1),
            MAN_SQUARE..KING_SQUARE => format!("man_sq{}", i - MAN_SQUARE + 5),
            KING_SQUARE..BACK_ROW => format!("king_sq{}", i - KING_SQUARE + 1),
            _ => format!("back_row_{:04b}", i - BACK_ROW),
        }
    }
}

/// Where the features go: summed with weights (search) or recorded (tuning).
trait Sink {
    fn add(&mut self, feature: usize, count: i32);
}

struct Weighted<'a> {
    weights: &'a [i32; feature::COUNT],
    total: i32,
}

impl Sink for Weighted<'_> {
    #[inline(always)]
    fn add(&mut self, feature: usize, count: i32) {
        self.total += self.weights[feature] * count;
    }
}

struct Counts([i32; feature::COUNT]);

impl Sink for Counts {
    fn add(&mut self, feature: usize, count: i32) {
        self.0[feature] += count;
    }
}

/// Tables indexed by bit of the padded layout.
struct Geometry {
    /// Square index 0..32 of each bit (0 for ghost bits, never used).
    index: [u8; 36],
    /// Squares ahead of a White man on the bit, in its promotion cone.
    cone: [u64; 36],
}

const fn geometry() -> Geometry {
    let mut g = Geometry {
        index: [0; 36],
        cone: [0; 36],
    };
    let mut b = 0;
    while b < 36 {
        if BOARD >> b & 1 == 1 {
            let i = b - (b + 4) / 9;
            g.index[b] = i as u8;
            let (row, col) = coords(i);
            let mut c = 0;
            let mut cone = 0u64;
            while c < 36 {
                if BOARD >> c & 1 == 1 {
                    let (r2, c2) = coords(c - (c + 4) / 9);
                    let dc = c2.abs_diff(col);
                    if r2 < row && dc <= row - r2 {
                        cone |= 1 << c;
                    }
                }
                c += 1;
            }
            g.cone[b] = cone;
        }
        b += 1;
    }
    g
}

/// Row (0 = top) and column of square index `i`.
const fn coords(i: usize) -> (usize, usize) {
    let row = i / 4;
    (row, 2 * (i % 4) + (row & 1))
}

static GEOMETRY: Geometry = geometry();

/// The 36 bits turned 180°: Black's pieces seen as White's.
#[inline(always)]
const fn turn(b: u64) -> u64 {
    b.reverse_bits() >> 28
}

/// One side's pieces, oriented so that its men move up (towards bit 0).
#[derive(Copy, Clone)]
struct Side {
    men: u64,
    kings: u64,
}

#[inline(always)]
fn side_terms<K: Sink>(us: Side, them: Side, sign: i32, sink: &mut K) {
    let g = &GEOMETRY;
    let occupied = us.men | us.kings | them.men | them.kings;
    let empty = !occupied & BOARD;
    let kings = us.kings.count_ones() as i32;
    sink.add(feature::MAN, sign * us.men.count_ones() as i32);
    sink.add(feature::KING, sign * kings);
    if kings > 0 {
        sink.add(feature::HAS_KING, sign);
        if them.kings == 0 {
            sink.add(feature::SAFE_KING, sign * kings);
        }
    }
    let man_moves = ((us.men >> 5) & empty).count_ones() + ((us.men >> 4) & empty).count_ones();
    sink.add(feature::MAN_MOBILITY, sign * man_moves as i32);
    if us.kings != 0 {
        let k = us.kings;
        let king_moves = ((k >> 5) & empty).count_ones()
            + ((k >> 4) & empty).count_ones()
            + ((k << 4) & empty).count_ones()
            + ((k << 5) & empty).count_ones();
        sink.add(feature::KING_MOBILITY, sign * king_moves as i32);
    }
    let loose = us.men & ((empty >> 4) | (empty >> 5)) & !BACK_ROW;
    sink.add(feature::LOOSE, sign * loose.count_ones() as i32);

    let mut tempo = 0;
    let mut men = us.men & !BACK_ROW;
    let enemies = them.men | them.kings;
    while men != 0 {
        let b = men.trailing_zeros() as usize;
        men &= men - 1;
        let i = g.index[b] as usize;
        let row = i / 4;
        tempo += 7 - row as i32;
        sink.add(feature::MAN_SQUARE + i - 4, sign);
        if row <= 3 && g.cone[b] & enemies == 0 {
            sink.add(feature::RUNAWAY + row - 1, sign);
        }
    }
    let pieces = occupied.count_ones() as i32;
    sink.add(feature::TEMPO_CROWDED, sign * tempo * pieces);
    sink.add(feature::TEMPO_SPARSE, sign * tempo * (24 - pieces));
    let mut k = us.kings;
    while k != 0 {
        let b = k.trailing_zeros() as usize;
        k &= k - 1;
        sink.add(feature::KING_SQUARE + g.index[b] as usize, sign);
    }
    sink.add(feature::BACK_ROW + (us.men >> 32) as usize, sign);
    // Left half: columns 0..3.
    const LEFT: u64 =
        0x3 | 0x3 << 5 | 0x3 << 9 | 0x3 << 14 | 0x3 << 18 | 0x3 << 23 | 0x3 << 27 | 0x3 << 32;
    let left = (us.men & LEFT).count_ones() as i32;
    let right = (us.men & !LEFT).count_ones() as i32;
    sink.add(feature::IMBALANCE, sign * (left - right).abs());
}

#[inline(always)]
fn terms<K: Sink>(pos: &Position, sink: &mut K) {
    use dama_rules::Color::{Black, White};
    let white = Side {
        men: pos.men(White).bits(),
        kings: pos.kings(White).bits(),
    };
    let black = Side {
        men: turn(pos.men(Black).bits()),
        kings: turn(pos.kings(Black).bits()),
    };
    side_terms(white, black, 1, sink);
    side_terms(black, white, -1, sink);
    let w = pos.pieces(White).count() as i32;
    let b = pos.pieces(Black).count() as i32;
    sink.add(feature::TRADE, (w - b) * (24 - w - b));
}

/// The features of `pos`, White's minus Black's (from White's point of view, whoever is to
/// move).
///
/// ```
/// use dama_rules::Position;
/// use dama_search::eval::{features, feature};
/// let f = features(&Position::start());
/// assert_eq!(f[feature::MAN], 0);
/// ```
pub fn features(pos: &Position) -> [i32; feature::COUNT] {
    let mut counts = Counts([0; feature::COUNT]);
    terms(pos, &mut counts);
    counts.0
}

/// The evaluation of `pos` in hundredths of a man for the side to move, with `variant`'s
/// weights. Positions with a capture pending are not meant to be evaluated (the search
/// resolves captures first).
///
/// ```
/// use dama_rules::{notation::fen, Variant};
/// use dama_search::eval::evaluate;
/// // White is a man up.
/// let pos = fen::parse("W:W21,22,23:B1,2").unwrap();
/// assert!(evaluate(&pos, Variant::Italian) > 50);
/// ```
pub fn evaluate(pos: &Position, variant: Variant) -> i32 {
    dama_rules::with_rules!(variant, R => evaluate_for::<R>(pos))
}

/// [`evaluate`] for a rules type known at compile time.
#[inline]
pub fn evaluate_for<R: Rules>(pos: &Position) -> i32 {
    evaluate_with(pos, weights::for_variant(R::VARIANT))
}

/// The phase of `pos`: its pieces, at most [`PHASES`]. A pattern's weight is its middle-game
/// value times `phase / PHASES` plus its endgame value times the rest.
#[inline(always)]
pub fn phase(pos: &Position) -> i32 {
    (pos.occupied().count() as i32).min(PHASES)
}

/// The phase of a full board.
pub const PHASES: i32 = 24;

/// The patterns' part of the evaluation, from White's point of view, in the units of the
/// weights.
#[inline(always)]
fn patterns(pos: &Position, table: &[[i16; 2]]) -> i32 {
    let (mut mg, mut eg) = (0i32, 0i32);
    for (w, &i) in pattern::indices(pos).iter().enumerate() {
        if let Some(&[m, e]) = table.get(w * ENTRIES + usize::from(i)) {
            mg += i32::from(m);
            eg += i32::from(e);
        }
    }
    let p = phase(pos);
    (mg * p + eg * (PHASES - p)) / PHASES
}

/// [`evaluate`] with the weights `weights` (the search's hot path).
#[inline]
pub fn evaluate_with(pos: &Position, weights: &Weights) -> i32 {
    if let Some(net) = weights.net() {
        return net.evaluate(&net.refresh(pos), pos.turn());
    }
    let mut sum = Weighted {
        weights: &weights.features,
        total: 0,
    };
    terms(pos, &mut sum);
    if let Some(table) = weights.pattern_table() {
        sum.total += patterns(pos, table);
    }
    let white = damp(pos, sum.total / SCALE);
    match pos.turn() {
        dama_rules::Color::White => white,
        dama_rules::Color::Black => -white,
    }
}

/// Scales an advantage without material down when the trailing side has a king and the
/// leader has three pieces or fewer (such endings are mostly drawn: docs/strategy.md,
/// "Material").
#[inline(always)]
fn damp(pos: &Position, white: i32) -> i32 {
    use dama_rules::Color::{Black, White};
    let (leader, trailer) = if white > 0 {
        (White, Black)
    } else {
        (Black, White)
    };
    let lead_pieces = pos.pieces(leader).count();
    if lead_pieces <= 3 && lead_pieces <= pos.pieces(trailer).count() && pos.kings(trailer).any() {
        white / 4
    } else {
        white
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::notation::fen;

    #[test]
    fn mirror_scores_the_same_for_the_side_to_move() {
        for f in [
            "W:W21,22,23,25,K30:B1,2,K9,12",
            "B:W18,22,23,24,29,31:B3,5,6,7,11,12",
            "W:WK4,26:BK28,9,10",
        ] {
            let pos = fen::parse(f).unwrap();
            for v in Variant::ALL {
                assert_eq!(evaluate(&pos, v), evaluate(&pos.flip(), v), "{f} {v}");
            }
        }
    }

    /// Positions along a random game, with a seed.
    fn random_positions(seed: u64, plies: usize) -> Vec<Position> {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut game = dama_rules::Game::new();
        let mut out = vec![*game.position()];
        for _ in 0..plies {
            let legal = game.legal_moves().clone();
            if legal.is_empty() || game.outcome().is_some() {
                break;
            }
            let m = legal[rng.random_range(0..legal.len())];
            game.play(m).expect("a legal move");
            out.push(*game.position());
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        #[test]
        fn pattern_indices_match_the_square_by_square_count(seed in 0u64..u64::MAX) {
            for pos in random_positions(seed, 120) {
                proptest::prop_assert_eq!(pattern::indices(&pos), pattern::indices_by_squares(&pos));
            }
        }

        #[test]
        fn the_pattern_evaluation_is_colour_symmetric(seed in 0u64..u64::MAX) {
            for pos in random_positions(seed, 120) {
                let flipped = pos.flip();
                let w = weights::with_patterns(Variant::Italian);
                proptest::prop_assert_eq!(evaluate_with(&pos, w), evaluate_with(&flipped, w));
                let a = pattern::indices(&pos);
                let b = pattern::indices(&flipped);
                for k in 0..pattern::WINDOWS {
                    proptest::prop_assert_eq!(pattern::mirror(a[k]), b[pattern::WINDOWS - 1 - k]);
                }
            }
        }
    }

    #[test]
    fn patterns_change_the_evaluation() {
        // The embedded file's patterns are not all zero, and they matter on a real position.
        let pos = fen::parse("W:W18,22,23,24,29,31:B3,5,6,7,11,12").unwrap();
        let with = evaluate_with(&pos, weights::with_patterns(Variant::Italian));
        let without = evaluate_with(&pos, weights::classic(Variant::Italian));
        assert!(weights::with_patterns(Variant::Italian).has_patterns());
        assert_ne!(with, without);
    }

    #[test]
    fn start_position_is_level() {
        assert_eq!(evaluate(&Position::start(), Variant::Italian), 0);
        assert!(features(&Position::start()).iter().all(|&c| c == 0));
    }

    #[test]
    fn cone_of_a_man_on_the_second_row() {
        // A White man on square 5 (bit 5) sees squares 1 and 2 ahead of it.
        assert_eq!(GEOMETRY.cone[5], 0b11);
    }
}
