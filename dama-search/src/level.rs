//! The five levels of the original game, as data.

use std::fmt;
use std::str::FromStr;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::{Error, RootLine, Score};

/// A playing level: Novice (1) to Hard (5). Normal is the default.
///
/// ```
/// use dama_search::Level;
/// assert_eq!(Level::default(), Level::Normal);
/// assert_eq!("hard".parse::<Level>()?, Level::Hard);
/// assert_eq!(Level::Hard.number(), 5);
/// # Ok::<_, dama_search::Error>(())
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default, PartialOrd, Ord)]
pub enum Level {
    /// Leaves the player chances: shallow, and often not the best move.
    Novice,
    /// A beginner's opponent.
    Easy,
    /// A club player's opponent (the default).
    #[default]
    Normal,
    /// Deep and exact.
    Strong,
    /// Full strength within the time it is given.
    Hard,
}

/// What a level may spend and how it chooses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LevelProfile {
    /// Deepest iteration, if capped.
    pub depth: Option<u32>,
    /// Node budget, if capped (node caps keep a level's strength independent of the machine).
    pub nodes: Option<u64>,
    /// Moves scoring within this margin of the best (hundredths of a man) may be chosen.
    pub margin: i32,
    /// Softmax temperature among those moves, in hundredths of a man (0: always the best).
    pub temperature: i32,
}

/// One row per level, Novice first.
pub const PROFILES: [LevelProfile; 5] = [
    LevelProfile {
        depth: Some(2),
        nodes: Some(300),
        margin: 80,
        temperature: 40,
    },
    LevelProfile {
        depth: Some(4),
        nodes: Some(1_500),
        margin: 40,
        temperature: 20,
    },
    LevelProfile {
        depth: Some(8),
        nodes: Some(8_000),
        margin: 15,
        temperature: 8,
    },
    LevelProfile {
        depth: Some(14),
        nodes: Some(40_000),
        margin: 0,
        temperature: 0,
    },
    LevelProfile {
        depth: None,
        nodes: None,
        margin: 0,
        temperature: 0,
    },
];

impl Level {
    /// How long Hard thinks when it is given no limit at all.
    pub const DEFAULT_MOVE_TIME: std::time::Duration = std::time::Duration::from_secs(1);

    /// Every level, weakest first.
    pub const ALL: [Level; 5] = [
        Level::Novice,
        Level::Easy,
        Level::Normal,
        Level::Strong,
        Level::Hard,
    ];

    /// 1 (Novice) to 5 (Hard), as the game's keys and score rule use it.
    pub const fn number(self) -> u32 {
        self as u32 + 1
    }

    /// The level of number 1..=5.
    pub const fn from_number(n: u32) -> Option<Level> {
        match n {
            1..=5 => Some(Level::ALL[n as usize - 1]),
            _ => None,
        }
    }

    /// The lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Novice => "novice",
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Strong => "strong",
            Level::Hard => "hard",
        }
    }

    /// This level's row of [`PROFILES`].
    pub const fn profile(self) -> LevelProfile {
        PROFILES[self as usize]
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = Error;

    fn from_str(s: &str) -> Result<Level, Error> {
        let t = s.trim().to_ascii_lowercase();
        Level::ALL
            .into_iter()
            .find(|l| l.name() == t || t.parse::<u32>().ok() == Some(l.number()))
            .ok_or_else(|| Error::UnknownLevel {
                name: crate::excerpt(s),
            })
    }
}

/// Chooses among scored root lines (best first) as `profile` says: the best with a zero
/// margin, else a softmax over the lines within the margin of the best.
pub(crate) fn choose(lines: &[RootLine], profile: &LevelProfile, rng: &mut ChaCha8Rng) -> usize {
    let Some(best) = lines.first().map(|l| l.score) else {
        return 0;
    };
    if profile.margin <= 0 || best.is_win() || best.is_loss() {
        return 0;
    }
    let floor = best.0 - profile.margin;
    let candidates: Vec<f64> = lines
        .iter()
        .take_while(|l| l.score.0 >= floor && l.score != Score(-crate::score::INFINITE))
        .map(|l| {
            let t = f64::from(profile.temperature.max(1));
            (f64::from(l.score.0 - best.0) / t).exp()
        })
        .collect();
    let total: f64 = candidates.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (i, w) in candidates.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stronger_levels_never_search_less() {
        for pair in Level::ALL.windows(2) {
            let (lo, hi) = (pair[0].profile(), pair[1].profile());
            let more = |a: Option<u64>, b: Option<u64>| match (a, b) {
                (_, None) => true,
                (None, Some(_)) => false,
                (Some(a), Some(b)) => b >= a,
            };
            assert!(more(lo.depth.map(u64::from), hi.depth.map(u64::from)));
            assert!(more(lo.nodes, hi.nodes));
            assert!(hi.margin <= lo.margin);
        }
    }

    #[test]
    fn numbers_round_trip() {
        for l in Level::ALL {
            assert_eq!(Level::from_number(l.number()), Some(l));
            assert_eq!(l.name().parse::<Level>().unwrap(), l);
        }
        assert!(Level::from_number(0).is_none());
        assert!("expert".parse::<Level>().is_err());
    }
}
