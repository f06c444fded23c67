//! `POST /api/account/delete` (issue 32): the account's owner deletes it, confirming with the
//! password. What is kept and what goes is the store's [`Store::delete_account`] (and
//! docs/accounts-deletion in docs/protocol.md, "Account controls"): the games stay, as lichess
//! keeps them, with the player shown as `deleted`; the name is never registered again;
//! profile, ratings, settings, sessions, lesson and puzzle progress go; chat lines lose their
//! author.
//!
//! Refused (409 `games_in_progress`) while a game of the account is open or being played:
//! finishing it for the user (a resignation in their name) would decide a result they did not
//! choose, and a game whose player vanishes mid-way would be left to its clock. The user ends
//! their games (or aborts them), then deletes.
//!
//! [`Store::delete_account`]: crate::server::store::Store::delete_account

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::control_request::small_body;
use super::error;
use super::extract::RequireAccount;
use super::session;
use super::state::AccountState;
use crate::server::domain::user::UserId;
use crate::server::game::now_ms;
use crate::server::store::{GameStatus, Store, StoreError};
use crate::server::web::ApiError;

/// Listing rows read per page while looking for a game that is not finished.
const PAGE: u32 = 200;

/// `{"password"}`. No `Debug`: it holds a password.
#[derive(Deserialize)]
struct Confirm {
    password: String,
}

/// 204 with the session cookie cleared.
pub async fn delete_account(
    State(app): State<AccountState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    RequireAccount(account): RequireAccount,
    request: Request,
) -> Result<Response, ApiError> {
    let body: Confirm = small_body(
        request,
        app.deps.config.body_read_timeout,
        r#"the body must be {"password": "..."}"#,
    )
    .await?;
    app.accounts
        .check_own_password(peer.ip(), &account, &body.password)
        .await?;
    let store = app.accounts.store();
    if has_unfinished_game(store.as_ref(), account.id)
        .await
        .map_err(error::store_failure)?
    {
        return Err(error::games_in_progress());
    }
    // Everything of the account goes in the store's one `delete_account` transaction (what
    // stays and what goes: docs/protocol.md, "Account controls").
    store
        .delete_account(account.id, now_ms())
        .await
        .map_err(error::store_failure)?;
    tracing::info!(user = %account.name, "account deleted by its owner");
    let cookie = session::clear_cookie(app.accounts.secure_cookies());
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie)]).into_response())
}

/// Whether any game the user is seated in is open or being played, paging through all of
/// them (a deletion is rare; an old correspondence game must not be missed).
pub async fn has_unfinished_game(store: &dyn Store, user: UserId) -> Result<bool, StoreError> {
    let mut offset = 0;
    loop {
        let page = store.user_games(user, PAGE, offset).await?;
        if page.iter().any(|g| g.status != GameStatus::Finished) {
            return Ok(true);
        }
        let read = u32::try_from(page.len()).unwrap_or(u32::MAX);
        if read < PAGE {
            return Ok(false);
        }
        offset = offset.saturating_add(read);
    }
}
