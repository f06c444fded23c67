//! How long the engine queue would make a new search wait: the searches queued or running
//! ahead of it, times how long a search has lately taken, over the engine threads.
//!
//! A computer search gets the whole budget its level and clock give it, however many wait
//! (issue 35: sharing the time among those waiting made every "level 8" weaker under load,
//! 1.7 s a turn instead of 3.98 s with 80 games waiting). What bounds the wait instead is
//! admission: a new computer game is refused `503 busy` while [`Backlog::expected_wait`] is
//! above `--engine-max-wait-secs` ([`super::admission`]), and the games already playing keep
//! their strength.
//!
//! The mean is an exponentially weighted one over the last searches of every kind (a computer
//! sub-move of up to 2 s at level 8, an analysis position of 20-500 ms): the queue is one
//! first-come-first-served line of both, so its mean is what a newcomer waits behind. Before
//! any search has ended it is [`PRIOR_MEAN`]: without it a burst of new games at startup all
//! saw an empty mean and were all taken (measured: 100 level-8 games admitted, 23 s mean wait).
//! A game being admitted counts as one search in the queue until its first search is asked
//! for, or [`RESERVED_AT_MOST`] has passed (its person has not played yet): [`Reservations`],
//! so that concurrent creations see each other, and a game whose person is about to play its
//! first sub-move is not forgotten (measured: counting it only until its room started let 7
//! level-8 games in on one thread with 100 slots asking every 500 ms, 9.2 s of mean wait).
//!
//! The queue alone undercounts a game between two of its searches (its move being committed,
//! its person answering), and a client that asks for new games again and again finds those
//! moments: measured with `loadgen --mode computer`, 100 slots asking every 500 ms got 6 level-8
//! games in on one thread where 3 fit, 10 s of mean wait against a 5 s bound. So the wait is
//! also what searches really waited lately (a weighted mean, as above), while any search is
//! queued or running: a newcomer is told the larger of the two.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The weight of the newest search in the mean: 1/8, about the last dozen searches.
const NEWEST_WEIGHT: u64 = 8;

/// The longest a game admitted counts as a search before it asks for one.
pub const RESERVED_AT_MOST: Duration = Duration::from_secs(10);

/// The mean assumed before any search has ended: level 8's untimed think, 2 s (with 1 s, a
/// burst of level-8 games at startup was admitted twice over).
pub const PRIOR_MEAN: Duration = Duration::from_secs(2);

#[derive(Default)]
pub struct Backlog {
    /// Searches queued or running.
    queued: Arc<AtomicUsize>,
    /// The weighted mean of the searches' run times, in microseconds (0: none ran yet).
    mean_micros: AtomicU64,
    /// The weighted mean of how long the searches waited for a thread, in microseconds.
    waited_micros: AtomicU64,
}

/// The places in the queue of games admitted and not yet searching, by game id.
#[derive(Default)]
pub struct Reservations {
    held: Mutex<HashMap<String, (Queued, Instant)>>,
}

impl Reservations {
    /// Keeps `queued` for game `id` until [`Reservations::claim`] or [`RESERVED_AT_MOST`].
    pub fn keep(&self, id: &str, queued: Queued, now: Instant) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.retain(|_, (_, since)| now.duration_since(*since) < RESERVED_AT_MOST);
        held.insert(id.to_owned(), (queued, now));
    }

    /// Game `id` asks for a search: its reservation, if any, is given back.
    pub fn claim(&self, id: &str) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.remove(id);
    }

    /// Gives back the reservations older than [`RESERVED_AT_MOST`].
    pub fn expire(&self, now: Instant) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.retain(|_, (_, since)| now.duration_since(*since) < RESERVED_AT_MOST);
    }
}

/// One search in the backlog, from when it is asked for until it ends or is given up.
#[must_use = "a search leaves the backlog when this is dropped"]
pub struct Queued(Arc<AtomicUsize>);

impl Drop for Queued {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Backlog {
    /// Counts one more search until the returned guard drops.
    pub fn queued(&self) -> Queued {
        self.queued.fetch_add(1, Ordering::Relaxed);
        Queued(Arc::clone(&self.queued))
    }

    /// A search ran for `took`.
    pub fn took(&self, took: Duration) {
        weigh_in(&self.mean_micros, took);
    }

