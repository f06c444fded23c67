//! Lag compensation, pure (issue 14): how much of a sub-move's time the network took, and how
//! much of it the mover gets back. Modelled on scalachess's `LagTracker`, per seat and per
//! sub-move (each sub-move is a network round trip: the client sees the position, answers,
//! and the server hears it a round trip after it was shown).
//!
//! The server measures each connection's round trip itself (WebSocket pings with a nonce,
//! `server::web::rtt`); a client may also report its own lag in its `move` message, which can only
//! lower what the server measured, never raise it. The compensation of one sub-move is
//! `min(quota, lag, time spent on the sub-move)`, and the quota it comes out of grows by a
//! fixed gain per sub-move, up to a cap: a steady lag is covered in full, while a client that
//! delays its pongs to look slow gains at most the quota, and never more than its measured
//! lag + [`SPIKE_ALLOWANCE`] on one sub-move. The formula, constants and reasons are in
//! docs/protocol.md section 4.

use std::time::Duration;

use super::event::ClockSpec;
use super::speed::estimated_secs;

/// The most a sub-move's quota gain may be: 1 s (scalachess's 100 centiseconds).
pub const MAX_GAIN: Duration = Duration::from_millis(1_000);

/// How far above the smoothed round trip the latest sample may count, for one sub-move: a
/// spike is compensated up to this much more than the usual lag (lichess's 140 ms).
pub const SPIKE_ALLOWANCE: Duration = Duration::from_millis(140);

/// The longest flag grace: a flag falls at most this long after the clock reads zero.
pub const MAX_GRACE: Duration = Duration::from_secs(2);

/// The quota starts at this many gains and never holds more than [`QUOTA_CAP_GAINS`].
pub const QUOTA_START_GAINS: u32 = 3;
pub const QUOTA_CAP_GAINS: u32 = 7;

/// What the server knows of the lag of the connection a sub-move came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lag {
    /// The connection's smoothed round trip, measured by the server.
    pub smoothed: Duration,
    /// Its latest round-trip sample, measured by the server.
    pub latest: Duration,
    /// What the client said it measured (`"lag"` in its `move`), if anything.
    pub claimed: Option<Duration>,
}

impl Lag {
    /// No lag: a computer player, a connection not yet measured, or compensation off.
    pub const NONE: Lag = Lag {
        smoothed: Duration::ZERO,
        latest: Duration::ZERO,
        claimed: None,
    };

    /// The lag a sub-move may be compensated for: the server's measure (the latest sample,
    /// but no more than the smoothed one + [`SPIKE_ALLOWANCE`], and no less than the smoothed
    /// one), lowered to the client's claim if it claims less. A claim never raises it.
    pub fn allowed(&self) -> Duration {
        let measured = self
            .latest
            .max(self.smoothed)
            .min(self.smoothed + SPIKE_ALLOWANCE);
        match self.claimed {
            Some(claimed) => claimed.min(measured),
            None => measured,
        }
    }
}

/// One seat's lag quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LagTracker {
    gain: Duration,
    quota: Duration,
}

impl LagTracker {
    /// A fresh tracker for a game with this clock: quota at [`QUOTA_START_GAINS`] gains.
    pub fn new(spec: ClockSpec) -> LagTracker {
        let gain = quota_gain(spec);
        LagTracker {
            gain,
            quota: gain * QUOTA_START_GAINS,
        }
    }

    /// A tracker that never compensates (`--lag-compensation off`).
    pub const OFF: LagTracker = LagTracker {
        gain: Duration::ZERO,
        quota: Duration::ZERO,
    };

    /// What one sub-move gains the quota.
    pub fn gain(&self) -> Duration {
        self.gain
    }

    /// What the quota holds now.
    pub fn quota(&self) -> Duration {
        self.quota
    }

    /// The most the quota may hold.
    pub fn cap(&self) -> Duration {
        self.gain * QUOTA_CAP_GAINS
    }

    /// How long after the clock reads zero the flag falls: `min(quota, 2 s)`, so that a
    /// sub-move already on its way when the clock ran out can still arrive and be compensated.
    pub fn grace(&self) -> Duration {
        self.quota.min(MAX_GRACE)
    }

    /// One sub-move that took `spent` on the mover's clock, from a connection with `lag`: the
    /// compensation (`min(quota, lag, spent)`) and the tracker after it (the quota less the
    /// compensation plus one gain, capped).
    pub fn on_submove(&self, lag: Lag, spent: Duration) -> (Duration, LagTracker) {
        let compensation = self.quota.min(lag.allowed()).min(spent);
        let quota = (self.quota - compensation + self.gain).min(self.cap());
        (
            compensation,
            LagTracker {
                gain: self.gain,
                quota,
            },
        )
    }
}

