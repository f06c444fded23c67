//! The SQLite store against its contract (docs: src/server/store/mod.rs): durability across
//! reopen and crash, sequence checks, group commit under many concurrent games, listing, recovery,
//! failure injection and storage failures. Also runs the shared contract checks on MemoryStore.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use marseillais::server::store::{
    Commit, FailingStore, GameListing, GameStatus, MemoryStore, SqliteOptions, SqliteStore, Store,
    StoreError,
};

/// Every test is bounded: a hang is a failure, not a stuck CI job.
const TEST_TIMEOUT: Duration = Duration::from_secs(120);

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "marseillais-store-{label}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        Self(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn listing(id: &str, status: GameStatus, updated_ms: i64) -> GameListing {
    GameListing {
        id: id.to_owned(),
        status,
        created_ms: 1_000,
        updated_ms,
        summary: format!(r#"{{"id":"{id}","updated":{updated_ms}}}"#),
        listed: true,
    }
}

fn event(game: &str, seq: u64) -> String {
    format!(r#"{{"t":"move","game":"{game}","v":{seq}}}"#)
}

/// A commit of `count` events starting at `first_seq`, status Playing.
fn commit(game: &str, first_seq: u64, count: u64) -> Commit {
    Commit {
        game_id: game.to_owned(),
        first_seq,
        events: (first_seq..first_seq + count)
            .map(|seq| event(game, seq))
            .collect(),
        listing: listing(game, GameStatus::Playing, 2_000 + first_seq as i64),
    }
}

fn expected_events(game: &str, count: u64) -> Vec<String> {
    (0..count).map(|seq| event(game, seq)).collect()
}

async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(TEST_TIMEOUT, f)
        .await
        .expect("test took longer than its bound")
}

async fn events_of(store: &dyn Store, game: &str) -> Vec<String> {
    store
        .load_game(game)
        .await
        .expect("load_game")
        .map(|(_, events)| events)
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Contract checks shared by every Store implementation.

async fn check_sequence_conflicts_store_nothing(store: &dyn Store) {
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

async fn check_list_pages_newest_first_by_status(store: &dyn Store) {
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

async fn check_load_unfinished_skips_finished_games(store: &dyn Store) {
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

async fn check_failing_store_fails_commits_and_stores_nothing(inner: Arc<dyn Store>) {
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

async fn check_commit_after_close_is_refused(store: &dyn Store) {
    store.commit(commit("z", 0, 1)).await.expect("before close");
    store.close().await;
    store.close().await;
    assert!(matches!(
        store.commit(commit("z", 1, 1)).await,
        Err(StoreError::Closed)
    ));
}

async fn check_commit_all_stores_every_commit_or_none(store: &dyn Store) {
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

async fn check_unlisted_games_are_in_no_listing_but_load(store: &dyn Store) {
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

async fn check_load_stale_pages_old_games_of_one_status_oldest_first(store: &dyn Store) {
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
// The same checks on both implementations.

#[tokio::test]
async fn commit_all_stores_every_commit_of_its_unit_or_none() {
    let dir = TempDir::new("commit-all");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_commit_all_stores_every_commit_or_none(&store)).await;
    bounded(check_commit_all_stores_every_commit_or_none(
        &MemoryStore::new(),
    ))
    .await;
}

#[tokio::test]
async fn unlisted_games_are_in_no_listing_but_load_by_id() {
    let dir = TempDir::new("unlisted");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_unlisted_games_are_in_no_listing_but_load(&store)).await;
    // Still so after reopening (the flag is a column, not only in memory).
    bounded(store.close()).await;
    let store = SqliteStore::open(dir.path()).expect("reopen");
    let open = bounded(store.list(GameStatus::Open, 10, 0))
        .await
        .expect("open");
    assert_eq!(open.len(), 1);
    bounded(check_unlisted_games_are_in_no_listing_but_load(
        &MemoryStore::new(),
    ))
    .await;
}

#[tokio::test]
async fn load_stale_pages_old_games_of_one_status_oldest_first() {
    let dir = TempDir::new("stale");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_load_stale_pages_old_games_of_one_status_oldest_first(
        &store,
    ))
    .await;
    bounded(check_load_stale_pages_old_games_of_one_status_oldest_first(
        &MemoryStore::new(),
    ))
    .await;
}

#[tokio::test]
async fn a_commit_with_the_wrong_first_seq_is_rejected_and_stores_nothing() {
    let dir = TempDir::new("conflict");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_sequence_conflicts_store_nothing(&store)).await;
    assert_eq!(store.stats().conflicts, 4);
    bounded(check_sequence_conflicts_store_nothing(&MemoryStore::new())).await;
}

#[tokio::test]
async fn list_pages_newest_first_and_filters_by_status() {
    let dir = TempDir::new("list");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_list_pages_newest_first_by_status(&store)).await;
    bounded(check_list_pages_newest_first_by_status(&MemoryStore::new())).await;
}

#[tokio::test]
async fn load_unfinished_skips_finished_games() {
    let dir = TempDir::new("unfinished");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_load_unfinished_skips_finished_games(&store)).await;
    bounded(check_load_unfinished_skips_finished_games(
        &MemoryStore::new(),
    ))
    .await;
}

#[tokio::test]
async fn failing_store_fails_commits_and_stores_nothing() {
    let dir = TempDir::new("failing");
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(dir.path()).expect("open"));
    bounded(check_failing_store_fails_commits_and_stores_nothing(store)).await;
    bounded(check_failing_store_fails_commits_and_stores_nothing(
        Arc::new(MemoryStore::new()),
    ))
    .await;
}

#[tokio::test]
async fn a_commit_after_close_is_refused_and_close_is_idempotent() {
    let dir = TempDir::new("closed");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_commit_after_close_is_refused(&store)).await;
    bounded(check_commit_after_close_is_refused(&MemoryStore::new())).await;
}

