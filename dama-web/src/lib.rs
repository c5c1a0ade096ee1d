//! The browser game of dama: an HTTP server (axum on tokio) that serves one page, its
//! styles and its script, all embedded in the binary, and a JSON API that owns the rules
//! and the games (see `api.rs`). The computer thinks on tokio's blocking pool, a few searches
//! at a time (`computer.rs`); games live in a bounded store and are forgotten when idle
//! (`store.rs`). Game reviews (`review.rs`) and live analysis (`live.rs`) search on slots and
//! engines of their own (`analysis.rs`), a few at a time, each with a budget. `dama serve` is
//! a thin front end over [`Server`].
//!
//! ```
//! use dama_web::{Options, Server};
//!
//! let runtime = tokio::runtime::Runtime::new()?;
//! runtime.block_on(async {
//!     let server = Server::bind(Options::loopback()).await?;
//!     assert!(server.url().starts_with("http://127.0.0.1:"));
//!     // Runs until the future given resolves (here at once): then it drains and stops.
//!     server.run(async {}).await?;
//!     Ok::<_, dama_web::WebError>(())
//! })?;
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

mod analysis;
mod api;
mod assets;
mod computer;
pub mod db;
mod error;
mod fair;
mod follow;
mod games;
mod guard;
mod live;
mod metrics;
mod moves;
mod relay;
mod request;
mod review;
mod seats;
mod state;
mod status;
mod store;
mod views;

pub use assets::{export, has_browser_engine};

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tower::ServiceExt as _;

/// What the server was asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// The address to listen on.
    pub bind: IpAddr,
    /// The port (0: any free port).
    pub port: u16,
    /// The most games kept in memory at once.
    pub max_games: usize,
    /// A game untouched this long leaves memory (it stays in the database).
    pub idle: Duration,
    /// Searches run at the same time (each with its own engine).
    pub searchers: usize,
    /// Analysis searches (reviews, live analysis) run at the same time, apart from the
    /// computer's: each with its own engine and a budget.
    pub analysts: usize,
    /// The data directory of the database; `None`: everything in memory, lost at exit.
    /// Not read when `database` is given.
    pub data: Option<PathBuf>,
    /// A PostgreSQL database (`postgres://user:password@host:port/name`) in place of SQLite
    /// in `data`: any number of servers on it serve the same games.
    pub database: Option<String>,
    /// A stored game untouched this long (finished or abandoned) is deleted.
    pub keep: Duration,
    /// The most connections open at once; more are closed as soon as they are accepted. The
    /// last eighth is kept for addresses that hold only a few connections.
    pub max_connections: usize,
    /// The most connections one client address may hold open (not counted behind a trusted
    /// proxy, which must limit its clients itself: every connection comes from it).
    pub connections_per_address: usize,
    /// The most event streams (a game's moves, live analysis) one client address may follow
    /// at once; more are refused with 429.
    pub streams_per_address: usize,
    /// An event stream ends after this long; the browser reconnects by itself, with
    /// `Last-Event-ID`, and misses nothing.
    pub stream_lifetime: Duration,
    /// A client must send a request's headers within this time (else it is cut off).
    pub header_timeout: Duration,
    /// A client must send a request's body within this time (else 408).
    pub body_timeout: Duration,
    /// New games a minute from one client address (0: no limit).
    pub games_per_minute: u32,
    /// Computer replies a minute to one client address (0: no limit).
    pub replies_per_minute: u32,
    /// Take the client's address from `X-Forwarded-For` (behind a reverse proxy).
    pub trust_proxy: bool,
    /// The endgame table files the computer and the analysis read (never written: `dama
    /// egtb build` writes them); `None`: only the tables built in memory (up to 4 pieces).
    pub egtb: Option<PathBuf>,
}

impl Options {
    /// Loopback, any free port, in memory, two searchers, the table files of the default
    /// directory (`dama_search::egtb::default_dir`), and the defaults of `dama serve`.
    pub fn loopback() -> Options {
        Options {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            max_games: 1000,
            idle: Duration::from_secs(1800),
            searchers: 2,
            analysts: 1,
            data: None,
            database: None,
            keep: Duration::from_secs(30 * 24 * 3600),
            max_connections: 10_000,
            connections_per_address: 64,
            streams_per_address: 32,
            stream_lifetime: Duration::from_secs(600),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            games_per_minute: 30,
            replies_per_minute: 600,
            trust_proxy: false,
            egtb: Some(dama_search::egtb::default_dir()),
        }
    }
}

impl Options {
    /// Where the games are kept: PostgreSQL when `database` is given, else SQLite in `data`.
    pub fn target(&self) -> db::Target {
        match &self.database {
            Some(url) => db::Target::Postgres(url.clone()),
            None => db::Target::Sqlite(self.data.clone()),
        }
    }
}

