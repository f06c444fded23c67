//! The game routes (docs/protocol.md section 2): create, list, join and read games, the game
//! page and its PGN, and the game's WebSocket.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Router;
use axum::extract::{ConnectInfo, Extension, FromRef, Path, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::server::computer::admission;
use crate::server::deps::Deps;
use crate::server::per_client::SocketKind;
use crate::server::per_client::games::GameKind;
use crate::server::play::creation::NewGame;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::play::rating_filter::{self, RatingRange};
use crate::server::play::room::{Command, Room};
use crate::server::play::rooms::Rooms;
use crate::server::play::socket;
use crate::server::players::account::{Accounts, MaybeAccount};
use crate::server::safety::playban;
use crate::server::store::GameStatus;
use crate::server::web::ratelimit::AddressLimiter;
use crate::server::web::serve::ConnectionSlot;
use crate::server::web::{ApiError, assets, read_json_body, upgrade};

/// Largest `POST /api/games` body: a FEN and a few fields fit in far less.
pub const MAX_CREATE_BYTES: usize = 16 * 1024;

/// What the game routes need: the games, the accounts (a signed-in player's seat is the
/// account's) and the per-address limit on taking seats.
#[derive(Clone)]
pub struct PlayState {
    pub deps: Deps,
    pub rooms: Arc<Rooms>,
    pub accounts: Arc<Accounts>,
    /// Per-address limit on creating and joining games.
    pub seat_grants: Arc<AddressLimiter>,
}

impl FromRef<PlayState> for Arc<Accounts> {
    fn from_ref(state: &PlayState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}

impl PlayState {
    /// One seat grant (create or join) for this client, or 429.
    fn grant_seat(&self, peer: SocketAddr) -> Result<(), ApiError> {
        self.seat_grants
            .check(peer.ip(), Instant::now())
            .map_err(|limited| {
                self.deps
                    .metrics
                    .rate_limited
                    .fetch_add(1, Ordering::Relaxed);
                ApiError::from(Refusal::new(
                    ErrorCode::RateLimited,
                    format!(
                        "too many games created or joined from your address; try again in {} s",
                        limited.retry_after_secs
                    ),
                ))
                .retry_after(limited.retry_after_secs)
            })
    }
}

pub fn router(state: PlayState) -> Router {
    Router::new()
        .route("/game/{id}", get(game_page_or_pgn))
        .route("/api/games", post(create).get(list))
        .route("/api/games/{id}", get(public_state))
        .route("/api/games/{id}/join", post(join))
        .route("/ws/game/{id}", get(websocket))
        .with_state(state)
}

async fn room_of(rooms: &Rooms, id: &str) -> Result<Arc<Room>, ApiError> {
    rooms
        .get(id)
        .await?
        .ok_or_else(|| ApiError::not_found("game"))
}

/// Sends a request to a game's room, reloading it once if it just retired.
pub async fn ask<T>(
    rooms: &Rooms,
    id: &str,
    make: impl Fn(oneshot::Sender<T>) -> Command,
) -> Result<T, ApiError> {
    for _ in 0..2 {
        let room = room_of(rooms, id).await?;
        let (tx, rx) = oneshot::channel();
        if room.send(make(tx)).await.is_ok()
            && let Ok(answer) = rx.await
        {
            return Ok(answer);
        }
    }
    Err(ApiError::from(Refusal::new(
        ErrorCode::StoreFailure,
        "the game is unavailable, try again",
    )))
}

/// `/game/{id}` is the game page; `/game/{id}.pgn` its PGN.
async fn game_page_or_pgn(
    State(app): State<PlayState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let Some(id) = id.strip_suffix(".pgn") else {
        return Ok(assets::index_page());
    };
    let pgn = ask(&app.rooms, id, |reply| Command::Pgn { reply }).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], pgn).into_response())
}

/// The HTTP status of a refused create or join: the account checks of rated games have their
/// own (401 without an account, 409 for one's own rated game); the rest as every refusal.
fn seat_refusal(refusal: Refusal) -> ApiError {
    let status = match refusal.code {
        ErrorCode::NotLoggedIn => Some(StatusCode::UNAUTHORIZED),
        ErrorCode::SamePlayer => Some(StatusCode::CONFLICT),
        _ => None,
    };
    let mut error = ApiError::from(refusal);
    if let Some(status) = status {
        error.status = status;
    }
    error
}

