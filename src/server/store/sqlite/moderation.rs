//! The SQL of moderation on SQLite (schema v11, issue 32): the reads (reports, the log, bans,
//! marks, a user's chat lines, the leaderboard) and the writer's two units, a report filed
//! under its daily limit and an action with its log row ([`ModWrite`]); both run inside the
//! writer's transaction, so the limit's count and the insert cannot be split by another write.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::connect::io;
use crate::server::domain::chat::ChatRoom;
use crate::server::domain::chat_line::ChatLine;
use crate::server::domain::rating::Rating;
use crate::server::domain::user::UserId;
use crate::server::game::speed::Speed;
use crate::server::store::{
    ChatBan, LeaderboardRow, Mark, MarkRecord, ModAction, ModActionKind, ModLogEntry, NewReport,
    Report, ReportFiled, ReportReason, ReportStatus, StoreError,
};

/// A moderation write for the writer thread.
pub(super) enum ModWrite {
    File {
        report: NewReport,
        since_ms: i64,
        max_open: u32,
    },
    Act(ModAction),
}

/// What a [`ModWrite`] gave back.
#[derive(Debug)]
pub(super) enum ModDone {
    Filed(ReportFiled),
    /// Reports settled by an action.
    Settled(u64),
}

pub(super) fn write(conn: &Connection, write: &ModWrite) -> rusqlite::Result<ModDone> {
    match write {
        ModWrite::File {
            report,
            since_ms,
            max_open,
        } => {
            let open: i64 = conn
                .prepare_cached(
                    "SELECT count(*) FROM reports WHERE reporter = ?1 AND created_ms >= ?2
                     AND status = 'open'",
                )?
                .query_row(params![report.reporter.0, since_ms], |row| row.get(0))?;
            if open >= i64::from(*max_open) {
                return Ok(ModDone::Filed(ReportFiled::TooMany));
            }
            conn.prepare_cached(
                "INSERT INTO reports (reporter, reported, reason, text, game_id, created_ms,
                     status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'open')",
            )?
            .execute(params![
                report.reporter.0,
                report.reported.0,
                report.reason.as_str(),
                report.text,
                report.game_id,
                report.at_ms
            ])?;
            Ok(ModDone::Filed(ReportFiled::Filed(conn.last_insert_rowid())))
        }
        ModWrite::Act(action) => act(conn, action).map(ModDone::Settled),
    }
}

fn act(conn: &Connection, a: &ModAction) -> rusqlite::Result<u64> {
    let target = a.target.0;
    let mut settled = 0;
    match &a.kind {
        ModActionKind::Dismiss { report } => {
            let changed = conn
                .prepare_cached(
                    "UPDATE reports SET status = 'dismissed', handled_by = ?3, handled_ms = ?4
                     WHERE id = ?1 AND reported = ?2 AND status = 'open'",
                )?
                .execute(params![report, target, a.moderator, a.at_ms])?;
            if changed == 0 {
                return Ok(0);
            }
            settled = changed as u64;
        }
        ModActionKind::ChatBan { until_ms } => {
            conn.prepare_cached(
                "INSERT INTO chat_bans (user_id, until_ms, reason, moderator, at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (user_id) DO UPDATE SET until_ms = excluded.until_ms,
                     reason = excluded.reason, moderator = excluded.moderator,
                     at_ms = excluded.at_ms",
            )?
            .execute(params![target, until_ms, a.reason, a.moderator, a.at_ms])?;
        }
        ModActionKind::LiftChatBan => {
            conn.prepare_cached("DELETE FROM chat_bans WHERE user_id = ?1")?
                .execute(params![target])?;
        }
        ModActionKind::Mark(mark) => {
            conn.prepare_cached(
                "INSERT INTO marks (user_id, mark, at_ms, moderator) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (user_id) DO UPDATE SET mark = excluded.mark,
                     at_ms = excluded.at_ms, moderator = excluded.moderator",
            )?
            .execute(params![target, mark.as_str(), a.at_ms, a.moderator])?;
        }
        ModActionKind::Unmark => {
            conn.prepare_cached("DELETE FROM marks WHERE user_id = ?1")?
                .execute(params![target])?;
        }
        ModActionKind::Close => {}
        ModActionKind::GrantMod => {
            conn.prepare_cached(
                "INSERT INTO moderators (user_id, granted_ms) VALUES (?1, ?2)
                 ON CONFLICT (user_id) DO NOTHING",
            )?
            .execute(params![target, a.at_ms])?;
        }
        ModActionKind::RevokeMod => {
            conn.prepare_cached("DELETE FROM moderators WHERE user_id = ?1")?
                .execute(params![target])?;
        }
    }
    if a.kind.acts_on_reports() {
        settled += conn
            .prepare_cached(
                "UPDATE reports SET status = 'acted', handled_by = ?2, handled_ms = ?3
                 WHERE reported = ?1 AND status = 'open'",
            )?
            .execute(params![target, a.moderator, a.at_ms])? as u64;
    }
    conn.prepare_cached(
        "INSERT INTO mod_log (moderator, action, target, reason, at_ms, details)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        a.moderator,
        a.kind.name(),
        target,
        a.reason,
        a.at_ms,
        a.kind.details()
    ])?;
    Ok(settled)
}

