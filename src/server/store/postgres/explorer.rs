//! The opening explorer on PostgreSQL (schema v7; SQLite's version 10 says what each table is
//! for): a counted game's rows written inside the writer's transaction (the commit that ends
//! the game) or in a transaction of their own on the read pool (a slice of
//! `add_explorer_games`), by the same function; a position read as two index ranges.
//!
//! The writing of one game is explorer_write.rs (the writer calls it too).

use std::sync::Arc;

use super::error::pg_error;
use super::explorer_write::add;
use super::{PostgresStore, Shared};
use crate::server::store::{
    ClockFamily, EXPLORER_SLICE, ExplorerExample, ExplorerGame, ExplorerPosition, ExplorerResult,
    ExplorerSeat, ExplorerTurnRow, StoreError, StoreFuture,
};

/// The turn rows of a position (public for the plan test: `postgres::EXPLORER_TURNS_SQL`).
pub const TURNS_SQL: &str = "SELECT turn, family, rated, games, white, draws, black, rating_sum,
    rating_count FROM explorer_turns WHERE key = $1";

/// The kept examples of a position with their games (public for the plan test).
pub const EXAMPLES_SQL: &str = "SELECT g.game_id, g.family, g.rated, g.result, g.white_name,
    g.black_name, g.white_rating, g.black_rating, g.ended_ms
    FROM explorer_examples e JOIN explorer_games g ON g.game_id = e.game_id WHERE e.key = $1";

fn family(text: &str) -> Result<ClockFamily, StoreError> {
    ClockFamily::parse(text).ok_or_else(|| StoreError::Io(format!("unknown clock family {text:?}")))
}

fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn turn_row(row: &tokio_postgres::Row) -> Result<ExplorerTurnRow, StoreError> {
    let text: String = row.try_get(1).map_err(pg_error)?;
    Ok(ExplorerTurnRow {
        turn: row.try_get(0).map_err(pg_error)?,
        family: family(&text)?,
        rated: row.try_get(2).map_err(pg_error)?,
        games: count(row.try_get(3).map_err(pg_error)?),
        white: count(row.try_get(4).map_err(pg_error)?),
        draws: count(row.try_get(5).map_err(pg_error)?),
        black: count(row.try_get(6).map_err(pg_error)?),
        rating_sum: row.try_get(7).map_err(pg_error)?,
        rating_count: count(row.try_get(8).map_err(pg_error)?),
    })
}

fn example_row(row: &tokio_postgres::Row) -> Result<ExplorerExample, StoreError> {
    let text: String = row.try_get(1).map_err(pg_error)?;
    Ok(ExplorerExample {
        game_id: row.try_get(0).map_err(pg_error)?,
        family: family(&text)?,
        rated: row.try_get(2).map_err(pg_error)?,
        result: ExplorerResult::from_i64(row.try_get(3).map_err(pg_error)?),
        white: ExplorerSeat {
            name: row.try_get(4).map_err(pg_error)?,
            rating: row.try_get(6).map_err(pg_error)?,
        },
        black: ExplorerSeat {
            name: row.try_get(5).map_err(pg_error)?,
            rating: row.try_get(7).map_err(pg_error)?,
        },
        ended_ms: row.try_get(8).map_err(pg_error)?,
    })
}

impl PostgresStore {
    pub(super) fn explorer_add(&self, games: Vec<ExplorerGame>) -> StoreFuture<u64> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let mut added = 0;
            for slice in games.chunks(EXPLORER_SLICE) {
                added += add_slice(&shared, slice).await?;
            }
            Ok(added)
        })
    }

    pub(super) fn explorer_read(&self, key: i64) -> StoreFuture<ExplorerPosition> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let client = PostgresStore::reader(&shared).await?;
            let statement = client.prepare_cached(TURNS_SQL).await.map_err(pg_error)?;
            let turns = client
                .query(&statement, &[&key])
                .await
                .map_err(pg_error)?
                .iter()
                .map(turn_row)
                .collect::<Result<_, _>>()?;
            let statement = client
                .prepare_cached(EXAMPLES_SQL)
                .await
                .map_err(pg_error)?;
            let examples = client
                .query(&statement, &[&key])
                .await
                .map_err(pg_error)?
                .iter()
                .map(example_row)
                .collect::<Result<_, _>>()?;
            Ok(ExplorerPosition { turns, examples })
        })
    }
}

/// One slice in one transaction of its own.
async fn add_slice(shared: &Shared, slice: &[ExplorerGame]) -> Result<u64, StoreError> {
    let mut client = PostgresStore::reader(shared).await?;
    let tx = client.transaction().await.map_err(pg_error)?;
    let mut added = 0;
    for game in slice {
        added += u64::from(add(&tx, game).await.map_err(pg_error)?);
    }
    tx.commit().await.map_err(pg_error)?;
    Ok(added)
}
