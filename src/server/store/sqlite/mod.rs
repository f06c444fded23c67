//! [`SqliteStore`]: the production [`Store`], one embedded SQLite database in WAL mode.
//!
//! This module owns the store's handle and its read side; the SQL of the reads and their rows
//! are in rows.rs, opening a connection in connect.rs, the schema and its migrations in
//! schema.rs. Writes go through the group-commit writer thread (writer.rs), whose WAL checkpoints run on a
//! thread of their own (checkpoint.rs); both update the counters of stats.rs. Reads use a small pool
//! of separate connections on tokio's blocking threads, so in WAL mode they never wait for the
//! writer (they read the last committed snapshot).

mod account;
mod arena;
mod block;
mod checkpoint;
mod connect;
mod explorer;
mod lesson;
mod moderation;
mod next_seq;
mod playban;
mod puzzle;
mod rows;
mod schema;
mod stats;
mod writer;

pub use connect::{DB_FILE_NAME, SqliteOptions};
pub use explorer::{EXAMPLES_SQL as EXPLORER_EXAMPLES_SQL, TURNS_SQL as EXPLORER_TURNS_SQL};
pub use playban::OUTCOMES_SQL as PLAYBAN_OUTCOMES_SQL;
pub use puzzle::{ATTEMPTS_SQL as PUZZLE_ATTEMPTS_SQL, near_sql as puzzle_near_sql};
pub use schema::SCHEMA_VERSION;
pub use stats::StoreStats;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::future::BoxFuture;
use rusqlite::{Connection, params};
use tokio::sync::{Semaphore, oneshot, watch};

use self::account::AccountWrite;
use self::arena::ArenaWrite;
use self::checkpoint::{Checkpointer, Policy};
use self::connect::{io, open_checkpointer, open_reader, open_writer};
use self::moderation::{ModDone, ModWrite};
use self::puzzle::{PuzzleDone, PuzzleWrite};
use self::rows::*;
use self::stats::Counters;
use self::writer::{Done, Pending, Work};
use super::{
    ArenaPlayer, ArenaRange, ArenaRecord, Commit, GameListing, GameStatus, LessonStep, LoadedGame,
    PuzzleAttempt, PuzzlePlayer, PuzzleRecord, PuzzleRound, RatedGame, RoundOutcome, SessionHash,
    SessionRecord, Store, StoreError, StoreFuture, UserRecord, session_alive, session_needs_touch,
};
use crate::server::domain::chat::ChatRoom;
use crate::server::domain::chat_line::{ChatLine, NewChatLine};
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{Account, AccountStatus, UserId, Username};
use crate::server::game::speed::Speed;
use crate::server::store::{
    ChatBan, LeaderboardRow, MarkRecord, ModAction, ModLogEntry, NewReport, Report, ReportFiled,
};

/// Read connections: at most this many reads run at once (others queue for a permit), and as
/// many connections are kept open between reads. Bounded so a burst of lobby requests cannot
/// open hundreds of connections and blocking threads. The soak test bounds the server's open
/// database files by this number (`DATABASE_FDS_AT_MOST` in `tests/reliability/soak.rs`): raise
/// both together.
const MAX_READERS: usize = 4;

/// The SQLite-backed [`Store`]. Cheap to clone; every clone is the same store.
#[derive(Clone)]
pub struct SqliteStore {
    shared: Arc<Shared>,
}

struct Shared {
    path: PathBuf,
    /// `None` once `close()` was called: dropping the only sender is what tells the writer to
    /// drain and stop.
    to_writer: Mutex<Option<Sender<Pending>>>,
    writer_stopped: watch::Receiver<bool>,
    counters: Arc<Counters>,
    readers: Mutex<Vec<Connection>>,
    read_permits: Arc<Semaphore>,
}

