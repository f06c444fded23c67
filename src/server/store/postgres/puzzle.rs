//! Puzzles on PostgreSQL (schema v5, issue 30): the same tables, searches and promises as
//! SQLite's (sqlite/puzzle.rs, whose comment says how the next puzzle is found by one index
//! range). The writes are transactions of their own on the read pool, not the writer's batch:
//! a round must read and lock rows (its player, its puzzle) before it writes, and several
//! nodes may rate one puzzle at once, which the one writer of one node cannot serialize. A
//! round locks its player's row, then its puzzle's, `FOR UPDATE`, always in that order (no
//! cycle of waits can form): two rounds of one puzzle both count, one after the other, and a
//! second round of one player at one puzzle finds the first and changes nothing.

use std::sync::Arc;

use tokio_postgres::types::ToSql;

use super::error::pg_error;
use super::rows::{Param, first, rating_from_row, text};
use super::{PostgresStore, Shared};
use crate::server::domain::rating::Rating;
use crate::server::domain::user::UserId;
use crate::server::store::puzzle::{prepared_import, rating_key, themes_from_text};
use crate::server::store::{
    PUZZLE_IMPORT_SLICE, PuzzleAttempt, PuzzlePlayer, PuzzleRecord, PuzzleRound, RoundOutcome,
    StoreError, StoreFuture, rate_round,
};

/// The columns of a puzzle, of the table aliased `p`.
const PUZZLE_COLUMNS: &str = "p.id, p.fen, p.moves, p.rating, p.deviation, p.volatility,
    p.rated_plays, p.plays, p.themes, p.source, p.created_ms";

fn puzzle_from_row(row: &tokio_postgres::Row) -> Result<PuzzleRecord, StoreError> {
    let plays: i64 = row.try_get(7).map_err(pg_error)?;
    let themes: String = row.try_get(8).map_err(pg_error)?;
    Ok(PuzzleRecord {
        id: row.try_get(0).map_err(pg_error)?,
        fen: row.try_get(1).map_err(pg_error)?,
        moves: row.try_get(2).map_err(pg_error)?,
        rating: rating_from_row(row, 3)?,
        plays: u32::try_from(plays).unwrap_or(u32::MAX),
        themes: themes_from_text(&themes),
        source: row.try_get(9).map_err(pg_error)?,
        created_ms: row.try_get(10).map_err(pg_error)?,
    })
}

