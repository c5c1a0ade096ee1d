//! Error answers of the API: a status, a code for programs, a message for people.

use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use super::review::REVIEW_BODY_LIMIT;
use super::state::BODY_LIMIT;
use super::views::ReasonView;

/// Every `code` an error answer may carry: the page has a text for each, in each of its
/// languages (`e_<code>` in `web/texts.js`). A code is added here, and there, before use.
pub(crate) const CODES: &[&str] = &[
    "ambiguous_move",
    "analysis_busy",
    "bad_action",
    "bad_budget",
    "bad_event_id",
    "bad_fen",
    "bad_game_id",
    "bad_level",
    "bad_opponent",
    "bad_path",
    "bad_pdn",
    "bad_request",
    "bad_seed",
    "bad_square",
    "bad_variant",
    "body_timeout",
    "body_too_large",
    "busy",
    "computer_thinking",
    "game_not_over",
    "game_over",
    "illegal_move",
    "internal",
    "malformed_json",
    "malformed_move",
    "method_not_allowed",
    "needs_server",
    "no_offer",
    "not_a_computer_game",
    "not_a_friend_game",
    "not_a_player",
    "not_computer_turn",
    "not_found",
    "not_json",
    "not_your_turn",
    "offer_pending",
    "other_site",
    "rate_limited",
    "shared_game",
    "stopping",
    "storage",
    "too_long",
    "too_many_games",
    "too_many_streams",
    "unknown_field",
    "unknown_game",
];

/// An error answer: a status, a code for programs, a message for people and, for a refused
/// move or selection, the rules' reason.
#[derive(Debug)]
pub struct ApiError {
    pub(super) status: StatusCode,
    pub(super) code: &'static str,
    pub(super) message: String,
    pub(super) reason: Option<Box<ReasonView>>,
    /// Seconds to wait before asking again (429).
    pub(super) retry_after: Option<u64>,
    /// Where in the request's text the problem is: line and column, from 1 (a PDN).
    pub(super) at: Option<(usize, usize)>,
}

impl ApiError {
    /// An error with `status`, `code` and `message`.
    pub(super) fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
    ) -> ApiError {
        debug_assert!(
            CODES.contains(&code),
            "the error code {code:?} is not in CODES"
        );
        ApiError {
            status,
            code,
            message: message.into(),
            reason: None,
            retry_after: None,
            at: None,
        }
    }

    /// 403: a move by someone without the seat's secret.
    pub(super) fn forbidden(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, code, message)
    }

    /// 429: over the per-address limit on `what`; ask again after `secs`.
    pub(super) fn too_many(what: &str, secs: u64) -> ApiError {
        ApiError {
            retry_after: Some(secs),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!("too many {what} from this address: try again in {secs} s"),
            )
        }
    }

    /// 429: the address already follows `cap` event streams.
    pub(super) fn too_many_streams(cap: usize) -> ApiError {
        ApiError {
            retry_after: Some(5),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_streams",
                format!(
                    "this address already follows the most event streams one address may \
                     ({cap}): close one, or try again in 5 s"
                ),
            )
        }
    }

    /// 503: the computer's queue for this level is full; ask again after `secs`.
    pub(super) fn busy(message: String, secs: u64) -> ApiError {
        ApiError {
            retry_after: Some(secs),
            ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", message)
        }
    }

    /// 503: the database refused, is down or too slow; nothing was changed. Ask again after
    /// a few seconds (a server recovers by itself once its database is back).
    pub(super) fn storage(err: &crate::db::DbError) -> ApiError {
        tracing::error!("{err}");
        ApiError {
            retry_after: Some(2),
            ..ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "storage",
                "the game could not be read or saved (the database does not answer), so \
                 nothing was changed; try again in a few seconds",
            )
        }
    }

    /// 400: a malformed request.
    pub(super) fn bad(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 409: not the moment for this request.
    pub(super) fn conflict(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, code, message)
    }

    /// 422: a move or selection the rules refuse, with their reason.
    pub(super) fn illegal(reason: ReasonView) -> ApiError {
        ApiError {
            reason: Some(Box::new(reason.clone())),
            ..ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "illegal_move",
                reason.message,
            )
        }
    }

    /// A move the rules refuse, with only the rules' words.
    pub(super) fn illegal_text(message: String) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "illegal_move", message)
    }

    /// An extractor's rejection (a body too large, a bad path or query) as JSON.
    pub(super) fn rejected(status: StatusCode, text: String) -> ApiError {
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                status,
                "body_too_large",
                format!(
                    "the request body is too large: at most {BODY_LIMIT} bytes are accepted \
                     ({REVIEW_BODY_LIMIT} for POST /api/reviews)"
                ),
            )
        } else {
            ApiError::new(status, "bad_request", text)
        }
    }
}

