//! The correspondence schedule with many games in the store (issue 12's closing figures):
//! `CORR_BENCH_GAMES` (default 100,000) correspondence games being played are written straight
//! through the store API, `CORR_BENCH_DUE` (default 1,000) of them due within
//! `CORR_BENCH_SPREAD_MS` (default 2,000 ms) of each other shortly after the server starts.
//! Then the real server binary (loopback, a fresh data directory, durability on) is started on
//! an empty store and on that one, and the bench prints: startup time, server RSS (empty vs
//! full store), the in-memory schedule's own size (built in this process from the same rows),
//! and the flag latency of the due games (their deadline -> the `at_ms` of the `end` the
//! server committed, read back from the database), p50/p99/max.
//!
//! Run: `cargo bench --bench correspondence` (see docs/performance.md, "Correspondence
//! schedule"). `CORR_BENCH_DIR`: where the databases go (default the system temp dir).
//! Every wait is bounded; nothing listens beyond 127.0.0.1.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use marseillais::rules::Color;
use marseillais::server::config::Config;
use marseillais::server::game::policy::Downtime;
use marseillais::server::game::{Event, now_ms};
use marseillais::server::ids;
use marseillais::server::play::creation::{self, NewGame};
use marseillais::server::play::schedule::Schedule;
use marseillais::server::store::sqlite::DB_FILE_NAME;
use marseillais::server::store::{DeadlineChange, SqliteStore, Store};
use serde_json::json;

const DAY_MS: i64 = 86_400_000;
/// Seconds between the end of seeding and the first due deadline: the server must have
/// booted by then (a deadline that passed before boot would get the grace instead).
const DUE_AFTER_MS: i64 = 40_000;
/// How long the due games may take to be flagged before the bench gives up.
const FLAG_PATIENCE: Duration = Duration::from_secs(180);
const STARTUP_PATIENCE: Duration = Duration::from_secs(120);

fn env_number(name: &str, default: i64) -> i64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The first event list of a correspondence game created by White and joined by Black at
/// `joined_at_ms`.
fn game_events(days: u64, joined_at_ms: i64) -> Vec<Event> {
    let request: NewGame =
        serde_json::from_value(json!({"color": "white", "clock": {"days_per_turn": days}}))
            .expect("a request");
    let (mut events, _) = creation::first_events(
        &request,
        ids::token_hash(&ids::new_token()),
        None,
        joined_at_ms - 1000,
    )
    .expect("first events");
    events.push(Event::Joined {
        at_ms: joined_at_ms,
        color: Color::Black,
        seat_hash: ids::token_hash(&ids::new_token()),
        computer: None,
        user: None,
    });
    events
}

/// Writes `games` correspondence games, the first `due` of them due from `first_due_ms` on,
/// `spread_ms` apart in all; the others due in 1 to 7 days. Returns the due games' (id,
/// deadline).
async fn seed(
    data: &Path,
    games: usize,
    due: usize,
    first_due_ms: i64,
    spread_ms: i64,
) -> Vec<(String, i64)> {
    let store = SqliteStore::open(data).expect("open the store");
    let config = Config::new(SocketAddr::from(([127, 0, 0, 1], 0)), data);
    let now = now_ms();
    let mut due_games = Vec::new();
    let mut batch = Vec::new();
    for i in 0..games {
        let events = if i < due {
            let deadline = first_due_ms + spread_ms * i as i64 / due.max(1) as i64;
            game_events(1, deadline - DAY_MS)
        } else {
            game_events(7, now - (i as i64 % (6 * DAY_MS)))
        };
        let prepared = creation::prepare(events, &config).expect("a game");
        if i < due {
            let DeadlineChange::Set(deadline) = prepared.commit.deadline else {
                panic!("a correspondence game being played has a deadline");
            };
            due_games.push((prepared.state.id.clone(), deadline));
        }
        batch.push(prepared.commit);
        if batch.len() == 2000 {
            store
                .commit_all(std::mem::take(&mut batch))
                .await
                .expect("commit");
        }
    }
    if !batch.is_empty() {
        store.commit_all(batch).await.expect("commit");
    }
    store.close().await;
    due_games
}

/// The server binary on `data`: (process, time until it printed its address).
fn start_server(data: &Path) -> (Child, Duration) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_marseillais"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let _ = tx.send(line);
        // Keep reading so that the server's later writes never block.
        let mut rest = String::new();
        while reader.read_line(&mut rest).is_ok_and(|n| n > 0) {
            rest.clear();
        }
    });
    let line = rx.recv_timeout(STARTUP_PATIENCE).unwrap_or_default();
    assert!(
        line.starts_with("listening on http://"),
        "the server did not start: {line:?}"
    );
    (child, started.elapsed())
}

