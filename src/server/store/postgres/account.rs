//! The account's own controls on PostgreSQL (schema v8, issue 32): the same promises as
//! SQLite's (sqlite/account.rs). Each write is one transaction of its own on the read pool,
//! durable when it returns, like a puzzle round: rare writes that must not wait behind a batch
//! of moves, and that touch no game being played (a deletion is refused while one is).

use std::sync::Arc;

use deadpool_postgres::Transaction;

use super::error::pg_error;
use super::rows::Param;
use super::{PostgresStore, Shared};
use crate::server::domain::user::{AccountStatus, DELETED_LABEL, UserId, Username};
use crate::server::store::{
    SESSION_IDLE_MS, SessionHash, SessionRecord, StoreError, StoreFuture, erase_name,
};

impl PostgresStore {
    pub(super) fn account_status(
        &self,
        user: UserId,
        status: AccountStatus,
        at_ms: i64,
    ) -> StoreFuture<()> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let mut client = PostgresStore::reader(&shared).await?;
            let tx = client.transaction().await.map_err(pg_error)?;
            run(
                &tx,
                "UPDATE users SET status = $2, status_ms = $3 WHERE id = $1",
                &[&user.0, &status.as_str(), &at_ms],
            )
            .await?;
            if !status.is_active() {
                run(&tx, "DELETE FROM sessions WHERE user_id = $1", &[&user.0]).await?;
            }
            tx.commit().await.map_err(pg_error)
        })
    }

    pub(super) fn account_sessions(
        &self,
        user: UserId,
        now_ms: i64,
    ) -> StoreFuture<Vec<SessionRecord>> {
        self.read_rows(
            "SELECT id_hash, created_ms, last_seen_ms FROM sessions
             WHERE user_id = $1 AND last_seen_ms >= $2
             ORDER BY created_ms DESC, id_hash DESC"
                .to_owned(),
            vec![
                Param::Int(user.0),
                Param::Int(now_ms.saturating_sub(SESSION_IDLE_MS)),
            ],
            |row| {
                let hash: Vec<u8> = row.try_get(0).map_err(pg_error)?;
                Ok(SessionRecord {
                    hash: SessionHash::try_from(hash.as_slice()).map_err(|_| {
                        StoreError::Io("a stored session hash is not 32 bytes".to_owned())
                    })?,
                    created_ms: row.try_get(1).map_err(pg_error)?,
                    last_seen_ms: row.try_get(2).map_err(pg_error)?,
                })
            },
        )
    }

    pub(super) fn account_sessions_but(&self, user: UserId, keep: SessionHash) -> StoreFuture<()> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let client = PostgresStore::reader(&shared).await?;
            let statement = client
                .prepare_cached("DELETE FROM sessions WHERE user_id = $1 AND id_hash <> $2")
                .await
                .map_err(pg_error)?;
            client
                .execute(&statement, &[&user.0, &&keep[..]])
                .await
                .map_err(pg_error)?;
            Ok(())
        })
    }

    pub(super) fn account_password(
        &self,
        user: UserId,
        password_hash: String,
        keep: SessionHash,
    ) -> StoreFuture<()> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let mut client = PostgresStore::reader(&shared).await?;
            let tx = client.transaction().await.map_err(pg_error)?;
            run(
                &tx,
                "UPDATE users SET password_hash = $2 WHERE id = $1",
                &[&user.0, &password_hash],
            )
            .await?;
            run(
                &tx,
                "DELETE FROM sessions WHERE user_id = $1 AND id_hash <> $2",
                &[&user.0, &&keep[..]],
            )
            .await?;
            tx.commit().await.map_err(pg_error)
        })
    }

    pub(super) fn account_delete(&self, user: UserId, at_ms: i64) -> StoreFuture<()> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move { delete(&shared, user, at_ms).await })
    }
}

async fn run(
    tx: &Transaction<'_>,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<u64, StoreError> {
    let statement = tx.prepare_cached(sql).await.map_err(pg_error)?;
    tx.execute(&statement, params).await.map_err(pg_error)
}

