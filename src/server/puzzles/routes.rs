//! The puzzles' routes (docs/protocol.md, "Puzzles"): the pages `/puzzles`, `/puzzles/themes`
//! and `/puzzles/{id}` (the client's shell) and the API.

use std::sync::Arc;

use axum::extract::{FromRef, Path, Query, Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

use crate::rules::SubMove;
use crate::server::deps::Deps;
use crate::server::players::account::{Accounts, MaybeAccount};
use crate::server::web::{ApiError, assets, read_json_body};

use super::error::PuzzleError;
use super::line::MAX_TURNS;
use super::service::Puzzles;
use super::theme::Theme;

/// The longest body of a sub-move, hint or solution request: at most 8 sub-moves of the
/// solver (4 turns), a few dozen bytes each with the JSON around them.
const MAX_PLAYED_BYTES: usize = 1024;

#[derive(Clone)]
pub struct PuzzleState {
    pub deps: Deps,
    pub puzzles: Arc<Puzzles>,
    pub accounts: Arc<Accounts>,
}

impl FromRef<PuzzleState> for Arc<Accounts> {
    fn from_ref(state: &PuzzleState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}

pub fn router(state: PuzzleState) -> Router {
    Router::new()
        .route("/puzzles", get(page))
        .route("/puzzles/themes", get(page))
        .route("/puzzles/{id}", get(page))
        .route("/api/puzzles/next", get(next))
        .route("/api/puzzles/daily", get(daily))
        .route("/api/puzzles/themes", get(themes))
        .route("/api/puzzles/{id}", get(show))
        .route("/api/puzzles/{id}/moves", post(moves))
        .route("/api/puzzles/{id}/hint", post(hint))
        .route("/api/puzzles/{id}/solution", post(solution))
        .route("/api/users/{username}/puzzles", get(dashboard))
        .with_state(state)
}

async fn page() -> Response {
    assets::index_page()
}

/// `?theme=KEY&after=ID`.
#[derive(Deserialize)]
struct NextQuery {
    theme: Option<String>,
    after: Option<String>,
}

async fn next(
    State(app): State<PuzzleState>,
    MaybeAccount(me): MaybeAccount,
    Query(query): Query<NextQuery>,
) -> Result<Response, ApiError> {
    let theme = match query.theme.as_deref().filter(|t| !t.is_empty()) {
        None => None,
        Some(key) => {
            Some(Theme::from_key(key).ok_or_else(|| PuzzleError::UnknownTheme(key.to_string()))?)
        }
    };
    let after = query.after.filter(|id| {
        !id.is_empty() && id.len() <= 32 && id.bytes().all(|b| b.is_ascii_alphanumeric())
    });
    let answer = app.puzzles.next(me.as_ref(), theme, after).await?;
    Ok(Json(answer).into_response())
}

async fn daily(
    State(app): State<PuzzleState>,
    MaybeAccount(me): MaybeAccount,
) -> Result<Response, ApiError> {
    Ok(Json(app.puzzles.daily(me.as_ref()).await?).into_response())
}

async fn themes(State(app): State<PuzzleState>) -> Result<Response, ApiError> {
    Ok(Json(app.puzzles.themes().await?).into_response())
}

async fn show(
    State(app): State<PuzzleState>,
    MaybeAccount(me): MaybeAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(app.puzzles.show(me.as_ref(), &id).await?).into_response())
}

/// `{"played": ["e2e4", ...]}`: the solver's sub-moves so far.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Played {
    played: Vec<String>,
}

/// Reads the body of a sub-move or hint request into sub-moves.
async fn played_of(app: &PuzzleState, request: Request) -> Result<Vec<SubMove>, ApiError> {
    let body = read_json_body(request, MAX_PLAYED_BYTES, app.deps.config.body_read_timeout).await?;
    let played: Played =
        serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(e.to_string()))?;
    if played.played.len() > MAX_TURNS {
        return Err(PuzzleError::Played(format!(
            "a solution has at most {MAX_TURNS} sub-moves of the solver"
        ))
        .into());
    }
    played
        .played
        .iter()
        .map(|text| {
            text.parse::<SubMove>()
                .map_err(|e| PuzzleError::Played(e.to_string()).into())
        })
        .collect()
}

async fn moves(
    State(app): State<PuzzleState>,
    MaybeAccount(me): MaybeAccount,
    Path(id): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    let played = played_of(&app, request).await?;
    Ok(Json(app.puzzles.play(me.as_ref(), &id, &played).await?).into_response())
}

/// `{"square": "e2", "round": ...}`.
async fn hint(
    State(app): State<PuzzleState>,
    MaybeAccount(me): MaybeAccount,
    Path(id): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    let played = played_of(&app, request).await?;
    let (square, round) = app.puzzles.hint(me.as_ref(), &id, &played).await?;
    Ok(Json(serde_json::json!({ "square": square.to_string(), "round": round })).into_response())
}

async fn solution(
    State(app): State<PuzzleState>,
    MaybeAccount(me): MaybeAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(app.puzzles.solution(me.as_ref(), &id).await?).into_response())
}

async fn dashboard(
    State(app): State<PuzzleState>,
    Path(username): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(app.puzzles.dashboard(&username).await?).into_response())
}
