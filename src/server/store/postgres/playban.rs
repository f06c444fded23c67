//! Fair play by rule on PostgreSQL (schema v8, issue 32): the same table and promises as
//! SQLite's (sqlite/playban.rs): the read of a user's outcomes, and `record_playban` (its own
//! transaction on the read pool) through playban_write.rs, which the writer shares.

use std::sync::Arc;

use super::error::pg_error;
use super::playban_write::add;
use super::{PostgresStore, Shared};
use crate::server::domain::user::UserId;
use crate::server::store::{PlaybanEnd, PlaybanEntry, PlaybanOutcome, StoreError, StoreFuture};

/// The newest `$3` outcomes of user `$1` at or after `$2`, oldest first.
pub const OUTCOMES_SQL: &str = "SELECT game_id, outcome, at_ms FROM (
     SELECT game_id, outcome, at_ms FROM playban_outcomes
     WHERE user_id = $1 AND at_ms >= $2
     ORDER BY at_ms DESC, game_id DESC LIMIT $3
 ) AS newest ORDER BY at_ms, game_id";

impl PostgresStore {
    pub(super) fn playban_add(&self, end: PlaybanEnd) -> StoreFuture<u64> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move { add_alone(&shared, &end).await })
    }

    pub(super) fn playban_read(
        &self,
        user: UserId,
        since_ms: i64,
        limit: u32,
    ) -> StoreFuture<Vec<PlaybanEntry>> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let client = PostgresStore::reader(&shared).await?;
            let statement = client
                .prepare_cached(OUTCOMES_SQL)
                .await
                .map_err(pg_error)?;
            let rows = client
                .query(&statement, &[&user.0, &since_ms, &i64::from(limit)])
                .await
                .map_err(pg_error)?;
            rows.iter()
                .map(|row| {
                    let outcome: String = row.try_get(1).map_err(pg_error)?;
                    Ok(PlaybanEntry {
                        game_id: row.try_get(0).map_err(pg_error)?,
                        outcome: parse_stored(&outcome)?,
                        at_ms: row.try_get(2).map_err(pg_error)?,
                    })
                })
                .collect()
        })
    }
}

/// One game's outcomes in one transaction of their own.
async fn add_alone(shared: &Shared, end: &PlaybanEnd) -> Result<u64, StoreError> {
    let mut client = PostgresStore::reader(shared).await?;
    let tx = client.transaction().await.map_err(pg_error)?;
    let added = add(&tx, end).await.map_err(pg_error)?;
    tx.commit().await.map_err(pg_error)?;
    Ok(added)
}

/// The stored text of an outcome, read back; a value no version wrote is a store error.
fn parse_stored(text: &str) -> Result<PlaybanOutcome, StoreError> {
    PlaybanOutcome::parse(text)
        .ok_or_else(|| StoreError::Io(format!("unknown playban outcome '{text}'")))
}
