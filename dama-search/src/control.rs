//! What every search thread reads to know when to stop: the caller's flags, the node count
//! over all threads, the node limit and the clock.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use crate::time::TimeManager;

/// Flags a caller shares with a running search, typically from another thread.
///
/// ```
/// use std::sync::atomic::Ordering;
/// use dama_search::Signals;
/// let signals = Signals::default();
/// let for_the_reader = signals.clone();
/// for_the_reader.stop.store(true, Ordering::Relaxed); // the search ends within ~50 µs
/// assert!(signals.stop.load(Ordering::Relaxed));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Signals {
    /// Set to end the search at once; it returns the best move of its last complete depth.
    pub stop: Arc<AtomicBool>,
    /// While set, time limits are ignored (the engine thinks on the opponent's time); clear it
    /// on a ponder hit and the clock applies, counted from the search's start.
    pub pondering: Arc<AtomicBool>,
}

/// Switches for search features, so that a match can compare a feature on and off within
/// one build. Not a stable interface.
#[doc(hidden)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Knobs {
    /// Late-move reductions: 0 off, 1 the first scheme, 2 the more aggressive one, 3 (the
    /// default) a table growing with the logarithms of depth and move number, 4 and 5 the
    /// same table over 2.5 and 1.6 instead of 2 (reducing less and more).
    pub lmr: u8,
    /// Reverse futility up to this depth (0: off): with no capture pending for either side,
    /// a static value far above beta cuts the node.
    pub rfp: u8,
    /// Reverse futility's margin per ply of depth, in hundredths of a man.
    pub rfp_margin: u8,
    /// The shallowest depth at which the transposition table is used.
    pub tt_depth: u8,
    /// Extend nodes with a single legal move by one ply.
    pub single_reply: bool,
    /// Evaluate with the hand-set weights instead of the fitted ones.
    pub hand_weights: bool,
    /// Evaluate with the previous release's weights (features, no patterns).
    pub classic_eval: bool,
    /// Evaluate with the pattern weights (features and patterns of men).
    pub pattern_eval: bool,
    /// Evaluate with the embedded network where the variant has one (see [`crate::nnue`]);
    /// the default. `net=0` plays the fitted features (the evaluation of release 15c0bdd).
    pub net_eval: bool,
    /// Contempt, in hundredths of a man: a draw (repetition, the no-progress rule, a table
    /// draw) is worth this much less than even to the side to move at the root, and this
    /// much more to its opponent, so that the search does not steer into one when it is not
    /// worse. 0: a draw is even for both.
    pub contempt: u8,
    /// When the search stops inside an iteration that has already proved another root move
    /// better than the last complete iteration's best, play that move (one line only). The
    /// default; `partial=0` answers with the last complete iteration only.
    pub partial: bool,
    /// The aspiration window's first half-width at the root, in hundredths of a man (plus an
    /// eighth of the last score); it doubles at each fail.
    pub aspiration: u8,
    /// History in the reductions: a reduced quiet move one ply less if it is a killer, one
    /// more in a non-PV node if it has never cut (its history is 0). The default; `hred=0`
    /// reduces by the table alone.
    pub history_reduction: bool,
    /// On a game clock, the soft limit in per cent of the move's share of the clock (no new
    /// iteration starts after it): 80 by default (measured against 50 and 110 in
    /// docs/tuning.md; an iteration usually takes longer than all before it, and the hard
    /// limit at three shares ends one that runs long).
    pub soft_share: u8,
    /// On a game clock that does not say how many moves are left, the moves the time left is
    /// shared over (the knob `mtg`, 30 by default).
    pub moves_to_go: u8,
    /// Reverse futility takes the table's score for the static value where the table's bound
    /// says it is the better estimate.
    pub rfp_tt: bool,
    /// The plies before the no-progress draw over which the static value fades linearly to
    /// a draw (the knob `fade`, 20 by default; 0: no fade).
    pub fade: u8,
}

impl std::str::FromStr for Knobs {
    type Err = String;

