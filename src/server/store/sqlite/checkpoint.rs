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
//! transaction starts the WAL over. Should the WAL file still pass [`Policy::limit_bytes`] (a
//! reader holding an old snapshot at every catch-up, or commits faster than a checkpoint a
//! second copies: a chat flood grew it from 12 to 175 MB, issue 34), the writer, which looks at
//! the file's size after every batch, runs a TRUNCATE checkpoint, which waits for readers and
//! empties the file. So the WAL never holds more than the bound and one batch. And when the
//! WAL starts over, SQLite cuts the file back to [`JOURNAL_SIZE_LIMIT`] (`journal_size_limit`),
//! so a burst does not leave a large file behind.

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
    /// A WAL file larger than this after a batch is emptied by the writer (TRUNCATE).
    pub(super) limit_bytes: u64,
}

/// The WAL's bound: 64 MiB, above what saturation keeps it at (~35 MB: the catch-up starts it
/// over about once a second, docs/performance.md), so that a TRUNCATE, which stalls the writer
/// while it copies and fsyncs, only happens when the catch-up cannot keep up.
pub(super) const WAL_LIMIT_BYTES: u64 = 64 << 20;

/// The size SQLite cuts the WAL file back to when it starts over (`PRAGMA journal_size_limit`):
/// the bound itself. A smaller one would shrink and regrow the file at every start-over under
/// load, and each fsync of a growing file also commits its size.
pub(super) const JOURNAL_SIZE_LIMIT: u64 = WAL_LIMIT_BYTES;

impl Default for Policy {
    fn default() -> Self {
        Policy {
            interval: Duration::from_secs(1),
            commits: 2000,
            limit_bytes: WAL_LIMIT_BYTES,
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
            Ok(_) => {
                counters.checkpoints.fetch_add(1, Ordering::Relaxed);
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
