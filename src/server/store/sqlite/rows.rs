//! The read side's SQL and row decoding: the columns each reader selects and how a row becomes a
//! listing, a user or a rating.

use rusqlite::Connection;

use super::connect::io;
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{Account, AccountStatus, UserId, Username};
use crate::server::game::speed::Speed;
use crate::server::store::{GameListing, LoadedGame, RatedGame, StoreError, UserRecord};

/// Reads a `games` row. The outer error is SQLite's; the inner one a status text this program
/// does not know (a damaged or foreign database).
pub(super) fn listing_from_row(
    row: &rusqlite::Row<'_>,
) -> rusqlite::Result<Result<GameListing, StoreError>> {
    let id: String = row.get(0)?;
    let status: String = row.get(1)?;
    let status = match status.parse() {
        Ok(status) => status,
        Err(e) => return Ok(Err(StoreError::Io(format!("game {id}: {e}")))),
    };
    Ok(Ok(GameListing {
        id,
        status,
        created_ms: row.get(2)?,
        updated_ms: row.get(3)?,
        summary: row.get(4)?,
        listed: row.get(5)?,
        white_user: row.get::<_, Option<i64>>(6)?.map(UserId),
        black_user: row.get::<_, Option<i64>>(7)?.map(UserId),
        arena: row.get(8)?,
    }))
}

/// The events of one game, in order.
pub(super) const EVENTS_OF: &str =
    "SELECT seq, payload FROM events WHERE game_id = ?1 ORDER BY seq";

/// All events of one game in seq order, checking they are exactly 0, 1, 2, ...
pub(super) fn events_of(conn: &Connection, game_id: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(EVENTS_OF).map_err(io)?;
    let rows = stmt
        .query_map([game_id], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .map_err(io)?;
    let mut events = Vec::new();
    for row in rows {
        let (seq, payload) = row.map_err(io)?;
        if usize::try_from(seq).ok() != Some(events.len()) {
            return Err(StoreError::Io(format!(
                "game {game_id}: event {seq} found where {} was expected",
                events.len()
            )));
        }
        events.push(payload);
    }
    Ok(events)
}

pub(super) const LISTING_COLUMNS: &str =
    "id, status, created_ms, updated_ms, summary, listed, white_user, black_user, arena";

/// Runs a listing query and loads every game it returns with its events, all in one read
/// transaction (listings and events come from the same snapshot).
pub(super) fn load_games_where(
    conn: &mut Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<LoadedGame>, StoreError> {
    let tx = conn.transaction().map_err(io)?;
    let listings = {
        let mut stmt = tx.prepare_cached(sql).map_err(io)?;
        let rows = stmt.query_map(params, listing_from_row).map_err(io)?;
        let mut listings = Vec::new();
        for row in rows {
            listings.push(row.map_err(io)??);
        }
        listings
    };
    let mut games = Vec::with_capacity(listings.len());
    for listing in listings {
        let events = events_of(&tx, &listing.id)?;
        games.push((listing, events));
    }
    tx.finish().map_err(io)?;
    Ok(games)
}

pub(super) const USER_COLUMNS: &str = "id, username, password_hash, created_ms, status";
pub(super) const USER_COLUMNS_OF_USERS: &str =
    "users.id, users.username, users.password_hash, users.created_ms, users.status";

/// Reads a `users` row from column `first` on (outer error SQLite's, inner one a stored name
/// this program would not accept: a damaged or foreign database).
pub(super) fn user_from_row(
    row: &rusqlite::Row<'_>,
    first: usize,
) -> rusqlite::Result<Result<UserRecord, StoreError>> {
    let id: i64 = row.get(first)?;
    let name: String = row.get(first + 1)?;
    let name = match Username::parse(&name) {
        Ok(name) => name,
        Err(e) => return Ok(Err(StoreError::Io(format!("user {id}: {e}")))),
    };
    let status: String = row.get(first + 4)?;
    let status = match AccountStatus::parse(&status) {
        Ok(status) => status,
        Err(e) => return Ok(Err(StoreError::Io(format!("user {id}: {e}")))),
    };
    Ok(Ok(UserRecord {
        account: Account {
            id: UserId(id),
            name,
        },
        password_hash: row.get(first + 2)?,
        created_ms: row.get(first + 3)?,
        status,
    }))
}

pub(super) fn user_where(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Option<UserRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(io)?;
    let mut rows = stmt.query(params).map_err(io)?;
    match rows.next().map_err(io)? {
        None => Ok(None),
        Some(row) => Ok(Some(user_from_row(row, 0).map_err(io)??)),
    }
}

pub(super) fn parse_speed(text: &str) -> Result<Speed, StoreError> {
    Speed::parse(text).ok_or_else(|| StoreError::Io(format!("unknown speed {text:?} stored")))
}

/// Four columns from `first` on: rating, deviation, volatility, games.
pub(super) fn rating_from_row(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Rating> {
    Ok(Rating {
        rating: row.get(first)?,
        deviation: row.get(first + 1)?,
        volatility: row.get(first + 2)?,
        games: u32::try_from(row.get::<_, i64>(first + 3)?).unwrap_or(u32::MAX),
    })
}

pub(super) const RATED_COLUMNS: &str =
    "game_id, speed, ended_ms, white_user, black_user, score_white,
    white_before_rating, white_before_deviation, white_before_volatility, white_before_games,
    white_after_rating, white_after_deviation, white_after_volatility, white_after_games,
    black_before_rating, black_before_deviation, black_before_volatility, black_before_games,
    black_after_rating, black_after_deviation, black_after_volatility, black_after_games";

pub(super) fn rated_where(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<RatedGame>, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(io)?;
    let rows = stmt
        .query_map(params, |row| {
            Ok((
                row.get::<_, String>(1)?,
                RatedGame {
                    game_id: row.get(0)?,
                    // Replaced below once parsed.
                    speed: Speed::Bullet,
                    ended_ms: row.get(2)?,
                    white: UserId(row.get(3)?),
                    black: UserId(row.get(4)?),
                    score_white: row.get(5)?,
                    white_before: rating_from_row(row, 6)?,
                    white_after: rating_from_row(row, 10)?,
                    black_before: rating_from_row(row, 14)?,
                    black_after: rating_from_row(row, 18)?,
                },
            ))
        })
        .map_err(io)?;
    let mut games = Vec::new();
    for row in rows {
        let (speed, mut game) = row.map_err(io)?;
        game.speed = parse_speed(&speed)?;
        games.push(game);
    }
    Ok(games)
}
