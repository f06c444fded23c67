//! One connection's round trip, measured by the server from its own WebSocket pings (issue
//! 14): each ping carries a fresh random nonce, and only the pong that echoes the nonce of the
//! one outstanding ping is a sample. A pong the client makes up (an old nonce, a guessed one,
//! an unsolicited pong) is ignored, so a hostile client can make its lag look longer (by
//! answering late, which the lag quota bounds) but never shorter or anything else.
//!
//! The estimate is an exponential moving average (a new sample counts for
//! 1/[`SMOOTHING`]), plus the latest sample: bounded memory (one outstanding ping, two
//! durations), and `game::lag` caps how far the latest may count above the average.

use std::time::{Duration, Instant};

use rand::Rng;

/// A new sample's weight in the average is 1/SMOOTHING.
pub const SMOOTHING: u32 = 4;

/// What the server measured of a connection's round trip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RttEstimate {
    pub smoothed: Duration,
    pub latest: Duration,
}

/// The ping in flight and the estimate so far.
#[derive(Clone, Debug, Default)]
pub struct RttMeter {
    outstanding: Option<([u8; 8], Instant)>,
    estimate: Option<RttEstimate>,
}

impl RttMeter {
    /// The payload of a new ping sent at `now`, with a fresh random nonce. It replaces any
    /// outstanding ping: an unanswered one gives no sample, and its late pong is ignored.
    pub fn ping(&mut self, now: Instant) -> [u8; 8] {
        let mut nonce = [0u8; 8];
        rand::rng().fill_bytes(&mut nonce);
        self.ping_with(nonce, now)
    }

    /// Whether a new ping may go out at `now`: none is outstanding, or the outstanding one has
    /// waited `give_up` without an answer. A ping is not replaced sooner, so that a link whose
    /// round trip is longer than the ping interval is still measured.
    pub fn may_ping(&self, now: Instant, give_up: Duration) -> bool {
        self.outstanding
            .is_none_or(|(_, sent)| now.saturating_duration_since(sent) >= give_up)
    }

    /// [`RttMeter::ping`] with a given nonce (tests).
    pub fn ping_with(&mut self, nonce: [u8; 8], now: Instant) -> [u8; 8] {
        self.outstanding = Some((nonce, now));
        nonce
    }

    /// A pong with `payload` received at `now`: the round-trip sample if it answers the
    /// outstanding ping (which it then settles), `None` (and nothing changed) otherwise.
    pub fn pong(&mut self, payload: &[u8], now: Instant) -> Option<Duration> {
        let (nonce, sent) = self.outstanding?;
        if payload != nonce {
            return None;
        }
        self.outstanding = None;
        let sample = now.saturating_duration_since(sent);
        let smoothed = match self.estimate {
            None => sample,
            Some(e) => (e.smoothed * (SMOOTHING - 1) + sample) / SMOOTHING,
        };
        self.estimate = Some(RttEstimate {
            smoothed,
            latest: sample,
        });
        Some(sample)
    }

    /// The estimate, once a pong answered.
    pub fn estimate(&self) -> Option<RttEstimate> {
        self.estimate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_pong_echoing_the_outstanding_nonce_is_a_sample_and_the_average_moves_a_quarter() {
        let t0 = Instant::now();
        let mut meter = RttMeter::default();
        let nonce = meter.ping(t0);
        assert_eq!(meter.pong(&nonce, t0 + ms(200)), Some(ms(200)));
        assert_eq!(
            meter.estimate(),
            Some(RttEstimate {
                smoothed: ms(200),
                latest: ms(200)
            })
        );
        let nonce = meter.ping(t0 + ms(1_000));
        assert_eq!(meter.pong(&nonce, t0 + ms(1_600)), Some(ms(600)));
        assert_eq!(
            meter.estimate(),
            Some(RttEstimate {
                smoothed: ms(300),
                latest: ms(600)
            })
        );
    }

    #[test]
    fn a_ping_waits_for_the_outstanding_one_unless_it_went_unanswered_too_long() {
        let t0 = Instant::now();
        let mut meter = RttMeter::default();
        assert!(meter.may_ping(t0, ms(1_000)));
        let nonce = meter.ping(t0);
        assert!(!meter.may_ping(t0 + ms(999), ms(1_000)));
        assert!(meter.may_ping(t0 + ms(1_000), ms(1_000)));
        meter.pong(&nonce, t0 + ms(400));
        assert!(meter.may_ping(t0 + ms(400), ms(1_000)));
    }

    #[test]
    fn a_pong_that_does_not_match_an_outstanding_ping_changes_nothing() {
        let t0 = Instant::now();
        let mut meter = RttMeter::default();
        // Unsolicited.
        assert_eq!(meter.pong(b"anything", t0), None);
        assert_eq!(meter.estimate(), None);
        let old = meter.ping_with(*b"oldnonce", t0);
        let new = meter.ping_with(*b"newnonce", t0 + ms(50));
        // The replaced ping's pong, a guessed nonce, an empty pong.
        assert_eq!(meter.pong(&old, t0 + ms(60)), None);
        assert_eq!(meter.pong(b"guessed!", t0 + ms(60)), None);
        assert_eq!(meter.pong(b"", t0 + ms(60)), None);
        assert_eq!(meter.estimate(), None);
        assert_eq!(meter.pong(&new, t0 + ms(250)), Some(ms(200)));
        // Answered once only: the same pong again is no sample.
        assert_eq!(meter.pong(&new, t0 + ms(251)), None);
        assert_eq!(meter.estimate().map(|e| e.latest), Some(ms(200)));
    }
}
