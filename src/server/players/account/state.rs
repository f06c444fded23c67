//! What the account routes share: the accounts service, and the dependencies every feature has.

use std::sync::Arc;

use axum::extract::FromRef;

use super::service::Accounts;
use crate::server::deps::Deps;

/// What the account routes need: the accounts service, and the shared dependencies.
#[derive(Clone)]
pub struct AccountState {
    pub deps: Deps,
    pub accounts: Arc<Accounts>,
}

impl FromRef<AccountState> for Arc<Accounts> {
    fn from_ref(state: &AccountState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}
