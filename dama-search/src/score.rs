//! Scores in hundredths of a man, wins and losses by distance in plies.

use std::fmt;

/// A score in hundredths of a man from the side to move's point of view, or a win or loss at
/// a known distance in plies.
///
/// Wins are `WIN - plies`, losses `-(WIN - plies)`: a shorter win scores higher. The
/// transposition table stores them relative to the node, so that an entry is right at any
/// ply.
///
/// ```
/// use dama_search::Score;
/// let s = Score::win_in(5);
/// assert!(s.is_win());
/// assert_eq!(s.plies_to_end(), Some(5));
/// assert!(Score::win_in(3) > s);
/// assert_eq!(-Score::win_in(5), Score::loss_in(5));
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Default)]
pub struct Score(pub i32);

/// The score of a won position at distance 0 (the opponent has no move now).
pub const WIN: i32 = 30_000;
/// Scores beyond this are wins or losses at a known distance.
const WIN_BOUND: i32 = WIN - 1_000;
/// An endgame table's win at distance 0 to conversion: table wins are `TABLE_WIN - ply -
/// plies to conversion`, below every win at a known distance and above every evaluation.
pub(crate) const TABLE_WIN: i32 = WIN_BOUND - 1;
/// Scores beyond this are table wins (or wins at a known distance).
const TABLE_BOUND: i32 = TABLE_WIN - 1_000;
/// Beyond every score: the initial bound of a full window.
pub(crate) const INFINITE: i32 = WIN + 1;

impl Score {
    /// A draw.
    pub const DRAW: Score = Score(0);

    /// The largest evaluation the search uses (50 men): evaluations are clamped to it, so
    /// that in [`Score::men`] they stay below the table band (80 to 90 men) and the band of
    /// wins at a known distance (90 to 100 men), whatever the weights or the network say.
    pub const EVAL_MAX: Score = Score(5_000);

    /// An endgame table's win at distance 0 to conversion, the best table win (the
    /// self-play samples of `dama-lab` label a table win with it).
    pub const TABLE_WIN: Score = Score(TABLE_WIN);

    /// A win in `plies` plies.
    pub const fn win_in(plies: u32) -> Score {
        Score(WIN - plies as i32)
    }

    /// A loss in `plies` plies.
    pub const fn loss_in(plies: u32) -> Score {
        Score(-WIN + plies as i32)
    }

    /// Whether this is a win at a known distance.
    pub const fn is_win(self) -> bool {
        self.0 > WIN_BOUND
    }

    /// Whether this is a loss at a known distance.
    pub const fn is_loss(self) -> bool {
        self.0 < -WIN_BOUND
    }

    /// For a win or a loss, the plies until the game ends.
    pub const fn plies_to_end(self) -> Option<u32> {
        if self.is_win() {
            Some((WIN - self.0) as u32)
        } else if self.is_loss() {
            Some((WIN + self.0) as u32)
        } else {
            None
        }
    }

    /// Whether this is a win an endgame table proves (its distance is to the next capture or
    /// man move, not to the end of the game).
    pub const fn is_table_win(self) -> bool {
        self.0 > TABLE_BOUND && self.0 <= TABLE_WIN
    }

    /// Whether this is a loss an endgame table proves.
    pub const fn is_table_loss(self) -> bool {
        self.0 < -TABLE_BOUND && self.0 >= -TABLE_WIN
    }

    /// The score in men (`1.0` = one man), for display, in three bands: evaluations within
    /// ±50 ([`Score::EVAL_MAX`]); a win or loss an endgame table proves, ±90 minus a hundredth
    /// per ply to the next conversion (capture or man move; between 80 and 90); a win or loss
    /// at a known distance to the end of the game, ±100 minus a hundredth per ply, the Hub
    /// protocol's convention (a win in 7 plies is `99.93`).
    pub fn men(self) -> f64 {
        match self.plies_to_end() {
            Some(n) if self.is_win() => 100.0 - f64::from(n) / 100.0,
            Some(n) => -100.0 + f64::from(n) / 100.0,
            // Table wins: 90 minus a hundredth per ply to the next conversion.
            None if self.is_table_win() => 90.0 - f64::from(TABLE_WIN - self.0) / 100.0,
            None if self.is_table_loss() => -90.0 + f64::from(TABLE_WIN + self.0) / 100.0,
            None => f64::from(self.0) / 100.0,
        }
    }

    /// The score as stored in the transposition table at `ply` plies from the root: wins and
    /// losses become distances from this node, so that the entry is right at any ply.
    pub(crate) const fn to_tt(self, ply: usize) -> i32 {
        let ply = ply as i32;
        if self.0 > TABLE_BOUND {
            self.0 + ply
        } else if self.0 < -TABLE_BOUND {
            self.0 - ply
        } else {
            self.0
        }
    }

    /// The inverse of [`Score::to_tt`].
    pub(crate) const fn from_tt(stored: i32, ply: usize) -> Score {
        let ply = ply as i32;
        if stored > TABLE_BOUND {
            Score(stored - ply)
        } else if stored < -TABLE_BOUND {
            Score(stored + ply)
        } else {
            Score(stored)
        }
    }
}

impl std::ops::Neg for Score {
    type Output = Score;
    fn neg(self) -> Score {
        Score(-self.0)
    }
}

impl fmt::Display for Score {
    /// `+0.35` in men, or `win in 7` / `loss in 4` (plies).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.plies_to_end() {
            Some(n) if self.is_win() => write!(f, "win in {n}"),
            Some(n) => write!(f, "loss in {n}"),
            None if self.is_table_win() => {
                write!(f, "table win, {} to conversion", TABLE_WIN - self.0)
            }
            None if self.is_table_loss() => {
                write!(f, "table loss, {} to conversion", TABLE_WIN + self.0)
            }
            None => write!(f, "{:+.2}", f64::from(self.0) / 100.0),
        }
    }
}

impl fmt::Debug for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Score({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tt_round_trip_keeps_distance_from_root() {
        let s = Score::win_in(9);
        let stored = s.to_tt(4);
        // Stored as a win in 5 from the node at ply 4 ...
        assert_eq!(Score(stored), Score::win_in(5));
        // ... which is a win in 7 when found again at ply 2.
        assert_eq!(Score::from_tt(stored, 2), Score::win_in(7));
        assert_eq!(Score::from_tt(Score(35).to_tt(7), 3), Score(35));
    }

    #[test]
    fn men_follow_hub_convention() {
        assert_eq!(Score::win_in(7).men(), 99.93);
        assert_eq!(Score::loss_in(4).men(), -99.96);
        assert_eq!(Score(-35).men(), -0.35);
    }
}
