//! Players' public pages on the real server (issue 11): `GET /api/users/{name}`, its `games`,
//! `games.pgn` and `rating-history`, and the `/@/{name}` page; every error of each.
//!
//! The users and their games are seeded through the store the server runs on (a SQLite store
//! the test opened): users by `create_user`, games by copying the events of a game the server
//! itself played to the end under new ids, with the seats' accounts on the listing row and,
//! for a rated copy, the `RatedEnd` the store rates it by (in the commit's transaction, as the
//! room does at a rated end).

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use futures_util::future::BoxFuture;
use marseillais::server::players::account::{Account, UserId, Username};
use marseillais::server::players::rating::{Rating, Speed};
use marseillais::server::store::{
    self as store, ArenaPlayer, ArenaRange, ArenaRecord, Commit, GameListing, GameStatus,
    LoadedGame, RatedEnd, RatedGame, SessionHash, SqliteStore, Store, StoreError, StoreFuture,
    UserRecord,
};
use serde_json::{Value, json};

use support::WAIT;
use support::game::play_until_white_mates_in_one;
use support::http::{connect_and_send, exchange, head, read_until_closed};
use support::rig::Rig;
use support::session::Session;

/// A stand-in for an Argon2 PHC string: what must never appear in any answer.
const HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c2VjcmV0c2FsdA$bm90LWEtcmVhbC1oYXNo";

struct World {
    rig: Rig,
    store: Arc<dyn Store>,
    /// Kept alive for the store's files.
    _dir: tempfile::TempDir,
    /// The events and listing row of a game the server played: White mated at move 2.
    mated: (GameListing, Vec<String>),
    /// The same for a game still being played (both first turns done).
    playing: (GameListing, Vec<String>),
    /// The seat tokens of those games (must never be in an answer).
    tokens: Vec<String>,
}

async fn world() -> World {
    world_on(|store| store).await
}

/// The world on the SQLite store as `wrap` wraps it.
async fn world_on(wrap: impl FnOnce(Arc<dyn Store>) -> Arc<dyn Store>) -> World {
    let dir = tempfile::tempdir().expect("temp dir");
    let store: Arc<dyn Store> = wrap(Arc::new(SqliteStore::open(dir.path()).expect("store")));
    let rig = Rig::builder()
        .store(Arc::clone(&store))
        .config(|c| c.create_rate_per_sec = 0.0)
        .start()
        .await;
    let clock = json!({"clock": {"base_secs": 180, "increment_secs": 2}}); // blitz
    let (mated_id, wt, bt) = rig.game_between_two(clock.clone()).await;
    let mut white = rig.seat(&mated_id, &wt).await;
    let mut black = rig.seat(&mated_id, &bt).await;
    play_until_white_mates_in_one(&mut white, &mut black).await;
    white.play("d1h5", "w2").await;
    let (playing_id, pwt, pbt) = rig.game_between_two(clock).await;
    let mut pwhite = rig.seat(&playing_id, &pwt).await;
    let mut pblack = rig.seat(&playing_id, &pbt).await;
    support::game::play_both_first_turns(&mut pwhite, &mut pblack).await;
    let finished = support::eventually(WAIT, || {
        let store = Arc::clone(&store);
        let id = mated_id.clone();
        async move {
            matches!(store.load_game(&id).await, Ok(Some((l, _))) if l.status == GameStatus::Finished)
        }
    })
    .await;
    assert!(finished, "the mated game is stored as finished");
    let mated = store.load_game(&mated_id).await.unwrap().unwrap();
    let playing = store.load_game(&playing_id).await.unwrap().unwrap();
    assert_eq!(playing.0.status, GameStatus::Playing);
    World {
        rig,
        store,
        _dir: dir,
        mated,
        playing,
        tokens: vec![wt, bt, pwt, pbt],
    }
}

impl World {
    async fn user(&self, name: &str, at_ms: i64) -> UserId {
        self.store
            .create_user(Username::parse(name).unwrap(), HASH.into(), at_ms)
            .await
            .expect("create user")
    }

