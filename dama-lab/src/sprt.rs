//! The sequential probability ratio test of a match, on game pairs (pentanomial GSPRT).
//!
//! A match plays each opening twice, once with each colour; the two games of an opening are
//! a *pair*, and the pair's score for the first player is 0, 0.25, 0.5, 0.75 or 1 (its
//! half-points over the two games, 0..=4, divided by 4). Counting pairs by score gives five
//! numbers, the [`Pentanomial`]. Pairs, not games, are the independent trials: the two
//! games of an opening share the opening's bias, which the pair cancels.
//!
//! The test weighs two hypotheses on the Elo difference of the first player: H0, it is
//! `elo0`, against H1, it is `elo1` (`elo0 < elo1`). Each Elo stands for an expected score
//! `s` by the logistic curve `s = 1 / (1 + 10^(-elo / 400))`, the same scale as the Elo a
//! match reports (`MatchResult::elo`). The likelihood of the counts `n_k` under a
//! hypothesis is the largest `Σ n_k ln p_k` over the distributions `p` of the five pair
//! scores `x_k` whose mean is that `s` (a generalized SPRT: the distribution itself, draws
//! and all, is not assumed but estimated). The log-likelihood ratio (LLR) is the difference,
//! H1's minus H0's. The test goes on while `ln(beta / (1 - alpha)) < LLR < ln((1 - beta) /
//! alpha)`, accepts H1 at the upper bound and H0 at the lower one; `alpha` is the chance of
//! accepting H1 when H0 holds, `beta` of accepting H0 when H1 holds.
//!
//! The maximization is done through its dual: the largest likelihood of mean `s` is
//! `Σ n_k ln(n_k / N) - max_λ Σ n_k ln(1 + λ (x_k - s))`, the maximum over the `λ` for which
//! every `1 + λ (x_k - s)` (of all five scores, counted or not) is at least zero; the
//! function of `λ` is concave, so one bisection on its slope finds it. When the maximum is
//! at an end of that interval, the distribution puts the mass the counted scores leave on
//! the extreme score (0 or 1) no pair scored: a run of draws tested against `elo1 > 0` has
//! the likelihood of "draws, and now and then a pair won twice", and its LLR falls by
//! `ln(1 - 2 (s1 - 0.5))` a pair.
//!
//! Why logistic Elo, not normalized Elo: the bounds then mean what the match's own Elo
//! means, and a test's question ("is the new player at least 5 Elo better?") does not change
//! with the draw rate, which in draughts is high and varies with the time control.
//! Normalized Elo scales the question by the spread of the results, so its `elo1 = 5` is a
//! smaller score difference at a high draw rate; to ask that, give a smaller logistic
//! `elo1`.
//!
//! ```
//! use dama_lab::sprt::{Hypothesis, Pentanomial, Sprt};
//!
//! let test: Sprt = "elo0=0 elo1=5".parse()?;
//! let (lower, upper) = test.bounds();
//! assert!((upper - 2.944).abs() < 1e-3 && (lower + 2.944).abs() < 1e-3);
//! // Pairs scored 0, 0.25, 0.5, 0.75 and 1, that many times each.
//! let counts = Pentanomial([5, 30, 100, 40, 9]);
//! let llr = test.llr(&counts);
//! assert!((llr - 0.647986).abs() < 1e-5);
//! assert_eq!(test.decide(llr), None); // not yet: play on
//! assert_eq!(test.decide(3.0), Some(Hypothesis::H1));
//! # Ok::<_, dama_lab::Error>(())
//! ```

use dama_rules::notation::pdn::GameResult;

use crate::{excerpt, Error};

/// The score of a pair for the first player, by its index in a [`Pentanomial`].
pub const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Game pairs counted by the first player's score over the pair: `0[k]` pairs scored
/// `k / 4` (0: both lost, 2: one won and one lost or both drawn, 4: both won).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Counts a pair whose games gave the first player `first` and `second` half-points
    /// (0 a loss, 1 a draw, 2 a win; see [`half_points`]).
    ///
    /// # Panics
    /// If either is above 2.
    pub fn add(&mut self, first: u8, second: u8) {
        assert!(
            first <= 2 && second <= 2,
            "half-points of a game are 0, 1 or 2"
        );
        self.0[usize::from(first + second)] += 1;
    }

    /// The pairs counted.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// The half-points a game gave a player: 2 for a win, 1 for a draw, 0 for a loss, `None`
