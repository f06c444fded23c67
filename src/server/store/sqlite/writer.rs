//! The group-commit writer: one thread owns the only write connection, takes commits (and the
//! other writes: new users, sessions created, touched or deleted, chat, settings, arenas, puzzle
//! imports and rounds) from a channel, and writes every commit pending at that moment (up to a
//! bound) in ONE transaction, so a single fsync makes a whole batch durable. Only after that transaction commits does it complete
//! the callers' futures; a commit is never acknowledged before it is on disk.
//!
//! Within a batch each caller's unit (one commit, or the several of a `commit_all`) stands or
//! fails alone: a unit with a commit whose `first_seq` does not match (or that fails for a
//! reason local to it) stores nothing, and the rest of the batch goes on. A storage failure
//! (disk full, I/O error, ...) rolls back the whole transaction and fails every commit of the
//! batch with [`StoreError::Io`]; the thread keeps running and later batches may succeed.
//!
//! Units of commits are written without a savepoint of their own: their sequence checks are
//! made first, from what the writer remembers ([`NextSeqs`]), so a conflicting unit writes
//! nothing, and a statement that then fails for one unit's data alone (which should not
//! happen: it means the memory lagged behind the disk) rolls the batch back and writes it again
//! with a savepoint per unit and the checks read from the database. Other units (accounts,
//! sessions, chat, settings) always have their savepoint. Why: at saturation the savepoint,
//! its release and the `SELECT` of the check were three of the five statements of a move's
//! commit (docs/performance.md, issue 9).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;

use rusqlite::{Connection, ErrorCode, params};
use tokio::sync::{oneshot, watch};

use super::arena::{self, ArenaWrite};
use super::checkpoint::{self, Checkpointer};
use super::explorer;
use super::moderation::{self, ModDone, ModWrite};
use super::next_seq::NextSeqs;
use super::playban;
use super::puzzle::{self, PuzzleDone, PuzzleWrite};
use super::stats::Counters;
use crate::server::domain::chat_line::NewChatLine;
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{UserId, Username};
use crate::server::store::KEPT_LINES;
use crate::server::store::{
    Commit, DeadlineChange, GameListing, RatedEnd, SESSION_IDLE_MS, SessionHash, StoreError,
    rate_end,
};

/// Upper bound on commits per transaction: keeps one batch's latency and memory bounded while
/// still amortising the fsync over hundreds of games.
pub(super) const MAX_BATCH: usize = 512;

/// The sequence check of every commit: the game's last stored `seq`.
pub(super) const LAST_SEQ: &str =
    "SELECT seq FROM events WHERE game_id = ?1 ORDER BY seq DESC LIMIT 1";

/// A unit of work waiting for the writer (stored all or none), with the channel its caller
/// awaits.
pub(super) struct Pending {
    pub(super) work: Work,
    pub(super) done: oneshot::Sender<Result<Done, StoreError>>,
}

/// What a caller asks the writer to store. Every write of the store goes through here, so there
/// is still exactly one write connection, and account writes share the commits' group fsync.
pub(super) enum Work {
    /// One commit, or the several of a `commit_all`.
    Commits(Vec<Commit>),
    CreateUser {
        username: Username,
        password_hash: String,
        at_ms: i64,
    },
    CreateSession {
        hash: SessionHash,
        user: UserId,
        at_ms: i64,
    },
    TouchSession {
        hash: SessionHash,
        at_ms: i64,
    },
    DeleteSession {
        hash: SessionHash,
    },
    /// A chat line (issue 12), with the pruning of its room.
    AppendChat(NewChatLine),
    /// A user's personal settings (issue 14), replacing what was saved.
    SetSettings {
        user: UserId,
        json: String,
        at_ms: i64,
    },
    /// An arena or a player's entry (issue 29).
    Arena(ArenaWrite),
    /// A slice of a puzzle import, or a round (issue 30).
    Puzzle(PuzzleWrite),
    /// A finished step of a lesson (issue 31); a step already recorded keeps its first time.
    LessonStep {
        user: UserId,
        lesson: String,
        step: u32,
        at_ms: i64,
    },
    /// A slice of games for the opening explorer (issue 31).
    Explorer(Vec<crate::server::store::ExplorerGame>),
    /// A report or a moderator's action (issue 32).
    Moderation(ModWrite),
    /// The account's status, sessions, password or deletion (issue 32).
    Account(super::account::AccountWrite),
    /// A block made or ended (issue 32).
    Block(super::block::BlockWrite),
    /// A finished game's playban outcomes (issue 32).
    Playban(crate::server::store::PlaybanEnd),
}

