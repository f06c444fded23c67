//! The store's own tests that need a whole [`SqliteStore`] or several of its parts at once.

mod statements {

    use super::super::connect::{DB_FILE_NAME, SqliteOptions, open_reader, open_writer};
    use super::super::rows::EVENTS_OF;
    use super::super::writer;
    use rusqlite::Connection;
    use rusqlite::StatementStatus;

    /// Runs `sql` (whose one parameter is a game id) from the connection's statement cache for
    /// several games, as the store does, and says how often SQLite compiled it again.
    fn reprepares(conn: &Connection, sql: &str) -> i32 {
        for game in ["g1", "g2", "g3", "g4"] {
            let mut stmt = conn.prepare_cached(sql).expect("prepare");
            let mut rows = stmt.query([game]).expect("query");
            while rows.next().expect("step").is_some() {}
        }
        let stmt = conn.prepare_cached(sql).expect("prepare");
        stmt.get_status(StatementStatus::RePrepare)
    }

    #[test]
    fn the_cached_statements_keyed_by_game_are_compiled_once_not_once_per_game() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(DB_FILE_NAME);
        let writer = open_writer(&path, SqliteOptions::default()).expect("writer");
        assert_eq!(
            reprepares(&writer, writer::LAST_SEQ),
            0,
            "writer: sequence check"
        );
        let reader = open_reader(&path).expect("reader");
        assert_eq!(
            reprepares(&reader, EVENTS_OF),
            0,
            "reader: events of a game"
        );
    }
}

mod checkpoints {

    use std::time::Duration;

    use super::super::checkpoint::Policy;
    use crate::server::store::sqlite::{DB_FILE_NAME, SqliteOptions, SqliteStore};
    use crate::server::store::{Commit, GameListing, GameStatus, Store};

