//! The live games: a bounded map from game id to game, in front of the database.
//!
//! At most `cap` games are kept in memory. Creating one more first forgets the games idle
//! past the expiry; then, with the database on disk, the least recently used game that no
//! request holds (it is in the database: it comes back on its next request). Only when every
//! game is held by a request (or, in memory only, none is idle) is the creation refused (the
//! API answers 503), so a flood of requests costs at most `cap` small games of memory. A game forgotten
//! here stays in the database and comes back on its next request (with `--memory`, the
//! database is in memory too and a forgotten game is deleted from it). A sweeper forgets
//! idle games, and deletes stored games older than the keep time, in the background.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicI64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use dama_play::{Model, Opponent};
use dama_rules::notation::{self, fen};
use dama_rules::{Color, Outcome, Variant};
use dama_search::{ChaCha8Rng, Level, SeedableRng};
use tokio::sync::watch;

use crate::db::{Credit, Db, DbError, GameRow};
use crate::relay::Relay;
/// A game's id: 128 random bits, written as 32 lower-case hexadecimal digits.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct GameId(u128);

impl GameId {
    /// No game's id (a game's is random): stands for a game not created yet.
    pub const NONE: GameId = GameId(0);

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

/// Who plays the other side of a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The computer.
    Computer,
    /// A friend at another browser: each seat has its own secret.
    Friend,
    /// Two people at one device: one secret plays both sides.
    Pass,
}

impl Kind {
    /// The name in the API and the database.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Computer => "computer",
            Kind::Friend => "friend",
            Kind::Pass => "pass",
        }
    }

    fn parse(text: &str) -> Option<Kind> {
        [Kind::Computer, Kind::Friend, Kind::Pass]
            .into_iter()
            .find(|k| k.name() == text)
    }
}

/// The seat a request holds in a friend or pass game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Seat {
    /// The light pieces (the game's creator).
    White,
    /// The dark pieces (the invited friend).
    Black,
    /// Both sides (pass and play).
    Both,
    /// The creator of a game against the computer (the side the model gives the player).
    Owner,
}

impl Seat {
    /// The name in the API.
    pub fn name(self) -> &'static str {
        match self {
            Seat::White => "white",
            Seat::Black => "black",
            Seat::Both => "both",
            Seat::Owner => "owner",
        }
    }

    /// Whether this seat moves `c`'s pieces.
    pub fn plays(self, c: Color) -> bool {
        match self {
            Seat::Both | Seat::Owner => true,
            Seat::White => c == Color::White,
            Seat::Black => c == Color::Black,
        }
    }
}

/// How a game ended: by the rules, or by a player of a friend game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The rules ended it (no legal move, or a drawing rule).
    Rules(Outcome),
    /// This side resigned.
    Resigned(Color),
    /// The players agreed a draw.
    Agreed,
}

impl Finish {
    /// The winner, if any.
    pub fn winner(self) -> Option<Color> {
        match self {
            Finish::Rules(Outcome::Win(c)) => Some(c),
            Finish::Resigned(c) => Some(!c),
            Finish::Rules(Outcome::Draw(_)) | Finish::Agreed => None,
        }
    }

    /// The result as PDN writes it.
    pub fn pdn(self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Finish {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finish::Rules(o) => write!(f, "{o}"),
            Finish::Resigned(c) => write!(f, "{} wins: {c} resigned", !*c),
            Finish::Agreed => f.write_str("draw agreed by the players"),
        }
    }
}

