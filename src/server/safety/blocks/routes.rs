//! The block routes (docs/protocol.md, "Blocks"): `POST /api/blocks/{username}` blocks,
//! `DELETE /api/blocks/{username}` unblocks, `GET /api/blocks` lists whom the account blocks.
//! Every one needs a session; the changes pass the Origin check like every cookie-carrying
//! change (the global layer).

use std::sync::Arc;

use axum::extract::{FromRef, Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;

use super::error::BlockError;
use super::rules::{MAX_BLOCKS, may_block};
use crate::server::deps::Deps;
use crate::server::game::now_ms;
use crate::server::players::account::{Accounts, RequireAccount, Username};
use crate::server::store::{StoreError, UserRecord};
use crate::server::web::ApiError;

#[derive(Clone)]
pub struct BlocksState {
    pub deps: Deps,
    pub accounts: Arc<Accounts>,
}

impl FromRef<BlocksState> for Arc<Accounts> {
    fn from_ref(state: &BlocksState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}

pub fn router(state: BlocksState) -> Router {
    Router::new()
        .route("/api/blocks", get(list))
        .route("/api/blocks/{username}", post(block).delete(unblock))
        .with_state(state)
}

fn store_error(error: StoreError) -> BlockError {
    tracing::warn!(%error, "a block could not be read or written");
    BlockError::Store
}

/// The user a path names: checked as a username first (no store read for a name nobody can
/// have), then looked up in any case.
async fn target(app: &BlocksState, name: &str) -> Result<UserRecord, BlockError> {
    let name = Username::parse(name)?;
    app.deps
        .store
        .find_user(&name)
        .await
        .map_err(store_error)?
        .ok_or(BlockError::UnknownUser)
}

/// What a block or an unblock answers: the user as spelled at registration, and whether the
/// account now blocks them.
#[derive(Serialize)]
struct BlockView {
    username: String,
    blocked: bool,
}

async fn block(
    State(app): State<BlocksState>,
    RequireAccount(me): RequireAccount,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let target = target(&app, &name).await?;
    let store = &app.deps.store;
    let mine = store.blocks_of(me.id).await.map_err(store_error)?;
    let already = mine.iter().any(|entry| entry.user == target.account.id);
    may_block(me.id, target.account.id, mine.len(), already).map_err(BlockError::from)?;
    store
        .block(me.id, target.account.id, now_ms())
        .await
        .map_err(store_error)?;
    Ok(Json(BlockView {
        username: target.account.name.to_string(),
        blocked: true,
    })
    .into_response())
}

async fn unblock(
    State(app): State<BlocksState>,
    RequireAccount(me): RequireAccount,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let target = target(&app, &name).await?;
    app.deps
        .store
        .unblock(me.id, target.account.id)
        .await
        .map_err(store_error)?;
    Ok(Json(BlockView {
        username: target.account.name.to_string(),
        blocked: false,
    })
    .into_response())
}

/// `GET /api/blocks`: whom the account blocks, newest first.
#[derive(Serialize)]
struct BlockList {
    blocks: Vec<BlockEntryView>,
    max: usize,
}

#[derive(Serialize)]
struct BlockEntryView {
    username: String,
    at_ms: i64,
}

async fn list(
    State(app): State<BlocksState>,
    RequireAccount(me): RequireAccount,
) -> Result<Response, ApiError> {
    let entries = app.deps.store.blocks_of(me.id).await.map_err(store_error)?;
    Ok(Json(BlockList {
        blocks: entries
            .into_iter()
            .map(|entry| BlockEntryView {
                username: entry.name,
                at_ms: entry.at_ms,
            })
            .collect(),
        max: MAX_BLOCKS,
    })
    .into_response())
}
