//! A short, bounded run of the load generator (`src/bin/loadgen.rs`)
//! against an in-process server: the games are played, moves accepted, and
//! every latency series has samples. No timing thresholds: this proves the
//! tool works, docs/performance.md has the figures.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use support::rig::Rig;

/// The whole run (setup, 3 s window, drain) must end within this.
const BOUND: Duration = Duration::from_secs(120);

/// Runs the loadgen binary with `args` against `addr` and returns its JSON report.
async fn loadgen(addr: SocketAddr, args: &[&str]) -> Value {
    let output = tokio::time::timeout(
        BOUND,
        tokio::process::Command::new(env!("CARGO_BIN_EXE_loadgen"))
            .arg("--addr")
            .arg(addr.to_string())
            .arg("--server-pid")
            .arg(std::process::id().to_string())
            .arg("--json")
            .args(args)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the load generator finishes in time")
    .expect("the load generator runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "loadgen failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let last = stdout.lines().last().expect("a report");
    serde_json::from_str(last).expect("the last line is the JSON report")
}

async fn server() -> Rig {
    // One address creating many games is what the creation limit refuses.
    Rig::start_with(|c| c.create_rate_per_sec = 0.0).await
}

fn count(report: &Value, series: &str) -> u64 {
    report[series]["count"].as_u64().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_games_with_spectators_get_moves_accepted_and_latencies_recorded() {
    let server = server().await;
    let report = loadgen(
        server.addr(),
        &[
            "--games",
            "10",
            "--spectators",
            "2",
            "--rate",
            "5",
            "--duration",
            "3",
        ],
    )
    .await;
    assert!(report["accepted"].as_u64().unwrap_or(0) > 0, "{report}");
    assert!(count(&report, "move_to_opponent") > 0, "{report}");
    assert!(count(&report, "move_to_spectator") > 0, "{report}");
    assert!(count(&report, "move_to_ack") > 0, "{report}");
    assert!(count(&report, "echo_round_trip") > 0, "{report}");
    assert_eq!(report["games_started"].as_u64(), Some(10), "{report}");
    assert_eq!(report["setup_failures"].as_u64(), Some(0), "{report}");
    assert_eq!(report["client_connections"].as_u64(), Some(40), "{report}");
    // Every refused move would be a protocol misunderstanding.
    assert_eq!(report["errors"], serde_json::json!({}), "{report}");
    let accepted_by_server = report["counters_end"]["submoves_accepted_total"]
        .as_f64()
        .unwrap_or(0.0);
    assert!(accepted_by_server > 0.0, "{report}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_mode_opens_the_rooms_and_connections_it_measures() {
    let server = server().await;
    let report = loadgen(
        server.addr(),
        &[
            "--mode",
            "idle",
            "--idle-rooms",
            "20",
            "--idle-connections",
            "40",
        ],
    )
    .await;
    assert_eq!(report["rooms"].as_u64(), Some(20), "{report}");
    assert_eq!(report["connections"].as_u64(), Some(40), "{report}");
    assert_eq!(report["connections_failed"].as_u64(), Some(0), "{report}");
    assert_eq!(
        report["server_connections_metric"].as_f64(),
        Some(40.0),
        "{report}"
    );
    assert!(report["after_connections"]["rss_kib"].as_u64().unwrap_or(0) > 0);
    server.stop().await;
}
