//! The challenges on the node that runs them (the only one, or the lobby's owner): the state
//! the challenge routes share, and each operation's local half (`*_here`), which the routes call
//! directly on one node and `remote.rs` calls for a request another node forwarded.

use std::sync::Arc;

use axum::extract::FromRef;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::Lobby;
use super::registry::{Challenge, ChallengeCode, ChallengeError, Terms};
use crate::server::deps::Deps;
use crate::server::game::{SeatUser, TimeControl, Variant};
use crate::server::lobby::channel;
use crate::server::play::creation::{self, ColorChoice, NewGame};
use crate::server::play::project;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::play::room::{Command, rating_now};
use crate::server::play::rooms::Rooms;
use crate::server::play::routes::ask;
use crate::server::players::account::Accounts;
use crate::server::players::account::{Account, Username};
use crate::server::players::rating::Speed;
use crate::server::web::ApiError;

/// Largest `POST /api/challenges` body: a name and a few fields.
pub const MAX_CHALLENGE_BYTES: usize = 4 * 1024;

impl From<ChallengeError> for ApiError {
    fn from(error: ChallengeError) -> ApiError {
        let message = error.to_string();
        let (status, code) = match error {
            ChallengeError::UnknownUser => (StatusCode::NOT_FOUND, ChallengeCode::UnknownUser),
            ChallengeError::SelfChallenge => {
                (StatusCode::BAD_REQUEST, ChallengeCode::SelfChallenge)
            }
            ChallengeError::Rated(refused) => {
                return ApiError::from(project::rated_refusal(refused));
            }
            ChallengeError::TooManyFromYou(_) => {
                (StatusCode::CONFLICT, ChallengeCode::TooManyChallenges)
            }
            ChallengeError::TooManyInTotal => (
                StatusCode::SERVICE_UNAVAILABLE,
                ChallengeCode::TooManyChallenges,
            ),
            ChallengeError::NotYours(_) => (StatusCode::FORBIDDEN, ChallengeCode::NotYourChallenge),
            ChallengeError::RateLimited { retry_after_secs } => {
                return ApiError::from(Refusal::new(ErrorCode::RateLimited, message))
                    .retry_after(retry_after_secs);
            }
            ChallengeError::NotFound => return ApiError::not_found("challenge"),
        };
        ApiError::new(status, code, message)
    }
}

/// A `POST /api/challenges` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ChallengeRequest {
    to: String,
    /// A live clock or days per turn, read as in `POST /api/games`.
    #[serde(default, deserialize_with = "crate::server::game::requested_clock")]
    clock: Option<TimeControl>,
    color: Option<ColorChoice>,
    variant: Option<Variant>,
    rated: Option<bool>,
}

impl ChallengeRequest {
    fn terms(&self) -> Terms {
        Terms {
            clock: self.clock,
            color: self.color.unwrap_or(ColorChoice::Random),
            variant: self.variant.unwrap_or(Variant::Balanced),
            rated: self.rated.unwrap_or(false),
        }
    }
}

/// The game a challenge becomes: private (in no listing: it must not be joined by a stranger
/// between its creation and the challenged user's seat), on the challenger's terms.
fn new_game(terms: &Terms) -> NewGame {
    NewGame {
        color: Some(terms.color),
        clock: terms.clock,
        variant: Some(terms.variant),
        listed: Some(false),
        rated: Some(terms.rated),
        ..NewGame::default()
    }
}

/// What the challenges and the lobby channel need: the lobby, the games (a challenge accepted
/// creates one) and the accounts (every challenge is between signed-in users).
#[derive(Clone)]
pub struct ChallengeState {
    pub deps: Deps,
    pub accounts: Arc<Accounts>,
    pub lobby: Arc<Lobby>,
    pub rooms: Arc<Rooms>,
    /// Quick pairing: a lobby page joins and leaves pools on its channel.
    pub pools: Arc<crate::server::pool::Pools>,
}

