//! The page, its styles and its script, embedded in the binary (from `dama-web/web/`).

use axum::http::{header, HeaderName, HeaderValue};
use axum::response::IntoResponse;

const PAGE: &str = include_str!("../web/index.html");
const SCRIPT: &str = include_str!("../web/app.js");
const TEXTS: &str = include_str!("../web/texts.js");
const CLIENT: &str = include_str!("../web/api.js");
const STYLES: &str = include_str!("../web/style.css");

/// The security headers are set on every answer (see `guard.rs`).
fn headers(kind: &'static str) -> [(HeaderName, HeaderValue); 2] {
    [
        (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ]
}

/// `GET /`: the page.
pub async fn page() -> impl IntoResponse {
    (headers("text/html; charset=utf-8"), PAGE)
}

/// `GET /app.js`: the script.
pub async fn script() -> impl IntoResponse {
    (headers("text/javascript; charset=utf-8"), SCRIPT)
}

/// `GET /texts.js`: the page's texts (an ES module).
pub async fn texts() -> impl IntoResponse {
    (headers("text/javascript; charset=utf-8"), TEXTS)
}

/// `GET /api.js`: the page's API client (an ES module).
pub async fn client() -> impl IntoResponse {
    (headers("text/javascript; charset=utf-8"), CLIENT)
}

/// `GET /style.css`: the styles.
pub async fn styles() -> impl IntoResponse {
    (headers("text/css; charset=utf-8"), STYLES)
}
