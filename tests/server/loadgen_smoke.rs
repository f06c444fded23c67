//! A short, bounded run of the load generator (`src/bin/loadgen.rs`)
//! against an in-process server: the games are played, moves accepted, and
//! every latency series has samples. No timing thresholds: this proves the
//! tool works, docs/performance.md has the figures.

use crate::support;

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
    // One address creating many games is what the creation limit refuses, and holding
    // thousands of sockets and open games what the limits per client refuse (loadgen lifts
    // them too).
    Rig::start_with(|c| {
        c.create_rate_per_sec = 0.0;
        c.clients.game_sockets = 0;
        c.clients.lobby_sockets = 0;
        c.clients.open_games = 0;
        c.clients.computer_games = 0;
    })
    .await
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
    // The echo server's thread is timed apart from the load generator.
    assert!(report["echo_cpu_secs"].as_f64().is_some(), "{report}");
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
async fn idle_mode_opens_the_rooms_connections_and_games_it_measures() {
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
            "--idle-games",
            "4",
            "--idle-window-secs",
            "1",
        ],
    )
    .await;
    assert_eq!(report["rooms"].as_u64(), Some(20), "{report}");
    assert_eq!(report["connections"].as_u64(), Some(40), "{report}");
    assert_eq!(report["connections_failed"].as_u64(), Some(0), "{report}");
    // Both kinds of games came up, their players seated and their first turns played.
    assert_eq!(report["untimed_games"].as_u64(), Some(4), "{report}");
    assert_eq!(report["playing_games"].as_u64(), Some(4), "{report}");
    assert_eq!(report["playing_games_failed"].as_u64(), Some(0), "{report}");
    assert_eq!(
        report["server_connections_metric"].as_f64(),
        Some(40.0),
        "{report}"
    );
    assert!(report["after_connections"]["rss_kib"].as_u64().unwrap_or(0) > 0);
    // Both halves were read, for the marginal cost per room and per connection.
    assert!(report["after_half_rooms"]["rss_kib"].as_u64().unwrap_or(0) > 0);
    assert!(
        report["after_half_connections"]["rss_kib"]
            .as_u64()
            .unwrap_or(0)
            > 0
    );
    server.stop().await;
}

/// The bounded version of `scripts/connections.sh`: a couple of thousand connections spread
/// over several source addresses, every game moving; no timing asserted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_connections_from_three_source_addresses_are_all_served() {
    let server = server().await;
    let report = loadgen(
        server.addr(),
        &[
            "--games",
            "500",
            "--spectators",
            "2",
            "--rate",
            "0.2",
            "--duration",
            "2",
            "--source-addrs",
            "3",
            "--setup-concurrency",
            "128",
        ],
    )
    .await;
    assert_eq!(report["games_started"].as_u64(), Some(500), "{report}");
    assert_eq!(report["setup_failures"].as_u64(), Some(0), "{report}");
    assert_eq!(
        report["client_connections"].as_u64(),
        Some(2000),
        "{report}"
    );
    assert_eq!(report["errors"], serde_json::json!({}), "{report}");
    assert_eq!(report["closes"], serde_json::json!({}), "{report}");
    assert_eq!(
        report["counters_end"]["connections_refused_total"].as_f64(),
        Some(0.0),
        "{report}"
    );
    assert!(report["accepted"].as_u64().unwrap_or(0) > 0, "{report}");
    server.stop().await;
}

/// Runs the loadgen binary with `args` (it starts its own server) and returns its JSON report.
fn loadgen_spawning(args: &[&str]) -> Value {
    let output =
        support::process::run(env!("CARGO_BIN_EXE_loadgen"), &[&["--json"], args].concat());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "loadgen failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let last = stdout.lines().last().expect("a report");
    serde_json::from_str(last).expect("the last line is the JSON report")
}

