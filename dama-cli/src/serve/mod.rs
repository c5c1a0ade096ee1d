//! `dama serve`: the game against the computer in a web browser.
//!
//! A local HTTP server (axum on tokio) serves one page, its styles and its script, all
//! embedded in the binary, and a small JSON API that owns the rules and the games (see
//! [`api`]). The computer thinks on tokio's blocking pool, a few searches at a time
//! ([`computer`]); games live in a bounded store and are forgotten when idle ([`store`]).

mod api;
mod assets;
mod computer;
mod error;
mod names;
mod store;
mod views;

use std::future::IntoFuture as _;
use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use crate::error::CliError;
use crate::exit::Status;

/// What `dama serve` was asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// The address to listen on.
    pub bind: IpAddr,
    /// The port (0: any free port, printed).
    pub port: u16,
    /// Open the page in the desktop's browser.
    pub open: bool,
    /// The most games kept at once.
    pub max_games: usize,
    /// A game untouched this long is forgotten.
    pub idle: Duration,
    /// Searches run at the same time (each with its own engine).
    pub searchers: usize,
}

/// How long the server waits for requests in flight after Ctrl-C.
const DRAIN: Duration = Duration::from_secs(3);

/// Runs `dama serve` until Ctrl-C (or SIGTERM).
pub fn run(opts: Options) -> Result<Status, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("dama-serve")
        .build()
        .map_err(|e| CliError::Internal(format!("cannot start the server runtime: {e}")))?;
    runtime.block_on(serve(opts))
}

async fn serve(opts: Options) -> Result<Status, CliError> {
    let addr = SocketAddr::new(opts.bind, opts.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| CliError::Usage(format!("cannot listen on {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| CliError::Internal(format!("cannot read the listening address: {e}")))?;
    let stop_signal = shutdown_signal()
        .map_err(|e| CliError::Internal(format!("cannot listen for Ctrl-C: {e}")))?;
    let url = page_url(local);
    let mut out = std::io::stdout().lock();
    writeln!(out, "dama serve: {url} (Ctrl-C stops)").map_err(CliError::Output)?;
    out.flush().map_err(CliError::Output)?;
    drop(out);
    tracing::info!(%local, max_games = opts.max_games, idle = ?opts.idle, "listening");
    if opts.open {
        open_browser(&url);
    }

    let state = Arc::new(api::State::new(&opts));
    let sweeper = tokio::spawn(store::sweep_forever(Arc::clone(&state.store)));
    let app = api::router(Arc::clone(&state));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let server = axum::serve(listener, app).with_graceful_shutdown({
        let mut rx = stop_rx.clone();
        async move {
            let _ = rx.wait_for(|stopped| *stopped).await;
        }
    });
    let mut server = std::pin::pin!(server.into_future());
    let stopping = tokio::select! {
        result = &mut server => {
            result.map_err(|e| CliError::Internal(format!("the server stopped: {e}")))?;
            false
        }
        () = stop_signal => true,
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
    eprintln!("dama serve: stopped");
    Ok(Status::Ok)
}

/// The page's address as a browser is given it (a wildcard bind is shown as loopback).
fn page_url(local: SocketAddr) -> String {
    let ip = match local.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}/", SocketAddr::new(ip, local.port()))
}

/// A future that resolves on Ctrl-C (SIGINT), or SIGTERM where there is one. The handlers
/// are installed at once, before the address is printed: a client that reads the address
/// and stops the server at once must find them in place.
#[cfg(unix)]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {},
            _ = terminate.recv() => {},
        }
    })
}

/// A future that resolves on Ctrl-C.
#[cfg(not(unix))]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    })
}

/// Asks the desktop to open `url`; a failure is a warning, never fatal.
fn open_browser(url: &str) {
    let (program, args): (&str, Vec<&str>) = if cfg!(target_os = "macos") {
        ("open", vec![url])
    } else if cfg!(windows) {
        ("cmd", vec!["/C", "start", "", url])
    } else {
        ("xdg-open", vec![url])
    };
    let spawned = std::process::Command::new(program)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        // Reaped on a thread of its own, so that no zombie is left behind.
        Ok(mut child) => {
            let program = program.to_string();
            std::thread::spawn(move || match child.wait() {
                Ok(status) if !status.success() => {
                    tracing::warn!("{program} could not open the page ({status}); open it by hand");
                }
                Err(err) => tracing::warn!("{program}: {err}"),
                Ok(_) => {}
            });
        }
        Err(err) => {
            tracing::warn!("cannot run {program} to open the page ({err}); open it by hand")
        }
    }
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
