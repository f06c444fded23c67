//! `marseillais migrate --from sqlite:DIR --to postgres://...`: copies a single-node SQLite
//! database into an empty PostgreSQL database, then verifies the copy.
//!
//! The source is first brought to the current schema by opening it as the server would
//! ([`SqliteStore::open`]: an older database is migrated in place, as at a server start); the
//! target's schema is made by [`PostgresStore::open`]. The copy itself runs in ONE Postgres
//! transaction (all or nothing), table by table in foreign-key order, in chunks of rows sent as
//! arrays (`unnest`), so the row values are copied untouched: events byte for byte, ids kept
//! (the identity sequences are moved past them, so new users and chat lines get new ids).
//!
//! Verified afterwards, from the committed data on both sides: the row count of every table,
//! per game a SHA-256 over its events in `seq` order, and per puzzle a SHA-256 over its row
//! (its line, rating, counts and themes). Any difference is reported, and the command exits
//! non-zero.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use futures_util::{StreamExt, pin_mut};
use rusqlite::OpenFlags;
use sha2::{Digest, Sha256};
use tokio_postgres::types::ToSql;

use super::postgres::{PostgresStore, PostgresUrl, TABLES};
use super::sqlite::{DB_FILE_NAME, SqliteStore};
use super::{Store, StoreError};

/// Rows sent to Postgres per statement.
const CHUNK: usize = 1000;

