//! [`MemoryStore`]: an in-memory [`Store`] for tests, with the same contract as the SQLite store.
//! Its puzzles are in puzzles.rs, its opening explorer in explorer.rs.

mod account;
mod blocks;
mod explorer;
mod lessons;
mod moderation;
mod playban;
mod puzzles;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::future::BoxFuture;

use self::blocks::MemoryBlocks;
use self::explorer::MemoryExplorer;
use self::lessons::MemoryLessons;
use self::moderation::{KeptReport, MemoryModeration};
use self::playban::MemoryPlayban;
use self::puzzles::MemoryPuzzles;
use super::{
    ArenaPlayer, ArenaRange, ArenaRecord, BlockEntry, BlockRelation, Commit, DeadlineChange,
    GameListing, GameStatus, LessonStep, LoadedGame, PuzzleAttempt, PuzzlePlayer, PuzzleRecord,
    PuzzleRound, RatedGame, RoundOutcome, SessionHash, SessionRecord, Store, StoreError,
    StoreFuture, UserRecord, listing_order, rate_end, rated_order, session_alive,
    session_needs_touch,
};
use crate::server::domain::chat::ChatRoom;
use crate::server::domain::chat_line::{ChatLine, NewChatLine};
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{Account, AccountStatus, UserId, Username};
use crate::server::game::speed::Speed;
use crate::server::store::KEPT_LINES;
use crate::server::store::{
    ChatBan, LeaderboardRow, MarkRecord, ModAction, ModLogEntry, NewReport, Report, ReportFiled,
    ReportStatus,
};

/// A stored session: whose it is and when it was last seen.
#[derive(Clone, Copy)]
struct MemorySession {
    user: UserId,
    created_ms: i64,
    last_seen_ms: i64,
}

#[derive(Default)]
struct MemoryInner {
    games: HashMap<String, LoadedGame>,
    /// By [`Username::key`].
    users: HashMap<String, UserRecord>,
    sessions: HashMap<SessionHash, MemorySession>,
    ratings: HashMap<(UserId, Speed), Rating>,
    rated: HashMap<String, RatedGame>,
    /// Per room (game id, room): its lines, oldest first.
    chat: HashMap<(Option<String>, ChatRoom), Vec<ChatLine>>,
    /// The last chat line id given.
    chat_id: i64,
    /// The turn-deadline index (schema v4): game id -> deadline Unix ms.
    deadlines: HashMap<String, i64>,
    /// Personal settings (schema v5): user -> JSON object.
    settings: HashMap<UserId, String>,
    arenas: HashMap<String, ArenaRecord>,
    /// Each arena's players in the order they first joined.
    arena_players: HashMap<String, Vec<ArenaPlayer>>,
    puzzles: MemoryPuzzles,
    lessons: MemoryLessons,
    explorer: MemoryExplorer,
    moderation: MemoryModeration,
    blocks: MemoryBlocks,
    playban: MemoryPlayban,
    closed: bool,
}

impl MemoryInner {
    fn user_by_id(&self, id: UserId) -> Option<&UserRecord> {
        self.users.values().find(|u| u.account.id == id)
    }

    fn rating(&self, user: UserId, speed: Speed) -> Rating {
        self.ratings
            .get(&(user, speed))
            .copied()
            .unwrap_or(Rating::INITIAL)
    }

    /// Rates a game's end once (see [`super::RatedEnd`]).
    fn rate(&mut self, commit: &Commit) {
        let Some(end) = commit.rating else { return };
        if self.rated.contains_key(&commit.game_id) {
            return;
        }
        // A marked player's games change no rating (issue 32): the end is stored unrated.
        if self.moderation.marks.contains_key(&end.white)
            || self.moderation.marks.contains_key(&end.black)
        {
            return;
        }
        let white_before = self.rating(end.white, end.speed);
        let black_before = self.rating(end.black, end.speed);
        let (white_after, black_after) = rate_end(&end, white_before, black_before);
        self.ratings.insert((end.white, end.speed), white_after);
        self.ratings.insert((end.black, end.speed), black_after);
        self.rated.insert(
            commit.game_id.clone(),
            RatedGame {
                game_id: commit.game_id.clone(),
                speed: end.speed,
                ended_ms: commit.listing.updated_ms,
                white: end.white,
                black: end.black,
                score_white: end.score_white,
                white_before,
                white_after,
                black_before,
                black_after,
            },
        );
    }

