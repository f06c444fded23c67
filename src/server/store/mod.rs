//! The durable game store: the [`Store`] trait the server core persists through (with its
//! durability contract) and its value types. The implementations live beside it: [`sqlite`] (the
//! production store), memory.rs ([`MemoryStore`], for tests) and failing.rs ([`FailingStore`],
//! failure injection for tests), re-exported here.
//!
//! The room keeps an append-only, per-game event log (event sourcing). The store does not interpret
//! events: they are opaque JSON strings. It guarantees only durability (a commit resolves `Ok` once
//! it is on disk), ordering (events come back in `seq` order) and uniqueness (a `seq` is written at
//! most once, enforced by the `first_seq` check). The production implementation is
//! [`sqlite::SqliteStore`].

pub mod codec;
mod failing;
mod memory;
pub mod sqlite;

pub use failing::FailingStore;
pub use memory::MemoryStore;
pub use sqlite::{SqliteOptions, SqliteStore, StoreStats};

use std::str::FromStr;

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