impl FromRef<ChallengeState> for Arc<Accounts> {
    fn from_ref(state: &ChallengeState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}

fn views(challenges: &[Challenge]) -> Vec<channel::msg::ChallengeView> {
    let now = std::time::Instant::now();
    challenges.iter().map(|c| c.view(now, None)).collect()
}

/// `POST /api/challenges` on the node that runs the challenges (the only one, or the owner).
pub(super) async fn make_here(
    app: &ChallengeState,
    me: Account,
    request: ChallengeRequest,
) -> Result<Response, ApiError> {
    let terms = request.terms();
    // The game's own checks (clock bounds...), before anyone is bothered with it.
    let user = SeatUser::of(&me, None);
    creation::created_event(&new_game(&terms), String::new(), Some(user), 0)?;
    app.lobby.charge(me.id)?;
    let to = find_user(app, &request.to).await?;
    crate::server::safety::blocks::check::refuse_between(&*app.deps.store, me.id, to.id).await?;
    let ratings = match terms.clock {
        Some(clock) if me.id != to.id => {
            let speed = Speed::of(clock);
            let store = &*app.deps.store;
            Some((
                rating_now(store, me.id, speed).await?,
                rating_now(store, to.id, speed).await?,
            ))
        }
        _ => None,
    };
    let challenge = app.lobby.make((me, to), terms, ratings)?;
    tracing::info!(challenge = %challenge.id, "challenge made");
    let view = challenge.view(std::time::Instant::now(), None);
    Ok((StatusCode::CREATED, axum::Json(view)).into_response())
}

/// The account named `name` (any case), or `unknown_user`.
async fn find_user(app: &ChallengeState, name: &str) -> Result<Account, ApiError> {
    let Ok(name) = Username::parse(name) else {
        // Not even a possible name: nobody has it.
        return Err(ChallengeError::UnknownUser.into());
    };
    let record = app
        .rooms
        .store
        .find_user(&name)
        .await
        .map_err(|e| ApiError::from(Refusal::new(ErrorCode::StoreFailure, e.to_string())))?;
    record
        .map(|record| record.account)
        .ok_or_else(|| ChallengeError::UnknownUser.into())
}

pub(super) fn mine_here(app: &ChallengeState, me: &Account) -> Result<Response, ApiError> {
    let challenges = app.lobby.of(me.id);
    Ok(axum::Json(json!({ "challenges": views(&challenges) })).into_response())
}

pub(super) async fn accept_here(
    app: &ChallengeState,
    me: &Account,
    id: &str,
) -> Result<Response, ApiError> {
    let challenge = app.lobby.take_for_accept(id, me.id)?;
    match start_game(app, &challenge).await {
        Ok(grant) => {
            app.lobby.accepted(&challenge, &grant.id);
            tracing::info!(challenge = %challenge.id, game = %grant.id, "challenge accepted");
            Ok(axum::Json(grant).into_response())
        }
        Err(error) => {
            app.lobby.restore(challenge);
            Err(error)
        }
    }
}

/// Creates the game of an accepted challenge, the challenger in the colour they chose, and
/// seats the challenged user: the same two steps as `POST /api/games` and `/join`, each seat
/// owned by its account (the session proves it on any device, so the challenger needs no
/// token: their page just opens the game). Returns the challenged user's seat.
async fn start_game(
    app: &ChallengeState,
    challenge: &Challenge,
) -> Result<crate::server::play::room::SeatGrant, ApiError> {
    let (from, to) = (challenge.from.id, challenge.to.id);
    crate::server::safety::blocks::check::refuse_between(&*app.deps.store, from, to).await?;
    let challenger = Some(challenge.from.clone());
    let created = app
        .rooms
        .create(new_game(&challenge.terms), challenger)
        .await?;
    let challenged = Some(challenge.to.clone());
    let joined = ask(&app.rooms, &created.id, |reply| Command::Join {
        account: challenged.clone(),
        reply,
    })
    .await??;
    Ok(joined)
}

pub(super) fn decline_here(
    app: &ChallengeState,
    me: &Account,
    id: &str,
) -> Result<Response, ApiError> {
    app.lobby.decline(id, me.id)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

pub(super) fn cancel_here(
    app: &ChallengeState,
    me: &Account,
    id: &str,
) -> Result<Response, ApiError> {
    app.lobby.cancel(id, me.id)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