/// A random secret: 128 bits as 32 hexadecimal digits.
pub fn secret() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// Unix seconds now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// One game and what the server keeps beside it.
#[derive(Debug)]
pub struct Entry {
    /// The game, the level and the score.
    pub model: Model,
    /// Who plays the other side.
    pub kind: Kind,
    /// The computer's choices for this game (seeded by the client or at random).
    pub rng: ChaCha8Rng,
    /// The seed of `rng`.
    pub seed: u64,
    /// Whether the computer is searching its move (the game may not change meanwhile).
    pub thinking: bool,
    /// The seats' secrets, White's then Black's: two in a friend game, the same one twice in
    /// a pass game and in a computer game (its owner's). `None` only for a computer game
    /// stored before games had owners: it can be watched, not played.
    pub secrets: Option<[String; 2]>,
    /// The players credited with each side's result, White's then Black's.
    pub players: [Option<String>; 2],
    /// Unix seconds of creation.
    pub created: i64,
    /// Whether the result is already in the players' records.
    pub credited: bool,
    /// The number of moves committed, for the pages that follow the game.
    pub changes: watch::Sender<usize>,
    /// A resignation or an agreed draw (a friend game), which ends it before the rules do.
    pub ended: Option<Finish>,
    /// The side whose draw offer waits for the other's answer.
    pub draw_offer: Option<Color>,
    /// Per seat (White, Black): whether someone has opened it, and the event streams that
    /// follow the game from it now.
    pub joined: [bool; 2],
    /// See [`Entry::joined`].
    pub connected: [usize; 2],
    /// Bumped at each change that is not a move (an offer, a resignation, a presence), for
    /// the pages that follow the game.
    pub pulse: watch::Sender<u64>,
    /// The rematch of a finished friend game, once a seat asked for it (kept in memory, and
    /// told to the other servers on the database).
    pub rematch: Option<Rematch>,
    /// The revision of the game's row this entry was read from or last wrote (0: not stored
    /// yet); a write names it, and is refused when another server wrote meanwhile.
    pub revision: AtomicI64,
    /// Where [`Entry::poke`] tells the other servers on the database of a change (with
    /// PostgreSQL; set by the store).
    pub relay: Option<Relay>,
    /// The event streams the other servers hold for each seat (White, Black), by server:
    /// counted in [`Entry::connected`] too.
    pub remote: HashMap<u64, [usize; 2]>,
    /// The draw offer as the other servers last heard of it (0 none, 1 White's, 2 Black's).
    pub shared_offer: AtomicU8,
}

/// A friend game's rematch: the new game, its colours swapped, and its seats' secrets.
#[derive(Debug, Clone)]
pub struct Rematch {
    /// The new game.
    pub id: GameId,
    /// Its seats' secrets, White's then Black's (the old game's Black plays White).
    pub secrets: [String; 2],
}

impl Entry {
    /// A new game of `kind`.
    pub fn new(model: Model, kind: Kind, seed: u64, player: Option<String>) -> Entry {
        let secrets = match kind {
            Kind::Friend => Some([secret(), secret()]),
            Kind::Computer | Kind::Pass => {
                let s = secret();
                Some([s.clone(), s])
            }
        };
        let mut players = [None, None];
        players[side(model.human())] = player;
        Entry {
            model,
            kind,
            rng: ChaCha8Rng::seed_from_u64(seed),
            seed,
            thinking: false,
            secrets,
            players,
            created: now(),
            credited: false,
            changes: watch::Sender::new(0),
            ended: None,
            draw_offer: None,
            joined: [kind == Kind::Friend, false],
            connected: [0, 0],
            pulse: watch::Sender::new(0),
            rematch: None,
            revision: AtomicI64::new(0),
            relay: None,
            remote: HashMap::new(),
            shared_offer: AtomicU8::new(0),
        }
    }

    /// How the game ended, if it has.
    pub fn finish(&self) -> Option<Finish> {
        self.model.outcome().map(Finish::Rules).or(self.ended)
    }

    /// Tells the pages that follow the game that something other than a move changed (and,
    /// on PostgreSQL, the other servers, whose pages follow it too).
    pub fn poke(&self) {
        self.pulse.send_modify(|n| *n += 1);
        self.announce_state();
    }

    /// The seat that `secret` opens in this game, if any.
    pub fn seat(&self, secret: Option<&str>) -> Option<Seat> {
        let (given, [white, black]) = (secret?, self.secrets.as_ref()?);
        let same = |a: &str, b: &str| {
            // Compared in full whatever differs, so that timing tells nothing.
            a.len() == b.len()
                && a.bytes()
                    .zip(b.bytes())
                    .fold(0, |acc, (x, y)| acc | (x ^ y))
                    == 0
        };
        match (same(given, white), same(given, black)) {
            (true, true) if self.kind == Kind::Computer => Some(Seat::Owner),
            (true, true) => Some(Seat::Both),
            (true, false) => Some(Seat::White),
            (false, true) => Some(Seat::Black),
            (false, false) => None,
        }
    }

