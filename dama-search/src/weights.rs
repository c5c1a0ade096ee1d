//! Evaluation weights per variant, in 1/32 of a hundredth of a man (see [`crate::eval`]).
//!
//! A [`Weights`] is a table of feature weights plus, optionally, the pattern tables (see
//! [`crate::pattern`]). Every variant's weights are data: the files `italian.weights` (the
//! default: features only), `italian-patterns.weights` (with patterns, the knob
//! `patterns=1`), `spanish.weights`, `czech.weights`, `english.weights`, `russian.weights`
//! and `brazilian.weights`, written by `dama tune fit` and embedded in the binary. The
//! non-Italian fits started from the hand-set values of docs/strategy.md (with flying kings
//! valued far higher), which the knob `hand=1` still plays.
//!
//! # The weights file (version 1)
//!
//! All integers little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `DAMAEVAL` |
//! | 4 | version, `1` |
//! | 4 | number of features, [`COUNT`] |
//! | 4 | number of pattern windows stored, [`FREE_WINDOWS`] (0: no patterns) |
//! | 4 | entries per window, [`ENTRIES`] |
//! | 4 × features | feature weights, `i32` |
//! | 4 × windows × entries | per window and index: middle-game then endgame weight, `i16` |
//! | 8 | FNV-1a 64 checksum of every byte before it |
//!
//! Only windows 0..=4 are stored; the others are their mirrors, and window 4 must be its own
//! mirror with the sign changed (checked at load, as are the sizes and the checksum).
//!
//! ```
//! use dama_rules::Variant;
//! use dama_search::weights::{self, Weights};
//! let italian = weights::with_patterns(Variant::Italian);
//! assert!(italian.has_patterns());
//! // A copy through the file format is the same table; one changed byte is refused.
//! let mut bytes = italian.to_bytes();
//! assert_eq!(&Weights::from_bytes(&bytes).unwrap(), italian);
//! bytes[100] ^= 1;
//! assert!(Weights::from_bytes(&bytes).unwrap_err().to_string().contains("checksum"));
//! ```

use std::sync::{Arc, LazyLock};

use dama_rules::Variant;

use crate::eval::feature::{self, COUNT};
use crate::nnue::Network;
use crate::pattern::{free_slot, mirror, ENTRIES, FREE_WINDOWS, WINDOWS};
use crate::Error;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"DAMAEVAL";
/// The file format's version.
pub const VERSION: u32 = 1;

/// A variant's evaluation weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// The weight of each feature of [`crate::eval::feature`].
    pub features: [i32; COUNT],
    /// The nine windows' tables, `[middle game, endgame]` at `window * ENTRIES + index`.
    patterns: Option<Box<[[i16; 2]]>>,
    /// A network that evaluates in place of the features (see [`crate::nnue`]).
    net: Option<Arc<Network>>,
}

impl Weights {
    /// Feature weights only, no patterns.
    pub const fn classic(features: [i32; COUNT]) -> Weights {
        Weights {
            features,
            patterns: None,
            net: None,
        }
    }

    /// A network, with the fitted features of its variant beside it (what the search uses
    /// when the network is off).
    pub fn with_net(net: Network) -> Weights {
        Weights {
            features: for_variant(net.variant).features,
            patterns: None,
            net: Some(Arc::new(net)),
        }
    }

    /// The network, if these weights are one.
    #[inline(always)]
    pub fn net(&self) -> Option<&Network> {
        self.net.as_deref()
    }

    /// Feature weights and the free pattern windows' tables (windows 0..=4, `[middle game,
    /// endgame]` by index); the other windows are mirrored from them, and window 4's indices
    /// above their mirror are set from the mirror (with the sign changed).
    pub fn with_patterns(features: [i32; COUNT], free: &[[[i16; 2]; ENTRIES]]) -> Weights {
        let mut table = vec![[0i16; 2]; WINDOWS * ENTRIES].into_boxed_slice();
        for w in 0..WINDOWS {
            for i in 0..ENTRIES as u16 {
                if let Some((fw, fi, sign)) = free_slot(w, i) {
                    let [m, e] = free.get(fw).map_or([0, 0], |t| t[usize::from(fi)]);
                    let s = sign as i16;
                    table[w * ENTRIES + usize::from(i)] =
                        [m.saturating_mul(s), e.saturating_mul(s)];
                }
            }
        }
        Weights {
            features,
            patterns: Some(table),
            net: None,
        }
    }

    /// Whether the pattern tables are there.
    pub fn has_patterns(&self) -> bool {
        self.patterns.is_some()
    }

