//! The SQL of puzzles on SQLite (schema v8, issue 30): the writer's two writes (a slice of an
//! import, a round) and the reads, each one index range.
//!
//! How the next puzzle is found fast: `puzzles.rating_key` is the rating rounded (kept in step
//! with it by every round), indexed with the id (`puzzles_by_rating`), and copied into each of
//! the puzzle's `puzzle_themes` rows, indexed by (theme, rating_key, puzzle_id). The puzzle
//! nearest a target is then the first entry of one index range from the target up (or down),
//! and a puzzle the player already did is skipped by one probe of `puzzle_rounds`' primary key
//! (user, puzzle) per entry passed over. The plans are pinned by the tests
//! (`tests/store/puzzles.rs`).

use rusqlite::{Connection, OptionalExtension, params};

use super::connect::io;
use super::rows::rating_from_row;
use crate::server::domain::rating::Rating;
use crate::server::domain::user::UserId;
use crate::server::store::puzzle::{rating_key, themes_from_text};
use crate::server::store::{
    PuzzleAttempt, PuzzlePlayer, PuzzleRecord, PuzzleRound, RoundOutcome, StoreError, rate_round,
};

/// A write of the puzzle tables, through the writer like every other.
pub(in crate::server::store::sqlite) enum PuzzleWrite {
    /// A slice of an import (themes already prepared: sorted, once each, words).
    Import(Vec<PuzzleRecord>),
    Round(PuzzleRound),
}

/// What a puzzle write gave back.
#[derive(Debug)]
pub(in crate::server::store::sqlite) enum PuzzleDone {
    Imported(u64),
    Round(RoundOutcome),
}

/// Writes `write` in the writer's current savepoint. The outer error is SQLite's; the inner
/// one refuses the unit (a round of a puzzle that is not stored), before anything is written.
pub(super) fn write(
    conn: &Connection,
    write: &PuzzleWrite,
) -> rusqlite::Result<Result<PuzzleDone, StoreError>> {
    match write {
        PuzzleWrite::Import(puzzles) => import(conn, puzzles).map(|n| Ok(PuzzleDone::Imported(n))),
        PuzzleWrite::Round(round) => Ok(record(conn, round)?.map(PuzzleDone::Round)),
    }
}

fn import(conn: &Connection, puzzles: &[PuzzleRecord]) -> rusqlite::Result<u64> {
    let mut inserted = 0;
    for puzzle in puzzles {
        let key = rating_key(puzzle.rating.rating);
        let new = conn
            .prepare_cached(
                "INSERT INTO puzzles (id, fen, moves, rating, deviation, volatility, rated_plays,
                     plays, rating_key, themes, source, created_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                 ON CONFLICT (id) DO NOTHING",
            )?
            .execute(params![
                puzzle.id,
                puzzle.fen,
                puzzle.moves,
                puzzle.rating.rating,
                puzzle.rating.deviation,
                puzzle.rating.volatility,
                puzzle.rating.games,
                puzzle.plays,
                key,
                puzzle.themes.join(" "),
                puzzle.source,
                puzzle.created_ms
            ])?;
        if new == 0 {
            continue;
        }
        inserted += 1;
        let mut theme_row = conn.prepare_cached(
            "INSERT INTO puzzle_themes (theme, puzzle_id, rating_key) VALUES (?1, ?2, ?3)",
        )?;
        for theme in &puzzle.themes {
            theme_row.execute(params![theme, puzzle.id, key])?;
        }
    }
    Ok(inserted)
}