    fn commit(game: &str, seq: u64) -> Commit {
        Commit {
            game_id: game.to_owned(),
            first_seq: seq,
            // About half a page per event, so that the WAL grows by pages quickly.
            events: vec![format!(r#"{{"seq":{seq},"pad":"{}"}}"#, "x".repeat(2000))],
            listing: GameListing {
                id: game.to_owned(),
                status: GameStatus::Playing,
                created_ms: 0,
                updated_ms: i64::try_from(seq).unwrap_or(0),
                summary: "{}".to_owned(),
                listed: true,
                white_user: None,
                black_user: None,
                arena: None,
            },
            rating: None,
            explorer: None,
            playban: None,
            deadline: crate::server::store::DeadlineChange::Unchanged,
            fence: None,
        }
    }

    const GAMES: u64 = 8;
    const COMMITS: u64 = 150;

    /// Commits `GAMES` x `COMMITS` events from concurrent tasks with checkpoints every few
    /// milliseconds; returns the store (still open) and the WAL file's size at the end.
    async fn sustained_commits(dir: &std::path::Path, limit_bytes: u64) -> (SqliteStore, u64) {
        let policy = Policy {
            interval: Duration::from_millis(5),
            commits: 1,
            limit_bytes,
        };
        let store =
            SqliteStore::open_with_policy(dir, SqliteOptions::default(), policy).expect("open");
        let work = async {
            let tasks: Vec<_> = (0..GAMES)
                .map(|g| {
                    let store = store.clone();
                    tokio::spawn(async move {
                        for seq in 0..COMMITS {
                            store.commit(commit(&format!("g{g}"), seq)).await?;
                        }
                        Ok::<_, crate::server::store::StoreError>(())
                    })
                })
                .collect();
            for task in tasks {
                task.await.expect("task").expect("commits");
            }
        };
        tokio::time::timeout(Duration::from_secs(120), work)
            .await
            .expect("bounded");
        for g in 0..GAMES {
            let (_, events) = store
                .load_game(&format!("g{g}"))
                .await
                .expect("load")
                .expect("game");
            assert_eq!(events.len() as u64, COMMITS);
        }
        let wal = dir.join(format!("{DB_FILE_NAME}-wal"));
        let wal_len = std::fs::metadata(&wal).map_or(0, |m| m.len());
        (store, wal_len)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn under_sustained_commits_the_wal_starts_over_instead_of_growing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (store, wal_len) = sustained_commits(dir.path(), u64::MAX).await;
        let stats = store.stats();
        assert!(stats.checkpoints >= 1 && stats.catch_ups >= 1, "{stats:?}");
        assert_eq!(stats.wal_truncations, 0);
        // Every event is ~2 KB: a WAL that never started over would hold them all.
        let committed = GAMES * COMMITS * 2000;
        assert!(
            wal_len < committed,
            "WAL {wal_len} B for {committed} B committed"
        );
        store.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_wal_past_its_bound_is_emptied_and_close_leaves_it_empty() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (store, _) = sustained_commits(dir.path(), 0).await;
        let stats = store.stats();
        assert!(stats.wal_truncations >= 1, "{stats:?}");
        assert_eq!(stats.commits, GAMES * COMMITS);
        store.close().await;
        // close() stopped the checkpoint thread and truncated the WAL.
        let wal = dir.path().join(format!("{DB_FILE_NAME}-wal"));
        assert_eq!(std::fs::metadata(&wal).map_or(0, |m| m.len()), 0);
    }

    /// A chat flood (issue 34: 8,625 lines in 10 s grew the WAL from 12 to 175 MB), with the
    /// background checkpoint held off so that only the bound stops the WAL: one 140-character
    /// line per commit from 32 tasks, the WAL file's size read after every acknowledged line.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_chat_flood_never_grows_the_wal_past_its_bound_and_one_batch() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicU64, Ordering};

        use crate::server::domain::chat::{ChatRoom, ChatText};
        use crate::server::domain::chat_line::NewChatLine;

        const LIMIT: u64 = 1 << 20;
        // One batch of 32 lines touches a few pages of the table and each index: far less.
        const ONE_BATCH: u64 = 1 << 20;
        let dir = tempfile::tempdir().expect("temp dir");
        let policy = Policy {
            interval: Duration::from_secs(3600),
            commits: u64::MAX,
            limit_bytes: LIMIT,
        };
        let store = SqliteStore::open_with_policy(dir.path(), SqliteOptions::default(), policy)
            .expect("open");
        let wal = dir.path().join(format!("{DB_FILE_NAME}-wal"));
        let largest = Arc::new(AtomicU64::new(0));
        let text = ChatText::parse(&"é".repeat(140)).expect("a line");
        let tasks: Vec<_> = (0..32)
            .map(|task| {
                let (store, wal, largest, text) = (
                    store.clone(),
                    wal.clone(),
                    Arc::clone(&largest),
                    text.clone(),
                );
                tokio::spawn(async move {
                    for i in 0..100 {
                        let line = NewChatLine {
                            game_id: None,
                            room: ChatRoom::Lobby,
                            at_ms: i64::from(task * 1000 + i),
                            user_id: None,
                            author: "anonymous".to_owned(),
                            text: text.clone(),
                        };
                        store.append_chat(line).await.expect("stored");
                        let len = std::fs::metadata(&wal).map_or(0, |m| m.len());
                        largest.fetch_max(len, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for task in tasks {
            tokio::time::timeout(Duration::from_secs(120), task)
                .await
                .expect("bounded")
                .expect("task");
        }
        let largest = largest.load(Ordering::Relaxed);
        let stats = store.stats();
        eprintln!("3,200 lines: the largest WAL {largest} B, {stats:?}");
        assert!(stats.wal_truncations >= 1, "{stats:?}");
        assert!(
            largest <= LIMIT + ONE_BATCH,
            "the WAL reached {largest} B for a bound of {LIMIT} B"
        );
        store.close().await;
    }
}
