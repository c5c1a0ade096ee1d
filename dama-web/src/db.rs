//! The games and the players' records in a database: SQLite (one file, one server; the
//! default) or PostgreSQL (any number of servers on one database).
//!
//! [`Db`] is the one interface the server uses; [`sqlite`] and [`postgres`] implement it, and
//! the same tests run against both (PostgreSQL's when `DAMA_TEST_POSTGRES` names a database).
//!
//! The schema is versioned: version N is brought in by the N-th migration script, each in its
//! own transaction; a database written by a newer dama (a version past the last script known
//! here) is refused, not touched. SQLite keeps the version in `user_version`, PostgreSQL in the
//! table `dama_schema`.
//!
//! A game is one row (see [`GameRow`]) with a revision: each write names the revision it read
//! and is refused ([`DbError::Stale`]) when the row has moved on meanwhile, so two servers
//! that take a move for the same game at once never both apply it: the first commit wins and
//! the other request is answered as a stale move is.

mod pool;
pub mod postgres;
pub mod sqlite;

use std::path::{Path, PathBuf};

pub use postgres::{Change, Notice, Postgres};
pub use sqlite::Sqlite;

/// Why the database cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite refused (a full disk, a locked or damaged file).
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL refused, or cannot be reached.
    #[error("database: {}", with_causes(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// The database did not answer in time (down, or overloaded).
    #[error("database: no answer within {0:?}")]
    Timeout(std::time::Duration),
    /// The data directory cannot be made.
    #[error("cannot make the data directory {}: {source}", dir.display())]
    Dir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The database comes from a newer dama.
    #[error("{where_} has schema version {found}; this dama knows versions up to {known}: use a newer dama or another database")]
    TooNew {
        /// The file or the database.
        where_: String,
        /// Its version.
        found: i64,
        /// The newest version known here.
        known: usize,
    },
    /// The address given for PostgreSQL is not one.
    #[error("database address {given}: {why}; expected postgres://user:password@host:port/name")]
    BadUrl {
        /// The address (its password hidden).
        given: String,
        /// What is wrong with it.
        why: String,
    },
    /// The game changed in the database since it was read (another server committed first):
    /// nothing was written.
    #[error("the game changed meanwhile (another server committed first)")]
    Stale,
    /// A blocking task failed (a bug).
    #[error("database task: {0}")]
    Task(String),
}

/// `err` and its causes, as "error connecting to server: Connection refused (os error 111)".
fn with_causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    text
}

impl DbError {
    /// Whether the database itself is unreachable or refused (not a conflict of revisions):
    /// worth a 503 and a retry.
    pub fn unavailable(&self) -> bool {
        !matches!(self, DbError::Stale)
    }
}

/// A game as stored (and as the servers on one database tell each other of it).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameRow {
    /// The id (32 hex digits).
    pub id: String,
    /// `computer`, `friend` or `pass`.
    pub opponent: String,
    /// The variant's name.
    pub variant: String,
    /// The start position.
    pub start_fen: String,
    /// The moves in Hub notation, separated by spaces.
    pub moves: String,
    /// The computer's level (1..5).
    pub level: u32,
    /// The level a win is scored at.
    pub scored_level: u32,
    /// The computer's seed.
    pub seed: u64,
    /// How far the computer's generator has gone in its stream (as text in a notice: a
    /// tagged JSON enum cannot hold a number past 64 bits).
    #[serde(with = "text_u128")]
    pub rng_word_pos: u128,
    /// White's seat secret (friend games).
    pub white_secret: Option<String>,
    /// Black's seat secret (friend games).
    pub black_secret: Option<String>,
    /// The player credited with White's result.
    pub white_player: Option<String>,
    /// The player credited with Black's result.
    pub black_player: Option<String>,
    /// The PDN result once the game is over.
    pub result: Option<String>,
    /// Unix seconds of creation.
    pub created: i64,
    /// Unix seconds of the last change.
    pub updated: i64,
    /// The number of writes of this game so far (1 once created).
    pub revision: i64,
}

/// A `u128` written as its decimal text.
mod text_u128 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(n: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(n)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// One player's results at one level (`friend` for games between people).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// The level's name, or `friend`.
    pub level: String,
    /// Games finished.
    pub games: u64,
    /// Won.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost.
    pub losses: u64,
    /// Points summed over the games.
    pub score: u64,
}

/// A finished game's result for one player, added to their record with the game's last write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credit {
    /// The player.
    pub player: String,
    /// The level's name or `friend`.
    pub level: String,
    /// 1 win, 0 draw, -1 loss.
    pub result: i8,
    /// The points of the game.
    pub score: u32,
}

/// Where the games are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// SQLite in this directory (`None`: in memory, lost at exit).
    Sqlite(Option<PathBuf>),
    /// PostgreSQL at this address (`postgres://…` or a `key=value` string).
    Postgres(String),
}

/// The database: SQLite or PostgreSQL behind one interface. Cheap to clone.
#[derive(Clone)]
pub enum Db {
    /// One SQLite file (or memory), one server.
    Sqlite(Sqlite),
    /// A PostgreSQL database shared by any number of servers.
    Postgres(Postgres),
}

