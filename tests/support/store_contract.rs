//! The store contract (docs: src/server/store/mod.rs) as checks on any
//! `&dyn Store`: sequence conflicts, listing and paging, unfinished and stale
//! games, unlisted games, atomic units, close, the failure-injecting
//! wrapper, and (schema v3) users, sessions, a user's games and ratings.
//! tests/store/sqlite.rs runs them on SqliteStore and MemoryStore; a new
//! backend runs them unchanged. Each check wants a fresh, empty store.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use marseillais::server::chat::{ChatLine, ChatRoom, ChatText, KEPT_LINES, NewChatLine};
use marseillais::server::players::account::{Account, UserId, Username};
use marseillais::server::players::rating::glicko2::rate;
use marseillais::server::players::rating::{Rating, Speed};
use marseillais::server::store::{
    Claim, Commit, DeadlineChange, FailingStore, Fence, GameListing, GameStatus, RatedEnd,
    RatedGame, SESSION_IDLE_MS, SESSION_TOUCH_MS, SessionHash, Store, StoreError,
};

/// Every check is bounded: a hang is a failure, not a stuck CI job.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(120);

/// `f`, or a panic once [`TEST_TIMEOUT`] passes.
pub async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(TEST_TIMEOUT, f)
        .await
        .expect("test took longer than its bound")
}

