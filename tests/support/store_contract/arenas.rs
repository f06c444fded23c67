//! The contract of arena tournaments (SQLite schema v7, Postgres v4; issue 29): an arena is
//! made once under its id, listed by range, its players kept in join order with their first
//! join's time and rating, its games the games rows that name it, in the order they were made.

use std::sync::Arc;

use marseillais::server::domain::user::UserId;
use marseillais::server::store::{
    ArenaPlayer, ArenaRange, ArenaRecord, FailingStore, GameStatus, Store, StoreError,
};

use super::accounts::{seated_commit, username};
use super::commit;

pub fn arena(id: &str, starts_ms: i64, ends_ms: i64, creator: Option<UserId>) -> ArenaRecord {
    ArenaRecord {
        id: id.to_owned(),
        creator,
        terms: format!(r#"{{"name":"{id}"}}"#),
        starts_ms,
        ends_ms,
        created_ms: 1,
    }
}

fn player(user: UserId, name: &str, joined_ms: i64, rating: i32, withdrawn: bool) -> ArenaPlayer {
    ArenaPlayer {
        user,
        name: username(name),
        joined_ms,
        rating,
        withdrawn,
    }
}

/// An arena is stored once: making it again under the same id changes nothing and says so.
/// The lists hold the unfinished arenas soonest first and the finished ones latest first.
pub async fn check_arenas_are_made_once_and_listed_by_range(store: &dyn Store) {
    let ann = store
        .create_user(username("ann"), "hash".into(), 1)
        .await
        .expect("ann");
    let early = arena("early", 100, 200, None);
    let late = arena("late", 150, 400, Some(ann));
    let over = arena("over", 10, 50, None);
    for a in [&late, &early, &over] {
        assert!(store.create_arena(a.clone()).await.expect("made"));
    }
    let mut again = early.clone();
    again.terms = "{}".into();
    assert!(
        !store.create_arena(again).await.expect("refused quietly"),
        "a second arena with an existing id is not made"
    );
    assert_eq!(
        store.arena("early").await.expect("read"),
        Some(early.clone())
    );
    assert_eq!(store.arena("nowhere").await.expect("read"), None);
    assert_eq!(
        store
            .arenas(ArenaRange::Unfinished { now_ms: 60 }, 10)
            .await
            .expect("unfinished"),
        [early.clone(), late.clone()]
    );
    assert_eq!(
        store
            .arenas(ArenaRange::Unfinished { now_ms: 200 }, 10)
            .await
            .expect("unfinished at the end of one"),
        std::slice::from_ref(&late),
        "an arena is over at its end"
    );
    assert_eq!(
        store
            .arenas(ArenaRange::Finished { now_ms: 200 }, 10)
            .await
            .expect("finished"),
        [early.clone(), over.clone()]
    );
    assert_eq!(
        store
            .arenas(ArenaRange::Finished { now_ms: 1000 }, 1)
            .await
            .expect("limited"),
        [late]
    );
}

/// Players come back in the order they first joined; joining again after withdrawing keeps
/// the first join's time and rating; each user's arenas list the last to start first.
pub async fn check_arena_players_keep_their_first_join(store: &dyn Store) {
    let ann = store
        .create_user(username("ann"), "hash".into(), 1)
        .await
        .expect("ann");
    let bob = store
        .create_user(username("bob"), "hash".into(), 1)
        .await
        .expect("bob");
    for a in [arena("a", 100, 200, None), arena("b", 300, 400, None)] {
        store.create_arena(a).await.expect("made");
    }
    store
        .set_arena_player("a", player(bob, "bob", 20, 1600, false))
        .await
        .expect("bob joins");
    store
        .set_arena_player("a", player(ann, "ann", 30, 1400, false))
        .await
        .expect("ann joins");
    store
        .set_arena_player("a", player(bob, "bob", 40, 1700, true))
        .await
        .expect("bob withdraws");
    assert_eq!(
        store.arena_players("a").await.expect("players"),
        [
            player(bob, "bob", 20, 1600, true),
            player(ann, "ann", 30, 1400, false)
        ]
    );
    store
        .set_arena_player("a", player(bob, "bob", 50, 1800, false))
        .await
        .expect("bob joins again");
    assert_eq!(
        store.arena_players("a").await.expect("players")[0],
        player(bob, "bob", 20, 1600, false)
    );
    store
        .set_arena_player("b", player(bob, "bob", 310, 1600, false))
        .await
        .expect("bob joins b");
    let bobs: Vec<String> = store
        .user_arenas(bob, 10)
        .await
        .expect("bob's")
        .into_iter()
        .map(|a| a.id)
        .collect();
    assert_eq!(bobs, ["b", "a"]);
    let anns: Vec<String> = store
        .user_arenas(ann, 10)
        .await
        .expect("ann's")
        .into_iter()
        .map(|a| a.id)
        .collect();
    assert_eq!(anns, ["a"]);
    assert!(store.arena_players("b").await.expect("b")[0].user == bob);
}

/// An arena's games are the games rows whose first commit named it, in the order they were
/// made, whatever was committed to them since; other games are not among them.
pub async fn check_arena_games_are_the_games_that_name_it(store: &dyn Store) {
    store
        .create_arena(arena("a", 100, 200, None))
        .await
        .expect("made");
    for (id, created_ms, arena_id) in [("g2", 20, Some("a")), ("g1", 10, Some("a")), ("x", 5, None)]
    {
        let mut first = seated_commit(id, 0, created_ms, false, Some(UserId(1)), Some(UserId(2)));
        first.listing.created_ms = created_ms;
        first.listing.arena = arena_id.map(str::to_owned);
        store.commit(first).await.expect("first commit");
    }
    // A later commit of g1 (its listing rewritten, finished) keeps it the arena's.
    let mut end = commit("g1", 1, 1);
    end.listing.status = GameStatus::Finished;
    end.listing.created_ms = 10;
    end.listing.white_user = Some(UserId(1));
    end.listing.black_user = Some(UserId(2));
    end.listing.arena = Some("a".into());
    store.commit(end).await.expect("the end");
    let games = store.arena_games("a").await.expect("games");
    let ids: Vec<&str> = games.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, ["g1", "g2"]);
    assert_eq!(games[0].status, GameStatus::Finished);
    assert!(games.iter().all(|g| g.arena.as_deref() == Some("a")));
    assert!(store.arena_games("b").await.expect("none").is_empty());
}

/// Under failure injection, and after close, the arena writes store nothing.
pub async fn check_arena_writes_fail_while_failing_and_after_close(inner: Arc<dyn Store>) {
    let ann = inner
        .create_user(username("ann"), "hash".into(), 1)
        .await
        .expect("ann");
    inner
        .create_arena(arena("a", 100, 200, None))
        .await
        .expect("made");
    let failing = FailingStore::new(Arc::clone(&inner));
    failing.set_failing(true);
    assert!(matches!(
        failing.create_arena(arena("b", 1, 2, None)).await,
        Err(StoreError::Io(_))
    ));
    assert!(matches!(
        failing
            .set_arena_player("a", player(ann, "ann", 1, 1500, false))
            .await,
        Err(StoreError::Io(_))
    ));
    assert_eq!(inner.arena("b").await.expect("read"), None);
    assert!(inner.arena_players("a").await.expect("read").is_empty());
    inner.close().await;
    assert!(inner.create_arena(arena("c", 1, 2, None)).await.is_err());
    assert!(
        inner
            .set_arena_player("a", player(ann, "ann", 1, 1500, false))
            .await
            .is_err()
    );
}