/// What a unit of work gave back once stored.
#[derive(Debug)]
pub(super) enum Done {
    Stored,
    User(UserId),
    /// The id of a stored chat line.
    ChatLine(i64),
    /// Whether an arena was new ([`ArenaWrite::Create`]).
    Arena(bool),
    Puzzle(PuzzleDone),
    /// How many of an explorer slice were new.
    Explorer(u64),
    Moderation(ModDone),
    /// Whether a block write changed a row.
    Block(bool),
    /// How many playban outcomes were new.
    Playban(u64),
}

/// A failure while writing a batch: either it concerns one unit of work (the batch goes on
/// without it, e.g. a sequence conflict or a taken username), or the transaction as a whole is
/// lost.
#[derive(Debug)]
enum CommitFailure {
    Refused(StoreError),
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
    (counters, wal): (Arc<Counters>, WalBound),
    checkpointer: Checkpointer,
    stopped: watch::Sender<bool>,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut seqs = NextSeqs::default();
    while let Ok(first) = rx.recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        write_batch(&mut conn, &mut batch, &counters, &mut seqs);
        let catch_up = counters.catch_up_wanted.swap(false, Ordering::Relaxed);
        // One stat(2) per batch (a batch costs an fsync): the bound holds after every batch.
        if wal.over_its_bound() {
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

/// The WAL file and the size it must not keep past a batch ([`super::checkpoint::Policy`]).
pub(super) struct WalBound {
    pub(super) path: std::path::PathBuf,
    pub(super) limit_bytes: u64,
}

impl WalBound {
    fn over_its_bound(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|m| m.len() > self.limit_bytes)
    }
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
fn write_batch(
    conn: &mut Connection,
    batch: &mut Vec<Pending>,
    counters: &Counters,
    seqs: &mut NextSeqs,
) {
    counters.batches.fetch_add(1, Ordering::Relaxed);
    counters
        .largest_batch
        .fetch_max(batch.len() as u64, Ordering::Relaxed);

    let mut outcomes: Vec<Result<Done, StoreError>> = Vec::with_capacity(batch.len());
    let result = write_in_transaction(conn, batch, &mut outcomes, seqs);
    match result {
        Ok(()) => {
            for (pending, outcome) in batch.drain(..).zip(outcomes) {
                // The counters are about commits; account writes are not counted.
                if matches!(pending.work, Work::Commits(_)) {
                    match &outcome {
                        Ok(_) => counters.commits_ok.fetch_add(1, Ordering::Relaxed),
                        Err(StoreError::Conflict { .. }) => {
                            counters.conflicts.fetch_add(1, Ordering::Relaxed)
                        }
                        Err(_) => counters.failed_commits.fetch_add(1, Ordering::Relaxed),
                    };
                }
                // The caller may have stopped waiting; the commit stands either way.
                let _ = pending.done.send(outcome);
            }
        }
        Err(e) => {
            // Whatever SQLite did on its own, make sure no transaction is left open. A COMMIT
            // that failed may still have reached the disk: what the writer remembers of the
            // games' logs is no longer sure.
            seqs.forget();
            if let Err(rollback) = rollback(conn) {
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
    /// A unit written without a savepoint failed on its own: the batch is to be written again
    /// with one savepoint per unit (never returned by that second pass).
    #[error("a unit failed without a savepoint to undo it alone")]
    WriteAgainGuarded,
}

/// How the units of commits of a batch are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guard {
    /// Sequence checks from memory first, then the writes, no savepoint (the usual way).
    Checked,
    /// One savepoint per unit, sequence checks read from the database (the second pass).
    Savepoint,
}

/// Ends the open transaction, if SQLite left one open.
fn rollback(conn: &Connection) -> Result<(), rusqlite::Error> {
    if conn.is_autocommit() {
        return Ok(());
    }
    conn.execute_batch("ROLLBACK")
}

/// Writes the batch in one transaction and, once it committed, remembers the games' next
/// sequence numbers. Pushes one outcome per unit into `outcomes`; those outcomes only count if
/// this returns `Ok` (the transaction committed).
fn write_in_transaction(
    conn: &mut Connection,
    batch: &[Pending],
    outcomes: &mut Vec<Result<Done, StoreError>>,
    seqs: &mut NextSeqs,
) -> Result<(), BatchError> {
    let mut staged = HashMap::new();
    match write_units(conn, batch, outcomes, Guard::Checked, seqs, &mut staged) {
        Err(BatchError::WriteAgainGuarded) => {
            rollback(conn)?;
            seqs.forget();
            outcomes.clear();
            staged.clear();
            write_units(conn, batch, outcomes, Guard::Savepoint, seqs, &mut staged)?;
        }
        other => other?,
    }
    seqs.learn(staged);
    Ok(())
}

/// BEGIN, every unit of work, COMMIT. `staged` collects the next sequence number of every game
/// a stored unit wrote.
fn write_units(
    conn: &mut Connection,
    batch: &[Pending],
    outcomes: &mut Vec<Result<Done, StoreError>>,
    guard: Guard,
    seqs: &NextSeqs,
    staged: &mut HashMap<String, u64>,
) -> Result<(), BatchError> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    for pending in batch {
        // Outside a transaction SAVEPOINT would silently open a new one, and a write would
        // commit on its own: make sure SQLite has not dropped ours behind our back.
        if conn.is_autocommit() {
            return Err(BatchError::TransactionLost);
        }
        let outcome = match (&pending.work, guard) {
            (Work::Commits(commits), Guard::Checked) => {
                match write_checked(conn, commits, seqs, staged) {
                    Ok(()) => Ok(Done::Stored),
                    Err(CommitFailure::Refused(e)) => Err(e),
                    Err(CommitFailure::WholeBatch(e)) => return Err(e.into()),
                    Err(CommitFailure::ThisCommit(e)) => {
                        tracing::warn!(error = %e, "store: a unit failed without its savepoint; writing the batch again guarded");
                        return Err(BatchError::WriteAgainGuarded);
                    }
                }
            }
            (work, _) => write_in_savepoint(conn, work, staged)?,
        };
        outcomes.push(outcome);
    }
    if conn.is_autocommit() {
        return Err(BatchError::TransactionLost);
    }
    conn.execute_batch("COMMIT")?;
    Ok(())
}

/// One unit inside its own savepoint: undone alone if it fails for a reason of its own.
fn write_in_savepoint(
    conn: &Connection,
    work: &Work,
    staged: &mut HashMap<String, u64>,
) -> Result<Result<Done, StoreError>, BatchError> {
    conn.prepare_cached("SAVEPOINT one_commit")?.execute([])?;
    Ok(match write_work(conn, work) {
        Ok(done) => {
            conn.prepare_cached("RELEASE one_commit")?.execute([])?;
            if let Work::Commits(commits) = work {
                for commit in commits {
                    staged.insert(commit.game_id.clone(), next_after(commit));
                }
            }
            Ok(done)
        }
        Err(CommitFailure::WholeBatch(e)) => return Err(e.into()),
        Err(CommitFailure::Refused(e)) => {
            undo_savepoint(conn)?;
            Err(e)
        }
        Err(CommitFailure::ThisCommit(e)) => {
            undo_savepoint(conn)?;
            Err(StoreError::Io(e.to_string()))
        }
    })
}

/// The next sequence number of a game once `commit` is stored.
fn next_after(commit: &Commit) -> u64 {
    commit.first_seq + commit.events.len() as u64
}

/// A unit of commits without a savepoint: every sequence check first (so a conflicting unit
/// writes nothing), then the writes. The number a check compares with comes from this batch,
/// then from memory, then from the database (a game this writer has not seen yet).
fn write_checked(
    conn: &Connection,
    commits: &[Commit],
    seqs: &NextSeqs,
    staged: &mut HashMap<String, u64>,
) -> Result<(), CommitFailure> {
    // The unit's own numbers: a unit may hold two commits of one game.
    let mut unit: Vec<(&str, u64)> = Vec::with_capacity(commits.len());
    for commit in commits {
        let game = commit.game_id.as_str();
        let next = match unit.iter().rev().find(|(g, _)| *g == game) {
            Some((_, next)) => *next,
            None => match staged.get(game).copied().or_else(|| seqs.get(game)) {
                Some(next) => next,
                None => stored_next_seq(conn, game)?,
            },
        };
        check_seq(commit, next)?;
        unit.push((game, next_after(commit)));
    }
    for commit in commits {
        write_rows(conn, commit)?;
    }
    for (game, next) in unit {
        staged.insert(game.to_owned(), next);
    }
    Ok(())
}

/// Undoes the current commit only. If SQLite had already rolled back the whole transaction the
/// savepoint no longer exists, this fails, and so does the batch.
fn undo_savepoint(conn: &Connection) -> Result<(), rusqlite::Error> {
    conn.execute_batch("ROLLBACK TO one_commit; RELEASE one_commit")
}

/// Whether an error of SQLite's loses the whole batch or only the unit of work at hand.
fn classify(e: rusqlite::Error) -> CommitFailure {
    if is_storage_failure(&e) {
        CommitFailure::WholeBatch(e)
    } else {
        CommitFailure::ThisCommit(e)
    }
}

/// Writes one unit of work inside the current savepoint.
fn write_work(conn: &Connection, work: &Work) -> Result<Done, CommitFailure> {
    match work {
        Work::Commits(commits) => {
            for commit in commits {
                write_one(conn, commit)?;
            }
            Ok(Done::Stored)
        }
        Work::CreateUser {
            username,
            password_hash,
            at_ms,
        } => create_user(conn, username, password_hash, *at_ms).map(Done::User),
        Work::CreateSession { hash, user, at_ms } => {
            // The user's expired sessions go with it: no sweeper needed, and a user's table of
            // sessions stays as small as the devices they use.
            conn.prepare_cached("DELETE FROM sessions WHERE user_id = ?1 AND last_seen_ms < ?2")
                .and_then(|mut s| s.execute(params![user.0, at_ms.saturating_sub(SESSION_IDLE_MS)]))
                .map_err(classify)?;
            conn.prepare_cached(
                "INSERT INTO sessions (id_hash, user_id, created_ms, last_seen_ms)
                 VALUES (?1, ?2, ?3, ?3)",
            )
            .and_then(|mut s| s.execute(params![&hash[..], user.0, at_ms]))
            .map_err(classify)?;
            Ok(Done::Stored)
        }
        Work::TouchSession { hash, at_ms } => {
            conn.prepare_cached(
                "UPDATE sessions SET last_seen_ms = MAX(last_seen_ms, ?2) WHERE id_hash = ?1",
            )
            .and_then(|mut s| s.execute(params![&hash[..], at_ms]))
            .map_err(classify)?;
            Ok(Done::Stored)
        }
        Work::DeleteSession { hash } => {
            conn.prepare_cached("DELETE FROM sessions WHERE id_hash = ?1")
                .and_then(|mut s| s.execute(params![&hash[..]]))
                .map_err(classify)?;
            Ok(Done::Stored)
        }
        Work::AppendChat(line) => append_chat(conn, line).map(Done::ChatLine),
        Work::SetSettings { user, json, at_ms } => {
            conn.prepare_cached(
                "INSERT INTO account_settings (user_id, settings, updated_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (user_id) DO UPDATE SET settings = excluded.settings,
                     updated_ms = excluded.updated_ms",
            )
            .and_then(|mut s| s.execute(params![user.0, json, at_ms]))
            .map_err(classify)?;
            Ok(Done::Stored)
        }
        Work::Arena(write) => arena::write(conn, write).map(Done::Arena).map_err(classify),
        Work::LessonStep {
            user,
            lesson,
            step,
            at_ms,
        } => {
            conn.prepare_cached(
                "INSERT INTO lesson_steps (user_id, lesson, step, done_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (user_id, lesson, step) DO NOTHING",
            )
            .and_then(|mut s| s.execute(params![user.0, lesson, step, at_ms]))
            .map_err(classify)?;
            Ok(Done::Stored)
        }
        Work::Puzzle(write) => match puzzle::write(conn, write).map_err(classify)? {
            Ok(done) => Ok(Done::Puzzle(done)),
            Err(refused) => Err(CommitFailure::Refused(refused)),
        },
        Work::Account(write) => super::account::write(conn, write)
            .map(|()| Done::Stored)
            .map_err(classify),
        Work::Explorer(games) => {
            let mut added = 0;
            for game in games {
                added += u64::from(explorer::add(conn, game).map_err(classify)?);
            }
            Ok(Done::Explorer(added))
        }
        Work::Moderation(write) => moderation::write(conn, write)
            .map(Done::Moderation)
            .map_err(classify),
        Work::Block(write) => super::block::write(conn, *write)
            .map(Done::Block)
            .map_err(classify),
        Work::Playban(end) => playban::add(conn, end).map(Done::Playban).map_err(classify),
    }
}

/// Inserts a chat line and deletes its room's lines older than the last [`KEPT_LINES`] (one
/// index range: `chat_lines_by_room` is (game_id, room, id); `IS` matches the lobby's NULL).
fn append_chat(conn: &Connection, line: &NewChatLine) -> Result<i64, CommitFailure> {
    conn.prepare_cached(
        "INSERT INTO chat_lines (game_id, room, at_ms, user_id, author, text)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .and_then(|mut s| {
        s.execute(params![
            line.game_id,
            line.room.as_str(),
            line.at_ms,
            line.user_id.map(|u| u.0),
            line.author,
            line.text.as_str(),
        ])
    })
    .map_err(classify)?;
    let id = conn.last_insert_rowid();
    conn.prepare_cached(
        "DELETE FROM chat_lines WHERE game_id IS ?1 AND room = ?2 AND id <= (
             SELECT id FROM chat_lines WHERE game_id IS ?1 AND room = ?2
             ORDER BY id DESC LIMIT 1 OFFSET ?3)",
    )
    .and_then(|mut s| s.execute(params![line.game_id, line.room.as_str(), KEPT_LINES]))
    .map_err(classify)?;
    Ok(id)
}

/// Inserts a user unless the name is taken in any case. The writer is the only writer, so the
/// check and the insert cannot race; the UNIQUE constraint is the backstop.
fn create_user(
    conn: &Connection,
    username: &Username,
    password_hash: &str,
    at_ms: i64,
) -> Result<UserId, CommitFailure> {
    let key = username.key();
    let taken = conn
        .prepare_cached("SELECT 1 FROM users WHERE username_key = ?1")
        .and_then(|mut s| s.exists([&key]))
        .map_err(classify)?;
    if taken {
        return Err(CommitFailure::Refused(StoreError::UsernameTaken));
    }
    conn.prepare_cached(
        "INSERT INTO users (username, username_key, password_hash, created_ms)
         VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![username.as_str(), key, password_hash, at_ms]))
    .map_err(classify)?;
    Ok(UserId(conn.last_insert_rowid()))
}