/// The listing row the fixtures commit (its summary names the id and time).
pub fn listing(id: &str, status: GameStatus, updated_ms: i64) -> GameListing {
    GameListing {
        id: id.to_owned(),
        status,
        created_ms: 1_000,
        updated_ms,
        summary: format!(r#"{{"id":"{id}","updated":{updated_ms}}}"#),
        listed: true,
        white_user: None,
        black_user: None,
    }
}

pub fn event(game: &str, seq: u64) -> String {
    format!(r#"{{"t":"move","game":"{game}","v":{seq}}}"#)
}

/// A commit of `count` events starting at `first_seq`, status Playing.
pub fn commit(game: &str, first_seq: u64, count: u64) -> Commit {
    Commit {
        game_id: game.to_owned(),
        first_seq,
        events: (first_seq..first_seq + count)
            .map(|seq| event(game, seq))
            .collect(),
        listing: listing(game, GameStatus::Playing, 2_000 + first_seq as i64),
        rating: None,
        deadline: DeadlineChange::Unchanged,
        fence: None,
    }
}

pub fn expected_events(game: &str, count: u64) -> Vec<String> {
    (0..count).map(|seq| event(game, seq)).collect()
}

pub async fn events_of(store: &dyn Store, game: &str) -> Vec<String> {
    store
        .load_game(game)
        .await
        .expect("load_game")
        .map(|(_, events)| events)
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// The checks.

pub async fn check_sequence_conflicts_store_nothing(store: &dyn Store) {
    store.commit(commit("g", 0, 3)).await.expect("first commit");
    for wrong in [0, 2, 4] {
        match store.commit(commit("g", wrong, 2)).await {
            Err(StoreError::Conflict {
                game_id,
                expected,
                got,
            }) => {
                assert_eq!(game_id, "g");
                assert_eq!(expected, 3);
                assert_eq!(got, wrong);
            }
            other => panic!("first_seq {wrong} should conflict, got {other:?}"),
        }
    }
    match store.commit(commit("new-game", 1, 1)).await {
        Err(StoreError::Conflict { expected: 0, .. }) => {}
        other => panic!("a new game must start at seq 0, got {other:?}"),
    }
    assert_eq!(events_of(store, "g").await, expected_events("g", 3));
    assert!(store.load_game("new-game").await.expect("load").is_none());
    store.commit(commit("g", 3, 2)).await.expect("right seq");
    assert_eq!(events_of(store, "g").await, expected_events("g", 5));
}

pub async fn check_list_pages_newest_first_by_status(store: &dyn Store) {
    for i in 0..7u64 {
        let id = format!("open-{i}");
        let mut c = commit(&id, 0, 1);
        c.listing = listing(&id, GameStatus::Open, 10_000 + i as i64);
        store.commit(c).await.expect("commit open game");
    }
    for i in 0..3u64 {
        let id = format!("done-{i}");
        let mut c = commit(&id, 0, 1);
        c.listing = listing(&id, GameStatus::Finished, 20_000 + i as i64);
        store.commit(c).await.expect("commit finished game");
    }
    let page1 = store.list(GameStatus::Open, 3, 0).await.expect("page 1");
    let page2 = store.list(GameStatus::Open, 3, 3).await.expect("page 2");
    let page3 = store.list(GameStatus::Open, 3, 6).await.expect("page 3");
    let ids: Vec<String> = [page1, page2, page3]
        .concat()
        .into_iter()
        .map(|l| {
            assert_eq!(l.status, GameStatus::Open);
            assert_eq!(l.summary, listing(&l.id, l.status, l.updated_ms).summary);
            l.id
        })
        .collect();
    let newest_first: Vec<String> = (0..7).rev().map(|i| format!("open-{i}")).collect();
    assert_eq!(ids, newest_first);
    let finished = store
        .list(GameStatus::Finished, 10, 0)
        .await
        .expect("finished");
    assert_eq!(finished.len(), 3);
    assert!(
        store
            .list(GameStatus::Playing, 10, 0)
            .await
            .expect("playing")
            .is_empty()
    );
    assert!(
        store
            .list(GameStatus::Open, 10, 7)
            .await
            .expect("past the end")
            .is_empty()
    );
}

/// The SQLite store indexes games by the minute of their last activity and sorts within a
/// minute (schema v6): the lobby, a user's games and the stale scan must still come out in the
/// exact order of `updated_ms`, whichever minutes the games were last played in, and after a
/// game is played on within its minute or into the next one.
pub async fn check_listings_follow_updated_ms_exactly_across_and_within_minutes(store: &dyn Store) {
    const MINUTE: i64 = 60_000;
    let ann = store
        .create_user(username("amy"), "h".to_owned(), 1)
        .await
        .expect("amy");
    let base = 29_000_000 * MINUTE;
    // (game, updated_ms): two games in one minute in the opposite order of their ids, one
    // just before that minute, one in the minute after, one three minutes on.
    let first = [
        ("m1-late", base + MINUTE - 1),
        ("m1-early", base + 5),
        ("m0-last", base - 10),
        ("m2", base + MINUTE),
        ("m4", base + 3 * MINUTE + 7),
    ];
    for (id, at) in first {
        store
            .commit(seated_commit(id, 0, at, true, Some(ann), None))
            .await
            .expect("commit");
    }
    // Played on: "m0-last" within its minute (still the oldest), "m1-early" into the next
    // minute, after "m2".
    store
        .commit(seated_commit("m0-last", 1, base - 1, true, Some(ann), None))
        .await
        .expect("within the minute");
    store
        .commit(seated_commit(
            "m1-early",
            1,
            base + MINUTE + 1,
            true,
            Some(ann),
            None,
        ))
        .await
        .expect("into the next minute");
    let newest_first = ["m4", "m1-early", "m2", "m1-late", "m0-last"];
    let ids = |rows: Vec<GameListing>| rows.into_iter().map(|l| l.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.list(GameStatus::Playing, 10, 0).await.expect("list")),
        newest_first
    );
    assert_eq!(
        ids(store.list(GameStatus::Playing, 2, 2).await.expect("a page")),
        newest_first[2..4]
    );
    assert_eq!(
        ids(store.user_games(ann, 10, 0).await.expect("amy's games")),
        newest_first
    );
    let stale = store
        .load_stale(GameStatus::Playing, base + MINUTE + 1, 10, 0)
        .await
        .expect("stale");
    assert_eq!(
        stale.into_iter().map(|(l, _)| l.id).collect::<Vec<_>>(),
        ["m0-last", "m1-late", "m2"],
        "oldest first, strictly before the bound"
    );
}

pub async fn check_load_unfinished_skips_finished_games(store: &dyn Store) {
    store.commit(commit("a", 0, 2)).await.expect("a");
    store.commit(commit("b", 0, 4)).await.expect("b");
    store.commit(commit("c", 0, 1)).await.expect("c");
    // c finishes with its last event; its listing row turns Finished.
    let mut last = commit("c", 1, 1);
    last.listing.status = GameStatus::Finished;
    store.commit(last).await.expect("c finishes");

    let mut games = store.load_unfinished().await.expect("load_unfinished");
    games.sort_by(|x, y| x.0.id.cmp(&y.0.id));
    let got: Vec<(String, GameStatus, Vec<String>)> = games
        .into_iter()
        .map(|(l, events)| (l.id, l.status, events))
        .collect();
    assert_eq!(
        got,
        vec![
            ("a".to_owned(), GameStatus::Playing, expected_events("a", 2)),
            ("b".to_owned(), GameStatus::Playing, expected_events("b", 4)),
        ]
    );
    let (c, c_events) = store
        .load_game("c")
        .await
        .expect("load c")
        .expect("c exists");
    assert_eq!(c.status, GameStatus::Finished);
    assert_eq!(c_events, expected_events("c", 2));
}

pub async fn check_failing_store_fails_commits_and_stores_nothing(inner: Arc<dyn Store>) {
    let failing = FailingStore::new(Arc::clone(&inner));
    failing.commit(commit("f", 0, 1)).await.expect("switch off");
    failing.set_failing(true);
    match failing.commit(commit("f", 1, 1)).await {
        Err(StoreError::Io(message)) => assert_eq!(message, "injected"),
        other => panic!("expected an injected failure, got {other:?}"),
    }
    match failing.commit(commit("other", 0, 1)).await {
        Err(StoreError::Io(_)) => {}
        other => panic!("expected an injected failure, got {other:?}"),
    }
    assert_eq!(events_of(&*inner, "f").await, expected_events("f", 1));
    assert!(inner.load_game("other").await.expect("load").is_none());
    failing.switch().store(false, Ordering::SeqCst);
    failing
        .commit(commit("f", 1, 1))
        .await
        .expect("switch off again");
    assert_eq!(events_of(&failing, "f").await, expected_events("f", 2));
}

pub async fn check_commit_after_close_is_refused(store: &dyn Store) {
    store.commit(commit("z", 0, 1)).await.expect("before close");
    store.close().await;
    store.close().await;
    assert!(matches!(
        store.commit(commit("z", 1, 1)).await,
        Err(StoreError::Closed)
    ));
}

pub async fn check_commit_all_stores_every_commit_or_none(store: &dyn Store) {
    store.commit(commit("old", 0, 3)).await.expect("old game");
    // The second half conflicts (the old game has 3 events, not 2): nothing of the unit is stored.
    match store
        .commit_all(vec![commit("new", 0, 2), commit("old", 2, 1)])
        .await
    {
        Err(StoreError::Conflict {
            game_id,
            expected: 3,
            got: 2,
        }) => assert_eq!(game_id, "old"),
        other => panic!("expected a conflict on the old game, got {other:?}"),
    }
    assert!(store.load_game("new").await.expect("load").is_none());
    assert_eq!(events_of(store, "old").await, expected_events("old", 3));
    // Two commits of one game in one unit apply in order.
    store
        .commit_all(vec![
            commit("new", 0, 2),
            commit("old", 3, 1),
            commit("old", 4, 2),
        ])
        .await
        .expect("the whole unit");
    assert_eq!(events_of(store, "new").await, expected_events("new", 2));
    assert_eq!(events_of(store, "old").await, expected_events("old", 6));
}

pub async fn check_unlisted_games_are_in_no_listing_but_load(store: &dyn Store) {
    for (id, status, listed) in [
        ("pub-open", GameStatus::Open, true),
        ("priv-open", GameStatus::Open, false),
        ("priv-play", GameStatus::Playing, false),
        ("priv-done", GameStatus::Finished, false),
    ] {
        let mut c = commit(id, 0, 1);
        c.listing.status = status;
        c.listing.listed = listed;
        store.commit(c).await.expect("commit");
    }
    let ids = |rows: Vec<GameListing>| rows.into_iter().map(|l| l.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.list(GameStatus::Open, 10, 0).await.expect("open")),
        ["pub-open"]
    );
    assert!(
        store
            .list(GameStatus::Playing, 10, 0)
            .await
            .expect("playing")
            .is_empty()
    );
    assert!(
        store
            .list(GameStatus::Finished, 10, 0)
            .await
            .expect("done")
            .is_empty()
    );
    let (listing, _) = store
        .load_game("priv-open")
        .await
        .expect("load")
        .expect("an unlisted game loads by id");
    assert!(!listing.listed);
    let playing = store.load_playing().await.expect("playing");
    assert_eq!(
        ids(playing.into_iter().map(|(l, _)| l).collect()),
        ["priv-play"]
    );
}

pub async fn check_load_stale_pages_old_games_of_one_status_oldest_first(store: &dyn Store) {
    for (id, status, updated, listed) in [
        ("o1", GameStatus::Open, 100, true),
        ("o2", GameStatus::Open, 50, false),
        ("o3", GameStatus::Open, 300, true),
        ("o4", GameStatus::Open, 200, true),
        ("p1", GameStatus::Playing, 10, true),
    ] {
        let mut c = commit(id, 0, 1);
        c.listing = listing(id, status, updated);
        c.listing.listed = listed;
        store.commit(c).await.expect("commit");
    }
    let ids = |games: Vec<(GameListing, Vec<String>)>| {
        games.into_iter().map(|(l, _)| l.id).collect::<Vec<_>>()
    };
    let stale = store
        .load_stale(GameStatus::Open, 300, 10, 0)
        .await
        .expect("stale");
    assert_eq!(stale[0].1, expected_events("o2", 1), "with their events");
    assert_eq!(ids(stale), ["o2", "o1", "o4"]);
    let page = store
        .load_stale(GameStatus::Open, 300, 2, 1)
        .await
        .expect("page");
    assert_eq!(ids(page), ["o1", "o4"]);
    let playing = store
        .load_stale(GameStatus::Playing, 11, 10, 0)
        .await
        .expect("playing");
    assert_eq!(ids(playing), ["p1"]);
}

// ---------------------------------------------------------------------------------------------
// Accounts, sessions and ratings (schema v3, issue 11).

/// A username the checks know to be valid.
pub fn username(name: &str) -> Username {
    Username::parse(name).expect("a valid username")
}

/// A session hash made of one repeated byte (the store never looks inside it).
pub fn session_hash(byte: u8) -> SessionHash {
    [byte; 32]
}

pub async fn check_usernames_are_unique_case_insensitively(store: &dyn Store) {
    let alice = store
        .create_user(username("Alice"), "hash-a".to_owned(), 5_000)
        .await
        .expect("create Alice");
    match store
        .create_user(username("aLICE"), "hash-b".to_owned(), 6_000)
        .await
    {
        Err(StoreError::UsernameTaken) => {}
        other => panic!("aLICE is Alice: expected UsernameTaken, got {other:?}"),
    }
    let bob = store
        .create_user(username("bob"), "hash-bob".to_owned(), 7_000)
        .await
        .expect("create bob");
    assert_ne!(alice, bob);
    let found = store
        .find_user(&username("ALICE"))
        .await
        .expect("find")
        .expect("Alice is found in any case");
    assert_eq!(found.account.id, alice);
    assert_eq!(found.account.name.as_str(), "Alice", "as she spelled it");
    assert_eq!(
        found.password_hash, "hash-a",
        "the first hash, not the refused one"
    );
    assert_eq!(found.created_ms, 5_000);
    assert_eq!(
        store
            .user_by_id(bob)
            .await
            .expect("by id")
            .map(|u| u.account.name),
        Some(username("bob"))
    );
    assert!(
        store
            .find_user(&username("carol"))
            .await
            .expect("find")
            .is_none()
    );
    assert!(
        store
            .user_by_id(UserId(alice.0 + bob.0 + 100))
            .await
            .expect("by id")
            .is_none()
    );
}

pub async fn check_sessions_expire_after_thirty_idle_days_touched_at_most_hourly(
    store: &dyn Store,
) {
    let t0 = 1_000_000_000_000;
    let user = store
        .create_user(username("sam"), "h".to_owned(), t0)
        .await
        .expect("user");
    let account = Some(Account {
        id: user,
        name: username("sam"),
    });
    let (used_late, used_soon, never_used, edge) = (
        session_hash(1),
        session_hash(2),
        session_hash(3),
        session_hash(4),
    );
    for hash in [used_late, used_soon, never_used, edge] {
        store.create_session(hash, user, t0).await.expect("session");
    }
    let resolve = |hash, at| store.session_account(hash, at);
    assert_eq!(resolve(never_used, t0).await.expect("read"), account);
    assert_eq!(
        resolve(edge, t0 + SESSION_IDLE_MS).await.expect("read"),
        account,
        "alive for exactly 30 idle days"
    );
    assert_eq!(
        resolve(never_used, t0 + SESSION_IDLE_MS + 1)
            .await
            .expect("read"),
        None,
        "expired after 30 idle days"
    );
    // Used two hours in: touched, so it lives 30 days from then.
    let used_at = t0 + 2 * SESSION_TOUCH_MS;
    assert_eq!(resolve(used_late, used_at).await.expect("read"), account);
    assert_eq!(
        resolve(used_late, used_at + SESSION_IDLE_MS)
            .await
            .expect("read"),
        account,
        "a use renews the session"
    );
    // Used within the first hour: not touched (at most one write an hour), so it still expires
    // 30 days after its creation.
    assert_eq!(
        resolve(used_soon, t0 + SESSION_TOUCH_MS / 2)
            .await
            .expect("read"),
        account
    );
    assert_eq!(
        resolve(used_soon, t0 + SESSION_IDLE_MS + 1)
            .await
            .expect("read"),
        None,
        "a use within the hour is not written"
    );
    assert_eq!(
        resolve(session_hash(9), t0).await.expect("read"),
        None,
        "unknown session"
    );
}

pub async fn check_a_deleted_session_is_gone_and_deleting_twice_is_fine(store: &dyn Store) {
    let user = store
        .create_user(username("dee"), "h".to_owned(), 1)
        .await
        .expect("user");
    let (kept, deleted) = (session_hash(7), session_hash(8));
    store.create_session(kept, user, 10).await.expect("kept");
    store
        .create_session(deleted, user, 10)
        .await
        .expect("deleted");
    store.delete_session(deleted).await.expect("delete");
    store
        .delete_session(deleted)
        .await
        .expect("deleting again is not an error");
    store
        .delete_session(session_hash(99))
        .await
        .expect("deleting an unknown session is not an error");
    assert_eq!(
        store.session_account(deleted, 20).await.expect("read"),
        None
    );
    assert_eq!(
        store
            .session_account(kept, 20)
            .await
            .expect("read")
            .map(|a| a.id),
        Some(user),
        "the other session of the same user stays"
    );
}

/// A commit of one event for `game`, seated by `white` / `black`, updated at `updated_ms`.
pub fn seated_commit(
    game: &str,
    first_seq: u64,
    updated_ms: i64,
    listed: bool,
    white: Option<UserId>,
    black: Option<UserId>,
) -> Commit {
    let mut c = commit(game, first_seq, 1);
    c.listing = listing(game, GameStatus::Playing, updated_ms);
    c.listing.listed = listed;
    c.listing.white_user = white;
    c.listing.black_user = black;
    c
}

pub async fn check_user_games_pages_a_users_games_newest_first_listed_or_not(store: &dyn Store) {
    let ann = store
        .create_user(username("ann"), "h".to_owned(), 1)
        .await
        .expect("ann");
    let ben = store
        .create_user(username("ben"), "h".to_owned(), 1)
        .await
        .expect("ben");
    for c in [
        seated_commit("w-old", 0, 100, true, Some(ann), Some(ben)),
        seated_commit("b-private", 0, 200, false, Some(ben), Some(ann)),
        seated_commit("w-anon", 0, 300, true, Some(ann), None),
        seated_commit("ben-only", 0, 400, true, Some(ben), None),
        seated_commit("anon", 0, 500, true, None, None),
        seated_commit("self", 0, 50, true, Some(ann), Some(ann)),
    ] {
        store.commit(c).await.expect("commit");
    }
    // w-old is played on: it becomes ann's newest game.
    store
        .commit(seated_commit("w-old", 1, 600, true, Some(ann), Some(ben)))
        .await
        .expect("w-old goes on");
    let ids = |rows: Vec<GameListing>| rows.into_iter().map(|l| l.id).collect::<Vec<_>>();
    let all = store.user_games(ann, 10, 0).await.expect("ann's games");
    assert_eq!(all[0].white_user, Some(ann));
    assert_eq!(all[0].black_user, Some(ben));
    assert_eq!(
        ids(all),
        ["w-old", "w-anon", "b-private", "self"],
        "newest first, unlisted included, a game against oneself once"
    );
    assert_eq!(
        ids(store.user_games(ann, 2, 1).await.expect("page")),
        ["w-anon", "b-private"]
    );
    assert_eq!(
        ids(store.user_games(ben, 10, 0).await.expect("ben's games")),
        ["w-old", "ben-only", "b-private"]
    );
    assert!(
        store
            .user_games(ann, 10, 4)
            .await
            .expect("past the end")
            .is_empty()
    );
    // The seats survive a reload.
    let (listing, _) = store
        .load_game("b-private")
        .await
        .expect("load")
        .expect("exists");
    assert_eq!(
        (listing.white_user, listing.black_user),
        (Some(ben), Some(ann))
    );
}

pub async fn check_account_writes_fail_while_failing_and_after_close(inner: Arc<dyn Store>) {
    let failing = FailingStore::new(Arc::clone(&inner));
    let user = failing
        .create_user(username("fay"), "h".to_owned(), 1)
        .await
        .expect("switch off");
    failing.set_failing(true);
    assert!(matches!(
        failing
            .create_user(username("gil"), "h".to_owned(), 1)
            .await,
        Err(StoreError::Io(_))
    ));
    assert!(matches!(
        failing.create_session(session_hash(1), user, 1).await,
        Err(StoreError::Io(_))
    ));
    assert!(
        inner
            .find_user(&username("gil"))
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        inner
            .session_account(session_hash(1), 1)
            .await
            .expect("read")
            .is_none()
    );
    failing.set_failing(false);
    failing
        .create_session(session_hash(1), user, 1)
        .await
        .expect("switch off again");
    failing.set_failing(true);
    assert!(matches!(
        failing.delete_session(session_hash(1)).await,
        Err(StoreError::Io(_))
    ));
    assert!(
        inner
            .session_account(session_hash(1), 2)
            .await
            .expect("read")
            .is_some(),
        "a failed delete deleted nothing"
    );
    inner.close().await;
    assert!(matches!(
        inner.create_user(username("hal"), "h".to_owned(), 1).await,
        Err(StoreError::Closed)
    ));
    assert!(matches!(
        inner.create_session(session_hash(2), user, 1).await,
        Err(StoreError::Closed)
    ));
}

pub async fn check_a_rated_end_rates_both_players_once_with_its_commit(store: &dyn Store) {
    let white = store
        .create_user(username("wendy"), "h".to_owned(), 1)
        .await
        .expect("white");
    let black = store
        .create_user(username("boris"), "h".to_owned(), 1)
        .await
        .expect("black");
    let end = |score_white| RatedEnd {
        white,
        black,
        speed: Speed::Blitz,
        score_white,
    };
    let rated_commit = |game: &str, first_seq, updated_ms, rating| {
        let mut c = seated_commit(game, first_seq, updated_ms, true, Some(white), Some(black));
        c.listing.status = GameStatus::Finished;
        c.rating = Some(rating);
        c
    };
    store
        .commit(seated_commit("r1", 0, 100, true, Some(white), Some(black)))
        .await
        .expect("r1 starts");
    // A rated end whose commit is refused rates nothing.
    assert!(matches!(
        store.commit(rated_commit("r1", 5, 200, end(1.0))).await,
        Err(StoreError::Conflict { .. })
    ));
    assert!(
        store
            .commit_all(vec![
                rated_commit("r1", 1, 200, end(1.0)),
                commit("elsewhere", 3, 1)
            ])
            .await
            .is_err()
    );
    assert!(store.ratings(white).await.expect("ratings").is_empty());
    assert!(store.game_rating("r1").await.expect("rating").is_none());

    // White wins r1.
    store
        .commit(rated_commit("r1", 1, 200, end(1.0)))
        .await
        .expect("r1 ends");
    let (w1, b1) = rate(Rating::INITIAL, Rating::INITIAL, 1.0);
    assert!(w1.rating > 1500.0 && b1.rating < 1500.0, "{w1:?} {b1:?}");
    assert_eq!(
        store.ratings(white).await.expect("ratings"),
        [(Speed::Blitz, w1)]
    );
    assert_eq!(
        store.ratings(black).await.expect("ratings"),
        [(Speed::Blitz, b1)]
    );
    let r1 = RatedGame {
        game_id: "r1".to_owned(),
        speed: Speed::Blitz,
        ended_ms: 200,
        white,
        black,
        score_white: 1.0,
        white_before: Rating::INITIAL,
        white_after: w1,
        black_before: Rating::INITIAL,
        black_after: b1,
    };
    assert_eq!(
        store.game_rating("r1").await.expect("rating"),
        Some(r1.clone())
    );

    // The same end committed again (a replay): stored, not rated twice.
    store
        .commit(rated_commit("r1", 2, 300, end(0.0)))
        .await
        .expect("a second rated commit of r1");
    assert_eq!(
        store.ratings(white).await.expect("ratings"),
        [(Speed::Blitz, w1)],
        "a game is rated once"
    );
    assert_eq!(
        store.game_rating("r1").await.expect("rating"),
        Some(r1.clone())
    );

    // Black wins r2: rated from the ratings r1 left.
    store
        .commit(rated_commit("r2", 0, 400, end(0.0)))
        .await
        .expect("r2");
    let (w2, b2) = rate(w1, b1, 0.0);
    assert_eq!(
        store.ratings(white).await.expect("ratings"),
        [(Speed::Blitz, w2)]
    );
    assert_eq!(w2.games, 2);
    let history = store
        .rating_history(black, None, 10)
        .await
        .expect("history");
    let ids: Vec<&str> = history.iter().map(|g| g.game_id.as_str()).collect();
    assert_eq!(ids, ["r1", "r2"], "oldest first");
    assert_eq!(history[0], r1);
    assert_eq!((history[1].black_before, history[1].black_after), (b1, b2));
    let last = store
        .rating_history(white, Some(Speed::Blitz), 1)
        .await
        .expect("history");
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].game_id, "r2", "the most recent games");
    assert!(
        store
            .rating_history(white, Some(Speed::Bullet), 10)
            .await
            .expect("history")
            .is_empty()
    );
    let stranger = store
        .create_user(username("nobody"), "h".to_owned(), 1)
        .await
        .expect("stranger");
    assert!(
        store
            .rating_history(stranger, None, 10)
            .await
            .expect("history")
            .is_empty()
    );
}

