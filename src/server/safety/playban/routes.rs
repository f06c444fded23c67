//! `GET /api/playban` (docs/protocol.md, "Fair play"): the signed-in player's pause, for the
//! lobby's banner: `{"ban": null}`, or `{"ban": {"until_ms", "reason", "message"}}`; `401
//! not_logged_in` without a session (anonymous players are never paused).

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use crate::server::deps::Deps;
use crate::server::game::now_ms;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::players::account::{Accounts, RequireAccount};
use crate::server::web::ApiError;

use super::check::{current_ban, message};

#[derive(Clone)]
pub struct PlaybanState {
    pub deps: Deps,
    pub accounts: Arc<Accounts>,
}

impl FromRef<PlaybanState> for Arc<Accounts> {
    fn from_ref(state: &PlaybanState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}

pub fn router(state: PlaybanState) -> Router {
    Router::new()
        .route("/api/playban", get(mine))
        .with_state(state)
}

async fn mine(
    State(app): State<PlaybanState>,
    RequireAccount(me): RequireAccount,
) -> Result<Response, ApiError> {
    let now = now_ms();
    let ban = current_ban(&*app.deps.store, me.id, now)
        .await
        .map_err(|error| {
            tracing::warn!(%error, "playban: could not read a record");
            ApiError::from(Refusal::new(
                ErrorCode::StoreFailure,
                "the game store failed; try again",
            ))
        })?;
    let ban = ban.map(|ban| {
        json!({
            "until_ms": ban.until_ms,
            "reason": ban.reason.as_str(),
            "message": message(&ban, now),
        })
    });
    Ok(Json(json!({ "ban": ban })).into_response())
}
