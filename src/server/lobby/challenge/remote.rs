//! Challenges with several nodes (issue 13): the challenge registry runs on one node, the
//! lobby's owner (the store's lease on `lobby`); a challenge route on any other node is
//! forwarded to it over the bus and answers what the owner answered ([`forward`]). This module
//! also runs what the bus brings to a node's lobby ([`join`]): notices for its channels, chat
//! lines, the other nodes' presence, the operations it runs as the owner.
//!
//! The owner runs the one-node code unchanged (the `*_here` functions of [`super::local`]),
//! so the rules, bounds, rate and messages are those of one node. Its pending challenges live
//! in its memory: if it dies they are lost, as on a one-node restart, and another node takes
//! the lease.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::Lobby;
use super::local::{ChallengeState, accept_here, cancel_here, decline_here, make_here, mine_here};
use crate::server::cluster::lobby::LobbyLink;
use crate::server::cluster::lobby_wire::{LOBBY_CHANNEL, Op, Outcome, Wire, node_channel};
use crate::server::cluster::{BusError, BusEvent};
use crate::server::lobby::channel::msg::ChallengeView;
use crate::server::play::protocol::ErrorCode;
use crate::server::players::account::{Account, UserId};
use crate::server::web::ApiError;

/// Messages a node's lobby subscriptions hold before the bus drops them (a gap).
const QUEUE: usize = 4096;

/// Largest answer body read (a list of a user's challenges fits in far less).
const MAX_ANSWER_BYTES: usize = 1 << 20;

/// 503 `not_available`: the owner did not answer in time.
fn unavailable() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::NotAvailable,
        "the lobby is not available just now; try again",
    )
    .retry_after(1)
}

/// With another node owning the lobby: `op` forwarded there, and its answer. `None`: this
/// node runs the challenges (one node, or the owner).
pub async fn forward(lobby: &Lobby, op: impl FnOnce() -> Op) -> Option<Result<Response, ApiError>> {
    let link = lobby.cluster()?;
    let owner = link.remote_owner()?;
    Some(match link.ask(&owner, op()).await {
        Ok(outcome) => Ok(response_of(outcome)),
        Err(error) => {
            tracing::warn!(%error, %owner, "a challenge operation got no answer");
            Err(unavailable())
        }
    })
}

/// The challenges standing for `me` (what a lobby channel is shown when it opens).
pub async fn standing(lobby: &Lobby, me: &Account) -> Vec<ChallengeView> {
    let now = Instant::now();
    let local = || lobby.of(me.id).iter().map(|c| c.view(now, None)).collect();
    let Some(link) = lobby.cluster() else {
        return local();
    };
    let Some(owner) = link.remote_owner() else {
        return local();
    };
    #[derive(serde::Deserialize)]
    struct Mine {
        challenges: Vec<ChallengeView>,
    }
    match link.ask(&owner, Op::Mine { me: me.into() }).await {
        Ok(outcome) if outcome.status == 200 => match serde_json::from_str::<Mine>(&outcome.body) {
            Ok(mine) => mine.challenges,
            Err(error) => {
                tracing::warn!(%error, "the owner's list of challenges does not read");
                Vec::new()
            }
        },
        Ok(outcome) => {
            tracing::warn!(
                status = outcome.status,
                "the owner refused a list of challenges"
            );
            Vec::new()
        }
        Err(error) => {
            tracing::warn!(%error, "no list of challenges from the owner");
            Vec::new()
        }
    }
}

