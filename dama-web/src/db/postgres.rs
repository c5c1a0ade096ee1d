//! The games and the players' records in PostgreSQL: any number of servers on one database.
//!
//! Each operation takes a connection from a small pool of its own (opened on demand, a
//! broken one dropped and replaced, so the server recovers by itself once the database is
//! back) and must finish within [`OP_TIMEOUT`]: a database that is down or too slow makes
//! the request fail at once or after that time ([`DbError::Timeout`]), never hang.
//!
//! The servers tell each other of changes with PostgreSQL's `LISTEN/NOTIFY` on the channel
//! [`CHANNEL`]: a game's write notifies inside its own transaction (the other servers hear of
//! it exactly when it is committed, in commit order), and the changes that are not in the row
//! (a draw offer, who is connected, a rematch) are notified on their own. It needs no other
//! service than the database the servers already share, and its delivery follows the
//! database's transactions; what it does not do (keep a notice for a server that was not
//! listening) is covered by re-reading every game in memory after the listening connection
//! comes back ([`Change::Resync`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::StreamExt as _;
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc, Semaphore};
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, Config, NoTls};

use super::pool::{within, Conn, Pool};
use super::{Credit, DbError, GameRow, Record};

/// The schema, one script per version, with the same version numbers as SQLite's
/// ([`super::sqlite::MIGRATIONS`]).
pub const MIGRATIONS: &[&str] = &[
    // 1: games and records.
    "CREATE TABLE games (
         id TEXT PRIMARY KEY NOT NULL,
         opponent TEXT NOT NULL,
         variant TEXT NOT NULL,
         start_fen TEXT NOT NULL,
         moves TEXT NOT NULL,
         level INTEGER NOT NULL,
         scored_level INTEGER NOT NULL,
         seed BIGINT NOT NULL,
         rng_word_pos TEXT NOT NULL,
         white_secret TEXT,
         black_secret TEXT,
         white_player TEXT,
         black_player TEXT,
         result TEXT,
         created BIGINT NOT NULL,
         updated BIGINT NOT NULL
     );
     CREATE INDEX games_by_age ON games (updated);
     CREATE TABLE records (
         player TEXT NOT NULL,
         level TEXT NOT NULL,
         games BIGINT NOT NULL,
         wins BIGINT NOT NULL,
         draws BIGINT NOT NULL,
         losses BIGINT NOT NULL,
         score BIGINT NOT NULL,
         PRIMARY KEY (player, level)
     );",
    // 2: each game's revision, which a write names (two servers never both apply a move).
    "ALTER TABLE games ADD COLUMN revision BIGINT NOT NULL DEFAULT 1;",
];

/// A new game's row, with the notice of it; no row when the id is taken.
const INSERT: &str = "WITH written AS (
        INSERT INTO games (id, opponent, variant, start_fen, moves, level, scored_level, seed,
            rng_word_pos, white_secret, black_secret, white_player, black_player, result,
            created, updated, revision)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 1)
        ON CONFLICT (id) DO NOTHING
        RETURNING id)
    SELECT pg_notify($17, $18) FROM written";

/// A game's changed row, only from the revision read ($10), with the notice of it; no row
/// when another write came first.
const UPDATE: &str = "WITH written AS (
        UPDATE games SET moves = $2, level = $3, scored_level = $4, rng_word_pos = $5,
            white_player = $6, black_player = $7, result = $8, updated = $9,
            revision = $10 + 1
        WHERE id = $1 AND revision = $10
        RETURNING id)
    SELECT pg_notify($11, $12) FROM written";

/// A result added to a player's record at a level.
const CREDIT: &str = "INSERT INTO records (player, level, games, wins, draws, losses, score)
        VALUES ($1, $2, 1, $3, $4, $5, $6)
        ON CONFLICT (player, level) DO UPDATE SET
            games = records.games + 1, wins = records.wins + $3,
            draws = records.draws + $4, losses = records.losses + $5,
            score = records.score + $6";

/// A game's row.
const LOAD: &str = "SELECT id, opponent, variant, start_fen, moves, level, scored_level, seed,
        rng_word_pos, white_secret, black_secret, white_player, black_player, result,
        created, updated, revision
    FROM games WHERE id = $1";

