//! The ownership leases of several nodes (issue 13) on PostgreSQL: claiming a game, renewing a
//! node's leases, releasing one, and the reads (who owns a game, which nodes are alive, which
//! live games nobody owns). Tables `game_leases` and `cluster_nodes` (schema v3).
//!
//! Every time is the server's `now()`, so nodes whose clocks disagree still agree on who owns
//! what. These calls run on the read pool, never through the writer: a claim or a renewal must
//! not queue behind a batch of moves (a renewal that waited could let leases lapse).
//!
//! Locks, and why they cannot deadlock. A commit under a fence locks its lease row `FOR KEY
//! SHARE` in its own transaction (writer.rs, pipeline.rs). A claim locks the row `FOR UPDATE`
//! first, which conflicts with that: a takeover waits until the commits in flight are durable,
//! so the new owner's load sees them (or they see the new epoch and are fenced). A renewal or a
//! release is a plain `UPDATE` of non-key columns (a `FOR NO KEY UPDATE` lock), which does not
//! conflict with `FOR KEY SHARE`: renewing a thousand leases never waits for the writer, nor the
//! writer for it. The claim holds one row only, so no cycle of waits can form.

use std::sync::Arc;
use std::time::Duration;

use super::PostgresStore;
use super::error::pg_error;
use super::rows::{Param, first, text};
use crate::server::store::{Claim, Fence, StoreError, StoreFuture};

/// How many times a claim is retried when it lost a race it cannot describe: another node
/// inserted the first lease of the game after this statement's snapshot was taken, so neither
/// the insert nor the read of the holder returned a row. A second try sees the new row.
const CLAIM_ATTEMPTS: usize = 5;

/// The longest lease asked for is capped (a year): a `Duration` does not fit every interval.
const MAX_TTL_MS: i64 = 365 * 24 * 3600 * 1000;

/// A ttl as the milliseconds the SQL multiplies `interval '1 millisecond'` by.
fn ttl_ms(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).map_or(MAX_TTL_MS, |ms| ms.min(MAX_TTL_MS))
}

/// One statement: lock the current lease row (if any) `FOR UPDATE` (waiting for commits in
/// flight under it), then insert or take over the lease, then return either the new lease
/// (`owned` true) or the live holder (`owned` false). The epoch stays when the same node
/// claims a lease it still holds; any other grant increments it (1 for a game never claimed).
const CLAIM: &str = "
WITH locked AS (
    SELECT node_id, epoch, expires_at FROM game_leases WHERE game_id = $1 FOR UPDATE
), claimed AS (
    INSERT INTO game_leases (game_id, node_id, epoch, expires_at)
    SELECT $1, $2, 1, now() + $3::bigint * interval '1 millisecond'
    FROM (SELECT count(*) FROM locked) AS waited
    ON CONFLICT (game_id) DO UPDATE SET
        node_id = excluded.node_id,
        epoch = CASE
            WHEN game_leases.node_id = excluded.node_id AND game_leases.expires_at > now()
            THEN game_leases.epoch
            ELSE game_leases.epoch + 1 END,
        expires_at = excluded.expires_at
    WHERE game_leases.expires_at <= now() OR game_leases.node_id = excluded.node_id
    RETURNING node_id, epoch
)
SELECT node_id, epoch, TRUE FROM claimed
UNION ALL
SELECT node_id, epoch, FALSE FROM locked
    WHERE expires_at > now() AND NOT EXISTS (SELECT 1 FROM claimed)";

/// One statement: the node's heartbeat, and every lease it still holds extended. An expired
/// lease is left as it is (another node may be taking it over: reviving it would steal it
/// back).
const RENEW: &str = "
WITH heartbeat AS (
    INSERT INTO cluster_nodes (node_id, expires_at)
    VALUES ($1, now() + $2::bigint * interval '1 millisecond')
    ON CONFLICT (node_id) DO UPDATE SET expires_at = excluded.expires_at
)
UPDATE game_leases SET expires_at = now() + $2::bigint * interval '1 millisecond'
WHERE node_id = $1 AND expires_at > now()
RETURNING game_id, epoch";

/// The row stays (expired now), so that the next owner's epoch is this one's plus one.
const RELEASE: &str = "UPDATE game_leases SET expires_at = now()
    WHERE game_id = $1 AND node_id = $2 AND epoch = $3 AND expires_at > now()";

/// A node starting gives up what its previous life held (the rows stay, expired).
const RELEASE_NODE: &str =
    "UPDATE game_leases SET expires_at = now() WHERE node_id = $1 AND expires_at > now()";

const OWNER: &str =
    "SELECT node_id, epoch FROM game_leases WHERE game_id = $1 AND expires_at > now()";

