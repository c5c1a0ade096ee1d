//! What keeps the server safe on the internet, around the handlers: the client's address,
//! the per-address rate limits (governor's keyed limiters), the security headers of every
//! answer (tower-http layers), the anonymous player cookie and the request counters.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, MatchedPath, Request};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::error::ApiError;
use crate::state::State;

/// Nothing but this server's own files may load, no inline script or style, and no other
/// site may frame the page.
pub const POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                          script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; frame-ancestors 'none'; \
                          base-uri 'none'; form-action 'self'";

/// The security headers every answer carries, as tower-http layers.
pub fn security_headers() -> [SetResponseHeaderLayer<HeaderValue>; 5] {
    let set = |name: HeaderName, value: &'static str| {
        SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value))
    };
    [
        set(header::CONTENT_SECURITY_POLICY, POLICY),
        set(header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        set(header::X_FRAME_OPTIONS, "DENY"),
        set(header::REFERRER_POLICY, "no-referrer"),
        set(
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ]
}

/// A per-address limit: at most `per_minute` requests a minute, in bursts of as many.
pub struct Limit {
    limiter: RateLimiter<IpAddr, HashMapStateStore<IpAddr>, DefaultClock>,
    what: &'static str,
}

impl Limit {
    /// A limit of `per_minute` (0: none) on `what` ("new games").
    pub fn new(per_minute: u32, what: &'static str) -> Option<Limit> {
        let n = NonZeroU32::new(per_minute)?;
        Some(Limit {
            limiter: RateLimiter::hashmap(Quota::per_minute(n)),
            what,
        })
    }

    /// Counts a request from `ip`.
    ///
    /// # Errors
    /// 429 with `Retry-After` when `ip` is over the limit.
    pub fn check(&self, ip: IpAddr) -> Result<(), ApiError> {
        self.limiter.check_key(&ip).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.limiter.clock().now());
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            ApiError::too_many(self.what, secs.max(1))
        })
    }

    /// Forgets the addresses that are back under the limit.
    pub fn tidy(&self) {
        self.limiter.retain_recent();
    }
}

/// The client's address: the connection's peer or, behind a trusted proxy, the last address
/// of `X-Forwarded-For` (the one the proxy saw; earlier ones the client may have made up).
pub fn client_ip(headers: &HeaderMap, peer: Option<SocketAddr>, trust_proxy: bool) -> IpAddr {
    let fallback = peer.map_or(IpAddr::from([0, 0, 0, 0]), |p| p.ip());
    if !trust_proxy {
        return fallback;
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .next_back()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(fallback)
}

/// The client address of a request.
pub fn request_ip(
    state: &State,
    headers: &HeaderMap,
    peer: Option<&ConnectInfo<SocketAddr>>,
) -> IpAddr {
    client_ip(headers, peer.map(|c| c.0), state.trust_proxy)
}

/// The anonymous player of a request (the `dama_player` cookie).
#[derive(Clone, Debug)]
pub struct Player(pub String);

const COOKIE: &str = "dama_player";

/// A year, the cookie's life (renewed by each new one).
const COOKIE_AGE: Duration = Duration::from_secs(365 * 24 * 3600);

fn player_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
        .filter(|v| v.len() == 32 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Gives the request its player, from the cookie or a new one (then set on the answer).
pub async fn player_cookie(mut req: Request, next: Next) -> Response {
    let known = player_of(req.headers());
    let player = known.clone().unwrap_or_else(crate::store::secret);
    req.extensions_mut().insert(Player(player.clone()));
    let mut res = next.run(req).await;
    if known.is_none() {
        let cookie = format!(
            "{COOKIE}={player}; Path=/; Max-Age={}; HttpOnly; SameSite=Lax",
            COOKIE_AGE.as_secs()
        );
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    res
}

/// Counts each answer by route pattern and status.
pub async fn count_requests(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    req: Request,
    next: Next,
) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "other".to_string(), |p| p.as_str().to_string());
    let res = next.run(req).await;
    state.metrics.request(&route, res.status().as_u16());
    res
}

/// Refuses a request whose announced length is over the body limit before reading any of
/// it (a body without a length is cut at the limit as it is read, by `DefaultBodyLimit`).
pub async fn refuse_announced_large_bodies(req: Request, next: Next) -> Response {
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let limit = if req.uri().path() == "/api/reviews" {
        crate::review::REVIEW_BODY_LIMIT
    } else {
        crate::state::BODY_LIMIT
    };
    match announced {
        Some(n) if n > limit as u64 => {
            ApiError::rejected(StatusCode::PAYLOAD_TOO_LARGE, String::new()).into_response()
        }
        _ => next.run(req).await,
    }
}

/// Refuses a request that changes something (any method but `GET`, `HEAD` and `OPTIONS`)
/// when another site's page sent it, or when its body is not JSON: a page elsewhere may make
/// a visitor's browser send a `text/plain` or form body with no question asked (no CORS
/// preflight), and would spend the visitor's rate limits and this server's CPU. Requests
/// with neither `Origin` nor `Sec-Fetch-Site` (programs, not browsers) pass the first test.
/// Live analysis (`GET /api/analysis`) changes nothing but searches: another site's page
/// may not start it either (an `EventSource` there would).
pub async fn refuse_other_sites(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    req: Request,
    next: Next,
) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        if req.uri().path() == "/api/analysis" {
            if let Err(err) = from_this_site(req.headers(), state.trust_proxy) {
                return err.into_response();
            }
        }
        return next.run(req).await;
    }
    let checked =
        from_this_site(req.headers(), state.trust_proxy).and_then(|()| json_body(req.headers()));
    match checked {
        Ok(()) => next.run(req).await,
        Err(err) => err.into_response(),
    }
}