/// The longest notice that carries the game's row (PostgreSQL takes payloads under 8,000
/// bytes): a longer game is read by the others from the database.
const NOTICE_ROW_LIMIT: usize = 7000;

/// The channel of `LISTEN/NOTIFY` the servers share.
pub const CHANNEL: &str = "dama_games";

/// The longest any database operation may take (a connection included) before the request
/// is answered 503.
pub const OP_TIMEOUT: Duration = Duration::from_secs(5);

/// The most connections one server opens for its requests (the listening one apart).
const POOL_SIZE: usize = 16;

/// The advisory lock held while migrating, so that servers starting together take turns.
const MIGRATION_LOCK: i64 = 0x6461_6d61;

/// A change to a game, from one server to the others.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// The server that made it (each server hears its own notices too, and skips them).
    pub from: u64,
    /// The game's id.
    pub game: String,
    /// What changed.
    pub change: Change,
}

/// What changed in a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// Its row was written: it is now at this revision.
    Row {
        /// The revision committed.
        revision: i64,
        /// The row as written, when it fits in a notice (else the others read it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        row: Option<Box<GameRow>>,
    },
    /// What is not in the row, as the sending server has it.
    State {
        /// The draw offer, when the sending server changed it: 0 none, 1 White's, 2 Black's
        /// (`None`: unchanged, so that a presence change never undoes an offer the sender had
        /// not heard of yet).
        offer: Option<u8>,
        /// The event streams the sending server holds for each seat (White, Black).
        here: [usize; 2],
        /// The rematch (its id and seats' secrets), once asked for.
        rematch: Option<(String, [String; 2])>,
    },
    /// Notices may have been missed (the listening connection was lost): every game in
    /// memory is to be read again. Never sent between servers.
    Resync,
    /// The sending server is alive (sent every few seconds): the presence it counted is
    /// dropped by the others once it falls silent (killed, cut off).
    Alive,
}

struct Inner {
    pool: Arc<Pool>,
    /// This server's number among those on the database (random).
    instance: u64,
    notices: broadcast::Sender<Notice>,
    listening: AtomicBool,
    announce: mpsc::UnboundedSender<Notice>,
}

/// A PostgreSQL database, shared with the other servers on it. Cheap to clone.
#[derive(Clone)]
pub struct Postgres {
    inner: Arc<Inner>,
}

/// `url` with its password hidden, for messages.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let user = &url[s + 3..at];
            let name = user.split(':').next().unwrap_or("");
            format!("{}{}{}", &url[..s + 3], name, &url[at..])
        }
        // A `key=value` string: its password's value left out.
        _ => url
            .split_whitespace()
            .map(|kv| match kv.split_once('=') {
                Some(("password", _)) => "password=…",
                _ => kv,
            })
            .collect::<Vec<_>>()
            .join(" "),
    }
}

