//! The durable game store: the [`Store`] trait the server core persists through, its value types,
//! and two in-process implementations for tests ([`MemoryStore`], [`FailingStore`]).
//!
//! The room keeps an append-only, per-game event log (event sourcing). The store does not interpret
//! events: they are opaque JSON strings. It guarantees only durability (a commit resolves `Ok` once
//! it is on disk), ordering (events come back in `seq` order) and uniqueness (a `seq` is written at
//! most once, enforced by the `first_seq` check). The production implementation is
//! [`sqlite::SqliteStore`].

mod checkpoint;
pub mod codec;
pub mod sqlite;
mod writer;

pub use sqlite::{SqliteOptions, SqliteStore, StoreStats};

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::future::BoxFuture;

/// Where a game is in its life; drives the lobby listing and startup recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    Open,
    Playing,
    Finished,
}

impl GameStatus {
    /// The text stored in the database and used in `?status=` (same as the serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Open => "open",
            GameStatus::Playing => "playing",
            GameStatus::Finished => "finished",
        }
    }
}

/// A status text that is none of `open`, `playing`, `finished`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown game status {0:?}")]
pub struct UnknownStatus(pub String);

impl FromStr for GameStatus {
    type Err = UnknownStatus;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "open" => Ok(GameStatus::Open),
            "playing" => Ok(GameStatus::Playing),
            "finished" => Ok(GameStatus::Finished),
            other => Err(UnknownStatus(other.to_owned())),
        }
    }
}

/// The listing row of a game, rewritten with every commit (what `GET /api/games?status=` pages over).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameListing {
    pub id: String,
    pub status: GameStatus,
    /// Unix milliseconds.
    pub created_ms: i64,
    /// Unix milliseconds; `list()` orders by it, newest first.
    pub updated_ms: i64,
    /// JSON object owned by the room (players, clock, result, ...), returned as is by `list()`.
    pub summary: String,
    /// Whether the game may appear in `list()` at all. An unlisted (private) game is reachable by
    /// its id only: its invite link must not be grabbed by strangers from the lobby.
    pub listed: bool,
}

/// One atomic, durable append: events `first_seq, first_seq+1, ...` of one game plus its new listing row.
/// Several of them (of different games) can be made one all-or-nothing unit with
/// [`Store::commit_all`].
///
/// The store keys everything by `game_id`; `listing.id` is expected to be the same and is
/// overwritten with `game_id` when stored, so the two can never disagree on disk.
#[derive(Clone, Debug)]
pub struct Commit {
    pub game_id: String,
    /// 0 for the game's first event; must equal the number of events already stored for the game.
    pub first_seq: u64,
    /// JSON, opaque to the store. May be empty (a listing-only update), still sequence-checked.
    pub events: Vec<String>,
    pub listing: GameListing,
}

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The commit's `first_seq` is not the number of events stored: another writer got there first,
    /// or the room's idea of its own log is wrong. Nothing of the commit was stored.
    #[error("sequence conflict for game {game_id}: expected {expected}, got {got}")]
    Conflict {
        game_id: String,
        expected: u64,
        got: u64,
    },
    /// Message from SQLite / the OS, e.g. disk full; never acknowledge the move.
    #[error("storage failure: {0}")]
    Io(String),
    /// `close()` was called (or the writer is gone); nothing more is accepted.
    #[error("the store is shut down")]
    Closed,
}

/// A loaded game: its listing row and all its events in `seq` order.
pub type LoadedGame = (GameListing, Vec<String>);

/// What every [`Store`] call returns: a boxed future, so that the trait stays
/// object-safe (`Arc<dyn Store>`), owning all it needs (`'static`).
pub type StoreFuture<T> = BoxFuture<'static, Result<T, StoreError>>;