fn stop(mut child: Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    for _ in 0..400 {
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// RSS after the server settled (a few seconds after start, the median of 5 readings).
fn settled_rss(pid: u32) -> u64 {
    std::thread::sleep(Duration::from_secs(2));
    let mut readings: Vec<u64> = (0..5)
        .filter_map(|_| {
            std::thread::sleep(Duration::from_millis(200));
            rss_kib(pid)
        })
        .collect();
    readings.sort_unstable();
    readings.get(readings.len() / 2).copied().unwrap_or(0)
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// The RSS growth of building a [`Schedule`] of `n` entries, in a child process running this
/// bench with `CORR_BENCH_SCHEDULE_ONLY=n`: (entries, KiB).
fn schedule_alone_in_a_child(n: usize) -> (usize, u64) {
    let exe = std::env::current_exe().expect("this bench");
    let out = Command::new(exe)
        .env("CORR_BENCH_SCHEDULE_ONLY", n.to_string())
        .stdin(Stdio::null())
        .output()
        .expect("run the schedule measurement");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text
        .split_whitespace()
        .map(|f| f.parse::<u64>().unwrap_or(0));
    let entries = fields.next().unwrap_or(0) as usize;
    (entries, fields.next().unwrap_or(0))
}

/// `CORR_BENCH_SCHEDULE_ONLY=n`: builds a schedule of n fresh ids (held in a vector allocated
/// first, so that only the schedule's own allocations grow the RSS) and prints
/// `entries KiB`.
fn schedule_only(n: usize) {
    let now = now_ms();
    let ids: Vec<String> = (0..n).map(|_| ids::new_game_id()).collect();
    let before = rss_kib(std::process::id()).unwrap_or(0);
    let schedule = Schedule::new(Downtime::NONE);
    for (i, id) in ids.iter().enumerate() {
        schedule.apply(
            id,
            DeadlineChange::Set(now + (i as i64 * 7919) % (7 * DAY_MS)),
        );
    }
    let after = rss_kib(std::process::id()).unwrap_or(0);
    println!("{} {}", schedule.len(), after.saturating_sub(before));
}

#[tokio::main]
async fn main() {
    if let Some(n) = std::env::var("CORR_BENCH_SCHEDULE_ONLY")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        schedule_only(n);
        return;
    }
    let games = env_number("CORR_BENCH_GAMES", 100_000).max(1) as usize;
    let due = (env_number("CORR_BENCH_DUE", 1_000).max(0) as usize).min(games);
    let spread_ms = env_number("CORR_BENCH_SPREAD_MS", 2_000).max(0);
    let base = std::env::var_os("CORR_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let root = tempfile::Builder::new()
        .prefix("marseillais-corr-bench-")
        .tempdir_in(base)
        .expect("temp dir");
    let empty = root.path().join("empty");
    let full = root.path().join("full");

    // The empty store's server: the baseline.
    let (server, empty_startup) = start_server(&empty);
    let empty_rss = settled_rss(server.id());
    stop(server);

    let seeding = Instant::now();
    let seeded_at = now_ms();
    let first_due = seeded_at + DUE_AFTER_MS;
    let due_games = seed(&full, games, due, first_due, spread_ms).await;
    let seed_time = seeding.elapsed();
    let first_due = due_games.first().map_or(first_due, |(_, d)| *d);
    assert!(
        now_ms() + 20_000 < first_due,
        "seeding took too long: raise DUE_AFTER_MS or lower CORR_BENCH_GAMES"
    );

    // The schedule alone, built in a fresh process (this one has freed memory that a new
    // allocation would reuse without growing its RSS) from as many game ids.
    let (scheduled, schedule_kib) = schedule_alone_in_a_child(games);

    let boot = now_ms();
    let (server, full_startup) = start_server(&full);
    let pid = server.id();
    assert!(
        boot < first_due,
        "the server booted after the first deadline"
    );
    let full_rss = settled_rss(pid);

    // Wait for the due games' ends, reading the database (never the server: that would load
    // the rooms, which flag by themselves).
    let db = full.join(DB_FILE_NAME);
    let wait_until = Instant::now()
        + Duration::from_millis(u64::try_from(first_due + spread_ms - now_ms()).unwrap_or(0))
        + FLAG_PATIENCE;
    let conn = rusqlite::Connection::open(&db).expect("raw open");
    let mut ends: Vec<Option<i64>> = vec![None; due_games.len()];
    while Instant::now() < wait_until && ends.iter().any(Option::is_none) {
        std::thread::sleep(Duration::from_millis(500));
        for ((id, _), end) in due_games.iter().zip(ends.iter_mut()) {
            if end.is_some() {
                continue;
            }
            let last: Option<String> = conn
                .query_row(
                    "SELECT payload FROM events WHERE game_id = ?1 ORDER BY seq DESC LIMIT 1",
                    [id],
                    |row| row.get(0),
                )
                .ok();
            if let Some(text) = last
                && let Ok(value) = serde_json::from_str::<serde_json::Value>(&text)
                && value["k"] == "end"
            {
                *end = value["at_ms"].as_i64();
            }
        }
    }
    let rss_after_flags = rss_kib(pid).unwrap_or(0);
    stop(server);
    let mut latencies: Vec<i64> = due_games
        .iter()
        .zip(&ends)
        .filter_map(|((_, deadline), end)| end.map(|e| e - deadline))
        .collect();
    latencies.sort_unstable();
    let flagged = latencies.len();

    println!("correspondence schedule bench");
    println!(
        "  games in the store      {games} (of which {due} due within {spread_ms} ms), seeded in {:.1} s",
        seed_time.as_secs_f64()
    );
    println!(
        "  startup (spawn -> listening): empty {:.0} ms, full {:.0} ms",
        empty_startup.as_secs_f64() * 1000.0,
        full_startup.as_secs_f64() * 1000.0
    );
    println!(
        "  server RSS settled: empty {} KiB, full {} KiB (+{} KiB, {:.0} B per game); after flagging {} KiB",
        empty_rss,
        full_rss,
        full_rss.saturating_sub(empty_rss),
        full_rss.saturating_sub(empty_rss) as f64 * 1024.0 / games as f64,
        rss_after_flags
    );
    println!(
        "  schedule alone: {scheduled} entries, +{schedule_kib} KiB RSS in a fresh process ({:.0} B per entry)",
        schedule_kib as f64 * 1024.0 / scheduled.max(1) as f64
    );
    println!(
        "  flag latency (deadline -> end at_ms), {flagged}/{due} flagged: p50 {} ms, p99 {} ms, max {} ms",
        percentile(&latencies, 50.0),
        percentile(&latencies, 99.0),
        latencies.last().copied().unwrap_or(0)
    );
}
