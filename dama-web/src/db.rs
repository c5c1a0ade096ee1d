//! The games and the players' records in SQLite.
//!
//! One file, `dama.sqlite3` in the data directory, in WAL mode with `synchronous=FULL`: a
//! write returns once it is on disk, and the API acknowledges a move only after its write
//! returned. Without a data directory (`--memory`) the same tables live in an in-memory
//! database and die with the process.
//!
//! The schema is versioned by SQLite's `user_version`: [`MIGRATIONS`] holds one script per
//! version, applied in order, each in its own transaction, to bring an older file up to date.
//! A file written by a newer dama (a version past the last script) is refused, not touched.
//!
//! Writes from many games are committed together (group commit): one writer thread takes
//! every write waiting, applies each in a savepoint of one transaction, commits once (one
//! sync to disk for them all) and only then tells each request that its write is in.
//!
//! A game is one row: its start, its moves as Hub text, its level, the computer's generator
//! (seed and position in its stream), the seats' secrets and players, and its result once
//! over. Finished games, and games nobody has touched, are deleted after the `keep` time.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

/// The schema, one script per version (version N is `MIGRATIONS[N - 1]`).
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
         seed INTEGER NOT NULL,
         rng_word_pos TEXT NOT NULL,
         white_secret TEXT,
         black_secret TEXT,
         white_player TEXT,
         black_player TEXT,
         result TEXT,
         created INTEGER NOT NULL,
         updated INTEGER NOT NULL
     );
     CREATE INDEX games_by_age ON games (updated);
     CREATE TABLE records (
         player TEXT NOT NULL,
         level TEXT NOT NULL,
         games INTEGER NOT NULL,
         wins INTEGER NOT NULL,
         draws INTEGER NOT NULL,
         losses INTEGER NOT NULL,
         score INTEGER NOT NULL,
         PRIMARY KEY (player, level)
     ) WITHOUT ROWID;",
];

/// The file of the database in a data directory.
pub const FILE: &str = "dama.sqlite3";

/// Why the database cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite refused (a full disk, a locked or damaged file).
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The data directory cannot be made.
    #[error("cannot make the data directory {}: {source}", dir.display())]
    Dir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file comes from a newer dama.
    #[error("{} has schema version {found}; this dama knows versions up to {known}: use a newer dama or another --data directory", path.display())]
    TooNew {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: i64,
        /// The newest version known here.
        known: usize,
    },
    /// A blocking task failed (a bug).
    #[error("database task: {0}")]
    Task(String),
}

/// A game as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// How far the computer's generator has gone in its stream.
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

/// The database: one connection, shared by the writer thread and the reads on tokio's
/// blocking pool.
#[derive(Clone)]
pub struct Db {
    conn: Arc<Mutex<Connection>>,
    path: Option<PathBuf>,
    writes: std::sync::mpsc::Sender<Write>,
}

/// A write waiting for the writer thread, and who to tell when it is committed.
struct Write {
    row: GameRow,
    credits: Vec<Credit>,
    done: tokio::sync::oneshot::Sender<Result<(), DbError>>,
}

/// The most writes committed in one transaction.
const BATCH: usize = 512;

impl Db {
    /// Opens (or creates) the database in `dir`, bringing its schema up to date; `None`: in
    /// memory.
    ///
    /// # Errors
    /// [`DbError`] when the directory or the file cannot be used.
    pub fn open(dir: Option<&Path>) -> Result<Db, DbError> {
        let (conn, path) = match dir {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|source| DbError::Dir {
                    dir: dir.to_path_buf(),
                    source,
                })?;
                let path = dir.join(FILE);
                (Connection::open(&path)?, Some(path))
            }
            None => (Connection::open_in_memory()?, None),
        };
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let conn = Arc::new(Mutex::new(conn));
        let (writes, queue) = std::sync::mpsc::channel();
        let mut db = Db {
            conn: Arc::clone(&conn),
            path,
            writes,
        };
        db.migrate()?;
        std::thread::Builder::new()
            .name("dama-db-writer".into())
            .spawn(move || write_forever(&conn, &queue))
            .map_err(|e| DbError::Task(e.to_string()))?;
        Ok(db)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The schema version of the file.
    pub fn version(&self) -> Result<i64, DbError> {
        Ok(self
            .lock()
            .pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

    fn migrate(&mut self) -> Result<(), DbError> {
        let found = self.version()?;
        if found > MIGRATIONS.len() as i64 {
            return Err(DbError::TooNew {
                path: self.path.clone().unwrap_or_default(),
                found,
                known: MIGRATIONS.len(),
            });
        }
        let mut conn = self.lock();
        for (i, script) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
            let tx = conn.transaction()?;
            tx.execute_batch(script)?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
            tx.commit()?;
            tracing::info!(version = i + 1, "database schema updated");
        }
        Ok(())
    }

    /// Writes `row` (new or changed) and adds `credits` to the players' records, in one
    /// transaction; returns once it is committed.
    ///
    /// # Errors
    /// When SQLite refuses; nothing is written then.
    pub fn save(&self, row: &GameRow, credits: &[Credit]) -> Result<(), DbError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        write_row(&tx, row, credits)?;
        tx.commit()?;
        Ok(())
    }

    /// Like [`Db::save`], committed by the writer thread together with the other writes
    /// waiting; resolves once the transaction holding it is committed.
    ///
    /// # Errors
    /// When SQLite refuses this write or the commit; this write is not in the database then.
    pub async fn commit(&self, row: GameRow, credits: Vec<Credit>) -> Result<(), DbError> {
        let (done, answer) = tokio::sync::oneshot::channel();
        self.writes
            .send(Write { row, credits, done })
            .map_err(|_| DbError::Task("the database writer has stopped".into()))?;
        answer
            .await
            .map_err(|_| DbError::Task("the database writer has stopped".into()))?
    }
}

