//! What the SQLite store has done since it was opened: the [`Counters`] the writer and the
//! checkpoint thread update as they go, and the [`StoreStats`] snapshot read from them.
//!
//! This is the one piece the writer (writer.rs) and the checkpoint thread (checkpoint.rs) share:
//! the checkpoint thread reads the commit count and raises the catch-up / truncate flags, the
//! writer acts on them. Living here, it lets the writer depend on the checkpoint thread and not
//! the other way round.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What the writer has done since the store was opened (for tests, metrics and benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Transactions the writer ran, i.e. fsyncs paid for commits. Fewer than `commits` means
    /// group commit batched several commits into one transaction.
    pub batches: u64,
    /// Commits acknowledged as durable.
    pub commits: u64,
    /// Commits refused because `first_seq` did not match.
    pub conflicts: u64,
    /// Batches lost to a storage failure (every commit in them failed with `Io`).
    pub failed_batches: u64,
    /// Commits that failed with `Io`.
    pub failed_commits: u64,
    /// The most commits ever written in one transaction.
    pub largest_batch: u64,
    /// Background (PASSIVE) WAL checkpoints, run off the commit path.
    pub checkpoints: u64,
    /// Small checkpoints the writer ran after background ones so that the WAL starts over.
    pub catch_ups: u64,
    /// Times the writer emptied a WAL that had grown past its bound anyway.
    pub wal_truncations: u64,
}

/// Counters the writer and the checkpoint thread update; read through
/// [`super::SqliteStore::stats`].
#[derive(Default)]
pub(super) struct Counters {
    pub(super) batches: AtomicU64,
    pub(super) commits_ok: AtomicU64,
    pub(super) conflicts: AtomicU64,
    pub(super) failed_batches: AtomicU64,
    pub(super) failed_commits: AtomicU64,
    pub(super) largest_batch: AtomicU64,
    /// Background (PASSIVE) checkpoints run.
    pub(super) checkpoints: AtomicU64,
    /// TRUNCATE checkpoints the writer ran because the WAL passed its bound.
    pub(super) wal_truncations: AtomicU64,
    /// Small checkpoints the writer ran after a background one, so that the WAL starts over.
    pub(super) catch_ups: AtomicU64,
    /// Set by the checkpoint thread after each background checkpoint: the writer copies the few
    /// frames written meanwhile, between two batches (see checkpoint.rs).
    pub(super) catch_up_wanted: AtomicBool,
}

impl Counters {
    /// The counters as they are now (each read on its own: a snapshot taken while the writer runs
    /// may mix two moments, which is fine for statistics).
    pub(super) fn snapshot(&self) -> StoreStats {
        StoreStats {
            batches: self.batches.load(Ordering::Relaxed),
            commits: self.commits_ok.load(Ordering::Relaxed),
            conflicts: self.conflicts.load(Ordering::Relaxed),
            failed_batches: self.failed_batches.load(Ordering::Relaxed),
            failed_commits: self.failed_commits.load(Ordering::Relaxed),
            largest_batch: self.largest_batch.load(Ordering::Relaxed),
            checkpoints: self.checkpoints.load(Ordering::Relaxed),
            catch_ups: self.catch_ups.load(Ordering::Relaxed),
            wal_truncations: self.wal_truncations.load(Ordering::Relaxed),
        }
    }
}
