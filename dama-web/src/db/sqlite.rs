//! The games and the players' records in SQLite: one server, one file.
//!
//! One file, `dama.sqlite3` in the data directory, in WAL mode with `synchronous=FULL`: a
//! write returns once it is on disk, and the API acknowledges a move only after its write
//! returned. Without a data directory (`--memory`) the same tables live in an in-memory
//! database and die with the process.
//!
//! The schema is versioned by SQLite's `user_version`: [`MIGRATIONS`] holds one script per
//! version, applied in order, each in its own transaction, to bring an older file up to date.
//! A file written by a newer dama (a version past the last script) is refused, not touched.
//! PostgreSQL's scripts (`postgres.rs`) keep the same version numbers.
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

use super::{Credit, DbError, GameRow, Record};

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
    // 2: each game's revision, which a write names (two servers never both apply a move).
    "ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;",
];

/// The file of the database in a data directory.
pub const FILE: &str = "dama.sqlite3";

/// The database: one connection, shared by the writer thread and the reads on tokio's
/// blocking pool.
#[derive(Clone)]
pub struct Sqlite {
    conn: Arc<Mutex<Connection>>,
    path: Option<PathBuf>,
    writes: std::sync::mpsc::Sender<Write>,
}

/// A write waiting for the writer thread, and who to tell when it is committed.
struct Write {
    row: GameRow,
    credits: Vec<Credit>,
    base: i64,
    done: tokio::sync::oneshot::Sender<Result<(), DbError>>,
}

/// The most writes committed in one transaction.
const BATCH: usize = 512;

impl Sqlite {
    /// Opens (or creates) the database in `dir`, bringing its schema up to date; `None`: in
    /// memory.
    ///
    /// # Errors
    /// [`DbError`] when the directory or the file cannot be used.
    pub fn open(dir: Option<&Path>) -> Result<Sqlite, DbError> {
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
        let mut db = Sqlite {
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
                where_: match &self.path {
                    Some(path) => path.display().to_string(),
                    None => "the in-memory database".into(),
                },
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

    /// Writes `row` (new when `base` is 0, else changed from revision `base`) and adds
    /// `credits` to the players' records, in one transaction; returns once it is committed.
    ///
    /// # Errors
    /// [`DbError::Stale`] when the stored revision is not `base`; any other when SQLite
    /// refuses. Nothing is written then.
    pub fn save(&self, row: &GameRow, credits: &[Credit], base: i64) -> Result<(), DbError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        write_row(&tx, row, credits, base)?;
        tx.commit()?;
        Ok(())
    }

    /// Like [`Sqlite::save`], committed by the writer thread together with the other writes
    /// waiting; resolves once the transaction holding it is committed.
    ///
    /// # Errors
    /// When SQLite refuses this write or the commit; this write is not in the database then.
    pub async fn commit(
        &self,
        row: GameRow,
        credits: Vec<Credit>,
        base: i64,
    ) -> Result<(), DbError> {
        let (done, answer) = tokio::sync::oneshot::channel();
        self.writes
            .send(Write {
                row,
                credits,
                base,
                done,
            })
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
        match write_row(&sp, &w.row, &w.credits, w.base) {
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

/// The statements of one game's write: a new game is inserted (revision 1), a changed one
/// updated only if still at revision `base`.
fn write_row(tx: &Connection, row: &GameRow, credits: &[Credit], base: i64) -> Result<(), DbError> {
    let p = params![
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
        base,
    ];
    let written = if base == 0 {
        tx.execute(
            "INSERT INTO games (id, opponent, variant, start_fen, moves, level, scored_level,
                 seed, rng_word_pos, white_secret, black_secret, white_player, black_player,
                 result, created, updated, revision)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                 ?17 + 1)
             ON CONFLICT (id) DO NOTHING",
            p,
        )?
    } else {
        tx.execute(
            "UPDATE games SET moves = ?5, level = ?6, scored_level = ?7, rng_word_pos = ?9,
                 white_player = ?12, black_player = ?13, result = ?14, updated = ?16,
                 revision = ?17 + 1
             WHERE id = ?1 AND revision = ?17",
            p,
        )?
    };
    if written == 0 {
        return Err(DbError::Stale);
    }
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

impl Sqlite {
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
                     result, created, updated, revision
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
                        revision: r.get(16)?,
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
        f: impl FnOnce(&Sqlite) -> Result<T, DbError> + Send + 'static,
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

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dama-db-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_file_from_a_newer_dama_is_refused() {
        let dir = scratch("newer");
        drop(Sqlite::open(Some(&dir)).unwrap());
        let conn = Connection::open(dir.join(FILE)).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let err = Sqlite::open(Some(&dir)).err().unwrap();
        assert!(matches!(err, DbError::TooNew { found: 99, .. }), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_of_version_1_is_brought_up_to_date_and_its_games_kept() {
        let dir = scratch("v1");
        std::fs::create_dir_all(&dir).unwrap();
        let conn = Connection::open(dir.join(FILE)).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.execute(
            "INSERT INTO games VALUES ('a', 'friend', 'italian', 'W:W21-32:B1-12', '22-18', \
             1, 1, 7, '0', 's', 't', NULL, NULL, NULL, 1, 1)",
            [],
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        drop(conn);
        let db = Sqlite::open(Some(&dir)).unwrap();
        assert_eq!(db.version().unwrap(), MIGRATIONS.len() as i64);
        let row = db.load("a").unwrap().unwrap();
        assert_eq!((row.moves.as_str(), row.revision), ("22-18", 1));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
