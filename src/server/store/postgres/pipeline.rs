//! The writer's fast path: a run of plain commit units (moves, joins: no rated end) written in a
//! fixed number of round trips, whatever their number.
//!
//! Why: written one at a time, a unit costs about five round trips to the server, each awaited
//! before the next (savepoint, sequence check, events insert, listing upsert, release), and a
//! batch of hundreds of units takes hundreds of milliseconds on a loaded machine. Here a run of
//! units costs two round trips:
//!
//! 1. one query reads the stored sequence of every game of the run (and, when a unit carries a
//!    fence, a second one sent pipelined with it reads and locks `FOR KEY SHARE` the leases of
//!    the fenced games: see writer.rs, `check_fence`); the writer then decides in memory, unit
//!    by unit and in call order, which units are fenced (their fence is not the game's lease)
//!    or conflict (their `first_seq` is not the game's next, counting the units of the run
//!    accepted before them). Such a unit stores nothing and fails alone, exactly as its own
//!    savepoint would have made it.
//! 2. the accepted units are written by a handful of set-based statements (every event of the run
//!    in one `INSERT ... unnest`, the last listing of each game in one upsert, the deadline
//!    changes in one upsert and one delete) between a savepoint and its release, all sent
//!    pipelined: tokio-postgres sends a request when its future is first polled and the server
//!    runs them in that order, so joining the futures costs one round trip.
//!
//! Keeping only the last listing and the last deadline change of each game is what the same
//! statements one unit at a time would leave (each upsert rewrites the whole row).
//!
//! The other options were measured or weighed (docs/architecture.md, the Postgres writer): the
//! same five statements per unit merely pipelined still cost the server five statements per unit
//! and need a retry from the failing unit onwards (a failed statement aborts everything pipelined
//! after it); a plpgsql function per unit would be one round trip per unit and a schema change.
//!
//! If Postgres refuses one of the set-based statements for a reason of a unit's data (class 22/23:
//! a NUL byte in an event, a row another node wrote first), the savepoint is rolled back and the
//! run is written again the careful way, one savepoint per unit ([`super::writer`]), so the unit
//! at fault fails alone. Anything else (the connection lost) fails the whole batch, as before.

use std::collections::HashMap;

use deadpool_postgres::Object;
use tokio_postgres::types::ToSql;

use super::unit::{Done, Pending, UnitFailure, Work, classify, fence_holds};
use crate::server::store::{Commit, DeadlineChange, GameListing, StoreError};

/// Whether a unit can go down the fast path: commits without a rated end, an explorer count
/// or playban outcomes. (A rated end reads the players' ratings and computes the new ones before
/// writing; an explorer count writes only if the game was not counted yet: data-dependent
/// round trips. Both come once per game, with its end.)
pub(super) fn pipelinable(work: &Work) -> bool {
    match work {
        Work::Commits(commits) => commits
            .iter()
            .all(|c| c.rating.is_none() && c.explorer.is_none() && c.playban.is_none()),
        _ => false,
    }
}

/// What writing a run gave: every unit's outcome, or the run must be written the careful way.
pub(super) enum RunOutcome {
    Written(Vec<Result<Done, StoreError>>),
    WriteCarefully,
}

/// The units of a run that store something, and what they store, in call order.
#[derive(Default)]
struct Plan<'a> {
    event_games: Vec<&'a str>,
    event_seqs: Vec<i64>,
    event_payloads: Vec<&'a str>,
    /// The last listing of each game, in the order the games first appear.
    listings: Vec<&'a GameListing>,
    listing_index: HashMap<&'a str, usize>,
    /// The last deadline change of each game (never `Unchanged`).
    deadlines: HashMap<&'a str, DeadlineChange>,
}

impl<'a> Plan<'a> {
    fn accept(&mut self, commit: &'a Commit, first: i64) {
        for (n, payload) in commit.events.iter().enumerate() {
            self.event_games.push(&commit.game_id);
            // `first + n` fits: `decide` checked `first + len` does.
            self.event_seqs
                .push(first + i64::try_from(n).unwrap_or(i64::MAX));
            self.event_payloads.push(payload);
        }
        match self.listing_index.get(commit.game_id.as_str()) {
            Some(&i) => self.listings[i] = &commit.listing,
            None => {
                self.listing_index
                    .insert(&commit.game_id, self.listings.len());
                self.listings.push(&commit.listing);
            }
        }
        if commit.deadline != DeadlineChange::Unchanged {
            self.deadlines.insert(&commit.game_id, commit.deadline);
        }
    }

    fn is_empty(&self) -> bool {
        self.listings.is_empty()
    }
}

