//! The pools the lobby offers: one per clock, each in a rated and a casual queue, and how
//! often each one's wave runs. The waves follow lichess's (12-40 s, longer for slower clocks:
//! a bullet player waits less gladly), with up to [`JITTER`] added so that waves of several
//! pools do not fall on the same instant; a wave also runs at once when [`Pool::full`]
//! players wait, as many as a wave is worth.

use std::time::Duration;

use crate::server::game::ClockSpec;

/// One pool's clock and wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool {
    /// Its name on the wire and in the lobby: `"3+2"`.
    pub id: &'static str,
    pub clock: ClockSpec,
    /// Time between two waves (before the jitter).
    pub every: Duration,
    /// A wave runs at once when this many wait in one queue.
    pub full: usize,
}

const fn pool(id: &'static str, base: u32, inc: u32, every_secs: u64, full: usize) -> Pool {
    Pool {
        id,
        clock: ClockSpec {
            base_secs: base,
            increment_secs: inc,
        },
        every: Duration::from_secs(every_secs),
        full,
    }
}

/// The pools, fastest first (the lobby's order).
pub const POOLS: [Pool; 6] = [
    pool("1+0", 60, 0, 12, 20),
    pool("3+0", 180, 0, 15, 30),
    pool("3+2", 180, 2, 20, 30),
    pool("5+3", 300, 3, 25, 26),
    pool("10+5", 600, 5, 30, 24),
    pool("15+10", 900, 10, 40, 20),
];

/// Most time added to a wave's period, drawn anew after every wave.
pub const JITTER: Duration = Duration::from_secs(2);

/// A queue: a pool's rated or casual side. Rated queues take accounts only; in a casual
/// queue accounts meet accounts and anonymous players meet anonymous ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueueKey {
    /// Index into [`POOLS`].
    pub pool: usize,
    pub rated: bool,
}

impl QueueKey {
    /// The pool named `id` (`"3+2"`), on its rated or casual side.
    pub fn find(id: &str, rated: bool) -> Option<QueueKey> {
        POOLS
            .iter()
            .position(|p| p.id == id)
            .map(|pool| QueueKey { pool, rated })
    }

    pub fn pool(self) -> &'static Pool {
        &POOLS[self.pool]
    }

    /// Every queue, in the lobby's order (each pool rated, then casual).
    pub fn all() -> impl Iterator<Item = QueueKey> {
        (0..POOLS.len()).flat_map(|pool| {
            [true, false]
                .into_iter()
                .map(move |rated| QueueKey { pool, rated })
        })
    }

    /// Its place in a table of every queue (`all()`'s order).
    pub fn index(self) -> usize {
        self.pool * 2 + usize::from(!self.rated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_found_by_name_and_indexed_in_the_lobbys_order() {
        let key = QueueKey::find("3+2", true).expect("3+2 is a pool");
        assert_eq!(key.pool().clock.base_secs, 180);
        assert_eq!(key.pool().clock.increment_secs, 2);
        assert_eq!(QueueKey::find("3+1", true), None);
        let indices: Vec<usize> = QueueKey::all().map(QueueKey::index).collect();
        assert_eq!(indices, (0..POOLS.len() * 2).collect::<Vec<_>>());
    }

    #[test]
    fn waves_run_every_12_to_40_seconds_slower_for_slower_clocks() {
        for pair in POOLS.windows(2) {
            assert!(pair[0].every <= pair[1].every, "{pair:?}");
        }
        assert!(POOLS.iter().all(|p| (12..=40).contains(&p.every.as_secs())));
    }
}