// ---- chat lines (schema v4, issue 12) ----

/// A line to append: `text` is cleaned and checked as the server does.
pub fn chat_line(game: Option<&str>, room: ChatRoom, at_ms: i64, text: &str) -> NewChatLine {
    NewChatLine {
        game_id: game.map(str::to_owned),
        room,
        at_ms,
        user_id: None,
        author: "anonymous".to_owned(),
        text: ChatText::parse(text).expect("a valid chat text"),
    }
}

/// Lines come back per room (a game's `player`, its `spectator`, the lobby's), oldest first,
/// the newest `limit` of them, with their text, author and account exactly as stored.
pub async fn check_chat_lines_come_back_per_room_oldest_first(store: &dyn Store) {
    let html = "<script>alert('x')</script> & ж";
    let mut signed = chat_line(Some("g1"), ChatRoom::Player, 10, html);
    signed.user_id = Some(UserId(7));
    signed.author = "Alice".to_owned();
    let first = store.append_chat(signed.clone()).await.expect("append");
    let second = store
        .append_chat(chat_line(Some("g1"), ChatRoom::Player, 11, "two"))
        .await
        .expect("append");
    assert!(second > first, "ids increase: {first} then {second}");
    store
        .append_chat(chat_line(Some("g1"), ChatRoom::Spectator, 12, "spec"))
        .await
        .expect("append");
    store
        .append_chat(chat_line(Some("g2"), ChatRoom::Player, 13, "other game"))
        .await
        .expect("append");
    store
        .append_chat(chat_line(None, ChatRoom::Lobby, 14, "lobby"))
        .await
        .expect("append");
    store
        .append_chat(chat_line(Some("g1"), ChatRoom::Player, 15, "three"))
        .await
        .expect("append");

    let texts = |lines: &[ChatLine]| lines.iter().map(|l| l.text.clone()).collect::<Vec<_>>();
    let player = store
        .recent_chat(Some("g1"), ChatRoom::Player, 50)
        .await
        .expect("read");
    assert_eq!(texts(&player), [html, "two", "three"]);
    assert_eq!(player[0], signed.clone().stored(first));
    let last_two = store
        .recent_chat(Some("g1"), ChatRoom::Player, 2)
        .await
        .expect("read");
    assert_eq!(
        texts(&last_two),
        ["two", "three"],
        "the newest two, oldest first"
    );
    let spectator = store
        .recent_chat(Some("g1"), ChatRoom::Spectator, 50)
        .await
        .expect("read");
    assert_eq!(texts(&spectator), ["spec"]);
    let lobby = store
        .recent_chat(None, ChatRoom::Lobby, 50)
        .await
        .expect("read");
    assert_eq!(texts(&lobby), ["lobby"]);
    assert_eq!(lobby[0].game_id, None);
    assert!(
        store
            .recent_chat(Some("g3"), ChatRoom::Player, 50)
            .await
            .expect("read")
            .is_empty()
    );
}

