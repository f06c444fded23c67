//! The opening explorer on PostgreSQL (schema v6; SQLite's version 9 says what each table is
//! for): a counted game's rows written inside the writer's transaction (the commit that ends
//! the game) or in a transaction of their own on the read pool (a slice of
//! `add_explorer_games`), by the same function; a position read as two index ranges.
//!
//! Several nodes may end games through the same positions at once: each game's turn rows are
//! upserted in one statement in key order ([`explorer_lock_order`]), so two transactions wait
//! for each other's row locks rather than deadlock, and `ON CONFLICT` makes two first counts
//! of one turn add up.

use std::sync::Arc;

use deadpool_postgres::GenericClient;

use super::error::pg_error;
use super::{PostgresStore, Shared};
use crate::server::store::{
    ClockFamily, EXPLORER_EXAMPLES_PER_BUCKET, EXPLORER_SLICE, ExplorerExample, ExplorerGame,
    ExplorerPosition, ExplorerResult, ExplorerSeat, ExplorerTurnRow, StoreError, StoreFuture,
    explorer_lock_order,
};

/// Counts `game` unless its id is counted already; whether it was new. Four statements
/// whatever the number of turns: the game's row (its primary key decides), the turn rows
/// (arrays, in key order), the examples, and the pruning of their buckets.
pub(super) async fn add<C: GenericClient>(
    client: &C,
    game: &ExplorerGame,
) -> Result<bool, tokio_postgres::Error> {
    let statement = client
        .prepare_cached(
            "INSERT INTO explorer_games (game_id, family, rated, result, white_name, black_name,
                 white_rating, black_rating, ended_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (game_id) DO NOTHING",
        )
        .await?;
    let inserted = client
        .execute(
            &statement,
            &[
                &game.game_id,
                &game.family.as_str(),
                &game.rated,
                &game.result.as_i64(),
                &game.white.name,
                &game.black.name,
                &game.white.rating,
                &game.black.rating,
                &game.ended_ms,
            ],
        )
        .await?;
    if inserted == 0 {
        return Ok(false);
    }
    let turns = explorer_lock_order(&game.turns);
    if turns.is_empty() {
        return Ok(true);
    }
    let keys: Vec<i64> = turns.iter().map(|t| t.key).collect();
    let texts: Vec<&str> = turns.iter().map(|t| t.turn.as_str()).collect();
    let (white, draws, black) = game.result.counts();
    let (sum, count) = game.rating_sum();
    let family = game.family.as_str();
    let statement = client
        .prepare_cached(
            "INSERT INTO explorer_turns AS t (key, turn, family, rated, games, white, draws,
                 black, rating_sum, rating_count)
             SELECT k, m, $3, $4, 1, $5, $6, $7, $8, $9
                 FROM unnest($1::int8[], $2::text[]) WITH ORDINALITY AS u (k, m, n) ORDER BY n
             ON CONFLICT (key, turn, family, rated) DO UPDATE SET games = t.games + 1,
                 white = t.white + excluded.white, draws = t.draws + excluded.draws,
                 black = t.black + excluded.black,
                 rating_sum = t.rating_sum + excluded.rating_sum,
                 rating_count = t.rating_count + excluded.rating_count",
        )
        .await?;
    client
        .execute(
            &statement,
            &[
                &keys,
                &texts,
                &family,
                &game.rated,
                &(white as i64),
                &(draws as i64),
                &(black as i64),
                &sum,
                &(count as i64),
            ],
        )
        .await?;
    let statement = client
        .prepare_cached(
            "INSERT INTO explorer_examples (key, family, rated, ended_ms, game_id)
             SELECT k, $2, $3, $4, $5 FROM unnest($1::int8[]) AS u (k)
             ON CONFLICT DO NOTHING",
        )
        .await?;
    client
        .execute(
            &statement,
            &[&keys, &family, &game.rated, &game.ended_ms, &game.game_id],
        )
        .await?;
    let statement = client.prepare_cached(PRUNE).await?;
    client
        .execute(&statement, &[&keys, &family, &game.rated])
        .await?;
    Ok(true)
}

/// Deletes, in each of the game's buckets, the examples older than the newest
/// [`EXPLORER_EXAMPLES_PER_BUCKET`] (a lateral probe of the bucket's primary-key range).
const PRUNE: &str = "DELETE FROM explorer_examples e USING unnest($1::int8[]) AS u (k),
    LATERAL (SELECT x.ended_ms, x.game_id FROM explorer_examples x
        WHERE x.key = u.k AND x.family = $2 AND x.rated = $3
        ORDER BY x.ended_ms DESC, x.game_id DESC LIMIT 1 OFFSET 5) AS cut
    WHERE e.key = u.k AND e.family = $2 AND e.rated = $3
        AND (e.ended_ms, e.game_id) <= (cut.ended_ms, cut.game_id)";

const _: () = assert!(EXPLORER_EXAMPLES_PER_BUCKET == 5, "PRUNE's OFFSET");

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
            let statement = client.prepare_cached(EXAMPLES_SQL).await.map_err(pg_error)?;
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
