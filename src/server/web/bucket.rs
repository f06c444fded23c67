//! The token bucket every rate limit of the server is made of, driven by
//! explicit `Instant`s: `burst` requests at once, refilled at `rate` per
//! second. Used for the frames of a WebSocket ([`crate::server::web::frame_meter`]), a
//! connection's `hello`s and a game's player actions ([`crate::server::play::room`]), and
//! seat grants per client address ([`crate::server::web::ratelimit`]).

use std::time::Instant;

#[derive(Clone, Debug)]
pub struct TokenBucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    at: Instant,
}

impl TokenBucket {
    /// A full bucket. `rate` 0 never refills (tests use it to be exact).
    pub fn new(rate: f64, burst: f64, now: Instant) -> TokenBucket {
        let burst = burst.max(1.0);
        TokenBucket {
            tokens: burst,
            rate: rate.max(0.0),
            burst,
            at: now,
        }
    }

    /// Takes one token; false (and nothing taken) when none is left.
    pub fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.at = self.at.max(now);
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Seconds from the last `take` until a token is there again
    /// (infinite for a bucket that never refills).
    pub fn wait_secs(&self) -> f64 {
        if self.tokens >= 1.0 {
            0.0
        } else if self.rate > 0.0 {
            (1.0 - self.tokens) / self.rate
        } else {
            f64::INFINITY
        }
    }

    /// Whether the bucket is full again at `now`: forgetting it then changes
    /// nothing, since a new bucket starts full.
    pub fn is_full_at(&self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens + elapsed * self.rate >= self.burst
    }

    /// When a token was last asked for.
    pub fn last_used(&self) -> Instant {
        self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_bucket_allows_its_burst_then_its_rate() {
        let t0 = Instant::now();
        let mut bucket = TokenBucket::new(1.0, 3.0, t0);
        assert!((0..3).all(|_| bucket.take(t0)));
        assert!(!bucket.take(t0));
        assert!(!bucket.take(t0 + Duration::from_millis(900)));
        assert!(bucket.take(t0 + Duration::from_millis(1000)));
        assert!(!bucket.take(t0 + Duration::from_millis(1000)));
        // Never more than the burst, however long it rested.
        let later = t0 + Duration::from_secs(3600);
        assert!((0..3).all(|_| bucket.take(later)));
        assert!(!bucket.take(later));
    }

    #[test]
    fn an_empty_bucket_says_how_long_until_its_next_token_and_when_it_is_full() {
        let t0 = Instant::now();
        let mut bucket = TokenBucket::new(2.0, 2.0, t0);
        assert_eq!(bucket.wait_secs(), 0.0);
        assert!(bucket.take(t0) && bucket.take(t0));
        assert!(!bucket.take(t0));
        assert_eq!(bucket.wait_secs(), 0.5);
        assert!(!bucket.is_full_at(t0 + Duration::from_millis(900)));
        assert!(bucket.is_full_at(t0 + Duration::from_secs(1)));
        let mut never = TokenBucket::new(0.0, 1.0, t0);
        assert!(never.take(t0) && !never.take(t0 + Duration::from_secs(60)));
        assert!(never.wait_secs().is_infinite());
    }

    #[test]
    fn a_bucket_with_rate_zero_never_refills_and_time_going_back_is_ignored() {
        let t0 = Instant::now() + Duration::from_secs(10);
        let mut bucket = TokenBucket::new(0.0, 1.0, t0);
        assert!(bucket.take(t0));
        assert!(!bucket.take(t0 + Duration::from_secs(1_000_000)));
        let mut bucket = TokenBucket::new(1.0, 1.0, t0);
        assert!(bucket.take(t0));
        assert!(!bucket.take(t0 - Duration::from_secs(5)));
        assert!(bucket.take(t0 + Duration::from_secs(1)));
    }
}