/// A round, all of it in the writer's savepoint (the writer is the only writer, so nothing
/// can come between the reads and the writes).
fn record(
    conn: &Connection,
    round: &PuzzleRound,
) -> rusqlite::Result<Result<RoundOutcome, StoreError>> {
    let played = conn
        .prepare_cached("SELECT 1 FROM puzzle_rounds WHERE user_id = ?1 AND puzzle_id = ?2")?
        .exists(params![round.user.0, round.puzzle])?;
    if played {
        return Ok(Ok(RoundOutcome::Repeated));
    }
    let puzzle = conn
        .prepare_cached(
            "SELECT rating, deviation, volatility, rated_plays, rating_key, themes FROM puzzles
             WHERE id = ?1",
        )?
        .query_row([&round.puzzle], |row| {
            Ok((
                rating_from_row(row, 0)?,
                row.get::<_, i64>(4)?,
                row.get::<_, String>(5)?,
            ))
        })
        .optional()?;
    let Some((puzzle_before, old_key, themes)) = puzzle else {
        return Ok(Err(StoreError::Io(format!("no puzzle {}", round.puzzle))));
    };
    let player = player(conn, round.user)?;
    let (player_before, solved, failed) = match player {
        Some(p) => (p.rating, p.solved, p.failed),
        None => (Rating::INITIAL, 0, 0),
    };
    let (player_after, puzzle_after) = rate_round(player_before, puzzle_before, round.solved);
    let (solved, failed) = if round.solved {
        (solved.saturating_add(1), failed)
    } else {
        (solved, failed.saturating_add(1))
    };
    conn.prepare_cached(
        "INSERT INTO puzzle_players (user_id, rating, deviation, volatility, rounds, solved,
             failed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (user_id) DO UPDATE SET rating = excluded.rating,
             deviation = excluded.deviation, volatility = excluded.volatility,
             rounds = excluded.rounds, solved = excluded.solved, failed = excluded.failed",
    )?
    .execute(params![
        round.user.0,
        player_after.rating,
        player_after.deviation,
        player_after.volatility,
        player_after.games,
        solved,
        failed
    ])?;
    let key = rating_key(puzzle_after.rating);
    conn.prepare_cached(
        "UPDATE puzzles SET rating = ?2, deviation = ?3, volatility = ?4, rated_plays = ?5,
             plays = plays + 1, rating_key = ?6
         WHERE id = ?1",
    )?
    .execute(params![
        round.puzzle,
        puzzle_after.rating,
        puzzle_after.deviation,
        puzzle_after.volatility,
        puzzle_after.games,
        key
    ])?;
    if key != old_key {
        let mut theme_row = conn.prepare_cached(
            "UPDATE puzzle_themes SET rating_key = ?3 WHERE theme = ?1 AND puzzle_id = ?2",
        )?;
        for theme in themes_from_text(&themes) {
            theme_row.execute(params![theme, round.puzzle, key])?;
        }
    }
    conn.prepare_cached(
        "INSERT INTO puzzle_rounds (user_id, puzzle_id, solved, at_ms, rating_after)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        round.user.0,
        round.puzzle,
        round.solved,
        round.at_ms,
        player_after.rating
    ])?;
    Ok(Ok(RoundOutcome::Rated {
        player_before,
        player_after,
        puzzle_before,
        puzzle_after,
    }))
}

/// The columns of a puzzle, of the table aliased `p`.
const PUZZLE_COLUMNS: &str = "p.id, p.fen, p.moves, p.rating, p.deviation, p.volatility,
    p.rated_plays, p.plays, p.themes, p.source, p.created_ms";

fn puzzle_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<PuzzleRecord> {
    Ok(PuzzleRecord {
        id: row.get(0)?,
        fen: row.get(1)?,
        moves: row.get(2)?,
        rating: rating_from_row(row, 3)?,
        plays: u32::try_from(row.get::<_, i64>(7)?).unwrap_or(u32::MAX),
        themes: themes_from_text(&row.get::<_, String>(8)?),
        source: row.get(9)?,
        created_ms: row.get(10)?,
    })
}

fn puzzles_where(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<PuzzleRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(io)?;
    let rows = stmt.query_map(params, puzzle_from_row).map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}

fn first_where(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Option<PuzzleRecord>, StoreError> {
    Ok(puzzles_where(conn, sql, params)?.into_iter().next())
}

pub(super) fn puzzle(conn: &Connection, id: &str) -> Result<Option<PuzzleRecord>, StoreError> {
    first_where(
        conn,
        &format!("SELECT {PUZZLE_COLUMNS} FROM puzzles p WHERE p.id = ?1"),
        [id],
    )
}

/// The SQL of one half of [`near`]: `?1` the target, `?2` the user (NULL: anyone), `?3` the
/// theme (only with `theme`). `CROSS JOIN` keeps the theme index outermost, so the first row of
/// its range is the answer. Public (`sqlite::puzzle_near_sql`) so that a test can have SQLite
/// explain the very statement the store runs.
pub fn near_sql(theme: bool, above: bool) -> String {
    let (from, key, id) = if theme {
        (
            "puzzle_themes t CROSS JOIN puzzles p ON p.id = t.puzzle_id",
            "t.rating_key",
            "t.puzzle_id",
        )
    } else {
        ("puzzles p", "p.rating_key", "p.id")
    };
    let theme_is = if theme { "t.theme = ?3 AND " } else { "" };
    let (compare, order) = if above {
        (">=", format!("{key}, {id}"))
    } else {
        ("<", format!("{key} DESC, {id} DESC"))
    };
    format!(
        "SELECT {PUZZLE_COLUMNS} FROM {from}
         WHERE {theme_is}{key} {compare} ?1 AND (?2 IS NULL OR NOT EXISTS (
             SELECT 1 FROM puzzle_rounds r WHERE r.user_id = ?2 AND r.puzzle_id = {id}))
         ORDER BY {order} LIMIT 1"
    )
}

pub(super) fn near(
    conn: &Connection,
    user: Option<UserId>,
    theme: Option<&str>,
    target: i32,
) -> Result<Option<PuzzleRecord>, StoreError> {
    let user = user.map(|u| u.0);
    for above in [true, false] {
        let sql = near_sql(theme.is_some(), above);
        let found = match theme {
            Some(theme) => first_where(conn, &sql, params![target, user, theme])?,
            None => first_where(conn, &sql, params![target, user])?,
        };
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// The SQL of [`after`]: `?1` the id to go past (only with `after`), `?2` the theme (only with
/// `theme`).
fn after_sql(theme: bool, after: bool) -> String {
    let (from, id) = if theme {
        (
            "puzzle_themes t CROSS JOIN puzzles p ON p.id = t.puzzle_id",
            "t.puzzle_id",
        )
    } else {
        ("puzzles p", "p.id")
    };
    let mut conditions = Vec::new();
    if after {
        conditions.push(format!("{id} > ?1"));
    }
    if theme {
        conditions.push("t.theme = ?2".to_owned());
    }
    let condition = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    format!("SELECT {PUZZLE_COLUMNS} FROM {from} {condition} ORDER BY {id} LIMIT 1")
}

pub(super) fn after(
    conn: &Connection,
    theme: Option<&str>,
    after: Option<&str>,
) -> Result<Option<PuzzleRecord>, StoreError> {
    if let Some(after) = after {
        let sql = after_sql(theme.is_some(), true);
        let found = match theme {
            Some(theme) => first_where(conn, &sql, params![after, theme])?,
            None => first_where(conn, &sql, params![after])?,
        };
        if found.is_some() {
            return Ok(found);
        }
    }
    // Wrapping round: the first of all.
    let sql = after_sql(theme.is_some(), false);
    match theme {
        Some(theme) => first_where(conn, &sql, params![rusqlite::types::Null, theme]),
        None => first_where(conn, &sql, []),
    }
}

pub(super) fn themes(conn: &Connection) -> Result<Vec<(String, u64)>, StoreError> {
    let mut stmt = conn
        .prepare_cached("SELECT theme, count(*) FROM puzzle_themes GROUP BY theme ORDER BY theme")
        .map_err(io)?;
    let rows = stmt
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
            ))
        })
        .map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}

