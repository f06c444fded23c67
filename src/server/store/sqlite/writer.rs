//! The group-commit writer: one thread owns the only write connection, takes commits from a
//! channel, and writes every commit pending at that moment (up to a bound) in ONE transaction, so a
//! single fsync makes a whole batch durable. Only after that transaction commits does it complete
//! the callers' futures; a commit is never acknowledged before it is on disk.
//!
//! Within a batch each caller's unit (one commit, or the several of a `commit_all`) runs inside
//! its own savepoint: a unit with a commit whose `first_seq` does not match (or that fails for a
//! reason local to it) is undone alone, all of it, and the rest of the batch goes on. A storage failure (disk full, I/O error, ...) rolls back the whole transaction and fails
//! every commit of the batch with [`StoreError::Io`]; the thread keeps running and later batches
//! may succeed.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;

use rusqlite::{Connection, ErrorCode, params};
use tokio::sync::{oneshot, watch};

use super::checkpoint::{self, Checkpointer};
use super::stats::Counters;
use crate::server::store::{Commit, StoreError};

/// Upper bound on commits per transaction: keeps one batch's latency and memory bounded while
/// still amortising the fsync over hundreds of games.
pub(super) const MAX_BATCH: usize = 512;

/// The sequence check of every commit: the game's last stored `seq`.
pub(super) const LAST_SEQ: &str =
    "SELECT seq FROM events WHERE game_id = ?1 ORDER BY seq DESC LIMIT 1";

/// A unit of commits waiting for the writer (stored all or none), with the channel its caller
/// awaits.
pub(super) struct Pending {
    pub(super) commits: Vec<Commit>,
    pub(super) done: oneshot::Sender<Result<(), StoreError>>,
}

/// A failure while writing a batch: either it concerns one commit (the batch goes on without it),
/// or the transaction as a whole is lost.
enum CommitFailure {
    Conflict { expected: u64, got: u64 },
    ThisCommit(rusqlite::Error),
    WholeBatch(rusqlite::Error),
}

/// Errors after which the transaction cannot be trusted: the storage itself failed, or SQLite
/// may have rolled back the whole transaction on its own.
fn is_storage_failure(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(
            ErrorCode::DiskFull
                | ErrorCode::SystemIoFailure
                | ErrorCode::DatabaseCorrupt
                | ErrorCode::NotADatabase
                | ErrorCode::ReadOnly
                | ErrorCode::CannotOpen
                | ErrorCode::OutOfMemory
                | ErrorCode::DatabaseBusy
                | ErrorCode::DatabaseLocked
                | ErrorCode::FileLockingProtocolFailed
                | ErrorCode::NoLargeFileSupport
                | ErrorCode::PermissionDenied
                | ErrorCode::InternalMalfunction
        )
    )
}

/// Runs until every sender of `rx` is gone, then returns after writing what was already queued
/// (this is how `close()` drains). Stops the checkpoint thread, and signals `stopped` on the way
/// out.
pub(super) fn run(
    mut conn: Connection,
    rx: Receiver<Pending>,
    counters: Arc<Counters>,
    checkpointer: Checkpointer,
    stopped: watch::Sender<bool>,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while let Ok(first) = rx.recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        write_batch(&mut conn, &mut batch, &counters);
        let catch_up = counters.catch_up_wanted.swap(false, Ordering::Relaxed);
        if counters.truncate_wanted.swap(false, Ordering::Relaxed) {
            truncate_wal(&conn, &counters);
        } else if catch_up {
            catch_up_wal(&conn, &counters);
        }
    }
    checkpointer.stop();
    // Fold the WAL back into the database so a clean shutdown leaves a small WAL; failure here
    // loses nothing (the WAL is durable) so it is only reported.
    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())) {
        tracing::warn!(error = %e, "store: checkpoint at shutdown failed");
    }
    drop(conn);
    stopped.send_replace(true);
}

/// The WAL grew past its bound (it could not start over, e.g. a reader held an old snapshot at
/// every catch-up): copy what is left and empty it, between two batches. Waits (busy timeout) for a
/// passive checkpoint under way. A failure loses nothing; the next bound crossing tries again.
fn truncate_wal(conn: &Connection, counters: &Counters) {
    match checkpoint::checkpoint(conn, "TRUNCATE") {
        Ok(_) => {
            counters.wal_truncations.fetch_add(1, Ordering::Relaxed);
        }
        Err(e) => tracing::warn!(error = %e, "store: truncating the WAL failed"),
    }
}

/// Right after a background checkpoint: copy the frames written while it ran. The writer is the
/// only writer, so this leaves every frame copied, and SQLite starts the WAL over at the next
/// transaction (same file, no growth). Costs the commit path one small copy and one fsync of the
/// database about once a second, instead of SQLite's automatic ~1000-page copy.
fn catch_up_wal(conn: &Connection, counters: &Counters) {
    match checkpoint::checkpoint(conn, "PASSIVE") {
        Ok(_) => {
            counters.catch_ups.fetch_add(1, Ordering::Relaxed);
        }
        Err(e) => tracing::warn!(error = %e, "store: catch-up checkpoint failed"),
    }
}

