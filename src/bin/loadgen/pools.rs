//! `--mode pools`: quick pairing under load. `--games` anonymous lobby pages (spread over
//! `--source-addrs` loopback addresses: the server keeps at most 4 seeks per address) each join
//! the pool `--pool` and, [`REJOIN_AFTER`] after they are paired (a very short game: a page
//! that asked again at once would break the per-connection frame rate), join it again, for
//! `--duration` seconds.
//! Reported: pairings, the time from a page's `pool_in` to its `pool_paired` (p50/p99/max),
//! refusals, and the server's CPU per game made. The games are made and left unplayed (their
//! first-move limit ends them), as a page that opens no game would.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

use crate::server;
use crate::stats::{Percentiles, Samples};
use crate::ws;

/// How long a paired page waits before it joins again.
pub const REJOIN_AFTER: Duration = Duration::from_secs(1);

/// What the run asks.
pub struct PoolsPlan {
    pub addr: SocketAddr,
    pub pid: Option<u32>,
    pub pages: usize,
    pub pool: String,
    pub duration: Duration,
}

#[derive(Debug, Default, Serialize)]
pub struct PoolsReport {
    pub pages: usize,
    pub pages_failed: usize,
    pub pool: String,
    pub seconds: f64,
    /// Pages told `pool_paired` (two per game).
    pub pairings: u64,
    pub games_per_sec: f64,
    /// `pool_in` to `pool_paired`, milliseconds.
    pub wait_ms: Option<Percentiles>,
    /// `error` answers to a `pool_in` (rate limits, the per-address cap).
    pub refused: u64,
    pub server_cpu_secs: Option<f64>,
    pub server_cpu_ms_per_game: Option<f64>,
}

/// What one page did.
#[derive(Default)]
struct PageTally {
    waits: Samples,
    pairings: u64,
    refused: u64,
}

/// Runs one page until `end`.
async fn page(addr: SocketAddr, pool: String, end: Instant) -> Option<PageTally> {
    let mut ws = match ws::connect(addr, "/ws/lobby").await {
        Ok(ws) => ws,
        Err(error) => {
            eprintln!("loadgen: a lobby page could not connect: {error}");
            return None;
        }
    };
    let join = serde_json::json!({"t": "pool_in", "d": {"pool": pool}}).to_string();
    let mut tally = PageTally::default();
    // Bounded: one pairing or refusal per turn, and the deadline ends it.
    for _ in 0..1_000_000u32 {
        if Instant::now() >= end {
            break;
        }
        let asked = Instant::now();
        ws.send(Message::text(join.clone())).await.ok()?;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let Ok(next) = tokio::time::timeout(left, ws.next()).await else {
                return Some(tally);
            };
            let text = match next {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(frame))) => {
                    eprintln!("loadgen: the server closed a lobby page: {frame:?}");
                    return None;
                }
                Some(Ok(_)) => continue,
                Some(Err(error)) => {
                    eprintln!("loadgen: a lobby page failed: {error}");
                    return None;
                }
                None => return None,
            };
            let t = serde_json::from_str::<Value>(text.as_str())
                .ok()
                .and_then(|v| v["t"].as_str().map(str::to_owned));
            match t.as_deref() {
                Some("pool_paired") => {
                    tally.waits.record(asked.elapsed());
                    tally.pairings += 1;
                    tokio::time::sleep(REJOIN_AFTER).await;
                    break;
                }
                Some("error") => {
                    tally.refused += 1;
                    // A refused page waits a little before it asks again.
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    break;
                }
                _ => continue,
            }
        }
    }
    let _ = ws.close(None).await;
    Some(tally)
}

pub async fn run(plan: PoolsPlan) -> PoolsReport {
    let cpu_before = plan.pid.and_then(server::cpu_secs);
    let started = Instant::now();
    let end = started + plan.duration;
    let tasks: Vec<_> = (0..plan.pages)
        .map(|_| tokio::spawn(page(plan.addr, plan.pool.clone(), end)))
        .collect();
    let mut report = PoolsReport {
        pages: plan.pages,
        pool: plan.pool.clone(),
        ..PoolsReport::default()
    };
    let mut waits = Samples::default();
    for task in tasks {
        match task.await {
            Ok(Some(tally)) => {
                waits.merge(tally.waits);
                report.pairings += tally.pairings;
                report.refused += tally.refused;
            }
            _ => report.pages_failed += 1,
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    let games = report.pairings as f64 / 2.0;
    report.games_per_sec = games / report.seconds.max(1e-9);
    report.wait_ms = waits.summary();
    let cpu_after = plan.pid.and_then(server::cpu_secs);
    if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
        report.server_cpu_secs = Some(after - before);
        if games > 0.0 {
            report.server_cpu_ms_per_game = Some((after - before) * 1000.0 / games);
        }
    }
    report
}
