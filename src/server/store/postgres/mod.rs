//! [`PostgresStore`]: the [`Store`] on a PostgreSQL server (`--store postgres://...`), for a site
//! that wants its games in a database server of its own (and, later, several nodes on one
//! database).
//!
//! It keeps exactly what the SQLite store keeps, in the same shapes (schema.rs), with the same
//! promise: a write resolves `Ok` only once its transaction committed. Writes go through one
//! writer task that batches them (writer.rs, the group commit); reads take a connection from a
//! small pool and run beside it. When Postgres cannot be reached, every call fails with
//! [`StoreError::Io`] (which the server reports as `store_failure`) and nothing is
//! acknowledged; the pool opens new connections once it is back.

mod account;
mod arena;
mod block;
pub(crate) mod error;
mod explorer;
mod explorer_write;
mod lease;
mod lesson;
mod moderation;
mod pipeline;
mod playban;
mod playban_write;
mod puzzle;
mod rows;
mod schema;
mod unit;
mod writer;

pub use explorer::{EXAMPLES_SQL as EXPLORER_EXAMPLES_SQL, TURNS_SQL as EXPLORER_TURNS_SQL};
pub use playban::OUTCOMES_SQL as PLAYBAN_OUTCOMES_SQL;
pub use puzzle::{ATTEMPTS_SQL as PUZZLE_ATTEMPTS_SQL, near_sql as puzzle_near_sql};
pub use schema::{SCHEMA_VERSION, TABLES, migrate_to};
pub use writer::PostgresStats;

use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_postgres::NoTls;
use tokio_postgres::types::ToSql;

use self::error::{pg_error, pool_error};
use self::rows::*;
use self::unit::{Done, Pending, Work};
use self::writer::Counters;
use super::{
    ArenaPlayer, ArenaRange, ArenaRecord, Claim, Commit, Fence, GameListing, GameStatus,
    LessonStep, LoadedGame, PuzzleAttempt, PuzzlePlayer, PuzzleRecord, PuzzleRound, RatedGame,
    RoundOutcome, SessionHash, SessionRecord, Store, StoreError, StoreFuture, UserRecord,
    session_alive, session_needs_touch,
};
use crate::server::domain::chat::ChatRoom;
use crate::server::domain::chat_line::{ChatLine, NewChatLine};
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{Account, AccountStatus, UserId, Username};
use crate::server::game::speed::Speed;

/// Connections kept by the pool: one for the writer, the rest for reads running at once.
const POOL_SIZE: usize = 8;

/// How long opening a connection, or waiting for a free one, may take before the call fails with
/// [`StoreError::Io`]: a move is refused quickly rather than hanging while Postgres is away.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A PostgreSQL connection URL, checked. Its `Debug` and `Display` hide the password, so a
/// `Config` printed in a log or a panic never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresUrl(String);

impl PostgresUrl {
    pub fn parse(url: &str) -> Result<PostgresUrl, StoreError> {
        tokio_postgres::Config::from_str(url)
            .map_err(|e| StoreError::Io(format!("bad PostgreSQL URL: {e}")))?;
        Ok(PostgresUrl(url.to_owned()))
    }

    /// The URL itself, password included (to connect with; never to print).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The URL with any password replaced by `***`.
    pub fn redacted(&self) -> String {
        let Some(scheme_end) = self.0.find("://").map(|i| i + 3) else {
            return "***".to_owned();
        };
        let rest = &self.0[scheme_end..];
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        match authority.rfind('@') {
            Some(at) => {
                let user_info = &authority[..at];
                let user = user_info.split(':').next().unwrap_or_default();
                let hidden = if user_info.contains(':') {
                    format!("{user}:***")
                } else {
                    user.to_owned()
                };
                format!(
                    "{}{hidden}{}",
                    &self.0[..scheme_end],
                    &self.0[scheme_end + at..]
                )
            }
            None => self.0.clone(),
        }
    }
}

impl std::fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PostgresUrl({})", self.redacted())
    }
}

