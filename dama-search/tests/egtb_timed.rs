//! A move on the clock never waits for an in-memory endgame table to be built (its own test
//! binary: the build it starts runs on while the process lives).

use std::time::{Duration, Instant};

use dama_rules::{Game, Variant};
use dama_search::{Engine, Limits};

#[test]
fn a_timed_search_does_not_wait_for_an_in_memory_table() {
    // 3K v 2K: the largest kings-only class built in memory (seconds in a release build,
    // far more here), not built yet in this process.
    let game = Game::from_position(Variant::Italian, "W:WK1,K3,K5:BK29,K31".parse().unwrap());
    let t = Instant::now();
    let r = Engine::new().search(&game, &Limits::move_time(Duration::from_millis(50)));
    assert!(r.best.is_some());
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // A search to a depth waits for the table instead, and knows the win.
    let r = Engine::new().search(&game, &Limits::depth(2));
    assert!(r.score.is_win() || r.score.is_table_win(), "{:?}", r.score);
}