/// for a game without a result. `white`: whether the player had White.
///
/// ```
/// use dama_rules::notation::pdn::GameResult;
/// use dama_lab::sprt::half_points;
/// assert_eq!(half_points(GameResult::BlackWins, false), Some(2));
/// assert_eq!(half_points(GameResult::Unknown, true), None);
/// ```
pub fn half_points(result: GameResult, white: bool) -> Option<u8> {
    match (result, white) {
        (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => Some(2),
        (GameResult::WhiteWins, false) | (GameResult::BlackWins, true) => Some(0),
        (GameResult::Draw, _) => Some(1),
        (GameResult::Unknown, _) => None,
    }
}

/// What the test accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hypothesis {
    /// The Elo difference is `elo0`.
    H0,
    /// The Elo difference is `elo1`.
    H1,
}

impl Hypothesis {
    /// `"H0"` or `"H1"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Hypothesis::H0 => "H0",
            Hypothesis::H1 => "H1",
        }
    }
}

/// A sequential probability ratio test: H0 `elo0` against H1 `elo1` (logistic Elo), with
/// error rates `alpha` and `beta` (see the [module](self)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The Elo difference of H0.
    pub elo0: f64,
    /// The Elo difference of H1, above `elo0`.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// The largest |Elo| a test takes: beyond, the score is too near 0 or 1 to tell apart.
const MAX_ELO: f64 = 1000.0;

impl Sprt {
    /// The test of `elo0` against `elo1`.
    ///
    /// # Errors
    /// [`Error::BadSprt`] unless `-1000 <= elo0 < elo1 <= 1000`, `alpha` and `beta` are in
    /// (0, 1) and `alpha + beta < 1` (else a bound would not be on its side of zero).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, Error> {
        let text = format!("elo0={elo0} elo1={elo1} alpha={alpha} beta={beta}");
        let bad = |why: &str| {
            Err(Error::BadSprt {
                text: text.clone(),
                why: why.into(),
            })
        };
        for elo in [elo0, elo1] {
            if !(-MAX_ELO..=MAX_ELO).contains(&elo) {
                return bad("expected Elo differences between -1000 and 1000");
            }
        }
        if elo0 >= elo1 {
            return bad("expected elo0 below elo1");
        }
        for p in [alpha, beta] {
            if !(p > 0.0 && p < 1.0) {
                return bad("expected alpha and beta between 0 and 1, like 0.05");
            }
        }
        if alpha + beta >= 1.0 {
            return bad("expected alpha + beta below 1");
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The LLR bounds: `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`; below the first
    /// the test accepts H0, above the second H1.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 to H0 given `counts` (0 for no pairs).
    pub fn llr(&self, counts: &Pentanomial) -> f64 {
        dual_max(counts, score_of_elo(self.elo0)) - dual_max(counts, score_of_elo(self.elo1))
    }

    /// What the test accepts at `llr`: H1 at or above the upper bound, H0 at or below the
    /// lower one, nothing between (play on).
    pub fn decide(&self, llr: f64) -> Option<Hypothesis> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(Hypothesis::H1)
        } else if llr <= lower {
            Some(Hypothesis::H0)
        } else {
            None
        }
    }
}

/// Reads `elo0=X elo1=Y [alpha=A] [beta=B]`, the items separated by spaces or commas;
/// `alpha` and `beta` are 0.05 unless given.
///
/// ```
/// use dama_lab::sprt::Sprt;
/// let test: Sprt = "elo0=-1.5,elo1=3.5 alpha=0.1".parse()?;
/// assert_eq!((test.elo0, test.elo1, test.alpha, test.beta), (-1.5, 3.5, 0.1, 0.05));
/// let err = "elo0=0 elo1=5 gamma=1".parse::<Sprt>().unwrap_err();
/// assert!(err.to_string().contains("\"gamma=1\""));
/// # Ok::<_, dama_lab::Error>(())
/// ```
impl std::str::FromStr for Sprt {
    type Err = Error;

    fn from_str(text: &str) -> Result<Sprt, Error> {
        let bad = |why: String| Error::BadSprt {
            text: excerpt(text),
            why,
        };
        // elo0, elo1, alpha, beta.
        let mut values: [Option<f64>; 4] = [None, None, Some(0.05), Some(0.05)];
        let mut seen = [false; 4];
        let items = text.split([' ', ',', '\t']).filter(|w| !w.is_empty());
        for item in items {
            let (key, value) = item.split_once('=').unwrap_or((item, ""));
            let Some(k) = ["elo0", "elo1", "alpha", "beta"]
                .iter()
                .position(|&n| n == key)
            else {
                return Err(bad(format!(
                    "\"{}\" is not elo0=, elo1=, alpha= or beta= with a number: expected \
                     elo0=X elo1=Y [alpha=A] [beta=B], like elo0=0 elo1=5",
                    excerpt(item)
                )));
            };
            if std::mem::replace(&mut seen[k], true) {
                return Err(bad(format!("{key} is given twice: expected it once")));
            }
            match value.parse::<f64>() {
                Ok(v) if v.is_finite() => values[k] = Some(v),
                _ => {
                    return Err(bad(format!(
                        "\"{}\" is not a number: expected {key}=NUMBER, like {key}={}",
                        excerpt(value),
                        if k < 2 { "5" } else { "0.05" }
                    )))
                }
            }
        }
        let [Some(elo0), Some(elo1), Some(alpha), Some(beta)] = values else {
            return Err(bad(
                "expected both elo0= and elo1=, like elo0=0 elo1=5".into()
            ));
        };
        Sprt::new(elo0, elo1, alpha, beta).map_err(|e| match e {
            Error::BadSprt { why, .. } => bad(why),
            other => other,
        })
    }
}