    /// The pattern tables (nine windows of [`ENTRIES`]), if any.
    #[inline(always)]
    pub(crate) fn pattern_table(&self) -> Option<&[[i16; 2]]> {
        self.patterns.as_deref()
    }

    /// The `[middle game, endgame]` weights of `index` in `window` (zero without patterns).
    pub fn pattern(&self, window: usize, index: u16) -> [i16; 2] {
        self.patterns
            .as_deref()
            .and_then(|t| t.get(window * ENTRIES + usize::from(index)).copied())
            .unwrap_or([0, 0])
    }

    /// The weights in the file format (see the module docs; a network in its own format,
    /// [`crate::nnue`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        if let Some(net) = &self.net {
            return net.to_bytes();
        }
        let windows = if self.patterns.is_some() {
            FREE_WINDOWS
        } else {
            0
        };
        let mut out = Vec::with_capacity(28 + 4 * COUNT + 4 * windows * ENTRIES + 8);
        out.extend_from_slice(MAGIC);
        for n in [VERSION, COUNT as u32, windows as u32, ENTRIES as u32] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for w in self.features {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for w in 0..windows {
            for i in 0..ENTRIES as u16 {
                for v in self.pattern(w, i) {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a weights file (one `dama tune fit --out` wrote).
    ///
    /// # Errors
    /// [`Error::BadWeights`] naming the file when it cannot be read or is not a weights file
    /// (see [`Weights::from_bytes`]).
    pub fn read(path: &std::path::Path) -> Result<Weights, Error> {
        let named = |why: String| Error::BadWeights {
            why: format!("{}: {why}", path.display()),
        };
        let bytes = std::fs::read(path).map_err(|e| named(format!("cannot read it: {e}")))?;
        Weights::from_bytes(&bytes).map_err(|e| match e {
            Error::BadWeights { why } => named(why),
            other => other,
        })
    }

    /// Reads the file format (see the module docs).
    ///
    /// # Errors
    /// [`Error::BadWeights`] when the bytes are not a version-1 weights file of this build's
    /// shape, the checksum does not match, or the middle window is not colour-symmetric; a
    /// file starting with `DAMANNUE` is read as a network ([`Network::from_bytes`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Weights, Error> {
        let bad = |why: String| Error::BadWeights { why };
        if bytes.starts_with(crate::nnue::MAGIC) {
            return Network::from_bytes(bytes).map(Weights::with_net);
        }
        if bytes.len() < 36 || &bytes[..8] != MAGIC {
            return Err(bad(format!(
                "the file does not start with \"DAMAEVAL\" and a header ({} bytes): expected \
                 a dama weights file",
                bytes.len()
            )));
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let (version, count, windows, entries) = (word(8), word(12), word(16), word(20));
        if version != VERSION {
            return Err(bad(format!(
                "version {version}: expected version {VERSION}"
            )));
        }
        if count as usize != COUNT
            || entries as usize != ENTRIES
            || (windows != 0 && windows as usize != FREE_WINDOWS)
        {
            return Err(bad(format!(
                "{count} features, {windows} windows of {entries} entries: expected {COUNT} \
                 features and 0 or {FREE_WINDOWS} windows of {ENTRIES}"
            )));
        }
        let windows = windows as usize;
        let body = 24 + 4 * COUNT + 4 * windows * ENTRIES;
        if bytes.len() != body + 8 {
            return Err(bad(format!(
                "{} bytes: expected {} for this header",
                bytes.len(),
                body + 8
            )));
        }
        let stored = u64::from_le_bytes(bytes[body..].try_into().expect("8 bytes"));
        let computed = fnv1a(&bytes[..body]);
        if stored != computed {
            return Err(bad(format!(
                "checksum {stored:016x} does not match the contents ({computed:016x}): the \
                 file is corrupt"
            )));
        }
        let mut features = [0i32; COUNT];
        for (i, f) in features.iter_mut().enumerate() {
            *f = word(24 + 4 * i) as i32;
        }
        if windows == 0 {
            return Ok(Weights::classic(features));
        }
        let half = |at: usize| i16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let mut free = vec![[[0i16; 2]; ENTRIES]; FREE_WINDOWS];
        for (w, table) in free.iter_mut().enumerate() {
            for (i, e) in table.iter_mut().enumerate() {
                let at = 24 + 4 * COUNT + 4 * (w * ENTRIES + i);
                *e = [half(at), half(at + 2)];
            }
        }
        for i in 0..ENTRIES as u16 {
            let [m, e] = free[4][usize::from(i)];
            let [mm, me] = free[4][usize::from(mirror(i))];
            if i32::from(m) != -i32::from(mm) || i32::from(e) != -i32::from(me) {
                return Err(bad(format!(
                    "window 4, index {i}: weights {m},{e} against {mm},{me} at its mirror: \
                     expected opposite values (colour symmetry)"
                )));
            }
        }
        Ok(Weights::with_patterns(features, &free))
    }
}

/// FNV-1a, 64 bits.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

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

static SHORT_KINGS: Weights = Weights::classic(base(150));
static FLYING_KINGS: Weights = Weights::classic(base(300));
static ITALIAN_CLASSIC_WEIGHTS: Weights = Weights::classic(ITALIAN_CLASSIC);

/// The Italian weights file, embedded: the features refitted by `dama tune fit
/// --no-patterns` (the default evaluation, see docs/tuning.md).
const ITALIAN_FILE: &[u8] = include_bytes!("italian.weights");
/// The Italian weights with patterns, embedded (the knob `patterns=1`): as good as the
/// default in fixed-node matches so far, and slower, so not the default.
const ITALIAN_PATTERNS_FILE: &[u8] = include_bytes!("italian-patterns.weights");

/// The Spanish weights file, embedded: the hand-set features refitted by `dama tune fit
/// --no-patterns` on Spanish self-play (docs/tuning.md).
const SPANISH_FILE: &[u8] = include_bytes!("spanish.weights");
/// The Czech weights file, embedded, made the same way.
const CZECH_FILE: &[u8] = include_bytes!("czech.weights");
/// The English weights file, embedded, made as the Spanish one.
const ENGLISH_FILE: &[u8] = include_bytes!("english.weights");
/// The Russian weights file, embedded, made as the Spanish one.
const RUSSIAN_FILE: &[u8] = include_bytes!("russian.weights");
/// The Brazilian weights file, embedded, made as the Spanish one.
const BRAZILIAN_FILE: &[u8] = include_bytes!("brazilian.weights");

/// The embedded file `bytes` of `variant`, or its classic weights if it were bad (a test
/// checks every file).
fn embedded(bytes: &[u8], variant: Variant) -> Weights {
    match Weights::from_bytes(bytes) {
        Ok(w) => w,
        Err(e) => {
            tracing::error!(
                "the embedded {} weights: {e}; using the classic ones",
                variant.name()
            );
            classic(variant).clone()
        }
    }
}

static ITALIAN: LazyLock<Weights> = LazyLock::new(|| embedded(ITALIAN_FILE, Variant::Italian));
static ITALIAN_PATTERNS: LazyLock<Weights> =
    LazyLock::new(|| embedded(ITALIAN_PATTERNS_FILE, Variant::Italian));
static SPANISH: LazyLock<Weights> = LazyLock::new(|| embedded(SPANISH_FILE, Variant::Spanish));
static CZECH: LazyLock<Weights> = LazyLock::new(|| embedded(CZECH_FILE, Variant::Czech));
static ENGLISH: LazyLock<Weights> = LazyLock::new(|| embedded(ENGLISH_FILE, Variant::English));
static RUSSIAN: LazyLock<Weights> = LazyLock::new(|| embedded(RUSSIAN_FILE, Variant::Russian));
static BRAZILIAN: LazyLock<Weights> =
    LazyLock::new(|| embedded(BRAZILIAN_FILE, Variant::Brazilian));

/// The weights of `variant` with the pattern tables, where it has them (Italian; the knob
/// `patterns=1`); else [`for_variant`].
pub fn with_patterns(variant: Variant) -> &'static Weights {
    match variant {
        Variant::Italian => &ITALIAN_PATTERNS,
        _ => for_variant(variant),
    }
}

/// The Italian network file, embedded, made by `dama tune train` (docs/tuning.md).
const ITALIAN_NET_FILE: &[u8] = include_bytes!("italian.nnue");

static ITALIAN_NET: LazyLock<Option<Weights>> = LazyLock::new(|| {
    Network::from_bytes(ITALIAN_NET_FILE)
        .map(Weights::with_net)
        .map_err(|e| tracing::error!("the embedded Italian network: {e}; using the features"))
        .ok()
});

/// The embedded network of `variant` (Italian only), as weights; `None` for the others.
pub fn network(variant: Variant) -> Option<&'static Weights> {
    match variant {
        Variant::Italian => ITALIAN_NET.as_ref(),
        _ => None,
    }
}

/// The weights of `variant`: its embedded file.
pub fn for_variant(variant: Variant) -> &'static Weights {
    match variant {
        Variant::Italian => &ITALIAN,
        Variant::Spanish => &SPANISH,
        Variant::Czech => &CZECH,
        Variant::English => &ENGLISH,
        Variant::Russian => &RUSSIAN,
        Variant::Brazilian => &BRAZILIAN,
    }
}

