//! Blocks on PostgreSQL (schema v8, issue 32): the same table and promises as SQLite's
//! (sqlite/block.rs). Each write is a single statement on the read pool, its own transaction,
//! durable when it returns: a block is rare and must not queue behind a batch of moves.

use super::PostgresStore;
use super::error::pg_error;
use super::rows::Param;
use crate::server::domain::user::UserId;
use crate::server::store::{BlockEntry, BlockRelation, StoreFuture};

impl PostgresStore {
    pub(super) fn block_insert(
        &self,
        blocker: UserId,
        blocked: UserId,
        at_ms: i64,
    ) -> StoreFuture<()> {
        let written = self.read_rows(
            "INSERT INTO blocks (blocker, blocked, at_ms) VALUES ($1, $2, $3)
             ON CONFLICT (blocker, blocked) DO NOTHING"
                .to_owned(),
            vec![
                Param::Int(blocker.0),
                Param::Int(blocked.0),
                Param::Int(at_ms),
            ],
            |_| Ok(()),
        );
        Box::pin(async move { written.await.map(|_| ()) })
    }

    pub(super) fn block_delete(&self, blocker: UserId, blocked: UserId) -> StoreFuture<bool> {
        let deleted = self.read_rows(
            "DELETE FROM blocks WHERE blocker = $1 AND blocked = $2 RETURNING blocker".to_owned(),
            vec![Param::Int(blocker.0), Param::Int(blocked.0)],
            |_| Ok(()),
        );
        Box::pin(async move { deleted.await.map(|rows| !rows.is_empty()) })
    }

    pub(super) fn block_rows(&self, user: UserId) -> StoreFuture<Vec<BlockEntry>> {
        self.read_rows(
            "SELECT b.blocked, u.username, b.at_ms FROM blocks b JOIN users u ON u.id = b.blocked
             WHERE b.blocker = $1 ORDER BY b.at_ms DESC, u.username COLLATE \"C\""
                .to_owned(),
            vec![Param::Int(user.0)],
            |row| {
                Ok(BlockEntry {
                    user: UserId(row.try_get(0).map_err(pg_error)?),
                    name: row.try_get(1).map_err(pg_error)?,
                    at_ms: row.try_get(2).map_err(pg_error)?,
                })
            },
        )
    }

    pub(super) fn block_relation_rows(&self, user: UserId) -> StoreFuture<Vec<BlockRelation>> {
        self.read_rows(
            "SELECT u.id, u.username FROM users u WHERE u.id IN (
                 SELECT blocked FROM blocks WHERE blocker = $1
                 UNION SELECT blocker FROM blocks WHERE blocked = $1)
             ORDER BY u.id"
                .to_owned(),
            vec![Param::Int(user.0)],
            |row| {
                Ok(BlockRelation {
                    user: UserId(row.try_get(0).map_err(pg_error)?),
                    name: row.try_get(1).map_err(pg_error)?,
                })
            },
        )
    }

    pub(super) fn block_between(&self, a: UserId, b: UserId) -> StoreFuture<bool> {
        let found = self.read_rows(
            "SELECT 1 FROM blocks WHERE (blocker = $1 AND blocked = $2)
                                     OR (blocker = $2 AND blocked = $1) LIMIT 1"
                .to_owned(),
            vec![Param::Int(a.0), Param::Int(b.0)],
            |_| Ok(()),
        );
        Box::pin(async move { found.await.map(|rows| !rows.is_empty()) })
    }
}