impl From<BytesRejection> for ApiError {
    fn from(r: BytesRejection) -> ApiError {
        // A body that did not arrive in time (tower-http's body timeout) is 408.
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&r);
        while let Some(e) = cause {
            if e.is::<tower_http::timeout::TimeoutError>() {
                return ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "body_timeout",
                    "the request body did not arrive in time: send it whole, at once",
                );
            }
            cause = e.source();
        }
        ApiError::rejected(r.status(), r.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> ApiError {
        ApiError::rejected(r.status(), r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::rejected(r.status(), r.body_text())
    }
}

#[derive(Serialize)]
pub(super) struct ErrorBody<'a> {
    pub(super) error: ErrorView<'a>,
}

#[derive(Serialize)]
pub(super) struct ErrorView<'a> {
    pub(super) code: &'a str,
    pub(super) message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reason: Option<&'a ReasonView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) column: Option<usize>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // A refusal that says when to come back (a full queue) is the load, not a fault.
        if self.status.is_server_error() && self.retry_after.is_none() {
            tracing::warn!(status = %self.status, code = self.code, "{}", self.message);
        } else {
            tracing::debug!(status = %self.status, code = self.code, "{}", self.message);
        }
        let body = ErrorBody {
            error: ErrorView {
                code: self.code,
                message: &self.message,
                reason: self.reason.as_deref(),
                line: self.at.map(|a| a.0),
                column: self.at.map(|a| a.1),
            },
        };
        let mut res = (self.status, no_store(), Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        res
    }
}

/// API answers are never cached.
pub(super) fn no_store() -> [(header::HeaderName, HeaderValue); 1] {
    [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))]
}

/// 404 for any path that is neither the page nor the API.
pub(super) async fn not_found(uri: Uri) -> ApiError {
    let path = uri.path();
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "nothing at {}: the page is at / and the API under /api",
            dama_rules::quote(path)
        ),
    )
}

/// 405 for a known path asked with the wrong method.
pub(super) async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!(
            "{} does not take {method} (see GET /api for the API)",
            dama_rules::quote(uri.path())
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The string literals of `text` that name an error code: the second argument of
    /// `ApiError::new` and the first of its shorthands `bad`, `conflict` and `forbidden`.
    fn codes_in(text: &str) -> Vec<String> {
        let shorthands = [
            "ApiError::bad(",
            "ApiError::conflict(",
            "ApiError::forbidden(",
        ];
        let mut found = Vec::new();
        for (at, _) in text.match_indices('"') {
            let before = text[..at].trim_end();
            let rest = &text[at + 1..];
            let Some(end) = rest.find('"') else { continue };
            let word = &rest[..end];
            let is_code = !word.is_empty()
                && word.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && word.contains('_');
            // `ApiError::new(<a status>, "code"`: only a name or path before the comma.
            let second = before.strip_suffix(',').is_some_and(|head| {
                head.rfind("ApiError::new(").is_some_and(|i| {
                    head[i + "ApiError::new(".len()..].chars().all(|c| {
                        c.is_ascii_alphanumeric() || c == '_' || c == ':' || c.is_whitespace()
                    })
                })
            });
            if is_code && (second || shorthands.iter().any(|m| before.ends_with(m))) {
                found.push(word.to_string());
            }
        }
        found
    }

    #[test]
    fn every_code_in_the_sources_is_listed() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut seen = Vec::new();
        for file in std::fs::read_dir(dir).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                // The code, not its tests (which make up codes to check the scan).
                let code_part = text.split("#[cfg(test)]").next().unwrap_or_default();
                for code in codes_in(code_part) {
                    assert!(
                        CODES.contains(&code.as_str()),
                        "{}: code {code:?} is not in CODES",
                        path.display()
                    );
                    seen.push(code);
                }
            }
        }
        // The scan finds the codes it should (else it would pass on nothing).
        for known in [
            "unknown_game",
            "not_your_turn",
            "body_too_large",
            "rate_limited",
        ] {
            assert!(
                seen.iter().any(|c| c == known),
                "{known} not found by the scan"
            );
        }
    }

    #[test]
    fn the_page_has_a_text_for_every_code_in_each_language() {
        let texts = include_str!("../web/texts.js");
        for lang in ["en", "pl", "it"] {
            let start = texts
                .find(&format!("\n  {lang}: {{"))
                .unwrap_or_else(|| panic!("no {lang} texts"));
            let end = texts[start + 1..]
                .find("\n  },")
                .map_or(texts.len(), |e| start + 1 + e);
            let block = &texts[start..end];
            for code in CODES {
                let key = format!("e_{code}: '");
                assert!(
                    block.contains(&key),
                    "texts.js ({lang}) has no text for the error code {code}"
                );
            }
        }
    }

    #[test]
    fn the_apis_documentation_lists_every_code() {
        let doc = include_str!("api.rs");
        for code in CODES {
            assert!(
                doc.contains(&format!("`{code}`")),
                "api.rs does not document the code {code}"
            );
        }
    }

    #[test]
    fn codes_are_found_after_constructors_and_statuses() {
        let text = r#"ApiError::bad("bad_x", "the text") ApiError::new(
            StatusCode::CONFLICT,
            "some_code", "no") ApiError::new(status, "from_status", m) x("not_one")"#;
        assert_eq!(codes_in(text), ["bad_x", "some_code", "from_status"]);
    }
}
