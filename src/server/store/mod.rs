//! The durable game store: the [`Store`] trait the server core persists through (with its
//! durability contract) and its value types. The implementations live beside it: [`sqlite`] (the
//! production store), memory/ ([`MemoryStore`], for tests) and failing.rs ([`FailingStore`],
//! failure injection for tests), re-exported here.
//!
//! Besides the games, the store keeps accounts, chat, settings, arenas and (schema v8 on SQLite,
//! v5 on Postgres) puzzles, in four tables described in `sqlite/schema.rs` (`SCHEMA_V8`):
//! `puzzles` (each puzzle, its rating and `rating_key`, the rating rounded, kept in step),
//! `puzzle_themes` (one row per puzzle and theme, with the key copied), `puzzle_players` (a
//! player's puzzle rating and counts) and `puzzle_rounds` (each first try of a player at a
//! puzzle); their values and the rating of a round are in puzzle.rs.
//!
//! The room keeps an append-only, per-game event log (event sourcing). The store does not interpret
//! events: they are opaque JSON strings. It guarantees only durability (a commit resolves `Ok` once
//! it is on disk), ordering (events come back in `seq` order) and uniqueness (a `seq` is written at
//! most once, enforced by the `first_seq` check). The production implementation is
//! [`sqlite::SqliteStore`].

mod arena;
mod block;
pub mod codec;
mod erase;
mod explorer;
mod failing;
mod lesson;
mod memory;
pub mod migrate;
mod moderation;
mod playban;
pub mod postgres;
mod puzzle;
pub mod sqlite;

pub use arena::{ArenaPlayer, ArenaRange, ArenaRecord, range_order as arena_range_order};
pub use block::{BlockEntry, BlockRelation, entry_order as block_entry_order};
pub use erase::erase_name;
pub use explorer::{
    ClockFamily, EXAMPLES_PER_BUCKET as EXPLORER_EXAMPLES_PER_BUCKET, EXPLORER_SLICE,
    ExplorerExample, ExplorerGame, ExplorerPosition, ExplorerResult, ExplorerSeat, ExplorerTurn,
    ExplorerTurnRow, lock_order as explorer_lock_order,
};
pub use failing::FailingStore;
pub use lesson::LessonStep;
pub use memory::MemoryStore;
pub use moderation::{
    CONSOLE as MOD_CONSOLE, ChatBan, LeaderboardRow, Mark, MarkRecord, ModAction, ModActionKind,
    ModLogEntry, NewReport, Report, ReportFiled, ReportReason, ReportStatus,
};
pub use playban::{
    PLAYBAN_READ_LIMIT, PlaybanEnd, PlaybanEntry, PlaybanOutcome, entry_order as playban_order,
};
pub use postgres::PostgresStore;
pub use puzzle::{
    IMPORT_SLICE as PUZZLE_IMPORT_SLICE, PuzzleAttempt, PuzzlePlayer, PuzzleRecord, PuzzleRound,
    RoundOutcome, rate_round, rating_key as puzzle_rating_key,
};
pub use sqlite::{SqliteOptions, SqliteStore, StoreStats};

use futures_util::future::BoxFuture;

use crate::server::domain::chat::ChatRoom;
use crate::server::domain::chat_line::{ChatLine, NewChatLine};
use crate::server::domain::rating::Rating;
pub use crate::server::domain::status::{GameStatus, UnknownStatus};
use crate::server::domain::user::{Account, AccountStatus, UserId, Username};
use crate::server::game::speed::Speed;