    /// A search waited `waited` for its thread.
    pub fn waited(&self, waited: Duration) {
        weigh_in(&self.waited_micros, waited);
    }

    /// The wait of a search asked for now on `threads` threads: every thread's share of the
    /// searches ahead (rounded down: with as many threads as searches, none waits), each
    /// taking the mean.
    /// And while anything is queued, at least what searches lately waited.
    pub fn expected_wait(&self, threads: usize) -> Duration {
        let queued = self.queued.load(Ordering::Relaxed);
        if queued == 0 {
            return Duration::ZERO;
        }
        let ahead = queued / threads.max(1);
        let mean = match self.mean_micros.load(Ordering::Relaxed) {
            0 => PRIOR_MEAN,
            micros => Duration::from_micros(micros),
        };
        let queue = mean.saturating_mul(u32::try_from(ahead).unwrap_or(u32::MAX));
        queue.max(Duration::from_micros(
            self.waited_micros.load(Ordering::Relaxed),
        ))
    }
}

/// Weighs `sample` into the weighted mean `mean` (in microseconds; the first sample is the mean).
fn weigh_in(mean: &AtomicU64, sample: Duration) {
    let sample = u64::try_from(sample.as_micros()).unwrap_or(u64::MAX);
    let _ = mean.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |mean| {
        Some(if mean == 0 {
            sample.max(1)
        } else {
            (mean / NEWEST_WEIGHT * (NEWEST_WEIGHT - 1) + sample / NEWEST_WEIGHT).max(1)
        })
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn before_any_search_ended_a_search_is_assumed_to_take_the_prior() {
        let backlog = Backlog::default();
        assert_eq!(backlog.expected_wait(1), Duration::ZERO);
        let _two: Vec<Queued> = (0..2).map(|_| backlog.queued()).collect();
        assert_eq!(backlog.expected_wait(1), 2 * PRIOR_MEAN);
    }

    #[test]
    fn an_empty_queue_makes_nobody_wait() {
        let backlog = Backlog::default();
        backlog.took(Duration::from_secs(2));
        assert_eq!(backlog.expected_wait(1), Duration::ZERO);
    }

    #[test]
    fn a_newcomer_waits_for_the_searches_ahead_of_it_on_each_thread() {
        let backlog = Backlog::default();
        backlog.took(Duration::from_secs(2));
        let ahead: Vec<Queued> = (0..5).map(|_| backlog.queued()).collect();
        assert_eq!(backlog.expected_wait(1), Duration::from_secs(10));
        assert_eq!(backlog.expected_wait(2), Duration::from_secs(4));
        drop(ahead);
        assert_eq!(backlog.expected_wait(1), Duration::ZERO);
    }

    #[test]
    fn while_searches_are_queued_a_newcomer_waits_at_least_what_searches_lately_waited() {
        let backlog = Backlog::default();
        backlog.took(Duration::from_secs(2));
        backlog.waited(Duration::from_secs(12));
        // One search queued: the queue alone says 2 s, the searches lately waited 12 s.
        let one = backlog.queued();
        assert_eq!(backlog.expected_wait(1), Duration::from_secs(12));
        // Nothing queued: nothing to wait behind, whatever happened before.
        drop(one);
        assert_eq!(backlog.expected_wait(1), Duration::ZERO);
    }

    #[test]
    fn a_reservation_counts_until_its_game_claims_it_or_it_expires() {
        let backlog = Backlog::default();
        let reservations = Reservations::default();
        let t0 = Instant::now();
        reservations.keep("a", backlog.queued(), t0);
        reservations.keep("b", backlog.queued(), t0);
        assert_eq!(backlog.expected_wait(1), 2 * PRIOR_MEAN);
        reservations.claim("a");
        assert_eq!(backlog.expected_wait(1), PRIOR_MEAN);
        reservations.expire(t0 + RESERVED_AT_MOST);
        assert_eq!(backlog.expected_wait(1), Duration::ZERO);
    }

    #[test]
    fn the_mean_follows_the_latest_searches() {
        let backlog = Backlog::default();
        backlog.took(Duration::from_millis(2_000));
        for _ in 0..40 {
            backlog.took(Duration::from_millis(100));
        }
        let _one = backlog.queued();
        let wait = backlog.expected_wait(1);
        assert!(wait < Duration::from_millis(110), "{wait:?}");
        assert!(wait >= Duration::from_millis(100), "{wait:?}");
    }
}
