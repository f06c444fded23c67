//! `--mode idle`: what an idle room, an idle connection and a game being
//! played that nobody moves in cost the server.
//! Creates rooms (create + join, no moves, no sockets) and then spectator
//! connections spread over them, each in two halves, and divides the growth
//! of the server's resident memory by the counts: over all of them, and over
//! the second half alone (the marginal cost, without the fixed costs the
//! first objects bring in). RSS deltas are an upper bound on the
//! per-object cost: they also include allocator slack and, for rooms, the
//! growth of SQLite's page cache as the database grows.
//!
//! CPU: the server's CPU time over a window (`--idle-window-secs`) with the
//! rooms alone (the base: sweepers, timers), then with the spectators added
//! (their cost: keepalive pings), then with `--idle-games` untimed games in
//! which both players have played their first turn and think, both sockets
//! open, and then as many games of an hour's clock (their cost: the players'
//! pings, lag pings only with a clock, and the room's timers).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use marseillais::server::play::protocol::ServerMsg;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{Semaphore, watch};
use tokio_tungstenite::tungstenite::Message;

use crate::server::{self, Memory};
use crate::{http, ws};

/// The first turns of the idle games: White's one sub-move, Black's two (then White's clock
/// runs and no first-move timer is left).
const FIRST_TURNS: [(usize, &str); 3] = [(0, "e2e4"), (1, "e7e5"), (1, "d7d5")];

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
    /// The readings after the first half of the rooms, and of the connections.
    pub after_half_rooms: Memory,
    pub after_half_connections: Memory,
    /// The growth over the second half alone, divided by its count: the cost of one more
    /// object, without the fixed costs that the first ones bring in (the allocator's pages
    /// for each size class and thread, SQLite's page cache up to its bound), which
    /// `bytes_per_room` and `bytes_per_connection` spread over the count.
    pub marginal_bytes_per_room: f64,
    pub marginal_bytes_per_connection: f64,
    pub server_connections_metric: f64,
    pub server_live_games_metric: f64,
    /// The length of each CPU window.
    pub window_secs: f64,
    /// The server's CPU per second with the rooms alone (no socket).
    pub cpu_base_us_per_sec: f64,
    /// The spectators' CPU: per connection per second, above the base.
    pub cpu_us_per_connection_per_sec: f64,
    /// Games being played (both players connected, nobody moving): untimed, then with a
    /// running clock.
    pub untimed_games: usize,
    pub playing_games: usize,
    pub playing_games_failed: usize,
    /// Their CPU: per game per second, above the base.
    pub cpu_us_per_untimed_game_per_sec: f64,
    pub cpu_us_per_playing_game_per_sec: f64,
}

/// Runs the idle measurement against the server with process id `pid`.
pub async fn run(
    addr: SocketAddr,
    pid: u32,
    (rooms, connections, games): (usize, usize, usize),
    window: Duration,
) -> IdleReport {
    let mut report = IdleReport::default();
    // Warm up: a few games with sockets, so that one-off allocations
    // (thread arenas, caches, the first room) are not charged to the counts.
    let warm = create_rooms(addr, 16).await;
    let (warm_sockets, _) = open(addr, &warm.0, 32).await;
    drop(warm_sockets);
    tokio::time::sleep(SETTLE).await;
    report.baseline = server::memory(pid).unwrap_or_default();

    let (mut ids, failed) = create_rooms(addr, rooms / 2).await;
    report.rooms_failed = failed;
    tokio::time::sleep(SETTLE).await;
    report.after_half_rooms = server::memory(pid).unwrap_or_default();
    let (second_rooms, failed) = create_rooms(addr, rooms - rooms / 2).await;
    report.rooms_failed += failed;
    tokio::time::sleep(SETTLE).await;
    report.after_rooms = server::memory(pid).unwrap_or_default();
    let second_rooms_count = second_rooms.len();
    ids.extend(second_rooms);
    report.rooms = ids.len();
    report.window_secs = window.as_secs_f64();
    let base = cpu_per_sec(pid, window).await;
    report.cpu_base_us_per_sec = base;

    // Each half of the connections over its own half of the rooms, so that both halves pay
    // the same per-room part (a room's first watcher builds its shared snapshot).
    let (first_rooms, second_rooms) = ids.split_at(ids.len() - second_rooms_count);
    let ((stop_first, first_open), failed) = open(addr, first_rooms, connections / 2).await;
    report.connections_failed = failed;
    tokio::time::sleep(SETTLE).await;
    report.after_half_connections = server::memory(pid).unwrap_or_default();
    let ((stop_second, second_open), failed) =
        open(addr, second_rooms, connections - connections / 2).await;
    report.connections = first_open + second_open;
    report.connections_failed += failed;
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
    report.marginal_bytes_per_room = per(
        report.after_rooms.rss_kib,
        report.after_half_rooms.rss_kib,
        second_rooms_count,
    );
    report.marginal_bytes_per_connection = per(
        report.after_connections.rss_kib,
        report.after_half_connections.rss_kib,
        second_open,
    );
    report.cpu_us_per_connection_per_sec =
        per_one(cpu_per_sec(pid, window).await - base, report.connections);
    let _ = stop_first.send(true);
    let _ = stop_second.send(true);

    let (stop, untimed, failed) = playing_games(addr, games, UNTIMED).await;
    report.untimed_games = untimed;
    report.playing_games_failed += failed;
    tokio::time::sleep(SETTLE).await;
    report.cpu_us_per_untimed_game_per_sec =
        per_one(cpu_per_sec(pid, window).await - base, untimed);
    let _ = stop.send(true);

    let (stop, playing, failed) = playing_games(addr, games, CLOCKED).await;
    report.playing_games = playing;
    report.playing_games_failed += failed;
    tokio::time::sleep(SETTLE).await;
    report.cpu_us_per_playing_game_per_sec =
        per_one(cpu_per_sec(pid, window).await - base, playing);
    let _ = stop.send(true);
    report
}