/// A room keeps its last [`KEPT_LINES`] lines: older ones are deleted as new ones come, and
/// other rooms are not touched.
pub async fn check_a_chat_room_keeps_only_its_last_lines(store: &dyn Store) {
    store
        .append_chat(chat_line(Some("g1"), ChatRoom::Spectator, 1, "kept"))
        .await
        .expect("append");
    let extra = 5;
    // Issued together so that the writer stores them in a few group commits.
    let appends: Vec<_> = (0..KEPT_LINES as i64 + extra)
        .map(|i| store.append_chat(chat_line(Some("g1"), ChatRoom::Player, i, &format!("l{i}"))))
        .collect();
    for append in appends {
        append.await.expect("append");
    }
    let player = store
        .recent_chat(Some("g1"), ChatRoom::Player, 10 * KEPT_LINES)
        .await
        .expect("read");
    assert_eq!(player.len(), KEPT_LINES as usize);
    assert_eq!(player[0].text, format!("l{extra}"), "the oldest ones went");
    assert_eq!(
        player.last().map(|l| l.text.clone()),
        Some(format!("l{}", KEPT_LINES as i64 + extra - 1))
    );
    let spectator = store
        .recent_chat(Some("g1"), ChatRoom::Spectator, 50)
        .await
        .expect("read");
    assert_eq!(spectator.len(), 1, "another room is not pruned");
}

