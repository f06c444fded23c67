//! The puzzle set between its CSV and the store: `marseillais puzzles import FILE` and
//! `marseillais puzzles export --out FILE`. An import adds the puzzles the store does not
//! have (an id already there is left alone, with its plays and rating); an export writes every
//! stored puzzle by id, with the rating and plays the trainer gave it, so that a set moves from
//! one server to another, or back into the repository.

use std::path::Path;
use std::sync::Arc;

use super::csv::{CsvError, CsvPuzzle};
use super::theme::Theme;
use crate::server::config::StoreLocation;
use crate::server::domain::rating::Rating;
use crate::server::store::{PostgresStore, PuzzleRecord, SqliteStore, Store, StoreError};

/// Puzzles per store call, both ways.
pub const CHUNK: u32 = 500;

/// Why an import or an export failed.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error("the store: {0}")]
    Store(#[from] StoreError),
    #[error("{path}: {error}")]
    Csv { path: String, error: CsvError },
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
}

/// Opens the store a location names (`sqlite:DIR` or `postgres://...`).
pub async fn open(location: &StoreLocation) -> Result<Arc<dyn Store>, StoreError> {
    Ok(match location {
        StoreLocation::Sqlite(dir) => {
            let dir = dir.clone();
            let store = tokio::task::spawn_blocking(move || SqliteStore::open(&dir))
                .await
                .map_err(|e| StoreError::Io(e.to_string()))??;
            Arc::new(store)
        }
        StoreLocation::Postgres(url) => Arc::new(PostgresStore::open(url.expose()).await?),
    })
}

/// A CSV row as the store keeps it: its rating with a new puzzle's volatility and no rated
/// plays yet, stamped `created_ms`.
pub fn record_of(row: &CsvPuzzle, created_ms: i64) -> PuzzleRecord {
    PuzzleRecord {
        id: row.id.clone(),
        fen: row.fen.clone(),
        moves: row.moves.clone(),
        rating: Rating {
            rating: f64::from(row.rating),
            deviation: f64::from(row.deviation),
            volatility: Rating::INITIAL.volatility,
            games: 0,
        },
        plays: row.plays,
        themes: row
            .themes
            .iter()
            .map(|theme| theme.key().to_string())
            .collect(),
        source: row.source.clone(),
        created_ms,
    }
}

/// A stored puzzle as a CSV row (ratings rounded; a theme key this version does not know is
/// left out).
pub fn row_of(record: &PuzzleRecord) -> CsvPuzzle {
    CsvPuzzle {
        id: record.id.clone(),
        fen: record.fen.clone(),
        moves: record.moves.clone(),
        rating: record.rating.rating.round() as i32,
        deviation: record.rating.deviation.round() as i32,
        popularity: 0,
        plays: record.plays,
        themes: record
            .themes
            .iter()
            .filter_map(|key| Theme::from_key(key))
            .collect(),
        source: record.source.clone(),
    }
}

/// Reads a puzzle CSV (every row checked) and adds it to the store; answers how many puzzles
/// were new.
pub async fn import(
    store: &dyn Store,
    path: &Path,
    created_ms: i64,
) -> Result<(usize, u64), TransferError> {
    let text = tokio::fs::read_to_string(path)
        .await
        .map_err(|error| TransferError::Io {
            path: path.display().to_string(),
            error,
        })?;
    let rows = super::csv::read(&text).map_err(|error| TransferError::Csv {
        path: path.display().to_string(),
        error,
    })?;
    let mut inserted = 0;
    for chunk in rows.chunks(CHUNK as usize) {
        let records = chunk.iter().map(|row| record_of(row, created_ms)).collect();
        inserted += store.import_puzzles(records).await?;
    }
    Ok((rows.len(), inserted))
}

/// Every stored puzzle, by id.
pub async fn export(store: &dyn Store) -> Result<Vec<CsvPuzzle>, StoreError> {
    let mut rows = Vec::new();
    let mut after = None;
    loop {
        let page = store.export_puzzles(after.clone(), CHUNK).await?;
        rows.extend(page.iter().map(row_of));
        match page.last() {
            Some(last) if page.len() == CHUNK as usize => after = Some(last.id.clone()),
            _ => break,
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store::MemoryStore;

    fn row(id: &str) -> CsvPuzzle {
        CsvPuzzle {
            id: id.to_string(),
            fen: "r3k3/8/8/8/8/8/8/R3K3 w - - 0 10".to_string(),
            moves: "e1e2,e2e3 a8a1,a1a2".to_string(),
            rating: 1130,
            deviation: 500,
            popularity: 0,
            plays: 0,
            themes: vec![Theme::Crushing, Theme::Endgame, Theme::Short],
            source: "selfplay:1:2".to_string(),
        }
    }

    #[test]
    fn a_row_goes_into_the_store_and_comes_back_the_same() {
        let original = row("abc123");
        let record = record_of(&original, 42);
        assert_eq!(record.rating.rating, 1130.0);
        assert_eq!(record.rating.games, 0);
        assert_eq!(record.themes, vec!["crushing", "endgame", "short"]);
        assert_eq!(row_of(&record), original);
    }

    #[tokio::test]
    async fn an_import_adds_new_ids_only_and_the_export_pages_through_all() {
        let store = MemoryStore::new();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("set.csv");
        let rows: Vec<CsvPuzzle> = (0..(CHUNK + 3)).map(|n| row(&format!("p{n:05}"))).collect();
        let mut text = Vec::new();
        super::super::csv::write(&mut text, &rows).unwrap();
        std::fs::write(&path, &text).unwrap();
        assert_eq!(
            import(&store, &path, 1).await.unwrap(),
            (rows.len(), rows.len() as u64)
        );
        assert_eq!(import(&store, &path, 2).await.unwrap(), (rows.len(), 0));
        assert_eq!(export(&store).await.unwrap(), rows);
    }
}
