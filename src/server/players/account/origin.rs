//! The Origin check (CSRF defence): a request that changes state (any method but GET, HEAD and
//! OPTIONS, and every WebSocket upgrade) and carries the session cookie must come from a page of
//! this site, else `403 bad_origin`. The account routes (register, login, logout) are checked
//! even without the cookie when the request has an `Origin`: another site must not be able to
//! log a visitor into an account of its choosing.
//!
//! "This site" is `--public-url`'s origin when set, else the request's scheme and its own `Host`:
//! `http://` + `Host`, since this server speaks plain HTTP, or `https://` + `Host` when a trusted
//! proxy (`--trusted-proxies`) says it terminated TLS (`X-Forwarded-Proto` or `Forwarded`'s
//! `proto=`; the edge puts the scheme in the request's extensions, [`Scheme`]). The scheme
//! counts: `https://host:port` is another origin than `http://host:port`. Browsers send `Origin` on every cross-site POST and on every WebSocket handshake, so
//! a request with the cookie and no `Origin` is not from a browser page and is refused too.
//! `SameSite=Lax` already keeps the cookie off most cross-site requests; this check does not
//! rely on it (same-site but cross-origin pages, older browsers).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::server::web::client_addr::Scheme;

use super::Accounts;
use super::error::bad_origin;
use super::session;

/// Whether the request's `Origin` is this site's; `scheme` is the request's (see the module).
pub fn same_origin(headers: &HeaderMap, public_origin: Option<&str>, scheme: Scheme) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    match public_origin {
        Some(ours) => origin.eq_ignore_ascii_case(ours),
        None => {
            let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
                return false;
            };
            let scheme = scheme.as_str();
            origin.split_once("://").is_some_and(|(theirs, rest)| {
                theirs.eq_ignore_ascii_case(scheme) && rest.eq_ignore_ascii_case(host)
            })
        }
    }
}

fn is_websocket_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// Whether a request must pass the Origin check.
pub fn needs_check(method: &Method, path: &str, headers: &HeaderMap) -> bool {
    let changes_state = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
        || is_websocket_upgrade(headers);
    if !changes_state {
        return false;
    }
    session::has_cookie(headers)
        || (path.starts_with("/api/account/") && headers.contains_key(header::ORIGIN))
}

/// The layer (`axum::middleware::from_fn_with_state`), over every route of the router.
pub async fn check(
    State(accounts): State<Arc<Accounts>>,
    request: Request,
    next: Next,
) -> Response {
    // No scheme in the extensions (a router served without the edge): this server's own.
    let scheme = request
        .extensions()
        .get::<Scheme>()
        .copied()
        .unwrap_or_default();
    if needs_check(request.method(), request.uri().path(), request.headers())
        && !same_origin(request.headers(), accounts.public_origin(), scheme)
    {
        return bad_origin().into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(header::HeaderName, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn without_a_public_url_the_origin_must_match_the_host() {
        let ours = headers(&[
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "http://127.0.0.1:8080"),
        ]);
        assert!(same_origin(&ours, None, Scheme::Http));
        let theirs = headers(&[
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "http://evil.example"),
        ]);
        assert!(!same_origin(&theirs, None, Scheme::Http));
        let other_port = headers(&[
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "http://127.0.0.1:9"),
        ]);
        assert!(!same_origin(&other_port, None, Scheme::Http));
        let none = headers(&[(header::HOST, "127.0.0.1:8080")]);
        assert!(!same_origin(&none, None, Scheme::Http));
        let null = headers(&[(header::HOST, "127.0.0.1:8080"), (header::ORIGIN, "null")]);
        assert!(!same_origin(&null, None, Scheme::Http));
    }

    #[test]
    fn an_https_origin_is_refused_by_a_plain_http_request_for_the_same_host() {
        let https = headers(&[
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "https://127.0.0.1:8080"),
        ]);
        assert!(!same_origin(&https, None, Scheme::Http));
    }

    #[test]
    fn behind_a_proxy_that_terminated_tls_the_https_origin_passes_and_the_http_one_does_not() {
        let https = headers(&[
            (header::HOST, "play.example"),
            (header::ORIGIN, "https://play.example"),
        ]);
        assert!(same_origin(&https, None, Scheme::Https));
        let http = headers(&[
            (header::HOST, "play.example"),
            (header::ORIGIN, "http://play.example"),
        ]);
        assert!(!same_origin(&http, None, Scheme::Https));
    }

    #[test]
    fn the_scheme_and_host_compare_without_regard_to_case() {
        let shouted = headers(&[
            (header::HOST, "Play.Example"),
            (header::ORIGIN, "HTTPS://play.example"),
        ]);
        assert!(same_origin(&shouted, None, Scheme::Https));
    }

    #[test]
    fn an_origin_without_a_scheme_or_with_another_one_is_refused() {
        for origin in ["127.0.0.1:8080", "ws://127.0.0.1:8080", "://127.0.0.1:8080"] {
            let map = headers(&[(header::HOST, "127.0.0.1:8080"), (header::ORIGIN, origin)]);
            assert!(!same_origin(&map, None, Scheme::Http), "{origin}");
        }
    }

    #[test]
    fn with_a_public_url_the_requests_own_scheme_does_not_matter() {
        let proxied = headers(&[
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "https://play.example"),
        ]);
        for scheme in [Scheme::Http, Scheme::Https] {
            assert!(same_origin(&proxied, Some("https://play.example"), scheme));
        }
    }

    #[test]
    fn with_a_public_url_the_origin_must_be_it() {
        let proxied = headers(&[
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "https://play.example"),
        ]);
        assert!(same_origin(
            &proxied,
            Some("https://play.example"),
            Scheme::Http
        ));
        assert!(!same_origin(
            &proxied,
            Some("https://other.example"),
            Scheme::Http
        ));
        let host_only = headers(&[
            (header::HOST, "play.example"),
            (header::ORIGIN, "http://play.example"),
        ]);
        assert!(
            !same_origin(&host_only, Some("https://play.example"), Scheme::Http),
            "the scheme counts"
        );
    }

    #[test]
    fn state_changing_requests_with_the_cookie_are_checked() {
        let cookie = headers(&[(header::COOKIE, "marseillais_session=x")]);
        let plain = HeaderMap::new();
        assert!(needs_check(&Method::POST, "/api/games", &cookie));
        assert!(needs_check(&Method::DELETE, "/api/x", &cookie));
        assert!(!needs_check(&Method::GET, "/api/account", &cookie));
        assert!(
            !needs_check(&Method::POST, "/api/games", &plain),
            "anonymous play is unchanged"
        );
        let upgrade = headers(&[
            (header::COOKIE, "marseillais_session=x"),
            (header::UPGRADE, "websocket"),
        ]);
        assert!(needs_check(&Method::GET, "/ws/game/abc", &upgrade));
        let login = headers(&[(header::ORIGIN, "http://evil.example")]);
        assert!(needs_check(&Method::POST, "/api/account/login", &login));
        assert!(!needs_check(&Method::POST, "/api/account/login", &plain));
    }
}
