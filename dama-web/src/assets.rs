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
const ASSETS: [(&str, &str, &str); 13] = [
    ("/", HTML, PAGE),
    ("/app.js", JS, include_str!("../web/app.js")),
    ("/texts.js", JS, include_str!("../web/texts.js")),
    ("/api.js", JS, include_str!("../web/api.js")),
    ("/style.css", CSS, include_str!("../web/style.css")),
    ("/analysis.js", JS, include_str!("../web/analysis.js")),
    ("/board.js", JS, include_str!("../web/board.js")),
    ("/editor.js", JS, include_str!("../web/editor.js")),
    ("/engine.js", JS, include_str!("../web/engine.js")),
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
