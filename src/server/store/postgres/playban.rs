//! Fair play by rule on PostgreSQL (schema v8, issue 32): the same table and promises as
//! SQLite's (sqlite/playban.rs). [`add`] is shared by the writer (the commit that ends a game,
//! in its transaction) and `record_playban` (its own transaction on the read pool).

use std::sync::Arc;

use deadpool_postgres::GenericClient;

use super::error::pg_error;
use super::{PostgresStore, Shared};
use crate::server::domain::user::UserId;
use crate::server::store::playban::parse_stored;
use crate::server::store::{PlaybanEnd, PlaybanEntry, StoreError, StoreFuture};

/// The newest `$3` outcomes of user `$1` at or after `$2`, oldest first.
pub const OUTCOMES_SQL: &str = "SELECT game_id, outcome, at_ms FROM (
     SELECT game_id, outcome, at_ms FROM playban_outcomes
     WHERE user_id = $1 AND at_ms >= $2
     ORDER BY at_ms DESC, game_id DESC LIMIT $3
 ) AS newest ORDER BY at_ms, game_id";

/// Inserts the outcomes not stored yet, in one statement; how many were new.
pub(super) async fn add<C: GenericClient>(
    client: &C,
    end: &PlaybanEnd,
) -> Result<u64, tokio_postgres::Error> {
    let users: Vec<i64> = end.seats.iter().map(|(u, _)| u.0).collect();
    let outcomes: Vec<&str> = end.seats.iter().map(|(_, o)| o.as_str()).collect();
    let statement = client
        .prepare_cached(
            "INSERT INTO playban_outcomes (user_id, game_id, outcome, at_ms)
             SELECT u, $1, o, $2 FROM unnest($3::bigint[], $4::text[]) AS s (u, o)
             ON CONFLICT (user_id, game_id) DO NOTHING",
        )
        .await?;
    client
        .execute(&statement, &[&end.game_id, &end.at_ms, &users, &outcomes])
        .await
}

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
