//! `POST /api/account/password` (issue 32): a new password for a signed-in account. The old
//! one is required (checked under the login limits), the new one is checked like a
//! registration's, and every OTHER session of the account ends in the same store transaction
//! as the new hash: whoever else held a session (a stolen cookie, a shared computer) is out,
//! while the page that made the change stays signed in.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::control_request::{own_session, small_body};
use super::error;
use super::extract::RequireAccount;
use super::state::AccountState;
use crate::server::web::ApiError;

/// `{"old", "new"}`. No `Debug`: it holds passwords.
#[derive(Deserialize)]
struct PasswordChange {
    old: String,
    new: String,
}

/// 204 on success.
pub async fn change_password(
    State(app): State<AccountState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    RequireAccount(account): RequireAccount,
    request: Request,
) -> Result<Response, ApiError> {
    let keep = own_session(request.headers())?;
    let body: PasswordChange = small_body(
        request,
        app.deps.config.body_read_timeout,
        r#"the body must be {"old": "...", "new": "..."}"#,
    )
    .await?;
    // The new one first: a weak password is refused without spending a verification.
    let hash = app.accounts.hash_new_password(&body.new).await?;
    app.accounts
        .check_own_password(peer.ip(), &account, &body.old)
        .await?;
    app.accounts
        .store()
        .set_password_hash(account.id, hash, keep)
        .await
        .map_err(error::store_failure)?;
    tracing::info!(user = %account.name, "password changed; the other sessions ended");
    Ok(StatusCode::NO_CONTENT.into_response())
}
