//! Players' public pages (issue 11): a user's profile, games, rating history and every finished
//! game as one PGN download, all by username (`/api/users/{username}...`), and the profile page
//! itself (`/@/{username}`).
//!
//! Public fields only: a username, when the account was made, ratings, games. Never a user id
//! (ids are not part of any URL or message, so they cannot be enumerated), a password hash, a
//! session or a seat token. Everything here is a read of the store; nothing changes state, so
//! nothing here needs a session or the Origin check.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::{Deserialize, Serialize};

use crate::server::deps::Deps;
use crate::server::domain::user::AccountStatus;
use crate::server::game;
use crate::server::game::{GameState, TimeControl, Variant};
use crate::server::play::export;
use crate::server::play::protocol::{ComputerView, ErrorCode, GameResult, Reason, Refusal, Side};
use crate::server::players::account::{UserId, Username};
use crate::server::players::rating::{Rating, RatingView, Speed, SpeedRatingView, ratings_view};
use crate::server::store::{
    GameListing, GameStatus, RatedGame, Store, StoreError, UserRecord, codec,
};
use crate::server::web::ApiError;
use crate::server::web::assets;

/// `limit` of `GET /api/users/{username}/games` when none is given, and its largest value.
pub const DEFAULT_GAMES_LIMIT: u32 = 20;
pub const MAX_GAMES_LIMIT: u32 = 100;
/// The most points a rating history returns (the most recent ones): a graph of a thousand
/// games is already a dense line, and the answer stays a few tens of kilobytes.
pub const MAX_HISTORY_POINTS: u32 = 1000;
/// How many listing rows the PGN export reads from the store at a time.
const PGN_PAGE: u32 = 50;

/// The profile routes' state: the services, and the accounts (the profile says whether the
/// viewer blocks the user, issue 32).
#[derive(Clone)]
pub struct ProfileState {
    pub deps: Deps,
    pub accounts: Arc<crate::server::players::account::Accounts>,
}

impl axum::extract::FromRef<ProfileState> for Deps {
    fn from_ref(state: &ProfileState) -> Deps {
        state.deps.clone()
    }
}

impl axum::extract::FromRef<ProfileState> for Arc<crate::server::players::account::Accounts> {
    fn from_ref(state: &ProfileState) -> Arc<crate::server::players::account::Accounts> {
        Arc::clone(&state.accounts)
    }
}

pub fn router(deps: Deps, accounts: Arc<crate::server::players::account::Accounts>) -> Router {
    Router::new()
        .route("/@/{username}", get(page))
        .route("/api/users/{username}", get(profile))
        .route("/api/users/{username}/games", get(games))
        .route("/api/users/{username}/games.pgn", get(games_pgn))
        .route("/api/users/{username}/rating-history", get(rating_history))
        .with_state(ProfileState { deps, accounts })
}

/// Why a profile request was not answered.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The path's name cannot be a username at all (wrong length or characters).
    #[error("{0}")]
    BadUsername(#[from] crate::server::players::account::UsernameError),
    #[error("there is no user of that name")]
    UnknownUser,
    #[error("{0}")]
    BadQuery(String),
    #[error("the store failed: {0}")]
    Store(#[from] StoreError),
}

/// The profile routes' own codes (docs/protocol.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum ProfileCode {
    /// 404: `/api/users/{name}` of a username nobody has.
    UnknownUser,
}

impl From<ProfileError> for ApiError {
    fn from(error: ProfileError) -> ApiError {
        match error {
            // The account routes' own answer, so that every route says it the same way.
            ProfileError::BadUsername(_) => crate::server::players::account::error::bad_username(),
            ProfileError::UnknownUser => ApiError::new(
                StatusCode::NOT_FOUND,
                ProfileCode::UnknownUser,
                "there is no user of that name",
            ),
            ProfileError::BadQuery(message) => ApiError::bad_request(message),
            ProfileError::Store(e) => {
                tracing::warn!(error = %e, "store failure on a profile read");
                ApiError::from(Refusal::new(
                    ErrorCode::StoreFailure,
                    "the store failed; try again",
                ))
            }
        }
    }
}