fn count(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// The SQL of one half of `puzzle_near`: `$1` the target, `$2` the user (NULL: anyone), `$3`
/// the theme (only with `theme`). Public (`postgres::puzzle_near_sql`) so that a test can have
/// Postgres explain the very statement the store runs.
pub fn near_sql(theme: bool, above: bool) -> String {
    let (from, key, id) = if theme {
        (
            "puzzle_themes t JOIN puzzles p ON p.id = t.puzzle_id",
            "t.rating_key",
            "t.puzzle_id",
        )
    } else {
        ("puzzles p", "p.rating_key", "p.id")
    };
    let theme_is = if theme { "t.theme = $3 AND " } else { "" };
    let (compare, order) = if above {
        (">=", format!("{key}, {id}"))
    } else {
        ("<", format!("{key} DESC, {id} DESC"))
    };
    format!(
        "SELECT {PUZZLE_COLUMNS} FROM {from}
         WHERE {theme_is}{key} {compare} $1 AND ($2::bigint IS NULL OR NOT EXISTS (
             SELECT 1 FROM puzzle_rounds r WHERE r.user_id = $2 AND r.puzzle_id = {id}))
         ORDER BY {order} LIMIT 1"
    )
}

/// The SQL of `puzzle_after`: `$1` the id to go past (only with `after`), then the theme.
fn after_sql(theme: bool, after: bool) -> String {
    let (from, id) = if theme {
        (
            "puzzle_themes t JOIN puzzles p ON p.id = t.puzzle_id",
            "t.puzzle_id",
        )
    } else {
        ("puzzles p", "p.id")
    };
    let mut conditions = Vec::new();
    if after {
        conditions.push(format!("{id} > $1"));
    }
    if theme {
        conditions.push(format!("t.theme = ${}", conditions.len() + 1));
    }
    let condition = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    format!("SELECT {PUZZLE_COLUMNS} FROM {from} {condition} ORDER BY {id} LIMIT 1")
}

/// The statement of `puzzle_attempts`. Public for the same reason as [`near_sql`].
pub const ATTEMPTS_SQL: &str = "SELECT r.puzzle_id, r.solved, r.at_ms, r.rating_after, p.themes
    FROM puzzle_rounds r LEFT JOIN puzzles p ON p.id = r.puzzle_id
    WHERE r.user_id = $1 ORDER BY r.at_ms DESC, r.puzzle_id DESC LIMIT $2";

impl PostgresStore {
    pub(super) fn puzzle_import(&self, puzzles: Vec<PuzzleRecord>) -> StoreFuture<u64> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let puzzles = prepared_import(puzzles)?;
            let mut inserted = 0;
            for slice in puzzles.chunks(PUZZLE_IMPORT_SLICE) {
                inserted += import_slice(&shared, slice).await?;
            }
            Ok(inserted)
        })
    }

    pub(super) fn puzzle_row(&self, id: &str) -> StoreFuture<Option<PuzzleRecord>> {
        first(self.read_rows(
            format!("SELECT {PUZZLE_COLUMNS} FROM puzzles p WHERE p.id = $1"),
            vec![text(id)],
            puzzle_from_row,
        ))
    }

    pub(super) fn puzzle_nearest(
        &self,
        user: Option<UserId>,
        theme: Option<String>,
        target: i32,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        let store = self.clone();
        Box::pin(async move {
            for above in [true, false] {
                let mut params = vec![
                    Param::Int(i64::from(target)),
                    Param::OptInt(user.map(|u| u.0)),
                ];
                if let Some(theme) = &theme {
                    params.push(text(theme));
                }
                let sql = near_sql(theme.is_some(), above);
                let found = first(store.read_rows(sql, params, puzzle_from_row)).await?;
                if found.is_some() {
                    return Ok(found);
                }
            }
            Ok(None)
        })
    }

    pub(super) fn puzzle_next_by_id(
        &self,
        theme: Option<String>,
        after: Option<String>,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        let store = self.clone();
        Box::pin(async move {
            // From `after`, then wrapping round to the first of all.
            let starts = match after {
                Some(after) => vec![Some(after), None],
                None => vec![None],
            };
            for start in starts {
                let sql = after_sql(theme.is_some(), start.is_some());
                let mut params: Vec<Param> = start.into_iter().map(Param::Text).collect();
                params.extend(theme.iter().map(|t| text(t)));
                let found = first(store.read_rows(sql, params, puzzle_from_row)).await?;
                if found.is_some() {
                    return Ok(found);
                }
            }
            Ok(None)
        })
    }

    pub(super) fn puzzle_theme_counts(&self) -> StoreFuture<Vec<(String, u64)>> {
        self.read_rows(
            "SELECT theme, count(*) FROM puzzle_themes GROUP BY theme ORDER BY theme".to_owned(),
            Vec::new(),
            |row| {
                let n: i64 = row.try_get(1).map_err(pg_error)?;
                Ok((
                    row.try_get(0).map_err(pg_error)?,
                    u64::try_from(n).unwrap_or(0),
                ))
            },
        )
    }

    pub(super) fn puzzle_total(&self) -> StoreFuture<u64> {
        let rows = self.read_rows(
            "SELECT count(*) FROM puzzles".to_owned(),
            Vec::new(),
            |row| row.try_get::<_, i64>(0).map_err(pg_error),
        );
        Box::pin(async move {
            let n = rows.await?.into_iter().next().unwrap_or(0);
            Ok(u64::try_from(n).unwrap_or(0))
        })
    }

    pub(super) fn puzzle_player_row(&self, user: UserId) -> StoreFuture<Option<PuzzlePlayer>> {
        first(
            self.read_rows(
                "SELECT rating, deviation, volatility, rounds, solved, failed FROM puzzle_players
             WHERE user_id = $1"
                    .to_owned(),
                vec![Param::Int(user.0)],
                |row| {
                    Ok(PuzzlePlayer {
                        rating: rating_from_row(row, 0)?,
                        solved: count(row.try_get(4).map_err(pg_error)?),
                        failed: count(row.try_get(5).map_err(pg_error)?),
                    })
                },
            ),
        )
    }

    pub(super) fn puzzle_round(&self, round: PuzzleRound) -> StoreFuture<RoundOutcome> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move { record(&shared, &round).await })
    }

    pub(super) fn puzzle_attempt_rows(
        &self,
        user: UserId,
        limit: u32,
    ) -> StoreFuture<Vec<PuzzleAttempt>> {
        self.read_rows(
            ATTEMPTS_SQL.to_owned(),
            vec![Param::Int(user.0), Param::Int(i64::from(limit))],
            |row| {
                let themes: Option<String> = row.try_get(4).map_err(pg_error)?;
                Ok(PuzzleAttempt {
                    puzzle: row.try_get(0).map_err(pg_error)?,
                    solved: row.try_get(1).map_err(pg_error)?,
                    at_ms: row.try_get(2).map_err(pg_error)?,
                    rating_after: row.try_get(3).map_err(pg_error)?,
                    themes: themes_from_text(&themes.unwrap_or_default()),
                })
            },
        )
    }

    pub(super) fn puzzle_page(
        &self,
        after: Option<String>,
        limit: u32,
    ) -> StoreFuture<Vec<PuzzleRecord>> {
        let limit = Param::Int(i64::from(limit));
        match after {
            Some(after) => self.read_rows(
                format!(
                    "SELECT {PUZZLE_COLUMNS} FROM puzzles p WHERE p.id > $1 ORDER BY p.id LIMIT $2"
                ),
                vec![Param::Text(after), limit],
                puzzle_from_row,
            ),
            None => self.read_rows(
                format!("SELECT {PUZZLE_COLUMNS} FROM puzzles p ORDER BY p.id LIMIT $1"),
                vec![limit],
                puzzle_from_row,
            ),
        }
    }
}