/// Lines a chat room keeps in the store (each game's two, and the lobby's): an append deletes
/// the room's lines older than its last `KEPT_LINES`, in the same transaction. Bounds the table
/// by games x 2,000 lines plus 1,000, whatever a chatty pair or the lobby writes: at the chat
/// rate (3 lines per 5 s per connection) nothing older is ever shown anyway (50 on connect).
pub const KEPT_LINES: u32 = 1000;

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
    /// The account seated as White / Black, if any (issue 11): what `user_games` finds a game
    /// by. `None` for an anonymous seat, an empty seat and every game stored before schema v3.
    pub white_user: Option<UserId>,
    pub black_user: Option<UserId>,
    /// The arena tournament that paired the game (schema v7, issue 29): what
    /// [`Store::arena_games`] finds it by. `None` for every other game.
    pub arena: Option<String>,
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
    /// Set on the commit that ends a rated game: the store rates it in the same transaction as
    /// the events (see [`RatedEnd`]), so a game is rated exactly once, atomically with its end.
    pub rating: Option<RatedEnd>,
    /// Set on the commit that ends a game the opening explorer counts (issue 31; which ones:
    /// `crate::server::explorer`): the store adds its turns in the same transaction, once per
    /// game id, like [`Commit::rating`].
    pub explorer: Option<ExplorerGame>,
    /// Set on the commit that ends a game the playban rules judge (issue 32; which ones:
    /// `crate::server::safety::playban`): the store records each seated account's outcome in
    /// the same transaction, once per (user, game), like [`Commit::rating`].
    pub playban: Option<PlaybanEnd>,
    /// What this commit does to the game's row in the turn-deadline index (schema v4): written
    /// in the commit's own transaction, so the index never disagrees with the events after a
    /// crash. Live and untimed games always pass [`DeadlineChange::Unchanged`] (no extra work).
    pub deadline: DeadlineChange,
    /// Several nodes (issue 13): the lease this commit is written under. The store writes it
    /// only if the game's lease row still names this node with this epoch, checked in the
    /// commit's own transaction (the row locked against a takeover until it commits); otherwise
    /// nothing of it is stored and it fails with [`StoreError::Fenced`]. `None` on one node
    /// (no leases: SQLite, and Postgres without a bus) and for commits no room owns (the
    /// expiry of a game in no room, a new game's first commit).
    pub fence: Option<Fence>,
}

/// A node's ownership of one game (issue 13): the lease's fencing token. Epochs only grow:
/// each takeover by another node (or by any node after the lease expired) increments it, so a
/// stale owner's commits, which carry the old epoch, are refused.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fence {
    pub node: String,
    pub epoch: i64,
}

/// The answer to [`Store::claim_game`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// This node owns the game now (its commits carry this fence) until the lease runs out
    /// unrenewed.
    Owned(Fence),
    /// Another node holds a live lease on it.
    Held(Fence),
}

/// A commit's effect on the turn-deadline index of correspondence games (`turn_deadlines`):
/// the index holds, for each correspondence game being played, the Unix ms at which the side
/// to move's turn runs out. It is read once at startup ([`Store::turn_deadlines`]) to build
/// the in-memory schedule that flags games whose rooms are not in memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeadlineChange {
    /// The row (or its absence) stays as it is; costs nothing.
    #[default]
    Unchanged,
    /// The game's current turn runs out at this Unix ms (inserts or replaces the row).
    Set(i64),
    /// No turn of the game is timed any more (it ended): the row goes (none is fine).
    Cleared,
}

/// The end of a rated game, as the room hands it to the store with the commit of its `end`
/// event. The store reads both players' current ratings for `speed` ([`Rating::INITIAL`] if
/// none), applies `rating::glicko2::rate`, writes both and records a [`RatedGame`] keyed by the
/// game id, all in the commit's own transaction. A game already rated is never rated again (the
/// commit is still stored): a replay or a restart cannot count a game twice, and there is
/// nothing to redo after a crash.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatedEnd {
    pub white: UserId,
    pub black: UserId,
    pub speed: Speed,
    /// 1.0 White won, 0.5 draw, 0.0 Black won.
    pub score_white: f64,
}

/// One rated game as stored: both players' ratings before and after it. `ended_ms` is the
/// `updated_ms` of the listing row committed with the end.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedGame {
    pub game_id: String,
    pub speed: Speed,
    pub ended_ms: i64,
    pub white: UserId,
    pub black: UserId,
    pub score_white: f64,
    pub white_before: Rating,
    pub white_after: Rating,
    pub black_before: Rating,
    pub black_after: Rating,
}

