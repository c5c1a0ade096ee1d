//! The page, its styles and its script, embedded in the binary (from `dama-web/web/`).

use axum::http::{header, HeaderName, HeaderValue};
use axum::response::IntoResponse;

const PAGE: &str = include_str!("../web/index.html");
const SCRIPT: &str = include_str!("../web/app.js");
const STYLES: &str = include_str!("../web/style.css");

/// Nothing but this server's own files may load, and no other site may frame the page.
const POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                      script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

fn headers(kind: &'static str) -> [(HeaderName, HeaderValue); 4] {
    [
        (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(POLICY),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
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

/// `GET /style.css`: the styles.
pub async fn styles() -> impl IntoResponse {
    (headers("text/css; charset=utf-8"), STYLES)
}