/// [`crate::server::store::Store::delete_account`] in one transaction, the user's row locked
/// first (two deletions of one account run one after the other).
async fn delete(shared: &Shared, user: UserId, at_ms: i64) -> Result<(), StoreError> {
    let mut client = PostgresStore::reader(shared).await?;
    let tx = client.transaction().await.map_err(pg_error)?;
    let row = tx
        .query_opt(
            "SELECT username FROM users WHERE id = $1 FOR UPDATE",
            &[&user.0],
        )
        .await
        .map_err(pg_error)?;
    let Some(row) = row else {
        return tx.commit().await.map_err(pg_error);
    };
    let name: String = row.try_get(0).map_err(pg_error)?;
    run(
        &tx,
        "UPDATE users SET status = 'deleted', status_ms = $2, password_hash = '' WHERE id = $1",
        &[&user.0, &at_ms],
    )
    .await?;
    for sql in [
        "DELETE FROM sessions WHERE user_id = $1",
        "DELETE FROM account_settings WHERE user_id = $1",
        "DELETE FROM ratings WHERE user_id = $1",
        "DELETE FROM lesson_steps WHERE user_id = $1",
        "DELETE FROM puzzle_rounds WHERE user_id = $1",
        "DELETE FROM puzzle_players WHERE user_id = $1",
        // Issue 32's own rows, as in sqlite/account.rs (reports, marks and the moderation
        // log stay).
        "DELETE FROM blocks WHERE blocker = $1",
        "DELETE FROM blocks WHERE blocked = $1",
        "DELETE FROM playban_outcomes WHERE user_id = $1",
        "DELETE FROM chat_bans WHERE user_id = $1",
        "DELETE FROM moderators WHERE user_id = $1",
    ] {
        run(&tx, sql, &[&user.0]).await?;
    }
    run(
        &tx,
        "UPDATE chat_lines SET user_id = NULL, author = $2 WHERE user_id = $1",
        &[&user.0, &DELETED_LABEL],
    )
    .await?;
    run(
        &tx,
        "UPDATE arena_players SET username = $2 WHERE user_id = $1",
        &[&user.0, &DELETED_LABEL],
    )
    .await?;
    if let Ok(name) = Username::parse(&name) {
        erase_games(&tx, user, &name).await?;
    }
    tx.commit().await.map_err(pg_error)
}

/// The deleted account's name out of its games' listing rows, events and explorer rows.
async fn erase_games(
    tx: &Transaction<'_>,
    user: UserId,
    name: &Username,
) -> Result<(), StoreError> {
    let games = tx
        .query(
            "SELECT id, summary FROM games WHERE white_user = $1
             UNION SELECT id, summary FROM games WHERE black_user = $1",
            &[&user.0],
        )
        .await
        .map_err(pg_error)?;
    for game in games {
        let id: String = game.try_get(0).map_err(pg_error)?;
        let summary: String = game.try_get(1).map_err(pg_error)?;
        if let Some(summary) = erase_name(&summary, name) {
            run(
                tx,
                "UPDATE games SET summary = $2 WHERE id = $1",
                &[&id, &summary],
            )
            .await?;
        }
        let events = tx
            .query("SELECT seq, payload FROM events WHERE game_id = $1", &[&id])
            .await
            .map_err(pg_error)?;
        for event in events {
            let seq: i64 = event.try_get(0).map_err(pg_error)?;
            let payload: String = event.try_get(1).map_err(pg_error)?;
            if let Some(payload) = erase_name(&payload, name) {
                run(
                    tx,
                    "UPDATE events SET payload = $3 WHERE game_id = $1 AND seq = $2",
                    &[&id, &seq, &payload],
                )
                .await?;
            }
        }
        for sql in [
            "UPDATE explorer_games SET white_name = NULL WHERE game_id = $1 AND white_name = $2",
            "UPDATE explorer_games SET black_name = NULL WHERE game_id = $1 AND black_name = $2",
        ] {
            run(tx, sql, &[&id, &name.as_str()]).await?;
        }
    }
    Ok(())
}
