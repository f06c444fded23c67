//! The contract of accounts (schema v3, issue 11): unique usernames, sessions that expire and
//! are touched at most hourly, a user's games, ratings written with the commit that ends a rated
//! game, and account writes under failure injection and after close.

use std::sync::Arc;

use marseillais::server::players::account::{Account, UserId, Username};
use marseillais::server::players::rating::glicko2::rate;
use marseillais::server::players::rating::{Rating, Speed};
use marseillais::server::store::{
    Commit, FailingStore, GameListing, GameStatus, RatedEnd, RatedGame, SESSION_IDLE_MS,
    SESSION_TOUCH_MS, SessionHash, Store, StoreError,
};

use super::{commit, listing};

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
