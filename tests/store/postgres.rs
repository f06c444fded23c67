//! The PostgreSQL store against the store contract (tests/support/store_contract: the same
//! tests as every backend, and the lease and fencing checks of a store several nodes share),
//! against a real Postgres: run through `scripts/test-services.sh` (which sets
//! MARSEILLAIS_TEST_POSTGRES); each test gets a database of its own. Plus what is Postgres's own: durability across reopening, the writer's batching,
//! migrations (two nodes starting at once, a newer schema refused), and Postgres becoming
//! unreachable mid-way and coming back.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use marseillais::server::store::postgres::{SCHEMA_VERSION, migrate_to};
use marseillais::server::store::{DeadlineChange, GameStatus, PostgresStore, Store, StoreError};
use support::postgres::{Proxy, TestDatabase, server_url};
use support::store_contract::*;

/// A fresh database and the store on it, or None when the test is skipped.
async fn fresh(label: &str) -> Option<(TestDatabase, PostgresStore)> {
    let server = server_url(label)?;
    let db = TestDatabase::create(&server, label).await;
    let store = PostgresStore::open(&db.url).await.expect("open the store");
    Some((db, store))
}

crate::store_contract_tests!(fresh, shared);

// ---------------------------------------------------------------------------------------------
// Postgres's own.

