//! The PostgreSQL writer: one task takes every write of the store from a channel and writes all
//! the work pending at that moment (up to [`MAX_BATCH`]) in ONE transaction, so one WAL flush
//! (`COMMIT`) makes the whole batch durable, as the SQLite writer's one fsync does. Only after
//! `COMMIT` returned does it complete the callers' futures.
//!
//! Why a batch with a savepoint per unit, and not one transaction per commit on a pool of
//! connections: each transaction pays a WAL flush (an fsync on the server) that dominates a
//! commit's cost, and the pool would also lose the call order of one game's commits (a room
//! pipelines them). A savepoint per unit keeps the SQLite store's promise that one conflicting
//! commit fails alone, and one task keeps the order. The figures are in docs/performance.md.
//!
//! Runs of plain commits (the hot path: moves) do not pay a savepoint and five round trips each:
//! [`super::pipeline`] checks their sequences in one query and writes them with a few set-based
//! statements sent pipelined, so a run costs two round trips whatever its length. Other units
//! (account, session, chat and settings writes, a rated end) keep the one savepoint each below.
//!
//! A failure that is not the unit's own (the connection lost, Postgres unreachable or shutting
//! down) rolls the whole batch back and fails every unit in it with [`StoreError::Io`]; the
//! connection is then discarded and the next batch takes a fresh one from the pool, so the store
//! works again as soon as Postgres is back.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use deadpool_postgres::{Object, Pool};
use tokio::sync::{mpsc, watch};
use tokio_postgres::error::SqlState;

use super::error::{pg_error, pg_message};
use super::pipeline::{self, RunOutcome};
use super::unit::{Done, Pending, UnitFailure, Work, classify, fence_holds};
use crate::server::domain::chat_line::NewChatLine;
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{UserId, Username};
use crate::server::store::KEPT_LINES;
use crate::server::store::{
    Commit, DeadlineChange, Fence, RatedEnd, SESSION_IDLE_MS, StoreError, rate_end,
};

/// Upper bound on units of work per transaction, as in the SQLite writer.
pub(super) const MAX_BATCH: usize = 512;

/// The writer's counters (what [`super::PostgresStore::stats`] reports).
#[derive(Default)]
pub(super) struct Counters {
    commits_ok: AtomicU64,
    conflicts: AtomicU64,
    fenced: AtomicU64,
    failed_commits: AtomicU64,
    batches: AtomicU64,
    failed_batches: AtomicU64,
    largest_batch: AtomicU64,
}

/// A snapshot of the PostgreSQL writer's counters, since the store was opened. Only commits
/// (`commit`, `commit_all`) are counted, not account or chat writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PostgresStats {
    /// Commit units acknowledged.
    pub commits: u64,
    /// Commit units refused for their `first_seq`.
    pub conflicts: u64,
    /// Commit units refused because their fence no longer held the game's lease (issue 13).
    pub fenced: u64,
    /// Commit units failed for any other reason (Postgres unreachable, ...).
    pub failed_commits: u64,
    /// Transactions the writer ran (or tried).
    pub batches: u64,
    /// Transactions that failed whole.
    pub failed_batches: u64,
    /// The most units of work one transaction carried.
    pub largest_batch: u64,
}

impl Counters {
    pub(super) fn snapshot(&self) -> PostgresStats {
        PostgresStats {
            commits: self.commits_ok.load(Ordering::Relaxed),
            conflicts: self.conflicts.load(Ordering::Relaxed),
            fenced: self.fenced.load(Ordering::Relaxed),
            failed_commits: self.failed_commits.load(Ordering::Relaxed),
            batches: self.batches.load(Ordering::Relaxed),
            failed_batches: self.failed_batches.load(Ordering::Relaxed),
            largest_batch: self.largest_batch.load(Ordering::Relaxed),
        }
    }

