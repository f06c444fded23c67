//! The contract of playban outcomes (SQLite schema v11, Postgres v8; issue 32): one row per
//! (user, game), the first kept whichever way it comes (a commit's `playban` or
//! `record_playban`), read as the newest of a window, oldest first; writes fail under failure
//! injection.

use std::sync::Arc;

use marseillais::server::domain::user::UserId;
use marseillais::server::store::{
    FailingStore, GameStatus, PlaybanEnd, PlaybanEntry, PlaybanOutcome, Store, StoreError,
};

use super::accounts::username;
use super::{commit, listing};

fn end(game: &str, at_ms: i64, seats: &[(UserId, PlaybanOutcome)]) -> PlaybanEnd {
    PlaybanEnd {
        game_id: game.to_owned(),
        at_ms,
        seats: seats.to_vec(),
    }
}

fn entry(game: &str, outcome: PlaybanOutcome, at_ms: i64) -> PlaybanEntry {
    PlaybanEntry {
        game_id: game.to_owned(),
        outcome,
        at_ms,
    }
}

/// A game's outcome counts once per player, whether it comes with the game's ending commit or
/// again by `record_playban` (a replay, a second node): the first is kept.
pub async fn check_a_games_playban_outcome_counts_once_per_player_whichever_way_it_comes(
    store: &dyn Store,
) {
    let alice = store
        .create_user(username("alice"), "hash".to_owned(), 1)
        .await
        .expect("alice");
    let bob = store
        .create_user(username("bob"), "hash".to_owned(), 1)
        .await
        .expect("bob");
    let mut ending = commit("g1", 0, 2);
    ending.listing = listing("g1", GameStatus::Finished, 5_000);
    ending.playban = Some(end(
        "g1",
        5_000,
        &[(alice, PlaybanOutcome::Abort), (bob, PlaybanOutcome::Good)],
    ));
    store.commit(ending).await.expect("the ending commit");
    let again = store
        .record_playban(end("g1", 9_000, &[(alice, PlaybanOutcome::Leave)]))
        .await
        .expect("again");
    assert_eq!(again, 0, "already counted");
    let added = store
        .record_playban(end("g2", 6_000, &[(alice, PlaybanOutcome::Sitting)]))
        .await
        .expect("another game");
    assert_eq!(added, 1);
    assert_eq!(
        store.playban_outcomes(alice, 0, 100).await.expect("read"),
        [
            entry("g1", PlaybanOutcome::Abort, 5_000),
            entry("g2", PlaybanOutcome::Sitting, 6_000),
        ]
    );
    assert_eq!(
        store.playban_outcomes(bob, 0, 100).await.expect("read"),
        [entry("g1", PlaybanOutcome::Good, 5_000)]
    );
}

/// The read is the newest `limit` of those at or after `since_ms`, oldest first (then by
/// game id).
pub async fn check_playban_outcomes_are_the_newest_of_a_window_oldest_first(store: &dyn Store) {
    let alice = store
        .create_user(username("alice"), "hash".to_owned(), 1)
        .await
        .expect("alice");
    for (game, at) in [("d", 40), ("a", 10), ("c", 30), ("b", 30), ("e", 50)] {
        store
            .record_playban(end(game, at, &[(alice, PlaybanOutcome::Good)]))
            .await
            .expect("record");
    }
    let read = store.playban_outcomes(alice, 20, 3).await.expect("read");
    let games: Vec<&str> = read.iter().map(|e| e.game_id.as_str()).collect();
    assert_eq!(games, ["c", "d", "e"]);
    let read = store.playban_outcomes(alice, 30, 10).await.expect("read");
    let games: Vec<&str> = read.iter().map(|e| e.game_id.as_str()).collect();
    assert_eq!(games, ["b", "c", "d", "e"]);
}

/// Through a [`FailingStore`] recording fails while failing and stores nothing.
pub async fn check_playban_writes_fail_while_failing(inner: Arc<dyn Store>) {
    let user = inner
        .create_user(username("carol"), "hash".to_owned(), 1)
        .await
        .expect("carol");
    let failing = FailingStore::new(Arc::clone(&inner));
    failing.set_failing(true);
    assert!(matches!(
        failing
            .record_playban(end("g", 1, &[(user, PlaybanOutcome::Abort)]))
            .await,
        Err(StoreError::Io(_))
    ));
    assert_eq!(
        failing.playban_outcomes(user, 0, 10).await.expect("reads"),
        []
    );
}
