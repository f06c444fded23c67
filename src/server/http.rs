//! The HTTP routes (docs/protocol.md section 2): the JSON API, PGN export,
//! the embedded client, health and metrics, and the WebSocket upgrade.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Router;
use axum::extract::{ConnectInfo, Extension, Path, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{oneshot, watch};

use crate::server::account::{Accounts, MaybeAccount};
use crate::server::analysis::Analyses;
use crate::server::challenge::Lobby;
use crate::server::lobby::NewGame;
use crate::server::protocol::{ErrorCode, Refusal};
use crate::server::rating_filter::{self, RatingRange};
use crate::server::replay::ReplayPool;
use crate::server::room::{Command, Room};
use crate::server::rooms::Rooms;
use crate::server::socket;
use crate::server::store::GameStatus;
pub use crate::server::web::ApiError;
use crate::server::web::ratelimit::AddressLimiter;
use crate::server::web::serve::ConnectionSlot;
use crate::server::web::{assets, upgrade};
use crate::server::web::{json_errors, read_json_body, unknown_route};

/// Largest `POST /api/games` body: a FEN and a few fields fit in far less.
pub const MAX_CREATE_BYTES: usize = 16 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub rooms: Arc<Rooms>,
    pub shutdown: watch::Receiver<bool>,
    /// Per-address limit on creating and joining games.
    pub seat_grants: Arc<AddressLimiter>,
    /// Where replays run (the blocking pool, a bounded number at once).
    pub replays: Arc<ReplayPool>,
    /// The analyses' per-address limit and global cap.
    pub analyses: Arc<Analyses>,
    /// Challenges and the lobby channels.
    pub lobby: Arc<Lobby>,
    /// Sign-in: sessions, passwords, the account routes' limits (issue 11).
    pub accounts: Arc<Accounts>,
}

impl AppState {
    pub fn new(rooms: Arc<Rooms>, shutdown: watch::Receiver<bool>) -> AppState {
        let config = &rooms.config;
        let seat_grants = Arc::new(AddressLimiter::new(
            config.create_rate_per_sec,
            config.create_burst,
        ));
        let replays = Arc::new(ReplayPool::new(
            config.max_concurrent_replays,
            config.replay_wait,
            Arc::clone(&rooms.metrics),
        ));
        let analyses = Arc::new(Analyses::new(&config.analysis));
        let lobby = Lobby::start(config.lobby, shutdown.clone());
        crate::server::my_games::spawn_pusher(
            Arc::clone(&rooms.store),
            &rooms.your_turn,
            Arc::clone(&lobby),
            shutdown.clone(),
        );
        let accounts = Arc::new(Accounts::new(
            Arc::clone(&rooms.store),
            &config.accounts,
            config.public_origin.clone(),
        ));
        AppState {
            rooms,
            shutdown,
            seat_grants,
            replays,
            analyses,
            lobby,
            accounts,
        }
    }