/// Writes a run of [`pipelinable`] units inside the open transaction. `Err` loses the batch.
pub(super) async fn write_run(
    client: &Object,
    run: &[Pending],
) -> Result<RunOutcome, tokio_postgres::Error> {
    let (mut next, leases) = match stored_sequences_and_leases(client, run).await {
        Ok(found) => found,
        Err(UnitFailure::WholeBatch(e)) => return Err(e),
        Err(_) => return Ok(RunOutcome::WriteCarefully),
    };
    let mut plan = Plan::default();
    let outcomes: Vec<Result<Done, StoreError>> = run
        .iter()
        .map(|pending| match &pending.work {
            Work::Commits(commits) => {
                decide(commits, &leases, &mut next, &mut plan).map(|()| Done::Stored)
            }
            // Not pipelinable: never in a run.
            _ => Err(StoreError::Io("not a commit".to_owned())),
        })
        .collect();
    if plan.is_empty() {
        return Ok(RunOutcome::Written(outcomes));
    }
    match write_plan(client, &plan).await {
        Ok(()) => Ok(RunOutcome::Written(outcomes)),
        Err(UnitFailure::WholeBatch(e)) => Err(e),
        Err(_) => {
            client
                .batch_execute("ROLLBACK TO pipelined_run; RELEASE pipelined_run")
                .await?;
            Ok(RunOutcome::WriteCarefully)
        }
    }
}

/// Accepts a unit (all its commits) into the plan, or refuses it whole on its first commit whose
/// fence does not hold (`leases`: the lease row of every fenced game that has one) or whose
/// `first_seq` is not its game's next, leaving `next` and the plan as they were.
fn decide<'a>(
    commits: &'a [Commit],
    leases: &HashMap<String, (String, i64)>,
    next: &mut HashMap<String, u64>,
    plan: &mut Plan<'a>,
) -> Result<(), StoreError> {
    let mut unit_next: HashMap<&str, u64> = HashMap::new();
    let mut firsts = Vec::with_capacity(commits.len());
    for commit in commits {
        let game = commit.game_id.as_str();
        if let Some(fence) = &commit.fence {
            let lease = leases
                .get(game)
                .map(|(node, epoch)| (node.as_str(), *epoch));
            if !fence_holds(fence, lease) {
                return Err(StoreError::Fenced {
                    game_id: commit.game_id.clone(),
                });
            }
        }
        let expected = unit_next
            .get(game)
            .or_else(|| next.get(game))
            .copied()
            .unwrap_or(0);
        if commit.first_seq != expected {
            return Err(StoreError::Conflict {
                game_id: commit.game_id.clone(),
                expected,
                got: commit.first_seq,
            });
        }
        let after = expected.saturating_add(commit.events.len() as u64);
        let (Ok(first), Ok(_)) = (i64::try_from(expected), i64::try_from(after)) else {
            return Err(StoreError::Io(format!(
                "game {}: sequence number out of range",
                commit.game_id
            )));
        };
        unit_next.insert(game, after);
        firsts.push(first);
    }
    for (commit, first) in commits.iter().zip(firsts) {
        plan.accept(commit, first);
    }
    for (game, after) in unit_next {
        next.insert(game.to_owned(), after);
    }
    Ok(())
}

/// The commits of a run.
fn commits_of(run: &[Pending]) -> impl Iterator<Item = &Commit> {
    run.iter().flat_map(|p| match &p.work {
        Work::Commits(commits) => commits.as_slice(),
        _ => &[],
    })
}

/// The next sequence number of every game of the run (games without events are absent), in one
/// query using the primary key's index once per game; and the lease row `(node, epoch)` of
/// every game a commit of the run is fenced on (games never claimed are absent), read and
/// locked `FOR KEY SHARE` by a second query sent pipelined with the first (no extra round
/// trip; none at all when no commit is fenced, as on one node).
async fn stored_sequences_and_leases(
    client: &Object,
    run: &[Pending],
) -> Result<(HashMap<String, u64>, HashMap<String, (String, i64)>), UnitFailure> {
    let mut games: Vec<&str> = commits_of(run).map(|c| c.game_id.as_str()).collect();
    games.sort_unstable();
    games.dedup();
    let mut fenced: Vec<&str> = commits_of(run)
        .filter(|c| c.fence.is_some())
        .map(|c| c.game_id.as_str())
        .collect();
    fenced.sort_unstable();
    fenced.dedup();
    let statement = client
        .prepare_cached(
            "SELECT g.id, (SELECT seq FROM events WHERE game_id = g.id ORDER BY seq DESC LIMIT 1)
             FROM unnest($1::text[]) AS g (id)",
        )
        .await
        .map_err(classify)?;
    let (rows, lease_rows) = if fenced.is_empty() {
        let rows = client
            .query(&statement, &[&games])
            .await
            .map_err(classify)?;
        (rows, Vec::new())
    } else {
        let leases = client
            .prepare_cached(
                "SELECT game_id, node_id, epoch FROM game_leases WHERE game_id = ANY($1::text[])
                 ORDER BY game_id FOR KEY SHARE",
            )
            .await
            .map_err(classify)?;
        let (rows, lease_rows) = futures_util::future::join(
            client.query(&statement, &[&games]),
            client.query(&leases, &[&fenced]),
        )
        .await;
        (rows.map_err(classify)?, lease_rows.map_err(classify)?)
    };
    let mut leases = HashMap::with_capacity(lease_rows.len());
    for row in lease_rows {
        let game: String = row.try_get(0).map_err(UnitFailure::ThisUnit)?;
        let node: String = row.try_get(1).map_err(UnitFailure::ThisUnit)?;
        let epoch: i64 = row.try_get(2).map_err(UnitFailure::ThisUnit)?;
        leases.insert(game, (node, epoch));
    }
    let mut next = HashMap::with_capacity(rows.len());
    for row in rows {
        let game: String = row.try_get(0).map_err(UnitFailure::ThisUnit)?;
        let last: Option<i64> = row.try_get(1).map_err(UnitFailure::ThisUnit)?;
        if let Some(last) = last {
            // Sequences are contiguous from 0, so last + 1 is the count.
            next.insert(game, u64::try_from(last).map_or(0, |s| s + 1));
        }
    }
    Ok((next, leases))
}

