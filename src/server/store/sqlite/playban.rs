//! The SQL of fair play by rule on SQLite (schema v11, issue 32): a finished game's outcomes,
//! written by the commit that ends it (or `Work::Playban`), each (user, game) once; a user's
//! outcomes of a window, one range of `playban_outcomes_by_time`.

use rusqlite::{Connection, params};

use super::connect::io;
use crate::server::domain::user::UserId;
use crate::server::store::{PlaybanEnd, PlaybanEntry, PlaybanOutcome, StoreError};

/// The newest `limit` outcomes of a user at or after a time, oldest first (the caller's
/// order is restored by the outer query).
pub const OUTCOMES_SQL: &str = "SELECT game_id, outcome, at_ms FROM (
     SELECT game_id, outcome, at_ms FROM playban_outcomes
     WHERE user_id = ?1 AND at_ms >= ?2
     ORDER BY at_ms DESC, game_id DESC LIMIT ?3
 ) ORDER BY at_ms, game_id";

/// Inserts the outcomes not stored yet; how many were new.
pub(super) fn add(conn: &Connection, end: &PlaybanEnd) -> rusqlite::Result<u64> {
    let mut insert = conn.prepare_cached(
        "INSERT INTO playban_outcomes (user_id, game_id, outcome, at_ms) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (user_id, game_id) DO NOTHING",
    )?;
    let mut added = 0;
    for (user, outcome) in &end.seats {
        added += insert.execute(params![user.0, end.game_id, outcome.as_str(), end.at_ms])? as u64;
    }
    Ok(added)
}

pub(super) fn outcomes(
    conn: &Connection,
    user: UserId,
    since_ms: i64,
    limit: u32,
) -> Result<Vec<PlaybanEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(OUTCOMES_SQL).map_err(io)?;
    let rows = stmt
        .query_map(params![user.0, since_ms, limit], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, i64>(2)?,
            ))
        })
        .map_err(io)?;
    let mut entries = Vec::new();
    for row in rows {
        let (game_id, outcome, at_ms) = row.map_err(io)?;
        entries.push(PlaybanEntry {
            game_id,
            outcome: parse_stored(&outcome)?,
            at_ms,
        });
    }
    Ok(entries)
}

/// The stored text of an outcome, read back; a value no version wrote is a store error.
fn parse_stored(text: &str) -> Result<PlaybanOutcome, StoreError> {
    PlaybanOutcome::parse(text)
        .ok_or_else(|| StoreError::Io(format!("unknown playban outcome '{text}'")))
}
