//! Sessions: the random id in the `marseillais_session` cookie, what the store keeps of it (its
//! SHA-256), and the cookie itself.
//!
//! An id is 128 bits from the operating system's RNG, sent as 32 lowercase hex characters. Only
//! its hash reaches the store, so a copy of the database holds no usable session. The cookie is
//! `HttpOnly` (no script reads it), `SameSite=Lax` (not sent on another site's POST or
//! subrequest) and `Secure` when the site is served over https.

use std::fmt;

use axum::http::{HeaderMap, HeaderValue, header};
use rand::TryRng;
use rand::rngs::SysRng;
use sha2::{Digest, Sha256};

use crate::server::store::{SESSION_IDLE_MS, SessionHash};

/// The cookie's name.
pub const COOKIE: &str = "marseillais_session";

/// The cookie's `Max-Age`: the idle expiry (30 days), renewed at every login.
pub const MAX_AGE_SECS: i64 = SESSION_IDLE_MS / 1000;

const ID_BYTES: usize = 16;
const ID_HEX: usize = 2 * ID_BYTES;

/// A session id, as the cookie carries it. Never printed (redacted `Debug`, no `Display`).
#[derive(Clone, PartialEq, Eq)]
pub struct SessionId(String);

/// The operating system's RNG failed: no session can be made.
#[derive(Debug, thiserror::Error)]
#[error("the system random number generator failed")]
pub struct NoRandomness;

impl SessionId {
    /// A fresh id: 128 bits from the OS RNG.
    pub fn new() -> Result<SessionId, NoRandomness> {
        let mut bytes = [0u8; ID_BYTES];
        SysRng
            .try_fill_bytes(&mut bytes)
            .map_err(|_| NoRandomness)?;
        Ok(SessionId(hex(&bytes)))
    }

    /// An id from a cookie: exactly 32 lowercase hex characters, or nothing (a malformed
    /// cookie is no session, never an error).
    pub fn parse(text: &str) -> Option<SessionId> {
        (text.len() == ID_HEX && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| SessionId(text.to_owned()))
    }

    /// What the store keys the session by.
    pub fn hash(&self) -> SessionHash {
        Sha256::digest(self.0.as_bytes()).into()
    }

    /// The id itself, for the `Set-Cookie` header only.
    pub(super) fn reveal(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionId(<redacted>)")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The session id a request's `Cookie` headers carry, if any well-formed one. Several
/// `marseillais_session` cookies (e.g. one per path, set by something else): the first
/// well-formed one.
pub fn from_headers(headers: &HeaderMap) -> Option<SessionId> {
    cookie_values(headers).find_map(SessionId::parse)
}

/// Whether the request carries a `marseillais_session` cookie at all, well-formed or not (what
/// the Origin check looks at: the browser sent our cookie).
pub fn has_cookie(headers: &HeaderMap) -> bool {
    cookie_values(headers).next().is_some()
}

fn cookie_values(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|line| line.split(';'))
        .filter_map(|pair| {
            let (name, value) = pair.split_once('=')?;
            (name.trim() == COOKIE).then(|| value.trim().trim_matches('"'))
        })
}

/// The `Set-Cookie` value that gives the browser this session.
pub fn set_cookie(id: &SessionId, secure: bool) -> HeaderValue {
    cookie_header(id.reveal(), MAX_AGE_SECS, secure)
}

/// The `Set-Cookie` value that makes the browser forget its session (logout).
pub fn clear_cookie(secure: bool) -> HeaderValue {
    cookie_header("", 0, secure)
}

fn cookie_header(value: &str, max_age: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    let text =
        format!("{COOKIE}={value}; HttpOnly; SameSite=Lax; Path=/; Max-Age={max_age}{secure}");
    // Hex, digits and ASCII attributes only: always a valid header value.
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_is_128_random_bits_in_hex_and_hashes_with_sha256() {
        let a = SessionId::new().unwrap();
        let b = SessionId::new().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.reveal().len(), 32);
        assert_eq!(SessionId::parse(a.reveal()), Some(a.clone()));
        let expected: [u8; 32] = Sha256::digest(a.reveal().as_bytes()).into();
        assert_eq!(a.hash(), expected);
        assert!(!format!("{a:?}").contains(a.reveal()));
    }

    #[test]
    fn malformed_cookies_are_no_session() {
        for bad in [
            "",
            "abc",
            &"A".repeat(32),
            &"g".repeat(32),
            &"a".repeat(33),
            &"a".repeat(10_000),
        ] {
            assert_eq!(SessionId::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_session_is_found_among_other_cookies() {
        let id = SessionId::new().unwrap();
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, HeaderValue::from_static("theme=dark"));
        let line = format!("a=1; {COOKIE}=garbage; {COOKIE}={}; b=2", id.reveal());
        headers.append(header::COOKIE, HeaderValue::from_str(&line).unwrap());
        assert!(has_cookie(&headers));
        assert_eq!(from_headers(&headers), Some(id));
        let mut none = HeaderMap::new();
        none.append(
            header::COOKIE,
            HeaderValue::from_static("marseillais_sessionx=1"),
        );
        assert!(!has_cookie(&none));
    }

    #[test]
    fn the_cookie_is_http_only_lax_whole_site_thirty_days_and_secure_over_https() {
        let id = SessionId::new().unwrap();
        assert_eq!(
            set_cookie(&id, false).to_str().unwrap(),
            format!(
                "marseillais_session={}; HttpOnly; SameSite=Lax; Path=/; Max-Age=2592000",
                id.reveal()
            )
        );
        assert!(
            set_cookie(&id, true)
                .to_str()
                .unwrap()
                .ends_with("; Max-Age=2592000; Secure")
        );
        assert_eq!(
            clear_cookie(false).to_str().unwrap(),
            "marseillais_session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0"
        );
    }
}
