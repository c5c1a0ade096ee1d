//! The pages, their styles and their scripts, embedded in the binary (from `dama-web/web/`).
//!
//! Two pages share the styles, the texts and the API client: the game (`/`) and the analysis
//! board (`/review/{id}` and `/analysis`: reviews, live analysis and the board editor). The
//! scripts are ES modules loaded natively, no build step: `app.js` (the game screen),
//! `analysis.js` (the review and analysis screen), `editor.js` (the board editor),
//! `board.js` (the board view both of those draw with), `texts.js`, `api.js`, `engine.js`
//! (the computer in the player's browser: dama-wasm's module under `/engine/`).

use std::sync::Arc;

use axum::http::{header, HeaderValue};
use axum::routing::get;
use axum::Router;

/// The game page.
const PAGE: &str = include_str!("../web/index.html");
/// The analysis board's page.
const BOARD_PAGE: &str = include_str!("../web/analysis.html");

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// Every asset: its path, its type and its text.
const ASSETS: [(&str, &str, &str); 14] = [
    ("/", HTML, PAGE),
    ("/app.js", JS, include_str!("../web/app.js")),
    ("/texts.js", JS, include_str!("../web/texts.js")),
    ("/api.js", JS, include_str!("../web/api.js")),
    ("/style.css", CSS, include_str!("../web/style.css")),
    ("/analysis.js", JS, include_str!("../web/analysis.js")),
    ("/board.js", JS, include_str!("../web/board.js")),
    ("/editor.js", JS, include_str!("../web/editor.js")),
    ("/engine.js", JS, include_str!("../web/engine.js")),
    ("/local.js", JS, include_str!("../web/local.js")),
    ("/offline.js", JS, include_str!("../web/offline.js")),
    ("/sw.js", JS, include_str!("../web/sw.js")),
    (
        "/manifest.webmanifest",
        "application/manifest+json",
        include_str!("../web/manifest.webmanifest"),
    ),
    (
        "/icon.svg",
        "image/svg+xml",
        include_str!("../web/icon.svg"),
    ),
];

/// The app's icons for phones' home screens (rendered from icon.svg by docs/data/icons.py).
const ICONS: [(&str, &[u8]); 2] = [
    ("/icon-192.png", include_bytes!("../web/icon-192.png")),
    ("/icon-512.png", include_bytes!("../web/icon-512.png")),
];

/// The browser's engine (dama-wasm, embedded by `build.rs` when the workspace has it): the
/// module and its three scripts, at the addresses its scripts expect of one another.
#[cfg(dama_browser_engine)]
const ENGINE: [(&str, &str, &[u8]); 4] = [
    (
        "/engine/dama.wasm",
        "application/wasm",
        include_bytes!(concat!(env!("OUT_DIR"), "/dama.wasm")),
    ),
    (
        "/engine/js/dama.mjs",
        JS,
        include_bytes!(concat!(env!("OUT_DIR"), "/dama.mjs")),
    ),
    (
        "/engine/js/client.mjs",
        JS,
        include_bytes!(concat!(env!("OUT_DIR"), "/client.mjs")),
    ),
    (
        "/engine/js/worker.mjs",
        JS,
        include_bytes!(concat!(env!("OUT_DIR"), "/worker.mjs")),
    ),
];

/// The pages' addresses of the analysis board (the script reads which screen from the path).
const BOARD_PATHS: [&str; 2] = ["/review/{id}", "/analysis"];

/// An asset's answer: its type, revalidated on each load (the security headers are set on
/// every answer, see `guard.rs`).
fn answer(
    kind: &'static str,
    body: &'static (impl AsRef<[u8]> + ?Sized + Sync),
) -> impl axum::response::IntoResponse {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body.as_ref(),
    )
}

/// The routes of every asset.
pub fn routes<S: Send + Sync + 'static>() -> Router<Arc<S>> {
    let mut r = Router::new();
    for (path, kind, body) in ASSETS {
        r = r.route(path, get(move || async move { answer(kind, body) }));
    }
    for path in BOARD_PATHS {
        r = r.route(path, get(|| async { answer(HTML, BOARD_PAGE) }));
    }
    for (path, body) in ICONS {
        r = r.route(path, get(move || async move { answer("image/png", body) }));
    }
    #[cfg(dama_browser_engine)]
    for (path, kind, body) in ENGINE.into_iter().skip(1) {
        r = r.route(path, get(move || async move { answer(kind, body) }));
    }
    #[cfg(dama_browser_engine)]
    {
        r = r.route(ENGINE[0].0, get(module));
    }
    r
}

/// The engine's module, compressed for a browser that accepts `deflate` (all do).
#[cfg(dama_browser_engine)]
async fn module(headers: axum::http::HeaderMap) -> axum::response::Response {
    use axum::response::IntoResponse;
    const PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/dama.wasm.zlib"));
    let deflate = headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|e| e.split(';').next().is_some_and(|e| e.trim() == "deflate"));
    let (_, kind, plain) = ENGINE[0];
    let vary = (header::VARY, HeaderValue::from_static("accept-encoding"));
    if deflate {
        (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                (
                    header::CONTENT_ENCODING,
                    HeaderValue::from_static("deflate"),
                ),
                vary,
            ],
            PACKED,
        )
            .into_response()
    } else {
        (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                vary,
            ],
            plain,
        )
            .into_response()
    }
}

/// The mark of a static copy: its pages answer every API call from the page's own engine.
const STATIC_MARK: &str = "<meta name=\"dama-static\" content=\"1\">";

/// `page` marked as a static copy (the mark goes right after `<head>`).
fn marked(page: &str) -> String {
    match page.find("<head>") {
        Some(i) => format!("{}{STATIC_MARK}{}", &page[..i + 6], &page[i + 6..]),
        None => format!("{STATIC_MARK}{page}"),
    }
}

/// Whether the browser's engine is built in (without it a static copy cannot play).
pub fn has_browser_engine() -> bool {
    cfg!(dama_browser_engine)
}

/// Writes the page as static files into `dir` (created if missing), to be served at the
/// root of any static web host: the game against the computer at every level, the analysis
/// board and the editor, with the browser's engine answering what the server would (see
/// `web/local.js`). Returns the files written, relative to `dir`.
///
/// # Errors
/// A file that cannot be written, or a build without the browser's engine.
pub fn export(dir: &std::path::Path) -> std::io::Result<Vec<String>> {
    if !has_browser_engine() {
        return Err(std::io::Error::other(
            "this dama was built without the browser's engine (dama-wasm): a static copy \
             would have no computer to play",
        ));
    }
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (path, kind, body) in ASSETS {
        let name = if path == "/" {
            "index.html"
        } else {
            &path[1..]
        };
        let bytes = if kind == HTML {
            marked(body).into_bytes()
        } else {
            body.as_bytes().to_vec()
        };
        files.push((name.to_string(), bytes));
    }
    // The analysis board at /analysis (a folder's index: static hosts serve it there).
    files.push((
        "analysis/index.html".into(),
        marked(BOARD_PAGE).into_bytes(),
    ));
    files.push(("analysis.html".into(), marked(BOARD_PAGE).into_bytes()));
    for (path, body) in ICONS {
        files.push((path[1..].to_string(), body.to_vec()));
    }
    #[cfg(dama_browser_engine)]
    for (path, _, body) in ENGINE {
        files.push((path[1..].to_string(), body.to_vec()));
    }
    let mut written = Vec::new();
    for (name, bytes) in files {
        let target = dir.join(&name);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&target, bytes)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", target.display())))?;
        written.push(name);
    }
    Ok(written)
}