/// The persistence interface of the server core. Implementations must be cheap to call from many
/// tasks at once; the server holds an `Arc<dyn Store>`.
pub trait Store: Send + Sync + 'static {
    /// Resolves only once the commit is durable on disk (fsync'd). Commits from many games are batched by a writer
    /// thread into one transaction (group commit). All-or-nothing per Commit: on Err nothing of it is stored.
    ///
    /// Every implementation takes the commit when `commit` is called, not when the future is first
    /// polled: commits of one game issued back to back apply in call order, and dropping the future
    /// does not withdraw the commit (it may still be stored).
    fn commit(&self, commit: Commit) -> StoreFuture<()>;
    /// Like [`Store::commit`] for several commits at once, of one game or several, as ONE unit:
    /// all of them are stored, or (on any error, e.g. one `first_seq` conflict) none. A rematch
    /// uses it to record the old game's `rematch` event and the new game's first events together.
    /// The error is the first commit's that failed. Commits of the same game apply in order.
    fn commit_all(&self, commits: Vec<Commit>) -> StoreFuture<()>;
    /// Every game whose status is not Finished, with all its events in seq order.
    fn load_unfinished(&self) -> StoreFuture<Vec<LoadedGame>>;
    /// Every game being played (status Playing), with all its events (startup recovery: open
    /// games are loaded on demand, they have no timers to run).
    fn load_playing(&self) -> StoreFuture<Vec<LoadedGame>>;
    /// Games with this status whose listing row was last updated before `updated_before_ms`
    /// (listed or not), with their events, oldest update first, paged: the candidates for
    /// expiry (`rooms.rs`).
    fn load_stale(
        &self,
        status: GameStatus,
        updated_before_ms: i64,
        limit: u32,
        offset: u32,
    ) -> StoreFuture<Vec<LoadedGame>>;
    /// One game (any status) with its events, or None.
    fn load_game(&self, id: &str) -> StoreFuture<Option<LoadedGame>>;
    /// Listed rows (`listed == true`) with that status, newest updated first, paged.
    fn list(&self, status: GameStatus, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>>;
    /// Flush and stop the writer (graceful shutdown). Idempotent.
    fn close(&self) -> BoxFuture<'static, ()>;
}

/// Orders listing rows the way every store must return them: newest `updated_ms` first, then by id
/// so that paging is stable when two games were updated in the same millisecond.
fn listing_order(a: &GameListing, b: &GameListing) -> std::cmp::Ordering {
    b.updated_ms
        .cmp(&a.updated_ms)
        .then_with(|| b.id.cmp(&a.id))
}

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

/// Wraps a store and, while its shared switch is on, fails every commit with
/// `StoreError::Io("injected")` without passing it on (so nothing is stored). Reads and `close()`
/// always go to the inner store. The switch starts off.
///
/// Used to prove the server never acknowledges a move the store did not take.
#[derive(Clone)]
pub struct FailingStore {
    inner: Arc<dyn Store>,
    failing: Arc<AtomicBool>,
}

impl FailingStore {
    /// Wraps `inner` with a new switch, initially off (commits pass through).
    pub fn new(inner: Arc<dyn Store>) -> Self {
        Self::with_switch(inner, Arc::new(AtomicBool::new(false)))
    }

    /// Wraps `inner` with a switch the caller already holds.
    pub fn with_switch(inner: Arc<dyn Store>, failing: Arc<AtomicBool>) -> Self {
        Self { inner, failing }
    }

    /// The shared switch: `store(true, ..)` makes every later commit fail.
    pub fn switch(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.failing)
    }

    /// Turns failure injection on or off.
    pub fn set_failing(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    pub fn is_failing(&self) -> bool {
        self.failing.load(Ordering::SeqCst)
    }
}

impl Store for FailingStore {
    fn commit(&self, commit: Commit) -> StoreFuture<()> {
        if self.is_failing() {
            return Box::pin(async { Err(StoreError::Io("injected".to_owned())) });
        }
        self.inner.commit(commit)
    }

    fn commit_all(&self, commits: Vec<Commit>) -> StoreFuture<()> {
        if self.is_failing() {
            return Box::pin(async { Err(StoreError::Io("injected".to_owned())) });
        }
        self.inner.commit_all(commits)
    }

    fn load_unfinished(&self) -> StoreFuture<Vec<LoadedGame>> {
        self.inner.load_unfinished()
    }

    fn load_playing(&self) -> StoreFuture<Vec<LoadedGame>> {
        self.inner.load_playing()
    }

    fn load_stale(
        &self,
        status: GameStatus,
        updated_before_ms: i64,
        limit: u32,
        offset: u32,
    ) -> StoreFuture<Vec<LoadedGame>> {
        self.inner
            .load_stale(status, updated_before_ms, limit, offset)
    }

    fn load_game(&self, id: &str) -> StoreFuture<Option<LoadedGame>> {
        self.inner.load_game(id)
    }

    fn list(&self, status: GameStatus, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        self.inner.list(status, limit, offset)
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        self.inner.close()
    }
}
