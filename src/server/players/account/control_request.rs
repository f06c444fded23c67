//! What the account's own controls (`controls.rs`, issue 32) share: the request's own session,
//! and the small JSON body of a request that confirms with a password.

use std::time::Duration;

use axum::extract::Request;
use axum::http::HeaderMap;

use super::error;
use super::session;
use crate::server::store::SessionHash;
use crate::server::web::{ApiError, read_json_body};

/// Largest body of a password change or a deletion (two passwords of at most 128 characters,
/// with room for JSON escapes).
pub const MAX_CONTROL_BYTES: usize = 4 * 1024;

/// The hash of the request's own session. A route behind `RequireAccount` always has one;
/// without it (which cannot happen there) the answer is `not_logged_in`.
pub fn own_session(headers: &HeaderMap) -> Result<SessionHash, ApiError> {
    session::from_headers(headers)
        .map(|id| id.hash())
        .ok_or_else(error::not_logged_in)
}

/// Reads a small JSON body into `T`; `what` is the message of a malformed one (never serde's,
/// which may quote a password).
pub async fn small_body<T: serde::de::DeserializeOwned>(
    request: Request,
    timeout: Duration,
    what: &'static str,
) -> Result<T, ApiError> {
    let body = read_json_body(request, MAX_CONTROL_BYTES, timeout).await?;
    serde_json::from_slice(&body).map_err(|_| ApiError::bad_request(what))
}
