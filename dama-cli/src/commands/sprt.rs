//! The game pairs of `dama match` and `dama pdn stats`, and the SPRT on them
//! (`dama_lab::sprt`).
//!
//! `--json` writes the test as `{"type": "sprt", "data": {"elo0", "elo1", "alpha", "beta",
//! "pairs", "pentanomial", "llr", "lower", "upper", "decision", "decided_at"}}`:
//! `pentanomial` is the five counts of pairs by PLAYER1's score over the pair (0, 0.25, 0.5,
//! 0.75, 1), `llr` the log-likelihood ratio of H1 (`elo1`) to H0 (`elo0`), `lower` and
//! `upper` its bounds, `decision` `"H0"`, `"H1"` or null (the test goes on), `decided_at`
//! the pairs counted when it decided (the pairs under way then are counted after it, and
//! may take the LLR back inside the bounds; the decision stays). The text form is one line,
//! `sprt elo0 0 elo1 5 alpha 0.05 beta 0.05 pairs 57 pentanomial 0 3 10 25 19 llr 2.97
//! lower -2.94 upper 2.94 decision H1 decided_at 57` (`decision - decided_at -` while it
//! goes on).

use std::collections::BTreeMap;

use dama_lab::sprt::{half_points, Hypothesis, Pentanomial, Sprt};
use dama_rules::notation::pdn::GameResult;
use serde_json::{json, Value};

use crate::error::CliError;

/// One word after `--sprt`, checked to be `elo0=`, `elo1=`, `alpha=` or `beta=` something
/// (for clap: a word that is not, such as a file after the option, is refused at once).
pub fn sprt_word(word: &str) -> Result<String, String> {
    let key = word.split_once('=').map_or("", |(k, _)| k);
    if ["elo0", "elo1", "alpha", "beta"].contains(&key) {
        return Ok(word.to_string());
    }
    Err(format!(
        "{word:?} is not elo0=, elo1=, alpha= or beta= with a number: expected --sprt \
         elo0=X elo1=Y [alpha=A] [beta=B], after the players or files"
    ))
}

/// Reads the words after `--sprt` (`elo0=0 elo1=5 alpha=0.05 beta=0.05`); none: no test.
pub fn parse(words: &[String]) -> Result<Option<Sprt>, CliError> {
    if words.is_empty() {
        return Ok(None);
    }
    words
        .join(" ")
        .parse()
        .map(Some)
        .map_err(|e| CliError::Usage(format!("--sprt: {e}")))
}

/// The pairs of a match as its games end, in the match's order (game `2p` and `2p + 1` are
/// pair `p`), and the test on them: it decides at the first pair whose LLR reaches a bound,
/// and keeps that decision while the pairs under way at that moment are counted.
pub struct Pairs {
    test: Option<Sprt>,
    counts: Pentanomial,
    /// The half-points of the first game of the pair under way, if it had a result.
    pending: Option<Option<u8>>,
    /// What the test accepted, and after how many pairs.
    decided: Option<(Hypothesis, u64)>,
}

impl Pairs {
    /// No pairs yet; `test` is the SPRT, if one is run.
    pub fn new(test: Option<Sprt>) -> Pairs {
        Pairs {
            test,
            counts: Pentanomial::default(),
            pending: None,
            decided: None,
        }
    }

    /// Counts game `i` of the match, the games coming in order, with the half-points it gave
    /// the first player (`first_is_white` in the game); whether it ends a pair.
    pub fn game(&mut self, i: usize, result: GameResult, first_is_white: bool) -> bool {
        let points = half_points(result, first_is_white);
        if i.is_multiple_of(2) {
            self.pending = Some(points);
            return false;
        }
        let Some(Some(first)) = self.pending.take() else {
            return false;
        };
        let Some(second) = points else {
            return false;
        };
        self.pair(first, second);
        true
    }

    /// Counts the next pair, whose games gave the first player `first` and `second`
    /// half-points.
    pub fn pair(&mut self, first: u8, second: u8) {
        self.counts.add(first, second);
        if let (Some(test), None) = (self.test, self.decided) {
            self.decided = test
                .decide(test.llr(&self.counts))
                .map(|h| (h, self.counts.pairs()));
        }
    }

