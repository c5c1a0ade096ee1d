//! What a search may spend: depth, nodes, time.

use std::time::Duration;

/// The clock of the side to move, as a GUI gives it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock.
    pub time: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves to play before the next time control, if the control is not sudden death.
    pub moves_to_go: Option<u32>,
}

/// How long a search may think.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum TimeControl {
    /// No time limit: the search ends at its depth or node limit, or when stopped.
    #[default]
    None,
    /// Think this long, then answer.
    MoveTime(Duration),
    /// Share a game clock out among the moves still to play.
    Clock(Clock),
}

/// The limits of one search; every limit given applies, the first reached ends the search.
///
/// ```
/// use std::time::Duration;
/// use dama_search::Limits;
/// let l = Limits::depth(12).with_time(Duration::from_millis(500));
/// assert_eq!(l.depth, Some(12));
/// assert!(Limits::infinite().is_infinite());
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Nodes to search (over all threads).
    pub nodes: Option<u64>,
    /// Time.
    pub time: TimeControl,
}

impl Limits {
    /// The longest time a search is given: a year (365 days). The command line and the
    /// Python bindings refuse a longer time, the Hub protocol counts one as this, so that no
    /// conversion of seconds to a [`Duration`] (or deadline arithmetic) overflows.
    pub const MAX_TIME: Duration = Duration::from_secs(365 * 86_400);

    /// The deepest iteration a search reaches, in plies: a deeper depth limit searches
    /// this deep.
    pub const MAX_DEPTH: u32 = crate::alphabeta::MAX_PLY as u32 - 8;

    /// Search to `depth` plies.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Search about `nodes` nodes.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Think for `time`.
    pub fn move_time(time: Duration) -> Limits {
        Limits::default().with_time(time)
    }

    /// Play on a clock.
    pub fn clock(clock: Clock) -> Limits {
        Limits {
            time: TimeControl::Clock(clock),
            ..Limits::default()
        }
    }

    /// No limit: search until stopped.
    pub fn infinite() -> Limits {
        Limits::default()
    }

    /// These limits and a move time.
    #[must_use]
    pub fn with_time(mut self, time: Duration) -> Limits {
        self.time = TimeControl::MoveTime(time);
        self
    }

    /// Whether nothing but a stop request ends the search.
    pub fn is_infinite(&self) -> bool {
        self.depth.is_none() && self.nodes.is_none() && self.time == TimeControl::None
    }
}