/// A chat append fails (and stores nothing) under failure injection, and after close.
pub async fn check_chat_appends_fail_while_failing_and_after_close(inner: Arc<dyn Store>) {
    let failing = FailingStore::new(Arc::clone(&inner));
    failing
        .append_chat(chat_line(Some("g1"), ChatRoom::Player, 1, "stored"))
        .await
        .expect("switch off");
    failing.set_failing(true);
    assert!(matches!(
        failing
            .append_chat(chat_line(Some("g1"), ChatRoom::Player, 2, "lost"))
            .await,
        Err(StoreError::Io(_))
    ));
    let lines = inner
        .recent_chat(Some("g1"), ChatRoom::Player, 50)
        .await
        .expect("reads pass through");
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].text, "stored");
    inner.close().await;
    assert!(matches!(
        inner
            .append_chat(chat_line(Some("g1"), ChatRoom::Player, 3, "closed"))
            .await,
        Err(StoreError::Closed)
    ));
}

// ---------------------------------------------------------------------------------------------
// The turn-deadline index (schema v4, issue 12).

/// [`commit`] with this effect on the turn-deadline index.
pub fn deadline_commit(game: &str, first_seq: u64, count: u64, deadline: DeadlineChange) -> Commit {
    Commit {
        deadline,
        ..commit(game, first_seq, count)
    }
}

/// The index, sorted by game id (the store returns it in no particular order).
pub async fn deadlines_of(store: &dyn Store) -> Vec<(String, i64)> {
    let mut rows = store.turn_deadlines().await.expect("turn deadlines");
    rows.sort();
    rows
}

fn rows(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    pairs.iter().map(|(id, ms)| (id.to_string(), *ms)).collect()
}

