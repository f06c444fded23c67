//! Moderation on PostgreSQL (schema v8, issue 32): the same tables and promises as SQLite's
//! (sqlite/moderation.rs). The two writes run in a transaction of their own on the read pool,
//! durable when they return (rare, and they must not queue behind a batch of moves). A report
//! locks its reporter's `users` row first, so that two reports of one reporter at once, on two
//! nodes, count each other against the daily limit.

use std::sync::Arc;

use tokio_postgres::types::ToSql;

use super::error::pg_error;
use super::rows::{Param, first, parse_speed, rating_from_row};
use super::{PostgresStore, Shared};
use crate::server::domain::chat::ChatRoom;
use crate::server::domain::chat_line::ChatLine;
use crate::server::domain::user::UserId;
use crate::server::game::speed::Speed;
use crate::server::store::{
    ChatBan, LeaderboardRow, Mark, MarkRecord, ModAction, ModActionKind, ModLogEntry, NewReport,
    Report, ReportFiled, ReportReason, ReportStatus, StoreError, StoreFuture,
};

const REPORT_SELECT: &str = "SELECT r.id, r.reporter, ur.username, r.reported, ud.username,
    r.reason, r.text, r.game_id, r.created_ms, r.status, r.handled_by, r.handled_ms
    FROM reports r JOIN users ur ON ur.id = r.reporter JOIN users ud ON ud.id = r.reported";

fn report_from_row(row: &tokio_postgres::Row) -> Result<Report, StoreError> {
    let reason: String = row.try_get(5).map_err(pg_error)?;
    let status: String = row.try_get(9).map_err(pg_error)?;
    Ok(Report {
        id: row.try_get(0).map_err(pg_error)?,
        reporter: UserId(row.try_get(1).map_err(pg_error)?),
        reporter_name: row.try_get(2).map_err(pg_error)?,
        reported: UserId(row.try_get(3).map_err(pg_error)?),
        reported_name: row.try_get(4).map_err(pg_error)?,
        reason: ReportReason::parse(&reason)
            .ok_or_else(|| StoreError::Io(format!("bad report reason {reason:?}")))?,
        text: row.try_get(6).map_err(pg_error)?,
        game_id: row.try_get(7).map_err(pg_error)?,
        created_ms: row.try_get(8).map_err(pg_error)?,
        status: ReportStatus::parse(&status)
            .ok_or_else(|| StoreError::Io(format!("bad report status {status:?}")))?,
        handled_by: row.try_get(10).map_err(pg_error)?,
        handled_ms: row.try_get(11).map_err(pg_error)?,
    })
}