/// The header's value as text, if it has one.
fn text<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).map(|v| v.to_str().unwrap_or("?").trim())
}

/// `host[:port]` as a browser writes it for `scheme`: without the scheme's default port.
fn without_default_port<'a>(authority: &'a str, scheme: &str) -> &'a str {
    let default = match scheme {
        "http" | "ws" => ":80",
        "https" | "wss" => ":443",
        _ => return authority,
    };
    authority.strip_suffix(default).unwrap_or(authority)
}

/// The server's own `host[:port]` as the browser addressed it: the `Host` header or, behind a
/// trusted proxy that sets it, the last `X-Forwarded-Host` (a proxy that passes `Host` on
/// unchanged, as Caddy does and nginx with `proxy_set_header Host $host`, needs neither).
fn own_host(headers: &HeaderMap, trust_proxy: bool) -> Option<&str> {
    let forwarded = trust_proxy
        .then(|| text(headers, "x-forwarded-host"))
        .flatten()
        .and_then(|v| v.rsplit(',').next())
        .map(str::trim);
    forwarded.or_else(|| text(headers, header::HOST.as_str()))
}

/// Whether the request came from this server's own page: its `Origin` names this host (the
/// scheme is not compared: behind a proxy that ends TLS, the browser's `https` is the proxy's
/// `http`), or, without `Origin`, its `Sec-Fetch-Site` is `same-origin` or `none` (typed by
/// the person); neither header, a program's request: it may.
///
/// # Errors
/// 403 `other_site`, saying which origin was refused and which was expected.
pub fn from_this_site(headers: &HeaderMap, trust_proxy: bool) -> Result<(), ApiError> {
    let refused = |what: String| {
        ApiError::forbidden(
            "other_site",
            format!(
                "{what}: this server takes changes only from its own page (a page of another \
                 site may not create, play or review games here)"
            ),
        )
    };
    if let Some(origin) = text(headers, header::ORIGIN.as_str()) {
        let own = own_host(headers, trust_proxy).unwrap_or("");
        let same = origin.split_once("://").is_some_and(|(scheme, authority)| {
            let scheme = scheme.to_ascii_lowercase();
            without_default_port(authority, &scheme)
                .eq_ignore_ascii_case(without_default_port(own, &scheme))
        });
        return if same {
            Ok(())
        } else {
            Err(refused(format!(
                "the request came from a page of {}, not of {}",
                dama_rules::quote(origin),
                dama_rules::quote(own)
            )))
        };
    }
    match text(headers, "sec-fetch-site") {
        None | Some("same-origin" | "none") => Ok(()),
        Some(site) => Err(refused(format!(
            "the request came from a page of another site (Sec-Fetch-Site: {})",
            dama_rules::quote(site)
        ))),
    }
}