    /// What the test accepted, if it has decided.
    pub fn decided(&self) -> Option<Hypothesis> {
        self.decided.map(|(h, _)| h)
    }

    /// Whether a test is run.
    pub fn testing(&self) -> bool {
        self.test.is_some()
    }

    /// The five counts, for the `result` line.
    pub fn pentanomial(&self) -> [u64; 5] {
        self.counts.0
    }

    /// The pairs counted.
    pub fn counts(&self) -> Pentanomial {
        self.counts
    }

    /// The test's state as JSON (the `data` of an `sprt` line), if a test is run.
    pub fn json(&self) -> Option<Value> {
        let test = self.test?;
        let (lower, upper) = test.bounds();
        Some(json!({
            "elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta,
            "pairs": self.counts.pairs(), "pentanomial": self.counts.0,
            "llr": test.llr(&self.counts), "lower": lower, "upper": upper,
            "decision": self.decided().map(Hypothesis::as_str),
            "decided_at": self.decided.map(|(_, pairs)| pairs),
        }))
    }

    /// The `sprt` line of the text output, if a test is run.
    pub fn text(&self) -> Option<String> {
        let test = self.test?;
        let (lower, upper) = test.bounds();
        Some(format!(
            "sprt elo0 {} elo1 {} alpha {} beta {} pairs {} pentanomial {} llr {:.2} lower {:.2} \
             upper {:.2} decision {} decided_at {}",
            test.elo0,
            test.elo1,
            test.alpha,
            test.beta,
            self.counts.pairs(),
            self.words(),
            test.llr(&self.counts),
            lower,
            upper,
            self.decided().map_or("-", Hypothesis::as_str),
            self.decided
                .map_or("-".into(), |(_, pairs)| pairs.to_string()),
        ))
    }

    /// The progress line on a terminal: the pairs, the LLR between its bounds.
    pub fn progress(&self) -> String {
        let Some(test) = self.test else {
            return String::new();
        };
        let (lower, upper) = test.bounds();
        format!(
            "{} pairs · LLR {:+.2} in ({lower:+.2}, {upper:+.2}) · pentanomial {}",
            self.counts.pairs(),
            test.llr(&self.counts),
            self.words(),
        )
    }

    fn words(&self) -> String {
        self.counts.0.map(|n| n.to_string()).join(" ")
    }
}

/// Where a game of `dama pdn stats` belongs: its file and its pair there.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PairKey {
    /// `R` of the game's `Round` tag `R.1` or `R.2` (written by `dama match`).
    Round(String),
    /// Without a `Round` tag: games `2p` and `2p + 1` of the file are pair `p`.
    Order(usize),
}

/// The pairs of `dama pdn stats`: two games of one player in the same file with the same
/// `Round` before the dot (or, without a `Round` tag, the file's games `2p` and `2p + 1`),
/// in the order of the match that played them: by the number of their round (or `p + 1`),
/// then by file. The shards of a match number their rounds as the whole match does, so their
/// files read together give the whole match's order.
#[derive(Default)]
pub struct FilePairs {
    /// The pairs found: their place in the order, and the two games' half-points.
    found: Vec<((u64, usize), u8, u8)>,
    /// The first game of each pair seen, waiting for the second.
    waiting: BTreeMap<(usize, PairKey), u8>,
}

impl FilePairs {
    /// Counts game `index` (counted from 0) of file `file`, with its `Round` tag, its
    /// result and whether the player had White.
    pub fn game(
        &mut self,
        file: usize,
        index: usize,
        round: Option<&str>,
        result: GameResult,
        white: bool,
    ) {
        let Some(points) = half_points(result, white) else {
            return;
        };
        let key = match round {
            Some(r) => PairKey::Round(r.split('.').next().unwrap_or(r).trim().to_string()),
            None => PairKey::Order(index / 2),
        };
        let place = match &key {
            // A round that is not a number comes after those that are.
            PairKey::Round(r) => r.parse().unwrap_or(u64::MAX),
            // Pair p is round p + 1 in a match.
            PairKey::Order(p) => *p as u64 + 1,
        };
        match self.waiting.remove(&(file, key.clone())) {
            Some(first) => self.found.push(((place, file), first, points)),
            None => {
                self.waiting.insert((file, key), points);
            }
        }
    }