/// Takes the writes as they come, every one waiting at once in one transaction.
fn write_forever(conn: &Mutex<Connection>, queue: &std::sync::mpsc::Receiver<Write>) {
    while let Ok(first) = queue.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match queue.try_recv() {
                Ok(w) => batch.push(w),
                Err(_) => break,
            }
        }
        let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
        let results = write_batch(&mut conn, &batch);
        drop(conn);
        match results {
            Ok(each) => {
                for (w, r) in batch.into_iter().zip(each) {
                    let _ = w.done.send(r);
                }
            }
            Err(err) => {
                tracing::error!(writes = batch.len(), "a group commit failed: {err}");
                let text = err.to_string();
                for w in batch {
                    let _ = w.done.send(Err(DbError::Task(text.clone())));
                }
            }
        }
    }
}

/// One transaction for `batch`, each write in its own savepoint (a refused one leaves the
/// others in); each write's result, or the transaction's error.
fn write_batch(
    conn: &mut Connection,
    batch: &[Write],
) -> Result<Vec<Result<(), DbError>>, DbError> {
    let mut tx = conn.transaction()?;
    let mut results = Vec::with_capacity(batch.len());
    for w in batch {
        let sp = tx.savepoint()?;
        match write_row(&sp, &w.row, &w.credits) {
            Ok(()) => {
                sp.commit()?;
                results.push(Ok(()));
            }
            Err(err) => {
                drop(sp);
                results.push(Err(err));
            }
        }
    }
    tx.commit()?;
    Ok(results)
}

/// The statements of one game's write.
fn write_row(tx: &Connection, row: &GameRow, credits: &[Credit]) -> Result<(), DbError> {
    tx.execute(
        "INSERT INTO games (id, opponent, variant, start_fen, moves, level, scored_level,
                 seed, rng_word_pos, white_secret, black_secret, white_player, black_player,
                 result, created, updated)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
             ON CONFLICT (id) DO UPDATE SET moves = ?5, level = ?6, scored_level = ?7,
                 rng_word_pos = ?9, white_player = ?12, black_player = ?13, result = ?14,
                 updated = ?16",
        params![
            row.id,
            row.opponent,
            row.variant,
            row.start_fen,
            row.moves,
            row.level,
            row.scored_level,
            row.seed as i64,
            row.rng_word_pos.to_string(),
            row.white_secret,
            row.black_secret,
            row.white_player,
            row.black_player,
            row.result,
            row.created,
            row.updated,
        ],
    )?;
    for c in credits {
        tx.execute(
            "INSERT INTO records (player, level, games, wins, draws, losses, score)
                 VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6)
                 ON CONFLICT (player, level) DO UPDATE SET games = games + 1,
                     wins = wins + ?3, draws = draws + ?4, losses = losses + ?5,
                     score = score + ?6",
            params![
                c.player,
                c.level,
                i64::from(c.result == 1),
                i64::from(c.result == 0),
                i64::from(c.result == -1),
                c.score,
            ],
        )?;
    }
    Ok(())
}

impl Db {
    /// The game `id`, if stored.
    ///
    /// # Errors
    /// When SQLite refuses.
    pub fn load(&self, id: &str) -> Result<Option<GameRow>, DbError> {
        let conn = self.lock();
        let row = conn
            .query_row(
                "SELECT id, opponent, variant, start_fen, moves, level, scored_level, seed,
                     rng_word_pos, white_secret, black_secret, white_player, black_player,
                     result, created, updated
                 FROM games WHERE id = ?1",
                [id],
                |r| {
                    Ok(GameRow {
                        id: r.get(0)?,
                        opponent: r.get(1)?,
                        variant: r.get(2)?,
                        start_fen: r.get(3)?,
                        moves: r.get(4)?,
                        level: r.get(5)?,
                        scored_level: r.get(6)?,
                        seed: r.get::<_, i64>(7)? as u64,
                        rng_word_pos: r.get::<_, String>(8)?.parse().unwrap_or(0),
                        white_secret: r.get(9)?,
                        black_secret: r.get(10)?,
                        white_player: r.get(11)?,
                        black_player: r.get(12)?,
                        result: r.get(13)?,
                        created: r.get(14)?,
                        updated: r.get(15)?,
                    })
                },
            )
            .optional()?;
        Ok(row)
    }