/// A user's rating for a speed as stored, or [`Rating::INITIAL`].
fn stored_rating(conn: &Connection, user: UserId, speed: &str) -> Result<Rating, rusqlite::Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT rating, deviation, volatility, games FROM ratings WHERE user_id = ?1 AND speed = ?2",
    )?;
    let mut rows = stmt.query(params![user.0, speed])?;
    match rows.next()? {
        Some(row) => Ok(Rating {
            rating: row.get(0)?,
            deviation: row.get(1)?,
            volatility: row.get(2)?,
            games: u32::try_from(row.get::<_, i64>(3)?).unwrap_or(u32::MAX),
        }),
        None => Ok(Rating::INITIAL),
    }
}

fn store_rating(
    conn: &Connection,
    user: UserId,
    speed: &str,
    r: &Rating,
) -> Result<(), rusqlite::Error> {
    conn.prepare_cached(
        "INSERT INTO ratings (user_id, speed, rating, deviation, volatility, games)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (user_id, speed) DO UPDATE SET rating = excluded.rating,
             deviation = excluded.deviation, volatility = excluded.volatility,
             games = excluded.games",
    )?
    .execute(params![
        user.0,
        speed,
        r.rating,
        r.deviation,
        r.volatility,
        i64::from(r.games)
    ])?;
    Ok(())
}

