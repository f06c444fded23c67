//! Token buckets kept per key in a table of bounded size: seat grants per client address
//! (`POST /api/games`, `POST /api/games/{id}/join`: each costs memory and a store write, and one
//! client once created 5 000 games in a second), and chat lines per address and per account
//! ([`crate::server::chat::flood`]).
//!
//! Addresses: an IPv4 address is one client; an IPv6 client usually holds a
//! whole /64, so IPv6 addresses are keyed by their /64 prefix (else one host
//! could use a fresh address per request). IPv4-mapped IPv6 is IPv4.
//!
//! Bound: at most [`MAX_ADDRESSES`] entries. When the table is full, the
//! entries whose bucket has refilled are dropped first (forgetting them
//! changes nothing: a new entry starts full); if none has, the one used
//! longest ago goes. Many keys can thus reset each other's buckets,
//! but never grow the table.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use crate::server::web::bucket::TokenBucket;

/// Most keys remembered at once.
pub const MAX_ADDRESSES: usize = 16_384;

/// The key a client address is limited by (the pools count seeks by it too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    V4(u32),
    /// The first 64 bits of an IPv6 address.
    V6(u64),
}

impl From<IpAddr> for Client {
    fn from(ip: IpAddr) -> Client {
        match ip {
            IpAddr::V4(v4) => Client::V4(u32::from(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Client::V4(u32::from(v4)),
                None => Client::V6((u128::from(v6) >> 64) as u64),
            },
        }
    }
}

/// Who holds or spends a shared resource: a client address, or a signed-in account (`A`, its
/// id: the web layer does not know the accounts' type). A limit "per address and per account"
/// checks both keys of a signed-in client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Holder<A> {
    Address(Client),
    Account(A),
}

impl<A> Holder<A> {
    /// The keys of a client at `ip`, signed in as `account` or not.
    pub fn of(ip: IpAddr, account: Option<A>) -> impl Iterator<Item = Holder<A>> {
        std::iter::once(Holder::Address(Client::from(ip))).chain(account.map(Holder::Account))
    }
}

/// The limiter: `burst` grants at once per key, refilled at `rate`
/// per second. A rate of 0 turns it off.
pub struct KeyedLimiter<K> {
    rate: f64,
    burst: f64,
    capacity: usize,
    table: Mutex<HashMap<K, TokenBucket>>,
}

/// Seat grants per client address.
pub type AddressLimiter = KeyedLimiter<Client>;

/// Refused: seconds until the next grant is possible.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limited {
    pub retry_after_secs: u64,
}

impl AddressLimiter {
    /// Takes one grant for `ip` at `now`.
    pub fn check(&self, ip: IpAddr, now: Instant) -> Result<(), Limited> {
        self.check_key(Client::from(ip), now)
    }
}

impl<K: Hash + Eq + Clone> KeyedLimiter<K> {
    pub fn new(rate_per_sec: f64, burst: f64) -> KeyedLimiter<K> {
        KeyedLimiter::with_capacity(rate_per_sec, burst, MAX_ADDRESSES)
    }

