//! The SQL of blocks on SQLite (schema v11, issue 32): the writer's statements
//! ([`BlockWrite`], through `Work::Block`) and the reads, each one or two ranges of the
//! primary key (blocker, blocked) or of the index on `blocked`.

use rusqlite::{Connection, params};

use super::connect::io;
use crate::server::domain::user::UserId;
use crate::server::store::{BlockEntry, BlockRelation, StoreError};

/// A block made or ended.
#[derive(Clone, Copy, Debug)]
pub(super) enum BlockWrite {
    Block {
        blocker: UserId,
        blocked: UserId,
        at_ms: i64,
    },
    Unblock {
        blocker: UserId,
        blocked: UserId,
    },
}

/// Whether a row was added or removed.
pub(super) fn write(conn: &Connection, write: BlockWrite) -> rusqlite::Result<bool> {
    let changed = match write {
        BlockWrite::Block {
            blocker,
            blocked,
            at_ms,
        } => conn
            .prepare_cached(
                "INSERT INTO blocks (blocker, blocked, at_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (blocker, blocked) DO NOTHING",
            )?
            .execute(params![blocker.0, blocked.0, at_ms])?,
        BlockWrite::Unblock { blocker, blocked } => conn
            .prepare_cached("DELETE FROM blocks WHERE blocker = ?1 AND blocked = ?2")?
            .execute(params![blocker.0, blocked.0])?,
    };
    Ok(changed > 0)
}

pub(super) fn of(conn: &Connection, user: UserId) -> Result<Vec<BlockEntry>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT b.blocked, u.username, b.at_ms FROM blocks b JOIN users u ON u.id = b.blocked
             WHERE b.blocker = ?1 ORDER BY b.at_ms DESC, u.username",
        )
        .map_err(io)?;
    let rows = stmt
        .query_map(params![user.0], |row| {
            Ok(BlockEntry {
                user: UserId(row.get(0)?),
                name: row.get(1)?,
                at_ms: row.get(2)?,
            })
        })
        .map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}

pub(super) fn relations(conn: &Connection, user: UserId) -> Result<Vec<BlockRelation>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT u.id, u.username FROM users u WHERE u.id IN (
                 SELECT blocked FROM blocks WHERE blocker = ?1
                 UNION SELECT blocker FROM blocks WHERE blocked = ?1)
             ORDER BY u.id",
        )
        .map_err(io)?;
    let rows = stmt
        .query_map(params![user.0], |row| {
            Ok(BlockRelation {
                user: UserId(row.get(0)?),
                name: row.get(1)?,
            })
        })
        .map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}

pub(super) fn between(conn: &Connection, a: UserId, b: UserId) -> Result<bool, StoreError> {
    conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM blocks WHERE (blocker = ?1 AND blocked = ?2)
                                               OR (blocker = ?2 AND blocked = ?1))",
    )
    .and_then(|mut s| s.query_row(params![a.0, b.0], |row| row.get(0)))
    .map_err(io)
}