/// Rates the game a commit ends, inside that commit's savepoint (see [`RatedEnd`]). A game
/// already in `rated_games` is left as it is.
fn rate_game(conn: &Connection, commit: &Commit, end: &RatedEnd) -> Result<(), CommitFailure> {
    let rated = conn
        .prepare_cached("SELECT 1 FROM rated_games WHERE game_id = ?1")
        .and_then(|mut s| s.exists([&commit.game_id]))
        .map_err(classify)?;
    // A marked player's games change no rating (issue 32): the end is stored unrated.
    if rated || moderation::either_marked(conn, end.white, end.black).map_err(classify)? {
        return Ok(());
    }
    let speed = end.speed.as_str();
    let white_before = stored_rating(conn, end.white, speed).map_err(classify)?;
    let black_before = stored_rating(conn, end.black, speed).map_err(classify)?;
    let (white_after, black_after) = rate_end(end, white_before, black_before);
    store_rating(conn, end.white, speed, &white_after).map_err(classify)?;
    store_rating(conn, end.black, speed, &black_after).map_err(classify)?;
    let mut values: Vec<rusqlite::types::Value> = vec![
        commit.game_id.clone().into(),
        speed.to_owned().into(),
        commit.listing.updated_ms.into(),
        end.white.0.into(),
        end.black.0.into(),
        end.score_white.into(),
    ];
    for r in [white_before, white_after, black_before, black_after] {
        values.extend([
            r.rating.into(),
            r.deviation.into(),
            r.volatility.into(),
            i64::from(r.games).into(),
        ]);
    }
    conn.prepare_cached(RATED_GAME_INSERT)
        .and_then(|mut s| s.execute(rusqlite::params_from_iter(values)))
        .map_err(classify)?;
    Ok(())
}

