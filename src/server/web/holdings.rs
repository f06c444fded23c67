//! How many of a resource each key holds at once, with a cap: the open sockets of one client
//! address and of one account (lobby channels, game sockets), its open games and its games
//! against the computer. A connection (a game) takes a [`Hold`] before it is accepted (made)
//! and gives it back when it drops, however it ends.
//!
//! A client's keys are taken together or not at all (a signed-in page counts for its address
//! and its account), under one lock never held across an await. The table holds only keys with
//! something open, so it is bounded by the open connections themselves.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// The counts of one kind of resource, each key at most `max` (0: no cap).
pub struct Holdings<K> {
    max: u32,
    counts: Mutex<HashMap<K, u32>>,
}

/// Refused: one of the keys already holds `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at most {max} at once")]
pub struct Full {
    pub max: u32,
}

/// One unit held by each of a client's keys, given back on drop.
pub struct Hold<K: Hash + Eq + Clone> {
    holdings: Arc<Holdings<K>>,
    keys: Vec<K>,
}

impl<K: Hash + Eq + Clone> Holdings<K> {
    pub fn new(max: u32) -> Arc<Holdings<K>> {
        Arc::new(Holdings {
            max,
            counts: Mutex::new(HashMap::new()),
        })
    }

    /// One more for every key of `keys`, unless one of them is at the cap.
    pub fn take(self: &Arc<Self>, keys: impl IntoIterator<Item = K>) -> Result<Hold<K>, Full> {
        let keys: Vec<K> = keys.into_iter().collect();
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if self.max > 0
            && keys
                .iter()
                .any(|key| counts.get(key).copied().unwrap_or(0) >= self.max)
        {
            return Err(Full { max: self.max });
        }
        for key in &keys {
            *counts.entry(key.clone()).or_insert(0) += 1;
        }
        Ok(Hold {
            holdings: Arc::clone(self),
            keys,
        })
    }

    /// One more for every key of `keys`, even past the cap: for what exists already and must
    /// be counted (a game restored after a restart, a rematch that replaces a finished game).
    pub fn force(self: &Arc<Self>, keys: impl IntoIterator<Item = K>) -> Hold<K> {
        let keys: Vec<K> = keys.into_iter().collect();
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        for key in &keys {
            *counts.entry(key.clone()).or_insert(0) += 1;
        }
        Hold {
            holdings: Arc::clone(self),
            keys,
        }
    }

    /// What `key` holds now.
    pub fn held(&self, key: &K) -> u32 {
        self.counts
            .lock()
            .map_or(0, |counts| counts.get(key).copied().unwrap_or(0))
    }

    /// Keys holding something now.
    pub fn holders(&self) -> usize {
        self.counts.lock().map_or(0, |counts| counts.len())
    }
}

impl<K: Hash + Eq + Clone> Hold<K> {
    /// The keys this hold counts for.
    pub fn keys(&self) -> &[K] {
        &self.keys
    }
}

impl<K: Hash + Eq + Clone> Drop for Hold<K> {
    fn drop(&mut self) {
        let mut counts = self
            .holdings
            .counts
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for key in &self.keys {
            if let Some(count) = counts.get_mut(key) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    counts.remove(key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_holds_up_to_its_cap_and_gets_one_back_when_a_hold_drops() {
        let holdings = Holdings::new(2);
        let a = holdings.take(["a"]).expect("first");
        let _b = holdings.take(["a"]).expect("second");
        assert_eq!(holdings.take(["a"]).err(), Some(Full { max: 2 }));
        assert!(holdings.take(["other"]).is_ok(), "other keys unaffected");
        drop(a);
        assert!(holdings.take(["a"]).is_ok());
    }

    #[test]
    fn a_clients_keys_are_taken_together_or_not_at_all() {
        let holdings = Holdings::new(1);
        let _address = holdings.take(["address"]).expect("the address");
        assert!(holdings.take(["address", "account"]).is_err());
        assert_eq!(
            holdings.held(&"account"),
            0,
            "nothing taken for the account"
        );
        assert_eq!(holdings.holders(), 1);
    }

    #[test]
    fn a_forced_hold_counts_past_the_cap_and_the_key_is_refused_until_it_is_below_again() {
        let holdings = Holdings::new(1);
        let _held = holdings.take(["a"]).expect("first");
        let forced = holdings.force(["a", "b"]);
        assert_eq!((holdings.held(&"a"), holdings.held(&"b")), (2, 1));
        assert_eq!(forced.keys(), &["a", "b"]);
        assert!(holdings.take(["a"]).is_err());
        drop(forced);
        assert_eq!(holdings.held(&"b"), 0);
        assert!(holdings.take(["a"]).is_err(), "still at its cap of 1");
    }

    #[test]
    fn the_table_forgets_a_key_once_it_holds_nothing_and_a_cap_of_zero_is_no_cap() {
        let holdings = Holdings::new(0);
        let held: Vec<_> = (0..100)
            .map(|_| holdings.take(["a", "b"]).expect("no cap"))
            .collect();
        assert_eq!(holdings.held(&"a"), 100);
        drop(held);
        assert_eq!(holdings.holders(), 0);
    }
}