/// Whether either player is marked: the rating transaction then stores the end unrated.
pub(super) fn either_marked(conn: &Connection, a: UserId, b: UserId) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM marks WHERE user_id IN (?1, ?2)")?
        .exists(params![a.0, b.0])
}

const REPORT_COLUMNS: &str = "r.id, r.reporter, ur.username, r.reported, ud.username, r.reason,
    r.text, r.game_id, r.created_ms, r.status, r.handled_by, r.handled_ms";
const REPORT_FROM: &str = "FROM reports r JOIN users ur ON ur.id = r.reporter
    JOIN users ud ON ud.id = r.reported";

fn report_row(row: &Row<'_>) -> rusqlite::Result<Report> {
    let reason: String = row.get(5)?;
    let status: String = row.get(9)?;
    let bad = |what: &str, value: &str| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("bad report {what} {value:?}").into(),
        )
    };
    Ok(Report {
        id: row.get(0)?,
        reporter: UserId(row.get(1)?),
        reporter_name: row.get(2)?,
        reported: UserId(row.get(3)?),
        reported_name: row.get(4)?,
        reason: ReportReason::parse(&reason).ok_or_else(|| bad("reason", &reason))?,
        text: row.get(6)?,
        game_id: row.get(7)?,
        created_ms: row.get(8)?,
        status: ReportStatus::parse(&status).ok_or_else(|| bad("status", &status))?,
        handled_by: row.get(10)?,
        handled_ms: row.get(11)?,
    })
}

fn reports(
    conn: &Connection,
    filter: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<Report>, StoreError> {
    let sql = format!("SELECT {REPORT_COLUMNS} {REPORT_FROM} {filter}");
    let mut stmt = conn.prepare_cached(&sql).map_err(io)?;
    let rows = stmt.query_map(params, report_row).map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}

pub(super) fn report(conn: &Connection, id: i64) -> Result<Option<Report>, StoreError> {
    Ok(reports(conn, "WHERE r.id = ?1", params![id])?.pop())
}

pub(super) fn open_reports(conn: &Connection, limit: u32) -> Result<Vec<Report>, StoreError> {
    reports(
        conn,
        "WHERE r.status = 'open' ORDER BY r.created_ms DESC, r.id DESC LIMIT ?1",
        params![limit],
    )
}

pub(super) fn reports_by(
    conn: &Connection,
    reporter: UserId,
    limit: u32,
) -> Result<Vec<Report>, StoreError> {
    reports(
        conn,
        "WHERE r.reporter = ?1 ORDER BY r.created_ms DESC, r.id DESC LIMIT ?2",
        params![reporter.0, limit],
    )
}

pub(super) fn is_moderator(conn: &Connection, user: UserId) -> Result<bool, StoreError> {
    conn.prepare_cached("SELECT 1 FROM moderators WHERE user_id = ?1")
        .and_then(|mut s| s.exists(params![user.0]))
        .map_err(io)
}

pub(super) fn chat_ban(
    conn: &Connection,
    user: UserId,
    now_ms: i64,
) -> Result<Option<ChatBan>, StoreError> {
    let ban = conn
        .prepare_cached(
            "SELECT until_ms, reason, moderator, at_ms FROM chat_bans WHERE user_id = ?1",
        )
        .and_then(|mut s| {
            s.query_row(params![user.0], |row| {
                Ok(ChatBan {
                    until_ms: row.get(0)?,
                    reason: row.get(1)?,
                    by: row.get(2)?,
                    at_ms: row.get(3)?,
                })
            })
            .optional()
        })
        .map_err(io)?;
    Ok(ban.filter(|ban| ban.holds_at(now_ms)))
}

pub(super) fn user_mark(conn: &Connection, user: UserId) -> Result<Option<MarkRecord>, StoreError> {
    let row = conn
        .prepare_cached("SELECT mark, at_ms, moderator FROM marks WHERE user_id = ?1")
        .and_then(|mut s| {
            s.query_row(params![user.0], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                ))
            })
            .optional()
        })
        .map_err(io)?;
    row.map(|(mark, at_ms, by)| {
        Ok(MarkRecord {
            mark: Mark::parse(&mark).ok_or_else(|| StoreError::Io(format!("bad mark {mark:?}")))?,
            at_ms,
            by,
        })
    })
    .transpose()
}

