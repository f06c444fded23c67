//! [`MemoryStore`]: an in-memory [`Store`] for tests, with the same contract as the SQLite store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::future::BoxFuture;

use super::{
    Commit, GameListing, GameStatus, LoadedGame, Store, StoreError, StoreFuture, listing_order,
};

#[derive(Default)]
struct MemoryInner {
    games: HashMap<String, LoadedGame>,
    closed: bool,
}

/// An in-memory [`Store`] for tests: same contract as the SQLite store (sequence check,
/// all-or-nothing commits, ordering, `Closed` after `close()`), but nothing survives the process.
#[derive(Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<MemoryInner>>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// A poisoned lock only means a test panicked mid-call; the map itself is always consistent
    /// because every mutation is done in one step after all checks.
    fn lock(&self) -> MutexGuard<'_, MemoryInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Checks every commit against the stored counts (and the commits before it in the same
    /// unit), then applies them all: nothing is changed unless everything fits.
    fn commit_now(&self, commits: Vec<Commit>) -> Result<(), StoreError> {
        let mut inner = self.lock();
        if inner.closed {
            return Err(StoreError::Closed);
        }
        let mut counts: HashMap<&str, u64> = HashMap::new();
        for commit in &commits {
            let stored = match counts.get(commit.game_id.as_str()) {
                Some(count) => *count,
                None => inner
                    .games
                    .get(&commit.game_id)
                    .map_or(0, |(_, events)| events.len() as u64),
            };
            if commit.first_seq != stored {
                return Err(StoreError::Conflict {
                    game_id: commit.game_id.clone(),
                    expected: stored,
                    got: commit.first_seq,
                });
            }
            counts.insert(&commit.game_id, stored + commit.events.len() as u64);
        }
        for commit in commits {
            let mut listing = commit.listing;
            listing.id = commit.game_id.clone();
            let entry = inner
                .games
                .entry(commit.game_id)
                .or_insert_with(|| (listing.clone(), Vec::new()));
            entry.0 = listing;
            entry.1.extend(commit.events);
        }
        Ok(())
    }

    fn games_where(&self, keep: impl Fn(&GameListing) -> bool) -> Vec<LoadedGame> {
        let mut games: Vec<LoadedGame> = self
            .lock()
            .games
            .values()
            .filter(|(listing, _)| keep(listing))
            .cloned()
            .collect();
        games.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        games
    }
}

impl Store for MemoryStore {
    fn commit(&self, commit: Commit) -> StoreFuture<()> {
        self.commit_all(vec![commit])
    }

    fn commit_all(&self, commits: Vec<Commit>) -> StoreFuture<()> {
        let result = self.commit_now(commits);
        Box::pin(async move { result })
    }

    fn load_unfinished(&self) -> StoreFuture<Vec<LoadedGame>> {
        let games = self.games_where(|listing| listing.status != GameStatus::Finished);
        Box::pin(async move { Ok(games) })
    }

    fn load_playing(&self) -> StoreFuture<Vec<LoadedGame>> {
        let games = self.games_where(|listing| listing.status == GameStatus::Playing);
        Box::pin(async move { Ok(games) })
    }

    fn load_stale(
        &self,
        status: GameStatus,
        updated_before_ms: i64,
        limit: u32,
        offset: u32,
    ) -> StoreFuture<Vec<LoadedGame>> {
        let mut games = self.games_where(|listing| {
            listing.status == status && listing.updated_ms < updated_before_ms
        });
        games.sort_by(|a, b| (a.0.updated_ms, &a.0.id).cmp(&(b.0.updated_ms, &b.0.id)));
        let games = games
            .into_iter()
            .skip(offset as usize)
            .take(limit as usize)
            .collect();
        Box::pin(async move { Ok(games) })
    }

    fn load_game(&self, id: &str) -> StoreFuture<Option<LoadedGame>> {
        let game = self.lock().games.get(id).cloned();
        Box::pin(async move { Ok(game) })
    }

    fn list(&self, status: GameStatus, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        let mut rows: Vec<GameListing> = self
            .lock()
            .games
            .values()
            .filter(|(listing, _)| listing.status == status && listing.listed)
            .map(|(listing, _)| listing.clone())
            .collect();
        rows.sort_by(listing_order);
        let rows = rows
            .into_iter()
            .skip(offset as usize)
            .take(limit as usize)
            .collect();
        Box::pin(async move { Ok(rows) })
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        self.lock().closed = true;
        Box::pin(async {})
    }
}