const RATED_GAME_INSERT: &str = "INSERT INTO rated_games (game_id, speed, ended_ms, white_user,
    black_user, score_white,
    white_before_rating, white_before_deviation, white_before_volatility, white_before_games,
    white_after_rating, white_after_deviation, white_after_volatility, white_after_games,
    black_before_rating, black_before_deviation, black_before_volatility, black_before_games,
    black_after_rating, black_after_deviation, black_after_volatility, black_after_games)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
        ?19, ?20, ?21, ?22)";

/// Checks the sequence against the database, then writes the commit (the guarded way).
fn write_one(conn: &Connection, commit: &Commit) -> Result<(), CommitFailure> {
    let stored = stored_next_seq(conn, &commit.game_id)?;
    check_seq(commit, stored)?;
    write_rows(conn, commit)
}

/// The number of events stored for `game` (sequences are contiguous from 0, enforced by the
/// checks, so the last one + 1), as this transaction sees it.
fn stored_next_seq(conn: &Connection, game: &str) -> Result<u64, CommitFailure> {
    let mut last = conn.prepare_cached(LAST_SEQ).map_err(classify)?;
    let mut rows = last.query([game]).map_err(classify)?;
    match rows.next().map_err(classify)? {
        Some(row) => {
            let seq: i64 = row.get(0).map_err(classify)?;
            Ok(u64::try_from(seq).map_or(0, |s| s + 1))
        }
        None => Ok(0),
    }
}

