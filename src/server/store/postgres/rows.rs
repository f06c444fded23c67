//! The read side's parameters, columns and row decoding: how a row becomes a listing, a user, a
//! rating or a rated game.

use tokio_postgres::types::ToSql;

use super::error::pg_error;
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{Account, AccountStatus, UserId, Username};
use crate::server::game::speed::Speed;
use crate::server::store::{GameListing, RatedGame, StoreError, StoreFuture, UserRecord};

/// An owned query parameter (the futures are `'static`, so they cannot borrow the caller's).
pub(super) enum Param {
    Text(String),
    OptText(Option<String>),
    Int(i64),
    OptInt(Option<i64>),
    Bool(bool),
}

impl Param {
    pub(super) fn as_sql(&self) -> &(dyn ToSql + Sync) {
        match self {
            Param::Text(v) => v,
            Param::OptText(v) => v,
            Param::Int(v) => v,
            Param::OptInt(v) => v,
            Param::Bool(v) => v,
        }
    }
}

pub(super) fn text(s: &str) -> Param {
    Param::Text(s.to_owned())
}

pub(super) const LISTING_COLUMNS: &str =
    "id, status, created_ms, updated_ms, summary, listed, white_user, black_user, arena";

pub(super) fn listing_from_row(row: &tokio_postgres::Row) -> Result<GameListing, StoreError> {
    let id: String = row.try_get(0).map_err(pg_error)?;
    let status: String = row.try_get(1).map_err(pg_error)?;
    let status = status
        .parse()
        .map_err(|e| StoreError::Io(format!("game {id}: {e}")))?;
    Ok(GameListing {
        status,
        created_ms: row.try_get(2).map_err(pg_error)?,
        updated_ms: row.try_get(3).map_err(pg_error)?,
        summary: row.try_get(4).map_err(pg_error)?,
        listed: row.try_get(5).map_err(pg_error)?,
        white_user: row
            .try_get::<_, Option<i64>>(6)
            .map_err(pg_error)?
            .map(UserId),
        black_user: row
            .try_get::<_, Option<i64>>(7)
            .map_err(pg_error)?
            .map(UserId),
        arena: row.try_get(8).map_err(pg_error)?,
        id,
    })
}

pub(super) const USER_COLUMNS: &str = "id, username, password_hash, created_ms, status";

pub(super) fn user_from_row(
    row: &tokio_postgres::Row,
    first: usize,
) -> Result<UserRecord, StoreError> {
    let id: i64 = row.try_get(first).map_err(pg_error)?;
    let name: String = row.try_get(first + 1).map_err(pg_error)?;
    let name = Username::parse(&name).map_err(|e| StoreError::Io(format!("user {id}: {e}")))?;
    Ok(UserRecord {
        account: Account {
            id: UserId(id),
            name,
        },
        password_hash: row.try_get(first + 2).map_err(pg_error)?,
        created_ms: row.try_get(first + 3).map_err(pg_error)?,
        status: AccountStatus::parse(&row.try_get::<_, String>(first + 4).map_err(pg_error)?)
            .map_err(|e| StoreError::Io(format!("user {id}: {e}")))?,
    })
}

pub(super) fn parse_speed(text: &str) -> Result<Speed, StoreError> {
    Speed::parse(text).ok_or_else(|| StoreError::Io(format!("unknown speed {text:?} stored")))
}

pub(super) fn rating_from_row(
    row: &tokio_postgres::Row,
    first: usize,
) -> Result<Rating, StoreError> {
    Ok(Rating {
        rating: row.try_get(first).map_err(pg_error)?,
        deviation: row.try_get(first + 1).map_err(pg_error)?,
        volatility: row.try_get(first + 2).map_err(pg_error)?,
        games: u32::try_from(row.try_get::<_, i64>(first + 3).map_err(pg_error)?)
            .unwrap_or(u32::MAX),
    })
}

pub(super) const RATED_COLUMNS: &str =
    "game_id, speed, ended_ms, white_user, black_user, score_white,
    white_before_rating, white_before_deviation, white_before_volatility, white_before_games,
    white_after_rating, white_after_deviation, white_after_volatility, white_after_games,
    black_before_rating, black_before_deviation, black_before_volatility, black_before_games,
    black_after_rating, black_after_deviation, black_after_volatility, black_after_games";

pub(super) fn rated_from_row(row: &tokio_postgres::Row) -> Result<RatedGame, StoreError> {
    let speed: String = row.try_get(1).map_err(pg_error)?;
    Ok(RatedGame {
        game_id: row.try_get(0).map_err(pg_error)?,
        speed: parse_speed(&speed)?,
        ended_ms: row.try_get(2).map_err(pg_error)?,
        white: UserId(row.try_get(3).map_err(pg_error)?),
        black: UserId(row.try_get(4).map_err(pg_error)?),
        score_white: row.try_get(5).map_err(pg_error)?,
        white_before: rating_from_row(row, 6)?,
        white_after: rating_from_row(row, 10)?,
        black_before: rating_from_row(row, 14)?,
        black_after: rating_from_row(row, 18)?,
    })
}

pub(super) fn first<T: Send + 'static>(rows: StoreFuture<Vec<T>>) -> StoreFuture<Option<T>> {
    Box::pin(async move { Ok(rows.await?.into_iter().next()) })
}
