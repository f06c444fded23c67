//! The SQL of arena tournaments on SQLite (schema v7, issue 29): the writer's two writes (an
//! arena, a player's entry) and the reads, each a single indexed range.

use rusqlite::{Connection, OptionalExtension, params};

use super::connect::io;
use super::rows::{LISTING_COLUMNS, listing_from_row};
use crate::server::domain::user::{UserId, Username};
use crate::server::store::{ArenaPlayer, ArenaRange, ArenaRecord, GameListing, StoreError};

/// A write of the arena tables, through the writer like every other.
pub(in crate::server::store::sqlite) enum ArenaWrite {
    Create(ArenaRecord),
    Player { arena: String, player: ArenaPlayer },
}

/// Writes `write`: for a creation, whether the arena was new (an existing id is left alone).
pub(super) fn write(conn: &Connection, write: &ArenaWrite) -> rusqlite::Result<bool> {
    match write {
        ArenaWrite::Create(arena) => {
            let inserted = conn
                .prepare_cached(
                    "INSERT INTO arenas (id, creator, terms, starts_ms, ends_ms, created_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (id) DO NOTHING",
                )?
                .execute(params![
                    arena.id,
                    arena.creator.map(|u| u.0),
                    arena.terms,
                    arena.starts_ms,
                    arena.ends_ms,
                    arena.created_ms
                ])?;
            Ok(inserted > 0)
        }
        ArenaWrite::Player { arena, player } => {
            conn.prepare_cached(
                "INSERT INTO arena_players (arena_id, user_id, username, joined_ms, rating,
                     withdrawn)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (arena_id, user_id) DO UPDATE SET withdrawn = excluded.withdrawn",
            )?
            .execute(params![
                arena,
                player.user.0,
                player.name.as_str(),
                player.joined_ms,
                player.rating,
                player.withdrawn
            ])?;
            Ok(true)
        }
    }
}

const ARENA_COLUMNS: &str = "id, creator, terms, starts_ms, ends_ms, created_ms";

fn arena_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ArenaRecord> {
    Ok(ArenaRecord {
        id: row.get(0)?,
        creator: row.get::<_, Option<i64>>(1)?.map(UserId),
        terms: row.get(2)?,
        starts_ms: row.get(3)?,
        ends_ms: row.get(4)?,
        created_ms: row.get(5)?,
    })
}

fn arenas_where(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<ArenaRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(io)?;
    let rows = stmt.query_map(params, arena_from_row).map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}

pub(super) fn arena(conn: &Connection, id: &str) -> Result<Option<ArenaRecord>, StoreError> {
    conn.prepare_cached(&format!("SELECT {ARENA_COLUMNS} FROM arenas WHERE id = ?1"))
        .map_err(io)?
        .query_row([id], arena_from_row)
        .optional()
        .map_err(io)
}

pub(super) fn arenas(
    conn: &Connection,
    range: ArenaRange,
    limit: u32,
) -> Result<Vec<ArenaRecord>, StoreError> {
    match range {
        ArenaRange::Unfinished { now_ms } => arenas_where(
            conn,
            &format!(
                "SELECT {ARENA_COLUMNS} FROM arenas WHERE ends_ms > ?1
                 ORDER BY starts_ms, id LIMIT ?2"
            ),
            params![now_ms, limit],
        ),
        ArenaRange::Finished { now_ms } => arenas_where(
            conn,
            &format!(
                "SELECT {ARENA_COLUMNS} FROM arenas WHERE ends_ms <= ?1
                 ORDER BY ends_ms DESC, id DESC LIMIT ?2"
            ),
            params![now_ms, limit],
        ),
    }
}

pub(super) fn players(conn: &Connection, arena: &str) -> Result<Vec<ArenaPlayer>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT user_id, username, joined_ms, rating, withdrawn FROM arena_players
             WHERE arena_id = ?1 ORDER BY joined_ms, user_id",
        )
        .map_err(io)?;
    let rows = stmt
        .query_map([arena], |row| {
            let name: String = row.get(1)?;
            Ok((
                UserId(row.get(0)?),
                name,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .map_err(io)?;
    let mut players = Vec::new();
    for row in rows {
        let (user, name, joined_ms, rating, withdrawn) = row.map_err(io)?;
        players.push(ArenaPlayer {
            user,
            name: stored_name(user, &name)?,
            joined_ms,
            rating,
            withdrawn,
        });
    }
    Ok(players)
}

pub(super) fn games(conn: &Connection, arena: &str) -> Result<Vec<GameListing>, StoreError> {
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {LISTING_COLUMNS} FROM games WHERE arena = ?1 ORDER BY created_ms, id"
        ))
        .map_err(io)?;
    let rows = stmt.query_map([arena], listing_from_row).map_err(io)?;
    let mut listings = Vec::new();
    for row in rows {
        listings.push(row.map_err(io)??);
    }
    Ok(listings)
}

pub(super) fn user_arenas(
    conn: &Connection,
    user: UserId,
    limit: u32,
) -> Result<Vec<ArenaRecord>, StoreError> {
    arenas_where(
        conn,
        "SELECT a.id, a.creator, a.terms, a.starts_ms, a.ends_ms, a.created_ms
         FROM arena_players p JOIN arenas a ON a.id = p.arena_id
         WHERE p.user_id = ?1 ORDER BY a.starts_ms DESC, a.id DESC LIMIT ?2",
        params![user.0, limit],
    )
}

/// A stored player's name, which this program wrote (anything else is a damaged database).
fn stored_name(user: UserId, name: &str) -> Result<Username, StoreError> {
    Username::parse(name).map_err(|e| StoreError::Io(format!("arena player {}: {e}", user.0)))
}