    /// Counts one unit's outcome (commits only).
    fn count(&self, work: &Work, outcome: &Result<Done, StoreError>) {
        if !matches!(work, Work::Commits(_)) {
            return;
        }
        let counter = match outcome {
            Ok(_) => &self.commits_ok,
            Err(StoreError::Conflict { .. }) => &self.conflicts,
            Err(StoreError::Fenced { .. }) => &self.fenced,
            Err(_) => &self.failed_commits,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs until every sender is gone, writing what was queued, then signals `stopped`.
pub(super) async fn run(
    pool: Pool,
    mut rx: mpsc::UnboundedReceiver<Pending>,
    counters: Arc<Counters>,
    stopped: watch::Sender<bool>,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        write_batch(&pool, &mut batch, &counters).await;
    }
    stopped.send_replace(true);
}

/// Writes one batch in one transaction and completes every unit's future. Empties `batch`.
async fn write_batch(pool: &Pool, batch: &mut Vec<Pending>, counters: &Counters) {
    counters.batches.fetch_add(1, Ordering::Relaxed);
    counters
        .largest_batch
        .fetch_max(batch.len() as u64, Ordering::Relaxed);
    let client = match pool.get().await {
        Ok(client) => client,
        Err(e) => {
            let message = format!("PostgreSQL is unreachable: {e}");
            tracing::error!(error = %message, units = batch.len(), "store: batch failed, nothing acknowledged");
            fail_all(batch, &message, counters);
            return;
        }
    };
    let mut outcomes = Vec::with_capacity(batch.len());
    match write_in_transaction(&client, batch, &mut outcomes).await {
        Ok(()) => {
            for (pending, outcome) in batch.drain(..).zip(outcomes) {
                counters.count(&pending.work, &outcome);
                // The caller may have stopped waiting; the unit stands either way.
                let _ = pending.done.send(outcome);
            }
        }
        Err(e) => {
            // Whether or not the connection survived, it is not trusted again: a fresh one
            // comes from the pool for the next batch.
            let _ = client.batch_execute("ROLLBACK").await;
            drop(Object::take(client));
            let message = pg_message(&e);
            tracing::error!(error = %message, units = batch.len(), "store: batch failed, nothing acknowledged");
            fail_all(batch, &message, counters);
        }
    }
}

/// Fails every unit of a batch that could not be written.
fn fail_all(batch: &mut Vec<Pending>, message: &str, counters: &Counters) {
    counters.failed_batches.fetch_add(1, Ordering::Relaxed);
    for pending in batch.drain(..) {
        let outcome = Err(StoreError::Io(message.to_owned()));
        counters.count(&pending.work, &outcome);
        let _ = pending.done.send(outcome);
    }
}

/// BEGIN, the units, COMMIT. Runs of plain commits take the pipelined fast path
/// ([`super::pipeline`]); the other units (and a run Postgres refused a statement of) are written
/// one savepoint each. The outcomes only count if this returns `Ok`.
async fn write_in_transaction(
    client: &Object,
    batch: &[Pending],
    outcomes: &mut Vec<Result<Done, StoreError>>,
) -> Result<(), tokio_postgres::Error> {
    client.batch_execute("BEGIN").await?;
    let mut rest = batch;
    while !rest.is_empty() {
        let run = rest
            .iter()
            .take_while(|p| pipeline::pipelinable(&p.work))
            .count();
        if run == 0 {
            outcomes.push(write_with_savepoint(client, &rest[0]).await?);
            rest = &rest[1..];
            continue;
        }
        match pipeline::write_run(client, &rest[..run]).await? {
            RunOutcome::Written(run_outcomes) => outcomes.extend(run_outcomes),
            RunOutcome::WriteCarefully => {
                for pending in &rest[..run] {
                    outcomes.push(write_with_savepoint(client, pending).await?);
                }
            }
        }
        rest = &rest[run..];
    }
    client.batch_execute("COMMIT").await?;
    Ok(())
}

/// Writes one unit inside its own savepoint, so that its failure leaves the others standing.
async fn write_with_savepoint(
    client: &Object,
    pending: &Pending,
) -> Result<Result<Done, StoreError>, tokio_postgres::Error> {
    client.batch_execute("SAVEPOINT one_unit").await?;
    match write_work(client, &pending.work).await {
        Ok(done) => {
            client.batch_execute("RELEASE one_unit").await?;
            Ok(Ok(done))
        }
        Err(UnitFailure::WholeBatch(e)) => Err(e),
        Err(UnitFailure::Refused(e)) => {
            client
                .batch_execute("ROLLBACK TO one_unit; RELEASE one_unit")
                .await?;
            Ok(Err(e))
        }
        Err(UnitFailure::ThisUnit(e)) => {
            client
                .batch_execute("ROLLBACK TO one_unit; RELEASE one_unit")
                .await?;
            Ok(Err(pg_error(e)))
        }
    }
}

async fn write_work(client: &Object, work: &Work) -> Result<Done, UnitFailure> {
    match work {
        Work::Commits(commits) => {
            for commit in commits {
                write_one(client, commit).await?;
            }
            Ok(Done::Stored)
        }
        Work::CreateUser {
            username,
            password_hash,
            at_ms,
        } => create_user(client, username, password_hash, *at_ms)
            .await
            .map(Done::User),
        Work::CreateSession { hash, user, at_ms } => {
            // The user's expired sessions go with it, as in SQLite.
            execute(
                client,
                "DELETE FROM sessions WHERE user_id = $1 AND last_seen_ms < $2",
                &[&user.0, &at_ms.saturating_sub(SESSION_IDLE_MS)],
            )
            .await?;
            execute(
                client,
                "INSERT INTO sessions (id_hash, user_id, created_ms, last_seen_ms)
                 VALUES ($1, $2, $3, $3)",
                &[&&hash[..], &user.0, at_ms],
            )
            .await?;
            Ok(Done::Stored)
        }
        Work::TouchSession { hash, at_ms } => {
            execute(
                client,
                "UPDATE sessions SET last_seen_ms = GREATEST(last_seen_ms, $2) WHERE id_hash = $1",
                &[&&hash[..], at_ms],
            )
            .await?;
            Ok(Done::Stored)
        }
        Work::DeleteSession { hash } => {
            execute(
                client,
                "DELETE FROM sessions WHERE id_hash = $1",
                &[&&hash[..]],
            )
            .await?;
            Ok(Done::Stored)
        }
        Work::AppendChat(line) => append_chat(client, line).await.map(Done::ChatLine),
        Work::SetSettings { user, json, at_ms } => {
            execute(
                client,
                "INSERT INTO account_settings (user_id, settings, updated_ms) VALUES ($1, $2, $3)
                 ON CONFLICT (user_id) DO UPDATE SET settings = excluded.settings,
                     updated_ms = excluded.updated_ms",
                &[&user.0, json, at_ms],
            )
            .await?;
            Ok(Done::Stored)
        }
    }
}

/// Runs one statement from the connection's statement cache.
async fn execute(
    client: &Object,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<u64, UnitFailure> {
    let statement = client.prepare_cached(sql).await.map_err(classify)?;
    client.execute(&statement, params).await.map_err(classify)
}

async fn query_opt(
    client: &Object,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Option<tokio_postgres::Row>, UnitFailure> {
    let statement = client.prepare_cached(sql).await.map_err(classify)?;
    client.query_opt(&statement, params).await.map_err(classify)
}

fn get<'a, T: tokio_postgres::types::FromSql<'a>>(
    row: &'a tokio_postgres::Row,
    index: usize,
) -> Result<T, UnitFailure> {
    row.try_get(index).map_err(UnitFailure::ThisUnit)
}

/// Inserts a chat line, then deletes its room's lines older than the last [`KEPT_LINES`]. The
/// lobby (`game_id` NULL) has statements of its own so both use an index.
async fn append_chat(client: &Object, line: &NewChatLine) -> Result<i64, UnitFailure> {
    let user = line.user_id.map(|u| u.0);
    let row = query_opt(
        client,
        "INSERT INTO chat_lines (game_id, room, at_ms, user_id, author, text)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        &[
            &line.game_id,
            &line.room.as_str(),
            &line.at_ms,
            &user,
            &line.author,
            &line.text.as_str(),
        ],
    )
    .await?;
    let id: i64 = match row {
        Some(row) => get(&row, 0)?,
        None => {
            return Err(UnitFailure::Refused(StoreError::Io(
                "the chat line insert returned no id".to_owned(),
            )));
        }
    };
    let kept = i64::from(KEPT_LINES);
    match &line.game_id {
        Some(game) => {
            execute(
                client,
                "DELETE FROM chat_lines WHERE game_id = $1 AND room = $2 AND id <= (
                     SELECT id FROM chat_lines WHERE game_id = $1 AND room = $2
                     ORDER BY id DESC LIMIT 1 OFFSET $3)",
                &[game, &line.room.as_str(), &kept],
            )
            .await?
        }
        None => {
            execute(
                client,
                "DELETE FROM chat_lines WHERE game_id IS NULL AND room = $1 AND id <= (
                     SELECT id FROM chat_lines WHERE game_id IS NULL AND room = $1
                     ORDER BY id DESC LIMIT 1 OFFSET $2)",
                &[&line.room.as_str(), &kept],
            )
            .await?
        }
    };
    Ok(id)
}

/// Inserts a user unless the name is taken in any case (the writer is the only writer of this
/// node; the UNIQUE constraint is the backstop against another node).
async fn create_user(
    client: &Object,
    username: &Username,
    password_hash: &str,
    at_ms: i64,
) -> Result<UserId, UnitFailure> {
    let key = username.key();
    if query_opt(
        client,
        "SELECT 1 FROM users WHERE username_key = $1",
        &[&key],
    )
    .await?
    .is_some()
    {
        return Err(UnitFailure::Refused(StoreError::UsernameTaken));
    }
    let inserted = query_opt(
        client,
        "INSERT INTO users (username, username_key, password_hash, created_ms)
         VALUES ($1, $2, $3, $4) RETURNING id",
        &[&username.as_str(), &key, &password_hash, &at_ms],
    )
    .await;
    match inserted {
        Ok(Some(row)) => Ok(UserId(get(&row, 0)?)),
        Ok(None) => Err(UnitFailure::Refused(StoreError::Io(
            "the user insert returned no id".to_owned(),
        ))),
        Err(UnitFailure::ThisUnit(e)) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
            Err(UnitFailure::Refused(StoreError::UsernameTaken))
        }
        Err(other) => Err(other),
    }
}