fn response_of(outcome: Outcome) -> Response {
    let status = StatusCode::from_u16(outcome.status).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut response = if outcome.body.is_empty() {
        status.into_response()
    } else {
        (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            outcome.body,
        )
            .into_response()
    };
    if let Some(value) = outcome
        .retry_after
        .and_then(|v| HeaderValue::from_str(&v).ok())
    {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

async fn outcome_of(response: Response) -> Outcome {
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = match axum::body::to_bytes(response.into_body(), MAX_ANSWER_BYTES).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(error) => {
            tracing::warn!(%error, "a challenge answer could not be read");
            return Outcome {
                status: 500,
                retry_after: None,
                body: String::new(),
            };
        }
    };
    Outcome {
        status,
        retry_after,
        body,
    }
}

/// Runs a forwarded operation here, as its route would have.
async fn run(app: &ChallengeState, op: Op) -> Response {
    let me = match &op {
        Op::Make { me, .. }
        | Op::Mine { me }
        | Op::Accept { me, .. }
        | Op::Decline { me, .. }
        | Op::Cancel { me, .. } => me.account(),
        Op::Left { .. } | Op::PoolIn { .. } | Op::PoolOut { .. } => {
            return StatusCode::NO_CONTENT.into_response();
        }
    };
    let me = match me {
        Ok(me) => me,
        Err(error) => return ApiError::bad_request(error.to_string()).into_response(),
    };
    let answer = match op {
        Op::Make { body, .. } => match serde_json::from_str(&body) {
            Ok(request) => make_here(app, me, request).await,
            Err(error) => Err(ApiError::bad_request(error.to_string())),
        },
        Op::Mine { .. } => mine_here(app, &me),
        Op::Accept { id, .. } => accept_here(app, &me, &id).await,
        Op::Decline { id, .. } => decline_here(app, &me, &id),
        Op::Cancel { id, .. } => cancel_here(app, &me, &id),
        Op::Left { .. } | Op::PoolIn { .. } | Op::PoolOut { .. } => {
            return StatusCode::NO_CONTENT.into_response();
        }
    };
    answer.into_response()
}

/// Makes `app`'s lobby one node's of several: claims the lobby's lease (so that the owner is
/// known before the first request), subscribes to the lobby's channels, and runs until
/// shutdown what they bring, and the lease's renewal.
pub async fn join(app: &ChallengeState, link: Arc<LobbyLink>) -> Result<(), BusError> {
    let store = Arc::clone(&app.deps.store);
    link.claim(&*store).await;
    let bus = Arc::clone(link.bus());
    let mut all = bus.subscribe(LOBBY_CHANNEL, QUEUE).await?;
    let mut mine = bus
        .subscribe(&node_channel(link.node().as_str()), QUEUE)
        .await?;
    app.lobby.link(Arc::clone(&link));
    app.pools.link(Arc::clone(&link));
    let app = app.clone();
    let mut shutdown = app.deps.shutdown.clone();
    let refresh = link.refresh_every().max(Duration::from_millis(100));
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(refresh);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let event = tokio::select! {
                _ = shutdown.changed() => break,
                _ = ticker.tick() => {
                    link.claim(&*store).await;
                    continue;
                }
                event = all.events.recv() => event,
                event = mine.events.recv() => event,
            };
            match event {
                Some(BusEvent::Message(bytes)) => received(&app, &link, &bytes).await,
                Some(BusEvent::Gap) => {
                    // Lost notices are not replayed (a page reload shows the state); presence
                    // comes again with the next reports, an unanswered ask times out.
                    tracing::warn!("lobby bus: messages may have been lost");
                }
                None => break,
            }
        }
    });
    Ok(())
}

/// One message from the bus.
async fn received(app: &ChallengeState, link: &Arc<LobbyLink>, bytes: &[u8]) {
    let wire = match Wire::from_bytes(bytes) {
        Ok(wire) => wire,
        Err(error) => {
            tracing::warn!(%error, "lobby bus");
            return;
        }
    };
    let lobby = &app.lobby;
    match wire {
        Wire::Notice { user, text } => {
            let text = Utf8Bytes::from(text);
            match user {
                Some(user) => lobby.hub.send_text_to(UserId(user), text),
                None => lobby.hub.send_text_all(&text),
            }
        }
        Wire::Chat { line } => {
            lobby.chat.received(line.clone()).await;
            let store = &*app.deps.store;
            crate::server::safety::blocks::lobby::send_line(store, &lobby.hub, line, None).await;
        }
        Wire::Presence {
            node,
            anonymous,
            users,
        } => link.heard(node, anonymous, users, Instant::now()),
        Wire::Ask {
            op: Op::Left { user },
            ..
        } => lobby.left(UserId(user)),
        Wire::Ask {
            id,
            reply_to,
            op: op @ (Op::PoolIn { .. } | Op::PoolOut { .. }),
        } => {
            let app = app.clone();
            let link = Arc::clone(link);
            // Off the bus loop: a join reads the player's rating.
            tokio::spawn(async move {
                let outcome = app.pools.run_forwarded(&*app.deps.store, op).await;
                if id != 0 {
                    link.answer(&reply_to, id, outcome);
                }
            });
        }
        Wire::PoolTold { conn, text } => app.pools.told(conn, text),
        Wire::PoolCounts { text } => app.pools.counts_from_owner(text),
        Wire::Ask { id, reply_to, op } => {
            let app = app.clone();
            let link = Arc::clone(link);
            // Off the bus loop: an accept makes a game (store writes).
            tokio::spawn(async move {
                let outcome = outcome_of(run(&app, op).await).await;
                link.answer(&reply_to, id, outcome);
            });
        }
        Wire::Answer { id, outcome } => link.answered(id, outcome),
    }
}