    /// One seat grant (create or join) for this client, or 429.
    fn grant_seat(&self, peer: SocketAddr) -> Result<(), ApiError> {
        self.seat_grants
            .check(peer.ip(), Instant::now())
            .map_err(|limited| {
                self.rooms
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

fn not_found(what: &str) -> ApiError {
    ApiError::not_found(what)
}

pub fn router(state: AppState) -> Router {
    let accounts = Arc::clone(&state.accounts);
    Router::new()
        .route("/", get(index))
        .route("/game/{id}", get(game_page_or_pgn))
        // "My games": the client's page (client/mine.js), the same shell as `/`.
        .route("/games/mine", get(index))
        // `{*file}`: the catalogues live one folder down (`/static/i18n/fr.json`).
        .route("/static/{*file}", get(static_file))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/api/games", post(create).get(list))
        .route("/api/games/{id}", get(public_state))
        .route("/api/games/{id}/join", post(join))
        .route("/ws/game/{id}", get(websocket))
        .merge(crate::server::replay::routes())
        .merge(crate::server::analysis::routes())
        .merge(crate::server::challenge::routes::routes())
        .merge(crate::server::account::routes::routes())
        .merge(crate::server::profile::routes())
        .merge(crate::server::my_games::routes())
        .fallback(unknown_route)
        // Every route, whoever added it: a cookie-carrying change must come from our Origin.
        .layer(axum::middleware::from_fn_with_state(
            accounts,
            crate::server::account::origin::check,
        ))
        .layer(axum::middleware::map_response(json_errors))
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

/// How long `/healthz` waits for each dependency.
const HEALTH_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// `/healthz`: the store and (several nodes) the bus. 200 with `"status":"ok"` when both
/// answer, 503 `"degraded"` otherwise (`"bus":"none"` on one node).
async fn healthz(State(app): State<AppState>) -> Response {
    let store_ok = matches!(
        tokio::time::timeout(HEALTH_WAIT, app.rooms.store.list(GameStatus::Open, 1, 0)).await,
        Ok(Ok(_))
    );
    let bus = match app.rooms.cluster.get() {
        None => "none",
        Some(link) => match tokio::time::timeout(HEALTH_WAIT, link.bus.ping()).await {
            Ok(Ok(_)) => "ok",
            _ => "down",
        },
    };
    let ok = store_ok && bus != "down";
    let body = json!({
        "status": if ok { "ok" } else { "degraded" },
        "store": if store_ok { "ok" } else { "down" },
        "bus": bus,
    });
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, axum::Json(body)).into_response()
}

async fn metrics(State(app): State<AppState>) -> Response {
    let mut text = app.rooms.metrics.render(app.rooms.live_games());
    if let Some(link) = app.rooms.cluster.get() {
        let owned = app.rooms.owned_rooms().len();
        app.rooms
            .metrics
            .leases
            .render(&mut text, owned, link.relays());
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

async fn room_of(app: &AppState, id: &str) -> Result<Arc<Room>, ApiError> {
    app.rooms.get(id).await?.ok_or_else(|| not_found("game"))
}

/// Sends a request to a game's room, reloading it once if it just retired.
pub(super) async fn ask<T>(
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
    Err(ApiError::from(Refusal::new(
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
    State(app): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    MaybeAccount(account): MaybeAccount,
    request: Request,
) -> Result<Response, ApiError> {
    let config = &app.rooms.config;
    let body = read_json_body(request, MAX_CREATE_BYTES, config.body_read_timeout).await?;
    let request: NewGame = if body.iter().all(u8::is_ascii_whitespace) {
        NewGame::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(e.to_string()))?
    };
    app.grant_seat(peer)?;
    let grant = app
        .rooms
        .create(request, account)
        .await
        .map_err(seat_refusal)?;
    tracing::info!(game = %grant.id, "game created");
    Ok((StatusCode::CREATED, axum::Json(grant)).into_response())
}

/// `POST /api/games/{id}/join`; signed in, the seat belongs to the account.
async fn join(
    State(app): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    MaybeAccount(account): MaybeAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    app.grant_seat(peer)?;
    let grant = ask(&app, &id, |reply| Command::Join {
        account: account.clone(),
        reply,
    })
    .await?
    .map_err(seat_refusal)?;
    tracing::info!(game = %grant.id, "seat taken");
    Ok(axum::Json(grant).into_response())
}

async fn public_state(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let snapshot = ask(&app, &id, |reply| Command::Snapshot { reply }).await?;
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
    State(app): State<AppState>,
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
            .rooms
            .store
            .list(status, limit, offset)
            .await
            .map_err(store_failed)?;
        rows.iter()
            .filter_map(|row| serde_json::from_str(&row.summary).ok())
            .collect()
    } else {
        rating_filter::list(&*app.rooms.store, status, range, limit, offset)
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
    State(app): State<AppState>,
    MaybeAccount(account): MaybeAccount,
    Path(id): Path<String>,
    Query(query): Query<WsQuery>,
    slot: Option<Extension<ConnectionSlot>>,
    upgrade: upgrade::Upgrade,
) -> Result<Response, ApiError> {
    let room = room_of(&app, &id).await?;
    let rooms = Arc::clone(&app.rooms);
    let shutdown = app.shutdown.clone();
    let account = account.map(|a| a.id);
    Ok(upgrade.accept(&app.rooms.config, move |ws| async move {
        // The connection's slot (--max-connections) is held for as long as
        // the socket lives, not just the upgrade request.
        let _slot = slot;
        socket::run(ws, rooms, room, query.token, account, query.v, shutdown).await
    }))
}