async fn stored_rating(client: &Object, user: UserId, speed: &str) -> Result<Rating, UnitFailure> {
    let row = query_opt(
        client,
        "SELECT rating, deviation, volatility, games FROM ratings WHERE user_id = $1 AND speed = $2",
        &[&user.0, &speed],
    )
    .await?;
    match row {
        Some(row) => Ok(Rating {
            rating: get(&row, 0)?,
            deviation: get(&row, 1)?,
            volatility: get(&row, 2)?,
            games: u32::try_from(get::<i64>(&row, 3)?).unwrap_or(u32::MAX),
        }),
        None => Ok(Rating::INITIAL),
    }
}

async fn store_rating(
    client: &Object,
    user: UserId,
    speed: &str,
    r: &Rating,
) -> Result<(), UnitFailure> {
    execute(
        client,
        "INSERT INTO ratings (user_id, speed, rating, deviation, volatility, games)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (user_id, speed) DO UPDATE SET rating = excluded.rating,
             deviation = excluded.deviation, volatility = excluded.volatility,
             games = excluded.games",
        &[
            &user.0,
            &speed,
            &r.rating,
            &r.deviation,
            &r.volatility,
            &i64::from(r.games),
        ],
    )
    .await?;
    Ok(())
}

const RATED_GAME_INSERT: &str = "INSERT INTO rated_games (game_id, speed, ended_ms, white_user,
    black_user, score_white,
    white_before_rating, white_before_deviation, white_before_volatility, white_before_games,
    white_after_rating, white_after_deviation, white_after_volatility, white_after_games,
    black_before_rating, black_before_deviation, black_before_volatility, black_before_games,
    black_after_rating, black_after_deviation, black_after_volatility, black_after_games)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
        $19, $20, $21, $22)";