/// One slice of an import in one transaction: the puzzles not stored yet (sent as arrays), then
/// the theme rows of those that were new.
async fn import_slice(shared: &Shared, slice: &[PuzzleRecord]) -> Result<u64, StoreError> {
    let mut client = PostgresStore::reader(shared).await?;
    let tx = client.transaction().await.map_err(pg_error)?;
    let ids: Vec<&str> = slice.iter().map(|p| p.id.as_str()).collect();
    let fens: Vec<&str> = slice.iter().map(|p| p.fen.as_str()).collect();
    let moves: Vec<&str> = slice.iter().map(|p| p.moves.as_str()).collect();
    let ratings: Vec<f64> = slice.iter().map(|p| p.rating.rating).collect();
    let deviations: Vec<f64> = slice.iter().map(|p| p.rating.deviation).collect();
    let volatilities: Vec<f64> = slice.iter().map(|p| p.rating.volatility).collect();
    let rated_plays: Vec<i64> = slice.iter().map(|p| i64::from(p.rating.games)).collect();
    let plays: Vec<i64> = slice.iter().map(|p| i64::from(p.plays)).collect();
    let keys: Vec<i64> = slice.iter().map(|p| rating_key(p.rating.rating)).collect();
    let themes: Vec<String> = slice.iter().map(|p| p.themes.join(" ")).collect();
    let sources: Vec<&str> = slice.iter().map(|p| p.source.as_str()).collect();
    let created: Vec<i64> = slice.iter().map(|p| p.created_ms).collect();
    let statement = tx
        .prepare_cached(
            "INSERT INTO puzzles (id, fen, moves, rating, deviation, volatility, rated_plays,
                 plays, rating_key, themes, source, created_ms)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[],
                 $5::float8[], $6::float8[], $7::int8[], $8::int8[], $9::int8[], $10::text[],
                 $11::text[], $12::int8[])
             ON CONFLICT (id) DO NOTHING RETURNING id",
        )
        .await
        .map_err(pg_error)?;
    let params: [&(dyn ToSql + Sync); 12] = [
        &ids,
        &fens,
        &moves,
        &ratings,
        &deviations,
        &volatilities,
        &rated_plays,
        &plays,
        &keys,
        &themes,
        &sources,
        &created,
    ];
    let new: std::collections::HashSet<String> = tx
        .query(&statement, &params)
        .await
        .map_err(pg_error)?
        .iter()
        .map(|row| row.try_get(0).map_err(pg_error))
        .collect::<Result<_, _>>()?;
    let (mut theme_keys, mut theme_ids, mut theme_ratings) = (Vec::new(), Vec::new(), Vec::new());
    for puzzle in slice.iter().filter(|p| new.contains(&p.id)) {
        for theme in &puzzle.themes {
            theme_keys.push(theme.as_str());
            theme_ids.push(puzzle.id.as_str());
            theme_ratings.push(rating_key(puzzle.rating.rating));
        }
    }
    if !theme_keys.is_empty() {
        let statement = tx
            .prepare_cached(
                "INSERT INTO puzzle_themes (theme, puzzle_id, rating_key)
                 SELECT * FROM unnest($1::text[], $2::text[], $3::int8[])",
            )
            .await
            .map_err(pg_error)?;
        tx.execute(&statement, &[&theme_keys, &theme_ids, &theme_ratings])
            .await
            .map_err(pg_error)?;
    }
    tx.commit().await.map_err(pg_error)?;
    Ok(new.len() as u64)
}