/// What can stop the server from starting or running.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The address cannot be listened on (in use, not this machine's, no permission).
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The database cannot be opened.
    #[error(transparent)]
    Db(#[from] db::DbError),
    /// Something else the system refused.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// How long the server waits for requests in flight once told to stop.
const DRAIN: Duration = Duration::from_secs(5);

/// A server listening on its address, with its database open, not yet answering.
pub struct Server {
    listener: tokio::net::TcpListener,
    local: SocketAddr,
    opts: Options,
    db: db::Db,
}

impl Server {
    /// Opens the database and listens on `opts.bind`:`opts.port`.
    ///
    /// # Errors
    /// [`WebError::Listen`] when the address cannot be listened on, [`WebError::Db`] when
    /// the database cannot be opened.
    pub async fn bind(opts: Options) -> Result<Server, WebError> {
        let db = db::Db::open(&opts.target()).await?;
        let addr = SocketAddr::new(opts.bind, opts.port);
        let listener = listen(addr).map_err(|source| WebError::Listen { addr, source })?;
        let local = listener.local_addr()?;
        Ok(Server {
            listener,
            local,
            opts,
            db,
        })
    }

    /// The address listened on (with the real port when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The page's address as a browser is given it (a wildcard bind shown as loopback).
    pub fn url(&self) -> String {
        page_url(self.local)
    }

    /// Answers requests until `stop` resolves; then stops accepting, ends the event
    /// streams and the searches, lets the requests in flight finish (for a few seconds at
    /// most) and writes the database's log into its file.
    ///
    /// Each connection is served by hyper with a header read timeout; at most
    /// `max_connections` are open at once, at most `connections_per_address` from one
    /// address, and past seven eighths of the cap only addresses holding fewer than four
    /// (those over a cap are closed at once).
    ///
    /// # Errors
    /// When the database cannot be flushed at the end.
    pub async fn run(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), WebError> {
        let Server {
            listener,
            local,
            opts,
            db,
        } = self;
        tracing::info!(%local, max_games = opts.max_games, database = db.kind(), "listening");
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let state = Arc::new(state::State::new(&opts, db.clone(), stop_rx));
        let sweeper = tokio::spawn(store::sweep_forever(Arc::clone(&state.store)));
        let follower = tokio::spawn(relay::follow_others(Arc::clone(&state.store)));
        let tidier = tokio::spawn({
            let state = Arc::clone(&state);
            async move {
                let mut ticks = tokio::time::interval(Duration::from_secs(60));
                loop {
                    ticks.tick().await;
                    state
                        .new_games
                        .iter()
                        .chain(&state.replies)
                        .for_each(guard::Limit::tidy);
                }
            }
        });
        let app = api::router(Arc::clone(&state));
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let max_connections = opts.max_connections.max(1);
        let slots = Arc::new(tokio::sync::Semaphore::new(max_connections));
        let mut stop = std::pin::pin!(stop);
        loop {
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(conn) => conn,
                    Err(err) => {
                        // Out of file descriptors, most likely: wait for some to close.
                        tracing::warn!("cannot accept a connection: {err}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                () = &mut stop => break,
            };
            // Behind a trusted proxy every connection is the proxy's: it limits per client.
            let open = max_connections - slots.available_permits();
            let cap = if opts.trust_proxy {
                usize::MAX
            } else {
                fair::connection_cap(open, max_connections, opts.connections_per_address)
            };
            let held = state.connections.take(peer.ip(), cap);
            let (Some(held), Ok(slot)) = (held, Arc::clone(&slots).try_acquire_owned()) else {
                state
                    .metrics
                    .refused_connections
                    .fetch_add(1, Ordering::Relaxed);
                drop(stream);
                continue;
            };
            let _ = stream.set_nodelay(true);
            let service = app
                .clone()
                .map_request(move |mut req: axum::extract::Request<_>| {
                    req.extensions_mut().insert(ConnectInfo(peer));
                    req
                });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(opts.header_timeout)
                .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
            let conn = graceful.watch(conn);
            let metrics = Arc::clone(&state.metrics);
            metrics.open_connections.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(async move {
                if let Err(err) = conn.await {
                    tracing::debug!(%peer, "connection: {err}");
                }
                metrics.open_connections.fetch_sub(1, Ordering::Relaxed);
                drop(slot);
                drop(held);
            });
        }
        drop(listener);
        tracing::info!("stopping: finishing the requests in flight");
        state.computer.stop_all();
        state.analyst.stop_all();
        let _ = stop_tx.send(true);
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(DRAIN) => {
                tracing::warn!("requests still open after {DRAIN:?}; stopping anyway");
            }
        }
        sweeper.abort();
        follower.abort();
        tidier.abort();
        db.close().await?;
        Ok(())
    }
}

/// Connections waiting to be accepted: a burst of new connections beyond this is dropped by
/// the kernel and retried by the clients a second later.
const BACKLOG: u32 = 4096;

/// A listening socket on `addr` with a long accept queue.
fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// The page's address as a browser is given it (a wildcard bind is shown as loopback).
fn page_url(local: SocketAddr) -> String {
    let ip = match local.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}/", SocketAddr::new(ip, local.port()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_address_is_shown_as_loopback() {
        let any: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert_eq!(page_url(any), "http://127.0.0.1:8080/");
        let v6: SocketAddr = "[::]:80".parse().unwrap();
        assert_eq!(page_url(v6), "http://[::1]:80/");
        let lan: SocketAddr = "192.168.1.5:9000".parse().unwrap();
        assert_eq!(page_url(lan), "http://192.168.1.5:9000/");
    }
}