impl Db {
    /// Opens (or creates) the database of `target`, bringing its schema up to date.
    ///
    /// # Errors
    /// [`DbError`] when it cannot be reached or used, or is newer than this dama.
    pub async fn open(target: &Target) -> Result<Db, DbError> {
        match target {
            Target::Sqlite(dir) => {
                let dir = dir.clone();
                let db = tokio::task::spawn_blocking(move || Sqlite::open(dir.as_deref()))
                    .await
                    .map_err(|e| DbError::Task(e.to_string()))??;
                Ok(Db::Sqlite(db))
            }
            Target::Postgres(url) => Ok(Db::Postgres(Postgres::open(url).await?)),
        }
    }

    /// SQLite in `dir` (`None`: in memory), opened on this thread.
    ///
    /// # Errors
    /// [`DbError`] when the directory or the file cannot be used.
    pub fn sqlite(dir: Option<&Path>) -> Result<Db, DbError> {
        Sqlite::open(dir).map(Db::Sqlite)
    }

    /// `sqlite` or `postgres`, for `/healthz` and the logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Db::Sqlite(_) => "sqlite",
            Db::Postgres(_) => "postgres",
        }
    }

    /// The schema version of the database (a round trip: fails when it is down).
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn version(&self) -> Result<i64, DbError> {
        match self {
            Db::Sqlite(db) => db.run(|db| db.version()).await,
            Db::Postgres(db) => db.version().await,
        }
    }

    /// Writes `row` (new when `base` is 0, else changed from revision `base`; the row carries
    /// `base + 1`) and adds `credits` to the players' records, in one transaction; returns
    /// once it is committed.
    ///
    /// # Errors
    /// [`DbError::Stale`] when the stored game is not at revision `base` (or, new, already
    /// there); any other when the database refuses. Nothing is written then.
    pub async fn commit(
        &self,
        row: GameRow,
        credits: Vec<Credit>,
        base: i64,
    ) -> Result<(), DbError> {
        match self {
            Db::Sqlite(db) => db.commit(row, credits, base).await,
            Db::Postgres(db) => db.commit(row, credits, base).await,
        }
    }

    /// The game `id`, if stored.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn load(&self, id: &str) -> Result<Option<GameRow>, DbError> {
        match self {
            Db::Sqlite(db) => {
                let id = id.to_string();
                db.run(move |db| db.load(&id)).await
            }
            Db::Postgres(db) => db.load(id).await,
        }
    }

    /// Deletes game `id`; whether it was there.
    ///
    /// # Errors
    /// When the database refuses.
    pub async fn delete(&self, id: &str) -> Result<bool, DbError> {
        match self {
            Db::Sqlite(db) => {
                let id = id.to_string();
                db.run(move |db| db.delete(&id)).await
            }
            Db::Postgres(db) => db.delete(id).await,
        }
    }

    /// Deletes the games untouched since `before` (unix seconds); how many.
    ///
    /// # Errors
    /// When the database refuses.
    pub async fn prune(&self, before: i64) -> Result<usize, DbError> {
        match self {
            Db::Sqlite(db) => db.run(move |db| db.prune(before)).await,
            Db::Postgres(db) => db.prune(before).await,
        }
    }

    /// The number of stored games.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn count(&self) -> Result<u64, DbError> {
        match self {
            Db::Sqlite(db) => db.run(|db| db.count()).await,
            Db::Postgres(db) => db.count().await,
        }
    }

    /// `player`'s records, one per level played.
    ///
    /// # Errors
    /// When the database cannot be read.
    pub async fn records(&self, player: &str) -> Result<Vec<Record>, DbError> {
        match self {
            Db::Sqlite(db) => {
                let player = player.to_string();
                db.run(move |db| db.records(&player)).await
            }
            Db::Postgres(db) => db.records(player).await,
        }
    }

    /// Makes the database whole on disk before the server stops (SQLite's log into its file).
    ///
    /// # Errors
    /// When the database refuses.
    pub async fn close(&self) -> Result<(), DbError> {
        match self {
            Db::Sqlite(db) => db.run(|db| db.checkpoint()).await,
            Db::Postgres(_) => Ok(()),
        }
    }

    /// The changes other servers make to the games, as they are committed (PostgreSQL only:
    /// with SQLite this server is the only one).
    pub fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        match self {
            Db::Sqlite(_) => None,
            Db::Postgres(db) => Some(db.notices()),
        }
    }

    /// Tells the other servers of a change to a game that is not in its row (a draw offer,
    /// who is connected, a rematch); sent in the background, in order.
    pub fn announce(&self, notice: Notice) {
        if let Db::Postgres(db) = self {
            db.announce(notice);
        }
    }

    /// Whether the other servers' changes reach this one now (always with SQLite).
    pub fn relay_up(&self) -> bool {
        match self {
            Db::Sqlite(_) => true,
            Db::Postgres(db) => db.listening(),
        }
    }
}

#[cfg(test)]
mod tests;