/// The user a path names: checked as a username first (so that a 10 kB or unicode name costs
/// no store read), then looked up case-insensitively.
async fn user(store: &Arc<dyn Store>, name: &str) -> Result<UserRecord, ProfileError> {
    let username = Username::parse(name)?;
    store
        .find_user(&username)
        .await?
        // A deleted account (issue 32) has no profile: its name only stays taken.
        .filter(|user| user.status != AccountStatus::Deleted)
        .ok_or(ProfileError::UnknownUser)
}

/// `/@/{username}`: the profile page. The client reads the name from the address and asks the
/// API, which answers 404 for an unknown user; the page itself is the same for every name.
/// It is `client/profile.html`: the same client with the profile's title.
async fn page(Path(_username): Path<String>) -> Response {
    assets::html(assets::profile_html())
}

/// `GET /api/users/{username}`.
#[derive(Debug, Serialize)]
pub struct ProfileView {
    /// As the user spelled it at registration, whatever the case in the path.
    pub username: Username,
    pub created_ms: i64,
    pub ratings: std::collections::BTreeMap<Speed, SpeedRatingView>,
    /// A moderator's mark (issue 32): `engine` or `booster`; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marked: Option<&'static str>,
    /// `true` only when the signed-in viewer blocks this user (issue 32); absent otherwise.
    /// Never whether the viewer is blocked.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub blocked: bool,
}

async fn profile(
    State(app): State<Deps>,
    crate::server::players::account::MaybeAccount(viewer): crate::server::players::account::MaybeAccount,
    Path(username): Path<String>,
) -> Result<Response, ApiError> {
    let store = &app.store;
    let record = user(store, &username).await?;
    let ratings = store
        .ratings(record.account.id)
        .await
        .map_err(ProfileError::from)?;
    let mark = store
        .user_mark(record.account.id)
        .await
        .map_err(ProfileError::from)?;
    let viewer = viewer.map(|v| v.id);
    let blocked =
        crate::server::safety::blocks::check::viewer_blocks(&**store, viewer, record.account.id)
            .await
            .map_err(ProfileError::from)?;
    Ok(axum::Json(ProfileView {
        username: record.account.name,
        created_ms: record.created_ms,
        ratings: ratings_view(&ratings),
        marked: mark.map(|m| m.mark.as_str()),
        blocked,
    })
    .into_response())
}

#[derive(Deserialize)]
struct GamesQuery {
    limit: Option<u32>,
    offset: Option<u32>,
}

/// `GET /api/users/{username}/games`: one page of the user's games, newest activity first.
#[derive(Debug, Serialize)]
pub struct GamesPage {
    pub username: Username,
    pub limit: u32,
    pub offset: u32,
    pub games: Vec<GameRow>,
}

/// One game in a user's list, from the user's side of the board.
#[derive(Debug, Serialize)]
pub struct GameRow {
    pub id: String,
    pub status: GameStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
    pub clock: Option<TimeControl>,
    /// The rating pool the game counts in (or would): from the clock; absent when untimed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// The user's colour.
    pub color: Side,
    /// Absent for an anonymous opponent or a seat nobody has taken (shown "Anonymous").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opponent: Option<Opponent>,
    pub result: Option<GameResult>,
    pub reason: Option<Reason>,
    pub sub_moves: usize,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub rated: bool,
    /// The user's rating change (`+12`), once a rated game has been rated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<i64>,
    /// The user's rating after the game, once rated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingView>,
}

/// Who the user played: an account (`{"name", "rating"}`, its rating before the game when the
/// game was rated) or the computer (`{"computer": {"level"}}`). An object rather than a bare
/// name so that a user who registered as "Anonymous" cannot be mistaken for an anonymous seat.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Opponent {
    User {
        name: Username,
        #[serde(skip_serializing_if = "Option::is_none")]
        rating: Option<RatingView>,
    },
    Computer {
        computer: ComputerLevel,
    },
}

#[derive(Debug, Serialize)]
pub struct ComputerLevel {
    pub level: u8,
}

/// The parts of a listing row's summary a game row shows. Read leniently (every field optional,
/// unknown fields ignored): rows written by older versions lack some, newer ones add some.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SummaryPart {
    clock: Option<TimeControl>,
    computer: Option<ComputerView>,
    result: Option<GameResult>,
    reason: Option<Reason>,
    variant: Option<Variant>,
    sub_moves: usize,
    rated: Option<bool>,
}

