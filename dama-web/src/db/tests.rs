//! The same tests for both stores: SQLite always, PostgreSQL when `DAMA_TEST_POSTGRES` names a
//! database (each test in a schema of its own, dropped at the end).

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
        revision: 1,
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dama-dbt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A PostgreSQL database of its own for one test: a fresh schema on `DAMA_TEST_POSTGRES`.
pub(crate) struct PgScratch {
    url: String,
    schema: String,
}

impl PgScratch {
    /// A fresh schema, or `None` without `DAMA_TEST_POSTGRES`.
    pub(crate) async fn new() -> Option<PgScratch> {
        let base = std::env::var("DAMA_TEST_POSTGRES").ok()?;
        let schema = format!("t{:016x}", rand::random::<u64>());
        let (client, conn) = tokio_postgres::connect(&base, tokio_postgres::NoTls)
            .await
            .expect("DAMA_TEST_POSTGRES: the test database is reachable");
        tokio::spawn(conn);
        client
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .await
            .unwrap();
        let join = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{join}options=-csearch_path%3D{schema}");
        Some(PgScratch { url, schema })
    }

    /// The target of the schema.
    pub(crate) fn target(&self) -> Target {
        Target::Postgres(self.url.clone())
    }

    /// Drops the schema.
    pub(crate) async fn drop_schema(self) {
        let base = std::env::var("DAMA_TEST_POSTGRES").unwrap_or_default();
        if let Ok((client, conn)) = tokio_postgres::connect(&base, tokio_postgres::NoTls).await {
            tokio::spawn(conn);
            let _ = client
                .batch_execute(&format!("DROP SCHEMA {} CASCADE", self.schema))
                .await;
        }
    }
}

/// Runs `test` on a fresh SQLite file, then (with `DAMA_TEST_POSTGRES`) on a fresh schema.
async fn on_both<F, Fut>(name: &str, test: F)
where
    F: Fn(Target) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let dir = scratch(name);
    test(Target::Sqlite(Some(dir.clone()))).await;
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(pg) = PgScratch::new().await {
        test(pg.target()).await;
        pg.drop_schema().await;
    }
}