/// `POST /api/games`; signed in, the creator's seat belongs to the account (the token is
/// returned all the same).
async fn create(
    State(app): State<PlayState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    MaybeAccount(account): MaybeAccount,
    request: Request,
) -> Result<Response, ApiError> {
    let config = &app.deps.config;
    let body = read_json_body(request, MAX_CREATE_BYTES, config.body_read_timeout).await?;
    let request: NewGame = if body.iter().all(u8::is_ascii_whitespace) {
        NewGame::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(e.to_string()))?
    };
    playban::check::refuse_banned(&*app.deps.store, account.as_ref()).await?;
    // A client at its cap is refused before it spends a seat grant.
    let kind = GameKind::of_new(request.computer.is_some());
    let hold = app
        .deps
        .clients
        .new_game(kind, peer.ip(), account.as_ref().map(|a| a.id))?;
    // A computer game counts as one search in the engine queue until its computer asks for
    // its first search: concurrent creations see each other. A busy engine is no fault of the
    // client's: it spends no seat grant.
    let reserved = match request.computer {
        Some(_) => Some(admission::admit_http(
            &app.rooms.engines,
            config.engine_max_wait,
            &app.deps.metrics,
        )?),
        None => None,
    };
    app.grant_seat(peer)?;
    let grant = app
        .rooms
        .create_holding(request, account, Some(hold), reserved)
        .await
        .map_err(seat_refusal)?;
    tracing::info!(game = %grant.id, "game created");
    Ok((StatusCode::CREATED, axum::Json(grant)).into_response())
}

/// `POST /api/games/{id}/join`; signed in, the seat belongs to the account.
async fn join(
    State(app): State<PlayState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    MaybeAccount(account): MaybeAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    playban::check::refuse_banned(&*app.deps.store, account.as_ref()).await?;
    app.grant_seat(peer)?;
    let grant = ask(&app.rooms, &id, |reply| Command::Join {
        account: account.clone(),
        reply,
    })
    .await?
    .map_err(seat_refusal)?;
    tracing::info!(game = %grant.id, "seat taken");
    Ok(axum::Json(grant).into_response())
}

async fn public_state(
    State(app): State<PlayState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let snapshot = ask(&app.rooms, &id, |reply| Command::Snapshot { reply }).await?;
    Ok(axum::Json(snapshot).into_response())
}

#[derive(Deserialize)]
struct ListQuery {
    status: Option<String>,
    limit: Option<u32>,
    offset: Option<u32>,
    /// The creator's rating range (rating_filter.rs).
    rating_min: Option<u32>,
    rating_max: Option<u32>,
}

async fn list(
    State(app): State<PlayState>,
    Query(query): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let status: GameStatus = match query.status.as_deref() {
        None => GameStatus::Open,
        Some(text) => text
            .parse()
            .map_err(|e: crate::server::store::UnknownStatus| {
                ApiError::bad_request(e.to_string())
            })?,
    };
    let limit = query.limit.unwrap_or(50);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::bad_request("limit must be between 1 and 100"));
    }
    let offset = query.offset.unwrap_or(0);
    let range = RatingRange::new(query.rating_min, query.rating_max)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let store_failed = |e: crate::server::store::StoreError| {
        ApiError::from(Refusal::new(ErrorCode::StoreFailure, e.to_string()))
    };
    let games: Vec<Value> = if range.is_open() {
        let rows = app
            .deps
            .store
            .list(status, limit, offset)
            .await
            .map_err(store_failed)?;
        rows.iter()
            .filter_map(|row| serde_json::from_str(&row.summary).ok())
            .collect()
    } else {
        rating_filter::list(&*app.deps.store, status, range, limit, offset)
            .await
            .map_err(store_failed)?
    };
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

/// The WebSocket of a game. A session cookie (checked at the upgrade, Origin included) makes
/// the connection its account's: it holds the seat the account owns, token or not.
async fn websocket(
    State(app): State<PlayState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    MaybeAccount(account): MaybeAccount,
    Path(id): Path<String>,
    Query(query): Query<WsQuery>,
    slot: Option<Extension<ConnectionSlot>>,
    upgrade: upgrade::Upgrade,
) -> Result<Response, ApiError> {
    let account = account.map(|a| a.id);
    let hold = app
        .deps
        .clients
        .socket(SocketKind::Game, peer.ip(), account)?;
    let room = room_of(&app.rooms, &id).await?;
    let rooms = Arc::clone(&app.rooms);
    let shutdown = app.deps.shutdown.clone();
    Ok(upgrade.accept(&app.deps.config, move |ws| async move {
        // The connection's slot (--max-connections) and its share of its client's sockets
        // are held for as long as the socket lives, not just the upgrade request.
        let (_slot, _hold) = (slot, hold);
        let guest = (account, peer.ip());
        socket::run(ws, rooms, room, query.token, guest, query.v, shutdown).await
    }))
}