async fn games(
    State(app): State<Deps>,
    Path(username): Path<String>,
    Query(query): Query<GamesQuery>,
) -> Result<Response, ApiError> {
    let limit = query.limit.unwrap_or(DEFAULT_GAMES_LIMIT);
    if !(1..=MAX_GAMES_LIMIT).contains(&limit) {
        return Err(ProfileError::BadQuery(format!(
            "limit must be between 1 and {MAX_GAMES_LIMIT}"
        ))
        .into());
    }
    let offset = query.offset.unwrap_or(0);
    let store = &app.store;
    let record = user(store, &username).await?;
    let me = record.account.id;
    let listings = store
        .user_games(me, limit, offset)
        .await
        .map_err(ProfileError::from)?;
    let mut names = Names::default();
    let mut rows = Vec::with_capacity(listings.len());
    for listing in listings {
        rows.push(game_row(store, &mut names, me, listing).await?);
    }
    Ok(axum::Json(GamesPage {
        username: record.account.name,
        limit,
        offset,
        games: rows,
    })
    .into_response())
}

/// Usernames by id, read once per request (a page often has the same opponent many times).
#[derive(Default)]
struct Names(HashMap<UserId, Option<Username>>);

impl Names {
    async fn get(
        &mut self,
        store: &Arc<dyn Store>,
        id: UserId,
    ) -> Result<Option<Username>, StoreError> {
        if let Some(name) = self.0.get(&id) {
            return Ok(name.clone());
        }
        let name = store.user_by_id(id).await?.map(|r| r.account.name);
        self.0.insert(id, name.clone());
        Ok(name)
    }
}

async fn game_row(
    store: &Arc<dyn Store>,
    names: &mut Names,
    me: UserId,
    listing: GameListing,
) -> Result<GameRow, ProfileError> {
    let summary: SummaryPart = serde_json::from_str(&listing.summary).unwrap_or_default();
    let color = if listing.white_user == Some(me) {
        Side::White
    } else {
        Side::Black
    };
    let opponent_user = match color {
        Side::White => listing.black_user,
        Side::Black => listing.white_user,
    };
    // Only a finished game can have been rated.
    let rated_game = if listing.status == GameStatus::Finished {
        store.game_rating(&listing.id).await?
    } else {
        None
    };
    let sides = rated_game.as_ref().map(|rated| sides_of(rated, color));
    let opponent = match opponent_user {
        Some(id) => names.get(store, id).await?.map(|name| Opponent::User {
            name,
            rating: sides.map(|s| s.opponent_before.view()),
        }),
        None => summary
            .computer
            .filter(|c| c.color != color)
            .map(|c| Opponent::Computer {
                computer: ComputerLevel { level: c.level },
            }),
    };
    Ok(GameRow {
        id: listing.id,
        status: listing.status,
        variant: summary.variant,
        clock: summary.clock,
        speed: rated_game
            .as_ref()
            .map(|r| r.speed)
            .or_else(|| summary.clock.map(Speed::of)),
        color,
        opponent,
        result: summary.result,
        reason: summary.reason,
        sub_moves: summary.sub_moves,
        created_ms: listing.created_ms,
        updated_ms: listing.updated_ms,
        rated: rated_game.is_some() || summary.rated.unwrap_or(false),
        rating_diff: sides.map(|s| Rating::change(&s.before, &s.after)),
        rating: sides.map(|s| s.after.view()),
    })
}

/// A rated game from one side of the board.
#[derive(Clone, Copy)]
struct Sides {
    before: Rating,
    after: Rating,
    opponent_before: Rating,
}

fn sides_of(rated: &RatedGame, color: Side) -> Sides {
    match color {
        Side::White => Sides {
            before: rated.white_before,
            after: rated.white_after,
            opponent_before: rated.black_before,
        },
        Side::Black => Sides {
            before: rated.black_before,
            after: rated.black_after,
            opponent_before: rated.white_before,
        },
    }
}

#[derive(Deserialize)]
struct HistoryQuery {
    speed: Option<String>,
}

