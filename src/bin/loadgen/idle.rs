//! `--mode idle`: what an idle room and an idle connection cost the server.
//! Creates rooms (create + join, no moves, no sockets) and then spectator
//! connections spread over them, and divides the growth of the server's
//! resident memory by the counts. RSS deltas are an upper bound on the
//! per-object cost: they also include allocator slack and, for rooms, the
//! growth of SQLite's page cache as the database grows.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{Semaphore, watch};
use tokio_tungstenite::tungstenite::Message;

use crate::server::{self, Memory};
use crate::{http, ws};

/// Time for the server to settle (store flush, freed buffers) before a reading.
const SETTLE: Duration = Duration::from_secs(2);

#[derive(Debug, Default, Serialize)]
pub struct IdleReport {
    pub rooms: usize,
    pub connections: usize,
    pub rooms_failed: usize,
    pub connections_failed: usize,
    pub baseline: Memory,
    pub after_rooms: Memory,
    pub after_connections: Memory,
    pub bytes_per_room: f64,
    pub bytes_per_connection: f64,
    pub server_connections_metric: f64,
    pub server_live_games_metric: f64,
}

/// Runs the idle measurement against the server with process id `pid`.
pub async fn run(addr: SocketAddr, pid: u32, rooms: usize, connections: usize) -> IdleReport {
    let mut report = IdleReport::default();
    // Warm up: a few games with sockets, so that one-off allocations
    // (thread arenas, caches, the first room) are not charged to the counts.
    let warm = create_rooms(addr, 16).await;
    let (warm_sockets, _) = open(addr, &warm.0, 32).await;
    drop(warm_sockets);
    tokio::time::sleep(SETTLE).await;
    report.baseline = server::memory(pid).unwrap_or_default();

    let (ids, failed) = create_rooms(addr, rooms).await;
    report.rooms = ids.len();
    report.rooms_failed = failed;
    tokio::time::sleep(SETTLE).await;
    report.after_rooms = server::memory(pid).unwrap_or_default();

    let (sockets, failed) = open(addr, &ids, connections).await;
    report.connections = sockets.1;
    report.connections_failed = failed;
    tokio::time::sleep(SETTLE).await;
    report.after_connections = server::memory(pid).unwrap_or_default();
    if let Some(c) = server::counters(addr).await {
        report.server_connections_metric = c.connections;
        report.server_live_games_metric = c.live_games;
    }
    let per = |after: u64, before: u64, n: usize| {
        if n == 0 {
            0.0
        } else {
            (after as f64 - before as f64) * 1024.0 / n as f64
        }
    };
    report.bytes_per_room = per(
        report.after_rooms.rss_kib,
        report.baseline.rss_kib,
        report.rooms,
    );
    report.bytes_per_connection = per(
        report.after_connections.rss_kib,
        report.after_rooms.rss_kib,
        report.connections,
    );
    let (stop, _) = sockets;
    let _ = stop.send(true);
    report
}

/// Creates `n` games and takes their second seat; returns the ids and the failures.
async fn create_rooms(addr: SocketAddr, n: usize) -> (Vec<String>, usize) {
    let gate = Arc::new(Semaphore::new(32));
    let mut tasks = Vec::with_capacity(n);
    for _ in 0..n {
        let gate = Arc::clone(&gate);
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire().await.ok()?;
            let created = http::expect_ok(addr, "POST", "/api/games", Some("{}"))
                .await
                .ok()?;
            let created: Value = serde_json::from_str(&created).ok()?;
            let id = created.get("id")?.as_str()?.to_string();
            http::expect_ok(addr, "POST", &format!("/api/games/{id}/join"), None)
                .await
                .ok()?;
            Some(id)
        }));
    }
    let mut ids = Vec::with_capacity(n);
    let mut failed = 0;
    for task in tasks {
        match task.await {
            Ok(Some(id)) => ids.push(id),
            _ => failed += 1,
        }
    }
    (ids, failed)
}

/// Opens `n` spectator sockets round-robin over `ids`; each waits for its
/// first message, then reads (answering pings) until told to stop.
/// Returns (the stop switch, how many are open) and the failures.
async fn open(addr: SocketAddr, ids: &[String], n: usize) -> ((watch::Sender<bool>, usize), usize) {
    let (stop, stop_rx) = watch::channel(false);
    if ids.is_empty() {
        return ((stop, 0), n);
    }
    let gate = Arc::new(Semaphore::new(64));
    let mut ready = Vec::with_capacity(n);
    for i in 0..n {
        let path = format!("/ws/game/{}", ids[i % ids.len()]);
        let gate = Arc::clone(&gate);
        let mut stop_rx = stop_rx.clone();
        let (up_tx, up_rx) = tokio::sync::oneshot::channel::<bool>();
        ready.push(up_rx);
        tokio::spawn(async move {
            let socket = {
                let Ok(_permit) = gate.acquire().await else {
                    let _ = up_tx.send(false);
                    return;
                };
                ws::connect(addr, &path).await
            };
            let Ok(mut socket) = socket else {
                let _ = up_tx.send(false);
                return;
            };
            let mut up = Some(up_tx);
            let deadline = Instant::now() + Duration::from_secs(600);
            loop {
                tokio::select! {
                    _ = stop_rx.changed() => break,
                    _ = tokio::time::sleep_until(deadline.into()) => break,
                    frame = socket.next() => match frame {
                        Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                        Some(Ok(_)) => {
                            if let Some(tx) = up.take() {
                                let _ = tx.send(true);
                            }
                        }
                    }
                }
            }
            if let Some(tx) = up.take() {
                let _ = tx.send(false);
            }
            let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
        });
    }
    let mut open = 0;
    let mut failed = 0;
    for up in ready {
        match tokio::time::timeout(Duration::from_secs(60), up).await {
            Ok(Ok(true)) => open += 1,
            _ => failed += 1,
        }
    }
    ((stop, open), failed)
}
