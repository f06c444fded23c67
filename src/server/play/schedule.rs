//! The schedule of correspondence turn deadlines: one sorted set of `(deadline, game)` in
//! memory, for every correspondence game being played, and ONE task that sleeps until the
//! earliest and then wakes that game's room (loading it from the store if it retired), which
//! flags the game through its ordinary timeout path.
//!
//! Why: a correspondence game lives for weeks with nobody connected, so its room leaves memory
//! like a finished game's ([`crate::server::play::room`] `may_retire`), and startup does not rebuild it. The
//! server must still end it on time by itself. The store's turn-deadline index
//! (`turn_deadlines`, written in each commit's own transaction: [`DeadlineChange`]) is read
//! once at startup into this schedule; the rooms keep it current after each commit. One task
//! and a `BTreeSet` cost a few dozen bytes per game (measured in docs/performance.md,
//! "Correspondence schedule"); a task or a timer per game would cost kilobytes and a wake-up
//! each.
//!
//! The schedule holds *effective* deadlines ([`Downtime::effective`]): one that passed while
//! the server was down is due at boot + grace, like the room's own timer.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::sync::{Notify, watch};

use crate::server::game::now_ms;
use crate::server::game::policy::Downtime;
use crate::server::ids::{GAME_ID_LEN, is_game_id};
use crate::server::store::DeadlineChange;

/// Games woken per wake-up: bounds the work (store loads, replays) done before the task looks
/// at the clock and the schedule again.
pub const WAKE_BATCH: usize = 64;

/// A woken game comes round again this long after, unless its room's commit (its end, or a
/// move) replaced or removed its entry first: a store failure or a room that did not flag is
/// retried later, never in a loop.
pub const RECHECK: Duration = Duration::from_secs(10);

/// The task sleeps at most this long, so that a wall-clock step (deadlines are Unix ms) is
/// noticed within a minute even with nothing due.
const MAX_SLEEP: Duration = Duration::from_secs(60);

/// A game id in 8 bytes (ids are [`GAME_ID_LEN`] ASCII characters): no allocation per entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct GameKey([u8; GAME_ID_LEN]);

impl GameKey {
    fn parse(id: &str) -> Option<GameKey> {
        if !is_game_id(id) {
            return None;
        }
        let mut key = [0u8; GAME_ID_LEN];
        key.copy_from_slice(id.as_bytes());
        Some(GameKey(key))
    }

    fn as_string(&self) -> String {
        // Only ever built from a valid (ASCII) game id.
        String::from_utf8_lossy(&self.0).into_owned()
    }
}

#[derive(Default)]
struct Entries {
    by_time: BTreeSet<(i64, GameKey)>,
    by_game: HashMap<GameKey, i64>,
}

impl Entries {
    fn set(&mut self, key: GameKey, at_ms: i64) {
        if let Some(old) = self.by_game.insert(key, at_ms) {
            self.by_time.remove(&(old, key));
        }
        self.by_time.insert((at_ms, key));
    }

    fn clear(&mut self, key: GameKey) {
        if let Some(old) = self.by_game.remove(&key) {
            self.by_time.remove(&(old, key));
        }
    }

    fn earliest(&self) -> Option<i64> {
        self.by_time.first().map(|(at, _)| *at)
    }
}

/// The in-memory schedule (see the module doc). Cheap to share: `Arc<Schedule>`.
pub struct Schedule {
    entries: Mutex<Entries>,
    downtime: Downtime,
    /// Wakes the task when the earliest deadline moved earlier (or on shutdown).
    changed: Notify,
}

impl Schedule {
    /// An empty schedule for a process with this downtime (its boot and grace).
    pub fn new(downtime: Downtime) -> Schedule {
        Schedule {
            entries: Mutex::new(Entries::default()),
            downtime,
            changed: Notify::new(),
        }
    }