impl SqliteStore {
    /// Opens (creating if needed) `data_dir/marseillais.sqlite3` and starts the writer thread.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        Self::open_with(data_dir, SqliteOptions::default())
    }

    pub fn open_with(data_dir: &Path, options: SqliteOptions) -> Result<Self, StoreError> {
        Self::open_with_policy(data_dir, options, Policy::default())
    }

    /// [`SqliteStore::open_with`] with a checkpoint policy (the tests of the checkpoints, in
    /// tests.rs, use short ones).
    fn open_with_policy(
        data_dir: &Path,
        options: SqliteOptions,
        policy: Policy,
    ) -> Result<Self, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            StoreError::Io(format!(
                "cannot create data directory {}: {e}",
                data_dir.display()
            ))
        })?;
        let path = data_dir.join(DB_FILE_NAME);
        let conn = open_writer(&path, options)
            .map_err(|e| StoreError::Io(format!("cannot open database {}: {e}", path.display())))?;
        // Open one reader now so that a database we cannot read fails here, not on first use.
        let reader = open_reader(&path)?;

        let (to_writer, from_callers) = mpsc::channel();
        let (stopped_tx, stopped_rx) = watch::channel(false);
        let counters = Arc::new(Counters::default());
        let checkpointer =
            Checkpointer::start(open_checkpointer(&path)?, Arc::clone(&counters), policy).map_err(
                |e| StoreError::Io(format!("cannot start the store checkpoint thread: {e}")),
            )?;
        let writer_counters = Arc::clone(&counters);
        let wal = writer::WalBound {
            path: data_dir.join(format!("{DB_FILE_NAME}-wal")),
            limit_bytes: policy.limit_bytes,
        };
        std::thread::Builder::new()
            .name("store-writer".to_owned())
            .spawn(move || {
                writer::run(
                    conn,
                    from_callers,
                    (writer_counters, wal),
                    checkpointer,
                    stopped_tx,
                )
            })
            .map_err(|e| StoreError::Io(format!("cannot start the store writer thread: {e}")))?;

        Ok(Self {
            shared: Arc::new(Shared {
                path,
                to_writer: Mutex::new(Some(to_writer)),
                writer_stopped: stopped_rx,
                counters,
                readers: Mutex::new(vec![reader]),
                read_permits: Arc::new(Semaphore::new(MAX_READERS)),
            }),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// A snapshot of the writer's counters.
    pub fn stats(&self) -> StoreStats {
        self.shared.counters.snapshot()
    }

    /// Hands a unit of work to the writer thread; the future resolves once it is durable.
    ///
    /// Sent now, not when the future is first polled: work reaches the writer in call order,
    /// which is what lets a room pipeline commits for the same game.
    fn write(&self, work: Work) -> StoreFuture<Done> {
        let (done, outcome) = oneshot::channel();
        let sent = match lock(&self.shared.to_writer).as_ref() {
            Some(to_writer) => to_writer.send(Pending { work, done }).is_ok(),
            None => false,
        };
        Box::pin(async move {
            if !sent {
                return Err(StoreError::Closed);
            }
            outcome.await.unwrap_or_else(|_| {
                Err(StoreError::Io(
                    "the store writer stopped before reporting on this commit".to_owned(),
                ))
            })
        })
    }

    /// Sends an account write (issue 32) to the writer; durable once `Ok`.
    fn account_write(&self, write: AccountWrite) -> StoreFuture<()> {
        let written = self.write(Work::Account(write));
        Box::pin(async move { written.await.map(|_| ()) })
    }

    /// Runs `f` on a pooled read connection on a blocking thread.
    fn read<T, F>(&self, f: F) -> StoreFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let permit = Arc::clone(&shared.read_permits)
                .acquire_owned()
                .await
                .map_err(|_| StoreError::Closed)?;
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                let pooled = lock(&shared.readers).pop();
                let mut conn = match pooled {
                    Some(conn) => conn,
                    None => open_reader(&shared.path)?,
                };
                let result = f(&mut conn);
                // A connection that just failed may be in a bad state: drop it.
                if result.is_ok() {
                    let mut idle = lock(&shared.readers);
                    if idle.len() < MAX_READERS {
                        idle.push(conn);
                    }
                }
                result
            })
            .await
            .map_err(|e| StoreError::Io(format!("read task failed: {e}")))?
        })
    }
}