    /// Stores a copy of `game` under `id`, seated by these accounts, last updated at
    /// `updated_ms`, rated with `score_white` when given.
    async fn copy(
        &self,
        game: &(GameListing, Vec<String>),
        id: &str,
        white: Option<UserId>,
        black: Option<UserId>,
        updated_ms: i64,
        rated: Option<f64>,
    ) {
        let (listing, events) = game;
        let listing = GameListing {
            id: id.into(),
            updated_ms,
            white_user: white,
            black_user: black,
            arena: None,
            ..listing.clone()
        };
        let rating = rated.map(|score_white| RatedEnd {
            white: white.expect("a rated game has a white account"),
            black: black.expect("a rated game has a black account"),
            speed: Speed::Blitz,
            score_white,
        });
        self.store
            .commit(Commit {
                game_id: id.into(),
                first_seq: 0,
                events: events.clone(),
                listing,
                rating,
                explorer: None,
                playban: None,
                deadline: marseillais::server::store::DeadlineChange::Unchanged,
                fence: None,
            })
            .await
            .expect("seed a game");
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let (status, text) = self.rig.http("GET", path, None).await;
        let value = serde_json::from_str(&text).unwrap_or_else(|_| json!({ "text": text }));
        self.assert_private(&text);
        (status, value)
    }

    /// Nothing private in an answer: no password hash, no seat token.
    fn assert_private(&self, text: &str) {
        assert!(!text.contains(HASH), "a password hash in {text}");
        assert!(!text.contains("argon2"), "a password hash in {text}");
        for token in &self.tokens {
            assert!(!text.contains(token.as_str()), "a seat token in {text}");
        }
    }
}

