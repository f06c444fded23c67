//! A connection's chat rate: [`ChatRate`], the server's token bucket with `burst` lines at
//! once, refilled at `burst` per `window` (default 3 lines per 5 s). A line beyond it is
//! refused with `rate_limited`; the connection is kept and may chat again once a token is back.
//! It is per connection (the rule), on top of the frame rate limit every socket has.

use std::time::{Duration, Instant};

use crate::server::web::bucket::TokenBucket;

/// One connection's allowance of chat lines.
#[derive(Clone, Debug)]
pub struct ChatRate {
    bucket: TokenBucket,
}

impl ChatRate {
    pub fn new(burst: u32, window: Duration, now: Instant) -> ChatRate {
        let burst = f64::from(burst.max(1));
        let rate = burst / window.as_secs_f64().max(0.001);
        ChatRate {
            bucket: TokenBucket::new(rate, burst, now),
        }
    }

    /// Takes one line's token; false (nothing taken) when the connection is over its rate.
    pub fn take(&mut self, now: Instant) -> bool {
        self.bucket.take(now)
    }

    /// Seconds until the next line is allowed.
    pub fn wait_secs(&self) -> f64 {
        self.bucket.wait_secs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_lines_pass_at_once_and_the_fourth_is_refused_until_the_window_refills() {
        let t0 = Instant::now();
        let mut rate = ChatRate::new(3, Duration::from_secs(5), t0);
        assert!(rate.take(t0));
        assert!(rate.take(t0));
        assert!(rate.take(t0));
        assert!(!rate.take(t0));
        assert!(!rate.take(t0 + Duration::from_millis(1500)));
        // 3 per 5 s: one line back every 5/3 s.
        assert!(rate.take(t0 + Duration::from_millis(1700)));
        assert!(!rate.take(t0 + Duration::from_millis(1700)));
        assert!(rate.take(t0 + Duration::from_secs(10)));
    }
}