impl std::fmt::Display for PostgresUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.redacted())
    }
}

/// The PostgreSQL-backed [`Store`]. Cheap to clone; every clone is the same store.
#[derive(Clone)]
pub struct PostgresStore {
    shared: Arc<Shared>,
}

struct Shared {
    pool: Pool,
    /// `None` once `close()` was called: dropping the only sender stops the writer after it has
    /// written what was queued.
    to_writer: Mutex<Option<mpsc::UnboundedSender<Pending>>>,
    writer_stopped: watch::Receiver<bool>,
    counters: Arc<Counters>,
}

/// The guarded data stays consistent even if a holder panicked, so poisoning is ignored.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A pool of connections to `url` (`postgres://user:password@host:port/db`, or a unix socket
/// directory as `?host=/path`). Connects lazily.
pub fn pool(url: &str, size: usize) -> Result<Pool, StoreError> {
    let mut config = tokio_postgres::Config::from_str(url)
        .map_err(|e| StoreError::Io(format!("bad PostgreSQL URL: {e}")))?;
    config.connect_timeout(CONNECT_TIMEOUT);
    if config.get_application_name().is_none() {
        config.application_name("marseillais");
    }
    let manager = Manager::from_config(
        config,
        NoTls,
        ManagerConfig {
            // Fast: a connection that was closed (Postgres restarted) is not handed out again;
            // any other failure is caught by the caller, which discards the connection.
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(size)
        .runtime(Runtime::Tokio1)
        .create_timeout(Some(CONNECT_TIMEOUT))
        .wait_timeout(Some(CONNECT_TIMEOUT))
        .recycle_timeout(Some(CONNECT_TIMEOUT))
        .build()
        .map_err(|e| StoreError::Io(format!("cannot make the PostgreSQL pool: {e}")))
}

impl PostgresStore {
    /// Connects to `url`, brings the schema to [`SCHEMA_VERSION`] and starts the writer task.
    /// Must be called inside a tokio runtime. Fails if Postgres cannot be reached now.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let pool = pool(url, POOL_SIZE)?;
        {
            let mut client = pool.get().await.map_err(pool_error)?;
            schema::migrate(&mut client).await?;
        }
        let (to_writer, from_callers) = mpsc::unbounded_channel();
        let (stopped_tx, stopped_rx) = watch::channel(false);
        let counters = Arc::new(Counters::default());
        tokio::spawn(writer::run(
            pool.clone(),
            from_callers,
            Arc::clone(&counters),
            stopped_tx,
        ));
        Ok(Self {
            shared: Arc::new(Shared {
                pool,
                to_writer: Mutex::new(Some(to_writer)),
                writer_stopped: stopped_rx,
                counters,
            }),
        })
    }

    /// A snapshot of the writer's counters.
    pub fn stats(&self) -> PostgresStats {
        self.shared.counters.snapshot()
    }

    /// Hands a unit of work to the writer; the future resolves once it committed. Sent now, not
    /// when the future is first polled, so units reach the writer in call order.
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

    /// A pooled connection for a read (refused once closed, like every call).
    async fn reader(shared: &Shared) -> Result<Object, StoreError> {
        if lock(&shared.to_writer).is_none() {
            return Err(StoreError::Closed);
        }
        shared.pool.get().await.map_err(pool_error)
    }

    /// Runs a query on a pooled connection and maps its rows.
    fn read_rows<T, F>(&self, sql: String, params: Vec<Param>, map: F) -> StoreFuture<Vec<T>>
    where
        T: Send + 'static,
        F: Fn(&tokio_postgres::Row) -> Result<T, StoreError> + Send + 'static,
    {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let client = Self::reader(&shared).await?;
            let statement = client.prepare_cached(&sql).await.map_err(pg_error)?;
            let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(Param::as_sql).collect();
            let rows = client.query(&statement, &refs).await.map_err(pg_error)?;
            rows.iter().map(map).collect()
        })
    }

    /// Runs a listing query and loads every game it returns with its events, in one
    /// repeatable-read transaction (listings and events from the same snapshot), the events of
    /// all the games in one query.
    fn load_games_where(&self, sql: String, params: Vec<Param>) -> StoreFuture<Vec<LoadedGame>> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let mut client = Self::reader(&shared).await?;
            let tx = client
                .build_transaction()
                .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .await
                .map_err(pg_error)?;
            let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(Param::as_sql).collect();
            let statement = tx.prepare_cached(&sql).await.map_err(pg_error)?;
            let listings = tx
                .query(&statement, &refs)
                .await
                .map_err(pg_error)?
                .iter()
                .map(listing_from_row)
                .collect::<Result<Vec<_>, _>>()?;
            let ids: Vec<&str> = listings.iter().map(|l| l.id.as_str()).collect();
            let statement = tx
                .prepare_cached(
                    "SELECT game_id, seq, payload FROM events WHERE game_id = ANY($1)
                     ORDER BY game_id, seq",
                )
                .await
                .map_err(pg_error)?;
            let rows = tx.query(&statement, &[&ids]).await.map_err(pg_error)?;
            tx.commit().await.map_err(pg_error)?;
            let mut by_game: std::collections::HashMap<String, Vec<String>> =
                std::collections::HashMap::with_capacity(listings.len());
            for row in &rows {
                let game: String = row.try_get(0).map_err(pg_error)?;
                let seq: i64 = row.try_get(1).map_err(pg_error)?;
                let events = by_game.entry(game.clone()).or_default();
                if usize::try_from(seq).ok() != Some(events.len()) {
                    return Err(StoreError::Io(format!(
                        "game {game}: event {seq} found where {} was expected",
                        events.len()
                    )));
                }
                events.push(row.try_get(2).map_err(pg_error)?);
            }
            Ok(listings
                .into_iter()
                .map(|listing| {
                    let events = by_game.remove(&listing.id).unwrap_or_default();
                    (listing, events)
                })
                .collect())
        })
    }
}