// ---------------------------------------------------------------------------------------------
// SQLite only: durability, group commit, failures.

#[tokio::test]
async fn committed_events_are_found_in_order_after_reopening() {
    let dir = TempDir::new("reopen");
    bounded(async {
        let store = SqliteStore::open(dir.path()).expect("open");
        store.commit(commit("g1", 0, 3)).await.expect("g1 0..3");
        store.commit(commit("g2", 0, 1)).await.expect("g2 0..1");
        store.commit(commit("g1", 3, 2)).await.expect("g1 3..5");
        store.close().await;

        let store = SqliteStore::open(dir.path()).expect("reopen");
        let (l1, e1) = store.load_game("g1").await.expect("load").expect("g1");
        assert_eq!(e1, expected_events("g1", 5));
        assert_eq!(l1, commit("g1", 3, 2).listing);
        assert_eq!(events_of(&store, "g2").await, expected_events("g2", 1));
        assert!(store.load_game("g3").await.expect("load").is_none());
        // The sequence carries on where it stopped.
        store.commit(commit("g1", 5, 1)).await.expect("g1 5");
        assert_eq!(events_of(&store, "g1").await, expected_events("g1", 6));
        store.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_games_committing_at_once_are_all_durable_in_order_and_batched() {
    const GAMES: u64 = 200;
    const EVENTS: u64 = 20;
    let dir = TempDir::new("many");
    bounded(async {
        let store = Arc::new(SqliteStore::open(dir.path()).expect("open"));
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
            "group commit should batch: {stats:?}"
        );
        assert!(stats.largest_batch > 1, "{stats:?}");
        store.close().await;

        let store = SqliteStore::open(dir.path()).expect("reopen");
        let games = store.load_unfinished().await.expect("load_unfinished");
        assert_eq!(games.len() as u64, GAMES);
        for (listing, events) in games {
            assert_eq!(events, expected_events(&listing.id, EVENTS));
        }
        store.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_run_alongside_commits_and_see_only_whole_commits() {
    const GAMES: u64 = 20;
    const COMMITS: u64 = 30;
    const READS: usize = 200;
    let dir = TempDir::new("reads");
    bounded(async {
        let store = Arc::new(SqliteStore::open(dir.path()).expect("open"));
        let writers: Vec<_> = (0..GAMES)
            .map(|g| {
                let store = Arc::clone(&store);
                tokio::spawn(async move {
                    let id = format!("r-{g}");
                    for c in 0..COMMITS {
                        // Three events per commit: a reader must never see part of one.
                        store.commit(commit(&id, c * 3, 3)).await?;
                    }
                    Ok::<_, StoreError>(())
                })
            })
            .collect();
        let readers: Vec<_> = (0..READS)
            .map(|i| {
                let store = Arc::clone(&store);
                tokio::spawn(async move {
                    let id = format!("r-{}", i as u64 % GAMES);
                    if let Some((_, events)) = store.load_game(&id).await? {
                        assert_eq!(events.len() % 3, 0, "a partial commit was visible");
                        assert_eq!(events, expected_events(&id, events.len() as u64));
                    }
                    store.list(GameStatus::Playing, 50, 0).await?;
                    Ok::<_, StoreError>(())
                })
            })
            .collect();
        for task in writers.into_iter().chain(readers) {
            task.await.expect("task").expect("store call");
        }
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn pipelined_commits_of_one_game_apply_in_call_order() {
    let dir = TempDir::new("pipeline");
    bounded(async {
        let store = SqliteStore::open(dir.path()).expect("open");
        // All issued before any is awaited: they reach the writer in call order.
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
    let dir = TempDir::new("conflict-batch");
    bounded(async {
        let store = SqliteStore::open(dir.path()).expect("open");
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
async fn close_writes_every_commit_issued_before_it() {
    let dir = TempDir::new("drain");
    bounded(async {
        let store = SqliteStore::open(dir.path()).expect("open");
        let pending: Vec<_> = (0..100)
            .map(|g| store.commit(commit(&format!("d-{g}"), 0, 1)))
            .collect();
        store.close().await;
        for outcome in futures_util::future::join_all(pending).await {
            outcome.expect("issued before close, so written");
        }
        let store = SqliteStore::open(dir.path()).expect("reopen");
        assert_eq!(store.load_unfinished().await.expect("load").len(), 100);
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn acknowledged_commits_survive_a_crash_without_close() {
    let dir = TempDir::new("crash");
    let crash_copy = TempDir::new("crash-copy");
    bounded(async {
        let store = SqliteStore::open(dir.path()).expect("open");
        for seq in 0..10 {
            store.commit(commit("c", seq, 1)).await.expect("commit");
        }
        // The moment after the last acknowledgement: copy the files as a crash would leave them
        // (database + WAL, no checkpoint, no clean close), then leak the store so it never
        // shuts down either.
        let mut copied = 0;
        for entry in std::fs::read_dir(dir.path()).expect("read dir") {
            let entry = entry.expect("dir entry");
            let name = entry.file_name();
            if name.to_string_lossy().ends_with("-shm") {
                continue; // shared memory index: rebuilt from the WAL on open, like after a reboot
            }
            std::fs::copy(entry.path(), crash_copy.path().join(&name)).expect("copy");
            copied += 1;
        }
        assert!(copied >= 2, "expected the database and its WAL");
        std::mem::forget(store);

        let recovered = SqliteStore::open(crash_copy.path()).expect("open the crash copy");
        assert_eq!(events_of(&recovered, "c").await, expected_events("c", 10));
        recovered
            .commit(commit("c", 10, 1))
            .await
            .expect("carry on");
        recovered.close().await;

        // And the original files, still held open by the leaked store, read the same.
        let reopened = SqliteStore::open(dir.path()).expect("reopen original");
        assert_eq!(events_of(&reopened, "c").await, expected_events("c", 10));
        reopened.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_fails_whole_batches_and_acknowledges_only_what_is_stored() {
    const GAMES: u64 = 20;
    const MAX_COMMITS_PER_GAME: u64 = 500;
    let dir = TempDir::new("full");
    bounded(async {
        let options = SqliteOptions {
            max_db_bytes: Some(256 * 1024),
        };
        let store = Arc::new(SqliteStore::open_with(dir.path(), options).expect("open"));
        let big = "x".repeat(2_000);
        let tasks: Vec<_> = (0..GAMES)
            .map(|g| {
                let store = Arc::clone(&store);
                let big = big.clone();
                tokio::spawn(async move {
                    let id = format!("full-{g}");
                    let mut acknowledged = 0;
                    for seq in 0..MAX_COMMITS_PER_GAME {
                        let mut c = commit(&id, seq, 1);
                        c.events[0] = format!(r#"{{"seq":{seq},"pad":"{big}"}}"#);
                        match store.commit(c).await {
                            Ok(()) => acknowledged += 1,
                            Err(StoreError::Io(_)) => break,
                            Err(other) => panic!("unexpected {other:?}"),
                        }
                    }
                    (id, acknowledged)
                })
            })
            .collect();
        let mut acknowledged = Vec::new();
        for task in tasks {
            acknowledged.push(task.await.expect("task"));
        }
        let stats = store.stats();
        assert!(
            stats.failed_batches >= 1,
            "the limit was never hit: {stats:?}"
        );
        assert_eq!(
            stats.commits,
            acknowledged.iter().map(|(_, n)| n).sum::<u64>()
        );
        for (id, n) in &acknowledged {
            assert_eq!(events_of(&*store, id).await.len() as u64, *n, "game {id}");
        }
        // The writer is still serving after the failed batches: a commit that needs no space is
        // judged (here refused for its sequence), not answered with Closed.
        let (id, n) = &acknowledged[0];
        assert!(matches!(
            store.commit(commit(id, n + 5, 1)).await,
            Err(StoreError::Conflict { .. })
        ));
        store.close().await;

        // Room again (no limit): nothing was damaged, every game carries on from what was acknowledged.
        let store = SqliteStore::open(dir.path()).expect("reopen without limit");
        for (id, n) in &acknowledged {
            assert_eq!(events_of(&store, id).await.len() as u64, *n, "game {id}");
            store.commit(commit(id, *n, 1)).await.expect("carry on");
        }
        store.close().await;
    })
    .await;
}

#[test]
fn opening_a_store_where_a_file_blocks_the_directory_is_an_error() {
    let dir = TempDir::new("blocked");
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"plain file").expect("write file");
    match SqliteStore::open(&file.join("data")) {
        Err(StoreError::Io(message)) => assert!(message.contains("data directory"), "{message}"),
        Err(other) => panic!("expected Io, got {other:?}"),
        Ok(_) => panic!("opening under a plain file must fail"),
    }
}

#[test]
fn opening_a_store_in_a_missing_directory_creates_it() {
    let dir = TempDir::new("create");
    let nested = dir.path().join("a").join("b");
    let store = SqliteStore::open(&nested).expect("open creates the directories");
    assert!(store.path().exists());
}

#[tokio::test]
async fn a_database_with_a_newer_schema_version_is_refused() {
    let dir = TempDir::new("schema");
    let store = SqliteStore::open(dir.path()).expect("open");
    let path = store.path().to_owned();
    bounded(store.close()).await;
    drop(store);
    let conn = rusqlite::Connection::open(&path).expect("raw open");
    conn.pragma_update(None, "user_version", 99)
        .expect("set version");
    drop(conn);
    match SqliteStore::open(dir.path()) {
        Err(StoreError::Io(message)) => assert!(message.contains("99"), "{message}"),
        Err(other) => panic!("expected Io, got {other:?}"),
        Ok(_) => panic!("a newer schema must be refused"),
    }
}

#[tokio::test]
async fn a_database_of_schema_version_1_is_migrated_to_version_2_with_every_game_listed() {
    let dir = TempDir::new("schema-v1");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema_v1");
    let db = dir.path().join("marseillais.sqlite3");
    std::fs::copy(fixture.join("marseillais.sqlite3"), &db).expect("copy the fixture");
    let raw = |sql: &str| -> i64 {
        let conn = rusqlite::Connection::open(&db).expect("raw open");
        conn.query_row(sql, [], |row| row.get(0)).expect("query")
    };
    assert_eq!(raw("PRAGMA user_version"), 1);
    let games_before = raw("SELECT count(*) FROM games");
    let events_before = raw("SELECT count(*) FROM events");

    let store = SqliteStore::open(dir.path()).expect("open migrates");
    let open = bounded(store.list(GameStatus::Open, 100, 0))
        .await
        .expect("open");
    let playing = bounded(store.list(GameStatus::Playing, 100, 0))
        .await
        .expect("playing");
    let finished = bounded(store.list(GameStatus::Finished, 100, 0))
        .await
        .expect("finished");
    assert_eq!((open.len(), playing.len(), finished.len()), (1, 3, 3));
    assert!(
        [&open, &playing, &finished]
            .iter()
            .all(|rows| rows.iter().all(|l| l.listed))
    );
    let (_, events) = bounded(store.load_game(&open[0].id))
        .await
        .expect("load")
        .expect("the open game");
    assert_eq!(events.len(), 1);
    bounded(store.close()).await;
    drop(store);

    assert_eq!(raw("PRAGMA user_version"), 2);
    assert_eq!(raw("SELECT count(*) FROM games"), games_before);
    assert_eq!(raw("SELECT count(*) FROM events"), events_before);
    // Opening the migrated database again is a no-op.
    let store = SqliteStore::open(dir.path()).expect("reopen");
    let open_again = bounded(store.list(GameStatus::Open, 100, 0))
        .await
        .expect("open");
    assert_eq!(open_again, open);
}

#[test]
fn a_file_that_is_not_a_database_is_an_error_not_a_panic() {
    let dir = TempDir::new("garbage");
    std::fs::write(dir.path().join("marseillais.sqlite3"), vec![0xA5u8; 8192])
        .expect("write garbage");
    assert!(matches!(
        SqliteStore::open(dir.path()),
        Err(StoreError::Io(_))
    ));
}

// ---------------------------------------------------------------------------------------------
// A real process crash: this test binary re-runs itself as a child that commits and reports each
// acknowledgement on stdout; the parent SIGKILLs it mid-stream and checks every acknowledged
// event is on disk.

/// Set in the child's environment: the data directory it commits into.
const CRASH_CHILD_DIR: &str = "MARSEILLAIS_STORE_CRASH_CHILD_DIR";
const CRASH_GAME: &str = "killed";
const CRASH_CHILD_MAX_COMMITS: u64 = 100_000;

/// The child's side. Does nothing when run as an ordinary test (no directory in the environment).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_child_commits_until_killed() {
    use std::io::Write;
    let Some(dir) = std::env::var_os(CRASH_CHILD_DIR) else {
        return;
    };
    let store = SqliteStore::open(Path::new(&dir)).expect("child opens the store");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    for seq in 0..CRASH_CHILD_MAX_COMMITS {
        if tokio::time::Instant::now() >= deadline {
            break;
        }
        store
            .commit(commit(CRASH_GAME, seq, 1))
            .await
            .expect("child commit");
        let mut out = std::io::stdout().lock();
        writeln!(out, "acked {}", seq + 1).expect("report");
        out.flush().expect("flush");
    }
}

#[test]
fn every_commit_acknowledged_before_a_sigkill_is_on_disk() {
    use std::io::BufRead;
    const KILL_AFTER: u64 = 200;
    let dir = TempDir::new("sigkill");
    let exe = std::env::current_exe().expect("test binary path");
    let mut child = std::process::Command::new(exe)
        .args([
            "crash_child_commits_until_killed",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CRASH_CHILD_DIR, dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn child");
    let stdout = child.stdout.take().expect("child stdout");
    let mut acknowledged = 0;
    for line in std::io::BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        if let Some(n) = line.strip_prefix("acked ") {
            acknowledged = n.trim().parse().expect("acked count");
            if acknowledged >= KILL_AFTER {
                break;
            }
        }
    }
    // Child::kill is SIGKILL on Unix: no destructor, no close, no checkpoint.
    child.kill().expect("kill child");
    child.wait().expect("reap child");
    assert!(
        acknowledged >= KILL_AFTER,
        "the child stopped after {acknowledged} commits"
    );

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(bounded(async {
        let store = SqliteStore::open(dir.path()).expect("reopen after the kill");
        let events = events_of(&store, CRASH_GAME).await;
        // Commits after the last one we read may or may not have landed; all before it must have,
        // and what is there is a gap-free prefix.
        assert!(
            events.len() as u64 >= acknowledged,
            "{} events on disk, {acknowledged} acknowledged",
            events.len()
        );
        assert_eq!(events, expected_events(CRASH_GAME, events.len() as u64));
        store.close().await;
    }));
}
