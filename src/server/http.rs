//! The HTTP routes (docs/protocol.md section 2): the JSON API, PGN export,
//! the embedded client, health and metrics, and the WebSocket upgrade.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{oneshot, watch};

use super::protocol::{ErrorCode, Refusal};
use super::room::{Command, Room};
use super::rooms::{NewGame, Rooms};
use super::store::GameStatus;
use super::{assets, socket, upgrade};

#[derive(Clone)]
pub struct AppState {
    pub rooms: Arc<Rooms>,
    pub shutdown: watch::Receiver<bool>,
}

/// A refusal as an HTTP response: status and `{code, message}`.
pub struct ApiError(Refusal);

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        ApiError(refusal)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match self.0.code {
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::SeatTaken => StatusCode::CONFLICT,
            ErrorCode::StoreFailure => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_REQUEST,
        };
        (status, axum::Json(&self.0)).into_response()
    }
}

fn not_found(what: &str) -> ApiError {
    ApiError(Refusal::new(ErrorCode::NotFound, format!("no such {what}")))
}

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/game/{id}", get(game_page_or_pgn))
        .route("/static/{file}", get(static_file))
        .route("/healthz", get(|| async { "ok" }))
        .route("/metrics", get(metrics))
        .route("/api/games", post(create).get(list))
        .route("/api/games/{id}", get(public_state))
        .route("/api/games/{id}/join", post(join))
        .route("/ws/game/{id}", get(websocket))
        .merge(super::replay::routes())
        .with_state(state)
}

async fn index() -> Response {
    html()
}

fn html() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        assets::index_html(),
    )
        .into_response()
}

async fn static_file(Path(file): Path<String>) -> Result<Response, ApiError> {
    let (content_type, bytes) = assets::find(&file).ok_or_else(|| not_found("file"))?;
    Ok(([(header::CONTENT_TYPE, content_type)], bytes).into_response())
}

async fn metrics(State(app): State<AppState>) -> Response {
    let text = app.rooms.metrics.render(app.rooms.live_games());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

async fn room_of(app: &AppState, id: &str) -> Result<Arc<Room>, ApiError> {
    app.rooms.get(id).await?.ok_or_else(|| not_found("game"))
}

/// Sends a request to a game's room, reloading it once if it just retired.
async fn ask<T>(
    app: &AppState,
    id: &str,
    make: impl Fn(oneshot::Sender<T>) -> Command,
) -> Result<T, ApiError> {
    for _ in 0..2 {
        let room = room_of(app, id).await?;
        let (tx, rx) = oneshot::channel();
        if room.send(make(tx)).await.is_ok()
            && let Ok(answer) = rx.await
        {
            return Ok(answer);
        }
    }
    Err(ApiError(Refusal::new(
        ErrorCode::StoreFailure,
        "the game is unavailable, try again",
    )))
}

/// `/game/{id}` is the game page; `/game/{id}.pgn` its PGN.
async fn game_page_or_pgn(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let Some(id) = id.strip_suffix(".pgn") else {
        return Ok(html());
    };
    let pgn = ask(&app, id, |reply| Command::Pgn { reply }).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], pgn).into_response())
}

async fn create(State(app): State<AppState>, body: Bytes) -> Result<Response, ApiError> {
    let request: NewGame = if body.iter().all(u8::is_ascii_whitespace) {
        NewGame::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError(Refusal::new(ErrorCode::BadRequest, e.to_string())))?
    };
    let grant = app.rooms.create(request).await?;
    tracing::info!(game = %grant.id, "game created");
    Ok((StatusCode::CREATED, axum::Json(grant)).into_response())
}

async fn join(State(app): State<AppState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let grant = ask(&app, &id, |reply| Command::Join { reply }).await??;
    tracing::info!(game = %grant.id, "seat taken");
    Ok(axum::Json(grant).into_response())
}

async fn public_state(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let mut snapshot = ask(&app, &id, |reply| Command::Snapshot { reply }).await?;
    if let Some(map) = snapshot.as_object_mut() {
        map.remove("you");
    }
    Ok(axum::Json(snapshot).into_response())
}

#[derive(Deserialize)]
struct ListQuery {
    status: Option<String>,
    limit: Option<u32>,
    offset: Option<u32>,
}

async fn list(
    State(app): State<AppState>,
    Query(query): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let status: GameStatus = match query.status.as_deref() {
        None => GameStatus::Open,
        Some(text) => text.parse().map_err(|e: super::store::UnknownStatus| {
            ApiError(Refusal::new(ErrorCode::BadRequest, e.to_string()))
        })?,
    };
    let limit = query.limit.unwrap_or(50);
    if !(1..=100).contains(&limit) {
        return Err(ApiError(Refusal::new(
            ErrorCode::BadRequest,
            "limit must be between 1 and 100",
        )));
    }
    let offset = query.offset.unwrap_or(0);
    let rows = app
        .rooms
        .store
        .list(status, limit, offset)
        .await
        .map_err(|e| ApiError(Refusal::new(ErrorCode::StoreFailure, e.to_string())))?;
    let games: Vec<Value> = rows
        .iter()
        .filter_map(|row| serde_json::from_str(&row.summary).ok())
        .collect();
    Ok(axum::Json(json!({
        "status": status, "limit": limit, "offset": offset, "games": games,
    }))
    .into_response())
}

#[derive(Deserialize)]
struct WsQuery {
    token: Option<String>,
    v: Option<u64>,
}

async fn websocket(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<WsQuery>,
    upgrade: upgrade::Upgrade,
) -> Result<Response, ApiError> {
    let room = room_of(&app, &id).await?;
    let rooms = Arc::clone(&app.rooms);
    let shutdown = app.shutdown.clone();
    Ok(upgrade.accept(&app.rooms.config, move |ws| {
        socket::run(ws, rooms, room, query.token, query.v, shutdown)
    }))
}