    fn name_of(&self, user: UserId) -> String {
        self.user_by_id(user)
            .map(|u| u.account.name.as_str().to_owned())
            .unwrap_or_default()
    }

    fn report_view(&self, id: i64, kept: &KeptReport) -> Report {
        Report {
            id,
            reporter: kept.new.reporter,
            reporter_name: self.name_of(kept.new.reporter),
            reported: kept.new.reported,
            reported_name: self.name_of(kept.new.reported),
            reason: kept.new.reason,
            text: kept.new.text.clone(),
            game_id: kept.new.game_id.clone(),
            created_ms: kept.new.at_ms,
            status: kept.status,
            handled_by: kept.handled_by.clone(),
            handled_ms: kept.handled_ms,
        }
    }

    /// Reports chosen by `keep`, newest first (then by id, descending), at most `limit`.
    fn reports_where(&self, keep: impl Fn(&KeptReport) -> bool, limit: u32) -> Vec<Report> {
        let mut rows: Vec<(i64, &KeptReport)> = self
            .moderation
            .reports
            .iter()
            .filter(|(_, r)| keep(r))
            .map(|(id, r)| (*id, r))
            .collect();
        rows.sort_by(|a, b| b.1.new.at_ms.cmp(&a.1.new.at_ms).then(b.0.cmp(&a.0)));
        rows.into_iter()
            .take(limit as usize)
            .map(|(id, r)| self.report_view(id, r))
            .collect()
    }

    fn check_open(&self) -> Result<(), StoreError> {
        if self.closed {
            Err(StoreError::Closed)
        } else {
            Ok(())
        }
    }
}

fn ready<T: Send + 'static>(result: Result<T, StoreError>) -> StoreFuture<T> {
    Box::pin(async move { result })
}

