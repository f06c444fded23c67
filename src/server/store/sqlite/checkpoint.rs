//! WAL checkpoints off the commit path: a small thread with its own connection.
//!
//! SQLite's automatic checkpoint runs inside the `COMMIT` that takes the WAL past 1000 pages, so
//! that batch's acknowledgements (and every commit queued behind it) waited for ~4 MB to be copied
//! into the database and fsync'd: the p99/p999 spikes measured in docs/performance.md. The writer
//! turns it off (`wal_autocheckpoint = 0`) and this thread runs a PASSIVE checkpoint, which never
//! blocks the writer, about every second, or sooner after many commits.
//!
//! A PASSIVE checkpoint from another connection copies pages but does not make the WAL start
//! over: SQLite reuses the WAL from its beginning only when a write transaction starts with every
//! frame already copied, and the writer keeps adding frames while the checkpoint runs. Left alone
//! the WAL file would keep growing (and an fsync of a growing file also commits its new size).
//! So after each background checkpoint this thread raises `Counters::catch_up_wanted` (stats.rs), and the
//! writer, between two batches, copies the few frames written meanwhile (a small PASSIVE
//! checkpoint of its own, one fsync of the database): then every frame is copied and the next
//! transaction starts the WAL over. Should the WAL still pass [`Policy::limit_frames`] (a reader
//! holding an old snapshot at every catch-up), the thread raises `Counters::truncate_wanted` and
//! the writer runs a TRUNCATE checkpoint, which waits for readers and empties the file.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::stats::Counters;

/// When to checkpoint.
#[derive(Clone, Copy, Debug)]
pub(super) struct Policy {
    /// A checkpoint at least this often while commits come in.
    pub(super) interval: Duration,
    /// ... or as soon as this many commits were made since the last one (a commit writes a page
    /// or less on average once batched, so this is about SQLite's own 1000-page threshold).
    pub(super) commits: u64,
    /// A WAL of this many frames (pages) or more is truncated by the writer: 16,384 frames is
    /// 64 MiB with 4 KiB pages, several seconds of saturation without a catch-up.
    pub(super) limit_frames: i64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            interval: Duration::from_secs(1),
            commits: 2000,
            limit_frames: 16_384,
        }
    }
}

/// How often the thread looks at the commit counter (it sleeps in between).
fn poll_period(policy: &Policy) -> Duration {
    (policy.interval / 10).clamp(Duration::from_millis(1), Duration::from_millis(100))
}

/// The running checkpoint thread; [`Checkpointer::stop`] ends it.
pub(super) struct Checkpointer {
    stop: Sender<()>,
    thread: JoinHandle<()>,
}

impl Checkpointer {
    pub(super) fn start(
        conn: Connection,
        counters: Arc<Counters>,
        policy: Policy,
    ) -> std::io::Result<Checkpointer> {
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("store-checkpoint".to_owned())
            .spawn(move || run(&conn, &stopped, &counters, policy))?;
        Ok(Checkpointer { stop, thread })
    }

    /// Stops the thread (a checkpoint under way finishes first) and waits for it.
    pub(super) fn stop(self) {
        drop(self.stop);
        if self.thread.join().is_err() {
            tracing::error!("store: the checkpoint thread panicked");
        }
    }
}

fn run(conn: &Connection, stopped: &mpsc::Receiver<()>, counters: &Counters, policy: Policy) {
    let poll = poll_period(&policy);
    let mut last_at = Instant::now();
    let mut last_commits = counters.commits_ok.load(Ordering::Relaxed);
    loop {
        match stopped.recv_timeout(poll) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
        let commits = counters.commits_ok.load(Ordering::Relaxed);
        let new = commits.wrapping_sub(last_commits);
        if new == 0 || (last_at.elapsed() < policy.interval && new < policy.commits) {
            continue;
        }
        // Counted before the checkpoint: commits made during it are left for the next one.
        last_commits = commits;
        last_at = Instant::now();
        match checkpoint(conn, "PASSIVE") {
            Ok(frames) => {
                counters.checkpoints.fetch_add(1, Ordering::Relaxed);
                if frames >= policy.limit_frames {
                    counters.truncate_wanted.store(true, Ordering::Relaxed);
                }
                counters.catch_up_wanted.store(true, Ordering::Relaxed);
            }
            // Nothing is lost (the WAL is durable); the next round tries again.
            Err(e) => tracing::warn!(error = %e, "store: background checkpoint failed"),
        }
    }
}

/// Runs `PRAGMA wal_checkpoint(mode)` and returns the number of frames in the WAL (-1 when the
/// database is not in WAL mode, as SQLite reports it). A busy checkpoint is not an error.
pub(super) fn checkpoint(conn: &Connection, mode: &str) -> rusqlite::Result<i64> {
    conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |row| {
        row.get::<_, i64>(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
            },
            rating: None,
            deadline: crate::server::store::DeadlineChange::Unchanged,
            fence: None,
        }
    }

    const GAMES: u64 = 8;
    const COMMITS: u64 = 150;

    /// Commits `GAMES` x `COMMITS` events from concurrent tasks with checkpoints every few
    /// milliseconds; returns the store (still open) and the WAL file's size at the end.
    async fn sustained_commits(dir: &std::path::Path, limit_frames: i64) -> (SqliteStore, u64) {
        let policy = Policy {
            interval: Duration::from_millis(5),
            commits: 1,
            limit_frames,
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
        let (store, wal_len) = sustained_commits(dir.path(), i64::MAX).await;
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
}
