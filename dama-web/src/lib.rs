//! The browser game of dama: an HTTP server (axum on tokio) that serves one page, its
//! styles and its script, all embedded in the binary, and a JSON API that owns the rules
//! and the games (see `api.rs`). The computer thinks on tokio's blocking pool, a few searches
//! at a time (`computer.rs`); games live in a bounded store and are forgotten when idle
//! (`store.rs`). `dama serve` is a thin front end over [`Server`].
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

mod api;
mod assets;
mod computer;
mod error;
mod names;
mod store;
mod views;

use std::future::{Future, IntoFuture as _};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// What the server was asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// The address to listen on.
    pub bind: IpAddr,
    /// The port (0: any free port).
    pub port: u16,
    /// The most games kept at once.
    pub max_games: usize,
    /// A game untouched this long is forgotten.
    pub idle: Duration,
    /// Searches run at the same time (each with its own engine).
    pub searchers: usize,
}

impl Options {
    /// Loopback, any free port, the defaults of `dama serve`, two searchers.
    pub fn loopback() -> Options {
        Options {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            max_games: 1000,
            idle: Duration::from_secs(1800),
            searchers: 2,
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
    /// Something else the system refused.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// How long the server waits for requests in flight once told to stop.
const DRAIN: Duration = Duration::from_secs(3);

/// A server listening on its address, not yet answering.
pub struct Server {
    listener: tokio::net::TcpListener,
    local: SocketAddr,
    opts: Options,
}

impl Server {
    /// Listens on `opts.bind`:`opts.port`.
    ///
    /// # Errors
    /// [`WebError::Listen`] when the address cannot be listened on.
    pub async fn bind(opts: Options) -> Result<Server, WebError> {
        let addr = SocketAddr::new(opts.bind, opts.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| WebError::Listen { addr, source })?;
        let local = listener.local_addr()?;
        Ok(Server {
            listener,
            local,
            opts,
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

    /// Answers requests until `stop` resolves, then lets the requests in flight finish (for
    /// a few seconds at most) and stops every search.
    ///
    /// # Errors
    /// When accepting connections fails for good.
    pub async fn run(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), WebError> {
        let opts = self.opts;
        tracing::info!(local = %self.local, max_games = opts.max_games, idle = ?opts.idle, "listening");
        let state = Arc::new(api::State::new(&opts));
        let sweeper = tokio::spawn(store::sweep_forever(Arc::clone(&state.store)));
        let app = api::router(Arc::clone(&state));
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let server = axum::serve(self.listener, app).with_graceful_shutdown({
            let mut rx = stop_rx.clone();
            async move {
                let _ = rx.wait_for(|stopped| *stopped).await;
            }
        });
        let mut server = std::pin::pin!(server.into_future());
        let stopping = tokio::select! {
            result = &mut server => {
                result?;
                false
            }
            () = stop => true,
        };
        if stopping {
            tracing::info!("stopping: finishing the requests in flight");
            state.computer.stop_all();
            let _ = stop_tx.send(true);
            if tokio::time::timeout(DRAIN, &mut server).await.is_err() {
                tracing::warn!("requests still open after {DRAIN:?}; stopping anyway");
            }
        }
        sweeper.abort();
        Ok(())
    }
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