fn paged<T>(rows: Vec<T>, limit: u32, offset: u32) -> Vec<T> {
    rows.into_iter()
        .skip(offset as usize)
        .take(limit as usize)
        .collect()
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
            inner.rate(&commit);
            if let Some(game) = &commit.explorer {
                inner.explorer.add(game);
            }
            if let Some(end) = &commit.playban {
                inner.playban.add(end);
            }
            match commit.deadline {
                DeadlineChange::Unchanged => {}
                DeadlineChange::Set(ms) => {
                    inner.deadlines.insert(commit.game_id.clone(), ms);
                }
                DeadlineChange::Cleared => {
                    inner.deadlines.remove(&commit.game_id);
                }
            }
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
        let indexed: std::collections::HashSet<String> =
            self.lock().deadlines.keys().cloned().collect();
        let games = self.games_where(|listing| {
            listing.status == GameStatus::Playing && !indexed.contains(&listing.id)
        });
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

    fn create_user(
        &self,
        username: Username,
        password_hash: String,
        at_ms: i64,
    ) -> StoreFuture<UserId> {
        let mut inner = self.lock();
        let result = inner.check_open().and_then(|()| {
            let key = username.key();
            if inner.users.contains_key(&key) {
                return Err(StoreError::UsernameTaken);
            }
            // Ids from 1, as SQLite's INTEGER PRIMARY KEY gives them.
            let id = UserId(
                inner
                    .users
                    .values()
                    .map(|u| u.account.id.0)
                    .max()
                    .unwrap_or(0)
                    + 1,
            );
            inner.users.insert(
                key,
                UserRecord {
                    account: Account { id, name: username },
                    password_hash,
                    created_ms: at_ms,
                    status: AccountStatus::Active,
                },
            );
            Ok(id)
        });
        ready(result)
    }

    fn find_user(&self, username: &Username) -> StoreFuture<Option<UserRecord>> {
        ready(Ok(self.lock().users.get(&username.key()).cloned()))
    }

    fn user_by_id(&self, id: UserId) -> StoreFuture<Option<UserRecord>> {
        ready(Ok(self.lock().user_by_id(id).cloned()))
    }

    fn create_session(&self, hash: SessionHash, user: UserId, at_ms: i64) -> StoreFuture<()> {
        let mut inner = self.lock();
        let result = inner.check_open().map(|()| {
            inner
                .sessions
                .retain(|_, s| s.user != user || session_alive(s.last_seen_ms, at_ms));
            inner.sessions.insert(
                hash,
                MemorySession {
                    user,
                    created_ms: at_ms,
                    last_seen_ms: at_ms,
                },
            );
        });
        ready(result)
    }

    fn session_account(&self, hash: SessionHash, now_ms: i64) -> StoreFuture<Option<Account>> {
        let mut inner = self.lock();
        let closed = inner.closed;
        let account = match inner.sessions.get_mut(&hash) {
            Some(session) if session_alive(session.last_seen_ms, now_ms) => {
                if !closed && session_needs_touch(session.last_seen_ms, now_ms) {
                    session.last_seen_ms = now_ms;
                }
                let user = session.user;
                inner
                    .user_by_id(user)
                    .filter(|u| u.status.is_active())
                    .map(|u| u.account.clone())
            }
            _ => None,
        };
        ready(Ok(account))
    }

    fn delete_session(&self, hash: SessionHash) -> StoreFuture<()> {
        let mut inner = self.lock();
        let result = inner.check_open().map(|()| {
            inner.sessions.remove(&hash);
        });
        ready(result)
    }

    fn set_account_status(
        &self,
        user: UserId,
        status: AccountStatus,
        _at_ms: i64,
    ) -> StoreFuture<()> {
        let mut inner = self.lock();
        let result = inner.check_open().map(|()| inner.set_status(user, status));
        ready(result)
    }

    fn user_sessions(&self, user: UserId, now_ms: i64) -> StoreFuture<Vec<SessionRecord>> {
        ready(Ok(self.lock().sessions_of(user, now_ms)))
    }

    fn delete_other_sessions(&self, user: UserId, keep: SessionHash) -> StoreFuture<()> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .map(|()| inner.delete_sessions_but(user, keep));
        ready(result)
    }

    fn set_password_hash(
        &self,
        user: UserId,
        password_hash: String,
        keep: SessionHash,
    ) -> StoreFuture<()> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .map(|()| inner.set_password(user, password_hash, keep));
        ready(result)
    }

    fn delete_account(&self, user: UserId, _at_ms: i64) -> StoreFuture<()> {
        let mut inner = self.lock();
        let result = inner.check_open().map(|()| inner.delete_account(user));
        ready(result)
    }

    fn ratings(&self, user: UserId) -> StoreFuture<Vec<(Speed, Rating)>> {
        let mut ratings: Vec<(Speed, Rating)> = self
            .lock()
            .ratings
            .iter()
            .filter(|((u, _), _)| *u == user)
            .map(|((_, speed), rating)| (*speed, *rating))
            .collect();
        ratings.sort_by_key(|(speed, _)| *speed);
        ready(Ok(ratings))
    }

    fn rating_history(
        &self,
        user: UserId,
        speed: Option<Speed>,
        limit: u32,
    ) -> StoreFuture<Vec<RatedGame>> {
        let mut games: Vec<RatedGame> = self
            .lock()
            .rated
            .values()
            .filter(|g| (g.white == user || g.black == user) && speed.is_none_or(|s| g.speed == s))
            .cloned()
            .collect();
        games.sort_by(rated_order);
        let skip = games.len().saturating_sub(limit as usize);
        ready(Ok(games.split_off(skip)))
    }

    fn user_games(&self, user: UserId, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        let mut rows: Vec<GameListing> = self
            .lock()
            .games
            .values()
            .filter(|(l, _)| l.white_user == Some(user) || l.black_user == Some(user))
            .map(|(l, _)| l.clone())
            .collect();
        rows.sort_by(listing_order);
        ready(Ok(paged(rows, limit, offset)))
    }

    fn game_rating(&self, game_id: &str) -> StoreFuture<Option<RatedGame>> {
        ready(Ok(self.lock().rated.get(game_id).cloned()))
    }

    fn append_chat(&self, line: NewChatLine) -> StoreFuture<i64> {
        let mut inner = self.lock();
        if let Err(e) = inner.check_open() {
            return ready(Err(e));
        }
        inner.chat_id += 1;
        let id = inner.chat_id;
        let lines = inner
            .chat
            .entry((line.game_id.clone(), line.room))
            .or_default();
        lines.push(line.stored(id));
        let excess = lines.len().saturating_sub(KEPT_LINES as usize);
        lines.drain(..excess);
        ready(Ok(id))
    }

    fn recent_chat(
        &self,
        game_id: Option<&str>,
        room: ChatRoom,
        limit: u32,
    ) -> StoreFuture<Vec<ChatLine>> {
        let inner = self.lock();
        let lines = inner
            .chat
            .get(&(game_id.map(str::to_owned), room))
            .map(|lines| {
                let from = lines.len().saturating_sub(limit as usize);
                lines[from..].to_vec()
            })
            .unwrap_or_default();
        ready(Ok(lines))
    }

    fn turn_deadlines(&self) -> StoreFuture<Vec<(String, i64)>> {
        let inner = self.lock();
        let rows = inner
            .deadlines
            .iter()
            .map(|(id, ms)| (id.clone(), *ms))
            .collect();
        ready(Ok(rows))
    }

    fn account_settings(&self, user: UserId) -> StoreFuture<Option<String>> {
        ready(Ok(self.lock().settings.get(&user).cloned()))
    }

    fn set_account_settings(&self, user: UserId, json: String, _at_ms: i64) -> StoreFuture<()> {
        let mut inner = self.lock();
        let result = inner.check_open().map(|()| {
            inner.settings.insert(user, json);
        });
        ready(result)
    }

    fn create_arena(&self, arena: ArenaRecord) -> StoreFuture<bool> {
        let mut inner = self.lock();
        let result = inner.check_open().map(|()| {
            if inner.arenas.contains_key(&arena.id) {
                return false;
            }
            inner.arenas.insert(arena.id.clone(), arena);
            true
        });
        ready(result)
    }

    fn arena(&self, id: &str) -> StoreFuture<Option<ArenaRecord>> {
        ready(Ok(self.lock().arenas.get(id).cloned()))
    }

    fn arenas(&self, range: ArenaRange, limit: u32) -> StoreFuture<Vec<ArenaRecord>> {
        let inner = self.lock();
        let mut found: Vec<ArenaRecord> = inner
            .arenas
            .values()
            .filter(|a| range.holds(a))
            .cloned()
            .collect();
        found.sort_by(|a, b| super::arena_range_order(range, a, b));
        found.truncate(limit as usize);
        ready(Ok(found))
    }

    fn set_arena_player(&self, arena: &str, player: ArenaPlayer) -> StoreFuture<()> {
        let mut inner = self.lock();
        if let Err(e) = inner.check_open() {
            return ready(Err(e));
        }
        if !inner.arenas.contains_key(arena) {
            return ready(Err(StoreError::Io(format!("no arena {arena}"))));
        }
        let players = inner.arena_players.entry(arena.to_owned()).or_default();
        match players.iter_mut().find(|p| p.user == player.user) {
            Some(known) => known.withdrawn = player.withdrawn,
            None => players.push(player),
        }
        ready(Ok(()))
    }

    fn arena_players(&self, arena: &str) -> StoreFuture<Vec<ArenaPlayer>> {
        let mut players = self
            .lock()
            .arena_players
            .get(arena)
            .cloned()
            .unwrap_or_default();
        players.sort_by_key(|p| (p.joined_ms, p.user.0));
        ready(Ok(players))
    }

    fn arena_games(&self, arena: &str) -> StoreFuture<Vec<GameListing>> {
        let inner = self.lock();
        let mut games: Vec<GameListing> = inner
            .games
            .values()
            .map(|(listing, _)| listing)
            .filter(|l| l.arena.as_deref() == Some(arena))
            .cloned()
            .collect();
        games.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then(a.id.cmp(&b.id)));
        ready(Ok(games))
    }

    fn user_arenas(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ArenaRecord>> {
        let inner = self.lock();
        let mut found: Vec<ArenaRecord> = inner
            .arena_players
            .iter()
            .filter(|(_, players)| players.iter().any(|p| p.user == user))
            .filter_map(|(id, _)| inner.arenas.get(id).cloned())
            .collect();
        found.sort_by(|a, b| b.starts_ms.cmp(&a.starts_ms).then(b.id.cmp(&a.id)));
        found.truncate(limit as usize);
        ready(Ok(found))
    }

    fn import_puzzles(&self, puzzles: Vec<PuzzleRecord>) -> StoreFuture<u64> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .and_then(|()| super::prepared_puzzles(puzzles))
            .map(|puzzles| inner.puzzles.import(puzzles));
        ready(result)
    }

    fn puzzle(&self, id: &str) -> StoreFuture<Option<PuzzleRecord>> {
        ready(Ok(self.lock().puzzles.get(id)))
    }

    fn puzzle_near(
        &self,
        user: Option<UserId>,
        theme: Option<String>,
        target: i32,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        ready(Ok(self.lock().puzzles.near(user, theme.as_deref(), target)))
    }

    fn puzzle_after(
        &self,
        theme: Option<String>,
        after: Option<String>,
    ) -> StoreFuture<Option<PuzzleRecord>> {
        let found = self
            .lock()
            .puzzles
            .after(theme.as_deref(), after.as_deref());
        ready(Ok(found))
    }

    fn puzzle_themes(&self) -> StoreFuture<Vec<(String, u64)>> {
        ready(Ok(self.lock().puzzles.themes()))
    }

    fn puzzle_count(&self) -> StoreFuture<u64> {
        ready(Ok(self.lock().puzzles.count()))
    }

    fn puzzle_player(&self, user: UserId) -> StoreFuture<Option<PuzzlePlayer>> {
        ready(Ok(self.lock().puzzles.player(user)))
    }

    fn record_puzzle_round(&self, round: PuzzleRound) -> StoreFuture<RoundOutcome> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .and_then(|()| inner.puzzles.record(round));
        ready(result)
    }

    fn puzzle_attempts(&self, user: UserId, limit: u32) -> StoreFuture<Vec<PuzzleAttempt>> {
        ready(Ok(self.lock().puzzles.attempts(user, limit)))
    }

    fn export_puzzles(&self, after: Option<String>, limit: u32) -> StoreFuture<Vec<PuzzleRecord>> {
        ready(Ok(self.lock().puzzles.export(after.as_deref(), limit)))
    }

    fn record_lesson_step(
        &self,
        user: UserId,
        lesson: &str,
        step: u32,
        at_ms: i64,
    ) -> StoreFuture<()> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .map(|()| inner.lessons.record(user, lesson, step, at_ms));
        ready(result)
    }

    fn lesson_steps(&self, user: UserId) -> StoreFuture<Vec<LessonStep>> {
        ready(Ok(self.lock().lessons.of(user)))
    }

    fn add_explorer_games(&self, games: Vec<super::ExplorerGame>) -> StoreFuture<u64> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .map(|()| games.iter().filter(|game| inner.explorer.add(game)).count() as u64);
        Box::pin(async move { result })
    }

    fn explorer_position(&self, key: i64) -> StoreFuture<super::ExplorerPosition> {
        let position = self.lock().explorer.position(key);
        Box::pin(async move { Ok(position) })
    }

    fn file_report(
        &self,
        report: NewReport,
        since_ms: i64,
        max_open: u32,
    ) -> StoreFuture<ReportFiled> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .map(|()| inner.moderation.file(report, since_ms, max_open));
        ready(result)
    }

    fn report(&self, id: i64) -> StoreFuture<Option<Report>> {
        let inner = self.lock();
        let report = inner
            .moderation
            .reports
            .get(&id)
            .map(|kept| inner.report_view(id, kept));
        ready(Ok(report))
    }

    fn open_reports(&self, limit: u32) -> StoreFuture<Vec<Report>> {
        let inner = self.lock();
        ready(Ok(
            inner.reports_where(|r| r.status == ReportStatus::Open, limit)
        ))
    }

    fn reports_by(&self, reporter: UserId, limit: u32) -> StoreFuture<Vec<Report>> {
        let inner = self.lock();
        ready(Ok(
            inner.reports_where(|r| r.new.reporter == reporter, limit)
        ))
    }

    fn moderate(&self, action: ModAction) -> StoreFuture<u64> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .map(|()| inner.moderation.moderate(action));
        ready(result)
    }

    fn is_moderator(&self, user: UserId) -> StoreFuture<bool> {
        ready(Ok(self.lock().moderation.moderators.contains(&user)))
    }

    fn chat_ban(&self, user: UserId, now_ms: i64) -> StoreFuture<Option<ChatBan>> {
        let inner = self.lock();
        let ban = inner
            .moderation
            .bans
            .get(&user)
            .filter(|ban| ban.holds_at(now_ms))
            .cloned();
        ready(Ok(ban))
    }

    fn user_mark(&self, user: UserId) -> StoreFuture<Option<MarkRecord>> {
        ready(Ok(self.lock().moderation.marks.get(&user).cloned()))
    }

    fn mod_log(&self, limit: u32) -> StoreFuture<Vec<ModLogEntry>> {
        let inner = self.lock();
        let rows = inner
            .moderation
            .log
            .iter()
            .rev()
            .take(limit as usize)
            .map(|entry| ModLogEntry {
                target_name: inner.name_of(entry.target),
                ..entry.clone()
            })
            .collect();
        ready(Ok(rows))
    }

    fn user_chat_lines(&self, user: UserId, limit: u32) -> StoreFuture<Vec<ChatLine>> {
        let inner = self.lock();
        let mut lines: Vec<ChatLine> = inner
            .chat
            .values()
            .flatten()
            .filter(|line| line.user_id == Some(user))
            .cloned()
            .collect();
        lines.sort_by_key(|line| line.id);
        let from = lines.len().saturating_sub(limit as usize);
        ready(Ok(lines.split_off(from)))
    }

    fn leaderboard(
        &self,
        speed: Speed,
        min_games: u32,
        limit: u32,
    ) -> StoreFuture<Vec<LeaderboardRow>> {
        let inner = self.lock();
        let mut rows: Vec<LeaderboardRow> = inner
            .ratings
            .iter()
            .filter(|((user, s), rating)| {
                *s == speed
                    && rating.games >= min_games
                    && !inner.moderation.marks.contains_key(user)
                    && inner.user_by_id(*user).is_some_and(|u| {
                        u.status == crate::server::domain::user::AccountStatus::Active
                    })
            })
            .map(|((user, _), rating)| LeaderboardRow {
                user: *user,
                name: inner.name_of(*user),
                rating: *rating,
            })
            .collect();
        rows.sort_by(|a, b| {
            b.rating
                .rating
                .total_cmp(&a.rating.rating)
                .then(a.user.0.cmp(&b.user.0))
        });
        rows.truncate(limit as usize);
        ready(Ok(rows))
    }

    fn block(&self, blocker: UserId, blocked: UserId, at_ms: i64) -> StoreFuture<()> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .map(|()| inner.blocks.block(blocker, blocked, at_ms));
        ready(result)
    }

    fn unblock(&self, blocker: UserId, blocked: UserId) -> StoreFuture<bool> {
        let mut inner = self.lock();
        let result = inner
            .check_open()
            .map(|()| inner.blocks.unblock(blocker, blocked));
        ready(result)
    }

    fn blocks_of(&self, user: UserId) -> StoreFuture<Vec<BlockEntry>> {
        let inner = self.lock();
        let mut entries: Vec<BlockEntry> = inner
            .blocks
            .of(user)
            .into_iter()
            .filter_map(|(blocked, at_ms)| {
                let record = inner.user_by_id(blocked)?;
                Some(BlockEntry {
                    user: blocked,
                    name: record.account.name.to_string(),
                    at_ms,
                })
            })
            .collect();
        entries.sort_by(super::block_entry_order);
        ready(Ok(entries))
    }

    fn block_relations(&self, user: UserId) -> StoreFuture<Vec<BlockRelation>> {
        let inner = self.lock();
        let relations = inner
            .blocks
            .relations(user)
            .into_iter()
            .filter_map(|other| {
                let record = inner.user_by_id(other)?;
                Some(BlockRelation {
                    user: other,
                    name: record.account.name.to_string(),
                })
            })
            .collect();
        ready(Ok(relations))
    }

    fn blocked_between(&self, a: UserId, b: UserId) -> StoreFuture<bool> {
        ready(Ok(self.lock().blocks.between(a, b)))
    }

    fn record_playban(&self, end: super::PlaybanEnd) -> StoreFuture<u64> {
        let mut inner = self.lock();
        let result = inner.check_open().map(|()| inner.playban.add(&end));
        ready(result)
    }

    fn playban_outcomes(
        &self,
        user: UserId,
        since_ms: i64,
        limit: u32,
    ) -> StoreFuture<Vec<super::PlaybanEntry>> {
        ready(Ok(self.lock().playban.of(user, since_ms, limit)))
    }
}