impl Store for PostgresStore {
    fn commit(&self, commit: Commit) -> StoreFuture<()> {
        self.commit_all(vec![commit])
    }

    fn commit_all(&self, commits: Vec<Commit>) -> StoreFuture<()> {
        let written = self.write(Work::Commits(commits));
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn load_unfinished(&self) -> StoreFuture<Vec<LoadedGame>> {
        self.load_games_where(
            format!("SELECT {LISTING_COLUMNS} FROM games WHERE status IN ($1, $2) ORDER BY id"),
            vec![
                text(GameStatus::Open.as_str()),
                text(GameStatus::Playing.as_str()),
            ],
        )
    }

    fn load_playing(&self) -> StoreFuture<Vec<LoadedGame>> {
        self.load_games_where(
            format!(
                "SELECT {LISTING_COLUMNS} FROM games WHERE status = $1
                 AND id NOT IN (SELECT game_id FROM turn_deadlines) ORDER BY id"
            ),
            vec![text(GameStatus::Playing.as_str())],
        )
    }

    fn load_stale(
        &self,
        status: GameStatus,
        updated_before_ms: i64,
        limit: u32,
        offset: u32,
    ) -> StoreFuture<Vec<LoadedGame>> {
        self.load_games_where(
            format!(
                "SELECT {LISTING_COLUMNS} FROM games WHERE status = $1 AND updated_ms < $2
                 ORDER BY updated_ms, id LIMIT $3 OFFSET $4"
            ),
            vec![
                text(status.as_str()),
                Param::Int(updated_before_ms),
                Param::Int(i64::from(limit)),
                Param::Int(i64::from(offset)),
            ],
        )
    }

    fn load_game(&self, id: &str) -> StoreFuture<Option<LoadedGame>> {
        let games = self.load_games_where(
            format!("SELECT {LISTING_COLUMNS} FROM games WHERE id = $1"),
            vec![text(id)],
        );
        first(games)
    }

    fn list(&self, status: GameStatus, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        self.read_rows(
            format!(
                "SELECT {LISTING_COLUMNS} FROM games WHERE status = $1 AND listed
                 ORDER BY updated_ms DESC, id DESC LIMIT $2 OFFSET $3"
            ),
            vec![
                text(status.as_str()),
                Param::Int(i64::from(limit)),
                Param::Int(i64::from(offset)),
            ],
            listing_from_row,
        )
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        drop(lock(&self.shared.to_writer).take());
        let mut stopped = self.shared.writer_stopped.clone();
        let pool = self.shared.pool.clone();
        Box::pin(async move {
            let _ = stopped.wait_for(|stopped| *stopped).await;
            pool.close();
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
                Done::Stored | Done::ChatLine(_) => {
                    Err(StoreError::Io("the writer returned no user id".to_owned()))
                }
            }
        })
    }

