//! Listing rows the writer holds back. Every commit carries its game's new listing row, but
//! during play the row changes only in `sub_moves` and `updated_ms`, and rewriting it (the row
//! and its entry in the lobby index) at every sub-move was about 8 % of the server's CPU at
//! saturation (docs/performance.md, "After the write/commit work"). So the writer writes a
//! listing row at once only when it changes what startup recovery and the lobby's status
//! filter read (a game's first commit, a new status, a change of `listed`, an end), and
//! otherwise keeps the newest row in memory and writes it within [`LISTING_DELAY`], before any
//! read of the store (a read asks the writer first, so every read sees every acknowledged
//! commit's listing), and at close.
//!
//! What a crash can lose: up to [`LISTING_DELAY`] of `sub_moves` / `updated_ms` in the listing
//! row of a game being played, never an event (those are durable before the ack) and never a
//! status; the game's next commit rewrites its row. Nothing rebuilds a room from a listing row
//! (rooms replay their events).
//!
//! The writer changes this state only for commits that were stored: a batch stages its
//! changes ([`Staged`]) per unit and hands them over once its transaction committed.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::server::store::{Commit, GameListing, GameStatus};

/// How long the writer may keep a listing row in memory before writing it.
pub(super) const LISTING_DELAY: Duration = Duration::from_secs(1);

/// What a commit's listing row does in this batch.
#[derive(Clone, Debug)]
enum Stage {
    /// Written in this batch's transaction with its commit.
    Written { status: GameStatus, listed: bool },
    /// Held back: the newest row of the game, not written yet.
    Held(GameListing),
}

/// The listing state of the games the writer has seen since it started.
#[derive(Debug)]
pub(super) struct Listings {
    /// Status and `listed` of each unfinished game's newest row (written or held).
    known: HashMap<String, (GameStatus, bool)>,
    /// The newest row of each game whose row on disk is older.
    held: HashMap<String, GameListing>,
    /// Since when the oldest row in `held` has waited.
    held_since: Option<Instant>,
    delay: Duration,
}

impl Listings {
    pub(super) fn new(delay: Duration) -> Self {
        Listings {
            known: HashMap::new(),
            held: HashMap::new(),
            held_since: None,
            delay,
        }
    }

    /// How long until the held rows are due (`None`: none held).
    pub(super) fn due_in(&self, now: Instant) -> Option<Duration> {
        self.held_since
            .map(|since| (since + self.delay).saturating_duration_since(now))
    }

    /// Whether the held rows must be written in the batch being written now.
    pub(super) fn due(&self, now: Instant) -> bool {
        self.due_in(now).is_some_and(|left| left.is_zero())
    }

    /// Everything held or staged to be held, newest per game: what a flush writes.
    pub(super) fn to_write<'a>(&'a self, staged: &'a Staged) -> Vec<(&'a str, &'a GameListing)> {
        let mut rows: Vec<(&str, &GameListing)> = self
            .held
            .iter()
            .filter(|(id, _)| !staged.batch.contains_key(*id))
            .map(|(id, listing)| (id.as_str(), listing))
            .collect();
        rows.extend(staged.batch.iter().filter_map(|(id, stage)| match stage {
            Stage::Held(listing) => Some((id.as_str(), listing)),
            Stage::Written { .. } => None,
        }));
        rows
    }

    /// Takes over what a committed batch staged; `flushed`: every held row was written too.
    pub(super) fn committed(&mut self, staged: Staged, flushed: bool, now: Instant) {
        for (id, stage) in staged.batch {
            match stage {
                Stage::Written { status, listed } => {
                    self.held.remove(&id);
                    if status == GameStatus::Finished {
                        // A finished game's next commit (a rematch event) is written at once.
                        self.known.remove(&id);
                    } else {
                        self.known.insert(id, (status, listed));
                    }
                }
                Stage::Held(listing) => {
                    self.known
                        .insert(id.clone(), (listing.status, listing.listed));
                    self.held.insert(id, listing);
                }
            }
        }
        if flushed {
            self.held.clear();
        }
        self.held_since = match self.held_since {
            _ if self.held.is_empty() => None,
            Some(since) => Some(since),
            None => Some(now),
        };
    }
}

/// The listing changes of the batch being written: those of its stored units, and of the unit
/// being written now (kept apart until its savepoint is released).
#[derive(Debug, Default)]
pub(super) struct Staged {
    batch: HashMap<String, Stage>,
    unit: Vec<(String, Stage)>,
}

impl Staged {
    /// Whether `commit`'s listing row must be written now (and stages it either way).
    pub(super) fn write_now(&mut self, listings: &Listings, commit: &Commit) -> bool {
        let listing = &commit.listing;
        let before = self
            .unit
            .iter()
            .rev()
            .find(|(id, _)| *id == commit.game_id)
            .map(|(_, stage)| stage)
            .or_else(|| self.batch.get(&commit.game_id))
            .map(|stage| match stage {
                Stage::Written { status, listed } => (*status, *listed),
                Stage::Held(held) => (held.status, held.listed),
            })
            .or_else(|| listings.known.get(&commit.game_id).copied());
        let now = commit.first_seq == 0
            || listing.status == GameStatus::Finished
            || before != Some((listing.status, listing.listed));
        let stage = if now {
            Stage::Written {
                status: listing.status,
                listed: listing.listed,
            }
        } else {
            let mut held = listing.clone();
            held.id.clone_from(&commit.game_id);
            Stage::Held(held)
        };
        self.unit.push((commit.game_id.clone(), stage));
        now
    }

    /// The unit was stored (its savepoint released).
    pub(super) fn unit_stored(&mut self) {
        for (id, stage) in self.unit.drain(..) {
            self.batch.insert(id, stage);
        }
    }

    /// The unit was undone: nothing of it happened.
    pub(super) fn unit_undone(&mut self) {
        self.unit.clear();
    }
}