    /// Deletes game `id`; whether it was there.
    ///
    /// # Errors
    /// When SQLite refuses.
    pub fn delete(&self, id: &str) -> Result<bool, DbError> {
        Ok(self
            .lock()
            .execute("DELETE FROM games WHERE id = ?1", [id])?
            > 0)
    }

    /// Deletes the games untouched since `before` (unix seconds); how many.
    ///
    /// # Errors
    /// When SQLite refuses.
    pub fn prune(&self, before: i64) -> Result<usize, DbError> {
        Ok(self
            .lock()
            .execute("DELETE FROM games WHERE updated < ?1", [before])?)
    }

    /// The number of stored games.
    ///
    /// # Errors
    /// When SQLite refuses.
    pub fn count(&self) -> Result<u64, DbError> {
        Ok(self
            .lock()
            .query_row("SELECT count(*) FROM games", [], |r| r.get::<_, i64>(0))? as u64)
    }

    /// `player`'s records, one per level played.
    ///
    /// # Errors
    /// When SQLite refuses.
    pub fn records(&self, player: &str) -> Result<Vec<Record>, DbError> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT level, games, wins, draws, losses, score FROM records WHERE player = ?1",
        )?;
        let rows = stmt.query_map([player], |r| {
            Ok(Record {
                level: r.get(0)?,
                games: r.get::<_, i64>(1)? as u64,
                wins: r.get::<_, i64>(2)? as u64,
                draws: r.get::<_, i64>(3)? as u64,
                losses: r.get::<_, i64>(4)? as u64,
                score: r.get::<_, i64>(5)? as u64,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Writes the log into the main file (the server is stopping).
    ///
    /// # Errors
    /// When SQLite refuses.
    pub fn checkpoint(&self) -> Result<(), DbError> {
        if self.path.is_some() {
            self.lock()
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(())
    }

    /// Runs `f` on the database from tokio's blocking pool.
    ///
    /// # Errors
    /// `f`'s error, or [`DbError::Task`] when the task failed.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Db) -> Result<T, DbError> + Send + 'static,
    ) -> Result<T, DbError> {
        let db = self.clone();
        tokio::task::spawn_blocking(move || f(&db))
            .await
            .map_err(|e| DbError::Task(e.to_string()))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str) -> GameRow {
        GameRow {
            id: id.into(),
            opponent: "computer".into(),
            variant: "italian".into(),
            start_fen: "W:W21-32:B1-12".into(),
            moves: String::new(),
            level: 3,
            scored_level: 3,
            seed: u64::MAX,
            rng_word_pos: u128::MAX,
            white_secret: None,
            black_secret: None,
            white_player: Some("p".into()),
            black_player: None,
            result: None,
            created: 1,
            updated: 1,
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dama-db-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_saved_game_reads_back_after_reopening_the_file() {
        let dir = scratch("reopen");
        let db = Db::open(Some(&dir)).unwrap();
        let mut r = row("a");
        db.save(&r, &[]).unwrap();
        r.moves = "22-18 11-14".into();
        r.updated = 2;
        let credit = Credit {
            player: "p".into(),
            level: "normal".into(),
            result: 1,
            score: 260,
        };
        db.save(&r, std::slice::from_ref(&credit)).unwrap();
        db.save(&r, &[credit]).unwrap();
        drop(db);
        let db = Db::open(Some(&dir)).unwrap();
        assert_eq!(db.version().unwrap(), MIGRATIONS.len() as i64);
        assert_eq!(db.load("a").unwrap(), Some(r));
        assert_eq!(db.load("b").unwrap(), None);
        let rec = db.records("p").unwrap();
        assert_eq!((rec[0].games, rec[0].wins, rec[0].score), (2, 2, 520));
        assert_eq!(db.prune(2).unwrap(), 0);
        assert_eq!(db.prune(3).unwrap(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_from_a_newer_dama_is_refused() {
        let dir = scratch("newer");
        drop(Db::open(Some(&dir)).unwrap());
        let conn = Connection::open(dir.join(FILE)).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let err = Db::open(Some(&dir)).err().unwrap();
        assert!(matches!(err, DbError::TooNew { found: 99, .. }), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