    /// `lmr=2,rfp=0` (unnamed switches keep their default).
    fn from_str(s: &str) -> Result<Knobs, String> {
        let mut k = Knobs::default();
        for item in s.split(',').filter(|i| !i.is_empty()) {
            let (name, value) = item.split_once('=').unwrap_or((item, "1"));
            let n: u8 = value
                .parse()
                .map_err(|_| format!("knob value \"{value}\": expected a number"))?;
            match name {
                "lmr" => k.lmr = n,
                "hand" => k.hand_weights = n != 0,
                "classic" => k.classic_eval = n != 0,
                "patterns" => k.pattern_eval = n != 0,
                "net" => k.net_eval = n != 0,
                "rfp" => k.rfp = n,
                "rfpm" => k.rfp_margin = n,
                "single" => k.single_reply = n != 0,
                "tt" => k.tt_depth = n,
                "contempt" => k.contempt = n,
                "partial" => k.partial = n != 0,
                "asp" => k.aspiration = n,
                "hred" => k.history_reduction = n != 0,
                "soft" => k.soft_share = n.max(1),
                "mtg" => k.moves_to_go = n.max(1),
                "rfptt" => k.rfp_tt = n != 0,
                "fade" => k.fade = n,
                _ => {
                    return Err(format!(
                        "unknown knob \"{name}\": expected lmr, rfp, rfpm, single, tt, contempt, partial, asp, hred, soft, mtg, rfptt, fade, hand, classic, patterns or net"
                    ))
                }
            }
        }
        Ok(k)
    }
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            lmr: 3,
            hand_weights: false,
            classic_eval: false,
            pattern_eval: false,
            net_eval: true,
            rfp: 3,
            rfp_margin: 40,
            single_reply: false,
            tt_depth: 2,
            contempt: 0,
            partial: true,
            aspiration: 25,
            history_reduction: true,
            soft_share: 80,
            moves_to_go: 30,
            rfp_tt: false,
            fade: 20,
        }
    }
}

pub(crate) struct Control<'a> {
    pub knobs: Knobs,
    /// Weights in place of the built-in ones the knobs choose among.
    pub weights: Option<&'a crate::weights::Weights>,
    /// The endgame tables.
    pub endgames: &'a crate::egtb::Endgames,
    pub signals: &'a Signals,
    /// The main thread is done: helpers stop.
    pub halt: AtomicBool,
    pub nodes: AtomicU64,
    pub node_limit: Option<u64>,
    pub time: TimeManager,
}

impl Control<'_> {
    /// Whether a thread must stop now; only the main thread watches the clock and the node
    /// limit (helpers stop when it does).
    pub fn should_stop(&self, main: bool) -> bool {
        if self.signals.stop.load(Relaxed) || self.halt.load(Relaxed) {
            return true;
        }
        main && (self
            .node_limit
            .is_some_and(|n| self.nodes.load(Relaxed) >= n)
            || self.time.should_stop(&self.signals.pondering))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_search_knob_parses_and_an_unknown_one_is_named() {
        let k: Knobs = "lmr=1,rfp=4,rfpm=50".parse().unwrap();
        assert_eq!((k.lmr, k.rfp, k.rfp_margin), (1, 4, 50));
        assert!(!"partial=0".parse::<Knobs>().unwrap().partial);
        assert!(Knobs::default().partial);
        assert_eq!("asp=40".parse::<Knobs>().unwrap().aspiration, 40);
        assert_eq!(Knobs::default().aspiration, 25);
        assert!(!"hred=0".parse::<Knobs>().unwrap().history_reduction);
        assert!(Knobs::default().history_reduction);
        assert_eq!("mtg=20".parse::<Knobs>().unwrap().moves_to_go, 20);
        assert_eq!("mtg=0".parse::<Knobs>().unwrap().moves_to_go, 1);
        assert_eq!(Knobs::default().moves_to_go, 30);
        assert!("rfptt=1".parse::<Knobs>().unwrap().rfp_tt);
        assert_eq!("fade=60".parse::<Knobs>().unwrap().fade, 60);
        assert_eq!(Knobs::default().fade, 20);
        let d = Knobs::default();
        assert_eq!("".parse::<Knobs>().unwrap(), d);
        let err = "lmq=1".parse::<Knobs>().unwrap_err();
        assert!(err.contains("\"lmq\"") && err.contains("rfpm"), "{err}");
        let err = "lmr=x".parse::<Knobs>().unwrap_err();
        assert!(err.contains("\"x\""), "{err}");
    }
}