#[tokio::test]
async fn a_saved_game_reads_back_after_reopening() {
    on_both("reopen", |target| async move {
        let db = Db::open(&target).await.unwrap();
        let mut r = row("a");
        db.commit(r.clone(), Vec::new(), 0).await.unwrap();
        r.moves = "22-18 11-14".into();
        r.updated = 2;
        let credit = Credit {
            player: "p".into(),
            level: "normal".into(),
            result: 1,
            score: 260,
        };
        db.commit(r.clone(), vec![credit.clone()], 1).await.unwrap();
        db.commit(r.clone(), vec![credit], 2).await.unwrap();
        drop(db);
        let db = Db::open(&target).await.unwrap();
        assert_eq!(db.version().await.unwrap(), sqlite::MIGRATIONS.len() as i64);
        r.revision = 3;
        assert_eq!(db.load("a").await.unwrap(), Some(r));
        assert_eq!(db.load("b").await.unwrap(), None);
        assert_eq!(db.count().await.unwrap(), 1);
        let rec = db.records("p").await.unwrap();
        assert_eq!((rec[0].games, rec[0].wins, rec[0].score), (2, 2, 520));
        assert_eq!(db.prune(2).await.unwrap(), 0);
        assert_eq!(db.prune(3).await.unwrap(), 1);
        assert!(db.records("nobody").await.unwrap().is_empty());
        db.close().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_write_from_a_stale_revision_is_refused_and_changes_nothing() {
    on_both("stale", |target| async move {
        let db = Db::open(&target).await.unwrap();
        let mut r = row("g");
        db.commit(r.clone(), Vec::new(), 0).await.unwrap();
        // The same new game twice: the second is stale.
        let again = db.commit(r.clone(), Vec::new(), 0).await;
        assert!(matches!(again, Err(DbError::Stale)), "{again:?}");
        // Two writes from revision 1: the first wins.
        r.moves = "22-18".into();
        db.commit(r.clone(), Vec::new(), 1).await.unwrap();
        let mut other = r.clone();
        other.moves = "21-17".into();
        let credit = Credit {
            player: "p".into(),
            level: "friend".into(),
            result: 1,
            score: 1,
        };
        let lost = db.commit(other, vec![credit], 1).await;
        assert!(matches!(lost, Err(DbError::Stale)), "{lost:?}");
        let stored = db.load("g").await.unwrap().unwrap();
        assert_eq!((stored.moves.as_str(), stored.revision), ("22-18", 2));
        assert!(db.records("p").await.unwrap().is_empty());
        // A deleted game cannot be written either.
        assert!(db.delete("g").await.unwrap());
        assert!(!db.delete("g").await.unwrap());
        let gone = db.commit(r, Vec::new(), 2).await;
        assert!(matches!(gone, Err(DbError::Stale)), "{gone:?}");
    })
    .await;
}

#[tokio::test]
async fn moves_for_one_game_from_many_tasks_are_applied_once_each() {
    on_both("race", |target| async move {
        let db = Db::open(&target).await.unwrap();
        db.commit(row("r"), Vec::new(), 0).await.unwrap();
        let tries: Vec<_> = (0..8)
            .map(|i| {
                let (db, mut r) = (db.clone(), row("r"));
                r.moves = format!("move{i}");
                tokio::spawn(async move { db.commit(r, Vec::new(), 1).await })
            })
            .collect();
        let mut won = 0;
        for t in tries {
            match t.await.unwrap() {
                Ok(()) => won += 1,
                Err(DbError::Stale) => {}
                Err(other) => panic!("{other}"),
            }
        }
        assert_eq!(won, 1);
        assert_eq!(db.load("r").await.unwrap().unwrap().revision, 2);
    })
    .await;
}

#[tokio::test]
async fn a_database_from_a_newer_dama_is_refused() {
    let Some(pg) = PgScratch::new().await else {
        return;
    };
    drop(Db::open(&pg.target()).await.unwrap());
    let Target::Postgres(url) = pg.target() else {
        unreachable!()
    };
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
        .batch_execute("UPDATE dama_schema SET version = 99")
        .await
        .unwrap();
    let err = Db::open(&pg.target()).await.err().unwrap();
    assert!(matches!(err, DbError::TooNew { found: 99, .. }), "{err}");
    pg.drop_schema().await;
}

#[tokio::test]
async fn an_unreachable_database_fails_fast() {
    // A port nothing listens on (the discard port of loopback).
    let started = std::time::Instant::now();
    let err = Db::open(&Target::Postgres("postgres://dama@127.0.0.1:9/dama".into()))
        .await
        .err()
        .unwrap();
    assert!(err.unavailable(), "{err}");
    assert!(started.elapsed() < postgres::OP_TIMEOUT * 2);
    let bad = Db::open(&Target::Postgres("postgres://a:secret@h:notaport/x".into()))
        .await
        .err()
        .unwrap();
    assert!(matches!(bad, DbError::BadUrl { .. }), "{bad}");
    assert!(!bad.to_string().contains("secret"), "{bad}");
}

#[tokio::test]
async fn another_servers_write_is_heard() {
    let Some(pg) = PgScratch::new().await else {
        return;
    };
    let a = Db::open(&pg.target()).await.unwrap();
    let b = Db::open(&pg.target()).await.unwrap();
    let mut heard = b.notices().unwrap();
    // Listening starts in the background: wait for it.
    for _ in 0..100 {
        if b.relay_up() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let id = format!("{:032x}", rand::random::<u128>());
    a.commit(row(&id), Vec::new(), 0).await.unwrap();
    let notice = loop {
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), heard.recv())
            .await
            .expect("the notice arrives")
            .unwrap();
        if n.game == id {
            break n;
        }
    };
    let Change::Row {
        revision,
        row: Some(heard),
    } = notice.change
    else {
        panic!("{notice:?}")
    };
    assert_eq!((revision, heard.moves.as_str(), heard.revision), (1, "", 1));
    pg.drop_schema().await;
}
