//! A game's life at its edges, against the real server over loopback: rematch seats that survive
//! a restart and a rematch stored as one atomic commit, games that expire (open ones nobody
//! joins, idle untimed ones), unlisted (private) games, a database written by the previous
//! schema version, and the player names of the PGN.

use crate::support;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use marseillais::server::players::account::{Account, UserId, Username};
use marseillais::server::players::rating::{Rating, Speed};
use marseillais::server::store::{
    self as store, ArenaPlayer, ArenaRange, ArenaRecord, Commit, GameListing, GameStatus,
    LoadedGame, MemoryStore, RatedGame, SessionHash, Store, StoreError, StoreFuture, UserRecord,
};
use serde_json::{Value, json};
use support::rig::Rig;
use support::s;
use support::ws::Client;

/// A finished game (Black resigned after 1. e4) with both players connected.
async fn finished_game(server: &Rig) -> (String, String, String, Client, Client) {
    let (id, white_token, black_token) = server.game_between_two(json!({})).await;
    let mut white = server.seat(&id, &white_token).await;
    let mut black = server.seat(&id, &black_token).await;
    white.play("e2e4", "1").await;
    black.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;
    black.recv_type("end").await;
    (id, white_token, black_token, white, black)
}

async fn json_of(server: &Rig, path: &str) -> Value {
    let (status, text) = server.http("GET", path, None).await;
    assert_eq!(status, 200, "{path}: {text}");
    serde_json::from_str(&text).expect("json")
}

/// The ids of the games `GET /api/games?status=...` lists.
async fn listed_ids(server: &Rig, status: &str) -> Vec<String> {
    let list = json_of(server, &format!("/api/games?status={status}")).await;
    list["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| s(&g["id"]))
        .collect()
}

#[tokio::test]
async fn a_player_away_when_the_rematch_was_agreed_gets_its_seat_after_a_restart() {
    let mut server = Rig::start().await;
    let (id, white_token, _, mut white, mut black) = finished_game(&server).await;
    white.send(json!({"t": "rematch_offer"})).await;
    black.recv_type("rematch_offer").await;
    // White leaves before Black accepts: it is not there to be told its new seat.
    white.ws.close(None).await.expect("close");
    drop(white);
    black.send(json!({"t": "rematch_accept"})).await;
    let for_black = black.recv_type("rematch_seat").await;
    let new_id = s(&for_black.d["id"]);
    assert_eq!(for_black.d["color"], "white");
    drop(black);
    server.restart().await;

    // White comes back to the old game with its old token and is handed its new seat.
    let mut white = server.seat(&id, &white_token).await;
    let for_white = white.recv_type("rematch_seat").await;
    assert_eq!(for_white.d["id"], json!(new_id));
    assert_eq!(for_white.d["color"], "black");
    assert_eq!(for_white.d["url"], json!(format!("/game/{new_id}")));
    let mut new_black = server.seat(&new_id, &s(&for_white.d["token"])).await;
    assert_eq!(new_black.recv_type("state").await.d["you"], "black");
    // Black's rematch token from before the restart still seats it as White.
    let mut new_white = server.seat(&new_id, &s(&for_black.d["token"])).await;
    assert_eq!(new_white.recv_type("state").await.d["you"], "white");
    new_white.play("d2d4", "1").await;
    assert_eq!(new_black.recv_type("move").await.d["uci"], "d2d4");
    // Asking again gives the same seat, not a new one.
    let mut again = server.seat(&id, &white_token).await;
    assert_eq!(
        again.recv_type("rematch_seat").await.d["token"],
        for_white.d["token"]
    );
    server.stop().await;
}

#[tokio::test]
async fn rematch_seats_are_told_only_to_their_own_player() {
    let server = Rig::start().await;
    let (id, _, _, mut white, mut black) = finished_game(&server).await;
    let mut spectator = server.spectate(&id).await;
    white.send(json!({"t": "rematch_offer"})).await;
    black.recv_type("rematch_offer").await;
    black.send(json!({"t": "rematch_accept"})).await;
    let for_white = white.recv_type("rematch_seat").await;
    let for_black = black.recv_type("rematch_seat").await;
    spectator.recv_type("rematch").await;
    assert_ne!(for_white.d["token"], for_black.d["token"]);
    assert!(spectator.seen.iter().all(|m| m.t != "rematch_seat"));
    // A late spectator of the old game hears of the rematch game, never of a seat.
    let mut late = server.spectate(&id).await;
    let state = late.recv_type("state").await;
    assert_eq!(state.d["rematch"], for_white.d["id"]);
    assert!(
        late.try_recv(std::time::Duration::from_millis(300))
            .await
            .is_none_or(|m| m.t != "rematch_seat")
    );
    server.stop().await;
}

/// A [`Store`] that refuses every commit touching one chosen game, and passes everything else to
/// a [`MemoryStore`]: it fails exactly one half of a rematch (the old game's `rematch` event).
#[derive(Clone, Default)]
struct RefuseOneGame {
    inner: MemoryStore,
    refused: Arc<Mutex<Option<String>>>,
}

impl RefuseOneGame {
    fn refuse(&self, game: Option<&str>) {
        *self.refused.lock().expect("lock") = game.map(str::to_owned);
    }

    fn refuses(&self, commit: &Commit) -> bool {
        self.refused.lock().expect("lock").as_deref() == Some(commit.game_id.as_str())
    }
}

fn refused<T: Send + 'static>() -> StoreFuture<T> {
    Box::pin(async { Err(StoreError::Io("refused".into())) })
}

