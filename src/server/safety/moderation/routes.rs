//! The moderation room's routes (docs/protocol.md, "Moderation"): the page `/mod`, reports
//! (`/api/reports`, any signed-in account), the moderators' API (`/api/mod/*`: 401 logged
//! out, 403 `not_moderator` for everyone else, checked before anything of the request is
//! read) and the leaderboard. The handlers are in reports.rs, actions.rs and leaderboard.rs.

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::response::Response;
use axum::routing::{get, post};

use crate::server::deps::Deps;
use crate::server::domain::user::{Account, Username};
use crate::server::players::account::Accounts;
use crate::server::store::UserRecord;
use crate::server::web::ratelimit::AddressLimiter;
use crate::server::web::{ApiError, assets};

use super::error::ModError;
use super::rules::{ADDRESS_REPORT_BURST, ADDRESS_REPORT_EVERY_SECS};
use super::{actions, leaderboard, reports};

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

/// Every moderator route, for the test that tries each one logged out and as a plain user.
pub const MOD_ROUTES: [(&str, &str); 9] = [
    ("GET", "/api/mod/reports"),
    ("POST", "/api/mod/reports/{id}/dismiss"),
    ("POST", "/api/mod/users/{name}/chat-ban"),
    ("POST", "/api/mod/users/{name}/lift-chat-ban"),
    ("POST", "/api/mod/users/{name}/mark"),
    ("POST", "/api/mod/users/{name}/unmark"),
    ("POST", "/api/mod/users/{name}/close"),
    ("GET", "/api/mod/users/{name}"),
    ("GET", "/api/mod/log"),
];

pub fn router(state: ModerationState) -> Router {
    Router::new()
        .route("/mod", get(page))
        .route("/leaderboard", get(page))
        .route("/api/reports", post(reports::file))
        .route("/api/reports/mine", get(reports::mine))
        .route("/api/mod/reports", get(actions::open_reports))
        .route("/api/mod/reports/{id}/dismiss", post(actions::dismiss))
        .route("/api/mod/users/{name}/chat-ban", post(actions::chat_ban))
        .route(
            "/api/mod/users/{name}/lift-chat-ban",
            post(actions::lift_chat_ban),
        )
        .route("/api/mod/users/{name}/mark", post(actions::mark))
        .route("/api/mod/users/{name}/unmark", post(actions::unmark))
        .route("/api/mod/users/{name}/close", post(actions::close))
        .route("/api/mod/users/{name}", get(actions::user_state))
        .route("/api/mod/log", get(actions::log))
        .route("/api/leaderboard", get(leaderboard::board))
        .with_state(state)
}

async fn page() -> Response {
    assets::index_page()
}