const LIVE_NODES: &str =
    "SELECT node_id FROM cluster_nodes WHERE expires_at > now() ORDER BY node_id";

/// Live games (playing, not correspondence: those have a row in `turn_deadlines` and are woken
/// by the schedule) whose lease is missing or expired: never claimed first, then the oldest
/// expiry (the longest orphaned).
const ORPHANED: &str = "
SELECT g.id FROM games g LEFT JOIN game_leases l ON l.game_id = g.id
WHERE g.status = 'playing'
    AND NOT EXISTS (SELECT 1 FROM turn_deadlines d WHERE d.game_id = g.id)
    AND (l.game_id IS NULL OR l.expires_at <= now())
ORDER BY l.expires_at ASC NULLS FIRST, g.id
LIMIT $1";

impl PostgresStore {
    pub(super) fn claim(&self, game: &str, node: &str, ttl: Duration) -> StoreFuture<Claim> {
        let shared = Arc::clone(&self.shared);
        let (game, node, ttl) = (game.to_owned(), node.to_owned(), ttl_ms(ttl));
        Box::pin(async move {
            let client = Self::reader(&shared).await?;
            let statement = client.prepare_cached(CLAIM).await.map_err(pg_error)?;
            for _ in 0..CLAIM_ATTEMPTS {
                let row = client
                    .query_opt(&statement, &[&game, &node, &ttl])
                    .await
                    .map_err(pg_error)?;
                let Some(row) = row else { continue };
                let fence = Fence {
                    node: row.try_get(0).map_err(pg_error)?,
                    epoch: row.try_get(1).map_err(pg_error)?,
                };
                let owned: bool = row.try_get(2).map_err(pg_error)?;
                return Ok(if owned {
                    Claim::Owned(fence)
                } else {
                    Claim::Held(fence)
                });
            }
            Err(StoreError::Io(format!(
                "game {game}: the lease claim lost {CLAIM_ATTEMPTS} races in a row"
            )))
        })
    }

    pub(super) fn renew(&self, node: &str, ttl: Duration) -> StoreFuture<Vec<(String, i64)>> {
        let shared = Arc::clone(&self.shared);
        let (node, ttl) = (node.to_owned(), ttl_ms(ttl));
        Box::pin(async move {
            let client = Self::reader(&shared).await?;
            let statement = client.prepare_cached(RENEW).await.map_err(pg_error)?;
            let rows = client
                .query(&statement, &[&node, &ttl])
                .await
                .map_err(pg_error)?;
            let mut held = rows
                .iter()
                .map(|row| {
                    Ok((
                        row.try_get(0).map_err(pg_error)?,
                        row.try_get(1).map_err(pg_error)?,
                    ))
                })
                .collect::<Result<Vec<(String, i64)>, StoreError>>()?;
            held.sort_unstable();
            Ok(held)
        })
    }

    pub(super) fn release(&self, game: &str, fence: Fence) -> StoreFuture<()> {
        let shared = Arc::clone(&self.shared);
        let game = game.to_owned();
        Box::pin(async move {
            let client = Self::reader(&shared).await?;
            let statement = client.prepare_cached(RELEASE).await.map_err(pg_error)?;
            client
                .execute(&statement, &[&game, &fence.node, &fence.epoch])
                .await
                .map_err(pg_error)?;
            Ok(())
        })
    }

    pub(super) fn release_all(&self, node: &str) -> StoreFuture<u64> {
        let shared = Arc::clone(&self.shared);
        let node = node.to_owned();
        Box::pin(async move {
            let client = Self::reader(&shared).await?;
            let statement = client
                .prepare_cached(RELEASE_NODE)
                .await
                .map_err(pg_error)?;
            client.execute(&statement, &[&node]).await.map_err(pg_error)
        })
    }

    pub(super) fn owner(&self, game: &str) -> StoreFuture<Option<Fence>> {
        let rows = self.read_rows(OWNER.to_owned(), vec![text(game)], |row| {
            Ok(Fence {
                node: row.try_get(0).map_err(pg_error)?,
                epoch: row.try_get(1).map_err(pg_error)?,
            })
        });
        first(rows)
    }

    pub(super) fn live(&self) -> StoreFuture<Vec<String>> {
        self.read_rows(LIVE_NODES.to_owned(), Vec::new(), |row| {
            row.try_get(0).map_err(pg_error)
        })
    }

    pub(super) fn orphans(&self, limit: u32) -> StoreFuture<Vec<String>> {
        self.read_rows(
            ORPHANED.to_owned(),
            vec![Param::Int(i64::from(limit))],
            |row| row.try_get(0).map_err(pg_error),
        )
    }
}