    /// The row that stores this game.
    pub fn row(&self, id: GameId) -> GameRow {
        let game = self.model.game();
        let moves: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
        let [white_secret, black_secret] = match &self.secrets {
            Some([w, b]) => [Some(w.clone()), Some(b.clone())],
            None => [None, None],
        };
        GameRow {
            id: id.to_string(),
            opponent: self.kind.name().into(),
            variant: game.variant().name().into(),
            start_fen: fen::write(game.start()),
            moves: moves.join(" "),
            level: self.model.level().number(),
            scored_level: self.model.scored_level().number(),
            seed: self.seed,
            rng_word_pos: self.rng.get_word_pos(),
            white_secret,
            black_secret,
            white_player: self.players[0].clone(),
            black_player: self.players[1].clone(),
            result: self.finish().map(|f| f.pdn().to_string()),
            created: self.created,
            updated: now(),
            revision: self.revision.load(Ordering::Relaxed) + 1,
        }
    }

    /// The game a row stores.
    ///
    /// # Errors
    /// What in the row is not a game (a damaged or hand-edited file).
    pub fn from_row(row: &GameRow) -> Result<Entry, String> {
        let kind =
            Kind::parse(&row.opponent).ok_or_else(|| format!("opponent {:?}", row.opponent))?;
        let variant: Variant = row.variant.parse().map_err(|e| format!("{e}"))?;
        let start = fen::parse(&row.start_fen).map_err(|e| e.to_string())?;
        let level = |n| Level::from_number(n).ok_or_else(|| format!("level {n}"));
        let (level, scored) = (level(row.level)?, level(row.scored_level)?);
        let model = match kind {
            Kind::Computer => Model::new(variant, start, level),
            Kind::Friend | Kind::Pass => Model::friends(variant, start),
        };
        let mut pos = start;
        let mut moves = Vec::new();
        for text in row.moves.split_whitespace() {
            let m = notation::parse_move_for(variant, &pos, text).map_err(|e| e.to_string())?;
            pos.play_unchecked(m);
            moves.push(m);
        }
        let model = model
            .resume(&moves, level, scored)
            .map_err(|e| e.to_string())?;
        let mut rng = ChaCha8Rng::seed_from_u64(row.seed);
        rng.set_word_pos(row.rng_word_pos);
        let secrets = match (&row.white_secret, &row.black_secret) {
            (Some(w), Some(b)) => Some([w.clone(), b.clone()]),
            _ => None,
        };
        // A result the moves do not reach was a resignation or an agreed draw.
        let ended = match (model.outcome(), row.result.as_deref()) {
            (None, Some("1-0")) => Some(Finish::Resigned(Color::Black)),
            (None, Some("0-1")) => Some(Finish::Resigned(Color::White)),
            (None, Some(_)) => Some(Finish::Agreed),
            _ => None,
        };
        Ok(Entry {
            ended,
            draw_offer: None,
            joined: [true, row.black_player.is_some()],
            connected: [0, 0],
            pulse: watch::Sender::new(0),
            rematch: None,
            revision: AtomicI64::new(row.revision),
            relay: None,
            remote: HashMap::new(),
            shared_offer: AtomicU8::new(0),
            changes: watch::Sender::new(moves.len()),
            model,
            kind,
            rng,
            seed: row.seed,
            thinking: false,
            secrets,
            players: [row.white_player.clone(), row.black_player.clone()],
            created: row.created,
            credited: row.result.is_some(),
        })
    }

    /// Whether the game started from a position set up in the editor (not the variant's
    /// initial position): its result is kept out of the players' records.
    pub fn set_up(&self) -> bool {
        *self.model.game().start() != dama_rules::Position::start()
    }