/// Why a migration could not be done (a verification mismatch is not an error: it is in the
/// [`MigrationReport`]).
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("no SQLite database at {0}")]
    NoSource(PathBuf),
    #[error("the target database is not empty ({rows} rows); pass --allow-non-empty to add to it")]
    TargetNotEmpty { rows: i64 },
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{}", super::postgres::error::pg_message(.0))]
    Postgres(#[from] tokio_postgres::Error),
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// What a migration copied and what the verification found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationReport {
    /// Per table: rows in the source, rows the target gained.
    pub tables: Vec<TableCount>,
    /// Games whose events were compared.
    pub games: usize,
    /// Games whose checksum differs between the two sides (or that one side lacks).
    pub mismatched_games: Vec<String>,
    /// Puzzles whose rows were compared.
    pub puzzles: usize,
    /// Puzzles whose checksum differs between the two sides (or that one side lacks).
    pub mismatched_puzzles: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCount {
    pub table: &'static str,
    pub source: i64,
    pub copied: i64,
}

impl MigrationReport {
    /// Whether every count and every checksum matched.
    pub fn verified(&self) -> bool {
        self.mismatched_games.is_empty()
            && self.mismatched_puzzles.is_empty()
            && self.tables.iter().all(|t| t.source == t.copied)
    }
}

/// The columns of a table and their kinds (the same names in both schemas).
fn columns(table: &str) -> &'static [(&'static str, Kind)] {
    use Kind::*;
    match table {
        "users" => &[
            ("id", Int),
            ("username", Text),
            ("username_key", Text),
            ("password_hash", Text),
            ("created_ms", Int),
            ("status", Text),
            ("status_ms", OptInt),
        ],
        "sessions" => &[
            ("id_hash", Bytes),
            ("user_id", Int),
            ("created_ms", Int),
            ("last_seen_ms", Int),
        ],
        "ratings" => &[
            ("user_id", Int),
            ("speed", Text),
            ("rating", Real),
            ("deviation", Real),
            ("volatility", Real),
            ("games", Int),
        ],
        "account_settings" => &[("user_id", Int), ("settings", Text), ("updated_ms", Int)],
        "games" => &[
            ("id", Text),
            ("status", Text),
            ("created_ms", Int),
            ("updated_ms", Int),
            ("summary", Text),
            ("listed", Bool),
            ("white_user", OptInt),
            ("black_user", OptInt),
            ("arena", OptText),
        ],
        "events" => &[("game_id", Text), ("seq", Int), ("payload", Text)],
        "rated_games" => &[
            ("game_id", Text),
            ("speed", Text),
            ("ended_ms", Int),
            ("white_user", Int),
            ("black_user", Int),
            ("score_white", Real),
            ("white_before_rating", Real),
            ("white_before_deviation", Real),
            ("white_before_volatility", Real),
            ("white_before_games", Int),
            ("white_after_rating", Real),
            ("white_after_deviation", Real),
            ("white_after_volatility", Real),
            ("white_after_games", Int),
            ("black_before_rating", Real),
            ("black_before_deviation", Real),
            ("black_before_volatility", Real),
            ("black_before_games", Int),
            ("black_after_rating", Real),
            ("black_after_deviation", Real),
            ("black_after_volatility", Real),
            ("black_after_games", Int),
        ],
        "turn_deadlines" => &[("game_id", Text), ("deadline_ms", Int)],
        "arenas" => &[
            ("id", Text),
            ("creator", OptInt),
            ("terms", Text),
            ("starts_ms", Int),
            ("ends_ms", Int),
            ("created_ms", Int),
        ],
        "arena_players" => &[
            ("arena_id", Text),
            ("user_id", Int),
            ("username", Text),
            ("joined_ms", Int),
            ("rating", Int),
            ("withdrawn", Bool),
        ],
        "puzzles" => &[
            ("id", Text),
            ("fen", Text),
            ("moves", Text),
            ("rating", Real),
            ("deviation", Real),
            ("volatility", Real),
            ("rated_plays", Int),
            ("plays", Int),
            ("rating_key", Int),
            ("themes", Text),
            ("source", Text),
            ("created_ms", Int),
        ],
        "puzzle_themes" => &[("theme", Text), ("puzzle_id", Text), ("rating_key", Int)],
        "puzzle_players" => &[
            ("user_id", Int),
            ("rating", Real),
            ("deviation", Real),
            ("volatility", Real),
            ("rounds", Int),
            ("solved", Int),
            ("failed", Int),
        ],
        "puzzle_rounds" => &[
            ("user_id", Int),
            ("puzzle_id", Text),
            ("solved", Bool),
            ("at_ms", Int),
            ("rating_after", Real),
        ],
        "lesson_steps" => &[
            ("user_id", Int),
            ("lesson", Text),
            ("step", Int),
            ("done_ms", Int),
        ],
        "explorer_games" => &[
            ("game_id", Text),
            ("family", Text),
            ("rated", Bool),
            ("result", Int),
            ("white_name", OptText),
            ("black_name", OptText),
            ("white_rating", OptReal),
            ("black_rating", OptReal),
            ("ended_ms", Int),
        ],
        "explorer_turns" => &[
            ("key", Int),
            ("turn", Text),
            ("family", Text),
            ("rated", Bool),
            ("games", Int),
            ("white", Int),
            ("draws", Int),
            ("black", Int),
            ("rating_sum", Real),
            ("rating_count", Int),
        ],
        "explorer_examples" => &[
            ("key", Int),
            ("family", Text),
            ("rated", Bool),
            ("ended_ms", Int),
            ("game_id", Text),
        ],
        "blocks" => &[("blocker", Int), ("blocked", Int), ("at_ms", Int)],
        "playban_outcomes" => &[
            ("user_id", Int),
            ("game_id", Text),
            ("outcome", Text),
            ("at_ms", Int),
        ],
        "chat_lines" => &[
            ("id", Int),
            ("game_id", OptText),
            ("room", Text),
            ("at_ms", Int),
            ("user_id", OptInt),
            ("author", Text),
            ("text", Text),
        ],
        "moderators" => &[("user_id", Int), ("granted_ms", Int)],
        "reports" => &[
            ("id", Int),
            ("reporter", Int),
            ("reported", Int),
            ("reason", Text),
            ("text", Text),
            ("game_id", OptText),
            ("created_ms", Int),
            ("status", Text),
            ("handled_by", OptText),
            ("handled_ms", OptInt),
        ],
        "marks" => &[
            ("user_id", Int),
            ("mark", Text),
            ("at_ms", Int),
            ("moderator", Text),
        ],
        "chat_bans" => &[
            ("user_id", Int),
            ("until_ms", OptInt),
            ("reason", Text),
            ("moderator", Text),
            ("at_ms", Int),
        ],
        "mod_log" => &[
            ("id", Int),
            ("moderator", Text),
            ("action", Text),
            ("target", Int),
            ("reason", Text),
            ("at_ms", Int),
            ("details", Text),
        ],
        _ => &[],
    }
}

/// The tables whose `id` is an identity column, to move past the copied ids.
const IDENTITY_TABLES: [&str; 4] = ["users", "chat_lines", "reports", "mod_log"];

#[derive(Clone, Copy, Debug)]
enum Kind {
    Text,
    OptText,
    Int,
    OptInt,
    Real,
    OptReal,
    Bool,
    Bytes,
}

impl Kind {
    fn pg_array(self) -> &'static str {
        match self {
            Kind::Text | Kind::OptText => "text[]",
            Kind::Int | Kind::OptInt => "int8[]",
            Kind::Real | Kind::OptReal => "float8[]",
            Kind::Bool => "bool[]",
            Kind::Bytes => "bytea[]",
        }
    }
}