/// A round in one transaction: the player's row made if missing and locked, the round looked
/// for (a repeat rolls back: nothing changes), the puzzle locked, both rated, everything
/// written, committed.
async fn record(shared: &Shared, round: &PuzzleRound) -> Result<RoundOutcome, StoreError> {
    let mut client = PostgresStore::reader(shared).await?;
    let tx = client.transaction().await.map_err(pg_error)?;
    let initial = Rating::INITIAL;
    let statement = tx
        .prepare_cached(
            "INSERT INTO puzzle_players (user_id, rating, deviation, volatility, rounds, solved,
                 failed)
             VALUES ($1, $2, $3, $4, 0, 0, 0) ON CONFLICT (user_id) DO NOTHING",
        )
        .await
        .map_err(pg_error)?;
    tx.execute(
        &statement,
        &[
            &round.user.0,
            &initial.rating,
            &initial.deviation,
            &initial.volatility,
        ],
    )
    .await
    .map_err(pg_error)?;
    let statement = tx
        .prepare_cached(
            "SELECT rating, deviation, volatility, rounds, solved, failed FROM puzzle_players
             WHERE user_id = $1 FOR UPDATE",
        )
        .await
        .map_err(pg_error)?;
    let row = tx
        .query_one(&statement, &[&round.user.0])
        .await
        .map_err(pg_error)?;
    let player_before = rating_from_row(&row, 0)?;
    let solved: i64 = row.try_get(4).map_err(pg_error)?;
    let failed: i64 = row.try_get(5).map_err(pg_error)?;
    // Under the player's lock: a round of this user committed before it is seen here.
    let statement = tx
        .prepare_cached("SELECT 1 FROM puzzle_rounds WHERE user_id = $1 AND puzzle_id = $2")
        .await
        .map_err(pg_error)?;
    if tx
        .query_opt(&statement, &[&round.user.0, &round.puzzle])
        .await
        .map_err(pg_error)?
        .is_some()
    {
        tx.rollback().await.map_err(pg_error)?;
        return Ok(RoundOutcome::Repeated);
    }
    let statement = tx
        .prepare_cached(
            "SELECT rating, deviation, volatility, rated_plays, rating_key, themes FROM puzzles
             WHERE id = $1 FOR UPDATE",
        )
        .await
        .map_err(pg_error)?;
    let Some(row) = tx
        .query_opt(&statement, &[&round.puzzle])
        .await
        .map_err(pg_error)?
    else {
        tx.rollback().await.map_err(pg_error)?;
        return Err(StoreError::Io(format!("no puzzle {}", round.puzzle)));
    };
    let puzzle_before = rating_from_row(&row, 0)?;
    let old_key: i64 = row.try_get(4).map_err(pg_error)?;
    let themes: String = row.try_get(5).map_err(pg_error)?;
    let (player_after, puzzle_after) = rate_round(player_before, puzzle_before, round.solved);
    let (solved, failed) = if round.solved {
        (solved + 1, failed)
    } else {
        (solved, failed + 1)
    };
    let statement = tx
        .prepare_cached(
            "UPDATE puzzle_players SET rating = $2, deviation = $3, volatility = $4, rounds = $5,
                 solved = $6, failed = $7
             WHERE user_id = $1",
        )
        .await
        .map_err(pg_error)?;
    tx.execute(
        &statement,
        &[
            &round.user.0,
            &player_after.rating,
            &player_after.deviation,
            &player_after.volatility,
            &i64::from(player_after.games),
            &solved,
            &failed,
        ],
    )
    .await
    .map_err(pg_error)?;
    let key = rating_key(puzzle_after.rating);
    let statement = tx
        .prepare_cached(
            "UPDATE puzzles SET rating = $2, deviation = $3, volatility = $4, rated_plays = $5,
                 plays = plays + 1, rating_key = $6
             WHERE id = $1",
        )
        .await
        .map_err(pg_error)?;
    tx.execute(
        &statement,
        &[
            &round.puzzle,
            &puzzle_after.rating,
            &puzzle_after.deviation,
            &puzzle_after.volatility,
            &i64::from(puzzle_after.games),
            &key,
        ],
    )
    .await
    .map_err(pg_error)?;
    if key != old_key {
        let statement = tx
            .prepare_cached(
                "UPDATE puzzle_themes SET rating_key = $3 WHERE theme = ANY($1) AND puzzle_id = $2",
            )
            .await
            .map_err(pg_error)?;
        let themes = themes_from_text(&themes);
        tx.execute(&statement, &[&themes, &round.puzzle, &key])
            .await
            .map_err(pg_error)?;
    }
    let statement = tx
        .prepare_cached(
            "INSERT INTO puzzle_rounds (user_id, puzzle_id, solved, at_ms, rating_after)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .await
        .map_err(pg_error)?;
    tx.execute(
        &statement,
        &[
            &round.user.0,
            &round.puzzle,
            &round.solved,
            &round.at_ms,
            &player_after.rating,
        ],
    )
    .await
    .map_err(pg_error)?;
    tx.commit().await.map_err(pg_error)?;
    Ok(RoundOutcome::Rated {
        player_before,
        player_after,
        puzzle_before,
        puzzle_after,
    })
}
