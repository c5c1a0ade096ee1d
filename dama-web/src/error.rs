//! Error answers of the API: a status, a code for programs, a message for people.

use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use super::review::REVIEW_BODY_LIMIT;
use super::state::BODY_LIMIT;
use super::views::ReasonView;

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

    /// 503: the database refused a write; nothing was changed.
    pub(super) fn storage(err: &crate::db::DbError) -> ApiError {
        tracing::error!("{err}");
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage",
            "the game could not be saved, so nothing was changed; try again",
        )
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
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "illegal_move",
            message: reason.message.clone(),
            reason: Some(Box::new(reason)),
            retry_after: None,
            at: None,
        }
    }

    /// A move the rules refuse, with only the rules' words.
    pub(super) fn illegal_text(message: String) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "illegal_move", message)
    }

    /// An extractor's rejection (a body too large, a bad path or query) as JSON.
    pub(super) fn rejected(status: StatusCode, text: String) -> ApiError {
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "body_too_large",
            _ => "bad_request",
        };
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!(
                "the request body is too large: at most {BODY_LIMIT} bytes are accepted \
                 ({REVIEW_BODY_LIMIT} for POST /api/reviews)"
            )
        } else {
            text
        };
        ApiError::new(status, code, message)
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