/// The `POST /api/games` bodies of the idle games: untimed, and an hour's clock.
const UNTIMED: &str = r#"{"color":"white"}"#;
const CLOCKED: &str = r#"{"color":"white","clock":{"base_secs":3600,"increment_secs":0}}"#;

/// The server's CPU over `window`, in µs per second: from the process's `stat`, in 10 ms
/// ticks, so a 30 s window reads to ±333 µs/s (±0.17 µs/s per connection of 2,000, ±0.67 per
/// game of 500). The sum of the threads' nanosecond `schedstat`s was tried and read less than
/// nothing: the blocking pool's threads that end in the window take their time with them.
async fn cpu_per_sec(pid: u32, window: Duration) -> f64 {
    let before = server::cpu_secs(pid).unwrap_or_default();
    tokio::time::sleep(window).await;
    let after = server::cpu_secs(pid).unwrap_or_default();
    (after - before) * 1e6 / window.as_secs_f64().max(1e-3)
}

fn per_one(total: f64, n: usize) -> f64 {
    if n == 0 { 0.0 } else { total / n as f64 }
}

/// `n` games created with `body` being played, both players connected, their first turns
/// played; returns the switch that closes them, how many are up, and the failures.
async fn playing_games(
    addr: SocketAddr,
    n: usize,
    body: &'static str,
) -> (watch::Sender<bool>, usize, usize) {
    let (stop, stop_rx) = watch::channel(false);
    let gate = Arc::new(Semaphore::new(32));
    let mut tasks = Vec::with_capacity(n);
    for _ in 0..n {
        let gate = Arc::clone(&gate);
        let stop_rx = stop_rx.clone();
        tasks.push(tokio::spawn(async move {
            let players = {
                let _permit = gate.acquire().await.ok()?;
                start_playing(addr, body).await?
            };
            for socket in players {
                tokio::spawn(hold(socket, stop_rx.clone(), None));
            }
            Some(())
        }));
    }
    let mut up = 0;
    for task in tasks {
        if let Ok(Some(())) = task.await {
            up += 1;
        }
    }
    (stop, up, n - up)
}

/// One game created with `body`, both seats taken and connected, [`FIRST_TURNS`] played (each
/// sub-move acknowledged before the next).
async fn start_playing(addr: SocketAddr, body: &str) -> Option<[ws::Ws; 2]> {
    let created = http::expect_ok(addr, "POST", "/api/games", Some(body))
        .await
        .ok()?;
    let created: Value = serde_json::from_str(&created).ok()?;
    let id = created.get("id")?.as_str()?.to_string();
    let white = created.get("token")?.as_str()?.to_string();
    let joined = http::expect_ok(addr, "POST", &format!("/api/games/{id}/join"), None)
        .await
        .ok()?;
    let joined: Value = serde_json::from_str(&joined).ok()?;
    let black = joined.get("token")?.as_str()?.to_string();
    let mut players = [
        ws::connect(addr, &format!("/ws/game/{id}?token={white}"))
            .await
            .ok()?,
        ws::connect(addr, &format!("/ws/game/{id}?token={black}"))
            .await
            .ok()?,
    ];
    for (ack, (side, uci)) in (1u64..).zip(FIRST_TURNS) {
        let socket = &mut players[side];
        let mv = uci.parse().ok()?;
        futures_util::SinkExt::send(socket, Message::text(ws::move_text(mv, ack)))
            .await
            .ok()?;
        acknowledged(socket).await?;
    }
    Some(players)
}

/// Reads until the server acknowledges a sub-move (bounded).
async fn acknowledged(socket: &mut ws::Ws) -> Option<()> {
    let wait = async {
        while let Some(Ok(frame)) = socket.next().await {
            if let Message::Text(text) = frame
                && matches!(ws::parse(&text), Some(ServerMsg::Ack(_)))
            {
                return Some(());
            }
        }
        None
    };
    tokio::time::timeout(Duration::from_secs(10), wait)
        .await
        .ok()
        .flatten()
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
        let stop_rx = stop_rx.clone();
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
            let Ok(socket) = socket else {
                let _ = up_tx.send(false);
                return;
            };
            hold(socket, stop_rx, Some(up_tx)).await;
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

/// Reads `socket` (the client library answers the server's pings as it reads) until told to
/// stop, for at most 10 minutes; `up` hears whether a first message came.
async fn hold(
    mut socket: ws::Ws,
    mut stop_rx: watch::Receiver<bool>,
    up: Option<tokio::sync::oneshot::Sender<bool>>,
) {
    let mut up = up;
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
}