/// One column's values of a chunk of rows.
enum Column {
    Text(Vec<String>),
    OptText(Vec<Option<String>>),
    Int(Vec<i64>),
    OptInt(Vec<Option<i64>>),
    Real(Vec<f64>),
    OptReal(Vec<Option<f64>>),
    Bool(Vec<bool>),
    Bytes(Vec<Vec<u8>>),
}

impl Column {
    fn new(kind: Kind) -> Column {
        match kind {
            Kind::Text => Column::Text(Vec::new()),
            Kind::OptText => Column::OptText(Vec::new()),
            Kind::Int => Column::Int(Vec::new()),
            Kind::OptInt => Column::OptInt(Vec::new()),
            Kind::Real => Column::Real(Vec::new()),
            Kind::OptReal => Column::OptReal(Vec::new()),
            Kind::Bool => Column::Bool(Vec::new()),
            Kind::Bytes => Column::Bytes(Vec::new()),
        }
    }

    fn push(&mut self, row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<()> {
        match self {
            Column::Text(v) => v.push(row.get(index)?),
            Column::OptText(v) => v.push(row.get(index)?),
            Column::Int(v) => v.push(row.get(index)?),
            Column::OptInt(v) => v.push(row.get(index)?),
            Column::Real(v) => v.push(row.get(index)?),
            Column::OptReal(v) => v.push(row.get(index)?),
            Column::Bool(v) => v.push(row.get(index)?),
            Column::Bytes(v) => v.push(row.get(index)?),
        }
        Ok(())
    }

    fn clear(&mut self) {
        match self {
            Column::Text(v) => v.clear(),
            Column::OptText(v) => v.clear(),
            Column::Int(v) => v.clear(),
            Column::OptInt(v) => v.clear(),
            Column::Real(v) => v.clear(),
            Column::OptReal(v) => v.clear(),
            Column::Bool(v) => v.clear(),
            Column::Bytes(v) => v.clear(),
        }
    }

    fn as_sql(&self) -> &(dyn ToSql + Sync) {
        match self {
            Column::Text(v) => v,
            Column::OptText(v) => v,
            Column::Int(v) => v,
            Column::OptInt(v) => v,
            Column::Real(v) => v,
            Column::OptReal(v) => v,
            Column::Bool(v) => v,
            Column::Bytes(v) => v,
        }
    }
}

/// Copies `sqlite_dir`'s database into `target`, then verifies the copy. Refuses a target that
/// already holds rows unless `allow_non_empty` (then the rows are added, and a row that
/// collides with one already there fails the whole copy).
pub async fn migrate(
    sqlite_dir: &Path,
    target: &PostgresUrl,
    allow_non_empty: bool,
) -> Result<MigrationReport, MigrateError> {
    let path = sqlite_dir.join(DB_FILE_NAME);
    if !path.is_file() {
        return Err(MigrateError::NoSource(path));
    }
    // Both schemas current: the source migrated as a server start would, the target created.
    let dir = sqlite_dir.to_path_buf();
    let sqlite = tokio::task::spawn_blocking(move || SqliteStore::open(&dir))
        .await
        .map_err(|e| StoreError::Io(e.to_string()))??;
    sqlite.close().await;
    drop(sqlite);
    let postgres = PostgresStore::open(target.expose()).await?;
    postgres.close().await;
    drop(postgres);

    let source = rusqlite::Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let (mut client, connection) =
        tokio_postgres::connect(target.expose(), tokio_postgres::NoTls).await?;
    let connection = tokio::spawn(connection);

    let before = pg_counts(&client).await?;
    let rows: i64 = before.values().sum();
    if rows > 0 && !allow_non_empty {
        return Err(MigrateError::TargetNotEmpty { rows });
    }

    let tx = client.transaction().await?;
    for table in TABLES {
        copy_table(&source, &tx, table).await?;
    }
    for table in IDENTITY_TABLES {
        tx.execute(
            &format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'),
                     COALESCE((SELECT max(id) FROM {table}), 0) + 1, false)"
            ),
            &[],
        )
        .await?;
    }
    tx.commit().await?;

    // Verification, from what is committed on both sides.
    let after = pg_counts(&client).await?;
    let mut tables = Vec::new();
    for table in TABLES {
        let source_count: i64 =
            source.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?;
        let copied =
            after.get(table).copied().unwrap_or(0) - before.get(table).copied().unwrap_or(0);
        tables.push(TableCount {
            table,
            source: source_count,
            copied,
        });
    }
    let source_sums = sqlite_checksums(&source)?;
    let target_sums = pg_checksums(&client).await?;
    let mut mismatched_games = mismatches(&source_sums, &target_sums);
    if !allow_non_empty {
        // Every game of the target came from the source.
        mismatched_games.extend(
            target_sums
                .keys()
                .filter(|game| !source_sums.contains_key(*game))
                .cloned(),
        );
    }
    let source_puzzles = sqlite_puzzle_sums(&source)?;
    let target_puzzles = pg_puzzle_sums(&client).await?;
    let mut mismatched_puzzles = mismatches(&source_puzzles, &target_puzzles);
    if !allow_non_empty {
        mismatched_puzzles.extend(
            target_puzzles
                .keys()
                .filter(|id| !source_puzzles.contains_key(*id))
                .cloned(),
        );
    }
    drop(client);
    let _ = connection.await;
    Ok(MigrationReport {
        tables,
        games: source_sums.len(),
        mismatched_games,
        puzzles: source_puzzles.len(),
        mismatched_puzzles,
    })
}