fn keys(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

#[tokio::test]
async fn a_profile_shows_the_name_as_spelled_the_creation_time_and_the_ratings_per_speed() {
    let w = world().await;
    let alice = w.user("Alice", 1_700_000_000_000).await;
    let bob = w.user("bob", 1_700_000_000_001).await;
    w.copy(
        &w.mated,
        "rated1",
        Some(alice),
        Some(bob),
        1_800_000_000_000,
        Some(1.0),
    )
    .await;

    let (status, profile) = w.get("/api/users/aLiCe").await;
    assert_eq!(status, 200, "{profile}");
    assert_eq!(keys(&profile), ["created_ms", "ratings", "username"]);
    assert_eq!(profile["username"], "Alice");
    assert_eq!(profile["created_ms"], 1_700_000_000_000i64);
    // Two newcomers, White won: 1500/500 -> 1742/397 (rating::glicko2's hand computation).
    let initial = json!({"rating": 1500, "deviation": 500, "provisional": true, "games": 0});
    assert_eq!(
        profile["ratings"],
        json!({"bullet": initial, "rapid": initial, "classical": initial,
               "blitz": {"rating": 1742, "deviation": 397, "provisional": true, "games": 1}})
    );
    let (_, bob_profile) = w.get("/api/users/bob").await;
    assert_eq!(bob_profile["ratings"]["blitz"]["rating"], 1258);

    // A user without a rated game has the initial rating at every live speed, as
    // `GET /api/account` shows it.
    w.user("carol", 1).await;
    let (status, carol) = w.get("/api/users/carol").await;
    assert_eq!(status, 200);
    assert_eq!(
        carol["ratings"],
        json!({"bullet": initial, "blitz": initial, "rapid": initial, "classical": initial})
    );
    w.rig.stop().await;
}

async fn assert_error(w: &World, path: &str, status: u16, code: &str) {
    let (got, body) = w.get(path).await;
    assert_eq!(
        (got, body["code"].as_str()),
        (status, Some(code)),
        "{path}: {body}"
    );
}

const ROUTES: [&str; 4] = ["", "/games", "/games.pgn", "/rating-history"];

#[tokio::test]
async fn an_unknown_user_is_404_unknown_user_on_every_route() {
    let w = world().await;
    w.user("alice", 1).await;
    for route in ROUTES {
        assert_error(
            &w,
            &format!("/api/users/nobody{route}"),
            404,
            "unknown_user",
        )
        .await;
    }
    w.rig.stop().await;
}

#[tokio::test]
async fn a_name_that_cannot_be_a_username_is_400_bad_username_on_every_route() {
    let w = world().await;
    let long = "a".repeat(2000);
    // Too short, too long, a dot, a Cyrillic 'а' in "аlice", a zero-width joiner, a space.
    let names = [
        "a",
        long.as_str(),
        "a.b",
        "%D0%B0lice",
        "al%E2%80%8Dice",
        "a%20b",
    ];
    for name in names {
        for route in ROUTES {
            assert_error(
                &w,
                &format!("/api/users/{name}{route}"),
                400,
                "bad_username",
            )
            .await;
        }
    }
    w.rig.stop().await;
}

#[tokio::test]
async fn a_users_games_are_listed_newest_first_from_the_users_side() {
    let w = world().await;
    let alice = w.user("alice", 1).await;
    let bob = w.user("Bob", 2).await;
    let t = 1_800_000_000_000;
    // Oldest first: a casual win as White against an anonymous seat, a rated loss as Black
    // (Bob mates her), a game in progress against Bob.
    w.copy(&w.mated, "casual", Some(alice), None, t, None).await;
    w.copy(
        &w.mated,
        "ratedloss",
        Some(bob),
        Some(alice),
        t + 1,
        Some(1.0),
    )
    .await;
    w.copy(&w.playing, "ongoing", Some(alice), Some(bob), t + 2, None)
        .await;

    let (status, page) = w.get("/api/users/alice/games").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["username"], "alice");
    assert_eq!(
        (page["limit"].as_u64(), page["offset"].as_u64()),
        (Some(20), Some(0))
    );
    let games = page["games"].as_array().expect("games");
    let ids: Vec<&str> = games.iter().filter_map(|g| g["id"].as_str()).collect();
    assert_eq!(ids, ["ongoing", "ratedloss", "casual"]);

    let ongoing = &games[0];
    assert_eq!(ongoing["status"], "playing");
    assert_eq!(ongoing["color"], "white");
    assert_eq!(ongoing["opponent"], json!({"name": "Bob"}));
    assert_eq!(ongoing["result"], Value::Null);
    assert_eq!(ongoing["rated"], false);
    assert_eq!(ongoing["speed"], "blitz");
    assert!(ongoing.get("rating_diff").is_none(), "{ongoing}");

    let loss = &games[1];
    assert_eq!(loss["status"], "finished");
    assert_eq!(loss["color"], "black");
    assert_eq!(loss["result"], "1-0");
    assert_eq!(loss["reason"], "checkmate");
    assert_eq!(loss["rated"], true);
    assert_eq!(loss["speed"], "blitz");
    // Both newcomers: Bob's rating before the game is shown beside his name, Alice's change
    // is 1500 -> 1258.
    assert_eq!(
        loss["opponent"],
        json!({"name": "Bob", "rating": {"rating": 1500, "deviation": 500, "provisional": true}})
    );
    assert_eq!(loss["rating_diff"], -242);
    assert_eq!(loss["rating"]["rating"], 1258);
    assert_eq!(
        loss["clock"],
        json!({"base_secs": 180, "increment_secs": 2})
    );
    assert_eq!(loss["sub_moves"], 4);

    let casual = &games[2];
    assert_eq!(casual["color"], "white");
    assert_eq!(casual["rated"], false);
    // An anonymous opponent has no field at all (the client shows "Anonymous").
    assert!(casual.get("opponent").is_none(), "{casual}");

    // Bob sees the same rated game from his side.
    let (_, bobs) = w.get("/api/users/bob/games").await;
    let bob_ids: Vec<&str> = bobs["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["id"].as_str())
        .collect();
    assert_eq!(bob_ids, ["ongoing", "ratedloss"]);
    assert_eq!(bobs["games"][1]["color"], "white");
    assert_eq!(bobs["games"][1]["rating_diff"], 242);
    assert_eq!(bobs["games"][1]["opponent"]["name"], "alice");
    w.rig.stop().await;
}

#[tokio::test]
async fn a_computer_opponent_is_named_by_its_level() {
    let w = world().await;
    let alice = w.user("alice", 1).await;
    let (status, text) = w
        .rig
        .http(
            "POST",
            "/api/games",
            Some(r#"{"computer": {"level": 2}, "color": "white"}"#),
        )
        .await;
    assert_eq!(status, 201, "{text}");
    let created: Value = serde_json::from_str(&text).unwrap();
    let id = created["id"].as_str().unwrap();
    let game = w.store.load_game(id).await.unwrap().unwrap();
    w.copy(
        &game,
        "vscomputer",
        Some(alice),
        None,
        1_800_000_000_000,
        None,
    )
    .await;
    let (_, page) = w.get("/api/users/alice/games").await;
    assert_eq!(
        page["games"][0]["opponent"],
        json!({"computer": {"level": 2}})
    );
    assert_eq!(page["games"][0]["color"], "white");
    w.rig.stop().await;
}

#[tokio::test]
async fn games_are_paged_by_limit_and_offset_and_a_limit_outside_1_to_100_is_refused() {
    let w = world().await;
    let alice = w.user("alice", 1).await;
    for i in 0..7 {
        w.copy(
            &w.mated,
            &format!("g{i}"),
            Some(alice),
            None,
            1_000 + i,
            None,
        )
        .await;
    }
    let ids = |page: &Value| -> Vec<String> {
        page["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, first) = w.get("/api/users/alice/games?limit=3").await;
    let (_, second) = w.get("/api/users/alice/games?limit=3&offset=3").await;
    let (_, last) = w.get("/api/users/alice/games?limit=3&offset=6").await;
    let (_, beyond) = w.get("/api/users/alice/games?offset=7").await;
    assert_eq!(ids(&first), ["g6", "g5", "g4"]);
    assert_eq!(ids(&second), ["g3", "g2", "g1"]);
    assert_eq!(ids(&last), ["g0"]);
    assert!(ids(&beyond).is_empty());
    assert_eq!(second["offset"], 3);
    let (status, _) = w.get("/api/users/alice/games?limit=100").await;
    assert_eq!(status, 200);
    for bad in [
        "limit=0",
        "limit=101",
        "limit=-1",
        "limit=x",
        "offset=-3",
        "limit=1e9",
    ] {
        assert_error(
            &w,
            &format!("/api/users/alice/games?{bad}"),
            400,
            "bad_request",
        )
        .await;
    }
    w.rig.stop().await;
}

#[tokio::test]
async fn the_rating_history_is_the_rating_after_each_rated_game_oldest_first() {
    let w = world().await;
    let alice = w.user("alice", 1).await;
    let bob = w.user("bob", 2).await;
    let t = 1_800_000_000_000;
    w.copy(&w.mated, "r1", Some(alice), Some(bob), t, Some(1.0))
        .await;
    w.copy(&w.mated, "r2", Some(bob), Some(alice), t + 10, Some(0.5))
        .await;
    w.copy(&w.mated, "casual", Some(alice), Some(bob), t + 20, None)
        .await;
    let (status, history) = w.get("/api/users/alice/rating-history?speed=blitz").await;
    assert_eq!(status, 200, "{history}");
    assert_eq!(history["speed"], "blitz");
    let points = history["points"].as_array().expect("points");
    assert_eq!(points.len(), 2, "{history}");
    assert_eq!(points[0]["game_id"], "r1");
    assert_eq!(points[0]["ended_ms"], t);
    assert_eq!(points[0]["rating"], 1742);
    assert_eq!(points[1]["game_id"], "r2");
    // Its last point is the profile's rating.
    let (_, profile) = w.get("/api/users/alice").await;
    assert_eq!(points[1]["rating"], profile["ratings"]["blitz"]["rating"]);
    // Every speed when none is asked for; none of another speed.
    let (_, all) = w.get("/api/users/alice/rating-history").await;
    assert_eq!(all["points"].as_array().map(Vec::len), Some(2));
    assert!(all.get("speed").is_none());
    let (_, rapid) = w.get("/api/users/alice/rating-history?speed=rapid").await;
    assert_eq!(rapid["points"], json!([]));
    assert_error(
        &w,
        "/api/users/alice/rating-history?speed=hyper",
        400,
        "bad_request",
    )
    .await;
    w.rig.stop().await;
}

#[tokio::test]
async fn an_empty_speed_asked_of_the_rating_history_is_400_bad_request_not_every_speed() {
    let w = world().await;
    w.user("alice", 1).await;
    let (status, body) = w.get("/api/users/alice/rating-history?speed=").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("bad_request")),
        "{body}"
    );
    assert_eq!(
        body["message"],
        "speed is empty: give one of bullet, blitz, rapid, classical, correspondence, or leave it out for every speed"
    );
    w.rig.stop().await;
}

#[tokio::test]
async fn the_pgn_export_streams_every_finished_game_of_the_user_and_only_those() {
    let w = world().await;
    let alice = w.user("alice", 1).await;
    let bob = w.user("bob", 2).await;
    // More than one page of the export's store reads (50 rows), mixed with games in progress
    // and a game of someone else.
    let finished = 57;
    for i in 0..finished {
        w.copy(
            &w.mated,
            &format!("f{i:03}"),
            Some(alice),
            Some(bob),
            1_000 + i,
            None,
        )
        .await;
        if i % 10 == 0 {
            w.copy(
                &w.playing,
                &format!("p{i:03}"),
                Some(alice),
                None,
                1_000 + i,
                None,
            )
            .await;
        }
    }
    w.copy(&w.mated, "notalice", Some(bob), None, 5_000, None)
        .await;

    let reply = exchange(
        w.rig.addr(),
        &head("GET", "/api/users/Alice/games.pgn", &[]),
        WAIT,
    )
    .await
    .expect("an answer");
    assert_eq!(reply.status, 200, "{}", reply.body);
    let headers = reply.head.to_ascii_lowercase();
    assert!(
        headers.contains("content-type: text/plain"),
        "{}",
        reply.head
    );
    assert!(
        headers.contains("transfer-encoding: chunked") && !headers.contains("content-length"),
        "streamed, not sized in advance: {}",
        reply.head
    );
    w.assert_private(&reply.body);
    let games: Vec<&str> = reply
        .body
        .split("[Event ")
        .filter(|g| !g.trim().is_empty())
        .collect();
    assert_eq!(games.len(), finished as usize, "{}", reply.body);
    // Newest first, each with its own site, each the game the server played.
    let sites: Vec<String> = reply
        .body
        .lines()
        .filter(|l| l.starts_with("[Site "))
        .map(str::to_string)
        .collect();
    assert_eq!(
        sites.first().map(String::as_str),
        Some("[Site \"/game/f056\"]")
    );
    assert_eq!(
        sites.last().map(String::as_str),
        Some("[Site \"/game/f000\"]")
    );
    for game in &games {
        assert!(game.contains("[Result \"1-0\"]"), "{game}");
        assert!(game.contains("Qh5#"), "{game}");
    }
    assert!(
        !reply.body.contains("/game/p0"),
        "a game in progress was exported"
    );
    assert!(!reply.body.contains("notalice"));

    // A user without a finished game gets an empty file.
    w.user("carol", 3).await;
    let (status, text) = w.rig.http("GET", "/api/users/carol/games.pgn", None).await;
    assert_eq!((status, text.as_str()), (200, ""));
    w.rig.stop().await;
}

#[tokio::test]
async fn the_profile_page_is_served_at_its_at_address() {
    let rig = Rig::builder().memory().start().await;
    let reply = exchange(rig.addr(), &head("GET", "/@/alice", &[]), WAIT)
        .await
        .expect("an answer");
    assert_eq!(reply.status, 200);
    assert!(
        reply
            .head
            .to_ascii_lowercase()
            .contains("content-type: text/html")
    );
    assert!(reply.body.contains("<html"), "{}", reply.body);
    rig.stop().await;
}

/// A store whose profile reads fail on demand (the crate's `FailingStore` fails writes only):
/// `ratings`, `rating_history` and `user_games` while `failing` is on, and `user_games` once
/// `user_games_left` successful calls are used up.
struct ReadFailing {
    inner: Arc<dyn Store>,
    failing: Arc<AtomicBool>,
    user_games_left: Arc<AtomicU32>,
}

fn refused<T: Send + 'static>() -> StoreFuture<T> {
    Box::pin(async { Err(StoreError::Io("injected read failure".into())) })
}

impl Store for ReadFailing {
    fn commit(&self, commit: Commit) -> StoreFuture<()> {
        self.inner.commit(commit)
    }
    fn commit_all(&self, commits: Vec<Commit>) -> StoreFuture<()> {
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
        self.inner.create_user(username, password_hash, at_ms)
    }
    fn find_user(&self, username: &Username) -> StoreFuture<Option<UserRecord>> {
        self.inner.find_user(username)
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
        if self.failing.load(Ordering::SeqCst) {
            return refused();
        }
        self.inner.ratings(user)
    }
    fn rating_history(
        &self,
        user: UserId,
        speed: Option<Speed>,
        limit: u32,
    ) -> StoreFuture<Vec<RatedGame>> {
        if self.failing.load(Ordering::SeqCst) {
            return refused();
        }
        self.inner.rating_history(user, speed, limit)
    }
    fn user_games(&self, user: UserId, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        let allowed = self
            .user_games_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if self.failing.load(Ordering::SeqCst) || !allowed {
            return refused();
        }
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

    fn account_settings(&self, user: UserId) -> StoreFuture<Option<String>> {
        self.inner.account_settings(user)
    }

    fn set_account_settings(&self, user: UserId, json: String, at_ms: i64) -> StoreFuture<()> {
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
async fn a_store_failure_is_503_store_failure_on_every_json_route() {
    let failing = Arc::new(AtomicBool::new(false));
    let switch = Arc::clone(&failing);
    let w = world_on(move |inner| {
        Arc::new(ReadFailing {
            inner,
            failing: switch,
            user_games_left: Arc::new(AtomicU32::new(u32::MAX)),
        })
    })
    .await;
    w.user("alice", 1).await;
    let (status, _) = w.get("/api/users/alice/games").await;
    assert_eq!(status, 200);
    failing.store(true, Ordering::SeqCst);
    for route in ["", "/games", "/rating-history"] {
        assert_error(
            &w,
            &format!("/api/users/alice{route}"),
            503,
            "store_failure",
        )
        .await;
    }
    // The PGN export reads its first page before it answers: the failure is still a 503.
    assert_error(&w, "/api/users/alice/games.pgn", 503, "store_failure").await;
    w.rig.stop().await;
}

#[tokio::test]
async fn a_store_failure_in_the_middle_of_the_pgn_export_cuts_the_answer_off() {
    let pages = Arc::new(AtomicU32::new(u32::MAX));
    let left = Arc::clone(&pages);
    let w = world_on(move |inner| {
        Arc::new(ReadFailing {
            inner,
            failing: Arc::new(AtomicBool::new(false)),
            user_games_left: left,
        })
    })
    .await;
    let alice = w.user("alice", 1).await;
    for i in 0..60 {
        w.copy(
            &w.mated,
            &format!("f{i:03}"),
            Some(alice),
            None,
            1_000 + i,
            None,
        )
        .await;
    }
    // The first page (50 games) reads; the second fails.
    pages.store(1, Ordering::SeqCst);
    let mut stream = connect_and_send(
        w.rig.addr(),
        &head("GET", "/api/users/alice/games.pgn", &[]),
    )
    .await
    .expect("connect");
    let raw = read_until_closed(&mut stream, WAIT)
        .await
        .expect("the server ends the answer");
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    // Games of the first page arrive (hyper may drop the last chunk it had buffered when the
    // body fails), none of the second.
    let games = text.matches("[Event ").count();
    assert!((1..=50).contains(&games), "{games} games: {text}");
    assert!(
        !text.ends_with("\r\n0\r\n\r\n"),
        "a cut-off export must not end like a complete one"
    );
    w.rig.stop().await;
}

/// The whole path with nothing seeded: two accounts registered over HTTP play a rated game
/// on their sessions to the end; both profiles, lists, histories and PGN exports show it.
#[tokio::test]
async fn a_rated_game_between_two_accounts_shows_on_both_profiles() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "Bob").await;
    let body =
        json!({"rated": true, "color": "white", "clock": {"base_secs": 300, "increment_secs": 2}});
    let (status, created) = alice.call(addr, "POST", "/api/games", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    let id = support::s(&created["id"]);
    let (status, joined) = bob
        .call(addr, "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let mut white = alice.connect(addr, &id, "").await;
    let mut black = bob.connect(addr, &id, "").await;
    white.skip_to("state").await;
    black.skip_to("state").await;
    play_until_white_mates_in_one(&mut white, &mut black).await;
    white.play("d1h5", "w2").await;

    let rated = support::eventually(WAIT, || async {
        let (_, text) = rig.http("GET", "/api/users/alice", None).await;
        text.contains("\"games\":1")
    })
    .await;
    assert!(rated, "alice's profile counts the rated game");
    let get = |path: String| {
        let rig = &rig;
        async move {
            let (status, text) = rig.http("GET", &path, None).await;
            assert_eq!(status, 200, "{path}: {text}");
            serde_json::from_str::<Value>(&text).unwrap_or(Value::Null)
        }
    };
    let profile = get("/api/users/alice".into()).await;
    assert_eq!(
        profile["ratings"]["blitz"],
        json!({"rating": 1742, "deviation": 397, "provisional": true, "games": 1})
    );
    // The same ratings object as the account's own view of itself.
    let (_, account) = alice.call(addr, "GET", "/api/account", None).await;
    assert_eq!(profile["ratings"], account["ratings"], "{account}");
    let alices = get("/api/users/alice/games".into()).await;
    let game = &alices["games"][0];
    assert_eq!(game["id"], id.as_str());
    assert_eq!(game["color"], "white");
    assert_eq!(game["result"], "1-0");
    assert_eq!(game["rated"], true);
    assert_eq!(game["rating_diff"], 242);
    assert_eq!(
        game["opponent"],
        json!({"name": "Bob", "rating": {"rating": 1500, "deviation": 500, "provisional": true}})
    );
    let bobs = get("/api/users/bob/games".into()).await;
    assert_eq!(bobs["games"][0]["color"], "black");
    assert_eq!(bobs["games"][0]["rating_diff"], -242);
    assert_eq!(bobs["games"][0]["opponent"]["name"], "alice");
    let history = get("/api/users/Bob/rating-history?speed=blitz".into()).await;
    assert_eq!(history["points"][0]["rating"], 1258);
    assert_eq!(history["points"][0]["game_id"], id.as_str());

    let (status, pgn) = rig.http("GET", "/api/users/bob/games.pgn", None).await;
    assert_eq!(status, 200);
    assert!(pgn.contains("[White \"alice\"]"), "{pgn}");
    assert!(pgn.contains("[Black \"Bob\"]"), "{pgn}");
    assert!(pgn.contains("[WhiteElo \"1500\"]"), "{pgn}");
    assert!(pgn.contains("Qh5#"), "{pgn}");
    // Exactly the game's own export.
    assert_eq!(pgn.trim_end(), rig.pgn(&id).await.trim_end());
    assert!(!pgn.contains(&alice.cookie) && !pgn.contains(&bob.cookie));
    rig.stop().await;
}
