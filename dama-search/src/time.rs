//! The time policy, in one place: how much of the clock a move may use, when to stop.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use crate::control::Knobs;
use crate::limits::{Clock, TimeControl};

/// Time kept back for the GUI and the pipe.
const OVERHEAD: Duration = Duration::from_millis(15);

/// Where the engine reads the time when the host sets it ([`set_host_clock`]).
static HOST_CLOCK: OnceLock<fn() -> Duration> = OnceLock::new();

/// Sets the clock the engine reads, once per process: a function giving the time since a
/// fixed start that never goes back (in a browser, `performance.now()`). Needed where the
/// standard library has no clock (`wasm32-unknown-unknown`, where `Instant::now` panics);
/// elsewhere the engine reads the system's monotonic clock, and this need not be called.
/// Returns `false` (and changes nothing) when a clock was set already.
pub fn set_host_clock(now: fn() -> Duration) -> bool {
    HOST_CLOCK.set(now).is_ok()
}

/// A moment on the engine's clock: the host's ([`set_host_clock`]) when it was given one,
/// else the system's monotonic clock; without either (WebAssembly with no host clock) time
/// stands still, so only depth and node limits end a search.
#[derive(Copy, Clone, Debug)]
pub struct Moment(Duration);

impl Moment {
    /// Now.
    pub fn now() -> Moment {
        Moment(clock_now())
    }

    /// The time since this moment.
    pub fn elapsed(self) -> Duration {
        clock_now().saturating_sub(self.0)
    }

    /// The moment `d` before this one (the clock's start at the earliest).
    pub fn earlier(self, d: Duration) -> Moment {
        Moment(self.0.saturating_sub(d))
    }
}

/// The time since the clock's start.
fn clock_now() -> Duration {
    if let Some(now) = HOST_CLOCK.get() {
        return now();
    }
    system_now()
}

/// The system's monotonic clock, from its first reading plus a day, so that a moment can be
/// placed earlier than the first reading (tests do).
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn system_now() -> Duration {
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed() + Duration::from_secs(86_400)
}

/// No system clock on this target: time stands still until the host gives one.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn system_now() -> Duration {
    Duration::ZERO
}

/// Decides when a search stops for time.
#[derive(Debug)]
pub(crate) struct TimeManager {
    start: Moment,
    /// Do not start a new iteration after this.
    soft: Option<Duration>,
    /// Stop at once after this.
    hard: Option<Duration>,
}

impl TimeManager {
    /// On a clock, the time left is shared over `knobs.moves_to_go` moves when the clock does
    /// not say, and no new iteration starts after `knobs.soft_share` per cent of the move's
    /// share; a time a move is used whole.
    pub fn new(time: TimeControl, start: Moment, knobs: Knobs) -> TimeManager {
        let (soft, hard) = match time {
            TimeControl::None => (None, None),
            TimeControl::MoveTime(t) => {
                let t = t.saturating_sub(Duration::from_millis(2));
                (Some(t), Some(t))
            }
            TimeControl::Clock(clock) => {
                let (soft, hard) = share(clock, knobs.soft_share, knobs.moves_to_go);
                (Some(soft), Some(hard))
            }
        };
        TimeManager { start, soft, hard }
    }

    /// Whether time ends the search at all.
    pub fn has_limit(&self) -> bool {
        self.hard.is_some()
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether the search must stop now (never while pondering).
    pub fn should_stop(&self, pondering: &AtomicBool) -> bool {
        self.hard.is_some_and(|h| self.elapsed() >= h) && !pondering.load(Ordering::Relaxed)
    }

    /// Whether there is time to start another iteration.
    pub fn may_start_depth(&self, pondering: &AtomicBool) -> bool {
        pondering.load(Ordering::Relaxed) || self.soft.is_none_or(|s| self.elapsed() < s)
    }
}

/// The soft limit (`soft_percent` of the target) and the ceiling for one move on `clock`,
/// the time left shared over at most `moves` moves.
fn share(clock: Clock, soft_percent: u8, moves: u8) -> (Duration, Duration) {
    let left = clock.time.saturating_sub(OVERHEAD);
    let most = u32::from(moves.max(1));
    let moves = clock.moves_to_go.unwrap_or(most).clamp(1, most);
    let target = left / moves + clock.increment * 3 / 4;
    let ceiling = (target * 3).min(left / 3 + clock.increment / 2).min(left);
    let target = target.min(ceiling);
    // An iteration usually takes longer than all before it: start one only early enough.
    let soft = (target * u32::from(soft_percent) / 100).min(ceiling);
    (soft, ceiling.max(Duration::from_millis(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knobs(s: &str) -> Knobs {
        s.parse().expect("knobs")
    }

    #[test]
    fn the_soft_share_moves_only_a_clock_search_and_never_past_the_hard_limit() {
        let never = AtomicBool::new(false);
        // 600 ms spent: 400 ms short of a 1 s budget, so that a busy machine does not
        // change the answers.
        let start = Moment::now().earlier(Duration::from_millis(600));
        let t = TimeManager::new(
            TimeControl::MoveTime(Duration::from_secs(1)),
            start,
            knobs("soft=5"),
        );
        assert!(t.may_start_depth(&never));
        let clock = Clock {
            time: Duration::from_secs(30),
            increment: Duration::ZERO,
            moves_to_go: None,
        };
        // A share of 1 s: soft 0.5 s (50 %), hard 3 s.
        let t = TimeManager::new(TimeControl::Clock(clock), start, knobs("soft=50"));
        assert!(!t.may_start_depth(&never));
        let t = TimeManager::new(TimeControl::Clock(clock), start, knobs("soft=100"));
        assert!(t.may_start_depth(&never));
        let late = TimeManager::new(
            TimeControl::Clock(clock),
            Moment::now().earlier(Duration::from_secs(4)),
            knobs("soft=255"),
        );
        assert!(!late.may_start_depth(&never));
    }

    #[test]
    fn clock_share_stays_within_the_time_left() {
        for ms in [0, 10, 100, 1_000, 60_000, 600_000] {
            for inc in [0, 100, 2_000] {
                for mtg in [None, Some(1), Some(5), Some(40)] {
                    let clock = Clock {
                        time: Duration::from_millis(ms),
                        increment: Duration::from_millis(inc),
                        moves_to_go: mtg,
                    };
                    for moves in [1, 20, 30, 255] {
                        let (soft, hard) = share(clock, 80, moves);
                        assert!(soft <= hard);
                        assert!(
                            hard <= Duration::from_millis(ms / 3 + inc / 2 + 1),
                            "{ms} {inc} {mtg:?} {moves}: {hard:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn fewer_moves_to_go_give_a_move_more_of_the_clock_unless_the_clock_says() {
        let mut clock = Clock {
            time: Duration::from_millis(60_015),
            increment: Duration::ZERO,
            moves_to_go: None,
        };
        // 60 s over 30 moves: 2 s, soft limit 1.6 s; over 20: 3 s and 2.4 s.
        let ms = |(soft, hard): (Duration, Duration)| (soft.as_millis(), hard.as_millis());
        assert_eq!(ms(share(clock, 80, 30)), (1_600, 6_000));
        assert_eq!(ms(share(clock, 80, 20)), (2_400, 9_000));
        // The clock's own count wins when it is lower; more moves than the knob are capped.
        clock.moves_to_go = Some(10);
        assert_eq!(ms(share(clock, 80, 20)), (4_800, 18_000));
        clock.moves_to_go = Some(40);
        assert_eq!(ms(share(clock, 80, 20)), (2_400, 9_000));
    }
}