    /// What the players' records gain when this game has just ended (nothing before, and
    /// nothing twice).
    pub fn credits(&self) -> Vec<Credit> {
        let Some(finish) = self.finish() else {
            return Vec::new();
        };
        // A game from a position set up in the editor is practice: not in any record.
        if self.credited || self.set_up() {
            return Vec::new();
        }
        let result = |c: Color| match finish.winner() {
            Some(w) if w == c => 1,
            Some(_) => -1,
            None => 0,
        };
        let sides: Vec<Color> = match self.kind {
            Kind::Computer => vec![self.model.human()],
            Kind::Friend => vec![Color::White, Color::Black],
            Kind::Pass => Vec::new(),
        };
        let level = match self.model.opponent() {
            Opponent::Computer => self.model.scored_level().name(),
            Opponent::Friend => "friend",
        };
        sides
            .into_iter()
            .filter_map(|c| {
                Some(Credit {
                    player: self.players[side(c)].clone()?,
                    level: level.into(),
                    result: result(c),
                    score: self.model.score_of(c),
                })
            })
            .collect()
    }
}

/// 0 for White, 1 for Black: the index of a side in [`Entry::players`] and [`Entry::secrets`].
pub fn side(c: Color) -> usize {
    usize::from(c == Color::Black)
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

/// The live games, in front of the database.
pub struct Store {
    games: Mutex<HashMap<GameId, Slot>>,
    cap: usize,
    idle: Duration,
    db: Db,
    persistent: bool,
    keep: Duration,
}

impl Store {
    /// A store of at most `cap` games in memory, forgetting those idle for `idle`, in front
    /// of `db` (`persistent`: on disk), whose games are deleted after `keep` untouched.
    pub fn new(cap: usize, idle: Duration, db: Db, persistent: bool, keep: Duration) -> Store {
        Store {
            games: Mutex::new(HashMap::new()),
            cap,
            idle,
            db,
            persistent,
            keep,
        }
    }

    /// The most games kept at once.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// How long an untouched game is kept in memory.
    pub fn idle(&self) -> Duration {
        self.idle
    }

    /// How long an untouched game is kept in the database (in memory: [`Store::idle`]).
    pub fn keep(&self) -> Duration {
        if self.persistent {
            self.keep
        } else {
            self.idle
        }
    }

    /// The database.
    pub fn db(&self) -> &Db {
        &self.db
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<GameId, Slot>> {
        // A panic elsewhere while holding the lock leaves a map that is still whole.
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `entry` under a new id (in memory: the caller commits it).
    ///
    /// # Errors
    /// [`Full`] when `cap` games are live and none is idle.
    pub fn insert(&self, mut entry: Entry) -> Result<(GameId, Shared), Full> {
        let gone = {
            let mut games = self.lock();
            let gone = if games.len() >= self.cap {
                expire(&mut games, self.idle, Instant::now())
            } else {
                Vec::new()
            };
            if games.len() >= self.cap && self.persistent {
                evict_lru(&mut games, None);
            }
            if games.len() >= self.cap {
                return Err(Full { cap: self.cap });
            }
            let mut id = GameId::random();
            while games.contains_key(&id) {
                id = GameId::random();
            }
            entry.relay = self.relay(id);
            let game = Arc::new(tokio::sync::Mutex::new(entry));
            games.insert(
                id,
                Slot {
                    game: Arc::clone(&game),
                    last_used: Instant::now(),
                },
            );
            (gone, id, game)
        };
        let (gone, id, game) = gone;
        self.forget_stored(gone);
        Ok((id, game))
    }

    /// Writes game `id` and `credits` to the database; returns once committed.
    ///
    /// # Errors
    /// When the database refuses.
    pub async fn commit(
        &self,
        id: GameId,
        entry: &Entry,
        credits: Vec<Credit>,
    ) -> Result<(), DbError> {
        let base = entry.revision.load(Ordering::Relaxed);
        let row = entry.row(id);
        self.db.commit(row, credits, base).await?;
        entry.revision.store(base + 1, Ordering::Relaxed);
        Ok(())
    }

    /// The game `id` (from memory, else from the database), marked as used now.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn get(&self, id: GameId) -> Result<Option<Shared>, DbError> {
        if let Some(slot) = self.lock().get_mut(&id) {
            slot.last_used = Instant::now();
            return Ok(Some(Arc::clone(&slot.game)));
        }
        let Some(row) = self.db.load(&id.to_string()).await? else {
            return Ok(None);
        };
        let mut entry = match Entry::from_row(&row) {
            Ok(entry) => entry,
            Err(why) => {
                tracing::warn!(%id, "a stored game cannot be read back ({why}); ignored");
                return Ok(None);
            }
        };
        entry.relay = self.relay(id);
        // Another request may have loaded it meanwhile: theirs is the one.
        let mut games = self.lock();
        let slot = games.entry(id).or_insert_with(|| Slot {
            game: Arc::new(tokio::sync::Mutex::new(entry)),
            last_used: Instant::now(),
        });
        slot.last_used = Instant::now();
        let game = Arc::clone(&slot.game);
        // A game read back counts against the cap too.
        if games.len() > self.cap && self.persistent {
            evict_lru(&mut games, Some(id));
        }
        Ok(Some(game))
    }

    /// Forgets game `id`, here and in the database; whether it was there.
    ///
    /// # Errors
    /// When the database refuses.
    pub async fn remove(&self, id: GameId) -> Result<bool, DbError> {
        let here = self.lock().remove(&id).is_some();
        let stored = self.db.delete(&id.to_string()).await?;
        Ok(here || stored)
    }

    /// The game `id` if it is in memory (not read from the database).
    pub(crate) fn cached(&self, id: GameId) -> Option<Shared> {
        self.lock().get(&id).map(|slot| Arc::clone(&slot.game))
    }

    /// The ids of the games in memory.
    pub(crate) fn ids(&self) -> Vec<GameId> {
        self.lock().keys().copied().collect()
    }

    /// Forgets game `id` in memory only (it was deleted from the database elsewhere).
    pub(crate) fn forget(&self, id: GameId) {
        self.lock().remove(&id);
    }

    /// The number of games in memory.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Forgets the games idle for longer than the expiry; how many.
    pub fn sweep(&self) -> usize {
        let gone = expire(&mut self.lock(), self.idle, Instant::now());
        let n = gone.len();
        self.forget_stored(gone);
        n
    }

    /// Without a disk, a game forgotten in memory is gone: deleted from the database too.
    fn forget_stored(&self, gone: Vec<GameId>) {
        if self.persistent || gone.is_empty() {
            return;
        }
        let Db::Sqlite(db) = &self.db else { return };
        for id in gone {
            if let Err(err) = db.delete(&id.to_string()) {
                tracing::warn!(%id, "cannot delete an expired game: {err}");
            }
        }
    }

    /// Deletes the stored games untouched for longer than the keep time; how many.
    ///
    /// # Errors
    /// When the database refuses.
    pub async fn prune(&self) -> Result<usize, DbError> {
        let before = now() - self.keep().as_secs() as i64;
        self.db.prune(before).await
    }
}

/// Every game is in the database: the least recently used one that no request holds (other
/// than `keep`) leaves memory, to come back on its next request.
fn evict_lru(games: &mut HashMap<GameId, Slot>, keep: Option<GameId>) {
    let lru = games
        .iter()
        .filter(|&(&id, slot)| Some(id) != keep && !held(slot))
        .min_by_key(|(_, slot)| slot.last_used)
        .map(|(&id, _)| id);
    if let Some(id) = lru {
        games.remove(&id);
        tracing::debug!(%id, "the least recently used game left memory");
    }
}

/// Whether some request holds the game (or the computer thinks in it): it is in use.
fn held(slot: &Slot) -> bool {
    Arc::strong_count(&slot.game) > 1 || slot.game.try_lock().is_err()
}

/// Removes the games idle since before `now - idle` that no request holds; their ids.
fn expire(games: &mut HashMap<GameId, Slot>, idle: Duration, now: Instant) -> Vec<GameId> {
    let mut gone = Vec::new();
    games.retain(|&id, slot| {
        let fresh = now.saturating_duration_since(slot.last_used) < idle;
        let kept = fresh || held(slot);
        if !kept {
            gone.push(id);
        }
        kept
    });
    if !gone.is_empty() {
        tracing::debug!(
            gone = gone.len(),
            left = games.len(),
            "idle games forgotten"
        );
    }
    gone
}

/// Sweeps `store` every quarter of its expiry (at least every second, at most every minute),
/// and prunes the database every few minutes.
pub async fn sweep_forever(store: Arc<Store>) {
    let every = (store.idle() / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_prune: Option<Instant> = None;
    loop {
        ticks.tick().await;
        store.sweep();
        if last_prune.is_none_or(|t| t.elapsed() >= Duration::from_secs(300).min(store.keep())) {
            last_prune = Some(Instant::now());
            match store.prune().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(deleted = n, "old games deleted"),
                Err(err) => tracing::warn!("cannot delete old games: {err}"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::Position;

    fn entry() -> Entry {
        let model = Model::new(Variant::Italian, Position::start(), Level::Novice);
        Entry::new(model, Kind::Computer, 1, None)
    }

    fn store(cap: usize, idle: Duration) -> Store {
        Store::new(cap, idle, Db::sqlite(None).unwrap(), false, idle)
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

    #[tokio::test]
    async fn the_cap_refuses_a_game_too_many_until_one_is_idle() {
        let store = store(2, Duration::from_millis(50));
        let (a, _) = store.insert(entry()).unwrap();
        store.insert(entry()).unwrap();
        assert_eq!(store.insert(entry()).unwrap_err(), Full { cap: 2 });
        std::thread::sleep(Duration::from_millis(80));
        // `a` is used again: the other one is the idle game that makes room.
        assert!(store.get(a).await.unwrap().is_some());
        store.insert(entry()).unwrap();
        assert_eq!(store.len(), 2);
        assert!(store.lock().contains_key(&a));
    }

    #[tokio::test]
    async fn a_stored_game_comes_back_after_it_left_memory() {
        let store = Store::new(
            4,
            Duration::from_millis(1),
            Db::sqlite(None).unwrap(),
            true,
            Duration::from_secs(60),
        );
        let (a, game) = store.insert(entry()).unwrap();
        {
            let mut e = game.lock().await;
            e.model.type_move("22-18").unwrap();
            store.commit(a, &e, e.credits()).await.unwrap();
        }
        drop(game);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(store.sweep(), 1);
        let back = store.get(a).await.unwrap().unwrap();
        assert_eq!(back.lock().await.model.game().moves().len(), 1);
        assert!(store.remove(a).await.unwrap());
        assert!(store.get(a).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn on_disk_the_least_recently_used_game_makes_room_and_comes_back() {
        let store = Store::new(
            2,
            Duration::from_secs(3600),
            Db::sqlite(None).unwrap(),
            true,
            Duration::from_secs(3600),
        );
        let (a, game) = store.insert(entry()).unwrap();
        store
            .commit(a, &*game.lock().await, Vec::new())
            .await
            .unwrap();
        drop(game);
        let (b, game) = store.insert(entry()).unwrap();
        store
            .commit(b, &*game.lock().await, Vec::new())
            .await
            .unwrap();
        drop(game);
        std::thread::sleep(Duration::from_millis(5));
        assert!(store.get(a).await.unwrap().is_some());
        // b is the least recently used: it leaves memory for the new game, not a refusal.
        let (c, held) = store.insert(entry()).unwrap();
        assert_eq!(store.len(), 2);
        assert!(!store.lock().contains_key(&b));
        assert!(store.lock().contains_key(&a) && store.lock().contains_key(&c));
        // Back from the database on its next request (making room again).
        drop(held);
        assert!(store.get(b).await.unwrap().is_some());
        assert_eq!(store.len(), 2);
    }

    #[test]
    fn a_game_held_by_a_request_does_not_expire() {
        let store = store(4, Duration::from_millis(20));
        let (a, held) = store.insert(entry()).unwrap();
        let (b, _) = store.insert(entry()).unwrap();
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(store.sweep(), 1);
        assert!(store.lock().contains_key(&a));
        assert!(!store.lock().contains_key(&b));
        drop(held);
    }
}