    fn find_user(&self, username: &Username) -> StoreFuture<Option<UserRecord>> {
        first(self.read_rows(
            format!("SELECT {USER_COLUMNS} FROM users WHERE username_key = $1"),
            vec![Param::Text(username.key())],
            |row| user_from_row(row, 0),
        ))
    }

    fn user_by_id(&self, id: UserId) -> StoreFuture<Option<UserRecord>> {
        first(self.read_rows(
            format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1"),
            vec![Param::Int(id.0)],
            |row| user_from_row(row, 0),
        ))
    }

    fn create_session(&self, hash: SessionHash, user: UserId, at_ms: i64) -> StoreFuture<()> {
        let written = self.write(Work::CreateSession { hash, user, at_ms });
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn session_account(&self, hash: SessionHash, now_ms: i64) -> StoreFuture<Option<Account>> {
        let shared = Arc::clone(&self.shared);
        let store = self.clone();
        Box::pin(async move {
            let found = {
                let client = Self::reader(&shared).await?;
                let statement = client
                    .prepare_cached(
                        "SELECT sessions.last_seen_ms, users.id, users.username,
                             users.password_hash, users.created_ms, users.status
                         FROM sessions JOIN users ON users.id = sessions.user_id
                         WHERE sessions.id_hash = $1",
                    )
                    .await
                    .map_err(pg_error)?;
                let row = client
                    .query_opt(&statement, &[&&hash[..]])
                    .await
                    .map_err(pg_error)?;
                match row {
                    None => None,
                    Some(row) => {
                        let last_seen: i64 = row.try_get(0).map_err(pg_error)?;
                        let user = user_from_row(&row, 1)?;
                        // A closed or deleted account has no live session, whatever rows
                        // remain (see the SQLite store).
                        user.status.is_active().then_some((last_seen, user.account))
                    }
                }
            };
            let Some((last_seen, account)) = found else {
                return Ok(None);
            };
            if !session_alive(last_seen, now_ms) {
                return Ok(None);
            }
            if session_needs_touch(last_seen, now_ms)
                && let Err(e) = store
                    .write(Work::TouchSession {
                        hash,
                        at_ms: now_ms,
                    })
                    .await
            {
                tracing::warn!(error = %e, "store: could not record a session's last use");
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
        self.account_status(user, status, at_ms)
    }

    fn user_sessions(&self, user: UserId, now_ms: i64) -> StoreFuture<Vec<SessionRecord>> {
        self.account_sessions(user, now_ms)
    }

    fn delete_other_sessions(&self, user: UserId, keep: SessionHash) -> StoreFuture<()> {
        self.account_sessions_but(user, keep)
    }

    fn set_password_hash(
        &self,
        user: UserId,
        password_hash: String,
        keep: SessionHash,
    ) -> StoreFuture<()> {
        self.account_password(user, password_hash, keep)
    }

    fn delete_account(&self, user: UserId, at_ms: i64) -> StoreFuture<()> {
        self.account_delete(user, at_ms)
    }

    fn ratings(&self, user: UserId) -> StoreFuture<Vec<(Speed, Rating)>> {
        let rows = self.read_rows(
            "SELECT speed, rating, deviation, volatility, games FROM ratings WHERE user_id = $1"
                .to_owned(),
            vec![Param::Int(user.0)],
            |row| {
                let speed: String = row.try_get(0).map_err(pg_error)?;
                Ok((parse_speed(&speed)?, rating_from_row(row, 1)?))
            },
        );
        Box::pin(async move {
            let mut ratings = rows.await?;
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
        let rows = self.read_rows(
            format!(
                "SELECT * FROM (
                     SELECT {RATED_COLUMNS} FROM rated_games
                         WHERE white_user = $1 AND ($2::text IS NULL OR speed = $2)
                     UNION ALL
                     SELECT {RATED_COLUMNS} FROM rated_games
                         WHERE black_user = $1 AND white_user <> $1
                             AND ($2::text IS NULL OR speed = $2)) AS both_colours
                 ORDER BY ended_ms DESC, game_id DESC LIMIT $3"
            ),
            vec![
                Param::Int(user.0),
                Param::OptText(speed.map(|s| s.as_str().to_owned())),
                Param::Int(i64::from(limit)),
            ],
            rated_from_row,
        );
        Box::pin(async move {
            let mut games = rows.await?;
            games.reverse();
            Ok(games)
        })
    }

    fn user_games(&self, user: UserId, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        self.read_rows(
            format!(
                "SELECT * FROM (
                     SELECT {LISTING_COLUMNS} FROM games WHERE white_user = $1
                     UNION ALL
                     SELECT {LISTING_COLUMNS} FROM games
                         WHERE black_user = $1 AND (white_user IS NULL OR white_user <> $1))
                     AS both_colours
                 ORDER BY updated_ms DESC, id DESC LIMIT $2 OFFSET $3"
            ),
            vec![
                Param::Int(user.0),
                Param::Int(i64::from(limit)),
                Param::Int(i64::from(offset)),
            ],
            listing_from_row,
        )
    }

    fn game_rating(&self, game_id: &str) -> StoreFuture<Option<RatedGame>> {
        first(self.read_rows(
            format!("SELECT {RATED_COLUMNS} FROM rated_games WHERE game_id = $1"),
            vec![text(game_id)],
            rated_from_row,
        ))
    }

    fn append_chat(&self, line: NewChatLine) -> StoreFuture<i64> {
        let written = self.write(Work::AppendChat(line));
        Box::pin(async move {
            match written.await? {
                Done::ChatLine(id) => Ok(id),
                Done::Stored | Done::User(_) => Err(StoreError::Io(
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
        let (sql, params) = match game_id {
            Some(game) => (
                "SELECT id, game_id, at_ms, user_id, author, text FROM chat_lines
                 WHERE game_id = $1 AND room = $2 ORDER BY id DESC LIMIT $3",
                vec![
                    text(game),
                    text(room.as_str()),
                    Param::Int(i64::from(limit)),
                ],
            ),
            None => (
                "SELECT id, game_id, at_ms, user_id, author, text FROM chat_lines
                 WHERE game_id IS NULL AND room = $1 ORDER BY id DESC LIMIT $2",
                vec![text(room.as_str()), Param::Int(i64::from(limit))],
            ),
        };
        let rows = self.read_rows(sql.to_owned(), params, move |row| {
            Ok(ChatLine {
                id: row.try_get(0).map_err(pg_error)?,
                game_id: row.try_get(1).map_err(pg_error)?,
                room,
                at_ms: row.try_get(2).map_err(pg_error)?,
                user_id: row
                    .try_get::<_, Option<i64>>(3)
                    .map_err(pg_error)?
                    .map(UserId),
                author: row.try_get(4).map_err(pg_error)?,
                text: row.try_get(5).map_err(pg_error)?,
            })
        });
        Box::pin(async move {
            let mut lines = rows.await?;
            lines.reverse();
            Ok(lines)
        })
    }

    fn account_settings(&self, user: UserId) -> StoreFuture<Option<String>> {
        first(self.read_rows(
            "SELECT settings FROM account_settings WHERE user_id = $1".to_owned(),
            vec![Param::Int(user.0)],
            |row| row.try_get(0).map_err(pg_error),
        ))
    }

    fn set_account_settings(&self, user: UserId, json: String, at_ms: i64) -> StoreFuture<()> {
        let written = self.write(Work::SetSettings { user, json, at_ms });
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn turn_deadlines(&self) -> StoreFuture<Vec<(String, i64)>> {
        self.read_rows(
            "SELECT game_id, deadline_ms FROM turn_deadlines".to_owned(),
            Vec::new(),
            |row| {
                Ok((
                    row.try_get(0).map_err(pg_error)?,
                    row.try_get(1).map_err(pg_error)?,
                ))
            },
        )
    }

    fn create_arena(&self, record: ArenaRecord) -> StoreFuture<bool> {
        self.arena_insert(record)
    }

    fn arena(&self, id: &str) -> StoreFuture<Option<ArenaRecord>> {
        self.arena_row(id)
    }

    fn arenas(&self, range: ArenaRange, limit: u32) -> StoreFuture<Vec<ArenaRecord>> {
        self.arena_rows(range, limit)
    }

    fn set_arena_player(&self, id: &str, player: ArenaPlayer) -> StoreFuture<()> {
        self.arena_player_upsert(id, player)
    }

    fn arena_players(&self, id: &str) -> StoreFuture<Vec<ArenaPlayer>> {
        self.arena_player_rows(id)
    }

    fn arena_games(&self, id: &str) -> StoreFuture<Vec<GameListing>> {
        self.arena_game_rows(id)
    }

    fn user_arenas(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ArenaRecord>> {
        self.user_arena_rows(user, limit)
    }

    fn import_puzzles(&self, puzzles: Vec<PuzzleRecord>) -> StoreFuture<u64> {
        self.puzzle_import(puzzles)
    }

    fn puzzle(&self, id: &str) -> StoreFuture<Option<PuzzleRecord>> {
        self.puzzle_row(id)
    }

    fn puzzle_near(
        &self,
        user: Option<UserId>,
        theme: Option<String>,
        target: i32,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        self.puzzle_nearest(user, theme, target)
    }

    fn puzzle_after(
        &self,
        theme: Option<String>,
        after: Option<String>,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        self.puzzle_next_by_id(theme, after)
    }

    fn puzzle_themes(&self) -> StoreFuture<Vec<(String, u64)>> {
        self.puzzle_theme_counts()
    }

    fn puzzle_count(&self) -> StoreFuture<u64> {
        self.puzzle_total()
    }

    fn puzzle_player(&self, user: UserId) -> StoreFuture<Option<PuzzlePlayer>> {
        self.puzzle_player_row(user)
    }

    fn record_puzzle_round(&self, round: PuzzleRound) -> StoreFuture<RoundOutcome> {
        self.puzzle_round(round)
    }

    fn puzzle_attempts(&self, user: UserId, limit: u32) -> StoreFuture<Vec<PuzzleAttempt>> {
        self.puzzle_attempt_rows(user, limit)
    }

    fn export_puzzles(&self, after: Option<String>, limit: u32) -> StoreFuture<Vec<PuzzleRecord>> {
        self.puzzle_page(after, limit)
    }

    fn record_lesson_step(
        &self,
        user: UserId,
        lesson: &str,
        step: u32,
        at_ms: i64,
    ) -> StoreFuture<()> {
        self.lesson_step_insert(user, lesson, step, at_ms)
    }

    fn lesson_steps(&self, user: UserId) -> StoreFuture<Vec<LessonStep>> {
        self.lesson_step_rows(user)
    }

    fn file_report(
        &self,
        report: crate::server::store::NewReport,
        since_ms: i64,
        max_open: u32,
    ) -> StoreFuture<crate::server::store::ReportFiled> {
        self.report_file(report, since_ms, max_open)
    }

    fn report(&self, id: i64) -> StoreFuture<Option<crate::server::store::Report>> {
        self.report_row(id)
    }

    fn open_reports(&self, limit: u32) -> StoreFuture<Vec<crate::server::store::Report>> {
        self.open_report_rows(limit)
    }

    fn reports_by(
        &self,
        reporter: UserId,
        limit: u32,
    ) -> StoreFuture<Vec<crate::server::store::Report>> {
        self.report_rows_by(reporter, limit)
    }

    fn moderate(&self, action: crate::server::store::ModAction) -> StoreFuture<u64> {
        self.mod_act(action)
    }

    fn is_moderator(&self, user: UserId) -> StoreFuture<bool> {
        self.moderator_row(user)
    }

    fn chat_ban(
        &self,
        user: UserId,
        now_ms: i64,
    ) -> StoreFuture<Option<crate::server::store::ChatBan>> {
        self.chat_ban_row(user, now_ms)
    }

    fn user_mark(&self, user: UserId) -> StoreFuture<Option<crate::server::store::MarkRecord>> {
        self.mark_row(user)
    }

    fn mod_log(&self, limit: u32) -> StoreFuture<Vec<crate::server::store::ModLogEntry>> {
        self.mod_log_rows(limit)
    }

    fn user_chat_lines(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ChatLine>> {
        self.user_chat_rows(user, limit)
    }

    fn leaderboard(
        &self,
        speed: Speed,
        min_games: u32,
        limit: u32,
    ) -> StoreFuture<Vec<crate::server::store::LeaderboardRow>> {
        self.leaderboard_rows(speed, min_games, limit)
    }

    fn add_explorer_games(&self, games: Vec<super::ExplorerGame>) -> StoreFuture<u64> {
        self.explorer_add(games)
    }

    fn explorer_position(&self, key: i64) -> StoreFuture<super::ExplorerPosition> {
        self.explorer_read(key)
    }

    fn block(&self, blocker: UserId, blocked: UserId, at_ms: i64) -> StoreFuture<()> {
        self.block_insert(blocker, blocked, at_ms)
    }

    fn unblock(&self, blocker: UserId, blocked: UserId) -> StoreFuture<bool> {
        self.block_delete(blocker, blocked)
    }

    fn blocks_of(&self, user: UserId) -> StoreFuture<Vec<super::BlockEntry>> {
        self.block_rows(user)
    }

    fn block_relations(&self, user: UserId) -> StoreFuture<Vec<super::BlockRelation>> {
        self.block_relation_rows(user)
    }

    fn blocked_between(&self, a: UserId, b: UserId) -> StoreFuture<bool> {
        self.block_between(a, b)
    }

    fn record_playban(&self, end: super::PlaybanEnd) -> StoreFuture<u64> {
        self.playban_add(end)
    }

    fn playban_outcomes(
        &self,
        user: UserId,
        since_ms: i64,
        limit: u32,
    ) -> StoreFuture<Vec<super::PlaybanEntry>> {
        self.playban_read(user, since_ms, limit)
    }

    fn claim_game(&self, game: &str, node: &str, ttl: Duration) -> StoreFuture<Claim> {
        self.claim(game, node, ttl)
    }

    fn renew_leases(&self, node: &str, ttl: Duration) -> StoreFuture<Vec<(String, i64)>> {
        self.renew(node, ttl)
    }

    fn release_game(&self, game: &str, fence: Fence) -> StoreFuture<()> {
        self.release(game, fence)
    }

    fn release_node(&self, node: &str) -> StoreFuture<u64> {
        self.release_all(node)
    }

    fn game_owner(&self, game: &str) -> StoreFuture<Option<Fence>> {
        self.owner(game)
    }

    fn orphaned_games(&self, limit: u32) -> StoreFuture<Vec<String>> {
        self.orphans(limit)
    }

    fn live_nodes(&self) -> StoreFuture<Vec<String>> {
        self.live()
    }
}