/// A stored user: the account, its password hash (a PHC string; never leaves the server) and
/// when it was created.
#[derive(Clone, PartialEq, Eq)]
pub struct UserRecord {
    pub account: Account,
    pub password_hash: String,
    /// Unix milliseconds.
    pub created_ms: i64,
    /// Active, closed by a moderator or deleted by its owner (schema SQLite v11 / Postgres v8,
    /// issue 32; every older account is active).
    pub status: AccountStatus,
}

/// By hand so that a `{:?}` in a log or a panic message can never print the password hash.
impl std::fmt::Debug for UserRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserRecord")
            .field("account", &self.account)
            .field("password_hash", &"<redacted>")
            .field("created_ms", &self.created_ms)
            .field("status", &self.status)
            .finish()
    }
}

/// One of an account's live sessions as its owner may see it (issue 32: the account page's
/// list): its hash (never shown: the account layer derives an opaque id from it), when it was
/// made and last seen.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub hash: SessionHash,
    /// Unix milliseconds.
    pub created_ms: i64,
    /// Unix milliseconds, as [`Store::session_account`] last recorded it (to the hour).
    pub last_seen_ms: i64,
}

/// By hand so that a `{:?}` can never print a session's hash.
impl std::fmt::Debug for SessionRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionRecord")
            .field("hash", &"<redacted>")
            .field("created_ms", &self.created_ms)
            .field("last_seen_ms", &self.last_seen_ms)
            .finish()
    }
}

/// The SHA-256 of a session id: all the store ever sees of a session, so that a leaked database
/// (or backup) holds no usable cookie.
pub type SessionHash = [u8; 32];

/// A session is forgotten after this long without a request (30 days).
pub const SESSION_IDLE_MS: i64 = 30 * 24 * 3600 * 1000;

/// `session_account` rewrites a session's last-seen time at most this often (an hour): the
/// idle expiry needs no finer clock, and most requests then cost no write at all.
pub const SESSION_TOUCH_MS: i64 = 3600 * 1000;

/// Whether a session last seen at `last_seen_ms` is still alive at `now_ms`.
pub fn session_alive(last_seen_ms: i64, now_ms: i64) -> bool {
    now_ms.saturating_sub(last_seen_ms) <= SESSION_IDLE_MS
}

/// Whether a session last seen at `last_seen_ms` should have its last-seen time rewritten at
/// `now_ms`.
pub fn session_needs_touch(last_seen_ms: i64, now_ms: i64) -> bool {
    now_ms.saturating_sub(last_seen_ms) >= SESSION_TOUCH_MS
}

/// The rating update the store applies to a [`RatedEnd`]: both players' ratings after the
/// game, from their ratings before (`rating::glicko2::rate`, the game its own rating period).
/// Shared by every backend so they cannot disagree.
pub fn rate_end(end: &RatedEnd, white_before: Rating, black_before: Rating) -> (Rating, Rating) {
    crate::server::domain::glicko2::rate(white_before, black_before, end.score_white)
}

