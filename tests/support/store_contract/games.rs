//! The contract of a game's log and its listing: sequence conflicts, listing and paging by
//! status and time, unfinished, unlisted and stale games, atomic units of several commits,
//! close, and the failure-injecting wrapper.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use marseillais::server::store::{FailingStore, GameListing, GameStatus, Store, StoreError};

use super::accounts::{seated_commit, username};
use super::{commit, events_of, expected_events, listing};

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
