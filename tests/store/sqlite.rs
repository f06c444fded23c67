//! The SQLite store: the store contract (tests/support/store_contract, the same tests as every
//! backend), and what is SQLite's own: durability across reopen and crash, the contract's data
//! after reopening, group commit under many concurrent games, recovery, failure injection and
//! storage failures.

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use marseillais::server::chat::ChatRoom;
use marseillais::server::players::account::UserId;
use marseillais::server::store::sqlite::SCHEMA_VERSION;
use marseillais::server::store::{
    DeadlineChange, GameStatus, SESSION_IDLE_MS, SqliteOptions, SqliteStore, Store, StoreError,
};
use support::store_contract::{
    bounded, chat_line, check_a_rated_end_rates_both_players_once_with_its_commit,
    check_account_settings_are_kept_per_user_and_replaced_whole,
    check_sequence_conflicts_store_nothing, check_turn_deadlines_follow_the_commits,
    check_unlisted_games_are_in_no_listing_but_load, check_usernames_are_unique_case_insensitively,
    commit, deadline_commit, deadlines_of, events_of, expected_events, session_hash, username,
};

/// A fresh directory under the system temp dir, removed on drop.
fn temp_dir(label: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("marseillais-store-{label}-"))
        .tempdir()
        .expect("create temp dir")
}

/// A store in a fresh directory, for the contract.
async fn fresh(label: &str) -> Option<(tempfile::TempDir, SqliteStore)> {
    let dir = temp_dir(label);
    let store = SqliteStore::open(dir.path()).expect("open");
    Some((dir, store))
}

crate::store_contract_tests!(fresh, one_node);

// ---------------------------------------------------------------------------------------------
// What the contract's checks leave in the database, after reopening it.

#[tokio::test]
async fn account_settings_are_found_after_reopening() {
    let dir = temp_dir("settings");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_account_settings_are_kept_per_user_and_replaced_whole(
        &store,
    ))
    .await;
    bounded(store.close()).await;
    drop(store);
    let store = SqliteStore::open(dir.path()).expect("reopen");
    assert_eq!(
        bounded(store.account_settings(UserId(1)))
            .await
            .expect("read"),
        Some(r#"{"volume":5}"#.to_owned())
    );
}

#[tokio::test]
async fn the_turn_deadline_index_is_found_after_reopening() {
    let dir = temp_dir("deadlines");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_turn_deadlines_follow_the_commits(&store)).await;
    // The index is there after reopening (read straight from the table).
    bounded(store.close()).await;
    drop(store);
    let store = SqliteStore::open(dir.path()).expect("reopen");
    assert_eq!(
        bounded(deadlines_of(&store)).await,
        vec![("e".to_owned(), 2)]
    );
    bounded(store.commit(deadline_commit("e", 2, 1, DeadlineChange::Cleared)))
        .await
        .expect("clear after reopening");
    assert!(bounded(deadlines_of(&store)).await.is_empty());
}

#[tokio::test]
async fn unlisted_games_are_still_unlisted_after_reopening() {
    let dir = temp_dir("unlisted");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_unlisted_games_are_in_no_listing_but_load(&store)).await;
    // The flag is a column, not only in memory.
    bounded(store.close()).await;
    let store = SqliteStore::open(dir.path()).expect("reopen");
    let open = bounded(store.list(GameStatus::Open, 10, 0))
        .await
        .expect("open");
    assert_eq!(open.len(), 1);
}

#[tokio::test]
async fn the_writer_counts_each_refused_first_seq_as_a_conflict() {
    let dir = temp_dir("conflict");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_sequence_conflicts_store_nothing(&store)).await;
    assert_eq!(store.stats().conflicts, 4);
}

#[tokio::test]
async fn usernames_are_still_unique_after_reopening() {
    let dir = temp_dir("users");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_usernames_are_unique_case_insensitively(&store)).await;
    bounded(store.close()).await;
    let store = SqliteStore::open(dir.path()).expect("reopen");
    let alice = bounded(store.find_user(&username("alice")))
        .await
        .expect("find");
    assert_eq!(alice.map(|u| u.password_hash), Some("hash-a".to_owned()));
}

#[tokio::test]
async fn a_rated_ends_ratings_are_found_after_reopening() {
    let dir = temp_dir("rated");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(check_a_rated_end_rates_both_players_once_with_its_commit(
        &store,
    ))
    .await;
    // Durable with the commit: the same ratings after reopening.
    let before = bounded(store.rating_history(UserId(1), None, 10))
        .await
        .expect("history");
    bounded(store.close()).await;
    let store = SqliteStore::open(dir.path()).expect("reopen");
    let after = bounded(store.rating_history(UserId(1), None, 10))
        .await
        .expect("history");
    assert_eq!(after, before);
    assert_eq!(after.len(), 2);
}