impl Store for RefuseOneGame {
    fn commit(&self, commit: Commit) -> StoreFuture<()> {
        if self.refuses(&commit) {
            return refused();
        }
        self.inner.commit(commit)
    }

    /// All or nothing, like every store: refused if any of the commits is.
    fn commit_all(&self, commits: Vec<Commit>) -> StoreFuture<()> {
        if commits.iter().any(|commit| self.refuses(commit)) {
            return refused();
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

    // Accounts: passed through.

    fn create_user(&self, name: Username, hash: String, at_ms: i64) -> StoreFuture<UserId> {
        self.inner.create_user(name, hash, at_ms)
    }

    fn find_user(&self, name: &Username) -> StoreFuture<Option<UserRecord>> {
        self.inner.find_user(name)
    }

    fn user_by_id(&self, id: UserId) -> StoreFuture<Option<UserRecord>> {
        self.inner.user_by_id(id)
    }

    fn create_session(&self, hash: SessionHash, user: UserId, at_ms: i64) -> StoreFuture<()> {
        self.inner.create_session(hash, user, at_ms)
    }

    fn session_account(&self, hash: SessionHash, now_ms: i64) -> StoreFuture<Option<Account>> {
        self.inner.session_account(hash, now_ms)
    }

    fn delete_session(&self, hash: SessionHash) -> StoreFuture<()> {
        self.inner.delete_session(hash)
    }
    fn set_account_status(
        &self,
        user: UserId,
        status: marseillais::server::domain::user::AccountStatus,
        at_ms: i64,
    ) -> StoreFuture<()> {
        self.inner.set_account_status(user, status, at_ms)
    }
    fn user_sessions(
        &self,
        user: UserId,
        now_ms: i64,
    ) -> StoreFuture<Vec<marseillais::server::store::SessionRecord>> {
        self.inner.user_sessions(user, now_ms)
    }
    fn delete_other_sessions(&self, user: UserId, keep: SessionHash) -> StoreFuture<()> {
        self.inner.delete_other_sessions(user, keep)
    }
    fn set_password_hash(
        &self,
        user: UserId,
        password_hash: String,
        keep: SessionHash,
    ) -> StoreFuture<()> {
        self.inner.set_password_hash(user, password_hash, keep)
    }
    fn delete_account(&self, user: UserId, at_ms: i64) -> StoreFuture<()> {
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

    fn append_chat(&self, line: marseillais::server::chat::NewChatLine) -> StoreFuture<i64> {
        self.inner.append_chat(line)
    }
    fn recent_chat(
        &self,
        game_id: Option<&str>,
        room: marseillais::server::chat::ChatRoom,
        limit: u32,
    ) -> StoreFuture<Vec<marseillais::server::chat::ChatLine>> {
        self.inner.recent_chat(game_id, room, limit)
    }
    fn turn_deadlines(&self) -> StoreFuture<Vec<(String, i64)>> {
        self.inner.turn_deadlines()
    }

    fn account_settings(
        &self,
        user: marseillais::server::players::account::UserId,
    ) -> StoreFuture<Option<String>> {
        self.inner.account_settings(user)
    }

    fn set_account_settings(
        &self,
        user: marseillais::server::players::account::UserId,
        json: String,
        at_ms: i64,
    ) -> StoreFuture<()> {
        self.inner.set_account_settings(user, json, at_ms)
    }

    fn create_arena(&self, arena: ArenaRecord) -> StoreFuture<bool> {
        self.inner.create_arena(arena)
    }
    fn arena(&self, id: &str) -> StoreFuture<Option<ArenaRecord>> {
        self.inner.arena(id)
    }
    fn arenas(&self, range: ArenaRange, limit: u32) -> StoreFuture<Vec<ArenaRecord>> {
        self.inner.arenas(range, limit)
    }
    fn set_arena_player(&self, arena: &str, player: ArenaPlayer) -> StoreFuture<()> {
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

    // Puzzles (issue 30): passed through.
    fn import_puzzles(&self, puzzles: Vec<store::PuzzleRecord>) -> StoreFuture<u64> {
        self.inner.import_puzzles(puzzles)
    }
    fn puzzle(&self, id: &str) -> StoreFuture<Option<store::PuzzleRecord>> {
        self.inner.puzzle(id)
    }
    fn puzzle_near(
        &self,
        user: Option<UserId>,
        theme: Option<String>,
        target: i32,
    ) -> StoreFuture<Option<store::PuzzleRecord>> {
        self.inner.puzzle_near(user, theme, target)
    }
    fn puzzle_after(
        &self,
        theme: Option<String>,
        after: Option<String>,
    ) -> StoreFuture<Option<store::PuzzleRecord>> {
        self.inner.puzzle_after(theme, after)
    }
    fn puzzle_themes(&self) -> StoreFuture<Vec<(String, u64)>> {
        self.inner.puzzle_themes()
    }
    fn puzzle_count(&self) -> StoreFuture<u64> {
        self.inner.puzzle_count()
    }
    fn puzzle_player(&self, user: UserId) -> StoreFuture<Option<store::PuzzlePlayer>> {
        self.inner.puzzle_player(user)
    }
    fn record_puzzle_round(&self, round: store::PuzzleRound) -> StoreFuture<store::RoundOutcome> {
        self.inner.record_puzzle_round(round)
    }
    fn puzzle_attempts(&self, user: UserId, limit: u32) -> StoreFuture<Vec<store::PuzzleAttempt>> {
        self.inner.puzzle_attempts(user, limit)
    }
    fn export_puzzles(
        &self,
        after: Option<String>,
        limit: u32,
    ) -> StoreFuture<Vec<store::PuzzleRecord>> {
        self.inner.export_puzzles(after, limit)
    }
    fn record_lesson_step(
        &self,
        user: UserId,
        lesson: &str,
        step: u32,
        at_ms: i64,
    ) -> StoreFuture<()> {
        self.inner.record_lesson_step(user, lesson, step, at_ms)
    }
    fn lesson_steps(&self, user: UserId) -> StoreFuture<Vec<store::LessonStep>> {
        self.inner.lesson_steps(user)
    }
    fn block(&self, blocker: UserId, blocked: UserId, at_ms: i64) -> StoreFuture<()> {
        self.inner.block(blocker, blocked, at_ms)
    }
    fn unblock(&self, blocker: UserId, blocked: UserId) -> StoreFuture<bool> {
        self.inner.unblock(blocker, blocked)
    }
    fn blocks_of(&self, user: UserId) -> StoreFuture<Vec<store::BlockEntry>> {
        self.inner.blocks_of(user)
    }
    fn block_relations(&self, user: UserId) -> StoreFuture<Vec<store::BlockRelation>> {
        self.inner.block_relations(user)
    }
    fn blocked_between(&self, a: UserId, b: UserId) -> StoreFuture<bool> {
        self.inner.blocked_between(a, b)
    }

    fn file_report(
        &self,
        report: store::NewReport,
        since_ms: i64,
        max_open: u32,
    ) -> StoreFuture<store::ReportFiled> {
        self.inner.file_report(report, since_ms, max_open)
    }
    fn report(&self, id: i64) -> StoreFuture<Option<store::Report>> {
        self.inner.report(id)
    }
    fn open_reports(&self, limit: u32) -> StoreFuture<Vec<store::Report>> {
        self.inner.open_reports(limit)
    }
    fn reports_by(&self, reporter: UserId, limit: u32) -> StoreFuture<Vec<store::Report>> {
        self.inner.reports_by(reporter, limit)
    }
    fn moderate(&self, action: store::ModAction) -> StoreFuture<u64> {
        self.inner.moderate(action)
    }
    fn is_moderator(&self, user: UserId) -> StoreFuture<bool> {
        self.inner.is_moderator(user)
    }
    fn chat_ban(&self, user: UserId, now_ms: i64) -> StoreFuture<Option<store::ChatBan>> {
        self.inner.chat_ban(user, now_ms)
    }
    fn user_mark(&self, user: UserId) -> StoreFuture<Option<store::MarkRecord>> {
        self.inner.user_mark(user)
    }
    fn mod_log(&self, limit: u32) -> StoreFuture<Vec<store::ModLogEntry>> {
        self.inner.mod_log(limit)
    }
    fn user_chat_lines(
        &self,
        user: UserId,
        limit: u32,
    ) -> StoreFuture<Vec<marseillais::server::chat::ChatLine>> {
        self.inner.user_chat_lines(user, limit)
    }
    fn leaderboard(
        &self,
        speed: Speed,
        min_games: u32,
        limit: u32,
    ) -> StoreFuture<Vec<store::LeaderboardRow>> {
        self.inner.leaderboard(speed, min_games, limit)
    }

    fn add_explorer_games(&self, games: Vec<store::ExplorerGame>) -> StoreFuture<u64> {
        self.inner.add_explorer_games(games)
    }

    fn explorer_position(&self, key: i64) -> StoreFuture<store::ExplorerPosition> {
        self.inner.explorer_position(key)
    }

    fn record_playban(&self, end: store::PlaybanEnd) -> StoreFuture<u64> {
        self.inner.record_playban(end)
    }

    fn playban_outcomes(
        &self,
        user: UserId,
        since_ms: i64,
        limit: u32,
    ) -> StoreFuture<Vec<store::PlaybanEntry>> {
        self.inner.playban_outcomes(user, since_ms, limit)
    }
}

#[tokio::test]
async fn a_rematch_the_store_refuses_changes_neither_game() {
    let store = RefuseOneGame::default();
    let server = Rig::start_on_store(Arc::new(store.clone())).await;
    let (id, _, _, mut white, mut black) = finished_game(&server).await;
    white.send(json!({"t": "rematch_offer"})).await;
    black.recv_type("rematch_offer").await;
    let before = json_of(&server, &format!("/api/games/{id}")).await;
    assert!(listed_ids(&server, "playing").await.is_empty());

    store.refuse(Some(&id));
    black.send(json!({"t": "rematch_accept"})).await;
    let error = black.recv_type("error").await;
    assert_eq!(error.d["code"], "store_failure", "{error}");
    store.refuse(None);
    // No rematch game was stored, and the old game is as it was (the offer still stands).
    assert!(listed_ids(&server, "playing").await.is_empty());
    assert!(listed_ids(&server, "open").await.is_empty());
    let after = json_of(&server, &format!("/api/games/{id}")).await;
    assert_eq!(after["rematch"], Value::Null);
    assert_eq!(after["rematch_offer"], "white");
    assert_eq!(after["v"], before["v"]);
    // Accepting again works.
    black.send(json!({"t": "rematch_accept"})).await;
    let seat = black.recv_type("rematch_seat").await;
    assert_eq!(listed_ids(&server, "playing").await, [s(&seat.d["id"])]);
    server.stop().await;
}

#[tokio::test]
async fn an_unlisted_game_is_in_no_listing_but_reachable_by_its_link() {
    let mut server = Rig::start().await;
    let (private, white_token, _) = server
        .create(json!({"color": "white", "listed": false}))
        .await;
    let (public, _, _) = server.create(json!({"listed": true})).await;
    assert_eq!(
        listed_ids(&server, "open").await,
        std::slice::from_ref(&public)
    );
    let state = json_of(&server, &format!("/api/games/{private}")).await;
    assert_eq!(state["status"], "open");
    // Whoever has the link joins; the game is in no listing while played nor once finished.
    let (black_token, _) = server.join(&private).await;
    assert!(listed_ids(&server, "playing").await.is_empty());
    let mut white = server.seat(&private, &white_token).await;
    let mut black = server.seat(&private, &black_token).await;
    white.play("e2e4", "1").await;
    black.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;
    assert!(listed_ids(&server, "finished").await.is_empty());
    // Its rematch is private too.
    white.send(json!({"t": "rematch_offer"})).await;
    black.recv_type("rematch_offer").await;
    black.send(json!({"t": "rematch_accept"})).await;
    let rematch = s(&black.recv_type("rematch_seat").await.d["id"]);
    assert_eq!(
        json_of(&server, &format!("/api/games/{rematch}")).await["status"],
        "playing"
    );
    assert!(listed_ids(&server, "playing").await.is_empty());
    server.restart().await;
    assert_eq!(listed_ids(&server, "open").await, [public]);
    assert!(listed_ids(&server, "playing").await.is_empty());
    assert!(listed_ids(&server, "finished").await.is_empty());
    assert!(server.pgn(&private).await.contains("1-0"));
    server.stop().await;
}

#[tokio::test]
async fn a_listed_flag_that_is_not_a_boolean_is_a_bad_request() {
    let server = Rig::start().await;
    let (status, text) = server
        .http("POST", "/api/games", Some(r#"{"listed": "no"}"#))
        .await;
    assert_eq!(status, 400, "{text}");
    server.stop().await;
}

#[tokio::test]
async fn a_played_game_names_both_players_anonymous_in_its_pgn() {
    let server = Rig::start().await;
    let (id, _, _) = server.create(json!({"color": "white"})).await;
    let open = server.pgn(&id).await;
    assert!(open.contains("[White \"Anonymous\"]"), "{open}");
    assert!(
        open.contains("[Black \"?\"]"),
        "nobody sits as Black yet: {open}"
    );
    server.join(&id).await;
    let played = server.pgn(&id).await;
    assert!(played.contains("[White \"Anonymous\"]"), "{played}");
    assert!(played.contains("[Black \"Anonymous\"]"), "{played}");
    assert!(!played.contains("\"?\""), "{played}");
    server.stop().await;
}

fn assert_aborted(state: &Value) {
    assert_eq!(state["status"], "finished", "{state}");
    assert_eq!(state["outcome"]["reason"], "aborted", "{state}");
    assert_eq!(state["outcome"]["result"], "*", "{state}");
    assert_eq!(state["outcome"]["winner"], Value::Null, "{state}");
}

#[tokio::test]
async fn an_open_game_nobody_joins_expires_to_aborted_and_leaves_the_lobby() {
    let mut server = Rig::start_with(|c| c.open_game_ttl = Duration::from_millis(300)).await;
    let (id, token, _) = server.create(json!({"color": "white"})).await;
    // The creator waits in the room: the room's own timer ends the game, and tells it.
    let mut creator = server.seat(&id, &token).await;
    let end = creator.recv_type("end").await;
    assert_eq!(end.d["reason"], "aborted");
    assert_aborted(&json_of(&server, &format!("/api/games/{id}")).await);
    assert!(listed_ids(&server, "open").await.is_empty());
    assert_eq!(
        listed_ids(&server, "finished").await,
        std::slice::from_ref(&id)
    );
    let (status, text) = server
        .http("POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 409, "an expired game takes no player: {text}");
    drop(creator);
    server.restart().await;
    assert_aborted(&json_of(&server, &format!("/api/games/{id}")).await);
    assert!(listed_ids(&server, "open").await.is_empty());
    assert!(server.pgn(&id).await.contains("[Termination \"aborted\"]"));
    server.stop().await;
}

#[tokio::test]
async fn an_open_game_whose_room_retired_is_expired_from_the_store() {
    let server = Rig::start_with(|c| {
        c.open_game_ttl = Duration::from_millis(400);
        c.retire_after = Duration::ZERO;
    })
    .await;
    let (id, _, _) = server.create(json!({})).await;
    let mut gone = false;
    for _ in 0..200 {
        if listed_ids(&server, "open").await.is_empty() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone, "the expired game left the lobby");
    assert_eq!(
        listed_ids(&server, "finished").await,
        std::slice::from_ref(&id)
    );
    assert_aborted(&json_of(&server, &format!("/api/games/{id}")).await);
    server.stop().await;
}

#[tokio::test]
async fn an_untimed_game_nobody_plays_in_expires_to_aborted() {
    let server = Rig::start_with(|c| c.idle_game_ttl = Duration::from_millis(500)).await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    white.play("e2e4", "1").await;
    let end = black.recv_type("end").await;
    assert_eq!(end.d["reason"], "aborted");
    assert_eq!(white.recv_type("end").await.d["result"], "*");
    assert_aborted(&json_of(&server, &format!("/api/games/{id}")).await);
    // A clocked game does not expire that way: its clocks decide.
    let (timed, mut white, _black) = server
        .players(json!({"clock": {"base_secs": 600, "increment_secs": 0}}))
        .await;
    white.play("e2e4", "1").await;
    assert!(
        white
            .try_recv(Duration::from_millis(1500))
            .await
            .is_none_or(|m| m.t != "end"),
        "a clocked game is not expired"
    );
    assert_eq!(
        json_of(&server, &format!("/api/games/{timed}")).await["status"],
        "playing"
    );
    server.stop().await;
}

#[tokio::test]
async fn at_startup_expired_games_end_in_one_pass_without_being_loaded() {
    let mut server = Rig::start().await;
    let (open, _, _) = server.create(json!({})).await;
    let (untimed, mut white, _black) = server.players(json!({})).await;
    white.play("e2e4", "1").await;
    let (timed, mut white, _black) = server
        .players(json!({"clock": {"base_secs": 600, "increment_secs": 0}}))
        .await;
    white.play("e2e4", "1").await;
    drop(white);
    server.config.open_game_ttl = Duration::ZERO;
    server.config.idle_game_ttl = Duration::ZERO;
    server.restart().await;
    // Only the clocked game is in memory; the two others were ended in the store.
    assert_eq!(server.live_games(), 1);
    assert!(listed_ids(&server, "open").await.is_empty());
    assert_eq!(
        listed_ids(&server, "playing").await,
        std::slice::from_ref(&timed)
    );
    let finished = listed_ids(&server, "finished").await;
    assert_eq!(finished.len(), 2, "{finished:?}");
    assert!(finished.contains(&open) && finished.contains(&untimed));
    for id in [&open, &untimed] {
        assert_aborted(&json_of(&server, &format!("/api/games/{id}")).await);
    }
    assert!(server.pgn(&untimed).await.contains("1. e4 *"));
    server.stop().await;
}

/// Copies the schema version 1 fixture (tests/data/schema_v1) into `dir`.
fn copy_v1_fixture(dir: &Path) -> Value {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema_v1");
    std::fs::create_dir_all(dir).expect("data dir");
    std::fs::copy(
        fixture.join("marseillais.sqlite3"),
        dir.join("marseillais.sqlite3"),
    )
    .expect("copy the fixture database");
    let expected = std::fs::read_to_string(fixture.join("games.json")).expect("games.json");
    serde_json::from_str(&expected).expect("json")
}

/// The PGN the previous version served, with the one intended change since: seated players
/// are `Anonymous`, not `?`.
fn with_anonymous_players(pgn: &str, seats: &Value) -> String {
    let mut pgn = pgn.to_owned();
    for (tag, seat) in [("White", "white"), ("Black", "black")] {
        if seats[seat]["taken"] == true {
            pgn = pgn.replace(&format!("[{tag} \"?\"]"), &format!("[{tag} \"Anonymous\"]"));
        }
    }
    pgn
}

#[tokio::test]
async fn a_database_of_schema_version_1_serves_every_game_unchanged() {
    let data = tempfile::tempdir().expect("temp dir");
    let expected = copy_v1_fixture(data.path());
    let dir = data.path().to_owned();
    // Long time-to-lives: the fixture's games are old, and must not expire in this test.
    let year = Duration::from_secs(3600 * 24 * 365 * 100);
    let mut server = Rig::start_with(move |c| {
        c.data_dir = dir;
        c.open_game_ttl = year;
        c.idle_game_ttl = year;
    })
    .await;
    for _ in 0..2 {
        for status in ["open", "playing", "finished"] {
            let list = json_of(&server, &format!("/api/games?status={status}")).await;
            assert_eq!(list, expected["lists"][status], "{status} listing");
        }
        let games = expected["games"].as_array().expect("games");
        assert_eq!(games.len(), 7);
        for game in games {
            let id = s(&game["id"]);
            let state = json_of(&server, &format!("/api/games/{id}")).await;
            assert_eq!(state["status"], game["status"], "{id}");
            let want = with_anonymous_players(&s(&game["pgn"]), &state["seats"]);
            assert_eq!(server.pgn(&id).await, want, "{id}");
        }
        // Once more after a restart on the migrated database.
        server.restart().await;
    }
    // The migrated database takes new games, listed or not.
    let (id, _, _) = server.create(json!({"listed": false})).await;
    assert_eq!(
        json_of(&server, &format!("/api/games/{id}")).await["status"],
        "open"
    );
    server.stop().await;
}