/// Rates the game a commit ends, inside that commit's savepoint. A game already rated is left as
/// it is.
async fn rate_game(client: &Object, commit: &Commit, end: &RatedEnd) -> Result<(), UnitFailure> {
    if query_opt(
        client,
        "SELECT 1 FROM rated_games WHERE game_id = $1",
        &[&commit.game_id],
    )
    .await?
    .is_some()
    {
        return Ok(());
    }
    // A marked player's games change no rating (issue 32): the end is stored unrated.
    if query_opt(
        client,
        "SELECT 1 FROM marks WHERE user_id IN ($1, $2) LIMIT 1",
        &[&end.white.0, &end.black.0],
    )
    .await?
    .is_some()
    {
        return Ok(());
    }
    let speed = end.speed.as_str();
    let white_before = stored_rating(client, end.white, speed).await?;
    let black_before = stored_rating(client, end.black, speed).await?;
    let (white_after, black_after) = rate_end(end, white_before, black_before);
    store_rating(client, end.white, speed, &white_after).await?;
    store_rating(client, end.black, speed, &black_after).await?;
    let ratings = [white_before, white_after, black_before, black_after];
    let floats: Vec<[f64; 3]> = ratings
        .iter()
        .map(|r| [r.rating, r.deviation, r.volatility])
        .collect();
    let games: Vec<i64> = ratings.iter().map(|r| i64::from(r.games)).collect();
    let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![
        &commit.game_id,
        &speed,
        &commit.listing.updated_ms,
        &end.white.0,
        &end.black.0,
        &end.score_white,
    ];
    for (f, g) in floats.iter().zip(&games) {
        params.extend([
            &f[0] as &(dyn tokio_postgres::types::ToSql + Sync),
            &f[1],
            &f[2],
            g,
        ]);
    }
    execute(client, RATED_GAME_INSERT, &params).await?;
    Ok(())
}