/// The previous release's weights of `variant` (the `classic` knob, and where `dama tune
/// fit` starts): for Italian the features fitted on other data, for the others the hand-set
/// ones.
pub fn classic(variant: Variant) -> &'static Weights {
    match variant {
        Variant::Italian => &ITALIAN_CLASSIC_WEIGHTS,
        _ => hand_set(variant),
    }
}

/// The hand-set table of `variant` (the values of docs/strategy.md), kept to compare with the
/// fitted one in matches.
pub fn hand_set(variant: Variant) -> &'static Weights {
    match variant {
        Variant::Italian | Variant::English => &SHORT_KINGS,
        Variant::Spanish | Variant::Czech | Variant::Russian | Variant::Brazilian => &FLYING_KINGS,
    }
}

/// The previous release's Italian features, fitted without patterns (511,960 positions, K =
/// 78.8); the evaluation of `classic` (see [`classic`]).
static ITALIAN_CLASSIC: [i32; COUNT] = [
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_files_load() {
        let w = Weights::from_bytes(ITALIAN_FILE).expect("the embedded weights file");
        assert_eq!(w.features[feature::MAN], 3200);
        assert_ne!(&w, classic(Variant::Italian));
        let p = Weights::from_bytes(ITALIAN_PATTERNS_FILE).expect("the embedded pattern file");
        assert!(p.has_patterns());
        assert_eq!(p.features[feature::MAN], 3200);
    }

    #[test]
    fn the_fitted_files_of_the_other_variants_load_and_differ_from_the_hand_set_ones() {
        for (file, variant) in [
            (SPANISH_FILE, Variant::Spanish),
            (CZECH_FILE, Variant::Czech),
            (ENGLISH_FILE, Variant::English),
            (RUSSIAN_FILE, Variant::Russian),
            (BRAZILIAN_FILE, Variant::Brazilian),
        ] {
            let w = Weights::from_bytes(file).expect("the embedded weights file");
            assert_eq!(w.features[feature::MAN], 3200);
            assert!(!w.has_patterns());
            assert_eq!(for_variant(variant), &w);
            assert_ne!(&w, hand_set(variant));
            assert_eq!(classic(variant), hand_set(variant));
        }
    }

    #[test]
    fn a_corrupt_file_is_refused_with_a_clear_error() {
        let good = with_patterns(Variant::Italian).to_bytes();
        let mut flipped = good.clone();
        flipped[5000] ^= 0x10;
        let e = Weights::from_bytes(&flipped).unwrap_err().to_string();
        assert!(e.contains("checksum") && e.contains("corrupt"), "{e}");
        let e = Weights::from_bytes(&good[..good.len() - 1])
            .unwrap_err()
            .to_string();
        assert!(e.contains("bytes: expected"), "{e}");
        let e = Weights::from_bytes(b"not weights").unwrap_err().to_string();
        assert!(e.contains("DAMAEVAL"), "{e}");
        let mut old = good.clone();
        old[8] = 9;
        let e = Weights::from_bytes(&old).unwrap_err().to_string();
        assert!(e.contains("version 9: expected version 1"), "{e}");
    }

    #[test]
    fn an_asymmetric_middle_window_is_refused() {
        let mut free = vec![[[0i16; 2]; ENTRIES]; FREE_WINDOWS];
        free[4][1] = [5, 5];
        let mut bytes = Weights::with_patterns([0; COUNT], &free).to_bytes();
        // with_patterns mirrors the entry; break the mirror and fix the checksum.
        let at = 24 + 4 * COUNT + 4 * (4 * ENTRIES + usize::from(mirror(1)));
        bytes[at] = 0;
        bytes[at + 1] = 0;
        let n = bytes.len() - 8;
        let sum = fnv1a(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum.to_le_bytes());
        let e = Weights::from_bytes(&bytes).unwrap_err().to_string();
        assert!(e.contains("colour symmetry"), "{e}");
    }

    #[test]
    fn classic_weights_round_trip_without_patterns() {
        let w = classic(Variant::Italian);
        assert_eq!(&Weights::from_bytes(&w.to_bytes()).unwrap(), w);
    }
}