/// A commit is stored only as the continuation of its game's log.
fn check_seq(commit: &Commit, next: u64) -> Result<(), CommitFailure> {
    if commit.first_seq == next {
        return Ok(());
    }
    Err(CommitFailure::Refused(StoreError::Conflict {
        game_id: commit.game_id.clone(),
        expected: next,
        got: commit.first_seq,
    }))
}

/// Appends the events at `first_seq` on (checked by the caller), rewrites the listing row,
/// rates a rated end, applies the deadline change.
fn write_rows(conn: &Connection, commit: &Commit) -> Result<(), CommitFailure> {
    {
        let mut insert = conn
            .prepare_cached("INSERT INTO events (game_id, seq, payload) VALUES (?1, ?2, ?3)")
            .map_err(classify)?;
        for (i, payload) in commit.events.iter().enumerate() {
            // The first seq came from an i64 column; the sum cannot overflow i64 in practice,
            // but a wrong value must fail this commit, not wrap.
            let seq = i64::try_from(commit.first_seq + i as u64)
                .map_err(|e| classify(rusqlite::Error::ToSqlConversionFailure(Box::new(e))))?;
            insert
                .execute(params![commit.game_id, seq, payload])
                .map_err(classify)?;
        }
    }
    write_listing(conn, &commit.game_id, &commit.listing)?;
    if let Some(game) = &commit.explorer {
        explorer::add(conn, game).map_err(classify)?;
    }
    if let Some(end) = &commit.playban {
        playban::add(conn, end).map_err(classify)?;
    }
    if let Some(end) = &commit.rating {
        rate_game(conn, commit, end)?;
    }
    write_deadline(conn, &commit.game_id, commit.deadline)?;
    Ok(())
}