/// The guarded data stays consistent even if a holder panicked (every critical section is a
/// single push/pop/take), so poisoning is ignored.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Store for SqliteStore {
    fn commit(&self, commit: Commit) -> StoreFuture<()> {
        self.commit_all(vec![commit])
    }

    fn commit_all(&self, commits: Vec<Commit>) -> StoreFuture<()> {
        let written = self.write(Work::Commits(commits));
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn load_unfinished(&self) -> StoreFuture<Vec<LoadedGame>> {
        self.read(|conn| {
            load_games_where(
                conn,
                // IN rather than <> 'finished': uses the status index instead of scanning
                // every game ever played at each startup.
                &format!(
                    "SELECT {LISTING_COLUMNS} FROM games WHERE status IN (?1, ?2) ORDER BY id"
                ),
                [GameStatus::Open.as_str(), GameStatus::Playing.as_str()],
            )
        })
    }

    fn load_playing(&self) -> StoreFuture<Vec<LoadedGame>> {
        self.read(|conn| {
            load_games_where(
                conn,
                &format!(
                    "SELECT {LISTING_COLUMNS} FROM games WHERE status = ?1
                     AND id NOT IN (SELECT game_id FROM turn_deadlines) ORDER BY id"
                ),
                [GameStatus::Playing.as_str()],
            )
        })
    }

    fn load_stale(
        &self,
        status: GameStatus,
        updated_before_ms: i64,
        limit: u32,
        offset: u32,
    ) -> StoreFuture<Vec<LoadedGame>> {
        self.read(move |conn| {
            load_games_where(
                conn,
                // `listed IN (0, 1)`: both ranges of the (status, listed, active_minute) index.
                &format!(
                    "SELECT {LISTING_COLUMNS} FROM games
                     WHERE status = ?1 AND listed IN (0, 1) AND active_minute <= ?5
                         AND updated_ms < ?2
                     ORDER BY active_minute, updated_ms, id LIMIT ?3 OFFSET ?4"
                ),
                params![
                    status.as_str(),
                    updated_before_ms,
                    limit,
                    offset,
                    writer::active_minute(updated_before_ms)
                ],
            )
        })
    }

    fn load_game(&self, id: &str) -> StoreFuture<Option<LoadedGame>> {
        let id = id.to_owned();
        self.read(move |conn| {
            let tx = conn.transaction().map_err(io)?;
            let row = {
                let mut stmt = tx
                    .prepare_cached(&format!(
                        "SELECT {LISTING_COLUMNS} FROM games WHERE id = ?1"
                    ))
                    .map_err(io)?;
                let mut rows = stmt.query_map([&id], listing_from_row).map_err(io)?;
                rows.next().transpose().map_err(io)?
            };
            let game = match row {
                None => None,
                Some(row) => {
                    let listing = row?;
                    let events = events_of(&tx, &id)?;
                    Some((listing, events))
                }
            };
            tx.finish().map_err(io)?;
            Ok(game)
        })
    }

    fn list(&self, status: GameStatus, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached(&format!(
                    "SELECT {LISTING_COLUMNS} FROM games WHERE status = ?1 AND listed = 1
                     ORDER BY active_minute DESC, updated_ms DESC, id DESC LIMIT ?2 OFFSET ?3"
                ))
                .map_err(io)?;
            let rows = stmt
                .query_map(params![status.as_str(), limit, offset], listing_from_row)
                .map_err(io)?;
            let mut listings = Vec::new();
            for row in rows {
                listings.push(row.map_err(io)??);
            }
            Ok(listings)
        })
    }

    fn create_user(
        &self,
        username: Username,
        password_hash: String,
        at_ms: i64,
    ) -> StoreFuture<UserId> {
        let written = self.write(Work::CreateUser {
            username,
            password_hash,
            at_ms,
        });
        Box::pin(async move {
            match written.await? {
                Done::User(id) => Ok(id),
                Done::Stored
                | Done::ChatLine(_)
                | Done::Arena(_)
                | Done::Puzzle(_)
                | Done::Explorer(_)
                | Done::Moderation(_)
                | Done::Block(_)
                | Done::Playban(_) => {
                    Err(StoreError::Io("the writer returned no user id".to_owned()))
                }
            }
        })
    }

    fn find_user(&self, username: &Username) -> StoreFuture<Option<UserRecord>> {
        let key = username.key();
        self.read(move |conn| {
            user_where(
                conn,
                &format!("SELECT {USER_COLUMNS} FROM users WHERE username_key = ?1"),
                [key],
            )
        })
    }

    fn user_by_id(&self, id: UserId) -> StoreFuture<Option<UserRecord>> {
        self.read(move |conn| {
            user_where(
                conn,
                &format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"),
                [id.0],
            )
        })
    }

    fn create_session(&self, hash: SessionHash, user: UserId, at_ms: i64) -> StoreFuture<()> {
        let written = self.write(Work::CreateSession { hash, user, at_ms });
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn session_account(&self, hash: SessionHash, now_ms: i64) -> StoreFuture<Option<Account>> {
        let found = self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached(&format!(
                    "SELECT sessions.last_seen_ms, {USER_COLUMNS_OF_USERS} FROM sessions
                     JOIN users ON users.id = sessions.user_id WHERE sessions.id_hash = ?1"
                ))
                .map_err(io)?;
            let mut rows = stmt.query([&hash[..]]).map_err(io)?;
            match rows.next().map_err(io)? {
                None => Ok(None),
                Some(row) => {
                    let last_seen: i64 = row.get(0).map_err(io)?;
                    let user = user_from_row(row, 1).map_err(io)??;
                    // A closed or deleted account has no sessions (they went with the status
                    // change); checked here too, so that a session can never outlive it.
                    if !user.status.is_active() {
                        return Ok(None);
                    }
                    Ok(Some((last_seen, user.account)))
                }
            }
        });
        let store = self.clone();
        Box::pin(async move {
            let Some((last_seen, account)) = found.await? else {
                return Ok(None);
            };
            if !session_alive(last_seen, now_ms) {
                return Ok(None);
            }
            if session_needs_touch(last_seen, now_ms) {
                // Best effort: a session that could not be touched is still valid now, and the
                // next request tries again.
                if let Err(e) = store
                    .write(Work::TouchSession {
                        hash,
                        at_ms: now_ms,
                    })
                    .await
                {
                    tracing::warn!(error = %e, "store: could not record a session's last use");
                }
            }
            Ok(Some(account))
        })
    }

    fn delete_session(&self, hash: SessionHash) -> StoreFuture<()> {
        let written = self.write(Work::DeleteSession { hash });
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn set_account_status(
        &self,
        user: UserId,
        status: AccountStatus,
        at_ms: i64,
    ) -> StoreFuture<()> {
        self.account_write(AccountWrite::SetStatus {
            user,
            status,
            at_ms,
        })
    }

    fn user_sessions(&self, user: UserId, now_ms: i64) -> StoreFuture<Vec<SessionRecord>> {
        self.read(move |conn| account::sessions(conn, user, now_ms))
    }

    fn delete_other_sessions(&self, user: UserId, keep: SessionHash) -> StoreFuture<()> {
        self.account_write(AccountWrite::DeleteOtherSessions { user, keep })
    }

    fn set_password_hash(
        &self,
        user: UserId,
        password_hash: String,
        keep: SessionHash,
    ) -> StoreFuture<()> {
        self.account_write(AccountWrite::SetPasswordHash {
            user,
            password_hash,
            keep,
        })
    }

    fn delete_account(&self, user: UserId, at_ms: i64) -> StoreFuture<()> {
        self.account_write(AccountWrite::Delete { user, at_ms })
    }

    fn ratings(&self, user: UserId) -> StoreFuture<Vec<(Speed, Rating)>> {
        self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT speed, rating, deviation, volatility, games FROM ratings
                     WHERE user_id = ?1",
                )
                .map_err(io)?;
            let rows = stmt
                .query_map([user.0], |row| {
                    Ok((row.get::<_, String>(0)?, rating_from_row(row, 1)?))
                })
                .map_err(io)?;
            let mut ratings = Vec::new();
            for row in rows {
                let (speed, rating) = row.map_err(io)?;
                ratings.push((parse_speed(&speed)?, rating));
            }
            ratings.sort_by_key(|(speed, _)| *speed);
            Ok(ratings)
        })
    }

    fn rating_history(
        &self,
        user: UserId,
        speed: Option<Speed>,
        limit: u32,
    ) -> StoreFuture<Vec<RatedGame>> {
        self.read(move |conn| {
            // NULL speed: every speed. Each half reads one (colour, ended_ms) index range.
            let sql = format!(
                "SELECT * FROM (
                     SELECT {RATED_COLUMNS} FROM rated_games
                         WHERE white_user = ?1 AND (?2 IS NULL OR speed = ?2)
                     UNION ALL
                     SELECT {RATED_COLUMNS} FROM rated_games
                         WHERE black_user = ?1 AND white_user <> ?1 AND (?2 IS NULL OR speed = ?2))
                 ORDER BY ended_ms DESC, game_id DESC LIMIT ?3"
            );
            let mut games =
                rated_where(conn, &sql, params![user.0, speed.map(Speed::as_str), limit])?;
            games.reverse();
            Ok(games)
        })
    }

    fn user_games(&self, user: UserId, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached(&format!(
                    "SELECT {LISTING_COLUMNS} FROM (
                         SELECT {LISTING_COLUMNS}, active_minute FROM games WHERE white_user = ?1
                         UNION ALL
                         SELECT {LISTING_COLUMNS}, active_minute FROM games
                             WHERE black_user = ?1 AND (white_user IS NULL OR white_user <> ?1))
                     ORDER BY active_minute DESC, updated_ms DESC, id DESC LIMIT ?2 OFFSET ?3"
                ))
                .map_err(io)?;
            let rows = stmt
                .query_map(params![user.0, limit, offset], listing_from_row)
                .map_err(io)?;
            let mut listings = Vec::new();
            for row in rows {
                listings.push(row.map_err(io)??);
            }
            Ok(listings)
        })
    }

    fn game_rating(&self, game_id: &str) -> StoreFuture<Option<RatedGame>> {
        let game_id = game_id.to_owned();
        self.read(move |conn| {
            let sql = format!("SELECT {RATED_COLUMNS} FROM rated_games WHERE game_id = ?1");
            Ok(rated_where(conn, &sql, [game_id])?.pop())
        })
    }

    fn append_chat(&self, line: NewChatLine) -> StoreFuture<i64> {
        let written = self.write(Work::AppendChat(line));
        Box::pin(async move {
            match written.await? {
                Done::ChatLine(id) => Ok(id),
                Done::Stored
                | Done::User(_)
                | Done::Arena(_)
                | Done::Puzzle(_)
                | Done::Explorer(_)
                | Done::Moderation(_)
                | Done::Block(_)
                | Done::Playban(_) => Err(StoreError::Io(
                    "the writer returned no chat line id".to_owned(),
                )),
            }
        })
    }

    fn recent_chat(
        &self,
        game_id: Option<&str>,
        room: ChatRoom,
        limit: u32,
    ) -> StoreFuture<Vec<ChatLine>> {
        let game_id = game_id.map(str::to_owned);
        self.read(move |conn| {
            // The newest `limit` by the (game_id, room, id) index, then put oldest first.
            let mut stmt = conn
                .prepare_cached(
                    "SELECT id, game_id, at_ms, user_id, author, text FROM chat_lines
                     WHERE game_id IS ?1 AND room = ?2 ORDER BY id DESC LIMIT ?3",
                )
                .map_err(io)?;
            let rows = stmt
                .query_map(params![game_id, room.as_str(), limit], |row| {
                    Ok(ChatLine {
                        id: row.get(0)?,
                        game_id: row.get(1)?,
                        room,
                        at_ms: row.get(2)?,
                        user_id: row.get::<_, Option<i64>>(3)?.map(UserId),
                        author: row.get(4)?,
                        text: row.get(5)?,
                    })
                })
                .map_err(io)?;
            let mut lines = rows.collect::<Result<Vec<_>, _>>().map_err(io)?;
            lines.reverse();
            Ok(lines)
        })
    }

    fn turn_deadlines(&self) -> StoreFuture<Vec<(String, i64)>> {
        self.read(|conn| {
            let mut statement = conn
                .prepare("SELECT game_id, deadline_ms FROM turn_deadlines")
                .map_err(io)?;
            let rows = statement
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
                .map_err(io)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(io)?;
            Ok(rows)
        })
    }

    fn account_settings(&self, user: UserId) -> StoreFuture<Option<String>> {
        self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached("SELECT settings FROM account_settings WHERE user_id = ?1")
                .map_err(io)?;
            let mut rows = stmt.query([user.0]).map_err(io)?;
            match rows.next().map_err(io)? {
                None => Ok(None),
                Some(row) => Ok(Some(row.get(0).map_err(io)?)),
            }
        })
    }

    fn set_account_settings(&self, user: UserId, json: String, at_ms: i64) -> StoreFuture<()> {
        let written = self.write(Work::SetSettings { user, json, at_ms });
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn create_arena(&self, arena: ArenaRecord) -> StoreFuture<bool> {
        let written = self.write(Work::Arena(ArenaWrite::Create(arena)));
        Box::pin(async move { Ok(matches!(written.await?, Done::Arena(true))) })
    }

    fn arena(&self, id: &str) -> StoreFuture<Option<ArenaRecord>> {
        let id = id.to_owned();
        self.read(move |conn| arena::arena(conn, &id))
    }

    fn arenas(&self, range: ArenaRange, limit: u32) -> StoreFuture<Vec<ArenaRecord>> {
        self.read(move |conn| arena::arenas(conn, range, limit))
    }

    fn set_arena_player(&self, arena: &str, player: ArenaPlayer) -> StoreFuture<()> {
        let arena = arena.to_owned();
        let written = self.write(Work::Arena(ArenaWrite::Player { arena, player }));
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn arena_players(&self, arena: &str) -> StoreFuture<Vec<ArenaPlayer>> {
        let arena = arena.to_owned();
        self.read(move |conn| arena::players(conn, &arena))
    }

    fn arena_games(&self, arena: &str) -> StoreFuture<Vec<GameListing>> {
        let arena = arena.to_owned();
        self.read(move |conn| arena::games(conn, &arena))
    }

    fn user_arenas(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ArenaRecord>> {
        self.read(move |conn| arena::user_arenas(conn, user, limit))
    }

    fn import_puzzles(&self, puzzles: Vec<PuzzleRecord>) -> StoreFuture<u64> {
        let store = self.clone();
        Box::pin(async move {
            let mut puzzles = super::prepared_puzzles(puzzles)?.into_iter();
            let mut inserted = 0;
            // One slice at a time, each its own unit of the writer awaited before the next is
            // sent: the games' commits queued meanwhile go into the batches between them.
            loop {
                let slice: Vec<PuzzleRecord> =
                    puzzles.by_ref().take(super::PUZZLE_IMPORT_SLICE).collect();
                if slice.is_empty() {
                    return Ok(inserted);
                }
                match store
                    .write(Work::Puzzle(PuzzleWrite::Import(slice)))
                    .await?
                {
                    Done::Puzzle(PuzzleDone::Imported(n)) => inserted += n,
                    other => {
                        return Err(StoreError::Io(format!(
                            "the writer answered an import with {other:?}"
                        )));
                    }
                }
            }
        })
    }

    fn puzzle(&self, id: &str) -> StoreFuture<Option<PuzzleRecord>> {
        let id = id.to_owned();
        self.read(move |conn| puzzle::puzzle(conn, &id))
    }

    fn puzzle_near(
        &self,
        user: Option<UserId>,
        theme: Option<String>,
        target: i32,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        self.read(move |conn| puzzle::near(conn, user, theme.as_deref(), target))
    }

    fn puzzle_after(
        &self,
        theme: Option<String>,
        after: Option<String>,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        self.read(move |conn| puzzle::after(conn, theme.as_deref(), after.as_deref()))
    }

    fn puzzle_themes(&self) -> StoreFuture<Vec<(String, u64)>> {
        self.read(|conn| puzzle::themes(conn))
    }

    fn puzzle_count(&self) -> StoreFuture<u64> {
        self.read(|conn| puzzle::count(conn))
    }

    fn puzzle_player(&self, user: UserId) -> StoreFuture<Option<PuzzlePlayer>> {
        self.read(move |conn| puzzle::player(conn, user).map_err(io))
    }

    fn record_puzzle_round(&self, round: PuzzleRound) -> StoreFuture<RoundOutcome> {
        let written = self.write(Work::Puzzle(PuzzleWrite::Round(round)));
        Box::pin(async move {
            match written.await? {
                Done::Puzzle(PuzzleDone::Round(outcome)) => Ok(outcome),
                other => Err(StoreError::Io(format!(
                    "the writer answered a round with {other:?}"
                ))),
            }
        })
    }

    fn puzzle_attempts(&self, user: UserId, limit: u32) -> StoreFuture<Vec<PuzzleAttempt>> {
        self.read(move |conn| puzzle::attempts(conn, user, limit))
    }

    fn export_puzzles(&self, after: Option<String>, limit: u32) -> StoreFuture<Vec<PuzzleRecord>> {
        self.read(move |conn| puzzle::export(conn, after.as_deref(), limit))
    }

    fn record_lesson_step(
        &self,
        user: UserId,
        lesson: &str,
        step: u32,
        at_ms: i64,
    ) -> StoreFuture<()> {
        let written = self.write(Work::LessonStep {
            user,
            lesson: lesson.to_owned(),
            step,
            at_ms,
        });
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn lesson_steps(&self, user: UserId) -> StoreFuture<Vec<LessonStep>> {
        self.read(move |conn| lesson::steps(conn, user))
    }

    fn file_report(
        &self,
        report: NewReport,
        since_ms: i64,
        max_open: u32,
    ) -> StoreFuture<ReportFiled> {
        let written = self.write(Work::Moderation(ModWrite::File {
            report,
            since_ms,
            max_open,
        }));
        Box::pin(async move {
            match written.await? {
                Done::Moderation(ModDone::Filed(filed)) => Ok(filed),
                other => Err(StoreError::Io(format!(
                    "the writer answered a report with {other:?}"
                ))),
            }
        })
    }

    fn report(&self, id: i64) -> StoreFuture<Option<Report>> {
        self.read(move |conn| moderation::report(conn, id))
    }

    fn open_reports(&self, limit: u32) -> StoreFuture<Vec<Report>> {
        self.read(move |conn| moderation::open_reports(conn, limit))
    }

    fn reports_by(&self, reporter: UserId, limit: u32) -> StoreFuture<Vec<Report>> {
        self.read(move |conn| moderation::reports_by(conn, reporter, limit))
    }

    fn moderate(&self, action: ModAction) -> StoreFuture<u64> {
        let written = self.write(Work::Moderation(ModWrite::Act(action)));
        Box::pin(async move {
            match written.await? {
                Done::Moderation(ModDone::Settled(settled)) => Ok(settled),
                other => Err(StoreError::Io(format!(
                    "the writer answered an action with {other:?}"
                ))),
            }
        })
    }

    fn is_moderator(&self, user: UserId) -> StoreFuture<bool> {
        self.read(move |conn| moderation::is_moderator(conn, user))
    }

    fn chat_ban(&self, user: UserId, now_ms: i64) -> StoreFuture<Option<ChatBan>> {
        self.read(move |conn| moderation::chat_ban(conn, user, now_ms))
    }

    fn user_mark(&self, user: UserId) -> StoreFuture<Option<MarkRecord>> {
        self.read(move |conn| moderation::user_mark(conn, user))
    }

    fn mod_log(&self, limit: u32) -> StoreFuture<Vec<ModLogEntry>> {
        self.read(move |conn| moderation::mod_log(conn, limit))
    }

    fn user_chat_lines(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ChatLine>> {
        self.read(move |conn| moderation::user_chat_lines(conn, user, limit))
    }

    fn leaderboard(
        &self,
        speed: Speed,
        min_games: u32,
        limit: u32,
    ) -> StoreFuture<Vec<LeaderboardRow>> {
        self.read(move |conn| moderation::leaderboard(conn, speed, min_games, limit))
    }

    fn add_explorer_games(&self, games: Vec<super::ExplorerGame>) -> StoreFuture<u64> {
        let store = self.clone();
        Box::pin(async move {
            let mut added = 0;
            // A slice at a time, each awaited before the next (as the puzzles' import).
            for slice in games.chunks(super::EXPLORER_SLICE) {
                match store.write(Work::Explorer(slice.to_vec())).await? {
                    Done::Explorer(n) => added += n,
                    other => {
                        return Err(StoreError::Io(format!(
                            "the writer answered an explorer slice with {other:?}"
                        )));
                    }
                }
            }
            Ok(added)
        })
    }

    fn explorer_position(&self, key: i64) -> StoreFuture<super::ExplorerPosition> {
        self.read(move |conn| explorer::position(conn, key))
    }

    fn block(&self, blocker: UserId, blocked: UserId, at_ms: i64) -> StoreFuture<()> {
        let written = self.write(Work::Block(block::BlockWrite::Block {
            blocker,
            blocked,
            at_ms,
        }));
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn unblock(&self, blocker: UserId, blocked: UserId) -> StoreFuture<bool> {
        let written = self.write(Work::Block(block::BlockWrite::Unblock { blocker, blocked }));
        Box::pin(async move {
            match written.await? {
                Done::Block(changed) => Ok(changed),
                other => Err(StoreError::Io(format!(
                    "the writer answered an unblock with {other:?}"
                ))),
            }
        })
    }

    fn record_playban(&self, end: super::PlaybanEnd) -> StoreFuture<u64> {
        let written = self.write(Work::Playban(end));
        Box::pin(async move {
            match written.await? {
                Done::Playban(added) => Ok(added),
                other => Err(StoreError::Io(format!(
                    "the writer answered playban outcomes with {other:?}"
                ))),
            }
        })
    }

    fn blocks_of(&self, user: UserId) -> StoreFuture<Vec<super::BlockEntry>> {
        self.read(move |conn| block::of(conn, user))
    }

    fn block_relations(&self, user: UserId) -> StoreFuture<Vec<super::BlockRelation>> {
        self.read(move |conn| block::relations(conn, user))
    }

    fn blocked_between(&self, a: UserId, b: UserId) -> StoreFuture<bool> {
        self.read(move |conn| block::between(conn, a, b))
    }

    fn playban_outcomes(
        &self,
        user: UserId,
        since_ms: i64,
        limit: u32,
    ) -> StoreFuture<Vec<super::PlaybanEntry>> {
        self.read(move |conn| playban::outcomes(conn, user, since_ms, limit))
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        // Dropping the only sender: the writer finishes what is queued, then stops.
        drop(lock(&self.shared.to_writer).take());
        let mut stopped = self.shared.writer_stopped.clone();
        Box::pin(async move {
            // Err means the writer is gone without signalling (it panicked): stopped as well.
            let _ = stopped.wait_for(|stopped| *stopped).await;
        })
    }
}

#[cfg(test)]
mod tests;