/// Refuses a commit whose fence is not the game's lease (node and epoch; see
/// [`fence_holds`]), and otherwise locks the lease row `FOR KEY SHARE` until the batch
/// commits: a takeover's claim (`FOR UPDATE`, lease.rs) waits for it, so the new owner loads
/// this commit, or, having come first, makes this check fail.
async fn check_fence(client: &Object, game: &str, fence: &Fence) -> Result<(), UnitFailure> {
    let row = query_opt(
        client,
        "SELECT node_id, epoch FROM game_leases WHERE game_id = $1 FOR KEY SHARE",
        &[&game],
    )
    .await?;
    let lease = match row {
        Some(row) => Some((get::<String>(&row, 0)?, get::<i64>(&row, 1)?)),
        None => None,
    };
    if fence_holds(fence, lease.as_ref().map(|(n, e)| (n.as_str(), *e))) {
        Ok(())
    } else {
        Err(UnitFailure::Refused(StoreError::Fenced {
            game_id: game.to_owned(),
        }))
    }
}

/// Checks the fence and the sequence, appends the events (one statement for all of them),
/// rewrites the listing row, rates a rated end, applies the deadline change.
async fn write_one(client: &Object, commit: &Commit) -> Result<(), UnitFailure> {
    if let Some(fence) = &commit.fence {
        check_fence(client, &commit.game_id, fence).await?;
    }
    let stored: u64 = match query_opt(
        client,
        "SELECT seq FROM events WHERE game_id = $1 ORDER BY seq DESC LIMIT 1",
        &[&commit.game_id],
    )
    .await?
    {
        // Sequences are contiguous from 0 (enforced here), so last + 1 is the count.
        Some(row) => u64::try_from(get::<i64>(&row, 0)?).map_or(0, |s| s + 1),
        None => 0,
    };
    if commit.first_seq != stored {
        return Err(UnitFailure::Refused(StoreError::Conflict {
            game_id: commit.game_id.clone(),
            expected: stored,
            got: commit.first_seq,
        }));
    }
    if !commit.events.is_empty() {
        let first = i64::try_from(stored).map_err(|_| {
            UnitFailure::Refused(StoreError::Io(format!(
                "game {}: sequence number out of range",
                commit.game_id
            )))
        })?;
        // unnest ... WITH ORDINALITY numbers the payloads from 1: one round trip per commit
        // whatever its number of events.
        execute(
            client,
            "INSERT INTO events (game_id, seq, payload)
             SELECT $1, $2 + n - 1, payload FROM unnest($3::text[]) WITH ORDINALITY AS e (payload, n)",
            &[&commit.game_id, &first, &commit.events],
        )
        .await?;
    }
    let listing = &commit.listing;
    let white = listing.white_user.map(|u| u.0);
    let black = listing.black_user.map(|u| u.0);
    execute(
        client,
        "INSERT INTO games (id, status, created_ms, updated_ms, summary, listed, white_user,
             black_user, arena)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_ms = excluded.created_ms,
             updated_ms = excluded.updated_ms, summary = excluded.summary,
             listed = excluded.listed, white_user = excluded.white_user,
             black_user = excluded.black_user",
        &[
            &commit.game_id,
            &listing.status.as_str(),
            &listing.created_ms,
            &listing.updated_ms,
            &listing.summary,
            &listing.listed,
            &white,
            &black,
            &listing.arena,
        ],
    )
    .await?;
    if let Some(game) = &commit.explorer {
        super::explorer_write::add(client, game)
            .await
            .map_err(classify)?;
    }
    if let Some(end) = &commit.playban {
        super::playban_write::add(client, end)
            .await
            .map_err(classify)?;
    }
    if let Some(end) = &commit.rating {
        rate_game(client, commit, end).await?;
    }
    match commit.deadline {
        DeadlineChange::Unchanged => {}
        DeadlineChange::Set(deadline_ms) => {
            execute(
                client,
                "INSERT INTO turn_deadlines (game_id, deadline_ms) VALUES ($1, $2)
                 ON CONFLICT (game_id) DO UPDATE SET deadline_ms = excluded.deadline_ms",
                &[&commit.game_id, &deadline_ms],
            )
            .await?;
        }
        DeadlineChange::Cleared => {
            execute(
                client,
                "DELETE FROM turn_deadlines WHERE game_id = $1",
                &[&commit.game_id],
            )
            .await?;
        }
    }
    Ok(())
}
