//! Rate limits keyed by something other than an address: the per-username limit on login
//! attempts (password guessing against one account from many addresses). The same token bucket
//! ([`TokenBucket`]) and the same bounded table as the per-address [`AddressLimiter`]
//! (`ratelimit.rs`, which the per-address limits of the account routes use as it is).
//!
//! [`AddressLimiter`]: crate::server::web::ratelimit::AddressLimiter

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Instant;

use crate::server::web::bucket::TokenBucket;
use crate::server::web::ratelimit::Limited;

/// Most keys remembered at once. Full: refilled buckets are dropped first (forgetting them
/// changes nothing), else the one used longest ago.
pub const MAX_KEYS: usize = 16_384;

/// `burst` attempts at once per key, refilled at `rate` per second; rate 0 turns it off.
pub struct KeyedLimiter<K> {
    rate: f64,
    burst: f64,
    capacity: usize,
    table: Mutex<HashMap<K, TokenBucket>>,
}

impl<K: Hash + Eq + Clone> KeyedLimiter<K> {
    pub fn new(rate_per_sec: f64, burst: f64) -> Self {
        Self::with_capacity(rate_per_sec, burst, MAX_KEYS)
    }

    fn with_capacity(rate_per_sec: f64, burst: f64, capacity: usize) -> Self {
        KeyedLimiter {
            rate: rate_per_sec,
            burst: burst.max(1.0),
            capacity: capacity.max(1),
            table: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one attempt for `key` at `now`.
    pub fn check(&self, key: &K, now: Instant) -> Result<(), Limited> {
        if self.rate <= 0.0 {
            return Ok(());
        }
        // A poisoned lock only means another request panicked mid-update; the map is valid.
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        if !table.contains_key(key) && table.len() >= self.capacity {
            table.retain(|_, bucket| !bucket.is_full_at(now));
            if table.len() >= self.capacity
                && let Some(oldest) = table
                    .iter()
                    .min_by_key(|(_, bucket)| bucket.last_used())
                    .map(|(key, _)| key.clone())
            {
                table.remove(&oldest);
            }
        }
        let bucket = table
            .entry(key.clone())
            .or_insert_with(|| TokenBucket::new(self.rate, self.burst, now));
        if bucket.take(now) {
            Ok(())
        } else {
            Err(Limited {
                retry_after_secs: bucket.wait_secs().ceil().clamp(1.0, 86_400.0) as u64,
            })
        }
    }

    /// Keys currently remembered.
    pub fn tracked(&self) -> usize {
        self.table.lock().map_or(0, |table| table.len())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn each_key_has_its_own_bucket() {
        let limiter = KeyedLimiter::new(1.0, 2.0);
        let t0 = Instant::now();
        let (a, b) = ("alice".to_owned(), "bob".to_owned());
        assert!(limiter.check(&a, t0).is_ok());
        assert!(limiter.check(&a, t0).is_ok());
        assert_eq!(
            limiter.check(&a, t0),
            Err(Limited {
                retry_after_secs: 1
            })
        );
        assert!(limiter.check(&b, t0).is_ok(), "another key is not limited");
        assert!(limiter.check(&a, t0 + Duration::from_secs(1)).is_ok());
    }

    #[test]
    fn the_table_never_grows_past_its_capacity() {
        let limiter = KeyedLimiter::with_capacity(1.0, 1.0, 8);
        let t0 = Instant::now();
        for i in 0..1000u32 {
            let _ = limiter.check(&i, t0);
            assert!(limiter.tracked() <= 8);
        }
    }

    #[test]
    fn a_zero_rate_turns_the_limit_off() {
        let limiter = KeyedLimiter::new(0.0, 1.0);
        let t0 = Instant::now();
        assert!((0..100).all(|_| limiter.check(&"x", t0).is_ok()));
        assert_eq!(limiter.tracked(), 0);
    }
}
