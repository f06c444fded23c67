//! The extractors other routes use to know who is asking: [`MaybeAccount`] (anyone; `None` when
//! not logged in) and [`RequireAccount`] (401 `not_logged_in` otherwise). Both read the
//! `marseillais_session` cookie and resolve it through the store once per request (the answer
//! is kept in the request's extensions, so a handler with several extractors asks once).

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;

use super::error;
use super::service::Accounts;
use crate::server::domain::user::Account;
use crate::server::web::ApiError;

/// The request's account, if it has a live session. A store failure is `503 store_failure`
/// (not "anonymous": a game created then would silently not belong to the account).
#[derive(Clone, Debug)]
pub struct MaybeAccount(pub Option<Account>);

/// The request's account; `401 not_logged_in` without a live session.
#[derive(Clone, Debug)]
pub struct RequireAccount(pub Account);

/// The resolved session, cached in the request's extensions.
#[derive(Clone)]
struct Resolved(Option<Account>);

/// Any route state that can give the accounts service (axum's `FromRef`) can use the extractors.
impl<S> FromRequestParts<S> for MaybeAccount
where
    Arc<Accounts>: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        if let Some(Resolved(account)) = parts.extensions.get::<Resolved>() {
            return Ok(MaybeAccount(account.clone()));
        }
        let account = Arc::<Accounts>::from_ref(state)
            .account_of(&parts.headers)
            .await
            .map_err(error::store_failure)?;
        parts.extensions.insert(Resolved(account.clone()));
        Ok(MaybeAccount(account))
    }
}

impl<S> FromRequestParts<S> for RequireAccount
where
    Arc<Accounts>: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let MaybeAccount(account) = MaybeAccount::from_request_parts(parts, state).await?;
        account.map(RequireAccount).ok_or_else(error::not_logged_in)
    }
}
