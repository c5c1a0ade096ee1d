//! Deferred table builds (a host without threads): a search on the clock queues the classes it
//! needs, `build_deferred` builds them between searches, and the next search plays from them.
//! Its own test binary: the switch is process-wide.

use std::time::Duration;

use dama_rules::{Game, Variant};
use dama_search::egtb::{build_deferred, defer_builds};
use dama_search::{Engine, Limits};

#[test]
fn a_timed_search_queues_its_classes_and_plays_from_them_once_built() {
    defer_builds(true);
    // 2K v 1K: a win the tables play at the root (one node, depth 1) once they have it.
    let game = Game::from_position(Variant::Italian, "W:WK1,K3:BK29".parse().unwrap());
    let limits = Limits::move_time(Duration::from_millis(200));
    let before = Engine::new().search(&game, &limits);
    assert!(
        before.nodes > 1,
        "played from tables not built yet: {before:?}"
    );
    let mut built = 0;
    for _ in 0..10 {
        Engine::new().search(&game, &limits);
        match build_deferred() {
            0 => break,
            n => built += n,
        }
    }
    assert!(built >= 1);
    let after = Engine::new().search(&game, &limits);
    assert_eq!((after.nodes, after.depth), (1, 1), "{after:?}");
    assert!(after.score.is_win(), "{:?}", after.score);
}
