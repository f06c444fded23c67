//! Latency samples and counters collected by the load generator's tasks,
//! merged at the end. Samples are kept exactly (microseconds in a `Vec`,
//! sorted once for percentiles): a 60 s run at 20,000 samples/s is a few
//! megabytes, so no histogram approximation (or crate) is needed.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

/// At most this many samples per series are kept (bounds memory on very long runs).
const MAX_SAMPLES: usize = 20_000_000;

/// A series of latency samples in microseconds.
#[derive(Default, Debug, Clone)]
pub struct Samples(Vec<u32>);

impl Samples {
    pub fn record(&mut self, elapsed: Duration) {
        if self.0.len() < MAX_SAMPLES {
            self.0
                .push(u32::try_from(elapsed.as_micros()).unwrap_or(u32::MAX));
        }
    }

    pub fn merge(&mut self, other: Samples) {
        let room = MAX_SAMPLES.saturating_sub(self.0.len());
        self.0.extend(other.0.into_iter().take(room));
    }

    /// Percentiles in milliseconds (nearest rank); `None` without samples.
    pub fn summary(mut self) -> Option<Percentiles> {
        if self.0.is_empty() {
            return None;
        }
        self.0.sort_unstable();
        let v = &self.0;
        let rank = |q: f64| {
            // Nearest rank: the smallest sample with at least q of all samples at or below it.
            let index = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
            f64::from(v[index]) / 1000.0
        };
        let sum: u64 = v.iter().map(|&x| u64::from(x)).sum();
        Some(Percentiles {
            count: v.len(),
            mean_ms: sum as f64 / v.len() as f64 / 1000.0,
            p50_ms: rank(0.50),
            p99_ms: rank(0.99),
            p999_ms: rank(0.999),
            max_ms: f64::from(v[v.len() - 1]) / 1000.0,
        })
    }
}

/// What a latency series comes to.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Percentiles {
    pub count: usize,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

/// Everything one game slot (its players and spectators) measured.
#[derive(Default, Debug)]
pub struct Tally {
    /// Mover's send to the opponent's receipt of the `move` event.
    pub to_opponent: Samples,
    /// Mover's send to a spectator's receipt of the `move` event.
    pub to_spectator: Samples,
    /// Mover's send to its own `ack`.
    pub to_ack: Samples,
    /// Moves sent inside the measurement window.
    pub sent: u64,
    /// Acks received inside the measurement window.
    pub acked: u64,
    /// Acks received at any time (setup and drain included).
    pub acked_total: u64,
    pub games_started: u64,
    pub games_finished: u64,
    /// Games given up because nothing arrived for a long time.
    pub games_stalled: u64,
    /// Game setups (HTTP or WebSocket) that failed.
    pub setup_failures: u64,
    /// `error` messages from the server, by code.
    pub errors: BTreeMap<String, u64>,
    /// Connections the server closed, by close code (0: no close frame).
    pub closes: BTreeMap<u16, u64>,
    /// Frames that were not the JSON the protocol describes.
    pub unparsed: u64,
    /// Games that ended, by the `reason` of their `end` event.
    pub endings: BTreeMap<String, u64>,
    /// Sizes of the `move` events received, to size the echo floor.
    pub move_event_bytes: u64,
    pub move_events: u64,
    /// Spectators' `hello`s sent, and `state` replies received (count and
    /// bytes), inside the window (`--spectator-hello-rate`).
    pub hellos_sent: u64,
    pub states: u64,
    pub state_bytes: u64,
}

impl Tally {
    pub fn merge(&mut self, other: Tally) {
        self.to_opponent.merge(other.to_opponent);
        self.to_spectator.merge(other.to_spectator);
        self.to_ack.merge(other.to_ack);
        self.sent += other.sent;
        self.acked += other.acked;
        self.acked_total += other.acked_total;
        self.games_started += other.games_started;
        self.games_finished += other.games_finished;
        self.games_stalled += other.games_stalled;
        self.setup_failures += other.setup_failures;
        self.hellos_sent += other.hellos_sent;
        self.states += other.states;
        self.state_bytes += other.state_bytes;
        for (code, n) in other.errors {
            *self.errors.entry(code).or_default() += n;
        }
        for (code, n) in other.closes {
            *self.closes.entry(code).or_default() += n;
        }
        for (reason, n) in other.endings {
            *self.endings.entry(reason).or_default() += n;
        }
        self.unparsed += other.unparsed;
        self.move_event_bytes += other.move_event_bytes;
        self.move_events += other.move_events;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let mut s = Samples::default();
        for ms in 1..=1000 {
            s.record(Duration::from_millis(ms));
        }
        let p = s.summary().expect("samples");
        assert_eq!(p.count, 1000);
        assert_eq!(p.p50_ms, 500.0);
        assert_eq!(p.p99_ms, 990.0);
        assert_eq!(p.p999_ms, 999.0);
        assert_eq!(p.max_ms, 1000.0);
    }

    #[test]
    fn no_samples_have_no_percentiles() {
        assert!(Samples::default().summary().is_none());
    }
}