impl PostgresStore {
    pub(super) fn report_file(
        &self,
        report: NewReport,
        since_ms: i64,
        max_open: u32,
    ) -> StoreFuture<ReportFiled> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move { file(&shared, &report, since_ms, max_open).await })
    }

    pub(super) fn mod_act(&self, action: ModAction) -> StoreFuture<u64> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move { act(&shared, &action).await })
    }

    pub(super) fn report_row(&self, id: i64) -> StoreFuture<Option<Report>> {
        first(self.read_rows(
            format!("{REPORT_SELECT} WHERE r.id = $1"),
            vec![Param::Int(id)],
            report_from_row,
        ))
    }

    pub(super) fn open_report_rows(&self, limit: u32) -> StoreFuture<Vec<Report>> {
        self.read_rows(
            format!(
                "{REPORT_SELECT} WHERE r.status = 'open'
                 ORDER BY r.created_ms DESC, r.id DESC LIMIT $1"
            ),
            vec![Param::Int(i64::from(limit))],
            report_from_row,
        )
    }

    pub(super) fn report_rows_by(&self, reporter: UserId, limit: u32) -> StoreFuture<Vec<Report>> {
        self.read_rows(
            format!(
                "{REPORT_SELECT} WHERE r.reporter = $1
                 ORDER BY r.created_ms DESC, r.id DESC LIMIT $2"
            ),
            vec![Param::Int(reporter.0), Param::Int(i64::from(limit))],
            report_from_row,
        )
    }

    pub(super) fn moderator_row(&self, user: UserId) -> StoreFuture<bool> {
        let rows = self.read_rows(
            "SELECT 1 FROM moderators WHERE user_id = $1".to_owned(),
            vec![Param::Int(user.0)],
            |_| Ok(()),
        );
        Box::pin(async move { Ok(!rows.await?.is_empty()) })
    }

    pub(super) fn chat_ban_row(&self, user: UserId, now_ms: i64) -> StoreFuture<Option<ChatBan>> {
        let ban = first(
            self.read_rows(
                "SELECT until_ms, reason, moderator, at_ms FROM chat_bans WHERE user_id = $1"
                    .to_owned(),
                vec![Param::Int(user.0)],
                |row| {
                    Ok(ChatBan {
                        until_ms: row.try_get(0).map_err(pg_error)?,
                        reason: row.try_get(1).map_err(pg_error)?,
                        by: row.try_get(2).map_err(pg_error)?,
                        at_ms: row.try_get(3).map_err(pg_error)?,
                    })
                },
            ),
        );
        Box::pin(async move { Ok(ban.await?.filter(|ban| ban.holds_at(now_ms))) })
    }

    pub(super) fn mark_row(&self, user: UserId) -> StoreFuture<Option<MarkRecord>> {
        first(self.read_rows(
            "SELECT mark, at_ms, moderator FROM marks WHERE user_id = $1".to_owned(),
            vec![Param::Int(user.0)],
            |row| {
                let mark: String = row.try_get(0).map_err(pg_error)?;
                Ok(MarkRecord {
                    mark: Mark::parse(&mark)
                        .ok_or_else(|| StoreError::Io(format!("bad mark {mark:?}")))?,
                    at_ms: row.try_get(1).map_err(pg_error)?,
                    by: row.try_get(2).map_err(pg_error)?,
                })
            },
        ))
    }

    pub(super) fn mod_log_rows(&self, limit: u32) -> StoreFuture<Vec<ModLogEntry>> {
        self.read_rows(
            "SELECT l.id, l.moderator, l.action, l.target, u.username, l.reason, l.at_ms,
                 l.details
             FROM mod_log l JOIN users u ON u.id = l.target ORDER BY l.id DESC LIMIT $1"
                .to_owned(),
            vec![Param::Int(i64::from(limit))],
            |row| {
                Ok(ModLogEntry {
                    id: row.try_get(0).map_err(pg_error)?,
                    moderator: row.try_get(1).map_err(pg_error)?,
                    action: row.try_get(2).map_err(pg_error)?,
                    target: UserId(row.try_get(3).map_err(pg_error)?),
                    target_name: row.try_get(4).map_err(pg_error)?,
                    reason: row.try_get(5).map_err(pg_error)?,
                    at_ms: row.try_get(6).map_err(pg_error)?,
                    details: row.try_get(7).map_err(pg_error)?,
                })
            },
        )
    }

    pub(super) fn user_chat_rows(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ChatLine>> {
        let rows = self.read_rows(
            "SELECT id, game_id, room, at_ms, user_id, author, text FROM chat_lines
             WHERE user_id = $1 ORDER BY id DESC LIMIT $2"
                .to_owned(),
            vec![Param::Int(user.0), Param::Int(i64::from(limit))],
            |row| {
                let id: i64 = row.try_get(0).map_err(pg_error)?;
                let room: String = row.try_get(2).map_err(pg_error)?;
                Ok(ChatLine {
                    id,
                    game_id: row.try_get(1).map_err(pg_error)?,
                    room: ChatRoom::from_stored(&room).ok_or_else(|| {
                        StoreError::Io(format!("chat line {id}: bad room {room:?}"))
                    })?,
                    at_ms: row.try_get(3).map_err(pg_error)?,
                    user_id: row
                        .try_get::<_, Option<i64>>(4)
                        .map_err(pg_error)?
                        .map(UserId),
                    author: row.try_get(5).map_err(pg_error)?,
                    text: row.try_get(6).map_err(pg_error)?,
                })
            },
        );
        Box::pin(async move {
            let mut lines = rows.await?;
            lines.reverse();
            Ok(lines)
        })
    }

    pub(super) fn leaderboard_rows(
        &self,
        speed: Speed,
        min_games: u32,
        limit: u32,
    ) -> StoreFuture<Vec<LeaderboardRow>> {
        self.read_rows(
            "SELECT r.user_id, u.username, r.rating, r.deviation, r.volatility, r.games, r.speed
             FROM ratings r JOIN users u ON u.id = r.user_id
             WHERE r.speed = $1 AND r.games >= $2 AND u.status = 'active'
               AND NOT EXISTS (SELECT 1 FROM marks m WHERE m.user_id = r.user_id)
             ORDER BY r.rating DESC, r.user_id LIMIT $3"
                .to_owned(),
            vec![
                Param::Text(speed.as_str().to_owned()),
                Param::Int(i64::from(min_games)),
                Param::Int(i64::from(limit)),
            ],
            |row| {
                let speed: String = row.try_get(6).map_err(pg_error)?;
                parse_speed(&speed)?;
                Ok(LeaderboardRow {
                    user: UserId(row.try_get(0).map_err(pg_error)?),
                    name: row.try_get(1).map_err(pg_error)?,
                    rating: rating_from_row(row, 2)?,
                })
            },
        )
    }
}

async fn execute(
    tx: &deadpool_postgres::Transaction<'_>,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<u64, StoreError> {
    let statement = tx.prepare_cached(sql).await.map_err(pg_error)?;
    tx.execute(&statement, params).await.map_err(pg_error)
}