/// `Set` inserts or replaces a game's row, `Cleared` removes it (absent is fine), `Unchanged`
/// leaves it; a refused commit (a sequence conflict, alone or in a unit) changes nothing of
/// the index; commits of one game in one unit apply in order.
pub async fn check_turn_deadlines_follow_the_commits(store: &dyn Store) {
    use DeadlineChange::{Cleared, Set, Unchanged};
    assert!(deadlines_of(store).await.is_empty(), "a new store has none");
    store.commit(commit("live", 0, 2)).await.expect("live");
    assert!(
        deadlines_of(store).await.is_empty(),
        "Unchanged adds nothing"
    );

    store
        .commit(deadline_commit("b", 0, 2, Set(100)))
        .await
        .expect("set");
    store
        .commit(deadline_commit("c", 0, 1, Set(50)))
        .await
        .expect("set");
    assert_eq!(deadlines_of(store).await, rows(&[("b", 100), ("c", 50)]));
    store
        .commit(deadline_commit("b", 2, 1, Set(200)))
        .await
        .expect("replace");
    store
        .commit(deadline_commit("b", 3, 1, Unchanged))
        .await
        .expect("keep");
    assert_eq!(deadlines_of(store).await, rows(&[("b", 200), ("c", 50)]));

    // A conflicting commit stores nothing, its deadline included.
    assert!(matches!(
        store.commit(deadline_commit("b", 1, 1, Set(999))).await,
        Err(StoreError::Conflict { .. })
    ));
    assert!(matches!(
        store
            .commit_all(vec![
                deadline_commit("d", 0, 1, Set(7)),
                deadline_commit("c", 0, 1, Cleared),
            ])
            .await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(deadlines_of(store).await, rows(&[("b", 200), ("c", 50)]));

    store
        .commit(deadline_commit("b", 4, 1, Cleared))
        .await
        .expect("clear");
    store
        .commit(deadline_commit("live", 2, 1, Cleared))
        .await
        .expect("clearing a game without a row is fine");
    assert_eq!(deadlines_of(store).await, rows(&[("c", 50)]));

    // In one unit, in order: the last word counts.
    store
        .commit_all(vec![
            deadline_commit("e", 0, 1, Set(1)),
            deadline_commit("e", 1, 1, Set(2)),
            deadline_commit("c", 1, 1, Set(60)),
            deadline_commit("c", 2, 1, Cleared),
        ])
        .await
        .expect("the unit");
    assert_eq!(deadlines_of(store).await, rows(&[("e", 2)]));
}

/// A commit refused by injection writes no deadline; the index reads through the wrapper.
pub async fn check_failing_store_writes_no_deadline(inner: Arc<dyn Store>) {
    let failing = FailingStore::new(Arc::clone(&inner));
    failing
        .commit(deadline_commit("f", 0, 1, DeadlineChange::Set(10)))
        .await
        .expect("switch off");
    failing.set_failing(true);
    assert!(
        failing
            .commit(deadline_commit("f", 1, 1, DeadlineChange::Cleared))
            .await
            .is_err()
    );
    assert!(
        failing
            .commit(deadline_commit("g", 0, 1, DeadlineChange::Set(20)))
            .await
            .is_err()
    );
    assert_eq!(deadlines_of(&failing).await, rows(&[("f", 10)]));
    assert_eq!(deadlines_of(&*inner).await, rows(&[("f", 10)]));
}

/// Startup rebuilds games from `load_playing`: a game in the turn-deadline index (a
/// correspondence game being played) is left out, so that weeks-long games cost startup
/// nothing; it is back once its row is cleared.
pub async fn check_load_playing_leaves_out_games_in_the_index(store: &dyn Store) {
    let ids = |games: Vec<marseillais::server::store::LoadedGame>| -> Vec<String> {
        let mut ids: Vec<String> = games.into_iter().map(|(l, _)| l.id).collect();
        ids.sort();
        ids
    };
    store.commit(commit("live", 0, 2)).await.expect("live");
    store
        .commit(deadline_commit("corr", 0, 2, DeadlineChange::Set(5)))
        .await
        .expect("correspondence");
    assert_eq!(ids(store.load_playing().await.expect("playing")), ["live"]);
    assert_eq!(
        ids(store.load_unfinished().await.expect("unfinished")),
        ["corr", "live"],
        "only load_playing leaves it out"
    );
    store
        .commit(deadline_commit("corr", 2, 1, DeadlineChange::Cleared))
        .await
        .expect("cleared");
    assert_eq!(
        ids(store.load_playing().await.expect("playing")),
        ["corr", "live"]
    );
}

// ---------------------------------------------------------------------------------------------
// Personal settings (schema v5, issue 14).

/// The store keeps one settings object per user, as given (opaque JSON), replaced whole by each
/// save; a user who never saved has none, and one user's save is not another's.
pub async fn check_account_settings_are_kept_per_user_and_replaced_whole(store: &dyn Store) {
    let alice = store
        .create_user(username("alice"), "hash".to_owned(), 1)
        .await
        .expect("alice");
    let bob = store
        .create_user(username("bob"), "hash".to_owned(), 1)
        .await
        .expect("bob");
    assert_eq!(store.account_settings(alice).await.expect("read"), None);
    store
        .set_account_settings(alice, r#"{"theme":"blue"}"#.to_owned(), 10)
        .await
        .expect("save");
    assert_eq!(
        store.account_settings(alice).await.expect("read"),
        Some(r#"{"theme":"blue"}"#.to_owned())
    );
    assert_eq!(store.account_settings(bob).await.expect("read"), None);
    store
        .set_account_settings(alice, r#"{"volume":5}"#.to_owned(), 20)
        .await
        .expect("save again");
    assert_eq!(
        store.account_settings(alice).await.expect("read"),
        Some(r#"{"volume":5}"#.to_owned()),
        "replaced, not merged"
    );
    store
        .set_account_settings(bob, r#"{"sound":false}"#.to_owned(), 30)
        .await
        .expect("bob saves");
    assert_eq!(
        store.account_settings(alice).await.expect("read"),
        Some(r#"{"volume":5}"#.to_owned())
    );
    assert_eq!(
        store.account_settings(bob).await.expect("read"),
        Some(r#"{"sound":false}"#.to_owned())
    );
}

/// Through a [`FailingStore`] a settings save fails while failing and stores nothing (reads pass
/// through); after `close()` a save is refused.
pub async fn check_settings_saves_fail_while_failing_and_after_close(inner: Arc<dyn Store>) {
    let user = inner
        .create_user(username("carol"), "hash".to_owned(), 1)
        .await
        .expect("carol");
    let failing = FailingStore::new(Arc::clone(&inner));
    failing
        .set_account_settings(user, r#"{"theme":"green"}"#.to_owned(), 2)
        .await
        .expect("switch off");
    failing.set_failing(true);
    assert!(matches!(
        failing
            .set_account_settings(user, r#"{"theme":"grey"}"#.to_owned(), 3)
            .await,
        Err(StoreError::Io(_))
    ));
    assert_eq!(
        failing
            .account_settings(user)
            .await
            .expect("reads pass through"),
        Some(r#"{"theme":"green"}"#.to_owned())
    );
    inner.close().await;
    assert!(matches!(
        inner
            .set_account_settings(user, r#"{"theme":"grey"}"#.to_owned(), 4)
            .await,
        Err(StoreError::Closed)
    ));
}

// ---------------------------------------------------------------------------------------------
// Ownership leases and fencing (issue 13). The `check_*` below hold for a store several nodes
// share (Postgres); a one-node store (SQLite, MemoryStore) keeps the trait's defaults, checked
// by `check_a_one_node_store_grants_every_claim_and_knows_no_other_node`.

/// A lease long enough never to run out during a test.
pub const LONG_LEASE: Duration = Duration::from_secs(600);

/// A lease short enough to wait out (bounded by [`wait_until_unowned`]).
pub const SHORT_LEASE: Duration = Duration::from_millis(200);

fn fence(node: &str, epoch: i64) -> Fence {
    Fence {
        node: node.to_owned(),
        epoch,
    }
}

/// The commit of [`commit`] under `fence`.
pub fn fenced_commit(game: &str, first_seq: u64, count: u64, fence: &Fence) -> Commit {
    let mut c = commit(game, first_seq, count);
    c.fence = Some(fence.clone());
    c
}

/// Claims `game` for `node` and returns its fence; panics if another node holds it.
pub async fn owned(store: &dyn Store, game: &str, node: &str, ttl: Duration) -> Fence {
    match store.claim_game(game, node, ttl).await.expect("claim") {
        Claim::Owned(fence) => fence,
        Claim::Held(holder) => panic!("{node} expected to own {game}, held by {holder:?}"),
    }
}

/// Waits (bounded: 400 polls of 25 ms, far beyond [`SHORT_LEASE`]) until nobody holds a live
/// lease on `game`.
pub async fn wait_until_unowned(store: &dyn Store, game: &str) {
    for _ in 0..400 {
        if store.game_owner(game).await.expect("game_owner").is_none() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the lease on {game} never ran out");
}

pub async fn check_a_free_game_is_owned_at_epoch_one_and_held_against_other_nodes(
    store: &dyn Store,
) {
    assert_eq!(store.game_owner("g").await.expect("owner"), None);
    let a = owned(store, "g", "node-a", LONG_LEASE).await;
    assert_eq!(a, fence("node-a", 1));
    assert_eq!(store.game_owner("g").await.expect("owner"), Some(a.clone()));
    // Another node is told who holds it.
    assert_eq!(
        store
            .claim_game("g", "node-b", LONG_LEASE)
            .await
            .expect("claim"),
        Claim::Held(a.clone())
    );
    // The same node again is the same owner: the epoch stays (its own commits stay valid).
    assert_eq!(owned(store, "g", "node-a", LONG_LEASE).await, a);
    // A game that is not in the store at all is still granted (the caller checks).
    assert_eq!(
        owned(store, "never-stored", "node-b", LONG_LEASE).await,
        fence("node-b", 1)
    );
}

pub async fn check_an_expired_lease_is_taken_over_at_the_next_epoch(store: &dyn Store) {
    owned(store, "g", "node-a", SHORT_LEASE).await;
    wait_until_unowned(store, "g").await;
    assert_eq!(
        owned(store, "g", "node-b", LONG_LEASE).await,
        fence("node-b", 2)
    );
    // The old owner coming back is told it lost the game.
    assert_eq!(
        store
            .claim_game("g", "node-a", LONG_LEASE)
            .await
            .expect("claim"),
        Claim::Held(fence("node-b", 2))
    );
}

pub async fn check_a_commit_under_a_stale_fence_is_fenced_and_stores_nothing(store: &dyn Store) {
    let a = owned(store, "g", "node-a", SHORT_LEASE).await;
    store
        .commit(fenced_commit("g", 0, 2, &a))
        .await
        .expect("the owner commits");
    wait_until_unowned(store, "g").await;
    // A lapsed lease nobody took over still fences nothing: the owner may write.
    store
        .commit(fenced_commit("g", 2, 1, &a))
        .await
        .expect("a lapsed owner nobody replaced commits");
    let b = owned(store, "g", "node-b", LONG_LEASE).await;
    match store.commit(fenced_commit("g", 3, 1, &a)).await {
        Err(StoreError::Fenced { game_id }) => assert_eq!(game_id, "g"),
        other => panic!("expected Fenced, got {other:?}"),
    }
    assert_eq!(events_of(store, "g").await, expected_events("g", 3));
    // The new owner's fence commits at the same sequence number.
    store
        .commit(fenced_commit("g", 3, 2, &b))
        .await
        .expect("the new owner commits");
    assert_eq!(events_of(store, "g").await, expected_events("g", 5));
    // A fence on a game never claimed holds nothing.
    match store
        .commit(fenced_commit("unclaimed", 0, 1, &fence("node-b", 1)))
        .await
    {
        Err(StoreError::Fenced { game_id }) => assert_eq!(game_id, "unclaimed"),
        other => panic!("expected Fenced, got {other:?}"),
    }
    assert!(store.load_game("unclaimed").await.expect("load").is_none());
    // An unfenced commit (one no room owns) is not checked.
    store
        .commit(commit("g", 5, 1))
        .await
        .expect("an unfenced commit");
    assert_eq!(events_of(store, "g").await, expected_events("g", 6));
}

pub async fn check_a_fenced_unit_fails_alone_in_its_batch(store: &dyn Store) {
    const GAMES: usize = 40;
    const STALE: usize = 17;
    let mut fences = Vec::new();
    for i in 0..GAMES {
        fences.push(owned(store, &format!("g{i}"), "node-a", LONG_LEASE).await);
    }
    // Issued all at once (taken when called), so the writer batches them; one is stale.
    let commits: Vec<_> = fences
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut f = f.clone();
            if i == STALE {
                f.epoch += 1;
            }
            store.commit(fenced_commit(&format!("g{i}"), 0, 3, &f))
        })
        .collect();
    let outcomes = futures_util::future::join_all(commits).await;
    for (i, outcome) in outcomes.into_iter().enumerate() {
        let game = format!("g{i}");
        if i == STALE {
            match outcome {
                Err(StoreError::Fenced { game_id }) => assert_eq!(game_id, game),
                other => panic!("expected Fenced for {game}, got {other:?}"),
            }
            assert!(store.load_game(&game).await.expect("load").is_none());
        } else {
            outcome.expect("an unfenced unit of the batch commits");
            assert_eq!(events_of(store, &game).await, expected_events(&game, 3));
        }
    }
}

pub async fn check_commit_all_with_one_stale_fence_stores_nothing(store: &dyn Store) {
    let a = owned(store, "old", "node-a", LONG_LEASE).await;
    let b = owned(store, "new", "node-b", LONG_LEASE).await;
    let stale = fence("node-a", b.epoch);
    match store
        .commit_all(vec![
            fenced_commit("old", 0, 2, &a),
            fenced_commit("new", 0, 2, &stale),
        ])
        .await
    {
        Err(StoreError::Fenced { game_id }) => assert_eq!(game_id, "new"),
        other => panic!("expected Fenced on the new game, got {other:?}"),
    }
    assert!(store.load_game("old").await.expect("load").is_none());
    assert!(store.load_game("new").await.expect("load").is_none());
    store
        .commit_all(vec![
            fenced_commit("old", 0, 2, &a),
            fenced_commit("new", 0, 2, &b),
        ])
        .await
        .expect("both fences hold");
    assert_eq!(events_of(store, "new").await, expected_events("new", 2));
}

pub async fn check_renewal_returns_held_leases_and_does_not_revive_an_expired_one(
    store: &dyn Store,
) {
    let kept = owned(store, "kept", "node-a", LONG_LEASE).await;
    let lapsed = owned(store, "lapsed", "node-a", SHORT_LEASE).await;
    owned(store, "other", "node-b", LONG_LEASE).await;
    wait_until_unowned(store, "lapsed").await;
    let held = store
        .renew_leases("node-a", LONG_LEASE)
        .await
        .expect("renew");
    assert_eq!(held, vec![("kept".to_owned(), kept.epoch)]);
    assert_eq!(store.game_owner("lapsed").await.expect("owner"), None);
    // A renewal sets the expiry from now: renewed for a short time, the lease is waited out.
    let held = store
        .renew_leases("node-a", SHORT_LEASE)
        .await
        .expect("renew");
    assert_eq!(held, vec![("kept".to_owned(), kept.epoch)]);
    wait_until_unowned(store, "kept").await;
    assert_eq!(
        store
            .renew_leases("node-a", LONG_LEASE)
            .await
            .expect("renew"),
        Vec::new()
    );
    // Re-claimed by its lapsed owner, the lease is a new one (the epoch moves on).
    assert_eq!(
        owned(store, "lapsed", "node-a", LONG_LEASE).await.epoch,
        lapsed.epoch + 1
    );
}

pub async fn check_a_released_game_is_claimed_by_another_node_at_the_next_epoch(store: &dyn Store) {
    let a = owned(store, "g", "node-a", LONG_LEASE).await;
    // A release under a fence that does not hold is a no-op.
    store
        .release_game("g", fence("node-b", a.epoch))
        .await
        .expect("release");
    assert_eq!(store.game_owner("g").await.expect("owner"), Some(a.clone()));
    store.release_game("g", a.clone()).await.expect("release");
    assert_eq!(store.game_owner("g").await.expect("owner"), None);
    assert_eq!(
        owned(store, "g", "node-b", LONG_LEASE).await,
        fence("node-b", a.epoch + 1)
    );
    // Releasing twice, or a lease since taken over, changes nothing.
    store.release_game("g", a.clone()).await.expect("release");
    assert_eq!(
        store.game_owner("g").await.expect("owner"),
        Some(fence("node-b", a.epoch + 1))
    );
}

pub async fn check_a_restarted_node_gives_up_every_lease_of_its_previous_life(store: &dyn Store) {
    let one = owned(store, "one", "node-a", LONG_LEASE).await;
    let two = owned(store, "two", "node-a", LONG_LEASE).await;
    let other = owned(store, "three", "node-b", LONG_LEASE).await;
    assert_eq!(store.release_node("node-a").await.expect("release"), 2);
    assert_eq!(store.game_owner("one").await.expect("owner"), None);
    assert_eq!(store.game_owner("two").await.expect("owner"), None);
    assert_eq!(store.game_owner("three").await.expect("owner"), Some(other));
    // Nothing left to renew; the next claim, by anyone, is at the next epoch.
    assert_eq!(
        store
            .renew_leases("node-a", LONG_LEASE)
            .await
            .expect("renew"),
        Vec::new()
    );
    assert_eq!(
        owned(store, "one", "node-a", LONG_LEASE).await.epoch,
        one.epoch + 1
    );
    assert_eq!(
        owned(store, "two", "node-b", LONG_LEASE).await,
        fence("node-b", two.epoch + 1)
    );
    assert_eq!(store.release_node("node-a").await.expect("again"), 1);
}

pub async fn check_orphaned_games_are_live_games_no_node_holds(store: &dyn Store) {
    for (id, status, deadline) in [
        ("open", GameStatus::Open, None),
        ("finished", GameStatus::Finished, None),
        ("correspondence", GameStatus::Playing, Some(9_000_000)),
        ("unclaimed", GameStatus::Playing, None),
        ("held", GameStatus::Playing, None),
        ("lapsed", GameStatus::Playing, None),
    ] {
        let mut c = commit(id, 0, 1);
        c.listing.status = status;
        if let Some(at) = deadline {
            c.deadline = DeadlineChange::Set(at);
        }
        store.commit(c).await.expect("commit");
    }
    owned(store, "held", "node-a", LONG_LEASE).await;
    owned(store, "lapsed", "node-a", SHORT_LEASE).await;
    owned(store, "correspondence", "node-a", SHORT_LEASE).await;
    wait_until_unowned(store, "lapsed").await;
    wait_until_unowned(store, "correspondence").await;
    // Never claimed first, then the oldest expiry.
    assert_eq!(
        store.orphaned_games(10).await.expect("orphans"),
        vec!["unclaimed".to_owned(), "lapsed".to_owned()]
    );
    assert_eq!(
        store.orphaned_games(1).await.expect("orphans"),
        vec!["unclaimed".to_owned()]
    );
    owned(store, "unclaimed", "node-b", LONG_LEASE).await;
    assert_eq!(
        store.orphaned_games(10).await.expect("orphans"),
        vec!["lapsed".to_owned()]
    );
}

pub async fn check_live_nodes_are_those_renewed_within_their_ttl(store: &dyn Store) {
    assert_eq!(
        store.live_nodes().await.expect("nodes"),
        Vec::<String>::new()
    );
    store
        .renew_leases("node-b", LONG_LEASE)
        .await
        .expect("renew");
    store
        .renew_leases("node-a", LONG_LEASE)
        .await
        .expect("renew");
    store
        .renew_leases("node-c", SHORT_LEASE)
        .await
        .expect("renew");
    let nodes = store.live_nodes().await.expect("nodes");
    // node-c may already have lapsed on a slow machine; a and b cannot have.
    assert!(
        nodes == ["node-a", "node-b", "node-c"] || nodes == ["node-a", "node-b"],
        "{nodes:?}"
    );
    for _ in 0..400 {
        if store.live_nodes().await.expect("nodes") == ["node-a", "node-b"] {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("node-c never stopped being alive");
}

pub async fn check_concurrent_claims_of_one_game_have_exactly_one_winner(store: Arc<dyn Store>) {
    const NODES: usize = 8;
    for round in 0..5 {
        let game = format!("g{round}");
        let barrier = Arc::new(tokio::sync::Barrier::new(NODES));
        let claims: Vec<_> = (0..NODES)
            .map(|n| {
                let (store, barrier, game) =
                    (Arc::clone(&store), Arc::clone(&barrier), game.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    store
                        .claim_game(&game, &format!("node-{n}"), LONG_LEASE)
                        .await
                })
            })
            .collect();
        let mut winners = Vec::new();
        let mut holders = Vec::new();
        for claim in claims {
            match claim.await.expect("task").expect("claim") {
                Claim::Owned(f) => winners.push(f),
                Claim::Held(f) => holders.push(f),
            }
        }
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        assert_eq!(winners[0].epoch, 1);
        assert!(holders.iter().all(|h| *h == winners[0]), "{holders:?}");
        assert_eq!(
            store.game_owner(&game).await.expect("owner"),
            Some(winners[0].clone())
        );
    }
}

pub async fn check_a_takeover_during_a_fenced_commit_never_leaves_it_stored_but_unseen(
    store: Arc<dyn Store>,
) {
    const ROUNDS: usize = 12;
    let mut stored = 0;
    let mut fenced = 0;
    for round in 0..ROUNDS {
        let game = format!("g{round}");
        let a = owned(&*store, &game, "node-a", SHORT_LEASE).await;
        store
            .commit(fenced_commit(&game, 0, 1, &a))
            .await
            .expect("first commit");
        wait_until_unowned(&*store, &game).await;
        // The stale owner's commit and the takeover, at once.
        let in_flight = store.commit(fenced_commit(&game, 1, 2, &a));
        let takeover = {
            let (store, game) = (Arc::clone(&store), game.clone());
            tokio::spawn(async move {
                let b = owned(&*store, &game, "node-b", LONG_LEASE).await;
                let (_, events) = store
                    .load_game(&game)
                    .await
                    .expect("load")
                    .expect("the game is stored");
                (b, events)
            })
        };
        let committed = in_flight.await;
        let (b, seen) = takeover.await.expect("task");
        assert_eq!(b.epoch, a.epoch + 1);
        match committed {
            Ok(()) => {
                stored += 1;
                assert_eq!(seen, expected_events(&game, 3), "round {round}: unseen");
            }
            Err(StoreError::Fenced { .. }) => {
                fenced += 1;
                assert_eq!(seen, expected_events(&game, 1), "round {round}");
            }
            Err(other) => panic!("round {round}: {other:?}"),
        }
        assert_eq!(
            events_of(&*store, &game).await,
            seen,
            "round {round}: the new owner's load is the log"
        );
    }
    assert_eq!(stored + fenced, ROUNDS);
}

/// The trait's defaults, what a store only one node ever uses keeps (SQLite, MemoryStore).
pub async fn check_a_one_node_store_grants_every_claim_and_knows_no_other_node(store: &dyn Store) {
    for node in ["node-a", "node-b"] {
        assert!(matches!(
            store
                .claim_game("g", node, LONG_LEASE)
                .await
                .expect("claim"),
            Claim::Owned(_)
        ));
    }
    assert_eq!(store.game_owner("g").await.expect("owner"), None);
    assert_eq!(
        store
            .renew_leases("node-a", LONG_LEASE)
            .await
            .expect("renew"),
        Vec::new()
    );
    store.commit(commit("g", 0, 1)).await.expect("commit");
    assert_eq!(
        store.orphaned_games(10).await.expect("orphans"),
        Vec::<String>::new()
    );
    assert_eq!(
        store.live_nodes().await.expect("nodes"),
        Vec::<String>::new()
    );
}

/// A rated end does not go down the pipelined path (writer.rs writes it in a savepoint of its
/// own): the fence is checked there too, and a fenced end rates nobody.
pub async fn check_a_rated_end_under_a_stale_fence_is_fenced_and_rates_nobody(store: &dyn Store) {
    let white = store
        .create_user(username("wendy"), "h".to_owned(), 1)
        .await
        .expect("white");
    let black = store
        .create_user(username("boris"), "h".to_owned(), 1)
        .await
        .expect("black");
    let a = owned(store, "g", "node-a", SHORT_LEASE).await;
    store
        .commit(fenced_commit("g", 0, 1, &a))
        .await
        .expect("the owner commits");
    wait_until_unowned(store, "g").await;
    let b = owned(store, "g", "node-b", LONG_LEASE).await;
    let rated_end = |f: &Fence| {
        let mut c = fenced_commit("g", 1, 1, f);
        c.listing.status = GameStatus::Finished;
        c.rating = Some(RatedEnd {
            white,
            black,
            speed: Speed::Blitz,
            score_white: 1.0,
        });
        c
    };
    match store.commit(rated_end(&a)).await {
        Err(StoreError::Fenced { game_id }) => assert_eq!(game_id, "g"),
        other => panic!("expected Fenced, got {other:?}"),
    }
    assert_eq!(events_of(store, "g").await, expected_events("g", 1));
    assert_eq!(store.game_rating("g").await.expect("rating"), None);
    assert_eq!(store.ratings(white).await.expect("ratings"), Vec::new());
    store
        .commit(rated_end(&b))
        .await
        .expect("the new owner ends the game");
    assert!(store.game_rating("g").await.expect("rating").is_some());
}