pub(super) fn count(conn: &Connection) -> Result<u64, StoreError> {
    let count: i64 = conn
        .prepare_cached("SELECT count(*) FROM puzzles")
        .map_err(io)?
        .query_row([], |row| row.get(0))
        .map_err(io)?;
    Ok(u64::try_from(count).unwrap_or(0))
}

/// A player's row (the writer's read too).
pub(super) fn player(conn: &Connection, user: UserId) -> rusqlite::Result<Option<PuzzlePlayer>> {
    conn.prepare_cached(
        "SELECT rating, deviation, volatility, rounds, solved, failed FROM puzzle_players
         WHERE user_id = ?1",
    )?
    .query_row([user.0], |row| {
        Ok(PuzzlePlayer {
            rating: rating_from_row(row, 0)?,
            solved: u32::try_from(row.get::<_, i64>(4)?).unwrap_or(u32::MAX),
            failed: u32::try_from(row.get::<_, i64>(5)?).unwrap_or(u32::MAX),
        })
    })
    .optional()
}

/// The statement of [`attempts`] (`?1` the user, `?2` the limit): one range of
/// `puzzle_rounds_by_time` read backwards. Public for the same reason as [`near_sql`].
pub const ATTEMPTS_SQL: &str = "SELECT r.puzzle_id, r.solved, r.at_ms, r.rating_after, p.themes
    FROM puzzle_rounds r LEFT JOIN puzzles p ON p.id = r.puzzle_id
    WHERE r.user_id = ?1 ORDER BY r.at_ms DESC, r.puzzle_id DESC LIMIT ?2";

pub(super) fn attempts(
    conn: &Connection,
    user: UserId,
    limit: u32,
) -> Result<Vec<PuzzleAttempt>, StoreError> {
    let mut stmt = conn.prepare_cached(ATTEMPTS_SQL).map_err(io)?;
    let rows = stmt
        .query_map(params![user.0, limit], |row| {
            Ok(PuzzleAttempt {
                puzzle: row.get(0)?,
                solved: row.get(1)?,
                at_ms: row.get(2)?,
                rating_after: row.get(3)?,
                themes: themes_from_text(&row.get::<_, Option<String>>(4)?.unwrap_or_default()),
            })
        })
        .map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}

pub(super) fn export(
    conn: &Connection,
    after: Option<&str>,
    limit: u32,
) -> Result<Vec<PuzzleRecord>, StoreError> {
    match after {
        Some(after) => puzzles_where(
            conn,
            &format!(
                "SELECT {PUZZLE_COLUMNS} FROM puzzles p WHERE p.id > ?1 ORDER BY p.id LIMIT ?2"
            ),
            params![after, limit],
        ),
        None => puzzles_where(
            conn,
            &format!("SELECT {PUZZLE_COLUMNS} FROM puzzles p ORDER BY p.id LIMIT ?1"),
            params![limit],
        ),
    }
}
