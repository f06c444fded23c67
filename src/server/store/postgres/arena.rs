//! Arena tournaments on PostgreSQL (schema v4, issue 29): the same tables and promises as
//! SQLite's (sqlite/arena.rs). The writes are single statements on the read pool, each its own
//! transaction, durable when it returns: they are rare (an arena made, a player joining) and
//! must not queue behind a batch of moves.

use super::PostgresStore;
use super::error::pg_error;
use super::rows::{LISTING_COLUMNS, Param, first, listing_from_row, text};
use crate::server::domain::user::{UserId, Username};
use crate::server::store::{
    ArenaPlayer, ArenaRange, ArenaRecord, GameListing, StoreError, StoreFuture,
};

const ARENA_COLUMNS: &str = "id, creator, terms, starts_ms, ends_ms, created_ms";

fn arena_from_row(row: &tokio_postgres::Row) -> Result<ArenaRecord, StoreError> {
    Ok(ArenaRecord {
        id: row.try_get(0).map_err(pg_error)?,
        creator: row
            .try_get::<_, Option<i64>>(1)
            .map_err(pg_error)?
            .map(UserId),
        terms: row.try_get(2).map_err(pg_error)?,
        starts_ms: row.try_get(3).map_err(pg_error)?,
        ends_ms: row.try_get(4).map_err(pg_error)?,
        created_ms: row.try_get(5).map_err(pg_error)?,
    })
}

fn player_from_row(row: &tokio_postgres::Row) -> Result<ArenaPlayer, StoreError> {
    let user = UserId(row.try_get(0).map_err(pg_error)?);
    let name: String = row.try_get(1).map_err(pg_error)?;
    let rating: i64 = row.try_get(3).map_err(pg_error)?;
    Ok(ArenaPlayer {
        user,
        name: Username::parse(&name)
            .map_err(|e| StoreError::Io(format!("arena player {}: {e}", user.0)))?,
        joined_ms: row.try_get(2).map_err(pg_error)?,
        rating: i32::try_from(rating)
            .map_err(|_| StoreError::Io(format!("arena rating {rating} out of range")))?,
        withdrawn: row.try_get(4).map_err(pg_error)?,
    })
}

impl PostgresStore {
    pub(super) fn arena_insert(&self, arena: ArenaRecord) -> StoreFuture<bool> {
        let inserted = self.read_rows(
            "INSERT INTO arenas (id, creator, terms, starts_ms, ends_ms, created_ms)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING RETURNING id"
                .to_owned(),
            vec![
                Param::Text(arena.id),
                Param::OptInt(arena.creator.map(|u| u.0)),
                Param::Text(arena.terms),
                Param::Int(arena.starts_ms),
                Param::Int(arena.ends_ms),
                Param::Int(arena.created_ms),
            ],
            |_| Ok(()),
        );
        Box::pin(async move { Ok(!inserted.await?.is_empty()) })
    }

    pub(super) fn arena_row(&self, id: &str) -> StoreFuture<Option<ArenaRecord>> {
        first(self.read_rows(
            format!("SELECT {ARENA_COLUMNS} FROM arenas WHERE id = $1"),
            vec![text(id)],
            arena_from_row,
        ))
    }

    pub(super) fn arena_rows(
        &self,
        range: ArenaRange,
        limit: u32,
    ) -> StoreFuture<Vec<ArenaRecord>> {
        let (sql, now_ms) = match range {
            ArenaRange::Unfinished { now_ms } => (
                format!(
                    "SELECT {ARENA_COLUMNS} FROM arenas WHERE ends_ms > $1
                     ORDER BY starts_ms, id LIMIT $2"
                ),
                now_ms,
            ),
            ArenaRange::Finished { now_ms } => (
                format!(
                    "SELECT {ARENA_COLUMNS} FROM arenas WHERE ends_ms <= $1
                     ORDER BY ends_ms DESC, id DESC LIMIT $2"
                ),
                now_ms,
            ),
        };
        self.read_rows(
            sql,
            vec![Param::Int(now_ms), Param::Int(i64::from(limit))],
            arena_from_row,
        )
    }

    pub(super) fn arena_player_upsert(&self, arena: &str, player: ArenaPlayer) -> StoreFuture<()> {
        let written = self.read_rows(
            "INSERT INTO arena_players (arena_id, user_id, username, joined_ms, rating, withdrawn)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (arena_id, user_id) DO UPDATE SET withdrawn = excluded.withdrawn
             RETURNING user_id"
                .to_owned(),
            vec![
                text(arena),
                Param::Int(player.user.0),
                Param::Text(player.name.as_str().to_owned()),
                Param::Int(player.joined_ms),
                Param::Int(i64::from(player.rating)),
                Param::Bool(player.withdrawn),
            ],
            |_| Ok(()),
        );
        Box::pin(async move { written.await.map(|_| ()) })
    }

    pub(super) fn arena_player_rows(&self, arena: &str) -> StoreFuture<Vec<ArenaPlayer>> {
        self.read_rows(
            "SELECT user_id, username, joined_ms, rating, withdrawn FROM arena_players
             WHERE arena_id = $1 ORDER BY joined_ms, user_id"
                .to_owned(),
            vec![text(arena)],
            player_from_row,
        )
    }

    pub(super) fn arena_game_rows(&self, arena: &str) -> StoreFuture<Vec<GameListing>> {
        self.read_rows(
            format!("SELECT {LISTING_COLUMNS} FROM games WHERE arena = $1 ORDER BY created_ms, id"),
            vec![text(arena)],
            listing_from_row,
        )
    }

    pub(super) fn user_arena_rows(
        &self,
        user: UserId,
        limit: u32,
    ) -> StoreFuture<Vec<ArenaRecord>> {
        self.read_rows(
            "SELECT a.id, a.creator, a.terms, a.starts_ms, a.ends_ms, a.created_ms
             FROM arena_players p JOIN arenas a ON a.id = p.arena_id
             WHERE p.user_id = $1 ORDER BY a.starts_ms DESC, a.id DESC LIMIT $2"
                .to_owned(),
            vec![Param::Int(user.0), Param::Int(i64::from(limit))],
            arena_from_row,
        )
    }
}