#[tokio::test]
async fn a_new_session_drops_the_users_expired_sessions_from_the_database() {
    let dir = temp_dir("session-purge");
    let store = SqliteStore::open(dir.path()).expect("open");
    let t0 = 1_000_000;
    let ivy = bounded(store.create_user(username("ivy"), "h".to_owned(), t0))
        .await
        .expect("ivy");
    let jon = bounded(store.create_user(username("jon"), "h".to_owned(), t0))
        .await
        .expect("jon");
    for (byte, user) in [(1, ivy), (2, ivy), (3, jon)] {
        bounded(store.create_session(session_hash(byte), user, t0))
            .await
            .expect("session");
    }
    let sessions = || -> i64 {
        let conn = rusqlite::Connection::open(store.path()).expect("raw open");
        conn.query_row("SELECT count(*) FROM sessions", [], |row| row.get(0))
            .expect("count")
    };
    assert_eq!(sessions(), 3);
    // Ivy logs in again after 30 idle days: her two dead sessions go, Jon's (just as dead, but
    // not hers) stays until Jon logs in.
    bounded(store.create_session(session_hash(4), ivy, t0 + SESSION_IDLE_MS + 1))
        .await
        .expect("new session");
    assert_eq!(sessions(), 2);
    bounded(store.close()).await;
}

#[tokio::test]
async fn chat_lines_are_found_after_reopening() {
    let dir = temp_dir("chat-reopen");
    let store = SqliteStore::open(dir.path()).expect("open");
    let line = chat_line(Some("g1"), ChatRoom::Player, 5, "still here");
    let id = bounded(store.append_chat(line.clone()))
        .await
        .expect("append");
    bounded(store.close()).await;
    drop(store);
    let store = SqliteStore::open(dir.path()).expect("reopen");
    let lines = bounded(store.recent_chat(Some("g1"), ChatRoom::Player, 50))
        .await
        .expect("read");
    assert_eq!(lines, [line.stored(id)]);
}

// ---------------------------------------------------------------------------------------------
// SQLite only: durability, group commit, failures.

#[tokio::test]
async fn committed_events_are_found_in_order_after_reopening() {
    let dir = temp_dir("reopen");
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
    let dir = temp_dir("many");
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
    let dir = temp_dir("reads");
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
    let dir = temp_dir("pipeline");
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
    let dir = temp_dir("conflict-batch");
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

/// The writer checks sequences from memory; a log that grew behind its back (as after a batch
/// reported failed whose COMMIT reached the disk) is caught by the primary key: the batch is
/// written again with the checks read from the database, the stale commit fails alone as a
/// conflict, and the others of its batch are stored.
#[tokio::test]
async fn a_log_grown_behind_the_writers_memory_is_a_conflict_and_the_batch_is_still_stored() {
    let dir = temp_dir("stale-memory");
    bounded(async {
        let store = SqliteStore::open(dir.path()).expect("open");
        store.commit(commit("g", 0, 1)).await.expect("first commit");
        let behind = rusqlite::Connection::open(
            dir.path()
                .join(marseillais::server::store::sqlite::DB_FILE_NAME),
        )
        .expect("second connection");
        behind
            .busy_timeout(Duration::from_secs(5))
            .expect("busy timeout");
        behind
            .execute(
                "INSERT INTO events (game_id, seq, payload) VALUES ('g', 1, '{}')",
                [],
            )
            .expect("write behind the writer's back");
        drop(behind);
        let mut pending = vec![store.commit(commit("g", 1, 1))];
        for o in 0..10 {
            pending.push(store.commit(commit(&format!("other-{o}"), 0, 2)));
        }
        let outcomes = futures_util::future::join_all(pending).await;
        assert!(
            matches!(
                &outcomes[0],
                Err(StoreError::Conflict {
                    expected: 2,
                    got: 1,
                    ..
                })
            ),
            "the stale commit is a conflict: {:?}",
            outcomes[0]
        );
        assert!(outcomes[1..].iter().all(Result::is_ok), "{outcomes:?}");
        for o in 0..10 {
            let id = format!("other-{o}");
            assert_eq!(events_of(&store, &id).await, expected_events(&id, 2));
        }
        // The writer read the log again: the next commit continues it.
        store
            .commit(commit("g", 2, 1))
            .await
            .expect("the log continues at 2");
        let (_, events) = store.load_game("g").await.expect("load").expect("stored");
        assert_eq!(events.len(), 3);
        store.close().await;
    })
    .await;
}

#[tokio::test]
async fn close_writes_every_commit_issued_before_it() {
    let dir = temp_dir("drain");
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
    let dir = temp_dir("crash");
    let crash_copy = temp_dir("crash-copy");
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
    let dir = temp_dir("full");
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
    let dir = temp_dir("blocked");
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
    let dir = temp_dir("create");
    let nested = dir.path().join("a").join("b");
    let store = SqliteStore::open(&nested).expect("open creates the directories");
    assert!(store.path().exists());
}

#[tokio::test]
async fn a_database_with_a_newer_schema_version_is_refused() {
    let dir = temp_dir("schema");
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
async fn a_database_of_schema_version_1_is_migrated_to_the_current_version_with_every_game_listed()
{
    let dir = temp_dir("schema-v1");
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

    assert_eq!(raw("PRAGMA user_version"), SCHEMA_VERSION);
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
    let dir = temp_dir("garbage");
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
    let dir = temp_dir("sigkill");
    let exe = std::env::current_exe().expect("test binary path");
    // The child's name as libtest knows it: this module's path without the binary's name.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let mut child = std::process::Command::new(exe)
        .args([
            &format!("{module}::crash_child_commits_until_killed"),
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