/// `GET /api/users/{username}/rating-history?speed=`: the user's rating after each rated game,
/// oldest first (at most [`MAX_HISTORY_POINTS`], the most recent).
#[derive(Debug, Serialize)]
pub struct HistoryView {
    pub username: Username,
    /// The speed asked for; absent when every speed was (each point then says its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    pub points: Vec<HistoryPoint>,
}

#[derive(Debug, Serialize)]
pub struct HistoryPoint {
    pub game_id: String,
    pub speed: Speed,
    pub ended_ms: i64,
    /// The rating after the game, rounded as everywhere on the wire.
    pub rating: i64,
}

/// The speed a rating history asks for: `None` (every speed) when `speed` is absent; an empty
/// `speed=` is refused like any other value that is no speed, not taken as absent.
fn history_speed(asked: Option<&str>) -> Result<Option<Speed>, ProfileError> {
    let Some(text) = asked else {
        return Ok(None);
    };
    let speeds = Speed::ALL.map(Speed::as_str).join(", ");
    if text.is_empty() {
        return Err(ProfileError::BadQuery(format!(
            "speed is empty: give one of {speeds}, or leave it out for every speed"
        )));
    }
    match Speed::parse(text) {
        Some(speed) => Ok(Some(speed)),
        None => Err(ProfileError::BadQuery(format!(
            "speed must be one of {speeds}"
        ))),
    }
}

async fn rating_history(
    State(app): State<Deps>,
    Path(username): Path<String>,
    Query(query): Query<HistoryQuery>,
) -> Result<Response, ApiError> {
    let speed = history_speed(query.speed.as_deref())?;
    let store = &app.store;
    let record = user(store, &username).await?;
    let me = record.account.id;
    let games = store
        .rating_history(me, speed, MAX_HISTORY_POINTS)
        .await
        .map_err(ProfileError::from)?;
    let points = games
        .into_iter()
        .map(|rated| {
            let color = if rated.white == me {
                Side::White
            } else {
                Side::Black
            };
            HistoryPoint {
                rating: sides_of(&rated, color).after.view().rating,
                game_id: rated.game_id,
                speed: rated.speed,
                ended_ms: rated.ended_ms,
            }
        })
        .collect();
    Ok(axum::Json(HistoryView {
        username: record.account.name,
        speed,
        points,
    })
    .into_response())
}

/// `GET /api/users/{username}/games.pgn`: every finished game of the user, newest first, as
/// one PGN file, streamed: the store is read [`PGN_PAGE`] rows at a time and each game is
/// written when its turn comes, so the answer's size never sits in memory.
///
/// The export pages over the live listing: a game whose row changes meanwhile (one ending, a
/// rematch offered after one) moves to the top, so a game that ends after the export started
/// may be missing, and the rows already read may shift down one place per change; the ids of
/// the previous page are remembered so that such a shifted row is not written twice.
async fn games_pgn(
    State(app): State<Deps>,
    Path(username): Path<String>,
) -> Result<Response, ApiError> {
    let store = Arc::clone(&app.store);
    let record = user(&store, &username).await?;
    let mut export = PgnExport {
        store,
        first_move: app.config.first_move,
        user: record.account.id,
        offset: 0,
        queue: VecDeque::new(),
        previous_page: HashSet::new(),
        exhausted: false,
    };
    // The first page is read before answering, so that a store that fails at once is a 503
    // like on every other route; a failure after that can only cut the stream off.
    export.read_page().await.map_err(ProfileError::from)?;
    let games = futures_util::stream::unfold(export, |mut export| async move {
        let next = export.next_game().await.transpose()?;
        Some((next, export))
    });
    Ok((
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        Body::from_stream(games),
    )
        .into_response())
}

/// The PGN export's place between two games.
struct PgnExport {
    store: Arc<dyn Store>,
    first_move: std::time::Duration,
    user: UserId,
    /// The next listing row to read.
    offset: u32,
    /// Finished games of the current page not yet written.
    queue: VecDeque<String>,
    previous_page: HashSet<String>,
    /// The last page was short: there are no more rows.
    exhausted: bool,
}

