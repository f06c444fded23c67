//! "My games" (issue 12): `GET /api/account/games`, a signed-in account's unfinished games with
//! whose turn it is, and the `your_turn` list the lobby channel pushes ([`your_turn`]). Both
//! are read from the store's listing rows (`user_games`) and their summaries, which carry
//! `turn` and `deadline_ms` for correspondence games being played: nothing is kept in memory,
//! so a game whose room retired (an idle correspondence game) is listed all the same.

use std::cmp::Ordering;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{FromRef, State};
use axum::routing::get;
use serde::{Deserialize, Serialize};

use crate::server::deps::Deps;
use crate::server::game::TimeControl;
use crate::server::play::protocol::{ErrorCode, GameSummary, PlayerView, Refusal, Side};
use crate::server::play::turn_signal::TurnSignal;
use crate::server::players::account::Accounts;
use crate::server::players::account::UserId;
use crate::server::players::account::extract::RequireAccount;
use crate::server::store::{GameListing, GameStatus, Store, StoreError};
use crate::server::web::ApiError;

/// Listing rows read per page, and pages at most: the account's 1,000 most recently updated
/// games are looked at (finished ones are skipped), so one request costs a bounded read.
const PAGE: u32 = 100;
const PAGES: u32 = 10;
/// Games listed at most.
pub const MAX_LISTED: usize = 200;

/// One unfinished game of the account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MyGame {
    pub id: String,
    /// The account's colour.
    pub color: Side,
    /// The signed-in opponent, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<PlayerView>,
    /// The time control (`null`: untimed).
    pub clock: Option<TimeControl>,
    pub status: GameStatus,
    /// The side to move, when the listing knows it (a correspondence game being played);
    /// `null` otherwise.
    pub turn: Option<Side>,
    pub your_turn: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<i64>,
    pub updated_ms: i64,
}

/// The body of `GET /api/account/games`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MyGames {
    pub games: Vec<MyGame>,
}

/// What "my games" needs: the store, and the accounts to know who asks.
#[derive(Clone)]
pub struct MyGamesState {
    pub deps: Deps,
    pub accounts: Arc<Accounts>,
}

impl FromRef<MyGamesState> for Arc<Accounts> {
    fn from_ref(state: &MyGamesState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}

pub fn router(state: MyGamesState) -> Router {
    Router::new()
        // The client's page (client/mine.js), the same shell as `/`.
        .route("/games/mine", get(page))
        .route("/api/account/games", get(my_games))
        .with_state(state)
}

async fn page() -> axum::response::Response {
    crate::server::web::assets::index_page()
}

async fn my_games(
    State(state): State<MyGamesState>,
    RequireAccount(account): RequireAccount,
) -> Result<Json<MyGames>, ApiError> {
    let games = games_of(&*state.deps.store, account.id)
        .await
        .map_err(|error| {
            tracing::warn!(%error, "could not read an account's games");
            ApiError::from(Refusal::new(
                ErrorCode::StoreFailure,
                "the game store failed; try again",
            ))
        })?;
    Ok(Json(MyGames { games }))
}

/// The account's unfinished games in the order of "My games": its turn first, then by
/// deadline (soonest first, none last), then most recently updated.
pub async fn games_of(store: &dyn Store, user: UserId) -> Result<Vec<MyGame>, StoreError> {
    let mut games = Vec::new();
    for page in 0..PAGES {
        let rows = store.user_games(user, PAGE, page * PAGE).await?;
        let last = rows.len() < PAGE as usize;
        games.extend(rows.iter().filter_map(|row| my_game(row, user)));
        if last {
            break;
        }
    }
    games.sort_by(order);
    games.truncate(MAX_LISTED);
    Ok(games)
}

/// The ids of the account's games where it is its turn, in "My games" order.
pub async fn your_turn(store: &dyn Store, user: UserId) -> Result<Vec<String>, StoreError> {
    Ok(games_of(store, user)
        .await?
        .into_iter()
        .filter(|g| g.your_turn)
        .map(|g| g.id)
        .collect())
}

fn order(a: &MyGame, b: &MyGame) -> Ordering {
    b.your_turn
        .cmp(&a.your_turn)
        .then_with(|| match (a.deadline_ms, b.deadline_ms) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        })
        .then_with(|| b.updated_ms.cmp(&a.updated_ms))
        .then_with(|| a.id.cmp(&b.id))
}

/// A listing row as one of `user`'s games; `None` for a finished game, a row the user is not
/// seated in, or a summary that does not read (logged).
fn my_game(row: &GameListing, user: UserId) -> Option<MyGame> {
    if row.status == GameStatus::Finished {
        return None;
    }
    let color = if row.white_user == Some(user) {
        Side::White
    } else if row.black_user == Some(user) {
        Side::Black
    } else {
        return None;
    };
    let summary: GameSummary = match serde_json::from_str(&row.summary) {
        Ok(summary) => summary,
        Err(error) => {
            tracing::warn!(game = %row.id, %error, "a listing summary does not read");
            return None;
        }
    };
    let opponent = summary.players.and_then(|p| match color {
        Side::White => p.black,
        Side::Black => p.white,
    });
    let playing = row.status == GameStatus::Playing;
    Some(MyGame {
        id: row.id.clone(),
        color,
        opponent,
        clock: summary.clock,
        status: row.status,
        turn: summary.turn,
        your_turn: playing && summary.turn == Some(color),
        deadline_ms: summary.deadline_ms.filter(|_| playing),
        updated_ms: row.updated_ms,
    })
}

/// Runs until `shutdown`: for each notice, if the user has a lobby channel open, reads their
/// `your_turn` list and sends it to every channel of theirs.
pub fn spawn_pusher(
    store: std::sync::Arc<dyn Store>,
    signal: &TurnSignal,
    lobby: std::sync::Arc<crate::server::lobby::challenge::Lobby>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    use tokio::sync::broadcast::error::RecvError;
    let mut notices = signal.subscribe();
    tokio::spawn(async move {
        loop {
            let user = tokio::select! {
                _ = shutdown.changed() => return,
                notice = notices.recv() => match notice {
                    Ok(user) => user,
                    Err(RecvError::Lagged(lost)) => {
                        tracing::warn!(lost, "your_turn notices lost in a burst");
                        continue;
                    }
                    Err(RecvError::Closed) => return,
                },
            };
            // On any node: with several, the list goes through the bus to every node's
            // channels of the user, whichever node's room committed the move.
            if !lobby.is_present(user) {
                continue;
            }
            match your_turn(&*store, user).await {
                Ok(games) => lobby.tell(
                    user,
                    &crate::server::lobby::channel::msg::LobbyMsg::YourTurn(
                        crate::server::lobby::channel::msg::YourTurnMsg { games },
                    ),
                ),
                Err(error) => tracing::warn!(%error, "could not read a your_turn list"),
            }
        }
    });
}