/// The keys of `source` whose checksum `target` lacks or holds otherwise.
fn mismatches(
    source: &BTreeMap<String, [u8; 32]>,
    target: &BTreeMap<String, [u8; 32]>,
) -> Vec<String> {
    source
        .iter()
        .filter(|(key, sum)| target.get(*key) != Some(sum))
        .map(|(key, _)| key.clone())
        .collect()
}

/// The columns of a puzzle a checksum covers, in the order [`PuzzleRow`] reads them.
const PUZZLE_ROW: &str = "SELECT id, fen, moves, rating, deviation, volatility, rated_plays,
    plays, rating_key, themes, source, created_ms FROM puzzles ORDER BY id";

/// A puzzle's row as both sides read it, for its checksum.
struct PuzzleRow {
    texts: [String; 5],
    reals: [f64; 3],
    ints: [i64; 4],
}

impl PuzzleRow {
    /// SHA-256 over every column: texts framed by their length, numbers by their bits.
    fn checksum(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        for text in &self.texts {
            hash_event(&mut hasher, text);
        }
        for real in self.reals {
            hasher.update(real.to_bits().to_le_bytes());
        }
        for int in self.ints {
            hasher.update(int.to_le_bytes());
        }
        hasher.finalize().into()
    }
}

/// SHA-256 of every puzzle's row, by id, from SQLite.
fn sqlite_puzzle_sums(
    source: &rusqlite::Connection,
) -> Result<BTreeMap<String, [u8; 32]>, rusqlite::Error> {
    let mut sums = BTreeMap::new();
    let mut statement = source.prepare(PUZZLE_ROW)?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let id: String = row.get(0)?;
        let puzzle = PuzzleRow {
            texts: [
                id.clone(),
                row.get(1)?,
                row.get(2)?,
                row.get(9)?,
                row.get(10)?,
            ],
            reals: [row.get(3)?, row.get(4)?, row.get(5)?],
            ints: [row.get(6)?, row.get(7)?, row.get(8)?, row.get(11)?],
        };
        sums.insert(id, puzzle.checksum());
    }
    Ok(sums)
}

/// The same checksums from Postgres, streamed.
async fn pg_puzzle_sums(
    client: &tokio_postgres::Client,
) -> Result<BTreeMap<String, [u8; 32]>, tokio_postgres::Error> {
    let mut sums = BTreeMap::new();
    let statement = client.prepare(PUZZLE_ROW).await?;
    let rows = client
        .query_raw(&statement, std::iter::empty::<&(dyn ToSql + Sync)>())
        .await?;
    pin_mut!(rows);
    while let Some(row) = rows.next().await {
        let row = row?;
        let id: String = row.try_get(0)?;
        let puzzle = PuzzleRow {
            texts: [
                id.clone(),
                row.try_get(1)?,
                row.try_get(2)?,
                row.try_get(9)?,
                row.try_get(10)?,
            ],
            reals: [row.try_get(3)?, row.try_get(4)?, row.try_get(5)?],
            ints: [
                row.try_get(6)?,
                row.try_get(7)?,
                row.try_get(8)?,
                row.try_get(11)?,
            ],
        };
        sums.insert(id, puzzle.checksum());
    }
    Ok(sums)
}