    /// A poisoned lock only means a panic elsewhere mid-call; every mutation keeps both maps
    /// consistent before it can panic (none of them allocates between the two updates).
    fn lock(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds the store's index rows (startup). A row whose id is not a game id is skipped (it
    /// could never be loaded): returns how many were.
    pub fn load(&self, rows: Vec<(String, i64)>) -> usize {
        let mut skipped = 0;
        let mut entries = self.lock();
        for (id, deadline_ms) in rows {
            match GameKey::parse(&id) {
                Some(key) => entries.set(key, self.downtime.effective(deadline_ms)),
                None => skipped += 1,
            }
        }
        drop(entries);
        self.changed.notify_one();
        skipped
    }

    /// Follows a commit of game `id` that the store has made durable.
    pub fn apply(&self, id: &str, change: DeadlineChange) {
        let Some(key) = GameKey::parse(id) else {
            return;
        };
        let mut entries = self.lock();
        let earliest = entries.earliest();
        match change {
            DeadlineChange::Unchanged => return,
            DeadlineChange::Set(deadline_ms) => {
                entries.set(key, self.downtime.effective(deadline_ms));
            }
            DeadlineChange::Cleared => entries.clear(key),
        }
        let moved_earlier = match (entries.earliest(), earliest) {
            (Some(now), Some(before)) => now < before,
            (Some(_), None) => true,
            _ => false,
        };
        drop(entries);
        if moved_earlier {
            self.changed.notify_one();
        }
    }

    /// How many games are scheduled.
    pub fn len(&self) -> usize {
        self.lock().by_game.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The effective deadline scheduled for a game.
    pub fn deadline_of(&self, id: &str) -> Option<i64> {
        let key = GameKey::parse(id)?;
        self.lock().by_game.get(&key).copied()
    }

    /// The earliest scheduled deadline.
    pub fn earliest(&self) -> Option<i64> {
        self.lock().earliest()
    }

    /// Up to `limit` games due at `now_ms`, earliest first; each comes round again at
    /// `now_ms + RECHECK` unless its room's next commit replaces or clears it.
    pub fn take_due(&self, now_ms: i64, limit: usize) -> Vec<String> {
        let mut entries = self.lock();
        let due: Vec<GameKey> = entries
            .by_time
            .iter()
            .take_while(|(at, _)| *at <= now_ms)
            .take(limit)
            .map(|(_, key)| *key)
            .collect();
        let again = now_ms.saturating_add(millis(RECHECK));
        for key in &due {
            entries.set(*key, again);
        }
        due.iter().map(GameKey::as_string).collect()
    }

    /// Runs the schedule until shutdown: sleeps until the earliest deadline (or a change, or
    /// [`MAX_SLEEP`]), then wakes at most [`WAKE_BATCH`] due games through `rooms`.
    pub fn spawn(self: &Arc<Self>, rooms: Arc<dyn WakeGame>, mut shutdown: watch::Receiver<bool>) {
        let schedule = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                if *shutdown.borrow() {
                    break;
                }
                // Registered before reading the schedule: a change made after the read still
                // wakes this wait (Notify keeps one permit).
                let changed = schedule.changed.notified();
                let now = now_ms();
                let due = schedule.take_due(now, WAKE_BATCH);
                if !due.is_empty() {
                    for id in due {
                        rooms.wake_for_deadline(&id).await;
                    }
                    continue;
                }
                let wait = schedule
                    .earliest()
                    .map(|at| Duration::from_millis(u64::try_from(at - now).unwrap_or(0)))
                    .unwrap_or(MAX_SLEEP)
                    .min(MAX_SLEEP);
                tokio::select! {
                    _ = shutdown.changed() => break,
                    _ = changed => {}
                    _ = tokio::time::sleep(wait) => {}
                }
            }
        });
    }
}

/// Who wakes a game whose deadline is due (the registry of live games): the schedule knows
/// when, not how.
pub trait WakeGame: Send + Sync + 'static {
    /// Loads game `id`'s room if it retired, so that its timer flags it; a failure is the
    /// waker's to log, the schedule comes back to the game later ([`RECHECK`]).
    fn wake_for_deadline<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ()>;
}

