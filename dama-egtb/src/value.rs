//! The value of a position: win, draw or loss for the side to move, with the distance to
//! conversion.

use std::fmt;

/// The value of a position for the side to move under perfect play, ignoring the 40-move
/// rule (and every other draw rule): the game-theoretic value, as endgame tables give it.
///
/// Wins and losses carry the distance in the tables' metric, MTC: the plies until the next
/// capture or man move (a *conversion*, which resets the 40-move counter), the winner
/// hurrying it and the loser delaying it, the winner keeping the win. A side without a legal
/// move has lost in 0; a capture or man move that decides the game counts 1.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum Value {
    /// The side to move wins; a winning conversion comes after this many plies (at least 1).
    Win(u32),
    /// Neither side can force a win.
    Draw,
    /// The side to move loses; the conversion comes after at most this many plies (0 when it
    /// has no legal move now).
    Loss(u32),
}

/// Win, draw or loss without a distance.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum Wdl {
    /// The side to move wins.
    Win,
    /// A draw.
    Draw,
    /// The side to move loses.
    Loss,
}

impl Wdl {
    /// The same result seen by the other side.
    pub const fn flip(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }
}

/// The largest distance a stored byte can hold.
pub const MAX_DISTANCE: u32 = 127;

impl Value {
    /// Win, draw or loss.
    pub const fn wdl(self) -> Wdl {
        match self {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }

    /// The distance in plies, `None` for a draw.
    pub const fn distance(self) -> Option<u32> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// The stored byte: 0 a draw, 1..=127 a win in that many plies, 128 + d a loss in d.
    /// `None` when the distance does not fit.
    pub const fn encode(self) -> Option<u8> {
        match self {
            Value::Draw => Some(0),
            Value::Win(d) if d >= 1 && d <= MAX_DISTANCE => Some(d as u8),
            Value::Loss(d) if d <= MAX_DISTANCE => Some(128 + d as u8),
            _ => None,
        }
    }

    /// The value of a stored byte (every byte is a value; see [`Value::encode`]).
    pub const fn decode(b: u8) -> Value {
        match b {
            0 => Value::Draw,
            1..=127 => Value::Win(b as u32),
            _ => Value::Loss(b as u32 - 128),
        }
    }

    /// The stored byte of a DTW table (see [`Metric::Dtw`](crate::Metric::Dtw)): 0 a draw,
    /// 1..=127 a win in `2b - 1` plies, 128 + b a loss in `2b`. A win's distance to the
    /// end is odd (the winner makes the last move) and a loss's even, so halving them loses
    /// nothing and doubles the reach: wins to 253 plies, losses to 254. `None` when the
    /// distance does not fit or has the wrong parity.
    pub const fn encode_dtw(self) -> Option<u8> {
        match self {
            Value::Draw => Some(0),
            Value::Win(d) if d % 2 == 1 && d < 2 * MAX_DISTANCE => Some(d.div_ceil(2) as u8),
            Value::Loss(d) if d % 2 == 0 && d <= 2 * MAX_DISTANCE => Some(128 + (d / 2) as u8),
            _ => None,
        }
    }

    /// The value of a stored byte of a DTW table (see [`Value::encode_dtw`]).
    pub const fn decode_dtw(b: u8) -> Value {
        match b {
            0 => Value::Draw,
            1..=127 => Value::Win(2 * b as u32 - 1),
            _ => Value::Loss(2 * (b as u32 - 128)),
        }
    }

    /// An order from the side to move's view: larger is better (quick wins, then draws, then
    /// slow losses).
    pub const fn key(self) -> i64 {
        match self {
            Value::Win(d) => i64::MAX - d as i64,
            Value::Loss(d) => i64::MIN + d as i64,
            Value::Draw => 0,
        }
    }
}

impl fmt::Display for Value {
    /// `win N`, `draw`, `loss N`: the lines of `dama egtb probe`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win {d}"),
            Value::Draw => f.write_str("draw"),
            Value::Loss(d) => write!(f, "loss {d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips() {
        for b in 0..=255u8 {
            assert_eq!(Value::decode(b).encode(), Some(b), "{b}");
        }
        for b in 0..=255u8 {
            assert_eq!(Value::decode_dtw(b).encode_dtw(), Some(b), "{b}");
        }
        assert_eq!(Value::Win(2).encode_dtw(), None);
        assert_eq!(Value::Loss(3).encode_dtw(), None);
        assert_eq!(Value::Win(253).encode_dtw(), Some(127));
        assert_eq!(Value::Win(255).encode_dtw(), None);
        assert_eq!(Value::Win(0).encode(), None);
        assert_eq!(Value::Win(128).encode(), None);
    }
}
