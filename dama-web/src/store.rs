//! The live games: a bounded map from game id to game, whose idle games expire.
//!
//! At most `cap` games are kept. Creating one more first forgets the games idle past the
//! expiry; when all are still in use, the creation is refused (the API answers 503), so a
//! flood of requests costs at most `cap` small games of memory. A sweeper forgets idle games
//! in the background too.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use dama_search::ChaCha8Rng;

use dama_play::Model;

/// A game's id: 128 random bits, written as 32 lower-case hexadecimal digits.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct GameId(u128);

impl GameId {
    /// A fresh random id.
    pub fn random() -> GameId {
        GameId(rand::random())
    }

    /// The id written as `text`, if it is 32 hexadecimal digits.
    pub fn parse(text: &str) -> Option<GameId> {
        if text.len() != 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(text, 16).ok().map(GameId)
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// One game and what the server keeps beside it.
#[derive(Debug)]
pub struct Entry {
    /// The game, the level and the score.
    pub model: Model,
    /// The computer's choices for this game (seeded by the client or at random).
    pub rng: ChaCha8Rng,
    /// Whether the computer is searching its move (the game may not change meanwhile).
    pub thinking: bool,
}

/// A game as the store hands it out: shared, locked while a request works on it.
pub type Shared = Arc<tokio::sync::Mutex<Entry>>;

struct Slot {
    game: Shared,
    last_used: Instant,
}

/// Why a game could not be created.
#[derive(Debug, PartialEq, Eq)]
pub struct Full {
    /// The cap that was reached.
    pub cap: usize,
}

/// The live games.
pub struct Store {
    games: Mutex<HashMap<GameId, Slot>>,
    cap: usize,
    idle: Duration,
}

impl Store {
    /// A store of at most `cap` games, forgetting those idle for `idle`.
    pub fn new(cap: usize, idle: Duration) -> Store {
        Store {
            games: Mutex::new(HashMap::new()),
            cap,
            idle,
        }
    }

    /// The most games kept at once.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// How long an untouched game is kept.
    pub fn idle(&self) -> Duration {
        self.idle
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<GameId, Slot>> {
        // A panic elsewhere while holding the lock leaves a map that is still whole.
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `entry` under a new id.
    ///
    /// # Errors
    /// [`Full`] when `cap` games are live and none is idle.
    pub fn insert(&self, entry: Entry) -> Result<(GameId, Shared), Full> {
        let mut games = self.lock();
        if games.len() >= self.cap {
            expire(&mut games, self.idle, Instant::now());
        }
        if games.len() >= self.cap {
            return Err(Full { cap: self.cap });
        }
        let game = Arc::new(tokio::sync::Mutex::new(entry));
        let mut id = GameId::random();
        while games.contains_key(&id) {
            id = GameId::random();
        }
        games.insert(
            id,
            Slot {
                game: Arc::clone(&game),
                last_used: Instant::now(),
            },
        );
        Ok((id, game))
    }

    /// The game `id`, marked as used now.
    pub fn get(&self, id: GameId) -> Option<Shared> {
        let mut games = self.lock();
        let slot = games.get_mut(&id)?;
        slot.last_used = Instant::now();
        Some(Arc::clone(&slot.game))
    }

    /// Forgets game `id`; whether it was there.
    pub fn remove(&self, id: GameId) -> bool {
        self.lock().remove(&id).is_some()
    }

    /// The number of live games.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Forgets the games idle for longer than the expiry; how many.
    pub fn sweep(&self) -> usize {
        expire(&mut self.lock(), self.idle, Instant::now())
    }
}

/// Removes the games idle since before `now - idle` that no request holds; how many.
fn expire(games: &mut HashMap<GameId, Slot>, idle: Duration, now: Instant) -> usize {
    let before = games.len();
    games.retain(|_, slot| {
        let fresh = now.saturating_duration_since(slot.last_used) < idle;
        // A game some request holds (or the computer thinks in) is in use.
        fresh || Arc::strong_count(&slot.game) > 1 || slot.game.try_lock().is_err()
    });
    let gone = before - games.len();
    if gone > 0 {
        tracing::debug!(gone, left = games.len(), "idle games forgotten");
    }
    gone
}

/// Sweeps `store` every quarter of its expiry (at least every second, at most every minute).
pub async fn sweep_forever(store: Arc<Store>) {
    let every = (store.idle() / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        store.sweep();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::{Position, Variant};
    use dama_search::{Level, SeedableRng};

    fn entry() -> Entry {
        Entry {
            model: Model::new(Variant::Italian, Position::start(), Level::Novice),
            rng: ChaCha8Rng::seed_from_u64(1),
            thinking: false,
        }
    }

    #[test]
    fn ids_are_32_hex_digits_and_parse_back() {
        let id = GameId::random();
        let text = id.to_string();
        assert_eq!(text.len(), 32);
        assert_eq!(GameId::parse(&text), Some(id));
        assert_eq!(GameId::parse("xyz"), None);
        assert_eq!(GameId::parse(&"g".repeat(32)), None);
        assert_eq!(GameId::parse("+0000000000000000000000000000001"), None);
    }

    #[test]
    fn the_cap_refuses_a_game_too_many_until_one_is_idle() {
        let store = Store::new(2, Duration::from_millis(50));
        let (a, _) = store.insert(entry()).unwrap();
        store.insert(entry()).unwrap();
        assert_eq!(store.insert(entry()).unwrap_err(), Full { cap: 2 });
        std::thread::sleep(Duration::from_millis(80));
        // `a` is used again: the other one is the idle game that makes room.
        assert!(store.get(a).is_some());
        store.insert(entry()).unwrap();
        assert_eq!(store.len(), 2);
        assert!(store.get(a).is_some());
    }

    #[test]
    fn a_game_held_by_a_request_does_not_expire() {
        let store = Store::new(4, Duration::from_millis(20));
        let (a, held) = store.insert(entry()).unwrap();
        let (b, _) = store.insert(entry()).unwrap();
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(store.sweep(), 1);
        assert!(store.get(a).is_some());
        assert!(store.get(b).is_none());
        drop(held);
    }
}