/// Writes one batch in one transaction and completes every commit's future. Empties `batch`.
fn write_batch(conn: &mut Connection, batch: &mut Vec<Pending>, counters: &Counters) {
    counters.batches.fetch_add(1, Ordering::Relaxed);
    counters
        .largest_batch
        .fetch_max(batch.len() as u64, Ordering::Relaxed);

    let mut outcomes: Vec<Result<(), StoreError>> = Vec::with_capacity(batch.len());
    let result = write_in_transaction(conn, batch, &mut outcomes);
    match result {
        Ok(()) => {
            for (pending, outcome) in batch.drain(..).zip(outcomes) {
                match &outcome {
                    Ok(()) => counters.commits_ok.fetch_add(1, Ordering::Relaxed),
                    Err(StoreError::Conflict { .. }) => {
                        counters.conflicts.fetch_add(1, Ordering::Relaxed)
                    }
                    Err(_) => counters.failed_commits.fetch_add(1, Ordering::Relaxed),
                };
                // The caller may have stopped waiting; the commit stands either way.
                let _ = pending.done.send(outcome);
            }
        }
        Err(e) => {
            // Whatever SQLite did on its own, make sure no transaction is left open.
            if !conn.is_autocommit()
                && let Err(rollback) = conn.execute_batch("ROLLBACK")
            {
                tracing::error!(error = %rollback, "store: rollback after failed batch failed");
            }
            tracing::error!(error = %e, commits = batch.len(), "store: batch failed, nothing acknowledged");
            counters.failed_batches.fetch_add(1, Ordering::Relaxed);
            counters
                .failed_commits
                .fetch_add(batch.len() as u64, Ordering::Relaxed);
            let message = e.to_string();
            for pending in batch.drain(..) {
                let _ = pending.done.send(Err(StoreError::Io(message.clone())));
            }
        }
    }
}

/// Why a whole batch failed.
#[derive(Debug, thiserror::Error)]
enum BatchError {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("the transaction was rolled back by SQLite before it could commit")]
    TransactionLost,
}

/// BEGIN, one savepoint per commit, COMMIT. Pushes one outcome per commit into `outcomes`; those
/// outcomes only count if this returns `Ok` (the transaction committed).
fn write_in_transaction(
    conn: &mut Connection,
    batch: &[Pending],
    outcomes: &mut Vec<Result<(), StoreError>>,
) -> Result<(), BatchError> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    for pending in batch {
        // Outside a transaction SAVEPOINT would silently open a new one: make sure SQLite has
        // not dropped ours behind our back.
        if conn.is_autocommit() {
            return Err(BatchError::TransactionLost);
        }
        conn.prepare_cached("SAVEPOINT one_commit")?.execute([])?;
        let written = pending
            .commits
            .iter()
            .try_for_each(|commit| write_one(conn, commit).map_err(|e| (commit, e)));
        let outcome = match written {
            Ok(()) => {
                conn.prepare_cached("RELEASE one_commit")?.execute([])?;
                Ok(())
            }
            Err((_, CommitFailure::WholeBatch(e))) => return Err(e.into()),
            Err((commit, CommitFailure::Conflict { expected, got })) => {
                undo_savepoint(conn)?;
                Err(StoreError::Conflict {
                    game_id: commit.game_id.clone(),
                    expected,
                    got,
                })
            }
            Err((_, CommitFailure::ThisCommit(e))) => {
                undo_savepoint(conn)?;
                Err(StoreError::Io(e.to_string()))
            }
        };
        outcomes.push(outcome);
    }
    if conn.is_autocommit() {
        return Err(BatchError::TransactionLost);
    }
    conn.execute_batch("COMMIT")?;
    Ok(())
}

/// Undoes the current commit only. If SQLite had already rolled back the whole transaction the
/// savepoint no longer exists, this fails, and so does the batch.
fn undo_savepoint(conn: &Connection) -> Result<(), rusqlite::Error> {
    conn.execute_batch("ROLLBACK TO one_commit; RELEASE one_commit")
}

/// Checks the sequence, appends the events, rewrites the listing row.
fn write_one(conn: &Connection, commit: &Commit) -> Result<(), CommitFailure> {
    let classify = |e: rusqlite::Error| {
        if is_storage_failure(&e) {
            CommitFailure::WholeBatch(e)
        } else {
            CommitFailure::ThisCommit(e)
        }
    };
    let stored: u64 = {
        let mut last = conn.prepare_cached(LAST_SEQ).map_err(classify)?;
        let mut rows = last.query([&commit.game_id]).map_err(classify)?;
        match rows.next().map_err(classify)? {
            // Sequences are contiguous from 0 (enforced here), so last + 1 is the count.
            Some(row) => {
                let seq: i64 = row.get(0).map_err(classify)?;
                u64::try_from(seq).map_or(0, |s| s + 1)
            }
            None => 0,
        }
    };
    if commit.first_seq != stored {
        return Err(CommitFailure::Conflict {
            expected: stored,
            got: commit.first_seq,
        });
    }
    {
        let mut insert = conn
            .prepare_cached("INSERT INTO events (game_id, seq, payload) VALUES (?1, ?2, ?3)")
            .map_err(classify)?;
        for (i, payload) in commit.events.iter().enumerate() {
            // stored < 2^63 because it came from an i64 column; the sum cannot overflow i64 in
            // practice, but a wrong value must fail this commit, not wrap.
            let seq = i64::try_from(stored + i as u64)
                .map_err(|e| classify(rusqlite::Error::ToSqlConversionFailure(Box::new(e))))?;
            insert
                .execute(params![commit.game_id, seq, payload])
                .map_err(classify)?;
        }
    }
    let listing = &commit.listing;
    conn.prepare_cached(
        "INSERT INTO games (id, status, created_ms, updated_ms, summary, listed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_ms = excluded.created_ms,
             updated_ms = excluded.updated_ms, summary = excluded.summary,
             listed = excluded.listed",
    )
    .map_err(classify)?
    .execute(params![
        commit.game_id,
        listing.status.as_str(),
        listing.created_ms,
        listing.updated_ms,
        listing.summary,
        listing.listed
    ])
    .map_err(classify)?;
    Ok(())
}