impl Postgres {
    /// Connects to the database at `url`, brings its schema up to date, and starts listening
    /// to the other servers' notices.
    ///
    /// # Errors
    /// [`DbError::BadUrl`] for an address that is not one, [`DbError::TooNew`] for a schema
    /// newer than this dama's, or why the database cannot be reached.
    pub async fn open(url: &str) -> Result<Postgres, DbError> {
        let mut config: Config =
            url.parse()
                .map_err(|e: tokio_postgres::Error| DbError::BadUrl {
                    given: redacted(url),
                    why: e.to_string(),
                })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(3));
        }
        config.keepalives_idle(Duration::from_secs(30));
        if config.get_application_name().is_none() {
            config.application_name("dama");
        }
        let pool = Arc::new(Pool {
            config: config.clone(),
            idle: Mutex::new(Vec::new()),
            slots: Arc::new(Semaphore::new(POOL_SIZE)),
        });
        let (notices, _) = broadcast::channel(4096);
        let (announce, queue) = mpsc::unbounded_channel();
        let db = Postgres {
            inner: Arc::new(Inner {
                pool,
                instance: rand::random(),
                notices,
                listening: AtomicBool::new(false),
                announce,
            }),
        };
        within(db.migrate()).await?;
        tokio::spawn(listen_forever(config, Arc::downgrade(&db.inner)));
        tokio::spawn(announce_forever(Arc::downgrade(&db.inner), queue));
        Ok(db)
    }

    async fn conn(&self) -> Result<Conn, DbError> {
        self.inner.pool.get().await
    }

    /// This server's number in the notices it sends.
    pub fn instance(&self) -> u64 {
        self.inner.instance
    }

    async fn migrate(&self) -> Result<(), DbError> {
        let mut c = self.conn().await?;
        let tx = c.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS dama_schema (version INTEGER NOT NULL)")
            .await?;
        let found: i32 = tx
            .query_one("SELECT coalesce(max(version), 0) FROM dama_schema", &[])
            .await?
            .get(0);
        if found as usize > MIGRATIONS.len() {
            let db: String = tx.query_one("SELECT current_database()", &[]).await?.get(0);
            return Err(DbError::TooNew {
                where_: format!("PostgreSQL database {db}"),
                found: i64::from(found),
                known: MIGRATIONS.len(),
            });
        }
        for (i, script) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
            tx.batch_execute(script).await?;
            tracing::info!(version = i + 1, "database schema updated");
        }
        let version = MIGRATIONS.len() as i32;
        if found < version {
            tx.execute("DELETE FROM dama_schema", &[]).await?;
            tx.execute("INSERT INTO dama_schema (version) VALUES ($1)", &[&version])
                .await?;
        }
        tx.commit().await?;
        c.finished = true;
        Ok(())
    }

    /// The schema version of the database.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn version(&self) -> Result<i64, DbError> {
        within(async {
            let mut c = self.conn().await?;
            let v: i32 = c
                .query_one("SELECT coalesce(max(version), 0) FROM dama_schema", &[])
                .await?
                .get(0);
            c.finished = true;
            Ok(i64::from(v))
        })
        .await
    }

    /// Writes `row` (new when `base` is 0, else changed from revision `base`) and adds
    /// `credits` to the records, in one transaction that also notifies the other servers.
    ///
    /// # Errors
    /// [`DbError::Stale`] when the stored revision is not `base`; any other when the
    /// database refuses or does not answer. Nothing is written then.
    pub async fn commit(
        &self,
        row: GameRow,
        credits: Vec<Credit>,
        base: i64,
    ) -> Result<(), DbError> {
        let notice = Notice {
            from: self.inner.instance,
            game: row.id.clone(),
            change: Change::Row {
                revision: base + 1,
                row: Some(Box::new(row.clone())),
            },
        };
        let mut payload =
            serde_json::to_string(&notice).map_err(|e| DbError::Task(e.to_string()))?;
        if payload.len() > NOTICE_ROW_LIMIT {
            // The others read the row themselves.
            let bare = Notice {
                change: Change::Row {
                    revision: base + 1,
                    row: None,
                },
                ..notice
            };
            payload = serde_json::to_string(&bare).map_err(|e| DbError::Task(e.to_string()))?;
        }
        within(async {
            let mut c = self.conn().await?;
            let (sql, level, scored) = (
                if base == 0 { INSERT } else { UPDATE },
                row.level as i32,
                row.scored_level as i32,
            );
            let (seed, word_pos) = (row.seed as i64, row.rng_word_pos.to_string());
            let write = c.statement(sql).await?;
            let insert_params: [&(dyn ToSql + Sync); 18] = [
                &row.id,
                &row.opponent,
                &row.variant,
                &row.start_fen,
                &row.moves,
                &level,
                &scored,
                &seed,
                &word_pos,
                &row.white_secret,
                &row.black_secret,
                &row.white_player,
                &row.black_player,
                &row.result,
                &row.created,
                &row.updated,
                &CHANNEL,
                &payload,
            ];
            let update_params: [&(dyn ToSql + Sync); 12] = [
                &row.id,
                &row.moves,
                &level,
                &scored,
                &word_pos,
                &row.white_player,
                &row.black_player,
                &row.result,
                &row.updated,
                &base,
                &CHANNEL,
                &payload,
            ];
            let params: &[&(dyn ToSql + Sync)] = if base == 0 {
                &insert_params
            } else {
                &update_params
            };
            if credits.is_empty() {
                // One statement, its own transaction: the write and its notice, or neither.
                let written = c.query(&write, params).await?.len();
                c.finished = true;
                return if written == 0 {
                    Err(DbError::Stale)
                } else {
                    Ok(())
                };
            }
            let credit = c.statement(CREDIT).await?;
            let tx = c.transaction().await?;
            if tx.query(&write, params).await?.is_empty() {
                tx.rollback().await?;
                c.finished = true;
                return Err(DbError::Stale);
            }
            for cr in &credits {
                tx.execute(
                    &credit,
                    &[
                        &cr.player,
                        &cr.level,
                        &i64::from(cr.result == 1),
                        &i64::from(cr.result == 0),
                        &i64::from(cr.result == -1),
                        &i64::from(cr.score),
                    ],
                )
                .await?;
            }
            tx.commit().await?;
            c.finished = true;
            Ok(())
        })
        .await
    }

    /// The game `id`, if stored.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn load(&self, id: &str) -> Result<Option<GameRow>, DbError> {
        within(async {
            let mut c = self.conn().await?;
            let load = c.statement(LOAD).await?;
            let row = c.query_opt(&load, &[&id]).await?;
            c.finished = true;
            Ok(row.map(|r| GameRow {
                id: r.get(0),
                opponent: r.get(1),
                variant: r.get(2),
                start_fen: r.get(3),
                moves: r.get(4),
                level: r.get::<_, i32>(5) as u32,
                scored_level: r.get::<_, i32>(6) as u32,
                seed: r.get::<_, i64>(7) as u64,
                rng_word_pos: r.get::<_, String>(8).parse().unwrap_or(0),
                white_secret: r.get(9),
                black_secret: r.get(10),
                white_player: r.get(11),
                black_player: r.get(12),
                result: r.get(13),
                created: r.get(14),
                updated: r.get(15),
                revision: r.get(16),
            }))
        })
        .await
    }

    /// Runs one statement that changes rows; how many.
    async fn change(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, DbError> {
        within(async {
            let mut c = self.conn().await?;
            let n = c.execute(sql, params).await?;
            c.finished = true;
            Ok(n)
        })
        .await
    }

    /// Deletes game `id`; whether it was there.
    ///
    /// # Errors
    /// When the database refuses or does not answer.
    pub async fn delete(&self, id: &str) -> Result<bool, DbError> {
        Ok(self
            .change("DELETE FROM games WHERE id = $1", &[&id])
            .await?
            > 0)
    }

    /// Deletes the games untouched since `before` (unix seconds); how many.
    ///
    /// # Errors
    /// When the database refuses or does not answer.
    pub async fn prune(&self, before: i64) -> Result<usize, DbError> {
        Ok(self
            .change("DELETE FROM games WHERE updated < $1", &[&before])
            .await? as usize)
    }

    /// The number of stored games.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn count(&self) -> Result<u64, DbError> {
        within(async {
            let mut c = self.conn().await?;
            let n: i64 = c.query_one("SELECT count(*) FROM games", &[]).await?.get(0);
            c.finished = true;
            Ok(n as u64)
        })
        .await
    }

    /// `player`'s records, one per level played.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn records(&self, player: &str) -> Result<Vec<Record>, DbError> {
        within(async {
            let mut c = self.conn().await?;
            let rows = c
                .query(
                    "SELECT level, games, wins, draws, losses, score FROM records
                     WHERE player = $1",
                    &[&player],
                )
                .await?;
            c.finished = true;
            Ok(rows
                .iter()
                .map(|r| Record {
                    level: r.get(0),
                    games: r.get::<_, i64>(1) as u64,
                    wins: r.get::<_, i64>(2) as u64,
                    draws: r.get::<_, i64>(3) as u64,
                    losses: r.get::<_, i64>(4) as u64,
                    score: r.get::<_, i64>(5) as u64,
                })
                .collect())
        })
        .await
    }

    /// The other servers' notices, from now on.
    pub fn notices(&self) -> broadcast::Receiver<Notice> {
        self.inner.notices.subscribe()
    }

    /// Sends `notice` to the other servers in the background (in order; lost, with a
    /// warning, while the database is down).
    pub fn announce(&self, mut notice: Notice) {
        notice.from = self.inner.instance;
        let _ = self.inner.announce.send(notice);
    }

    /// Whether this server is listening to the others' notices now.
    pub fn listening(&self) -> bool {
        self.inner.listening.load(Ordering::Relaxed)
    }
}

