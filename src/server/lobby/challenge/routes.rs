//! The HTTP side of challenges (docs/protocol.md "Challenges") and the lobby channel's upgrade
//! route (`/ws/lobby`, "Lobby socket"). Every challenge route needs a signed-in user (the
//! session cookie; 401 `not_logged_in` otherwise); the lobby channel takes anyone.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{ConnectInfo, Extension, Path, Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use super::local::{
    ChallengeRequest, ChallengeState, MAX_CHALLENGE_BYTES, accept_here, cancel_here, decline_here,
    make_here, mine_here,
};
use super::remote::forward;
use crate::server::cluster::lobby_wire::Op;
use crate::server::lobby::channel;
use crate::server::per_client::SocketKind;
use crate::server::players::account::{MaybeAccount, RequireAccount};
use crate::server::safety::playban;
use crate::server::web::serve::ConnectionSlot;
use crate::server::web::upgrade;
use crate::server::web::{ApiError, read_json_body};

pub fn router(state: ChallengeState) -> Router {
    Router::new()
        .route("/api/challenges", post(make).get(mine))
        .route("/api/challenges/{id}/accept", post(accept))
        .route("/api/challenges/{id}/decline", post(decline))
        .route("/api/challenges/{id}/cancel", post(cancel))
        .route("/ws/lobby", get(lobby_channel))
        .with_state(state)
}

async fn make(
    State(app): State<ChallengeState>,
    RequireAccount(me): RequireAccount,
    request: Request,
) -> Result<Response, ApiError> {
    playban::check::refuse_banned(&*app.deps.store, Some(&me)).await?;
    let config = &app.deps.config;
    let body = read_json_body(request, MAX_CHALLENGE_BYTES, config.body_read_timeout).await?;
    let request: ChallengeRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(e.to_string()))?;
    if app.lobby.cluster().is_some() {
        let body = String::from_utf8(body.to_vec())
            .map_err(|_| ApiError::bad_request("the body is not UTF-8"))?;
        let op = || Op::Make {
            me: (&me).into(),
            body,
        };
        if let Some(answer) = forward(&app.lobby, op).await {
            return answer;
        }
    }
    make_here(&app, me, request).await
}

async fn mine(
    State(app): State<ChallengeState>,
    RequireAccount(me): RequireAccount,
) -> Result<Response, ApiError> {
    if let Some(answer) = forward(&app.lobby, || Op::Mine { me: (&me).into() }).await {
        return answer;
    }
    mine_here(&app, &me)
}

async fn accept(
    State(app): State<ChallengeState>,
    RequireAccount(me): RequireAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    playban::check::refuse_banned(&*app.deps.store, Some(&me)).await?;
    let op = || Op::Accept {
        me: (&me).into(),
        id: id.clone(),
    };
    if let Some(answer) = forward(&app.lobby, op).await {
        return answer;
    }
    accept_here(&app, &me, &id).await
}

async fn decline(
    State(app): State<ChallengeState>,
    RequireAccount(me): RequireAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let op = || Op::Decline {
        me: (&me).into(),
        id: id.clone(),
    };
    if let Some(answer) = forward(&app.lobby, op).await {
        return answer;
    }
    decline_here(&app, &me, &id)
}

async fn cancel(
    State(app): State<ChallengeState>,
    RequireAccount(me): RequireAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let op = || Op::Cancel {
        me: (&me).into(),
        id: id.clone(),
    };
    if let Some(answer) = forward(&app.lobby, op).await {
        return answer;
    }
    cancel_here(&app, &me, &id)
}

async fn lobby_channel(
    State(app): State<ChallengeState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    MaybeAccount(account): MaybeAccount,
    slot: Option<Extension<ConnectionSlot>>,
    upgrade: upgrade::Upgrade,
) -> Response {
    let hold =
        match app
            .deps
            .clients
            .socket(SocketKind::Lobby, peer.ip(), account.as_ref().map(|a| a.id))
        {
            Ok(hold) => hold,
            Err(refused) => return refused.into_response(),
        };
    let deps = app.deps.clone();
    let lobby = Arc::clone(&app.lobby);
    let pools = Arc::clone(&app.pools);
    upgrade.accept(&app.deps.config, move |ws| async move {
        // The connection's slot (--max-connections) and its share of its client's lobby
        // channels are held for as long as the channel lives.
        let (_slot, _hold) = (slot, hold);
        channel::run(ws, deps, (lobby, pools), (account, peer.ip())).await
    })
}