    /// The pairs in the match's order, each the half-points of its two games, and the
    /// number of games left without a partner.
    pub fn finish(mut self) -> (Vec<(u8, u8)>, usize) {
        // Stable: pairs of equal place stay in the order they were read.
        self.found.sort_by_key(|&(place, _, _)| place);
        let pairs = self.found.into_iter().map(|(_, a, b)| (a, b)).collect();
        (pairs, self.waiting.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_counts_whole_pairs_and_keeps_its_first_decision() {
        let test: Sprt = "elo0=0 elo1=200".parse().unwrap();
        let mut pairs = Pairs::new(Some(test));
        let mut ended = Vec::new();
        // Both games won, pair after pair: each adds ln(s1 / 0.5) = 0.418; ln 19 after 8.
        for i in 0..20 {
            let white = i % 2 == 0;
            let result = if white {
                GameResult::WhiteWins
            } else {
                GameResult::BlackWins
            };
            if pairs.game(i, result, white) {
                ended.push((pairs.counts.pairs(), pairs.decided()));
            }
        }
        assert_eq!(ended.len(), 10);
        let first = ended.iter().position(|(_, d)| d.is_some()).unwrap();
        assert_eq!(ended[first], (8, Some(Hypothesis::H1)));
        assert_eq!(pairs.json().unwrap()["decision"], "H1");
        assert_eq!(pairs.json().unwrap()["decided_at"], 8);
        assert!(pairs.text().unwrap().ends_with(" decision H1 decided_at 8"));
        assert_eq!(pairs.pentanomial(), [0, 0, 0, 0, 10]);
        // A game without a result spoils its pair only.
        let mut pairs = Pairs::new(None);
        assert!(!pairs.game(0, GameResult::Unknown, true));
        assert!(!pairs.game(1, GameResult::Draw, false));
        assert!(!pairs.game(2, GameResult::Draw, true));
        assert!(pairs.game(3, GameResult::WhiteWins, false));
        assert_eq!(pairs.pentanomial(), [0, 1, 0, 0, 0]);
        assert_eq!(pairs.json(), None);
    }

    #[test]
    fn file_pairs_go_by_round_then_by_order() {
        let mut pairs = FilePairs::default();
        // Rounds 1 and 2 interleaved in file 0; round 1 of file 1 is another pair.
        pairs.game(0, 0, Some("1.1"), GameResult::WhiteWins, true);
        pairs.game(0, 1, Some("2.1"), GameResult::Draw, true);
        pairs.game(0, 2, Some("1.2"), GameResult::WhiteWins, false);
        pairs.game(1, 0, Some("1.1"), GameResult::BlackWins, true);
        pairs.game(0, 3, Some("2.2"), GameResult::BlackWins, false);
        // No Round tags: by order.
        pairs.game(2, 0, None, GameResult::Draw, true);
        pairs.game(2, 1, None, GameResult::Draw, false);
        pairs.game(2, 2, None, GameResult::WhiteWins, true);
        let (found, unpaired) = pairs.finish();
        // Round 1 of file 0: a win and a loss (2 half-points); pair 0 of file 2: two draws;
        // round 2 of file 0: a draw and a win (3).
        assert_eq!(found, [(2, 0), (1, 1), (1, 2)]);
        assert_eq!(unpaired, 2);
    }

    #[test]
    fn sprt_words_are_read_or_refused_with_the_option_named() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(parse(&[]).unwrap(), None);
        let test = parse(&words(&["elo0=0", "elo1=5", "beta=0.1"]))
            .unwrap()
            .unwrap();
        assert_eq!((test.elo1, test.alpha, test.beta), (5.0, 0.05, 0.1));
        let err = parse(&words(&["elo0=0", "elo1=x"]))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--sprt: ") && err.contains("\"x\""),
            "{err}"
        );
    }
}
