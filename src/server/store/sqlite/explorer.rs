//! The opening explorer on SQLite (schema v10, `SCHEMA_V10` says what each table is for): a
//! counted game's rows written inside the writer's transaction (the commit that ends the game,
//! or a slice of [`crate::server::store::Store::add_explorer_games`]), and a position read as
//! two index ranges.

use rusqlite::{Connection, params};

use crate::server::store::{
    ClockFamily, EXPLORER_EXAMPLES_PER_BUCKET, ExplorerExample, ExplorerGame, ExplorerPosition,
    ExplorerResult, ExplorerSeat, ExplorerTurnRow, StoreError, explorer_lock_order,
};

/// Counts `game` unless its id is counted already; whether it was new. One insert into
/// `explorer_games` decides (its primary key), then per position: one upsert of the turn's
/// row, one insert of the example and one delete of the bucket's examples past the newest
/// [`EXPLORER_EXAMPLES_PER_BUCKET`] (a range of the primary key).
pub(super) fn add(conn: &Connection, game: &ExplorerGame) -> Result<bool, rusqlite::Error> {
    let inserted = conn
        .prepare_cached(
            "INSERT INTO explorer_games (game_id, family, rated, result, white_name, black_name,
                 white_rating, black_rating, ended_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (game_id) DO NOTHING",
        )?
        .execute(params![
            game.game_id,
            game.family.as_str(),
            game.rated,
            game.result.as_i64(),
            game.white.name,
            game.black.name,
            game.white.rating,
            game.black.rating,
            game.ended_ms,
        ])?;
    if inserted == 0 {
        return Ok(false);
    }
    let (white, draws, black) = game.result.counts();
    let (sum, count) = game.rating_sum();
    let family = game.family.as_str();
    let mut upsert = conn.prepare_cached(
        "INSERT INTO explorer_turns (key, turn, family, rated, games, white, draws, black,
             rating_sum, rating_count)
         VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (key, turn, family, rated) DO UPDATE SET games = games + 1,
             white = white + excluded.white, draws = draws + excluded.draws,
             black = black + excluded.black, rating_sum = rating_sum + excluded.rating_sum,
             rating_count = rating_count + excluded.rating_count",
    )?;
    let mut example = conn.prepare_cached(
        "INSERT INTO explorer_examples (key, family, rated, ended_ms, game_id)
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
    )?;
    let mut prune = conn.prepare_cached(PRUNE)?;
    for turn in explorer_lock_order(&game.turns) {
        upsert.execute(params![
            turn.key,
            turn.turn,
            family,
            game.rated,
            white as i64,
            draws as i64,
            black as i64,
            sum,
            count as i64,
        ])?;
        example.execute(params![
            turn.key,
            family,
            game.rated,
            game.ended_ms,
            game.game_id
        ])?;
        prune.execute(params![turn.key, family, game.rated])?;
    }
    Ok(true)
}

/// Deletes a bucket's examples older than its newest [`EXPLORER_EXAMPLES_PER_BUCKET`]: the
/// subquery finds the first one to go (none: nothing is deleted).
const PRUNE: &str = "DELETE FROM explorer_examples WHERE key = ?1 AND family = ?2 AND rated = ?3
    AND (ended_ms, game_id) <= (SELECT ended_ms, game_id FROM explorer_examples
        WHERE key = ?1 AND family = ?2 AND rated = ?3
        ORDER BY ended_ms DESC, game_id DESC LIMIT 1 OFFSET 5)";

const _: () = assert!(EXPLORER_EXAMPLES_PER_BUCKET == 5, "PRUNE's OFFSET");

/// The turn rows of a position (public for the plan test: `sqlite::EXPLORER_TURNS_SQL`).
pub const TURNS_SQL: &str = "SELECT turn, family, rated, games, white, draws, black, rating_sum,
    rating_count FROM explorer_turns WHERE key = ?1";

/// The kept examples of a position with their games (public for the plan test).
pub const EXAMPLES_SQL: &str = "SELECT g.game_id, g.family, g.rated, g.result, g.white_name,
    g.black_name, g.white_rating, g.black_rating, g.ended_ms
    FROM explorer_examples e JOIN explorer_games g ON g.game_id = e.game_id WHERE e.key = ?1";

fn family(text: &str) -> Result<ClockFamily, rusqlite::Error> {
    ClockFamily::parse(text).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("unknown clock family {text:?}").into(),
        )
    })
}

fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

pub(super) fn position(conn: &Connection, key: i64) -> Result<ExplorerPosition, StoreError> {
    let io = |e: rusqlite::Error| StoreError::Io(e.to_string());
    let mut turns = Vec::new();
    let mut stmt = conn.prepare_cached(TURNS_SQL).map_err(io)?;
    let mut rows = stmt.query([key]).map_err(io)?;
    while let Some(row) = rows.next().map_err(io)? {
        let text: String = row.get(1).map_err(io)?;
        turns.push(ExplorerTurnRow {
            turn: row.get(0).map_err(io)?,
            family: family(&text).map_err(io)?,
            rated: row.get(2).map_err(io)?,
            games: count(row.get(3).map_err(io)?),
            white: count(row.get(4).map_err(io)?),
            draws: count(row.get(5).map_err(io)?),
            black: count(row.get(6).map_err(io)?),
            rating_sum: row.get(7).map_err(io)?,
            rating_count: count(row.get(8).map_err(io)?),
        });
    }
    let mut examples = Vec::new();
    let mut stmt = conn.prepare_cached(EXAMPLES_SQL).map_err(io)?;
    let mut rows = stmt.query([key]).map_err(io)?;
    while let Some(row) = rows.next().map_err(io)? {
        let text: String = row.get(1).map_err(io)?;
        examples.push(ExplorerExample {
            game_id: row.get(0).map_err(io)?,
            family: family(&text).map_err(io)?,
            rated: row.get(2).map_err(io)?,
            result: ExplorerResult::from_i64(row.get(3).map_err(io)?),
            white: ExplorerSeat {
                name: row.get(4).map_err(io)?,
                rating: row.get(6).map_err(io)?,
            },
            black: ExplorerSeat {
                name: row.get(5).map_err(io)?,
                rating: row.get(7).map_err(io)?,
            },
            ended_ms: row.get(8).map_err(io)?,
        });
    }
    Ok(ExplorerPosition { turns, examples })
}
