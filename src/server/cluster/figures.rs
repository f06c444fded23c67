//! The lease and relay figures of `/metrics` (several nodes): how many games this node runs
//! and relays, claims by result, renewals and their duration, leases lost, relays resynced.
//! Written only when the server is one node of several.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::server::metrics::Histogram;

#[derive(Default)]
pub struct LeaseFigures {
    pub claims_owned: AtomicU64,
    pub claims_held: AtomicU64,
    pub renewals: AtomicU64,
    /// Rooms stopped because their lease was gone (not renewed, or a commit fenced).
    pub lost: AtomicU64,
    pub renew_latency: Histogram,
    /// Relays that closed their sockets so that they reconnect (a gap, the game moved, the
    /// owner died, the bus lost messages).
    pub relay_resyncs: AtomicU64,
}

impl LeaseFigures {
    /// The figures in the Prometheus text format; `owned` and `relayed` are counted by the
    /// registry at the time of the scrape.
    pub fn render(&self, out: &mut String, owned: usize, relayed: usize) {
        for (name, help, value) in [
            (
                "marseillais_games_owned",
                "Games whose room this node runs under a lease.",
                owned,
            ),
            (
                "marseillais_games_relayed",
                "Games this node relays to their owner on another node.",
                relayed,
            ),
        ] {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
            );
        }
        let name = "marseillais_lease_claims_total";
        let _ = writeln!(
            out,
            "# HELP {name} Claims of a game's lease, by result.\n# TYPE {name} counter\n{name}{{result=\"owned\"}} {}\n{name}{{result=\"held\"}} {}",
            self.claims_owned.load(Ordering::Relaxed),
            self.claims_held.load(Ordering::Relaxed)
        );
        for (name, help, value) in [
            (
                "marseillais_lease_renewals_total",
                "Renewals of all this node's leases (one statement each).",
                &self.renewals,
            ),
            (
                "marseillais_leases_lost_total",
                "Rooms stopped because this node lost the game's lease.",
                &self.lost,
            ),
            (
                "marseillais_relay_resyncs_total",
                "Relays that closed their sockets (1012) so that they reconnect and resync.",
                &self.relay_resyncs,
            ),
        ] {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                value.load(Ordering::Relaxed)
            );
        }
        self.renew_latency.write(
            out,
            "marseillais_lease_renew_seconds",
            "Time of one renewal of all this node's leases.",
        );
    }
}
