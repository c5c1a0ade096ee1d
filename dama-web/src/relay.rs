//! Several servers on one PostgreSQL database: each game's changes told to the others, and
//! theirs taken in.
//!
//! A game's row written by one server is read again by every other server that holds the
//! game in memory (the database's notice names its new revision); what is not in the row
//! (a draw offer, the event streams open on each seat, a rematch) is told on its own by
//! [`Entry::poke`]. See `db/postgres.rs` for the channel (`LISTEN/NOTIFY`).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dama_rules::Color;

use crate::db::{Change, Db, DbError, GameRow, Notice};
use crate::store::{side, Entry, GameId, Rematch, Store};

/// A game's place among the servers on one database: its id and the database.
#[derive(Clone)]
pub struct Relay {
    pub(crate) id: GameId,
    pub(crate) db: Db,
}

impl fmt::Debug for Relay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Relay({}, {})", self.id, self.db.kind())
    }
}

/// A draw offer as the servers tell each other: 0 none, 1 White's, 2 Black's.
fn offer_code(offer: Option<Color>) -> u8 {
    offer.map_or(0, |c| 1 + side(c) as u8)
}

impl Entry {
    /// Tells the other servers on the database what of this game is not in its row (with
    /// PostgreSQL; nothing with SQLite).
    pub(crate) fn announce_state(&self) {
        if let Some(relay) = &self.relay {
            relay.db.announce(Notice {
                from: 0,
                game: relay.id.to_string(),
                change: self.state_change(),
            });
        }
    }

    /// What the other servers need of this game that is not in its row.
    fn state_change(&self) -> Change {
        let mut here = self.connected;
        for theirs in self.remote.values() {
            here[0] = here[0].saturating_sub(theirs[0]);
            here[1] = here[1].saturating_sub(theirs[1]);
        }
        let offer = offer_code(self.draw_offer);
        let changed = self.shared_offer.swap(offer, Ordering::Relaxed) != offer;
        Change::State {
            offer: changed.then_some(offer),
            here,
            rematch: self
                .rematch
                .as_ref()
                .map(|r| (r.id.to_string(), r.secrets.clone())),
        }
    }

    /// Takes in another server's `change` of what is not in the row (from server `from`).
    fn take_state(&mut self, from: u64, change: Change) {
        let Change::State {
            offer,
            here,
            rematch,
        } = change
        else {
            return;
        };
        if let Some(code) = offer {
            self.draw_offer = match code {
                1 => Some(Color::White),
                2 => Some(Color::Black),
                _ => None,
            };
            self.shared_offer.store(code, Ordering::Relaxed);
        }
        let before = self.remote.insert(from, here).unwrap_or([0, 0]);
        for i in 0..2 {
            self.connected[i] = (self.connected[i] + here[i]).saturating_sub(before[i]);
            self.joined[i] |= here[i] > 0;
        }
        if let Some((id, secrets)) = rematch {
            if let Some(id) = GameId::parse(&id) {
                self.rematch = Some(Rematch { id, secrets });
            }
        }
        self.pulse.send_modify(|n| *n += 1);
    }

    /// Takes in the game as another server wrote it (`row`): the moves, the result, the
    /// players; what is not in the row (presence, offers) stays.
    fn take_row(&mut self, row: &GameRow) -> Result<(), String> {
        let fresh = Entry::from_row(row)?;
        // A move answers a pending draw offer (as on the server that took it): it stands no more.
        if fresh.model.game().moves().len() != self.model.game().moves().len() {
            self.draw_offer = None;
            self.shared_offer.store(0, Ordering::Relaxed);
        }
        self.model = fresh.model;
        self.rng = fresh.rng;
        self.seed = fresh.seed;
        self.secrets = fresh.secrets;
        self.players = fresh.players;
        self.credited = fresh.credited;
        self.ended = fresh.ended;
        self.joined[1] |= fresh.joined[1];
        self.revision.store(row.revision, Ordering::Relaxed);
        let ply = self.model.game().moves().len();
        self.changes
            .send_if_modified(|n| std::mem::replace(n, ply) != ply);
        self.pulse.send_modify(|n| *n += 1);
        Ok(())
    }
}

impl Store {
    /// Where the entry of game `id` tells the other servers of its changes (PostgreSQL).
    pub(crate) fn relay(&self, id: GameId) -> Option<Relay> {
        matches!(self.db(), Db::Postgres(_)).then(|| Relay {
            id,
            db: self.db().clone(),
        })
    }

