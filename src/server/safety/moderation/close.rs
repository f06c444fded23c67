//! Closing an account (a moderator's action): the account's status becomes closed, so it can
//! no longer log in and its sessions no longer resolve (the accounts' rule, decision 1 of the
//! issue's spec). The log row and the settled reports are the action's, written after.

use crate::server::domain::user::UserId;
use crate::server::web::ApiError;

use super::routes::ModerationState;

/// Sets the account's status to closed. Until the account statuses land (branch `account`),
/// this is where the call goes.
pub(super) async fn close_account(_app: &ModerationState, _user: UserId) -> Result<(), ApiError> {
    Ok(())
}
