//! A small pool of PostgreSQL connections: an idle one still open is taken, else a new one
//! opened; one is given back only after an operation finished on it (one cut off by a timeout
//! may still have an answer coming), with the statements prepared on it.

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_postgres::{Client, Config, NoTls, Statement};

use super::postgres::OP_TIMEOUT;
use super::DbError;

/// A pool of connections to one database.
pub(super) struct Pool {
    pub(super) config: Config,
    pub(super) idle: Mutex<Vec<(Client, Prepared)>>,
    pub(super) slots: Arc<Semaphore>,
}

/// The statements prepared on one connection, by their text (one round trip each, once).
pub(super) type Prepared = HashMap<&'static str, Statement>;

/// A connection taken from the pool; given back when dropped if the operation finished.
pub(super) struct Conn {
    client: Option<Client>,
    prepared: Prepared,
    pool: Arc<Pool>,
    pub(super) finished: bool,
    _slot: OwnedSemaphorePermit,
}

impl Conn {
    /// `sql` prepared on this connection (prepared now if it is the first time).
    pub(super) async fn statement(&mut self, sql: &'static str) -> Result<Statement, DbError> {
        if let Some(st) = self.prepared.get(sql) {
            return Ok(st.clone());
        }
        let st = self.prepare(sql).await?;
        self.prepared.insert(sql, st.clone());
        Ok(st)
    }
}

impl Deref for Conn {
    type Target = Client;
    fn deref(&self) -> &Client {
        self.client
            .as_ref()
            .expect("a connection is held until dropped")
    }
}

impl DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut Client {
        self.client
            .as_mut()
            .expect("a connection is held until dropped")
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // One cut off mid-operation (a timeout) may still have an answer coming: not reused.
        if let Some(client) = self.client.take() {
            if self.finished && !client.is_closed() {
                let prepared = std::mem::take(&mut self.prepared);
                self.pool
                    .idle
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((client, prepared));
            }
        }
    }
}

/// Connects to `config`, driving the connection on a task of its own.
pub(super) async fn connect(config: &Config) -> Result<Client, DbError> {
    let (client, connection) = config.connect(NoTls).await?;
    tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::debug!("database connection ended: {err}");
        }
    });
    Ok(client)
}

impl Pool {
    /// A connection: an idle one still open, else a new one.
    pub(super) async fn get(self: &Arc<Pool>) -> Result<Conn, DbError> {
        let slot = Arc::clone(&self.slots)
            .acquire_owned()
            .await
            .map_err(|e| DbError::Task(e.to_string()))?;
        let reused = loop {
            let next = self
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            match next {
                Some((c, _)) if c.is_closed() => continue,
                other => break other,
            }
        };
        let (client, prepared) = match reused {
            Some(pair) => pair,
            None => (connect(&self.config).await?, Prepared::new()),
        };
        Ok(Conn {
            client: Some(client),
            prepared,
            pool: Arc::clone(self),
            finished: false,
            _slot: slot,
        })
    }
}

/// `op`, or [`DbError::Timeout`] after [`OP_TIMEOUT`].
pub(super) async fn within<T>(
    op: impl std::future::Future<Output = Result<T, DbError>>,
) -> Result<T, DbError> {
    tokio::time::timeout(OP_TIMEOUT, op)
        .await
        .map_err(|_| DbError::Timeout(OP_TIMEOUT))?
}
