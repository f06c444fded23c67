//! `/api/account/*` (docs/protocol.md, "Accounts"): register, log in, log out, who am I, and
//! the personal settings (settings.rs).

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::error;
use super::extract::MaybeAccount;
use super::service::NewSession;
use super::session;
use super::state::AccountState;
use crate::server::domain::user::Account;
use crate::server::players::rating::{Rating, Speed};
use crate::server::web::{ApiError, read_json_body};

/// Largest register/login body. Above a username and a password's limits on purpose: a 10 kB
/// username must be answered `bad_username`, not `413`.
pub const MAX_CREDENTIALS_BYTES: usize = 16 * 1024;

pub fn router(state: AccountState) -> Router {
    Router::new()
        .route("/api/account", get(me))
        .route("/api/account/register", post(register))
        .route("/api/account/login", post(login))
        .route("/api/account/logout", post(logout))
        .route(
            "/api/account/settings",
            get(super::settings::get_settings).put(super::settings::put_settings),
        )
        .with_state(state)
}

/// The body of register and login. By hand, so that no `Debug` can print the password.
#[derive(Deserialize)]
struct Credentials {
    username: String,
    password: String,
}

async fn credentials(app: &AccountState, request: Request) -> Result<Credentials, ApiError> {
    let body = read_json_body(
        request,
        MAX_CREDENTIALS_BYTES,
        app.deps.config.body_read_timeout,
    )
    .await?;
    // Not serde's message: for a value of the wrong type it quotes the value, and that value may
    // be a password.
    serde_json::from_slice(&body).map_err(|_| {
        ApiError::bad_request(r#"the body must be {"username": "...", "password": "..."}"#)
    })
}

/// `{"username", "ratings": {speed: {rating, deviation, provisional, games}}}`: every live
/// speed (the initial rating where none was played), and any other speed the user has played.
pub fn account_json(account: &Account, ratings: &[(Speed, Rating)]) -> Value {
    let mut by_speed = Map::new();
    for speed in Speed::ALL {
        let stored = ratings.iter().find(|(s, _)| *s == speed).map(|(_, r)| *r);
        if stored.is_none() && speed == Speed::Correspondence {
            continue;
        }
        let rating = stored.unwrap_or(Rating::INITIAL);
        let view = rating.view();
        by_speed.insert(
            speed.as_str().to_owned(),
            json!({
                "rating": view.rating,
                "deviation": view.deviation,
                "provisional": view.provisional,
                "games": rating.games,
            }),
        );
    }
    json!({"username": account.name, "ratings": by_speed})
}

async fn with_ratings(app: &AccountState, account: &Account) -> Result<Value, ApiError> {
    let ratings = app
        .accounts
        .store()
        .ratings(account.id)
        .await
        .map_err(error::store_failure)?;
    Ok(account_json(account, &ratings))
}

async fn signed_in(
    app: &AccountState,
    status: StatusCode,
    new: NewSession,
) -> Result<Response, ApiError> {
    let body = with_ratings(app, &new.account).await?;
    let cookie = session::set_cookie(&new.id, app.accounts.secure_cookies());
    Ok((status, [(header::SET_COOKIE, cookie)], axum::Json(body)).into_response())
}

async fn register(
    State(app): State<AccountState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Result<Response, ApiError> {
    let body = credentials(&app, request).await?;
    let new = app
        .accounts
        .register(peer.ip(), &body.username, &body.password)
        .await?;
    signed_in(&app, StatusCode::CREATED, new).await
}

async fn login(
    State(app): State<AccountState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Result<Response, ApiError> {
    let body = credentials(&app, request).await?;
    let new = app
        .accounts
        .login(peer.ip(), &body.username, &body.password)
        .await?;
    signed_in(&app, StatusCode::OK, new).await
}

/// 204 and a cleared cookie, with or without a session.
async fn logout(State(app): State<AccountState>, headers: HeaderMap) -> Result<Response, ApiError> {
    app.accounts.logout(&headers).await?;
    let cookie = session::clear_cookie(app.accounts.secure_cookies());
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie)]).into_response())
}

/// The signed-in account (`{"username", "ratings"}`), or `200 {"account": null}` for a
/// visitor without a live session (issue 32: not a 401, which every browser's console shows
/// as an error on every page of a visitor).
async fn me(
    State(app): State<AccountState>,
    MaybeAccount(account): MaybeAccount,
) -> Result<Response, ApiError> {
    match account {
        Some(account) => Ok(axum::Json(with_ratings(&app, &account).await?).into_response()),
        None => Ok(axum::Json(json!({ "account": null })).into_response()),
    }
}