async fn pg_counts(
    client: &tokio_postgres::Client,
) -> Result<BTreeMap<&'static str, i64>, tokio_postgres::Error> {
    let mut counts = BTreeMap::new();
    for table in TABLES {
        let row = client
            .query_one(&format!("SELECT count(*) FROM {table}"), &[])
            .await?;
        counts.insert(table, row.try_get(0)?);
    }
    Ok(counts)
}

/// Copies one table in chunks of [`CHUNK`] rows.
async fn copy_table(
    source: &rusqlite::Connection,
    tx: &tokio_postgres::Transaction<'_>,
    table: &str,
) -> Result<(), MigrateError> {
    let spec = columns(table);
    let names: Vec<&str> = spec.iter().map(|(name, _)| *name).collect();
    let arrays: Vec<String> = spec
        .iter()
        .enumerate()
        .map(|(i, (_, kind))| format!("${}::{}", i + 1, kind.pg_array()))
        .collect();
    let insert = tx
        .prepare(&format!(
            "INSERT INTO {table} ({}) SELECT * FROM unnest({})",
            names.join(", "),
            arrays.join(", ")
        ))
        .await?;
    let mut chunk: Vec<Column> = spec.iter().map(|(_, kind)| Column::new(*kind)).collect();
    let mut statement = source.prepare(&format!("SELECT {} FROM {table}", names.join(", ")))?;
    let mut rows = statement.query([])?;
    let mut in_chunk = 0;
    loop {
        let row = rows.next()?;
        if let Some(row) = row {
            for (i, column) in chunk.iter_mut().enumerate() {
                column.push(row, i)?;
            }
            in_chunk += 1;
        }
        if in_chunk == CHUNK || (row.is_none() && in_chunk > 0) {
            let params: Vec<&(dyn ToSql + Sync)> = chunk.iter().map(Column::as_sql).collect();
            tx.execute(&insert, &params).await?;
            chunk.iter_mut().for_each(Column::clear);
            in_chunk = 0;
        }
        if row.is_none() {
            return Ok(());
        }
    }
}

/// Adds one event to a game's checksum: its length, then its bytes (unambiguous framing).
fn hash_event(hasher: &mut Sha256, payload: &str) {
    hasher.update((payload.len() as u64).to_le_bytes());
    hasher.update(payload.as_bytes());
}

/// SHA-256 of every game's events in seq order, from SQLite.
fn sqlite_checksums(
    source: &rusqlite::Connection,
) -> Result<BTreeMap<String, [u8; 32]>, rusqlite::Error> {
    let mut sums = BTreeMap::new();
    let mut statement =
        source.prepare("SELECT game_id, payload FROM events ORDER BY game_id, seq")?;
    let mut rows = statement.query([])?;
    let mut current: Option<(String, Sha256)> = None;
    while let Some(row) = rows.next()? {
        let game: String = row.get(0)?;
        let payload: String = row.get(1)?;
        if current.as_ref().is_none_or(|(g, _)| *g != game) {
            if let Some((g, hasher)) = current.take() {
                sums.insert(g, hasher.finalize().into());
            }
            current = Some((game, Sha256::new()));
        }
        if let Some((_, hasher)) = current.as_mut() {
            hash_event(hasher, &payload);
        }
    }
    if let Some((g, hasher)) = current {
        sums.insert(g, hasher.finalize().into());
    }
    Ok(sums)
}

/// The same checksums from Postgres, streamed (a big log is not held in memory at once).
async fn pg_checksums(
    client: &tokio_postgres::Client,
) -> Result<BTreeMap<String, [u8; 32]>, tokio_postgres::Error> {
    let mut sums = BTreeMap::new();
    let statement = client
        .prepare("SELECT game_id, payload FROM events ORDER BY game_id, seq")
        .await?;
    let rows = client
        .query_raw(&statement, std::iter::empty::<&(dyn ToSql + Sync)>())
        .await?;
    pin_mut!(rows);
    let mut current: Option<(String, Sha256)> = None;
    while let Some(row) = rows.next().await {
        let row = row?;
        let game: String = row.try_get(0)?;
        let payload: &str = row.try_get(1)?;
        if current.as_ref().is_none_or(|(g, _)| *g != game) {
            if let Some((g, hasher)) = current.take() {
                sums.insert(g, hasher.finalize().into());
            }
            current = Some((game, Sha256::new()));
        }
        if let Some((_, hasher)) = current.as_mut() {
            hash_event(hasher, payload);
        }
    }
    if let Some((g, hasher)) = current {
        sums.insert(g, hasher.finalize().into());
    }
    Ok(sums)
}