/// Sends the queued notices, one statement each, as long as the database is open here.
async fn announce_forever(inner: Weak<Inner>, mut queue: mpsc::UnboundedReceiver<Notice>) {
    while let Some(notice) = queue.recv().await {
        let Some(inner) = inner.upgrade() else { return };
        let Ok(payload) = serde_json::to_string(&notice) else {
            continue;
        };
        let sent = within(async {
            let mut c = inner.pool.get().await?;
            c.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])
                .await?;
            c.finished = true;
            Ok(())
        })
        .await;
        if let Err(err) = sent {
            tracing::warn!(game = %notice.game, "cannot tell the other servers of a change: {err}");
        }
    }
}

/// Listens on [`CHANNEL`] on a connection of its own, passing the other servers' notices on;
/// reconnects after a second when the connection is lost (then asks for a resync).
async fn listen_forever(config: Config, inner: Weak<Inner>) {
    let mut first = true;
    loop {
        let Some(strong) = inner.upgrade() else {
            return;
        };
        let (me, notices) = (strong.instance, strong.notices.clone());
        drop(strong);
        match listen_once(&config, &inner, me, &notices, first).await {
            Ok(()) => tracing::warn!("the listening database connection ended; reconnecting"),
            Err(err) => tracing::warn!("cannot listen to the other servers: {err}; retrying"),
        }
        if let Some(strong) = inner.upgrade() {
            if strong.listening.swap(false, Ordering::Relaxed) {
                first = false;
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// One listening connection, until it is lost.
async fn listen_once(
    config: &Config,
    inner: &Weak<Inner>,
    me: u64,
    notices: &broadcast::Sender<Notice>,
    first: bool,
) -> Result<(), DbError> {
    let (client, mut connection) = within(async { Ok(config.connect(NoTls).await?) }).await?;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let driver = tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(n)) => {
                    if tx.send(n.payload().to_string()).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(err) => {
                    tracing::debug!("listening connection: {err}");
                    return;
                }
            }
        }
    });
    within(async { Ok(client.batch_execute(&format!("LISTEN {CHANNEL}")).await?) }).await?;
    match inner.upgrade() {
        Some(strong) => strong.listening.store(true, Ordering::Relaxed),
        None => return Ok(()),
    }
    tracing::info!("listening to the other servers' changes");
    if !first {
        let _ = notices.send(Notice {
            from: me,
            game: String::new(),
            change: Change::Resync,
        });
    }
    let mut ticks = tokio::time::interval(Duration::from_secs(5));
    loop {
        tokio::select! {
            payload = rx.recv() => {
                let Some(payload) = payload else { break };
                match serde_json::from_str::<Notice>(&payload) {
                    Ok(n) if n.from != me && n.change != Change::Resync => {
                        let _ = notices.send(n);
                    }
                    Ok(_) => {}
                    Err(err) => tracing::warn!("a notice this server cannot read (a newer dama?): {err}"),
                }
            }
            _ = ticks.tick() => {
                // A connection silently gone (a network cut) shows here.
                if within(async { Ok(client.batch_execute("SELECT 1").await?) }).await.is_err() {
                    break;
                }
            }
        }
    }
    driver.abort();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden_in_messages() {
        assert_eq!(
            redacted("postgres://dama:secret@db:5432/dama"),
            "postgres://dama@db:5432/dama"
        );
        assert_eq!(redacted("host=db user=dama"), "host=db user=dama");
        assert_eq!(
            redacted("host=db password=secret user=dama"),
            "host=db password=… user=dama"
        );
    }

    #[test]
    fn both_stores_have_the_same_schema_versions() {
        assert_eq!(MIGRATIONS.len(), super::super::sqlite::MIGRATIONS.len());
    }

    #[test]
    fn notices_read_back_as_written() {
        let n = Notice {
            from: 7,
            game: "ab".into(),
            change: Change::State {
                offer: Some(2),
                here: [1, 0],
                rematch: None,
            },
        };
        let text = serde_json::to_string(&n).unwrap();
        assert_eq!(serde_json::from_str::<Notice>(&text).unwrap(), n);
    }
}
