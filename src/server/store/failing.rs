//! [`FailingStore`]: a [`Store`] wrapper that fails commits on demand (failure injection for tests).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::future::BoxFuture;

use super::{
    ArenaPlayer, ArenaRange, ArenaRecord, Commit, GameListing, GameStatus, LessonStep, LoadedGame,
    PuzzleAttempt, PuzzlePlayer, PuzzleRecord, PuzzleRound, RatedGame, RoundOutcome, SessionHash,
    SessionRecord, Store, StoreError, StoreFuture, UserRecord,
};
use crate::server::domain::chat::ChatRoom;
use crate::server::domain::chat_line::{ChatLine, NewChatLine};
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{Account, AccountStatus, UserId, Username};
use crate::server::game::speed::Speed;

/// Wraps a store and, while its shared switch is on, fails every commit and every other write
/// with `StoreError::Io("injected")` without passing it on (so nothing is stored):
/// `create_user`, `create_session`, `delete_session`; the account controls' writes
/// (`set_account_status`, `delete_other_sessions`, `set_password_hash`, `delete_account`);
/// `append_chat`, `set_account_settings`; the arena writes; `import_puzzles`,
/// `record_puzzle_round`; `file_report`, `moderate`; `block`, `unblock`; `record_playban`.
/// Reads and `close()` always go to the inner store (so does `session_account`, whose
/// last-seen touch is best effort). The switch starts off.
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

    fn create_user(
        &self,
        username: Username,
        password_hash: String,
        at_ms: i64,
    ) -> StoreFuture<UserId> {
        if self.is_failing() {
            return injected();
        }
        self.inner.create_user(username, password_hash, at_ms)
    }

    fn find_user(&self, username: &Username) -> StoreFuture<Option<UserRecord>> {
        self.inner.find_user(username)
    }

    fn user_by_id(&self, id: UserId) -> StoreFuture<Option<UserRecord>> {
        self.inner.user_by_id(id)
    }

    fn create_session(&self, hash: SessionHash, user: UserId, at_ms: i64) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.create_session(hash, user, at_ms)
    }

    fn session_account(&self, hash: SessionHash, now_ms: i64) -> StoreFuture<Option<Account>> {
        self.inner.session_account(hash, now_ms)
    }

    fn delete_session(&self, hash: SessionHash) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.delete_session(hash)
    }

    fn set_account_status(
        &self,
        user: UserId,
        status: AccountStatus,
        at_ms: i64,
    ) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.set_account_status(user, status, at_ms)
    }

    fn user_sessions(&self, user: UserId, now_ms: i64) -> StoreFuture<Vec<SessionRecord>> {
        self.inner.user_sessions(user, now_ms)
    }

    fn delete_other_sessions(&self, user: UserId, keep: SessionHash) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.delete_other_sessions(user, keep)
    }

    fn set_password_hash(
        &self,
        user: UserId,
        password_hash: String,
        keep: SessionHash,
    ) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.set_password_hash(user, password_hash, keep)
    }

    fn delete_account(&self, user: UserId, at_ms: i64) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.delete_account(user, at_ms)
    }

    fn ratings(&self, user: UserId) -> StoreFuture<Vec<(Speed, Rating)>> {
        self.inner.ratings(user)
    }

    fn rating_history(
        &self,
        user: UserId,
        speed: Option<Speed>,
        limit: u32,
    ) -> StoreFuture<Vec<RatedGame>> {
        self.inner.rating_history(user, speed, limit)
    }

    fn user_games(&self, user: UserId, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        self.inner.user_games(user, limit, offset)
    }

    fn game_rating(&self, game_id: &str) -> StoreFuture<Option<RatedGame>> {
        self.inner.game_rating(game_id)
    }

    fn append_chat(&self, line: NewChatLine) -> StoreFuture<i64> {
        if self.is_failing() {
            return injected();
        }
        self.inner.append_chat(line)
    }

    fn recent_chat(
        &self,
        game_id: Option<&str>,
        room: ChatRoom,
        limit: u32,
    ) -> StoreFuture<Vec<ChatLine>> {
        self.inner.recent_chat(game_id, room, limit)
    }

    fn turn_deadlines(&self) -> StoreFuture<Vec<(String, i64)>> {
        self.inner.turn_deadlines()
    }

    fn account_settings(&self, user: UserId) -> StoreFuture<Option<String>> {
        self.inner.account_settings(user)
    }

    fn set_account_settings(&self, user: UserId, json: String, at_ms: i64) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.set_account_settings(user, json, at_ms)
    }

    fn create_arena(&self, arena: ArenaRecord) -> StoreFuture<bool> {
        if self.is_failing() {
            return injected();
        }
        self.inner.create_arena(arena)
    }

    fn arena(&self, id: &str) -> StoreFuture<Option<ArenaRecord>> {
        self.inner.arena(id)
    }

    fn arenas(&self, range: ArenaRange, limit: u32) -> StoreFuture<Vec<ArenaRecord>> {
        self.inner.arenas(range, limit)
    }

    fn set_arena_player(&self, arena: &str, player: ArenaPlayer) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.set_arena_player(arena, player)
    }

    fn arena_players(&self, arena: &str) -> StoreFuture<Vec<ArenaPlayer>> {
        self.inner.arena_players(arena)
    }

    fn arena_games(&self, arena: &str) -> StoreFuture<Vec<GameListing>> {
        self.inner.arena_games(arena)
    }

    fn user_arenas(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ArenaRecord>> {
        self.inner.user_arenas(user, limit)
    }

    fn import_puzzles(&self, puzzles: Vec<PuzzleRecord>) -> StoreFuture<u64> {
        if self.is_failing() {
            return injected();
        }
        self.inner.import_puzzles(puzzles)
    }

    fn puzzle(&self, id: &str) -> StoreFuture<Option<PuzzleRecord>> {
        self.inner.puzzle(id)
    }

    fn puzzle_near(
        &self,
        user: Option<UserId>,
        theme: Option<String>,
        target: i32,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        self.inner.puzzle_near(user, theme, target)
    }

    fn puzzle_after(
        &self,
        theme: Option<String>,
        after: Option<String>,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        self.inner.puzzle_after(theme, after)
    }

    fn puzzle_themes(&self) -> StoreFuture<Vec<(String, u64)>> {
        self.inner.puzzle_themes()
    }

    fn puzzle_count(&self) -> StoreFuture<u64> {
        self.inner.puzzle_count()
    }

    fn puzzle_player(&self, user: UserId) -> StoreFuture<Option<PuzzlePlayer>> {
        self.inner.puzzle_player(user)
    }

    fn record_puzzle_round(&self, round: PuzzleRound) -> StoreFuture<RoundOutcome> {
        if self.is_failing() {
            return injected();
        }
        self.inner.record_puzzle_round(round)
    }

    fn puzzle_attempts(&self, user: UserId, limit: u32) -> StoreFuture<Vec<PuzzleAttempt>> {
        self.inner.puzzle_attempts(user, limit)
    }

    fn export_puzzles(&self, after: Option<String>, limit: u32) -> StoreFuture<Vec<PuzzleRecord>> {
        self.inner.export_puzzles(after, limit)
    }

    fn record_lesson_step(
        &self,
        user: UserId,
        lesson: &str,
        step: u32,
        at_ms: i64,
    ) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.record_lesson_step(user, lesson, step, at_ms)
    }

    fn lesson_steps(&self, user: UserId) -> StoreFuture<Vec<LessonStep>> {
        self.inner.lesson_steps(user)
    }

    fn file_report(
        &self,
        report: super::NewReport,
        since_ms: i64,
        max_open: u32,
    ) -> StoreFuture<super::ReportFiled> {
        if self.is_failing() {
            return injected();
        }
        self.inner.file_report(report, since_ms, max_open)
    }
    fn report(&self, id: i64) -> StoreFuture<Option<super::Report>> {
        self.inner.report(id)
    }
    fn open_reports(&self, limit: u32) -> StoreFuture<Vec<super::Report>> {
        self.inner.open_reports(limit)
    }
    fn reports_by(&self, reporter: UserId, limit: u32) -> StoreFuture<Vec<super::Report>> {
        self.inner.reports_by(reporter, limit)
    }
    fn moderate(&self, action: super::ModAction) -> StoreFuture<u64> {
        if self.is_failing() {
            return injected();
        }
        self.inner.moderate(action)
    }
    fn is_moderator(&self, user: UserId) -> StoreFuture<bool> {
        self.inner.is_moderator(user)
    }
    fn chat_ban(&self, user: UserId, now_ms: i64) -> StoreFuture<Option<super::ChatBan>> {
        self.inner.chat_ban(user, now_ms)
    }
    fn user_mark(&self, user: UserId) -> StoreFuture<Option<super::MarkRecord>> {
        self.inner.user_mark(user)
    }
    fn mod_log(&self, limit: u32) -> StoreFuture<Vec<super::ModLogEntry>> {
        self.inner.mod_log(limit)
    }
    fn user_chat_lines(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ChatLine>> {
        self.inner.user_chat_lines(user, limit)
    }
    fn leaderboard(
        &self,
        speed: Speed,
        min_games: u32,
        limit: u32,
    ) -> StoreFuture<Vec<super::LeaderboardRow>> {
        self.inner.leaderboard(speed, min_games, limit)
    }

    fn add_explorer_games(&self, games: Vec<super::ExplorerGame>) -> StoreFuture<u64> {
        if self.is_failing() {
            return injected();
        }
        self.inner.add_explorer_games(games)
    }

    fn explorer_position(&self, key: i64) -> StoreFuture<super::ExplorerPosition> {
        self.inner.explorer_position(key)
    }

    fn block(&self, blocker: UserId, blocked: UserId, at_ms: i64) -> StoreFuture<()> {
        if self.is_failing() {
            return injected();
        }
        self.inner.block(blocker, blocked, at_ms)
    }

    fn unblock(&self, blocker: UserId, blocked: UserId) -> StoreFuture<bool> {
        if self.is_failing() {
            return injected();
        }
        self.inner.unblock(blocker, blocked)
    }

    fn blocks_of(&self, user: UserId) -> StoreFuture<Vec<super::BlockEntry>> {
        self.inner.blocks_of(user)
    }

    fn block_relations(&self, user: UserId) -> StoreFuture<Vec<super::BlockRelation>> {
        self.inner.block_relations(user)
    }

    fn blocked_between(&self, a: UserId, b: UserId) -> StoreFuture<bool> {
        self.inner.blocked_between(a, b)
    }

    fn record_playban(&self, end: super::PlaybanEnd) -> StoreFuture<u64> {
        if self.is_failing() {
            return injected();
        }
        self.inner.record_playban(end)
    }

    fn playban_outcomes(
        &self,
        user: UserId,
        since_ms: i64,
        limit: u32,
    ) -> StoreFuture<Vec<super::PlaybanEntry>> {
        self.inner.playban_outcomes(user, since_ms, limit)
    }
}

fn injected<T: Send + 'static>() -> StoreFuture<T> {
    Box::pin(async { Err(StoreError::Io("injected".to_owned())) })
}