/// The bucket of `updated_ms` the games' indexes hold (schema version 6, see `SCHEMA_V6`): the
/// minute, so that a game's index entries move at most once a minute, not at every sub-move.
/// The migration computes the same value in SQL (`updated_ms / 60000`, truncating as `/` does
/// here). A minute: at a human pace (a sub-move every few seconds) one commit in ten or more
/// moves an entry, and a lobby read sorts at most the games active in the newest minutes.
pub(super) fn active_minute(updated_ms: i64) -> i64 {
    updated_ms / ACTIVE_MINUTE_MS
}

const ACTIVE_MINUTE_MS: i64 = 60_000;

/// Rewrites the game's listing row, or inserts it with the game's first commit, in up to three
/// statements that each leave the indexes alone unless they must change:
/// 1. the common case, a sub-move: the same status, `listed`, accounts and minute; only the
///    row's unindexed columns are assigned, so SQLite rewrites the row and no index entry (an
///    `UPDATE` that assigns an indexed column rewrites that index's entry even to the same
///    value);
/// 2. anything else about an existing game: every column;
/// 3. a game's first commit: the insert (the only one that writes `arena`, which never
///    changes).
///
/// Not an upsert: SQLite's upsert tries the insert (a probe of the primary key), fails it, then
/// updates through `excluded`; it cost about 9 % of the server's CPU per sub-move more than the
/// update. Measured at saturation (docs/performance.md, issue 9).
fn write_listing(
    conn: &Connection,
    game_id: &str,
    listing: &GameListing,
) -> Result<(), CommitFailure> {
    let white = listing.white_user.map(|u| u.0);
    let black = listing.black_user.map(|u| u.0);
    // The same numbered parameters in all three statements.
    let row = params![
        game_id,
        listing.status.as_str(),
        listing.created_ms,
        listing.updated_ms,
        listing.summary,
        listing.listed,
        white,
        black,
        active_minute(listing.updated_ms),
        listing.arena,
    ];
    let statements = [
        "UPDATE games SET created_ms = ?3, updated_ms = ?4, summary = ?5
         WHERE id = ?1 AND status = ?2 AND listed = ?6 AND white_user IS ?7
             AND black_user IS ?8 AND active_minute = ?9 AND arena IS ?10",
        "UPDATE games SET status = ?2, created_ms = ?3, updated_ms = ?4, summary = ?5,
             listed = ?6, white_user = ?7, black_user = ?8, active_minute = ?9, arena = ?10
         WHERE id = ?1",
        "INSERT INTO games (id, status, created_ms, updated_ms, summary, listed, white_user,
             black_user, active_minute, arena)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    ];
    for sql in statements {
        let written = conn
            .prepare_cached(sql)
            .and_then(|mut s| s.execute(row))
            .map_err(classify)?;
        if written > 0 {
            return Ok(());
        }
    }
    Err(CommitFailure::Refused(StoreError::Io(format!(
        "game {game_id}: its listing row was neither updated nor inserted"
    ))))
}