#[test]
fn memory_mode_plays_every_game_of_the_given_server_binary_to_each_checkpoint() {
    let report = loadgen_spawning(&[
        "--server-bin",
        env!("CARGO_BIN_EXE_marseillais"),
        "--mode",
        "memory",
        "--games",
        "4",
        "--submoves-per-game",
        "3,30",
        "--phase-timeout",
        "60",
        "--warmup-games",
        "2",
    ]);
    assert_eq!(report["warmup_reached"].as_u64(), Some(2), "{report}");
    assert_eq!(report["games_set_up"].as_u64(), Some(4), "{report}");
    let checkpoints = report["checkpoints"].as_array().expect("checkpoints");
    assert_eq!(checkpoints.len(), 2, "{report}");
    for (c, k) in checkpoints.iter().zip([3u64, 30]) {
        assert_eq!(c["submoves_per_game"].as_u64(), Some(k), "{report}");
        assert_eq!(c["games_reached"].as_u64(), Some(4), "{report}");
        // Replaced games play from zero again: at least k per slot.
        let accepted = c["accepted_since_setup"].as_u64().unwrap_or(0);
        assert!(accepted >= 4 * k, "{report}");
        assert!(c["server"]["rss_kib"].as_u64().unwrap_or(0) > 0, "{report}");
        assert!(c["rss_per_game_kib"].is_number(), "{report}");
    }
    // The per-game rate limit is lifted: nothing is refused.
    assert_eq!(report["errors"], serde_json::json!({}), "{report}");
    // The server's own count agrees with the acks the slots saw.
    let last = &checkpoints[1];
    assert!(
        last["counters"]["submoves_accepted_total"]
            .as_f64()
            .unwrap_or(0.0)
            >= last["accepted_since_setup"].as_f64().unwrap_or(f64::MAX),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_mode_measures_human_latency_without_and_with_computer_games_and_the_engine_cap_holds()
{
    let server = Rig::start_with(|c| {
        c.create_rate_per_sec = 0.0;
        c.engine_threads = 1;
        c.clients.open_games = 0;
        c.clients.computer_games = 0;
    })
    .await;
    let report = loadgen(
        server.addr(),
        &[
            "--mode",
            "bots",
            "--games",
            "4",
            "--spectators",
            "1",
            "--rate",
            "5",
            "--duration",
            "2",
            "--bot-games",
            "2",
            "--bot-level",
            "1",
            "--engine-threads",
            "1",
            "--setup-timeout",
            "30",
        ],
    )
    .await;
    for phase in ["without_bots", "with_bots"] {
        assert!(count(&report[phase], "move_to_opponent") > 0, "{report}");
        assert_eq!(report[phase]["errors"], serde_json::json!({}), "{report}");
    }
    assert_eq!(report["bot_slots_ready"].as_u64(), Some(2), "{report}");
    assert_eq!(report["bot_setup_failures"].as_u64(), Some(0), "{report}");
    assert!(
        report["computer_submoves"].as_u64().unwrap_or(0) > 0,
        "{report}"
    );
    assert!(
        report["bot_human_submoves"].as_u64().unwrap_or(0) > 0,
        "{report}"
    );
    assert!(count(&report, "computer_reply") > 0, "{report}");
    assert_eq!(report["bot_errors"], serde_json::json!({}), "{report}");
    assert_eq!(report["bot_unparsed"].as_u64(), Some(0), "{report}");
    // The computer searched, never more than one search at once.
    assert_eq!(
        report["engine_searches_running_peak"].as_f64(),
        Some(1.0),
        "{report}"
    );
    assert_eq!(
        report["engine_peak_within_threads"].as_bool(),
        Some(true),
        "{report}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pools_mode_pairs_pages_again_and_again_and_measures_their_wait() {
    // Waves every 20 ms instead of every 20 s: a 3 s run sees many.
    let server = Rig::start_with(|c| {
        c.create_rate_per_sec = 0.0;
        c.lobby.pool_wave = Some(Duration::from_millis(20));
    })
    .await;
    let report = loadgen(
        server.addr(),
        &[
            "--mode",
            "pools",
            "--games",
            "8",
            "--source-addrs",
            "2",
            "--pool",
            "3+2",
            "--duration",
            "3",
        ],
    )
    .await;
    assert_eq!(report["pages_failed"], 0, "{report}");
    // At least one game; how many is the machine's business, not this test's.
    assert!(report["pairings"].as_u64().unwrap_or(0) >= 2, "{report}");
    assert!(count(&report, "wait_ms") >= 2, "{report}");
    assert_eq!(report["refused"], 0, "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tournament_mode_pairs_an_arena_again_and_again_and_measures_the_delays() {
    // Pairing every 20 ms instead of every 2 s; every player registers from one address.
    let server = Rig::start_with(|c| {
        c.arena.pairing_every = Duration::from_millis(20);
        c.arena.schedule = marseillais::server::config::ArenaScheduleChoice::Off;
        c.accounts.register_per_hour = 0.0;
    })
    .await;
    let report = loadgen(
        server.addr(),
        &["--mode", "tournament", "--games", "6", "--duration", "4"],
    )
    .await;
    assert_eq!(report["players_failed"], 0, "{report}");
    // Every player got a first game; how many more is the machine's business.
    assert_eq!(count(&report, "first_pairing_ms"), 6, "{report}");
    assert!(
        report["games_opened"].as_u64().unwrap_or(0) >= 6,
        "{report}"
    );
    assert!(
        report["pairing_steps"].as_f64().unwrap_or(0.0) >= 1.0,
        "{report}"
    );
}

#[test]
fn explorer_mode_fills_the_store_and_measures_the_explorer_by_depth() {
    let report = loadgen_spawning(&[
        "--server-bin",
        env!("CARGO_BIN_EXE_marseillais"),
        "--mode",
        "explorer",
        "--explorer-games",
        "300",
        "--duration",
        "1",
    ]);
    assert_eq!(report["games"].as_u64(), Some(300), "{report}");
    assert_eq!(report["errors"].as_u64(), Some(0), "{report}");
    assert_eq!(report["empty_answers"].as_u64(), Some(0), "{report}");
    assert!(
        report["all_ms"]["count"].as_u64().unwrap_or(0) > 0,
        "{report}"
    );
    assert!(
        report["start_ms"]["count"].as_u64().unwrap_or(0) > 0,
        "{report}"
    );
}
