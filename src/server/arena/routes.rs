//! The arenas' routes (docs/protocol.md, "Arenas"): the page `/arena/{id}` (the client's shell)
//! and the API: the lists, one arena, making one, joining and withdrawing, a user's arenas.

use std::sync::Arc;

use axum::extract::{FromRef, Path, Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

use crate::server::deps::Deps;
use crate::server::domain::user::Username;
use crate::server::game::now_ms;
use crate::server::players::account::{Accounts, MaybeAccount, RequireAccount};
use crate::server::safety::playban;
use crate::server::web::{ApiError, assets, read_json_body};

use super::error::ArenaError;
use super::service::{Arenas, NewArena};
use super::view::{ArenaLine, arena_view};

/// The longest `POST /api/arenas` body.
const MAX_ARENA_BYTES: usize = 1024;

#[derive(Clone)]
pub struct ArenaState {
    pub deps: Deps,
    pub arenas: Arc<Arenas>,
    pub accounts: Arc<Accounts>,
}

impl FromRef<ArenaState> for Arc<Accounts> {
    fn from_ref(state: &ArenaState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}

pub fn router(state: ArenaState) -> Router {
    Router::new()
        .route("/arena/{id}", get(page))
        .route("/api/arenas", get(lists).post(create))
        .route("/api/arenas/{id}", get(show))
        .route("/api/arenas/{id}/join", post(join))
        .route("/api/arenas/{id}/withdraw", post(withdraw))
        .route("/api/users/{username}/arenas", get(played))
        .with_state(state)
}

async fn page(Path(_id): Path<String>) -> Response {
    assets::index_page()
}

async fn lists(State(app): State<ArenaState>) -> Result<Response, ApiError> {
    Ok(Json(app.arenas.lists().await?).into_response())
}

/// `201 {"id", "url"}`.
async fn create(
    State(app): State<ArenaState>,
    RequireAccount(me): RequireAccount,
    request: Request,
) -> Result<Response, ApiError> {
    let body = read_json_body(request, MAX_ARENA_BYTES, app.deps.config.body_read_timeout).await?;
    let request: NewArena =
        serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(e.to_string()))?;
    let made = app.arenas.create(&me, request).await?;
    let line = ArenaLine::of(&made, now_ms());
    Ok((StatusCode::CREATED, Json(line)).into_response())
}

/// `?page=N`: which page of the standings (from 1).
#[derive(Deserialize)]
struct PageQuery {
    page: Option<usize>,
}

async fn show(
    State(app): State<ArenaState>,
    MaybeAccount(me): MaybeAccount,
    Path(id): Path<String>,
    Query(query): Query<PageQuery>,
) -> Result<Response, ApiError> {
    let snapshot = app
        .arenas
        .snapshot(&id)
        .await?
        .ok_or(ArenaError::NotFound)?;
    let page = query.page.unwrap_or(1);
    let view = arena_view(&snapshot, now_ms(), me.map(|account| account.id), page);
    Ok(Json(view).into_response())
}

/// Both answer the arena as the asker now sees it.
async fn join(
    State(app): State<ArenaState>,
    RequireAccount(me): RequireAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    playban::check::refuse_banned(&*app.deps.store, Some(&me)).await?;
    app.arenas.join(&me, &id).await?;
    let snapshot = app.arenas.fresh(&id).await?.ok_or(ArenaError::NotFound)?;
    Ok(Json(arena_view(&snapshot, now_ms(), Some(me.id), 1)).into_response())
}

async fn withdraw(
    State(app): State<ArenaState>,
    RequireAccount(me): RequireAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    app.arenas.withdraw(&me, &id).await?;
    let snapshot = app.arenas.fresh(&id).await?.ok_or(ArenaError::NotFound)?;
    Ok(Json(arena_view(&snapshot, now_ms(), Some(me.id), 1)).into_response())
}

/// `{"arenas": [...]}`: the arenas the user joined, the last to start first.
async fn played(
    State(app): State<ArenaState>,
    Path(username): Path<String>,
) -> Result<Response, ApiError> {
    let name = Username::parse(&username).map_err(|_| ArenaError::NotFound)?;
    let user = app
        .deps
        .store
        .find_user(&name)
        .await
        .map_err(|_| ArenaError::Store)?
        .ok_or(ArenaError::NotFound)?;
    let arenas = app.arenas.played_by(user.account.id).await?;
    Ok(Json(serde_json::json!({ "arenas": arenas })).into_response())
}
