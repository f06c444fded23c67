//! Server counters and latency histograms, kept in atomics and written out
//! by hand in the Prometheus text format (`GET /metrics`).

use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::server::cluster::bus::{Bus, BusStats};

mod histogram;
pub use histogram::Histogram;

/// Everything `/metrics` shows except the live game count (read from the rooms map).
#[derive(Default)]
pub struct Metrics {
    pub connections: AtomicI64,
    pub submoves_accepted: AtomicU64,
    /// Times a room serialized the shared part of a game's snapshot (once
    /// per version at most; every other `state` reuses it).
    pub snapshots_serialized: AtomicU64,
    /// Room tasks found dead (a panic outside the room's guard) and started again.
    pub rooms_restarted: AtomicU64,
    /// TCP connections closed at accept because `--max-connections` were open.
    pub connections_refused: AtomicU64,
    /// Hellos (or WebSocket URLs) whose seat token holds no seat.
    pub bad_tokens: AtomicU64,
    /// Seat grants (create, join) refused by the per-address limit.
    pub rate_limited: AtomicU64,
    /// Replays being worked on now, and the most there ever were at once.
    pub replays_running: AtomicI64,
    pub replays_running_peak: AtomicI64,
    /// Engine searches running now and waiting for a slot (see [`crate::server::computer::engine_pool`]), and
    /// the most that ever ran at once (never above `--engine-threads`).
    pub engine_running: AtomicI64,
    pub engine_waiting: AtomicI64,
    pub engine_running_peak: AtomicI64,
    /// Engine searches started, and the microseconds they waited for a thread in all.
    pub engine_searches: AtomicU64,
    pub engine_wait_micros: AtomicU64,
    /// The computer's searches (one per sub-move) and the nodes they searched: the mean is
    /// the strength a level kept under load (issue 35).
    pub computer_searches: AtomicU64,
    pub computer_nodes: AtomicU64,
    /// New computer games refused because the engine queue was too long (`503 busy`).
    pub computer_games_refused: AtomicU64,
    /// Analyses being streamed now, started, refused (rate limit or the global cap), and
    /// positions searched for them (see [`crate::server::analysis`]).
    pub analyses_running: AtomicI64,
    pub analyses_started: AtomicU64,
    pub analyses_refused: AtomicU64,
    pub analysis_positions: AtomicU64,
    /// From receiving a `move` to broadcasting it (commit included).
    pub move_latency: Histogram,
    pub commit_latency: Histogram,
    /// One pool wave's matching (the queue's blossom solve), and the games quick pairing made.
    pub pool_wave: Histogram,
    pub pool_games: AtomicU64,
    /// One arena pairing step's decision (standings and matching), and the games arenas made.
    pub arena_pairing: Histogram,
    /// One whole arena pairing step that paired someone: the arena read, the decision, its
    /// games made (committed and started).
    pub arena_step: Histogram,
    pub arena_games: AtomicU64,
    /// Game sockets' WebSocket round trips, one sample per matched pong (`server::web::rtt`).
    pub ping_rtt: Histogram,
    /// Lag compensation credited to clocks (`game::lag`): milliseconds, and sub-moves.
    pub lag_compensation_ms: AtomicU64,
    pub lag_compensated_submoves: AtomicU64,
    /// Several nodes: leases claimed, renewed, lost; relays resynced
    /// ([`crate::server::cluster::figures`]).
    pub leases: crate::server::cluster::figures::LeaseFigures,
    /// The Redis bus, when this node is one of several (`--bus`): its counters are read
    /// from it when rendering (set once at startup, see [`Metrics::set_bus`]).
    bus: OnceLock<Arc<Bus>>,
}

impl Metrics {
    /// Makes `/metrics` show the bus figures (`marseillais_bus_*`); called once when the
    /// server starts with `--bus`. A second call is ignored: a node has one bus.
    pub fn set_bus(&self, bus: Arc<Bus>) {
        let _ = self.bus.set(bus);
    }

