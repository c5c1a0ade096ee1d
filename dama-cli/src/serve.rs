//! `dama serve`: the browser game of `dama-web`, with the address printed, the desktop's
//! browser opened if asked, and Ctrl-C (or SIGTERM) to stop.

use std::io::Write as _;

use crate::error::CliError;
use crate::exit::Status;

pub use dama_web::Options;

/// The games' directory when `--data` is not given: `$DAMA_DATA_DIR`, else
/// `$XDG_DATA_HOME/dama`, else `~/.local/share/dama`.
///
/// # Errors
/// When none of them is set (no home directory).
pub fn default_data_dir() -> Result<std::path::PathBuf, CliError> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(d) = var("DAMA_DATA_DIR") {
        return Ok(d.into());
    }
    if let Some(d) = var("XDG_DATA_HOME") {
        return Ok(std::path::PathBuf::from(d).join("dama"));
    }
    var("HOME")
        .map(|h| std::path::PathBuf::from(h).join(".local/share/dama"))
        .ok_or_else(|| {
            CliError::Usage(
                "no data directory: set HOME or DAMA_DATA_DIR, give --data DIR, or --memory".into(),
            )
        })
}

/// The PostgreSQL database of `$DAMA_DATABASE`, if set and not empty.
pub fn env_database() -> Option<String> {
    std::env::var("DAMA_DATABASE")
        .ok()
        .filter(|v| !v.trim().is_empty())
}

/// `dama serve --export DIR`: the page as static files in `dir`, each file's name printed.
pub fn export(dir: &std::path::Path) -> Result<Status, CliError> {
    let files = dama_web::export(dir)
        .map_err(|e| CliError::Usage(format!("--export {}: {e}", dir.display())))?;
    let mut out = std::io::stdout().lock();
    for f in &files {
        writeln!(out, "{}", dir.join(f).display()).map_err(CliError::Output)?;
    }
    writeln!(
        out,
        "dama serve --export: {} files; serve {} at the root of a web host (e.g. python3 -m \
         http.server -d {})",
        files.len(),
        dir.display(),
        dir.display()
    )
    .map_err(CliError::Output)?;
    Ok(Status::Ok)
}

/// Runs `dama serve` until Ctrl-C (or SIGTERM); `open` opens the page in the desktop's browser.
pub fn run(opts: Options, open: bool) -> Result<Status, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("dama-serve")
        .build()
        .map_err(|e| CliError::Internal(format!("cannot start the server runtime: {e}")))?;
    runtime.block_on(serve(opts, open))
}

async fn serve(opts: Options, open: bool) -> Result<Status, CliError> {
    let server = dama_web::Server::bind(opts).await.map_err(|e| match e {
        dama_web::WebError::Listen { .. } | dama_web::WebError::Db(_) => {
            CliError::Usage(e.to_string())
        }
        other => CliError::Internal(other.to_string()),
    })?;
    let stop = shutdown_signal()
        .map_err(|e| CliError::Internal(format!("cannot listen for Ctrl-C: {e}")))?;
    let url = server.url();
    let mut out = std::io::stdout().lock();
    writeln!(out, "dama serve: {url} (Ctrl-C stops)").map_err(CliError::Output)?;
    out.flush().map_err(CliError::Output)?;
    drop(out);
    if open {
        open_browser(&url);
    }
    server
        .run(stop)
        .await
        .map_err(|e| CliError::Internal(format!("the server stopped: {e}")))?;
    eprintln!("dama serve: stopped");
    Ok(Status::Ok)
}

/// A future that resolves on Ctrl-C (SIGINT), or SIGTERM where there is one. The handlers
/// are installed at once, before the address is printed: a client that reads the address
/// and stops the server at once must find them in place.
#[cfg(unix)]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
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
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
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