/// [`puzzle::prepared_import`] as every backend's `import_puzzles` starts: a bad theme is a
/// [`StoreError::Io`] before anything is written.
pub(crate) fn prepared_puzzles(
    puzzles: Vec<PuzzleRecord>,
) -> Result<Vec<PuzzleRecord>, StoreError> {
    puzzle::prepared_import(puzzles).map_err(StoreError::Io)
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
    /// `create_user` with a username already taken (compared case-insensitively).
    #[error("the username is taken")]
    UsernameTaken,
    /// `close()` was called (or the writer is gone); nothing more is accepted.
    #[error("the store is shut down")]
    Closed,
    /// The commit's [`Fence`] is no longer the game's lease (another node took the game over,
    /// or the lease was released): nothing of it was stored, and this node must stop running
    /// the game's room.
    #[error("game {game_id} is no longer owned under this lease")]
    Fenced { game_id: String },
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
    /// Every game being played (status Playing) that has no row in the turn-deadline index,
    /// with all its events (startup recovery: open games are loaded on demand, they have no
    /// timers to run; correspondence games being played, the ones with a row, are loaded by
    /// the schedule when their deadline comes, so weeks-long games cost startup nothing).
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

    // Accounts, sessions and ratings (schema v3, issue 11).

    /// Stores a new user; durable once `Ok`. [`StoreError::UsernameTaken`] if the name is taken
    /// in any case (`Alice` and `alice` are one user).
    fn create_user(
        &self,
        username: Username,
        password_hash: String,
        at_ms: i64,
    ) -> StoreFuture<UserId>;
    /// The user with this name, compared case-insensitively.
    fn find_user(&self, username: &Username) -> StoreFuture<Option<UserRecord>>;
    fn user_by_id(&self, id: UserId) -> StoreFuture<Option<UserRecord>>;
    /// Stores a new session (by the hash of its id) for `user`, last seen `at_ms`; durable once
    /// `Ok`. Also forgets that user's sessions that have expired.
    fn create_session(&self, hash: SessionHash, user: UserId, at_ms: i64) -> StoreFuture<()>;
    /// The account of a live session: None when there is no such session or it has been idle
    /// longer than [`SESSION_IDLE_MS`]. Rewrites the session's last-seen time to `now_ms` when
    /// it is [`SESSION_TOUCH_MS`] old or more (a failure to do so is logged, not returned: the
    /// session is still valid).
    fn session_account(&self, hash: SessionHash, now_ms: i64) -> StoreFuture<Option<Account>>;
    /// Forgets a session (logout). Deleting a session that does not exist is not an error.
    fn delete_session(&self, hash: SessionHash) -> StoreFuture<()>;

    // The account's own controls and its status (schema SQLite v11 / Postgres v8, issue 32):
    // `users.status` and `users.status_ms`. Writes are durable once `Ok`.

    /// Sets the account's status, at `at_ms`. Closing or deleting it also deletes every one of
    /// its sessions in the same transaction (and [`Store::session_account`] answers None for
    /// an account that is not active anyway). Setting [`AccountStatus::Deleted`] here only
    /// marks it: [`Store::delete_account`] is what removes its data. An unknown user is not an
    /// error (nothing changes).
    fn set_account_status(
        &self,
        user: UserId,
        status: AccountStatus,
        at_ms: i64,
    ) -> StoreFuture<()>;
    /// The user's live sessions (not idle longer than [`SESSION_IDLE_MS`] at `now_ms`), the
    /// most recently made first (then by hash).
    fn user_sessions(&self, user: UserId, now_ms: i64) -> StoreFuture<Vec<SessionRecord>>;
    /// Deletes every session of `user` but the one with hash `keep` ("end the other
    /// sessions"; `keep` may be any hash, even one not stored: then all of them go).
    fn delete_other_sessions(&self, user: UserId, keep: SessionHash) -> StoreFuture<()>;
    /// Replaces the user's password hash and deletes every session of the user but `keep`, in
    /// one transaction (a password change ends the other sessions).
    fn set_password_hash(
        &self,
        user: UserId,
        password_hash: String,
        keep: SessionHash,
    ) -> StoreFuture<()>;
    /// Deletes the account at `at_ms`, in one transaction: its row stays (so that its name
    /// is never registered again; the password hash is emptied) with status
    /// [`AccountStatus::Deleted`]; its sessions, settings, ratings, lesson progress and puzzle
    /// rows go; its chat lines lose their author ([`DELETED_LABEL`](crate::server::domain::user::DELETED_LABEL), no user id); its games
    /// (listing rows and events) and their opening-explorer rows show [`DELETED_LABEL`](crate::server::domain::user::DELETED_LABEL)
    /// instead of its name ([`erase_name`]); its id stays on its games and rated games, so the
    /// other players' histories are whole. The caller checks that no game of the user is
    /// still going on.
    fn delete_account(&self, user: UserId, at_ms: i64) -> StoreFuture<()>;
    /// The user's ratings, one per speed played, in [`Speed`] order. A speed never played has
    /// no entry (callers show [`Rating::INITIAL`]).
    fn ratings(&self, user: UserId) -> StoreFuture<Vec<(Speed, Rating)>>;
    /// The user's `limit` most recent rated games (of one speed, or all), oldest first (the
    /// order of a rating graph).
    fn rating_history(
        &self,
        user: UserId,
        speed: Option<Speed>,
        limit: u32,
    ) -> StoreFuture<Vec<RatedGame>>;
    /// The listing rows of the games the user is seated in (as White or Black), listed or not,
    /// newest updated first, paged.
    fn user_games(&self, user: UserId, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>>;
    /// How a game changed its players' ratings, if it was rated.
    fn game_rating(&self, game_id: &str) -> StoreFuture<Option<RatedGame>>;

    // Chat (schema v4, issue 12): table `chat_lines`.

    /// Stores a chat line (through the writer, in its group commit: durable once `Ok`, like a
    /// commit) and returns its id, greater than every id stored before it. Deletes the room's
    /// lines older than its last [`crate::server::store::KEPT_LINES`] in the same transaction.
    /// Fails like the other writes ([`StoreError::Io`], [`StoreError::Closed`]).
    fn append_chat(&self, line: NewChatLine) -> StoreFuture<i64>;
    /// The newest `limit` lines of a room (`game_id` `None`: the lobby's), oldest first.
    fn recent_chat(
        &self,
        game_id: Option<&str>,
        room: ChatRoom,
        limit: u32,
    ) -> StoreFuture<Vec<ChatLine>>;

    // The turn-deadline index of correspondence games (schema v4, issue 12).

    /// Every row of the turn-deadline index, `(game id, deadline Unix ms)`, in no particular
    /// order: what [`Commit::deadline`] left. Read once at startup (its size is the number of
    /// correspondence games being played).
    fn turn_deadlines(&self) -> StoreFuture<Vec<(String, i64)>>;

    // Personal settings (schema v5, issue 14): table `account_settings`.

    /// The settings the user saved (a JSON object, opaque to the store: the account layer
    /// validates it on the way in and out), or None if they never saved any.
    fn account_settings(&self, user: UserId) -> StoreFuture<Option<String>>;
    /// Replaces the user's settings with `json` (the whole object), saved `at_ms`. Through the
    /// writer like the other account writes: durable once `Ok`.
    fn set_account_settings(&self, user: UserId, json: String, at_ms: i64) -> StoreFuture<()>;

    // Arena tournaments (SQLite schema v7, Postgres v4; issue 29): tables `arenas`,
    // `arena_players`, and `games.arena`. Writes are durable once `Ok`, like the others.

    /// Stores a new arena; `false` (and nothing written) if one with its id exists: the
    /// server's schedule makes its arenas under ids of their own, so that several nodes (or a
    /// restart) making the same one store it once.
    fn create_arena(&self, arena: ArenaRecord) -> StoreFuture<bool>;
    fn arena(&self, id: &str) -> StoreFuture<Option<ArenaRecord>>;
    /// Up to `limit` arenas of `range`, in its order ([`ArenaRange`]).
    fn arenas(&self, range: ArenaRange, limit: u32) -> StoreFuture<Vec<ArenaRecord>>;
    /// Adds `player` to the arena, or (already there) sets whether they withdrew, keeping
    /// their first join's time and rating.
    fn set_arena_player(&self, arena: &str, player: ArenaPlayer) -> StoreFuture<()>;
    /// The arena's players in the order they first joined (then by id).
    fn arena_players(&self, arena: &str) -> StoreFuture<Vec<ArenaPlayer>>;
    /// The listing rows of the games the arena paired, in the order they were made (then by
    /// id).
    fn arena_games(&self, arena: &str) -> StoreFuture<Vec<GameListing>>;
    /// Up to `limit` arenas `user` joined, the last to start first.
    fn user_arenas(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ArenaRecord>>;

    // Puzzles (SQLite schema v8, Postgres v5; issue 30): tables `puzzles`, `puzzle_themes`,
    // `puzzle_players`, `puzzle_rounds` (store/puzzle.rs). Themes are opaque keys. Writes are
    // durable once `Ok`, like the others.

    /// Stores the puzzles whose id is not stored yet (an existing id is left alone, whatever
    /// the record says) and returns how many were new. Themes are stored sorted, each once; a
    /// theme that is not a word (empty, or with a space) fails the call before anything is
    /// written. Written in slices of [`PUZZLE_IMPORT_SLICE`], each durable on its own: an
    /// import that failed half-way is run again.
    fn import_puzzles(&self, puzzles: Vec<PuzzleRecord>) -> StoreFuture<u64>;
    fn puzzle(&self, id: &str) -> StoreFuture<Option<PuzzleRecord>>;
    /// The puzzle to give next: the first by (rounded rating, id) whose rounded rating is at
    /// least `target`, having `theme` (if any), that `user` (if any) has no round of; if there
    /// is none, the last such below `target`. Each half is one index range (by rating, or by
    /// theme and rating), skipping the user's rounds by their primary key.
    fn puzzle_near(
        &self,
        user: Option<UserId>,
        theme: Option<String>,
        target: i32,
    ) -> StoreFuture<Option<PuzzleRecord>>;
    /// The first puzzle by id after `after` (from the first one when `None`), having `theme`
    /// (if any), wrapping round to the smallest id: anonymous players' next puzzle, the daily
    /// one.
    fn puzzle_after(
        &self,
        theme: Option<String>,
        after: Option<String>,
    ) -> StoreFuture<Option<PuzzleRecord>>;
    /// Every theme with its number of puzzles, by key.
    fn puzzle_themes(&self) -> StoreFuture<Vec<(String, u64)>>;
    fn puzzle_count(&self) -> StoreFuture<u64>;
    /// The user's puzzle rating and counts; `None` before their first round.
    fn puzzle_player(&self, user: UserId) -> StoreFuture<Option<PuzzlePlayer>>;
    /// In ONE transaction: if the user has no round of this puzzle, stores it, rates the
    /// player (from [`Rating::INITIAL`] at their first) and the puzzle with [`rate_round`],
    /// counts the player's solved or failed and the puzzle's plays; otherwise
    /// [`RoundOutcome::Repeated`] and nothing changes. Two rounds of one puzzle at once (two
    /// players, or two nodes) both count, one after the other. A puzzle that is not stored
    /// fails with [`StoreError::Io`] (so does a user that is not, on Postgres, which checks
    /// the foreign keys).
    fn record_puzzle_round(&self, round: PuzzleRound) -> StoreFuture<RoundOutcome>;
    /// The user's last `limit` rounds, newest first (then by puzzle id, descending).
    fn puzzle_attempts(&self, user: UserId, limit: u32) -> StoreFuture<Vec<PuzzleAttempt>>;
    /// Up to `limit` puzzles by id, after `after` (from the first when `None`): paging through
    /// every puzzle (the CSV export).
    fn export_puzzles(&self, after: Option<String>, limit: u32) -> StoreFuture<Vec<PuzzleRecord>>;

    // Learn Marseillais (SQLite schema v9, Postgres v6; issue 31): table `lesson_steps`
    // (store/lesson.rs). Lesson ids are opaque keys.

    /// Records that `user` finished `step` of `lesson` at `at_ms`; a step already recorded
    /// keeps its first time (the call is then a no-op). Durable once `Ok`.
    fn record_lesson_step(
        &self,
        user: UserId,
        lesson: &str,
        step: u32,
        at_ms: i64,
    ) -> StoreFuture<()>;
    /// Every step `user` finished, by lesson then step.
    fn lesson_steps(&self, user: UserId) -> StoreFuture<Vec<LessonStep>>;
    // The opening explorer (SQLite schema v10, Postgres v7; issue 31): tables `explorer_games`,
    // `explorer_turns`, `explorer_examples` (store/explorer.rs).

    /// Adds the games whose id is not counted yet (a counted id is left alone) and returns
    /// how many were new; written in slices of [`EXPLORER_SLICE`], each durable on its own.
    /// The same writing as a commit's [`Commit::explorer`]: the load generator's fill, a
    /// rebuild.
    fn add_explorer_games(&self, games: Vec<ExplorerGame>) -> StoreFuture<u64>;
    /// Every turn row and kept example of the position with this key (one index range each).
    fn explorer_position(&self, key: i64) -> StoreFuture<ExplorerPosition>;

    // Moderation (SQLite schema v11, Postgres v8; issue 32): tables `moderators`, `reports`,
    // `marks`, `chat_bans`, `mod_log` (store/moderation.rs). Writes are durable once `Ok`.

    /// Files a report unless the reporter already has `max_open` open reports filed at or
    /// after `since_ms` (checked and written in one transaction, so two reports at once, on
    /// two nodes, cannot both pass the last place).
    fn file_report(
        &self,
        report: NewReport,
        since_ms: i64,
        max_open: u32,
    ) -> StoreFuture<ReportFiled>;
    fn report(&self, id: i64) -> StoreFuture<Option<Report>>;
    /// Up to `limit` open reports, newest first (then by id, descending).
    fn open_reports(&self, limit: u32) -> StoreFuture<Vec<Report>>;
    /// Up to `limit` reports `reporter` filed, newest first.
    fn reports_by(&self, reporter: UserId, limit: u32) -> StoreFuture<Vec<Report>>;
    /// In ONE transaction: applies the action (a ban, a mark, the role, ...), writes its row
    /// of the moderation log and settles the related open reports (all the target's for a
    /// sanction, the one report for a dismissal); returns how many reports it settled. A
    /// dismissal of a report that is not open (or not the target's) writes nothing and
    /// returns 0.
    fn moderate(&self, action: ModAction) -> StoreFuture<u64>;
    fn is_moderator(&self, user: UserId) -> StoreFuture<bool>;
    /// The user's chat ban holding at `now_ms`, if any (an expired one is `None`).
    fn chat_ban(&self, user: UserId, now_ms: i64) -> StoreFuture<Option<ChatBan>>;
    fn user_mark(&self, user: UserId) -> StoreFuture<Option<MarkRecord>>;
    /// Up to `limit` rows of the moderation log, newest first.
    fn mod_log(&self, limit: u32) -> StoreFuture<Vec<ModLogEntry>>;
    /// The user's newest `limit` chat lines in any room, oldest first (a report's context).
    fn user_chat_lines(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ChatLine>>;
    /// Up to `limit` ratings of `speed` with at least `min_games` games, best first (then by
    /// user id), leaving out marked users and accounts that are not active.
    fn leaderboard(
        &self,
        speed: Speed,
        min_games: u32,
        limit: u32,
    ) -> StoreFuture<Vec<LeaderboardRow>>;
    // Blocks (issue 32; SQLite schema v11, Postgres v8): table `blocks` (store/block.rs).
    // Read at the moment they matter (a chat line, a challenge, a seek), never cached, so
    // that every node agrees.

    /// `blocker` blocks `blocked` from `at_ms`; blocking again keeps the first time (a no-op).
    /// Durable once `Ok`.
    fn block(&self, blocker: UserId, blocked: UserId, at_ms: i64) -> StoreFuture<()>;
    /// Ends `blocker`'s block of `blocked`; whether there was one. Durable once `Ok`.
    fn unblock(&self, blocker: UserId, blocked: UserId) -> StoreFuture<bool>;
    /// Everyone `user` blocks, with their names, newest first then by name
    /// ([`block_entry_order`]).
    fn blocks_of(&self, user: UserId) -> StoreFuture<Vec<BlockEntry>>;
    /// Everyone in a block with `user`, either way (who blocks them and whom they block), each
    /// once, by id: two index ranges (the primary key, the index on `blocked`).
    fn block_relations(&self, user: UserId) -> StoreFuture<Vec<BlockRelation>>;
    /// Whether either of `a` and `b` blocks the other.
    fn blocked_between(&self, a: UserId, b: UserId) -> StoreFuture<bool>;
    // Fair play by rule (SQLite schema v11, Postgres v8; issue 32): table `playban_outcomes`
    // (store/playban.rs).

    /// Records the outcomes of a finished game, each (user, game) once (one already stored
    /// is left alone), and returns how many were new. The same writing as a commit's
    /// [`Commit::playban`]; durable once `Ok`.
    fn record_playban(&self, end: PlaybanEnd) -> StoreFuture<u64>;
    /// The user's newest `limit` outcomes at or after `since_ms`, oldest first
    /// ([`playban_order`]).
    fn playban_outcomes(
        &self,
        user: UserId,
        since_ms: i64,
        limit: u32,
    ) -> StoreFuture<Vec<PlaybanEntry>>;

    // Ownership leases of several nodes (issue 13): table `game_leases`, and `cluster_nodes`
    // for the nodes' own liveness. Times are the store's clock (Postgres `now()`), never a
    // node's, so nodes whose clocks disagree still agree on who owns what. The defaults are
    // those of a store that only one node ever uses (SQLite, the test doubles): every claim
    // is granted, nothing is ever lost, there are no other nodes.

    /// Claims game `game` for `node` for `ttl`: granted if no lease exists, the lease expired,
    /// or `node` already holds it (then the epoch stays: one process per node id, so two
    /// claims of one node for one game are the same owner and must not fence each other);
    /// a takeover increments the epoch. Otherwise the live holder.
    fn claim_game(&self, _game: &str, node: &str, _ttl: std::time::Duration) -> StoreFuture<Claim> {
        let fence = Fence {
            node: node.to_owned(),
            epoch: 0,
        };
        Box::pin(async move { Ok(Claim::Owned(fence)) })
    }
    /// Extends every lease `node` holds by `ttl` from now and records `node` as alive for
    /// `ttl` (one statement, however many games); returns the leases it still holds, so that
    /// the node stops the rooms of any it lost.
    fn renew_leases(
        &self,
        _node: &str,
        _ttl: std::time::Duration,
    ) -> StoreFuture<Vec<(String, i64)>> {
        Box::pin(async { Ok(Vec::new()) })
    }
    /// Gives up a lease (its room retired): the row stays, expired, so that the epoch keeps
    /// growing across owners. A no-op if `fence` no longer holds it.
    fn release_game(&self, _game: &str, _fence: Fence) -> StoreFuture<()> {
        Box::pin(async { Ok(()) })
    }
    /// Gives up every lease `node` holds (a node starting: a fresh process runs no room, so
    /// the leases of its previous life must not be renewed); returns how many. The rows stay,
    /// expired, as with [`Store::release_game`].
    fn release_node(&self, _node: &str) -> StoreFuture<u64> {
        Box::pin(async { Ok(0) })
    }
    /// Who holds a live lease on `game`, if anyone.
    fn game_owner(&self, _game: &str) -> StoreFuture<Option<Fence>> {
        Box::pin(async { Ok(None) })
    }
    /// Up to `limit` live games being played (status Playing, not correspondence: they have
    /// clocks to run) that no node holds a live lease on, oldest lease first: a node whose
    /// owner died is adopted by a node sweeping for these.
    fn orphaned_games(&self, _limit: u32) -> StoreFuture<Vec<String>> {
        Box::pin(async { Ok(Vec::new()) })
    }
    /// The nodes alive now (renewed within their `ttl`), sorted.
    fn live_nodes(&self) -> StoreFuture<Vec<String>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// Orders rated games oldest first, by end time then id (stable when two ended in the same
/// millisecond).
fn rated_order(a: &RatedGame, b: &RatedGame) -> std::cmp::Ordering {
    a.ended_ms
        .cmp(&b.ended_ms)
        .then_with(|| a.game_id.cmp(&b.game_id))
}

/// Orders listing rows the way every store must return them: newest `updated_ms` first, then by id
/// so that paging is stable when two games were updated in the same millisecond.
fn listing_order(a: &GameListing, b: &GameListing) -> std::cmp::Ordering {
    b.updated_ms
        .cmp(&a.updated_ms)
        .then_with(|| b.id.cmp(&a.id))
}
