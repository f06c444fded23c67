//! The moderation room's state: the services its handlers use, with the two checks every
//! moderator route and report starts with (a moderator? a known user?).

use std::sync::Arc;

use axum::extract::FromRef;

use crate::server::deps::Deps;
use crate::server::domain::user::{Account, Username};
use crate::server::players::account::Accounts;
use crate::server::store::UserRecord;
use crate::server::web::ApiError;
use crate::server::web::ratelimit::AddressLimiter;

use super::error::ModError;
use super::rules::{ADDRESS_REPORT_BURST, ADDRESS_REPORT_EVERY_SECS};

#[derive(Clone)]
pub struct ModerationState {
    pub deps: Deps,
    pub accounts: Arc<Accounts>,
    /// Reports filed per client address.
    pub report_grants: Arc<AddressLimiter>,
}

impl ModerationState {
    pub fn new(deps: Deps, accounts: Arc<Accounts>) -> ModerationState {
        ModerationState {
            deps,
            accounts,
            report_grants: Arc::new(AddressLimiter::new(
                1.0 / ADDRESS_REPORT_EVERY_SECS,
                ADDRESS_REPORT_BURST,
            )),
        }
    }

    /// The account, if it is a moderator's; `not_moderator` otherwise.
    pub(super) async fn moderator(&self, account: Account) -> Result<Account, ApiError> {
        if self
            .deps
            .store
            .is_moderator(account.id)
            .await
            .map_err(ModError::from)?
        {
            Ok(account)
        } else {
            Err(ModError::NotModerator.into())
        }
    }

    /// The user a path or a body names (checked as a username first, so a long or odd name
    /// costs no store read); `not_found` otherwise.
    pub(super) async fn user(&self, name: &str) -> Result<UserRecord, ApiError> {
        let username = Username::parse(name).map_err(|_| ModError::NoSuchUser)?;
        self.deps
            .store
            .find_user(&username)
            .await
            .map_err(ModError::from)?
            .ok_or_else(|| ModError::NoSuchUser.into())
    }
}

impl FromRef<ModerationState> for Arc<Accounts> {
    fn from_ref(state: &ModerationState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}