/// A duration in whole milliseconds, saturating.
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// The change from the deadline `before` a commit to the one `after` it.
pub fn change_between(before: Option<i64>, after: Option<i64>) -> DeadlineChange {
    match (before, after) {
        (b, a) if b == a => DeadlineChange::Unchanged,
        (_, Some(at)) => DeadlineChange::Set(at),
        (_, None) => DeadlineChange::Cleared,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOOT: i64 = 1_000_000;

    fn schedule() -> Schedule {
        Schedule::new(Downtime {
            boot_ms: BOOT,
            grace: Duration::from_secs(3600),
        })
    }

    #[test]
    fn the_schedule_is_sorted_by_deadline_and_follows_each_change() {
        let s = schedule();
        s.apply("AAAAAAAA", DeadlineChange::Set(BOOT + 300));
        s.apply("BBBBBBBB", DeadlineChange::Set(BOOT + 100));
        s.apply("CCCCCCCC", DeadlineChange::Set(BOOT + 200));
        assert_eq!(s.earliest(), Some(BOOT + 100));
        s.apply("BBBBBBBB", DeadlineChange::Set(BOOT + 400));
        s.apply("CCCCCCCC", DeadlineChange::Cleared);
        s.apply("AAAAAAAA", DeadlineChange::Unchanged);
        assert_eq!(s.len(), 2);
        assert_eq!(s.earliest(), Some(BOOT + 300));
        assert_eq!(s.deadline_of("BBBBBBBB"), Some(BOOT + 400));
        assert_eq!(s.deadline_of("CCCCCCCC"), None);
        s.apply("not an id", DeadlineChange::Set(1));
        assert_eq!(s.len(), 2, "a string that is no game id is never scheduled");
    }

    #[test]
    fn a_deadline_that_passed_while_the_server_was_down_is_due_after_the_grace() {
        let s = schedule();
        let skipped = s.load(vec![
            ("AAAAAAAA".to_owned(), BOOT - 5),
            ("BBBBBBBB".to_owned(), BOOT + 5),
            ("bad".to_owned(), 0),
        ]);
        assert_eq!(skipped, 1);
        assert_eq!(s.deadline_of("AAAAAAAA"), Some(BOOT + 3_600_000));
        assert_eq!(s.deadline_of("BBBBBBBB"), Some(BOOT + 5));
    }

    #[test]
    fn due_games_are_taken_earliest_first_in_bounded_batches_and_come_round_again_later() {
        let s = schedule();
        for i in 0..10u8 {
            let id = format!("GAME000{i}");
            s.apply(&id, DeadlineChange::Set(BOOT + i64::from(i)));
        }
        s.apply("LATER000", DeadlineChange::Set(BOOT + 1_000_000));
        let first = s.take_due(BOOT + 100, 4);
        assert_eq!(first, ["GAME0000", "GAME0001", "GAME0002", "GAME0003"]);
        let rest = s.take_due(BOOT + 100, 100);
        assert_eq!(
            rest.len(),
            6,
            "the not yet taken ones, not the retaken ones"
        );
        assert!(
            s.take_due(BOOT + 100, 100).is_empty(),
            "nothing is due twice at once"
        );
        let again = BOOT + 100 + millis(RECHECK);
        assert_eq!(s.deadline_of("GAME0000"), Some(again));
        assert_eq!(s.take_due(again, 100).len(), 10);
        assert_eq!(s.deadline_of("LATER000"), Some(BOOT + 1_000_000));
    }

    #[test]
    fn a_change_is_set_only_when_the_deadline_moved_and_cleared_when_it_is_gone() {
        assert_eq!(change_between(None, None), DeadlineChange::Unchanged);
        assert_eq!(change_between(Some(5), Some(5)), DeadlineChange::Unchanged);
        assert_eq!(change_between(None, Some(5)), DeadlineChange::Set(5));
        assert_eq!(change_between(Some(4), Some(5)), DeadlineChange::Set(5));
        assert_eq!(change_between(Some(5), None), DeadlineChange::Cleared);
    }
}