pub(super) fn mod_log(conn: &Connection, limit: u32) -> Result<Vec<ModLogEntry>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT l.id, l.moderator, l.action, l.target, u.username, l.reason, l.at_ms,
                 l.details
             FROM mod_log l JOIN users u ON u.id = l.target ORDER BY l.id DESC LIMIT ?1",
        )
        .map_err(io)?;
    let rows = stmt
        .query_map(params![limit], |row| {
            Ok(ModLogEntry {
                id: row.get(0)?,
                moderator: row.get(1)?,
                action: row.get(2)?,
                target: UserId(row.get(3)?),
                target_name: row.get(4)?,
                reason: row.get(5)?,
                at_ms: row.get(6)?,
                details: row.get(7)?,
            })
        })
        .map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}

pub(super) fn user_chat_lines(
    conn: &Connection,
    user: UserId,
    limit: u32,
) -> Result<Vec<ChatLine>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT id, game_id, room, at_ms, user_id, author, text FROM chat_lines
             WHERE user_id = ?1 ORDER BY id DESC LIMIT ?2",
        )
        .map_err(io)?;
    let rows = stmt
        .query_map(params![user.0, limit], |row| {
            let room: String = row.get(2)?;
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, Option<String>>(1)?,
                room,
                row.get::<_, i64>(3)?,
                row.get::<_, Option<i64>>(4)?,
                row.get::<_, String>(5)?,
                row.get::<_, String>(6)?,
            ))
        })
        .map_err(io)?;
    let mut lines = Vec::new();
    for row in rows {
        let (id, game_id, room, at_ms, user_id, author, text) = row.map_err(io)?;
        let room = ChatRoom::from_stored(&room)
            .ok_or_else(|| StoreError::Io(format!("chat line {id}: bad room {room:?}")))?;
        lines.push(ChatLine {
            id,
            game_id,
            room,
            at_ms,
            user_id: user_id.map(UserId),
            author,
            text,
        });
    }
    lines.reverse();
    Ok(lines)
}

pub(super) fn leaderboard(
    conn: &Connection,
    speed: Speed,
    min_games: u32,
    limit: u32,
) -> Result<Vec<LeaderboardRow>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT r.user_id, u.username, r.rating, r.deviation, r.volatility, r.games
             FROM ratings r JOIN users u ON u.id = r.user_id
             WHERE r.speed = ?1 AND r.games >= ?2 AND u.status = 'active'
               AND NOT EXISTS (SELECT 1 FROM marks m WHERE m.user_id = r.user_id)
             ORDER BY r.rating DESC, r.user_id LIMIT ?3",
        )
        .map_err(io)?;
    let rows = stmt
        .query_map(params![speed.as_str(), min_games, limit], |row| {
            Ok(LeaderboardRow {
                user: UserId(row.get(0)?),
                name: row.get(1)?,
                rating: Rating {
                    rating: row.get(2)?,
                    deviation: row.get(3)?,
                    volatility: row.get(4)?,
                    games: u32::try_from(row.get::<_, i64>(5)?).unwrap_or(u32::MAX),
                },
            })
        })
        .map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}