impl PgnExport {
    /// The next game's PGN (followed by the blank line between games), or None at the end. A
    /// store failure ends the stream with an error, so the client sees a cut-off answer (no
    /// final chunk), not a silently shorter file.
    async fn next_game(&mut self) -> Result<Option<Bytes>, std::io::Error> {
        let next = self.next_game_or_failure().await;
        if next.is_err() {
            // Nothing after a failure: the stream ends with it.
            self.queue.clear();
            self.exhausted = true;
        }
        next
    }

    async fn next_game_or_failure(&mut self) -> Result<Option<Bytes>, std::io::Error> {
        // Each turn either writes one queued game or reads one page; a page moves the offset
        // on by its length, so the loop ends with the user's rows.
        loop {
            if let Some(id) = self.queue.pop_front() {
                if let Some(pgn) = self.game(&id).await.map_err(std::io::Error::other)? {
                    return Ok(Some(Bytes::from(pgn)));
                }
                continue;
            }
            if self.exhausted {
                return Ok(None);
            }
            self.read_page().await.map_err(std::io::Error::other)?;
        }
    }

    /// Reads the next page of the user's games, queueing its finished games.
    async fn read_page(&mut self) -> Result<(), StoreError> {
        let page = self
            .store
            .user_games(self.user, PGN_PAGE, self.offset)
            .await?;
        let read = u32::try_from(page.len()).unwrap_or(u32::MAX);
        self.offset = self.offset.saturating_add(read);
        self.exhausted = read < PGN_PAGE;
        let ids: HashSet<String> = page.iter().map(|l| l.id.clone()).collect();
        for listing in page {
            if listing.status == GameStatus::Finished && !self.previous_page.contains(&listing.id) {
                self.queue.push_back(listing.id);
            }
        }
        self.previous_page = ids;
        Ok(())
    }

    /// One game's PGN from its stored events (the same writer as `GET /game/{id}.pgn`), or None
    /// when it is gone or does not replay (logged: the rest of the export goes on).
    async fn game(&self, id: &str) -> Result<Option<String>, StoreError> {
        let Some((_, texts)) = self.store.load_game(id).await? else {
            return Ok(None);
        };
        let id = id.to_owned();
        let first_move = self.first_move;
        // Replaying checks every sub-move again: CPU work, off the async threads.
        let pgn = tokio::task::spawn_blocking(move || pgn_of_stored(&id, &texts, first_move))
            .await
            .map_err(|e| StoreError::Io(format!("the PGN export task failed: {e}")))?;
        Ok(pgn)
    }
}

/// A stored game's PGN, with a blank line after it (the separator of a multi-game file). Also
/// the data archive's (`account/archive.rs`).
pub fn pgn_of_stored(
    id: &str,
    texts: &[String],
    first_move: std::time::Duration,
) -> Option<String> {
    let events = match texts
        .iter()
        .map(|t| codec::decode(t))
        .collect::<Result<Vec<game::Event>, _>>()
    {
        Ok(events) => events,
        Err(error) => {
            tracing::error!(game = id, %error, "a stored game does not decode; left out of a PGN export");
            return None;
        }
    };
    match GameState::replay(id, &events, first_move, Instant::now(), |_, _, _| {}) {
        Ok(state) => {
            let mut pgn = export::pgn(&state);
            if !pgn.ends_with('\n') {
                pgn.push('\n');
            }
            pgn.push('\n');
            Some(pgn)
        }
        Err(error) => {
            tracing::error!(game = id, %error, "a stored game does not replay; left out of a PGN export");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(asked: &str) -> String {
        match history_speed(Some(asked)) {
            Err(ProfileError::BadQuery(message)) => message,
            other => panic!("{asked:?}: {other:?}"),
        }
    }

    #[test]
    fn an_empty_speed_is_refused_and_not_read_as_every_speed() {
        assert_eq!(
            refused(""),
            "speed is empty: give one of bullet, blitz, rapid, classical, correspondence, or leave it out for every speed"
        );
        assert_eq!(
            refused("hyper"),
            "speed must be one of bullet, blitz, rapid, classical, correspondence"
        );
        assert!(matches!(history_speed(None), Ok(None)));
        assert!(matches!(
            history_speed(Some("blitz")),
            Ok(Some(Speed::Blitz))
        ));
    }
}
