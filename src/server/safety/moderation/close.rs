//! Closing an account (a moderator's action): the account's status becomes closed (the
//! store ends its sessions in the same transaction), so it can no longer log in (403
//! `account_closed`) and its sessions no longer resolve. The log row and the settled reports
//! are the action's, written just after.

use crate::server::domain::user::{AccountStatus, UserId};
use crate::server::game::now_ms;
use crate::server::web::ApiError;

use super::error::ModError;
use super::state::ModerationState;

pub(super) async fn close_account(app: &ModerationState, user: UserId) -> Result<(), ApiError> {
    app.deps
        .store
        .set_account_status(user, AccountStatus::Closed, now_ms())
        .await
        .map_err(ModError::from)?;
    Ok(())
}