/// The expected score of a player `elo` logistic Elo points stronger.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// `max_λ Σ n_k ln(1 + λ (x_k - s))` over `λ` in `[-1 / (1 - s), 1 / s]`, where every
/// `1 + λ (x_k - s)` is at least zero (see the [module](self)); `s` in (0, 1).
fn dual_max(counts: &Pentanomial, s: f64) -> f64 {
    let terms = || {
        PAIR_SCORES
            .iter()
            .zip(counts.0)
            .filter(|&(_, n)| n > 0)
            .map(move |(&x, n)| (n as f64, x - s))
    };
    // The slope of the concave function, falling with λ.
    let slope = |l: f64| terms().map(|(n, d)| n * d / (1.0 + l * d)).sum::<f64>();
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    // At an end where a counted score's factor is zero the slope is infinite, towards the
    // inside; at the others it is finite, and the maximum is there if it points outside.
    let lambda = if counts.0[4] == 0 && slope(lo) <= 0.0 {
        lo
    } else if counts.0[0] == 0 && slope(hi) >= 0.0 {
        hi
    } else {
        loop {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break mid;
            }
            if slope(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    };
    terms().map(|(n, d)| n * (1.0 + lambda * d).ln()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(elo0: f64, elo1: f64) -> Sprt {
        Sprt::new(elo0, elo1, 0.05, 0.05).unwrap()
    }

    #[test]
    fn bounds_at_five_percent_are_plus_minus_2_944() {
        let (lower, upper) = test(0.0, 5.0).bounds();
        // ln(0.05 / 0.95) = -ln 19 = -2.944439...
        assert!((lower + 2.944_439).abs() < 1e-6, "{lower}");
        assert!((upper - 2.944_439).abs() < 1e-6, "{upper}");
        let (lower, upper) = Sprt::new(0.0, 5.0, 0.1, 0.2).unwrap().bounds();
        assert!((lower - (0.2f64 / 0.9).ln()).abs() < 1e-12);
        assert!((upper - 8f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn llr_matches_a_direct_maximization_of_the_likelihood() {
        // From dama-lab/tests/sprt_llr.py: the likelihood maximized over the five
        // probabilities by a Nelder-Mead search, not through the dual as here.
        for (counts, elo0, elo1, want) in [
            ([10, 20, 40, 20, 10], 0.0, 5.0, -0.034_506_851),
            ([5, 30, 100, 40, 9], 0.0, 5.0, 0.647_986_082),
            ([5, 30, 100, 40, 9], -3.0, 3.0, 0.907_341_588),
            ([1, 10, 50, 30, 9], 0.0, 50.0, 8.319_559_877),
            ([2, 3, 40, 7, 1], 0.0, 10.0, 0.063_658_576),
        ] {
            let got = test(elo0, elo1).llr(&Pentanomial(counts));
            assert!((got - want).abs() < 1e-7, "{counts:?}: {got} want {want}");
        }
    }

    #[test]
    fn llr_of_symmetric_counts_is_near_its_normal_approximation() {
        // By hand: the counts' mean is s0 = 0.5 and their variance 0.075, so the LLR is
        // about -N (s1 - s0)^2 / (2 * 0.075).
        let counts = Pentanomial([10, 20, 40, 20, 10]);
        let d = score_of_elo(5.0) - 0.5;
        let approx = -100.0 * d * d / 0.15;
        let got = test(0.0, 5.0).llr(&counts);
        assert!((got - approx).abs() < 1e-4, "{got} {approx}");
    }

    #[test]
    fn scores_no_pair_reached_take_the_leftover_mass() {
        // By hand. All draws: under H0 (s = 0.5) the draws alone have likelihood 1; under H1
        // the best is draws with probability 1 - 2 (s1 - 0.5), both games won otherwise.
        let s1 = score_of_elo(5.0);
        let got = test(0.0, 5.0).llr(&Pentanomial([0, 0, 50, 0, 0]));
        assert!(
            (got - 50.0 * (1.0 - 2.0 * (s1 - 0.5)).ln()).abs() < 1e-9,
            "{got}"
        );
        // All won: a pair is won twice with probability s at most (the rest scores 0).
        let got = test(0.0, 5.0).llr(&Pentanomial([0, 0, 0, 0, 20]));
        assert!((got - 20.0 * (s1 / 0.5).ln()).abs() < 1e-9, "{got}");
        // No pairs: no evidence.
        assert_eq!(test(0.0, 5.0).llr(&Pentanomial::default()), 0.0);
    }

    /// The pairs after which `stream` (half-points of each pair's two games, cycled)
    /// makes `sprt` decide, and what; None after `limit` pairs.
    fn run(sprt: &Sprt, stream: &[(u8, u8)], limit: usize) -> Option<(usize, Hypothesis)> {
        let mut counts = Pentanomial::default();
        for (i, &(a, b)) in stream.iter().cycle().take(limit).enumerate() {
            counts.add(a, b);
            if let Some(h) = sprt.decide(sprt.llr(&counts)) {
                return Some((i + 1, h));
            }
        }
        None
    }

    #[test]
    fn pairs_all_won_accept_h1_when_the_llr_passes_ln_19() {
        // Each won pair adds ln(s1 / s0) (above): the test stops at the first n with
        // n ln(s1 / 0.5) >= ln 19.
        let sprt = test(0.0, 5.0);
        let per_pair = (score_of_elo(5.0) / 0.5).ln();
        let want = (19f64.ln() / per_pair).ceil() as usize;
        assert_eq!(want, 207);
        assert_eq!(run(&sprt, &[(2, 2)], 1000), Some((want, Hypothesis::H1)));
    }

    #[test]
    fn pairs_all_drawn_accept_h0_when_elo1_is_above_zero() {
        let sprt = test(0.0, 5.0);
        let per_pair = (1.0 - 2.0 * (score_of_elo(5.0) - 0.5)).ln();
        let want = (-19f64.ln() / per_pair).ceil() as usize;
        assert_eq!(want, 204);
        assert_eq!(run(&sprt, &[(1, 1)], 1000), Some((want, Hypothesis::H0)));
        // Won-lost pairs are draws too (0.5 a pair).
        assert_eq!(run(&sprt, &[(2, 0)], 1000), Some((want, Hypothesis::H0)));
    }

    #[test]
    fn a_clearly_stronger_player_is_found_within_a_bounded_number_of_pairs() {
        // A pair score of 0.6875 on average (+137 Elo), with every score: H1 (+50) soon.
        let stream = [
            (2, 2),
            (2, 1),
            (1, 2),
            (2, 0),
            (1, 1),
            (2, 2),
            (2, 1),
            (0, 1),
        ];
        let (pairs, h) = run(&test(0.0, 50.0), &stream, 200).expect("a decision");
        assert_eq!(h, Hypothesis::H1);
        assert!(pairs < 100, "{pairs}");
        // The same stream, +200 (a score of 0.760) against +250: H0.
        let (_, h) = run(&test(200.0, 250.0), &stream, 5000).expect("a decision");
        assert_eq!(h, Hypothesis::H0);
    }

    #[test]
    fn llr_grows_with_the_wins_and_turns_its_sign_for_mirrored_results() {
        let sprt = test(-5.0, 5.0);
        let a = Pentanomial([5, 30, 100, 40, 9]);
        let mirrored = Pentanomial([9, 40, 100, 30, 5]);
        // Mirroring the results and the hypotheses (about 0 Elo) turns the LLR's sign.
        assert!((sprt.llr(&a) + sprt.llr(&mirrored)).abs() < 1e-9);
        let more = Pentanomial([5, 30, 100, 40, 19]);
        assert!(sprt.llr(&more) > sprt.llr(&a));
    }

    #[test]
    fn bad_tests_are_refused_with_the_reason() {
        for (text, want) in [
            ("elo0=5 elo1=0", "elo0 below elo1"),
            ("elo0=0", "both elo0= and elo1="),
            ("elo0=0 elo1=5 alpha=0", "between 0 and 1"),
            ("elo0=0 elo1=5 alpha=0.6 beta=0.5", "alpha + beta below 1"),
            ("elo0=0 elo1=5000", "between -1000 and 1000"),
            ("elo0=x elo1=5", "\"x\" is not a number"),
            ("elo0=nan elo1=5", "\"nan\" is not a number"),
            ("elo0=0 elo1=5 elo1=6", "elo1 is given twice"),
            ("elo0=0 elo1=5 games.pdn", "\"games.pdn\" is not elo0="),
        ] {
            let err = text.parse::<Sprt>().unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
            assert!(err.contains(&format!("\"{text}\"")), "{text}: {err}");
        }
    }
}