    fn with_capacity(rate_per_sec: f64, burst: f64, capacity: usize) -> KeyedLimiter<K> {
        KeyedLimiter {
            rate: rate_per_sec,
            burst: burst.max(1.0),
            capacity: capacity.max(1),
            table: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one grant for `key` at `now`.
    pub fn check_key(&self, key: K, now: Instant) -> Result<(), Limited> {
        if self.rate <= 0.0 {
            return Ok(());
        }
        // A poisoned lock only means another request panicked mid-update;
        // the table is still a valid map.
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        if !table.contains_key(&key) && table.len() >= self.capacity {
            self.make_room(&mut table, now);
        }
        let bucket = table
            .entry(key)
            .or_insert_with(|| TokenBucket::new(self.rate, self.burst, now));
        if bucket.take(now) {
            Ok(())
        } else {
            Err(Limited {
                retry_after_secs: bucket.wait_secs().ceil().clamp(1.0, 86_400.0) as u64,
            })
        }
    }

    /// Drops every refilled bucket; if none was, the least recently used.
    fn make_room(&self, table: &mut HashMap<K, TokenBucket>, now: Instant) {
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

    /// Keys currently remembered.
    pub fn tracked(&self) -> usize {
        self.table.lock().map_or(0, |table| table.len())
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, Ipv6Addr};
    use std::time::Duration;

    use super::*;

    fn v4(last: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(192, 0, 2, last))
    }

    #[test]
    fn a_burst_is_granted_then_refused_until_the_bucket_refills() {
        let limiter: AddressLimiter = KeyedLimiter::new(2.0, 3.0);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(limiter.check(v4(1), t0), Ok(()));
        }
        let refused = limiter.check(v4(1), t0).unwrap_err();
        assert_eq!(refused.retry_after_secs, 1);
        assert_eq!(
            limiter.check(v4(2), t0),
            Ok(()),
            "other addresses unaffected"
        );
        assert_eq!(
            limiter.check(v4(1), t0 + Duration::from_millis(500)),
            Ok(())
        );
        assert!(
            limiter
                .check(v4(1), t0 + Duration::from_millis(500))
                .is_err()
        );
    }

    #[test]
    fn a_zero_rate_turns_the_limit_off() {
        let limiter: AddressLimiter = KeyedLimiter::new(0.0, 1.0);
        let now = Instant::now();
        for _ in 0..1000 {
            assert_eq!(limiter.check(v4(1), now), Ok(()));
        }
        assert_eq!(limiter.tracked(), 0);
    }

    #[test]
    fn ipv6_addresses_of_one_64_prefix_share_a_bucket_and_mapped_ipv4_is_ipv4() {
        let limiter: AddressLimiter = KeyedLimiter::new(1.0, 2.0);
        let now = Instant::now();
        let a = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 1, 2, 0, 0, 0, 1));
        let b = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 1, 2, 9, 9, 9, 9));
        let other = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 1, 3, 0, 0, 0, 1));
        assert!(limiter.check(a, now).is_ok());
        assert!(limiter.check(b, now).is_ok());
        assert!(limiter.check(a, now).is_err());
        assert!(limiter.check(other, now).is_ok());
        let mapped = IpAddr::V6(Ipv4Addr::new(192, 0, 2, 7).to_ipv6_mapped());
        assert!(limiter.check(mapped, now).is_ok());
        assert!(limiter.check(v4(7), now).is_ok());
        assert!(limiter.check(v4(7), now).is_err());
    }

    #[test]
    fn many_addresses_never_grow_the_table_past_its_capacity() {
        let limiter: AddressLimiter = KeyedLimiter::with_capacity(1.0, 5.0, 100);
        let now = Instant::now();
        for i in 0..10_000u32 {
            let ip = IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i));
            assert!(limiter.check(ip, now).is_ok());
            assert!(limiter.tracked() <= 100);
        }
        assert_eq!(limiter.tracked(), 100);
    }

    #[test]
    fn refilled_buckets_are_dropped_first_when_the_table_is_full() {
        let limiter: AddressLimiter = KeyedLimiter::with_capacity(1.0, 2.0, 3);
        let t0 = Instant::now();
        // Address 1 is spent; 2 and 3 are used once and then left alone.
        assert!(limiter.check(v4(1), t0).is_ok());
        assert!(limiter.check(v4(2), t0).is_ok());
        assert!(limiter.check(v4(3), t0).is_ok());
        let later = t0 + Duration::from_millis(1500);
        assert!(limiter.check(v4(1), later).is_ok());
        assert!(limiter.check(v4(1), later).is_ok());
        // Address 1 (empty, used at 1.5 s) survives a newcomer at 2 s, when
        // 2 and 3 are full again.
        let t2 = t0 + Duration::from_secs(2);
        assert!(limiter.check(v4(4), t2).is_ok());
        assert_eq!(limiter.tracked(), 2);
        assert!(limiter.check(v4(1), t2).is_err());
    }
}