const INSERT_EVENTS: &str = "INSERT INTO events (game_id, seq, payload)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])";

const UPSERT_LISTINGS: &str = "INSERT INTO games (id, status, created_ms, updated_ms, summary,
        listed, white_user, black_user, arena)
    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[],
        $6::boolean[], $7::bigint[], $8::bigint[], $9::text[])
    ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_ms = excluded.created_ms,
        updated_ms = excluded.updated_ms, summary = excluded.summary, listed = excluded.listed,
        white_user = excluded.white_user, black_user = excluded.black_user";

const SET_DEADLINES: &str = "INSERT INTO turn_deadlines (game_id, deadline_ms)
    SELECT * FROM unnest($1::text[], $2::bigint[])
    ON CONFLICT (game_id) DO UPDATE SET deadline_ms = excluded.deadline_ms";

const CLEAR_DEADLINES: &str = "DELETE FROM turn_deadlines WHERE game_id = ANY($1::text[])";

/// Sends the plan's statements between `SAVEPOINT pipelined_run` and its release, pipelined, and
/// returns the first failure in sending order (what follows a failure fails only because the
/// transaction is aborted).
async fn write_plan(client: &Object, plan: &Plan<'_>) -> Result<(), UnitFailure> {
    let mut sql = vec!["SAVEPOINT pipelined_run", INSERT_EVENTS, UPSERT_LISTINGS];
    let mut set_games = Vec::new();
    let mut set_at = Vec::new();
    let mut cleared = Vec::new();
    for (game, change) in &plan.deadlines {
        match change {
            DeadlineChange::Set(at) => {
                set_games.push(*game);
                set_at.push(*at);
            }
            DeadlineChange::Cleared => cleared.push(*game),
            DeadlineChange::Unchanged => {}
        }
    }
    if !set_games.is_empty() {
        sql.push(SET_DEADLINES);
    }
    if !cleared.is_empty() {
        sql.push(CLEAR_DEADLINES);
    }
    sql.push("RELEASE pipelined_run");
    // Prepared first (from the connection's cache after the first batch), so that no future
    // below awaits a prepare before sending: the statements go out in this order.
    let mut statements = Vec::with_capacity(sql.len());
    for text in &sql {
        statements.push(client.prepare_cached(text).await.map_err(classify)?);
    }

    let ids: Vec<&str> = plan.listings.iter().map(|l| l.id.as_str()).collect();
    let status: Vec<&str> = plan.listings.iter().map(|l| l.status.as_str()).collect();
    let created: Vec<i64> = plan.listings.iter().map(|l| l.created_ms).collect();
    let updated: Vec<i64> = plan.listings.iter().map(|l| l.updated_ms).collect();
    let summary: Vec<&str> = plan.listings.iter().map(|l| l.summary.as_str()).collect();
    let listed: Vec<bool> = plan.listings.iter().map(|l| l.listed).collect();
    let white: Vec<Option<i64>> = plan
        .listings
        .iter()
        .map(|l| l.white_user.map(|u| u.0))
        .collect();
    let black: Vec<Option<i64>> = plan
        .listings
        .iter()
        .map(|l| l.black_user.map(|u| u.0))
        .collect();
    let arena: Vec<Option<&str>> = plan.listings.iter().map(|l| l.arena.as_deref()).collect();
    let mut params: Vec<Vec<&(dyn ToSql + Sync)>> = vec![
        vec![],
        vec![&plan.event_games, &plan.event_seqs, &plan.event_payloads],
        vec![
            &ids, &status, &created, &updated, &summary, &listed, &white, &black, &arena,
        ],
    ];
    if !set_games.is_empty() {
        params.push(vec![&set_games, &set_at]);
    }
    if !cleared.is_empty() {
        params.push(vec![&cleared]);
    }
    params.push(vec![]);

    let sent = statements
        .iter()
        .zip(&params)
        .map(|(statement, params)| client.execute(statement, params));
    let results = futures_util::future::join_all(sent).await;
    match results.into_iter().find_map(Result::err) {
        None => Ok(()),
        Some(e) => Err(classify(e)),
    }
}