/// The quota gain per sub-move: `min(1 s, 0.4 x estimated seconds x 10 ms + 150 ms)`, i.e.
/// scalachess's `min(100, 0.4 x estimate + 15)` centiseconds, the estimate `base + 40 x
/// increment` seconds ([`estimated_secs`]).
pub fn quota_gain(spec: ClockSpec) -> Duration {
    // 0.4 x estimate centiseconds = 4 x estimate milliseconds.
    let ms = estimated_secs(spec).saturating_mul(4).saturating_add(150);
    Duration::from_millis(ms).min(MAX_GAIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn spec(base_secs: u32, increment_secs: u32) -> ClockSpec {
        ClockSpec {
            base_secs,
            increment_secs,
        }
    }

    fn measured(rtt: u64) -> Lag {
        Lag {
            smoothed: ms(rtt),
            latest: ms(rtt),
            claimed: None,
        }
    }

    #[test]
    fn the_quota_gain_is_four_ms_per_estimated_second_plus_150_ms_at_most_one_second() {
        // 1+0: 60 s estimated -> 0.4 x 60 + 15 = 39 cs.
        assert_eq!(quota_gain(spec(60, 0)), ms(390));
        // 3+0: 180 s -> 87 cs.
        assert_eq!(quota_gain(spec(180, 0)), ms(870));
        // 3+2: 260 s -> 119 cs, capped at 100.
        assert_eq!(quota_gain(spec(180, 2)), ms(1_000));
        assert_eq!(quota_gain(spec(0, 0)), ms(150));
    }

    #[test]
    fn the_quota_starts_at_three_gains_and_is_capped_at_seven() {
        let mut tracker = LagTracker::new(spec(60, 0));
        assert_eq!(tracker.quota(), ms(3 * 390));
        for _ in 0..20 {
            tracker = tracker.on_submove(Lag::NONE, ms(5_000)).1;
        }
        assert_eq!(tracker.quota(), ms(7 * 390));
    }

    #[test]
    fn a_submove_is_compensated_by_the_least_of_quota_lag_and_time_spent() {
        let tracker = LagTracker::new(spec(60, 0));
        // Lag the least.
        let (comp, after) = tracker.on_submove(measured(200), ms(3_000));
        assert_eq!(comp, ms(200));
        assert_eq!(after.quota(), ms(3 * 390 - 200 + 390));
        // Time spent the least: a premove that took 30 ms gets 30 ms back, not its lag.
        assert_eq!(tracker.on_submove(measured(200), ms(30)).0, ms(30));
        // Quota the least.
        let (comp, after) = tracker.on_submove(measured(5_000), ms(9_000));
        assert_eq!(comp, ms(3 * 390));
        assert_eq!(after.quota(), ms(390));
    }

    #[test]
    fn a_steady_lag_below_the_gain_is_compensated_in_full_on_every_submove() {
        let mut tracker = LagTracker::new(spec(180, 2));
        for _ in 0..80 {
            let (comp, after) = tracker.on_submove(measured(200), ms(2_000));
            assert_eq!(comp, ms(200));
            tracker = after;
        }
    }

    #[test]
    fn a_lag_above_the_gain_drains_the_quota_and_then_gets_only_the_gain() {
        let mut tracker = LagTracker::new(spec(60, 0));
        let mut total = Duration::ZERO;
        for _ in 0..10 {
            let (comp, after) = tracker.on_submove(measured(1_000), ms(2_000));
            total += comp;
            tracker = after;
        }
        // The starting quota plus nine gains (the last sub-move's gain is still in the quota).
        assert_eq!(total, ms(3 * 390 + 9 * 390));
        assert_eq!(tracker.on_submove(measured(1_000), ms(2_000)).0, ms(390));
    }

    #[test]
    fn no_submove_is_compensated_by_more_than_the_smoothed_lag_plus_140_ms() {
        let tracker = LagTracker::new(spec(600, 5));
        let spike = Lag {
            smoothed: ms(100),
            latest: ms(900),
            claimed: None,
        };
        assert_eq!(tracker.on_submove(spike, ms(5_000)).0, ms(240));
        let small_spike = Lag {
            latest: ms(170),
            ..spike
        };
        assert_eq!(tracker.on_submove(small_spike, ms(5_000)).0, ms(170));
    }

    #[test]
    fn a_claimed_lag_may_lower_the_measured_one_but_never_raise_it() {
        let tracker = LagTracker::new(spec(600, 5));
        let liar = Lag {
            claimed: Some(ms(1_000)),
            ..measured(2)
        };
        assert_eq!(tracker.on_submove(liar, ms(5_000)).0, ms(2));
        let honest = Lag {
            claimed: Some(ms(50)),
            ..measured(200)
        };
        assert_eq!(tracker.on_submove(honest, ms(5_000)).0, ms(50));
    }

    #[test]
    fn the_flag_grace_is_the_quota_at_most_two_seconds() {
        assert_eq!(LagTracker::new(spec(60, 0)).grace(), ms(1_170));
        assert_eq!(LagTracker::new(spec(180, 2)).grace(), ms(2_000));
        assert_eq!(LagTracker::OFF.grace(), Duration::ZERO);
        let drained = LagTracker::new(spec(60, 0))
            .on_submove(measured(5_000), ms(5_000))
            .1;
        assert_eq!(drained.grace(), ms(390));
    }

    #[test]
    fn a_tracker_that_is_off_never_compensates() {
        let (comp, after) = LagTracker::OFF.on_submove(measured(300), ms(3_000));
        assert_eq!(comp, Duration::ZERO);
        assert_eq!(after, LagTracker::OFF);
    }
}