    /// Reads game `id` again from the database into `entry` (another server changed it);
    /// whether it is still there.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn refresh(&self, id: GameId, entry: &mut Entry) -> Result<bool, DbError> {
        let Some(row) = self.db().load(&id.to_string()).await? else {
            return Ok(false);
        };
        if let Err(why) = entry.take_row(&row) {
            tracing::warn!(%id, "a stored game cannot be read back ({why}); kept as it was");
        }
        Ok(true)
    }

    /// Takes in another server's change to a game (nothing when the game is not in memory
    /// here: it is read from the database when asked for).
    pub async fn apply(&self, notice: Notice) {
        if notice.change == Change::Resync {
            let ids = self.ids();
            for id in ids {
                self.apply_row(id, i64::MAX, None).await;
            }
            return;
        }
        let Some(id) = GameId::parse(&notice.game) else {
            return;
        };
        match notice.change {
            Change::Row { revision, row } => self.apply_row(id, revision, row).await,
            change @ Change::State { .. } => {
                if let Some(game) = self.cached(id) {
                    game.lock().await.take_state(notice.from, change);
                }
            }
            Change::Resync | Change::Alive => {}
        }
    }

    /// Takes in game `id`'s row at `revision` (given, or read again) if it is in memory at an
    /// earlier revision.
    async fn apply_row(&self, id: GameId, revision: i64, row: Option<Box<GameRow>>) {
        let Some(game) = self.cached(id) else { return };
        let mut entry = game.lock().await;
        // A search in progress commits from its own revision (and is refused if stale).
        if entry.thinking || entry.revision.load(Ordering::Relaxed) >= revision {
            return;
        }
        // The row in the notice is the one committed at `revision`: no need to read it.
        if let Some(row) = row.filter(|r| r.revision == revision) {
            if let Err(why) = entry.take_row(&row) {
                tracing::warn!(%id, "another server's row cannot be read ({why}); ignored");
            }
            return;
        }
        match self.refresh(id, &mut entry).await {
            Ok(true) => {}
            Ok(false) => {
                drop(entry);
                self.forget(id);
            }
            Err(err) => tracing::warn!(%id, "cannot read another server's change: {err}"),
        }
    }
}

/// Takes in the other servers' changes to the games as they come (PostgreSQL); returns when
/// the database has no notices to give (SQLite: this server is the only one).
pub async fn follow_others(store: Arc<Store>) {
    let Some(mut notices) = store.db().notices() else {
        return;
    };
    // When each other server was last heard from.
    let mut heard: HashMap<u64, Instant> = HashMap::new();
    let mut ticks = tokio::time::interval(ALIVE_EVERY);
    loop {
        let got = tokio::select! {
            got = notices.recv() => got,
            _ = ticks.tick() => {
                store.db().announce(Notice {
                    from: 0,
                    game: String::new(),
                    change: Change::Alive,
                });
                let silent: Vec<u64> = heard
                    .iter()
                    .filter(|(_, at)| at.elapsed() > SILENT)
                    .map(|(&server, _)| server)
                    .collect();
                if !silent.is_empty() {
                    heard.retain(|server, _| !silent.contains(server));
                    tracing::warn!(servers = silent.len(), "other servers fell silent: their pages are no longer counted");
                    store.forget_servers(&silent).await;
                }
                continue;
            }
        };
        match got {
            Ok(notice) => {
                if notice.change != Change::Resync {
                    heard.insert(notice.from, Instant::now());
                }
                if matches!(notice.change, Change::Row { .. }) {
                    // A row is taken in on a task of its own (it may be read from the
                    // database; the revision check makes their order free); the rest in
                    // order, at once.
                    let store = Arc::clone(&store);
                    tokio::spawn(async move { store.apply(notice).await });
                } else {
                    store.apply(notice).await;
                }
            }
            Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!(
                    missed = n,
                    "other servers' changes came too fast; re-reading"
                );
                store
                    .apply(Notice {
                        from: 0,
                        game: String::new(),
                        change: Change::Resync,
                    })
                    .await;
            }
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// How often a server tells the others it is alive.
const ALIVE_EVERY: Duration = Duration::from_secs(10);

/// How long a server may stay silent before the others stop counting its pages.
const SILENT: Duration = Duration::from_secs(35);

impl Store {
    /// Stops counting the event streams that the `silent` servers held, in every game here.
    async fn forget_servers(&self, silent: &[u64]) {
        for id in self.ids() {
            let Some(game) = self.cached(id) else {
                continue;
            };
            game.lock().await.forget_servers(silent);
        }
    }
}

impl Entry {
    /// Stops counting the event streams that the `silent` servers held.
    fn forget_servers(&mut self, silent: &[u64]) {
        let mut changed = false;
        for server in silent {
            if let Some(here) = self.remote.remove(server) {
                self.connected[0] = self.connected[0].saturating_sub(here[0]);
                self.connected[1] = self.connected[1].saturating_sub(here[1]);
                changed = true;
            }
        }
        if changed {
            self.pulse.send_modify(|n| *n += 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_play::Model;
    use dama_rules::{Position, Variant};

    #[test]
    fn another_servers_pages_count_until_it_falls_silent() {
        let model = Model::friends(Variant::Italian, Position::start());
        let mut e = Entry::new(model, crate::store::Kind::Friend, 1, None);
        e.connected = [1, 0];
        let state = |here| Change::State {
            offer: None,
            here,
            rematch: None,
        };
        e.take_state(7, state([0, 2]));
        e.take_state(8, state([1, 0]));
        assert_eq!(e.connected, [2, 2]);
        e.take_state(7, state([0, 1]));
        assert_eq!(e.connected, [2, 1]);
        assert!(e.joined[1]);
        e.forget_servers(&[7, 9]);
        assert_eq!(e.connected, [2, 0]);
        // Its own count is what it tells the others.
        let Change::State { here, .. } = e.state_change() else {
            unreachable!()
        };
        assert_eq!(here, [1, 0]);
    }
}