#[tokio::test]
async fn committed_events_users_and_chat_are_found_after_reopening() {
    use marseillais::server::chat::ChatRoom;
    let Some((db, store)) = fresh("reopen").await else {
        return;
    };
    bounded(async {
        store.commit(commit("g1", 0, 3)).await.expect("g1 0..3");
        store.commit(commit("g2", 0, 1)).await.expect("g2 0..1");
        store.commit(commit("g1", 3, 2)).await.expect("g1 3..5");
        let alice = store
            .create_user(username("alice"), "hash-a".to_owned(), 5)
            .await
            .expect("alice");
        let line = chat_line(Some("g1"), ChatRoom::Player, 5, "still here");
        let id = store.append_chat(line.clone()).await.expect("chat");
        store.close().await;

        let store = PostgresStore::open(&db.url).await.expect("reopen");
        let (l1, e1) = store.load_game("g1").await.expect("load").expect("g1");
        assert_eq!(e1, expected_events("g1", 5));
        assert_eq!(l1, commit("g1", 3, 2).listing);
        assert_eq!(events_of(&store, "g2").await, expected_events("g2", 1));
        assert!(store.load_game("g3").await.expect("load").is_none());
        let found = store.find_user(&username("ALICE")).await.expect("find");
        assert_eq!(found.map(|u| u.account.id), Some(alice));
        let lines = store
            .recent_chat(Some("g1"), ChatRoom::Player, 50)
            .await
            .expect("chat");
        assert_eq!(lines, [line.stored(id)]);
        // The sequence carries on where it stopped.
        store.commit(commit("g1", 5, 1)).await.expect("g1 5");
        assert_eq!(events_of(&store, "g1").await, expected_events("g1", 6));
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn events_are_stored_as_text_byte_for_byte() {
    let Some((db, store)) = fresh("bytes").await else {
        return;
    };
    // Key order, spacing and escapes that jsonb would rewrite.
    let odd = r#"{"z":1,  "a":"\u00e9\n","k":"move" ,"dup":1,"dup":2}"#.to_owned();
    let mut c = commit("b", 0, 1);
    c.events = vec![odd.clone()];
    bounded(store.commit(c)).await.expect("commit");
    assert_eq!(
        bounded(events_of(&store, "b")).await,
        std::slice::from_ref(&odd)
    );
    let raw = db.connect().await;
    let row = raw
        .query_one("SELECT payload, pg_typeof(payload)::text FROM events", &[])
        .await
        .expect("raw read");
    assert_eq!(row.get::<_, String>(0), odd);
    assert_eq!(row.get::<_, String>(1), "text");
    bounded(store.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_games_committing_at_once_are_all_durable_in_order_and_batched() {
    const GAMES: u64 = 200;
    const EVENTS: u64 = 20;
    let Some((db, store)) = fresh("many").await else {
        return;
    };
    bounded(async {
        let store = Arc::new(store);
        let tasks: Vec<_> = (0..GAMES)
            .map(|g| {
                let store = Arc::clone(&store);
                tokio::spawn(async move {
                    let id = format!("game-{g}");
                    for seq in 0..EVENTS {
                        store.commit(commit(&id, seq, 1)).await?;
                    }
                    Ok::<_, StoreError>(())
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("task").expect("every commit succeeds");
        }
        let stats = store.stats();
        assert_eq!(stats.commits, GAMES * EVENTS);
        assert!(
            stats.batches < stats.commits,
            "concurrent commits should share transactions: {stats:?}"
        );
        store.close().await;

        let store = PostgresStore::open(&db.url).await.expect("reopen");
        let games = store.load_unfinished().await.expect("load_unfinished");
        assert_eq!(games.len() as u64, GAMES);
        for (listing, events) in games {
            assert_eq!(events, expected_events(&listing.id, EVENTS));
        }
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn pipelined_commits_of_one_game_apply_in_call_order() {
    let Some((_db, store)) = fresh("pipeline").await else {
        return;
    };
    bounded(async {
        let pending: Vec<_> = (0..50)
            .map(|seq| store.commit(commit("p", seq, 1)))
            .collect();
        for outcome in futures_util::future::join_all(pending).await {
            outcome.expect("in-order pipelined commit");
        }
        assert_eq!(events_of(&store, "p").await, expected_events("p", 50));
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn a_conflicting_commit_fails_alone_and_the_rest_of_its_batch_is_stored() {
    let Some((_db, store)) = fresh("conflict_batch").await else {
        return;
    };
    bounded(async {
        let mut pending = Vec::new();
        for g in 0..30 {
            pending.push(store.commit(commit(&format!("ok-{g}"), 0, 2)));
            if g == 15 {
                pending.push(store.commit(commit("bad", 7, 1)));
            }
        }
        let outcomes = futures_util::future::join_all(pending).await;
        let conflicts = outcomes
            .iter()
            .filter(|o| matches!(o, Err(StoreError::Conflict { .. })))
            .count();
        let oks = outcomes.iter().filter(|o| o.is_ok()).count();
        assert_eq!((conflicts, oks), (1, 30));
        for g in 0..30 {
            let id = format!("ok-{g}");
            assert_eq!(events_of(&store, &id).await, expected_events(&id, 2));
        }
        assert!(store.load_game("bad").await.expect("load").is_none());
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn a_conflict_in_the_middle_of_a_pipelined_batch_fails_alone_and_the_units_around_it_are_stored_in_order()
 {
    let Some((_db, store)) = fresh("pipeline_conflict").await else {
        return;
    };
    bounded(async {
        // All issued before the writer runs: one batch, one pipelined run.
        let mut pending = Vec::new();
        for seq in 0..12 {
            pending.push(store.commit(commit("g", seq, 1)));
            if seq == 5 {
                // Stale: g is at 6 by then, counting the units of this batch before it.
                pending.push(store.commit(commit("g", 3, 1)));
                // A unit whose second commit conflicts stores neither.
                pending.push(store.commit_all(vec![commit("h", 0, 2), commit("g", 9, 1)]));
            }
        }
        let outcomes = futures_util::future::join_all(pending).await;
        assert_eq!(store.stats().batches, 1, "one batch");
        assert!(matches!(
            &outcomes[6],
            Err(StoreError::Conflict { game_id, expected: 6, got: 3 }) if game_id == "g"
        ));
        assert!(matches!(
            &outcomes[7],
            Err(StoreError::Conflict { game_id, expected: 6, got: 9 }) if game_id == "g"
        ));
        let oks = outcomes.iter().filter(|o| o.is_ok()).count();
        assert_eq!(oks, 12);
        assert_eq!(events_of(&store, "g").await, expected_events("g", 12));
        assert!(store.load_game("h").await.expect("load").is_none());
        let (listing, _) = store.load_game("g").await.expect("load").expect("g");
        assert_eq!(listing.updated_ms, 2_000 + 11, "the last unit's listing");
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn a_unit_postgres_refuses_in_a_pipelined_batch_fails_alone_and_the_others_are_stored() {
    let Some((_db, store)) = fresh("pipeline_refused").await else {
        return;
    };
    bounded(async {
        let mut pending = Vec::new();
        for g in 0..10 {
            pending.push(store.commit(commit(&format!("ok-{g}"), 0, 2)));
            if g == 4 {
                // Postgres refuses a NUL byte in text (SQLSTATE 22021): a fault of this unit.
                let mut bad = commit("nul", 0, 2);
                bad.events[1] = "{\"bad\":\"\u{0}\"}".to_owned();
                pending.push(store.commit(bad));
            }
        }
        let outcomes = futures_util::future::join_all(pending).await;
        assert!(
            matches!(&outcomes[5], Err(StoreError::Io(_))),
            "{:?}",
            outcomes[5]
        );
        assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 10);
        assert_eq!(store.stats().failed_batches, 0);
        for g in 0..10 {
            let id = format!("ok-{g}");
            assert_eq!(events_of(&store, &id).await, expected_events(&id, 2));
        }
        assert!(store.load_game("nul").await.expect("load").is_none());
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn within_one_batch_a_games_last_deadline_change_and_listing_win() {
    let Some((_db, store)) = fresh("pipeline_last_wins").await else {
        return;
    };
    bounded(async {
        let with = |game: &str, seq: u64, deadline: DeadlineChange| {
            let mut c = commit(game, seq, 1);
            c.deadline = deadline;
            c
        };
        store
            .commit(with("cleared", 0, DeadlineChange::Set(50)))
            .await
            .expect("first batch");
        let pending = vec![
            store.commit(with("set", 0, DeadlineChange::Set(100))),
            store.commit(with("cleared", 1, DeadlineChange::Unchanged)),
            store.commit(with("set", 1, DeadlineChange::Cleared)),
            store.commit(with("cleared", 2, DeadlineChange::Cleared)),
            store.commit(with("set", 2, DeadlineChange::Set(300))),
            store.commit(with("set", 3, DeadlineChange::Unchanged)),
            store.commit(with("cleared", 3, DeadlineChange::Unchanged)),
        ];
        for outcome in futures_util::future::join_all(pending).await {
            outcome.expect("in order");
        }
        assert_eq!(
            store.turn_deadlines().await.expect("deadlines"),
            vec![("set".to_owned(), 300)]
        );
        for game in ["set", "cleared"] {
            let (listing, events) = store.load_game(game).await.expect("load").expect(game);
            assert_eq!(listing.updated_ms, 2_003);
            assert_eq!(events, expected_events(game, 4));
        }
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn close_writes_every_commit_issued_before_it() {
    let Some((db, store)) = fresh("drain").await else {
        return;
    };
    bounded(async {
        let pending: Vec<_> = (0..100)
            .map(|g| store.commit(commit(&format!("d-{g}"), 0, 1)))
            .collect();
        store.close().await;
        for outcome in futures_util::future::join_all(pending).await {
            outcome.expect("issued before close, so written");
        }
        let store = PostgresStore::open(&db.url).await.expect("reopen");
        assert_eq!(store.load_unfinished().await.expect("load").len(), 100);
        store.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_starting_at_once_migrate_the_schema_once() {
    let Some(server) = server_url("migrate_race") else {
        return;
    };
    let db = TestDatabase::create(&server, "migrate_race").await;
    let opens: Vec<_> = (0..4)
        .map(|_| {
            let url = db.url.clone();
            tokio::spawn(async move { PostgresStore::open(&url).await })
        })
        .collect();
    let mut stores = Vec::new();
    for open in opens {
        stores.push(
            bounded(open)
                .await
                .expect("task")
                .expect("every node opens the store"),
        );
    }
    let raw = db.connect().await;
    let versions = raw
        .query("SELECT version FROM schema_version", &[])
        .await
        .expect("read the version");
    assert_eq!(versions.len(), 1);
    assert_eq!(versions[0].get::<_, i32>(0), SCHEMA_VERSION);
    for store in stores {
        bounded(store.close()).await;
    }
}

#[tokio::test]
async fn a_database_with_a_newer_schema_version_is_refused() {
    let Some((db, store)) = fresh("newer_schema").await else {
        return;
    };
    bounded(store.close()).await;
    let raw = db.connect().await;
    raw.execute("UPDATE schema_version SET version = 99", &[])
        .await
        .expect("set version");
    match bounded(PostgresStore::open(&db.url)).await {
        Err(StoreError::Io(message)) => assert!(message.contains("99"), "{message}"),
        Err(other) => panic!("expected Io, got {other:?}"),
        Ok(_) => panic!("a newer schema must be refused"),
    }
}

#[tokio::test]
async fn an_unreachable_postgres_is_a_storage_failure_at_open() {
    // A port nothing listens on (bound, then released).
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    match bounded(PostgresStore::open(&format!(
        "postgres://nobody@127.0.0.1:{port}/none"
    )))
    .await
    {
        Err(StoreError::Io(message)) => {
            assert!(message.contains("unreachable"), "{message}")
        }
        Err(other) => panic!("expected Io, got {other:?}"),
        Ok(_) => panic!("nothing listens there"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_postgres_is_unreachable_commits_fail_store_nothing_and_work_again_after() {
    const GAMES: u64 = 10;
    let Some(server) = server_url("outage") else {
        return;
    };
    let db = TestDatabase::create(&server, "outage").await;
    let proxy = Proxy::start(&server).await;
    bounded(async {
        let store = Arc::new(
            PostgresStore::open(&db.url_through(&proxy))
                .await
                .expect("open through the proxy"),
        );
        for g in 0..GAMES {
            store
                .commit(commit(&format!("o-{g}"), 0, 2))
                .await
                .expect("before the outage");
        }

        proxy.cut();
        // Commits and reads during the outage: every one fails with the storage error.
        let pending: Vec<_> = (0..GAMES)
            .map(|g| store.commit(commit(&format!("o-{g}"), 2, 3)))
            .collect();
        for outcome in futures_util::future::join_all(pending).await {
            match outcome {
                Err(StoreError::Io(_)) => {}
                other => panic!("expected a storage failure, got {other:?}"),
            }
        }
        match store.commit(commit("new", 0, 1)).await {
            Err(StoreError::Io(_)) => {}
            other => panic!("expected a storage failure, got {other:?}"),
        }
        assert!(matches!(
            store.load_game("o-0").await,
            Err(StoreError::Io(_))
        ));

        // Nothing of those commits was written: seen directly, not through the proxy.
        let raw = db.connect().await;
        let count: i64 = raw
            .query_one("SELECT count(*) FROM events", &[])
            .await
            .expect("count")
            .get(0);
        assert_eq!(count as u64, GAMES * 2);

        proxy.restore();
        // The pool opens new connections: the same commits now succeed (a bounded number of
        // tries: the first batch after the outage may still meet a connection that died).
        let mut retried = 0;
        for g in 0..GAMES {
            let id = format!("o-{g}");
            let mut tries = 0;
            loop {
                match store.commit(commit(&id, 2, 3)).await {
                    Ok(()) => break,
                    Err(StoreError::Io(e)) if tries < 3 => {
                        tries += 1;
                        retried += 1;
                        eprintln!("retry after the outage: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    Err(other) => panic!("after the outage: {other:?}"),
                }
            }
        }
        assert!(retried <= 3, "{retried} commits needed a retry");
        for g in 0..GAMES {
            let id = format!("o-{g}");
            assert_eq!(events_of(&*store, &id).await, expected_events(&id, 5));
        }
        assert!(store.load_game("new").await.expect("load").is_none());
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn list_of_a_status_reads_only_listed_rows() {
    // A quick check of the listing query on Postgres's boolean column beside the contract's.
    let Some((_db, store)) = fresh("listed").await else {
        return;
    };
    let mut hidden = commit("hidden", 0, 1);
    hidden.listing.listed = false;
    bounded(store.commit(hidden)).await.expect("hidden");
    bounded(store.commit(commit("shown", 0, 1)))
        .await
        .expect("shown");
    let listed = bounded(store.list(GameStatus::Playing, 10, 0))
        .await
        .expect("list");
    let ids: Vec<_> = listed.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["shown"]);
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_version_2_database_is_migrated_at_open_and_its_games_are_served_unchanged() {
    let Some(server) = server_url("migrate_v2") else {
        return;
    };
    let db = TestDatabase::create(&server, "migrate_v2").await;
    // The database as the previous program left it: schema version 2, one game in it.
    let mut raw = db.connect().await;
    migrate_to(&mut raw, 2)
        .await
        .expect("build schema version 2");
    raw.batch_execute(
        r#"INSERT INTO games (id, status, created_ms, updated_ms, summary, listed)
               VALUES ('old', 'playing', 1000, 2000, '{"id":"old"}', TRUE);
           INSERT INTO events (game_id, seq, payload) VALUES
               ('old', 0, '{"t":"move","game":"old","v":0}'),
               ('old', 1, '{"t":"move","game":"old","v":1}');"#,
    )
    .await
    .expect("a game of version 2");
    let lease_tables = "SELECT count(*) FROM information_schema.tables
         WHERE table_name IN ('game_leases', 'cluster_nodes')";
    let before: i64 = raw
        .query_one(lease_tables, &[])
        .await
        .expect("count tables")
        .get(0);
    assert_eq!(before, 0);

    let store = bounded(PostgresStore::open(&db.url))
        .await
        .expect("open migrates");
    let version: i32 = raw
        .query_one("SELECT version FROM schema_version", &[])
        .await
        .expect("version")
        .get(0);
    assert_eq!(version, SCHEMA_VERSION);
    let after: i64 = raw
        .query_one(lease_tables, &[])
        .await
        .expect("count tables")
        .get(0);
    assert_eq!(after, 2);
    let (listing, events) = bounded(store.load_game("old"))
        .await
        .expect("load")
        .expect("the old game is there");
    assert_eq!(listing.status, GameStatus::Playing);
    assert_eq!(listing.summary, r#"{"id":"old"}"#);
    assert_eq!(events, expected_events("old", 2));
    // And it goes on, under a lease.
    let fence = bounded(owned(&store, "old", "node-a", LONG_LEASE)).await;
    bounded(store.commit(fenced_commit("old", 2, 1, &fence)))
        .await
        .expect("the game goes on");
    assert_eq!(
        bounded(store.orphaned_games(10)).await.expect("orphans"),
        Vec::<String>::new()
    );
    bounded(store.close()).await;
}

/// The lease figures of docs/performance.md ("Leases"): claims per second, one after another,
/// and the time of one renewal of a node holding 1,000 leases. Printed, not asserted (shared
/// machines); what is asserted is that the renewal returns every lease.
#[tokio::test]
async fn a_node_holding_a_thousand_leases_renews_them_all_in_one_statement() {
    const LEASES: usize = 1_000;
    let Some((_db, store)) = fresh("lease_figures").await else {
        return;
    };
    let started = std::time::Instant::now();
    for i in 0..LEASES {
        bounded(owned(&store, &format!("g{i:04}"), "node-a", LONG_LEASE)).await;
    }
    let claiming = started.elapsed();
    let mut renewals = Vec::new();
    for _ in 0..10 {
        let started = std::time::Instant::now();
        let held = bounded(store.renew_leases("node-a", LONG_LEASE))
            .await
            .expect("renew");
        renewals.push(started.elapsed());
        assert_eq!(held.len(), LEASES);
    }
    renewals.sort();
    println!(
        "leases: {LEASES} claims in {claiming:?} ({:.0} claims/s, one at a time); renewal of \
         {LEASES} leases: median {:?}, max {:?}",
        LEASES as f64 / claiming.as_secs_f64(),
        renewals[renewals.len() / 2],
        renewals[renewals.len() - 1]
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_version_3_database_gains_the_arena_tables_and_its_games_belong_to_no_arena() {
    let Some(server) = server_url("migrate_v3") else {
        return;
    };
    let db = TestDatabase::create(&server, "migrate_v3").await;
    // The database as the previous program left it: schema version 3, one game in it.
    let mut raw = db.connect().await;
    migrate_to(&mut raw, 3)
        .await
        .expect("build schema version 3");
    raw.batch_execute(
        r#"INSERT INTO games (id, status, created_ms, updated_ms, summary, listed)
               VALUES ('old', 'finished', 1000, 2000, '{"id":"old"}', TRUE);
           INSERT INTO events (game_id, seq, payload) VALUES
               ('old', 0, '{"t":"move","game":"old","v":0}');"#,
    )
    .await
    .expect("a game of version 3");
    let store = bounded(PostgresStore::open(&db.url))
        .await
        .expect("open migrates");
    let version: i32 = raw
        .query_one("SELECT version FROM schema_version", &[])
        .await
        .expect("version")
        .get(0);
    assert_eq!(version, SCHEMA_VERSION);
    let (listing, _) = bounded(store.load_game("old"))
        .await
        .expect("load")
        .expect("the old game is there");
    assert_eq!(
        (listing.status, listing.arena),
        (GameStatus::Finished, None)
    );
    bounded(check_arena_players_keep_their_first_join(&store)).await;
    assert!(
        bounded(store.arena_games("a"))
            .await
            .expect("read")
            .is_empty(),
        "the old game is no arena's"
    );
    bounded(store.close()).await;
}
