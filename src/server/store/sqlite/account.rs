//! The SQL of the account's own controls on SQLite (schema v11, issue 32): its status, its
//! sessions, a password change and a deletion. The writes are the writer's
//! (`Work::Account`), each in the writer's transaction, so each is all-or-nothing.

use rusqlite::{Connection, OptionalExtension, params};

use super::connect::io;
use crate::server::domain::user::{AccountStatus, DELETED_LABEL, UserId, Username};
use crate::server::store::{SESSION_IDLE_MS, SessionHash, SessionRecord, StoreError, erase_name};

/// An account write of [`crate::server::store::Store`]'s issue-32 methods.
pub(in crate::server::store::sqlite) enum AccountWrite {
    SetStatus {
        user: UserId,
        status: AccountStatus,
        at_ms: i64,
    },
    DeleteOtherSessions {
        user: UserId,
        keep: SessionHash,
    },
    SetPasswordHash {
        user: UserId,
        password_hash: String,
        keep: SessionHash,
    },
    Delete {
        user: UserId,
        at_ms: i64,
    },
}

/// Runs one write on the writer's connection, inside its transaction.
pub(super) fn write(conn: &Connection, write: &AccountWrite) -> rusqlite::Result<()> {
    match write {
        AccountWrite::SetStatus {
            user,
            status,
            at_ms,
        } => {
            conn.prepare_cached("UPDATE users SET status = ?2, status_ms = ?3 WHERE id = ?1")?
                .execute(params![user.0, status.as_str(), at_ms])?;
            if !status.is_active() {
                delete_sessions_but(conn, *user, None)?;
            }
            Ok(())
        }
        AccountWrite::DeleteOtherSessions { user, keep } => {
            delete_sessions_but(conn, *user, Some(keep))
        }
        AccountWrite::SetPasswordHash {
            user,
            password_hash,
            keep,
        } => {
            conn.prepare_cached("UPDATE users SET password_hash = ?2 WHERE id = ?1")?
                .execute(params![user.0, password_hash])?;
            delete_sessions_but(conn, *user, Some(keep))
        }
        AccountWrite::Delete { user, at_ms } => delete(conn, *user, *at_ms),
    }
}

fn delete_sessions_but(
    conn: &Connection,
    user: UserId,
    keep: Option<&SessionHash>,
) -> rusqlite::Result<()> {
    match keep {
        Some(keep) => conn
            .prepare_cached("DELETE FROM sessions WHERE user_id = ?1 AND id_hash <> ?2")?
            .execute(params![user.0, &keep[..]])?,
        None => conn
            .prepare_cached("DELETE FROM sessions WHERE user_id = ?1")?
            .execute(params![user.0])?,
    };
    Ok(())
}

/// [`crate::server::store::Store::delete_account`] in the writer's transaction.
fn delete(conn: &Connection, user: UserId, at_ms: i64) -> rusqlite::Result<()> {
    let name: Option<String> = conn
        .prepare_cached("SELECT username FROM users WHERE id = ?1")?
        .query_row(params![user.0], |row| row.get(0))
        .optional()?;
    let Some(name) = name else { return Ok(()) };
    conn.prepare_cached(
        "UPDATE users SET status = 'deleted', status_ms = ?2, password_hash = '' WHERE id = ?1",
    )?
    .execute(params![user.0, at_ms])?;
    for sql in [
        "DELETE FROM sessions WHERE user_id = ?1",
        "DELETE FROM account_settings WHERE user_id = ?1",
        "DELETE FROM ratings WHERE user_id = ?1",
        "DELETE FROM lesson_steps WHERE user_id = ?1",
        "DELETE FROM puzzle_rounds WHERE user_id = ?1",
        "DELETE FROM puzzle_players WHERE user_id = ?1",
        // Issue 32's own rows: blocks either way, fair-play outcomes, a chat ban, the
        // moderator role. Reports, marks and the moderation log are moderators' records and
        // stay (docs/moderation.md, "Deleted accounts").
        "DELETE FROM blocks WHERE blocker = ?1",
        "DELETE FROM blocks WHERE blocked = ?1",
        "DELETE FROM playban_outcomes WHERE user_id = ?1",
        "DELETE FROM chat_bans WHERE user_id = ?1",
        "DELETE FROM moderators WHERE user_id = ?1",
    ] {
        conn.prepare_cached(sql)?.execute(params![user.0])?;
    }
    conn.prepare_cached("UPDATE chat_lines SET user_id = NULL, author = ?2 WHERE user_id = ?1")?
        .execute(params![user.0, DELETED_LABEL])?;
    conn.prepare_cached("UPDATE arena_players SET username = ?2 WHERE user_id = ?1")?
        .execute(params![user.0, DELETED_LABEL])?;
    // A stored name that is not a username cannot be in a game's JSON either.
    let Ok(name) = Username::parse(&name) else {
        return Ok(());
    };
    let games: Vec<(String, String)> = conn
        .prepare_cached(
            "SELECT id, summary FROM games WHERE white_user = ?1
             UNION SELECT id, summary FROM games WHERE black_user = ?1",
        )?
        .query_map(params![user.0], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (game, summary) in games {
        if let Some(summary) = erase_name(&summary, &name) {
            conn.prepare_cached("UPDATE games SET summary = ?2 WHERE id = ?1")?
                .execute(params![game, summary])?;
        }
        let events: Vec<(i64, String)> = conn
            .prepare_cached("SELECT seq, payload FROM events WHERE game_id = ?1")?
            .query_map(params![game], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (seq, payload) in events {
            if let Some(payload) = erase_name(&payload, &name) {
                conn.prepare_cached(
                    "UPDATE events SET payload = ?3 WHERE game_id = ?1 AND seq = ?2",
                )?
                .execute(params![game, seq, payload])?;
            }
        }
        for sql in [
            "UPDATE explorer_games SET white_name = NULL WHERE game_id = ?1 AND white_name = ?2",
            "UPDATE explorer_games SET black_name = NULL WHERE game_id = ?1 AND black_name = ?2",
        ] {
            conn.prepare_cached(sql)?
                .execute(params![game, name.as_str()])?;
        }
    }
    Ok(())
}

/// The user's live sessions, the most recently made first.
pub(super) fn sessions(
    conn: &Connection,
    user: UserId,
    now_ms: i64,
) -> Result<Vec<SessionRecord>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT id_hash, created_ms, last_seen_ms FROM sessions
             WHERE user_id = ?1 AND last_seen_ms >= ?2
             ORDER BY created_ms DESC, id_hash DESC",
        )
        .map_err(io)?;
    let rows = stmt
        .query_map(
            params![user.0, now_ms.saturating_sub(SESSION_IDLE_MS)],
            |row| {
                Ok((
                    row.get::<_, Vec<u8>>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                ))
            },
        )
        .map_err(io)?;
    let mut sessions = Vec::new();
    for row in rows {
        let (hash, created_ms, last_seen_ms) = row.map_err(io)?;
        let hash = SessionHash::try_from(hash.as_slice())
            .map_err(|_| StoreError::Io("a stored session hash is not 32 bytes".to_owned()))?;
        sessions.push(SessionRecord {
            hash,
            created_ms,
            last_seen_ms,
        });
    }
    Ok(sessions)
}