    pub fn render(&self, live_games: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# HELP marseillais_live_games Games held in memory.\n# TYPE marseillais_live_games gauge\nmarseillais_live_games {live_games}"
        );
        let _ = writeln!(
            out,
            "# HELP marseillais_connections Open WebSocket connections.\n# TYPE marseillais_connections gauge\nmarseillais_connections {}",
            self.connections.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP marseillais_submoves_accepted_total Sub-moves accepted and made durable.\n# TYPE marseillais_submoves_accepted_total counter\nmarseillais_submoves_accepted_total {}",
            self.submoves_accepted.load(Ordering::Relaxed)
        );
        let counters = [
            (
                "marseillais_connections_refused_total",
                "Connections closed at accept because the connection limit was reached.",
                &self.connections_refused,
            ),
            (
                "marseillais_bad_token_total",
                "Hellos and requests with a seat token that holds no seat.",
                &self.bad_tokens,
            ),
            (
                "marseillais_snapshots_serialized_total",
                "Game snapshots serialized (once per version; other state messages reuse them).",
                &self.snapshots_serialized,
            ),
            (
                "marseillais_rooms_restarted_total",
                "Room tasks found dead and restarted from the store.",
                &self.rooms_restarted,
            ),
            (
                "marseillais_rate_limited_total",
                "Game creations and joins refused by the per-address limit.",
                &self.rate_limited,
            ),
            (
                "marseillais_analyses_total",
                "Analyses started (POST /api/analysis, GET /api/games/{id}/analysis).",
                &self.analyses_started,
            ),
            (
                "marseillais_analyses_refused_total",
                "Analyses refused by the per-address limit (429) or the global cap (503).",
                &self.analyses_refused,
            ),
            (
                "marseillais_analysis_positions_total",
                "Positions searched by analyses.",
                &self.analysis_positions,
            ),
            (
                "marseillais_pool_games_total",
                "Games made by quick pairing (pools).",
                &self.pool_games,
            ),
            (
                "marseillais_arena_games_total",
                "Games made by arena tournaments' pairing.",
                &self.arena_games,
            ),
            (
                "marseillais_engine_searches_total",
                "Engine searches started (computer moves, analysis positions).",
                &self.engine_searches,
            ),
            (
                "marseillais_engine_wait_microseconds_total",
                "Microseconds engine searches waited for a thread, in all.",
                &self.engine_wait_micros,
            ),
            (
                "marseillais_computer_searches_total",
                "Searches of the computer opponent (one per sub-move).",
                &self.computer_searches,
            ),
            (
                "marseillais_computer_nodes_total",
                "Nodes searched by the computer opponent, in all.",
                &self.computer_nodes,
            ),
            (
                "marseillais_computer_games_refused_total",
                "New computer games refused because the engine queue was too long.",
                &self.computer_games_refused,
            ),
            (
                "marseillais_lag_compensation_ms_total",
                "Milliseconds of measured lag credited back to players' clocks.",
                &self.lag_compensation_ms,
            ),
            (
                "marseillais_lag_compensated_submoves_total",
                "Sub-moves credited some lag compensation.",
                &self.lag_compensated_submoves,
            ),
        ];
        for (name, help, value) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                value.load(Ordering::Relaxed)
            );
        }
        let _ = writeln!(
            out,
            "# HELP marseillais_replays_running Replays being worked on.\n# TYPE marseillais_replays_running gauge\nmarseillais_replays_running {}",
            self.replays_running.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP marseillais_replays_running_peak Most replays ever worked on at once.\n# TYPE marseillais_replays_running_peak gauge\nmarseillais_replays_running_peak {}",
            self.replays_running_peak.load(Ordering::Relaxed)
        );
        let gauges = [
            (
                "marseillais_engine_searches_running",
                "Engine searches (computer moves, analysis) running now.",
                &self.engine_running,
            ),
            (
                "marseillais_engine_searches_waiting",
                "Engine searches waiting for one of the --engine-threads slots.",
                &self.engine_waiting,
            ),
            (
                "marseillais_engine_searches_running_peak",
                "Most engine searches ever running at once.",
                &self.engine_running_peak,
            ),
            (
                "marseillais_analyses_running",
                "Analyses being streamed now.",
                &self.analyses_running,
            ),
        ];
        for (name, help, value) in gauges {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {}",
                value.load(Ordering::Relaxed)
            );
        }
        self.move_latency.write(
            &mut out,
            "marseillais_move_seconds",
            "Time from receiving a move to broadcasting it, commit included.",
        );
        self.commit_latency.write(
            &mut out,
            "marseillais_store_commit_seconds",
            "Time for the store to make one commit durable.",
        );
        self.pool_wave.write(
            &mut out,
            "marseillais_pool_wave_seconds",
            "Time to match one quick-pairing queue in a wave.",
        );
        self.arena_pairing.write(
            &mut out,
            "marseillais_arena_pairing_seconds",
            "Time to decide one arena pairing step that paired players (standings and matching).",
        );
        self.arena_step.write(
            &mut out,
            "marseillais_arena_step_seconds",
            "Time of one arena pairing step that paired players, from its read of the arena to its last game made.",
        );
        self.ping_rtt.write(
            &mut out,
            "marseillais_ping_rtt_seconds",
            "Game sockets' WebSocket ping round trips, one sample per matched pong.",
        );
        if let Some(bus) = self.bus.get() {
            write_bus(&mut out, bus.stats());
        }
        out
    }
}

/// The bus figures: shown only on a node started with `--bus`.
fn write_bus(out: &mut String, stats: BusStats) {
    let _ = writeln!(
        out,
        "# HELP marseillais_bus_connected Whether both connections to Redis are up (1) or not (0).\n# TYPE marseillais_bus_connected gauge\nmarseillais_bus_connected {}",
        u8::from(stats.connected)
    );
    let counters = [
        (
            "marseillais_bus_published_total",
            "Messages published to Redis.",
            stats.published,
        ),
        (
            "marseillais_bus_dropped_total",
            "Messages not published: the publishing queue was full or Redis was down.",
            stats.dropped,
        ),
        (
            "marseillais_bus_received_total",
            "Messages received from Redis on subscribed channels.",
            stats.received,
        ),
        (
            "marseillais_bus_reconnects_total",
            "Connections to Redis made again after being lost.",
            stats.reconnects,
        ),
    ];
    for (name, help, value) in counters {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_without_a_bus_shows_no_bus_figures() {
        let out = Metrics::default().render(0);
        assert!(!out.contains("marseillais_bus_"), "{out}");
    }

    #[test]
    fn the_bus_figures_are_written_with_their_values() {
        let mut out = String::new();
        write_bus(
            &mut out,
            BusStats {
                connected: true,
                published: 7,
                dropped: 2,
                received: 5,
                reconnects: 1,
            },
        );
        for line in [
            "marseillais_bus_connected 1\n",
            "marseillais_bus_published_total 7\n",
            "marseillais_bus_dropped_total 2\n",
            "marseillais_bus_received_total 5\n",
            "marseillais_bus_reconnects_total 1\n",
            "# TYPE marseillais_bus_dropped_total counter\n",
        ] {
            assert!(out.contains(line), "{line:?} missing from {out}");
        }
        let mut down = String::new();
        write_bus(&mut down, BusStats::default());
        assert!(down.contains("marseillais_bus_connected 0\n"), "{down}");
    }
}