async fn file(
    shared: &Shared,
    report: &NewReport,
    since_ms: i64,
    max_open: u32,
) -> Result<ReportFiled, StoreError> {
    let mut client = PostgresStore::reader(shared).await?;
    let tx = client.transaction().await.map_err(pg_error)?;
    execute(
        &tx,
        "SELECT 1 FROM users WHERE id = $1 FOR UPDATE",
        &[&report.reporter.0],
    )
    .await?;
    let statement = tx
        .prepare_cached(
            "SELECT count(*) FROM reports WHERE reporter = $1 AND created_ms >= $2
             AND status = 'open'",
        )
        .await
        .map_err(pg_error)?;
    let open: i64 = tx
        .query_one(&statement, &[&report.reporter.0, &since_ms])
        .await
        .map_err(pg_error)?
        .try_get(0)
        .map_err(pg_error)?;
    if open >= i64::from(max_open) {
        return Ok(ReportFiled::TooMany);
    }
    let statement = tx
        .prepare_cached(
            "INSERT INTO reports (reporter, reported, reason, text, game_id, created_ms, status)
             VALUES ($1, $2, $3, $4, $5, $6, 'open') RETURNING id",
        )
        .await
        .map_err(pg_error)?;
    let id: i64 = tx
        .query_one(
            &statement,
            &[
                &report.reporter.0,
                &report.reported.0,
                &report.reason.as_str(),
                &report.text,
                &report.game_id,
                &report.at_ms,
            ],
        )
        .await
        .map_err(pg_error)?
        .try_get(0)
        .map_err(pg_error)?;
    tx.commit().await.map_err(pg_error)?;
    Ok(ReportFiled::Filed(id))
}

async fn act(shared: &Shared, a: &ModAction) -> Result<u64, StoreError> {
    let mut client = PostgresStore::reader(shared).await?;
    let tx = client.transaction().await.map_err(pg_error)?;
    let target = a.target.0;
    let mut settled = 0;
    match &a.kind {
        ModActionKind::Dismiss { report } => {
            settled = execute(
                &tx,
                "UPDATE reports SET status = 'dismissed', handled_by = $3, handled_ms = $4
                 WHERE id = $1 AND reported = $2 AND status = 'open'",
                &[report, &target, &a.moderator, &a.at_ms],
            )
            .await?;
            if settled == 0 {
                return Ok(0);
            }
        }
        ModActionKind::ChatBan { until_ms } => {
            execute(
                &tx,
                "INSERT INTO chat_bans (user_id, until_ms, reason, moderator, at_ms)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (user_id) DO UPDATE SET until_ms = excluded.until_ms,
                     reason = excluded.reason, moderator = excluded.moderator,
                     at_ms = excluded.at_ms",
                &[&target, until_ms, &a.reason, &a.moderator, &a.at_ms],
            )
            .await?;
        }
        ModActionKind::LiftChatBan => {
            execute(&tx, "DELETE FROM chat_bans WHERE user_id = $1", &[&target]).await?;
        }
        ModActionKind::Mark(mark) => {
            execute(
                &tx,
                "INSERT INTO marks (user_id, mark, at_ms, moderator) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (user_id) DO UPDATE SET mark = excluded.mark,
                     at_ms = excluded.at_ms, moderator = excluded.moderator",
                &[&target, &mark.as_str(), &a.at_ms, &a.moderator],
            )
            .await?;
        }
        ModActionKind::Unmark => {
            execute(&tx, "DELETE FROM marks WHERE user_id = $1", &[&target]).await?;
        }
        ModActionKind::Close => {}
        ModActionKind::GrantMod => {
            execute(
                &tx,
                "INSERT INTO moderators (user_id, granted_ms) VALUES ($1, $2)
                 ON CONFLICT (user_id) DO NOTHING",
                &[&target, &a.at_ms],
            )
            .await?;
        }
        ModActionKind::RevokeMod => {
            execute(&tx, "DELETE FROM moderators WHERE user_id = $1", &[&target]).await?;
        }
    }
    if a.kind.acts_on_reports() {
        settled += execute(
            &tx,
            "UPDATE reports SET status = 'acted', handled_by = $2, handled_ms = $3
             WHERE reported = $1 AND status = 'open'",
            &[&target, &a.moderator, &a.at_ms],
        )
        .await?;
    }
    execute(
        &tx,
        "INSERT INTO mod_log (moderator, action, target, reason, at_ms, details)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &a.moderator,
            &a.kind.name(),
            &target,
            &a.reason,
            &a.at_ms,
            &a.kind.details(),
        ],
    )
    .await?;
    tx.commit().await.map_err(pg_error)?;
    Ok(settled)
}
