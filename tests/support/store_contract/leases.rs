//! The contract of ownership leases and fencing (issue 13). The `check_*` below hold for a
//! store several nodes share (Postgres); a one-node store (SQLite, MemoryStore) keeps the
//! trait's defaults, checked by `check_a_one_node_store_grants_every_claim_and_knows_no_other_node`.

use std::sync::Arc;
use std::time::Duration;

use marseillais::server::players::rating::Speed;
use marseillais::server::store::{
    Claim, Commit, DeadlineChange, Fence, GameStatus, RatedEnd, Store, StoreError,
};

use super::accounts::username;
use super::{commit, events_of, expected_events};

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