/// Applies a commit's [`DeadlineChange`] to the turn-deadline index, in the commit's own
/// transaction (savepoint). `Unchanged`, every live game's commit, runs no statement at all.
fn write_deadline(
    conn: &Connection,
    game_id: &str,
    change: DeadlineChange,
) -> Result<(), CommitFailure> {
    match change {
        DeadlineChange::Unchanged => Ok(()),
        DeadlineChange::Set(deadline_ms) => conn
            .prepare_cached(
                "INSERT INTO turn_deadlines (game_id, deadline_ms) VALUES (?1, ?2)
                 ON CONFLICT (game_id) DO UPDATE SET deadline_ms = excluded.deadline_ms",
            )
            .and_then(|mut s| s.execute(params![game_id, deadline_ms]))
            .map(|_| ())
            .map_err(classify),
        DeadlineChange::Cleared => conn
            .prepare_cached("DELETE FROM turn_deadlines WHERE game_id = ?1")
            .and_then(|mut s| s.execute([game_id]))
            .map(|_| ())
            .map_err(classify),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store::GameStatus;

    fn listing(id: &str, updated_ms: i64) -> GameListing {
        GameListing {
            id: id.to_owned(),
            status: GameStatus::Playing,
            created_ms: 0,
            updated_ms,
            summary: format!(r#"{{"id":"{id}","updated_ms":{updated_ms}}}"#),
            listed: true,
            white_user: Some(UserId(1)),
            black_user: Some(UserId(2)),
            arena: None,
        }
    }

    /// The store's write connection on a new database in `dir` (WAL, no automatic checkpoints,
    /// the current schema).
    fn writer_in(dir: &std::path::Path) -> Connection {
        super::super::connect::open_writer(
            &dir.join(super::super::connect::DB_FILE_NAME),
            super::super::connect::SqliteOptions::default(),
        )
        .expect("writer")
    }

    /// The migration to schema v6 computes `active_minute` in SQL; the writer computes it in
    /// Rust. They must agree, or the rows written before the upgrade would sort apart from the
    /// rows written after it.
    #[test]
    fn the_migration_and_the_writer_put_a_millisecond_in_the_same_minute() {
        let conn = Connection::open_in_memory().expect("memory db");
        let before_v6: String = super::super::schema::MIGRATIONS[..5].concat();
        conn.execute_batch(&before_v6).expect("schema v5");
        let samples = [0, 1, 59_999, 60_000, 60_001, 1_796_328_921_310, i64::MAX];
        for (i, updated_ms) in samples.into_iter().enumerate() {
            conn.execute(
                "INSERT INTO games (id, status, created_ms, updated_ms, summary)
                 VALUES (?1, 'playing', 0, ?2, '{}')",
                params![format!("g{i}"), updated_ms],
            )
            .expect("a v5 row");
        }
        conn.execute_batch(super::super::schema::MIGRATIONS[5])
            .expect("migration to v6");
        for (i, updated_ms) in samples.into_iter().enumerate() {
            let minute: i64 = conn
                .query_row(
                    "SELECT active_minute FROM games WHERE id = ?1",
                    [format!("g{i}")],
                    |row| row.get(0),
                )
                .expect("migrated row");
            assert_eq!(minute, active_minute(updated_ms), "updated_ms {updated_ms}");
        }
    }

    /// Writes `game`'s listing in a transaction of its own and says how many pages it wrote:
    /// the WAL's frames, counted from an emptied WAL.
    fn pages_written(conn: &Connection, game: &GameListing) -> i64 {
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .expect("empty the WAL");
        conn.execute_batch("BEGIN IMMEDIATE").expect("begin");
        write_listing(conn, &game.id, game).expect("write");
        conn.execute_batch("COMMIT").expect("commit");
        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| row.get(1))
            .expect("frames")
    }

    #[test]
    fn a_sub_move_in_the_same_minute_rewrites_the_listing_row_and_no_index_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let conn = writer_in(dir.path());
        let minute = 29_500_000 * ACTIVE_MINUTE_MS;
        // Enough games that the table and each index have pages of their own.
        for i in 0..200 {
            let game = listing(&format!("g{i:03}"), minute + i);
            write_listing(&conn, &game.id, &game).expect("insert");
        }
        let later_in_the_minute = listing("g100", minute + ACTIVE_MINUTE_MS - 1);
        assert_eq!(
            pages_written(&conn, &later_in_the_minute),
            1,
            "the row's page alone"
        );
        // The next minute moves the game's entries in the lobby's index and both accounts'.
        let next_minute = listing("g100", minute + ACTIVE_MINUTE_MS);
        assert!(pages_written(&conn, &next_minute) > 1);
        let stored: (i64, i64) = conn
            .query_row(
                "SELECT updated_ms, active_minute FROM games WHERE id = 'g100'",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .expect("row");
        assert_eq!(
            stored,
            (
                next_minute.updated_ms,
                active_minute(next_minute.updated_ms)
            )
        );
    }

    #[test]
    fn a_listing_whose_status_listed_or_seats_change_is_rewritten_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let conn = writer_in(dir.path());
        let mut game = listing("g", 1_000);
        game.status = GameStatus::Open;
        game.black_user = None;
        write_listing(&conn, &game.id, &game).expect("insert");
        game.status = GameStatus::Playing;
        game.black_user = Some(UserId(2));
        game.listed = false;
        game.updated_ms = 1_001;
        write_listing(&conn, &game.id, &game).expect("update");
        let stored: (String, bool, Option<i64>, i64, String) = conn
            .query_row(
                "SELECT status, listed, black_user, updated_ms, summary FROM games WHERE id = 'g'",
                [],
                |row| {
                    Ok((
                        row.get(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                    ))
                },
            )
            .expect("row");
        assert_eq!(
            stored,
            (
                "playing".to_owned(),
                false,
                Some(2),
                1_001,
                game.summary.clone()
            )
        );
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM games", [], |row| row.get(0))
            .expect("count");
        assert_eq!(rows, 1);
    }
}