/// Refuses a body that is not declared JSON: any body needs `Content-Type: application/json`
/// (a parameter such as `charset` may follow); an empty body may have no type, not another.
///
/// # Errors
/// 415 `not_json`.
pub fn json_body(headers: &HeaderMap) -> Result<(), ApiError> {
    let length = text(headers, header::CONTENT_LENGTH.as_str()).and_then(|v| v.parse::<u64>().ok());
    let has_body = headers.contains_key(header::TRANSFER_ENCODING) || length.is_some_and(|n| n > 0);
    let kind = text(headers, header::CONTENT_TYPE.as_str());
    let essence = kind.map(|k| k.split(';').next().unwrap_or("").trim());
    match essence {
        None if !has_body => Ok(()),
        Some(e) if e.eq_ignore_ascii_case("application/json") => Ok(()),
        _ => Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "not_json",
            match kind {
                Some(k) => format!(
                    "the body is sent as {}: send JSON, with Content-Type: application/json",
                    dama_rules::quote(k)
                ),
                None => "the body has no Content-Type: send JSON, with Content-Type: \
                         application/json"
                    .to_string(),
            },
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forwarded_address_counts_only_behind_a_trusted_proxy() {
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_static("6.6.6.6, 203.0.113.7"),
        );
        let peer: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        assert_eq!(client_ip(&h, Some(peer), false), peer.ip());
        assert_eq!(
            client_ip(&h, Some(peer), true),
            "203.0.113.7".parse::<IpAddr>().unwrap()
        );
        h.insert("x-forwarded-for", HeaderValue::from_static("junk"));
        assert_eq!(client_ip(&h, Some(peer), true), peer.ip());
    }

    #[test]
    fn a_limit_refuses_past_its_rate_per_address() {
        let limit = Limit::new(2, "new games").unwrap();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(limit.check(a).is_ok() && limit.check(a).is_ok());
        let err = limit.check(a).unwrap_err();
        assert_eq!(err.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(err.retry_after.unwrap() >= 1);
        assert!(limit.check(b).is_ok());
        assert!(Limit::new(0, "x").is_none());
    }

    #[test]
    fn only_a_well_formed_cookie_names_a_player() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=b; dama_player=0123456789abcdef0123456789abcdef"),
        );
        assert_eq!(player_of(&h).unwrap(), "0123456789abcdef0123456789abcdef");
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("dama_player=../../etc"),
        );
        assert_eq!(player_of(&h), None);
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for &(k, v) in pairs {
            h.append(k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn only_the_servers_own_page_may_change_anything() {
        let own = |pairs: &[(&'static str, &'static str)], proxy: bool| {
            from_this_site(&headers(pairs), proxy).is_ok()
        };
        let host = ("host", "127.0.0.1:8080");
        assert!(own(&[host, ("origin", "http://127.0.0.1:8080")], false));
        assert!(own(&[host], false), "a program sends no Origin");
        assert!(own(&[host, ("sec-fetch-site", "same-origin")], false));
        assert!(!own(&[host, ("origin", "http://evil.example")], false));
        assert!(!own(&[host, ("origin", "http://127.0.0.1:8081")], false));
        assert!(!own(&[host, ("origin", "null")], false));
        assert!(!own(&[host, ("sec-fetch-site", "cross-site")], false));
        assert!(!own(&[host, ("sec-fetch-site", "same-site")], false));
        // Behind a proxy that ends TLS and keeps Host, or sets X-Forwarded-Host (trusted).
        let public = ("origin", "https://dama.example.org");
        assert!(own(&[("host", "dama.example.org"), public], false));
        assert!(own(&[("host", "dama.example.org:443"), public], false));
        let forwarded = ("x-forwarded-host", "dama.example.org");
        assert!(own(&[host, forwarded, public], true));
        assert!(
            !own(&[host, forwarded, public], false),
            "a client may not name the host"
        );
        let err = from_this_site(&headers(&[host, ("origin", "http://evil.example")]), false);
        let err = err.unwrap_err();
        assert_eq!(
            (err.status, err.code),
            (StatusCode::FORBIDDEN, "other_site")
        );
        assert!(
            err.message.contains("\"http://evil.example\""),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_body_must_be_declared_json() {
        let json = |pairs: &[(&'static str, &'static str)]| json_body(&headers(pairs)).is_ok();
        assert!(json(&[
            ("content-type", "application/json"),
            ("content-length", "2")
        ]));
        assert!(json(&[
            ("content-type", "Application/JSON; charset=utf-8"),
            ("content-length", "2")
        ]));
        assert!(json(&[("content-length", "0")]), "no body, no type");
        assert!(json(&[]));
        assert!(!json(&[
            ("content-type", "text/plain"),
            ("content-length", "2")
        ]));
        assert!(
            !json(&[("content-type", "text/plain")]),
            "no body, but not JSON"
        );
        assert!(!json(&[("content-length", "2")]), "a body with no type");
        assert!(!json(&[("transfer-encoding", "chunked")]));
        let err = json_body(&headers(&[("content-type", "text/plain;charset=UTF-8")])).unwrap_err();
        assert_eq!(
            (err.status, err.code),
            (StatusCode::UNSUPPORTED_MEDIA_TYPE, "not_json")
        );
    }
}
