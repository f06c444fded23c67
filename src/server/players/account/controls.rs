//! The account's own controls (issue 32; docs/protocol.md, "Account controls"): the routes of
//! the `/account` page, each in a module of its own: `password_change.rs`, `session_list.rs`,
//! `deletion.rs`, `archive.rs` and `page.rs`. This module only gathers their routes and what
//! they share: the request's own session, and the body of a request that confirms with a
//! password.

use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::HeaderMap;
use axum::routing::{delete, get, post};

use super::error;
use super::session;
use super::state::AccountState;
use crate::server::store::SessionHash;
use crate::server::web::{ApiError, read_json_body};

/// Largest body of a password change or a deletion (two passwords of at most 128 characters,
/// with room for JSON escapes).
pub const MAX_CONTROL_BYTES: usize = 4 * 1024;

/// The routes, merged into the account router (`routes.rs`).
pub fn routes() -> Router<AccountState> {
    Router::new()
        .route("/account", get(super::page::page))
        .route(
            "/api/account/password",
            post(super::password_change::change_password),
        )
        .route(
            "/api/account/sessions",
            get(super::session_list::list_sessions),
        )
        .route(
            "/api/account/sessions/end-others",
            post(super::session_list::end_others),
        )
        .route(
            "/api/account/sessions/{id}",
            delete(super::session_list::end_one),
        )
        .route("/api/account/delete", post(super::deletion::delete_account))
        .route("/api/account/archive", get(super::archive::archive))
}

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
