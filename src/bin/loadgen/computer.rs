//! Issue 35's two measures of the computer opponent:
//!
//! - `--mode computer`: `--bot-games` slots each keep one computer game going (the bots of
//!   [`crate::bots`]: the human seat answers every computer turn at once, so every admitted
//!   game is always in the engine queue, the worst case) for `--duration`. From the server's
//!   `/metrics` over the window: the computer's searches and nodes per search (the strength a
//!   level kept under load), the mean wait of a search for an engine thread, and the new
//!   computer games refused `503 busy`; from the bots: the games admitted and the reply time
//!   (human sub-move to the computer's first sub-move).
//! - `--mode computer-memory`: `--bot-games` computer games at `--bot-level`, each played up
//!   to the person's second turn (the person plays its first sub-move, the computer answers
//!   with its turn) and left there with no socket open, as a player who closed the page
//!   leaves it: the server's RSS before and after, per game. The server runs with a 1 s
//!   first-turn timer (the computer's first turn then thinks a quarter of it per sub-move: a
//!   thousand games are set up in minutes, not the half hour of 2 s searches) and no
//!   admission bound (all games are taken).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{Semaphore, watch};
use tokio_tungstenite::tungstenite::Message;

use marseillais::server::play::protocol::{ServerMsg, Side};

use crate::bots::{self, BotPlan, BotTally};
use crate::http;
use crate::rng::Rng;
use crate::server::{self, Memory};
use crate::stats::Percentiles;
use crate::ws;

/// Server settings of `--mode computer-memory` (see the module comment).
pub const MEMORY_SERVER_ENV: &[(&str, &str)] = &[
    ("MARSEILLAIS_FIRST_MOVE_SECS", "1"),
    ("MARSEILLAIS_ENGINE_MAX_WAIT_SECS", "1000000"),
    ("MARSEILLAIS_CREATE_RATE_PER_SEC", "100000"),
    ("MARSEILLAIS_CREATE_BURST", "100000"),
];

/// Time for the server to settle (store flush, freed buffers) before a memory reading.
const SETTLE: Duration = Duration::from_secs(3);

/// The longest a memory game's setup may take (its create, its first turn, the reply).
const GAME_SETUP: Duration = Duration::from_secs(120);

#[derive(Debug, Serialize)]
pub struct StrengthReport {
    pub slots: usize,
    pub level: u8,
    pub clock: Option<(u64, u64)>,
    pub engine_threads: Option<usize>,
    pub duration_secs: f64,
    pub games_started: u64,
    pub games_finished: u64,
    /// Creations refused (mostly `503 busy`), as the bots saw them.
    pub setup_failures: u64,
    /// `marseillais_computer_games_refused_total` over the run.
    pub refused_busy: u64,
    /// The computer's searches in the window, and their mean nodes.
    pub searches: u64,
    pub nodes_per_search: f64,
    /// The mean wait of an engine search for a thread in the window, in ms.
    pub mean_wait_ms: f64,
    /// Human sub-move to the computer's first sub-move (wait and think).
    pub reply: Option<Percentiles>,
}

/// The counters of `/metrics` the computer mode reads.
#[derive(Clone, Copy, Debug, Default)]
struct EngineCounters {
    computer_searches: f64,
    computer_nodes: f64,
    engine_searches: f64,
    wait_micros: f64,
    refused: f64,
}

async fn engine_counters(addr: SocketAddr) -> EngineCounters {
    let Some(text) = server::counters_text(addr).await else {
        return EngineCounters::default();
    };
    let read = |name| http::metric(&text, name).unwrap_or(0.0);
    EngineCounters {
        computer_searches: read("marseillais_computer_searches_total"),
        computer_nodes: read("marseillais_computer_nodes_total"),
        engine_searches: read("marseillais_engine_searches_total"),
        wait_micros: read("marseillais_engine_wait_microseconds_total"),
        refused: read("marseillais_computer_games_refused_total"),
    }
}

/// `--mode computer`.
pub async fn strength(
    addr: SocketAddr,
    slots: usize,
    level: u8,
    clock: Option<(u64, u64)>,
    engine_threads: Option<usize>,
    duration: Duration,
    setup_timeout: Duration,
) -> StrengthReport {
    let (stop_tx, stop_rx) = watch::channel(false);
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(slots.max(1));
    let plan = Arc::new(BotPlan {
        addr,
        level,
        clock,
        setups: Semaphore::new(8),
        ready: ready_tx,
        setup_deadline: Instant::now() + setup_timeout,
        stop: stop_rx,
    });
    let before = engine_counters(addr).await;
    let mut tasks = tokio::task::JoinSet::new();
    for slot in 0..slots {
        tasks.spawn(bots::run_slot(Arc::clone(&plan), slot));
    }
    // Every slot reports once its first game is set up or given up (bounded by the setup
    // deadline of the bots).
    for _ in 0..slots {
        if ready_rx.recv().await.is_none() {
            break;
        }
    }
    let start = engine_counters(addr).await;
    let window_start = Instant::now();
    tokio::time::sleep(duration).await;
    let window_end = Instant::now();
    let end = engine_counters(addr).await;
    let _ = stop_tx.send(true);
    let mut tally = BotTally::default();
    while let Some(done) = tasks.join_next().await {
        if let Ok(slot) = done {
            tally.merge(slot);
        }
    }
    let searches = end.computer_searches - start.computer_searches;
    let engine_searches = end.engine_searches - start.engine_searches;
    StrengthReport {
        slots,
        level,
        clock,
        engine_threads,
        duration_secs: duration.as_secs_f64(),
        games_started: tally.games_started,
        games_finished: tally.games_finished,
        setup_failures: tally.setup_failures,
        refused_busy: (end.refused - before.refused) as u64,
        searches: searches as u64,
        nodes_per_search: ratio(end.computer_nodes - start.computer_nodes, searches),
        mean_wait_ms: ratio(end.wait_micros - start.wait_micros, engine_searches) / 1000.0,
        reply: tally.replies_between(window_start, window_end).summary(),
    }
}

fn ratio(total: f64, count: f64) -> f64 {
    if count > 0.0 { total / count } else { 0.0 }
}

pub fn print_strength(report: &StrengthReport, as_json: bool) {
    if as_json {
        println!("{}", json!(report));
        return;
    }
    println!(
        "computer: {} slots at level {} ({}), {} s window, engine threads {:?}",
        report.slots,
        report.level,
        clock_text(report.clock),
        report.duration_secs,
        report.engine_threads
    );
    println!(
        "  games started {}, finished {}, setups refused {} (503 busy counted by the server: {})",
        report.games_started, report.games_finished, report.setup_failures, report.refused_busy
    );
    println!(
        "  searches in the window {}, nodes per search {:.0}, mean engine wait {:.0} ms",
        report.searches, report.nodes_per_search, report.mean_wait_ms
    );
    if let Some(reply) = report.reply {
        println!(
            "  reply (wait + think): p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms over {}",
            reply.p50_ms, reply.p99_ms, reply.max_ms, reply.count
        );
    }
}

fn clock_text(clock: Option<(u64, u64)>) -> String {
    clock.map_or("untimed".to_string(), |(base, inc)| {
        format!("{}+{}", base / 60, inc)
    })
}

#[derive(Debug, Serialize)]
pub struct MemoryReport {
    pub games: usize,
    pub level: u8,
    /// Games set up to the person's second turn (the others failed; see `failures`).
    pub between_turns: usize,
    pub failures: usize,
    pub setup_secs: f64,
    pub before: Memory,
    pub after: Memory,
    /// (RSS after - RSS before) / games set up, in KiB.
    pub per_game_kib: f64,
    pub computer_searches: u64,
}

/// `--mode computer-memory`.
pub async fn memory(
    addr: SocketAddr,
    pid: u32,
    games: usize,
    level: u8,
    setup_concurrency: usize,
) -> MemoryReport {
    // A few games first: one-off costs (the engine thread's table, SQLite's cache, the
    // allocator's arenas) are part of the baseline, not of the games.
    let warmup = games.clamp(1, 10);
    let mut rng = Rng::new(0xC0_4E5A);
    for _ in 0..warmup {
        let _ = one_game(addr, level, &mut rng).await;
    }
    tokio::time::sleep(SETTLE).await;
    let before = server::memory(pid).unwrap_or_default();
    let searches_before = engine_counters(addr).await.computer_searches;
    let started = Instant::now();
    let setups = Arc::new(Semaphore::new(setup_concurrency.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..games {
        let setups = Arc::clone(&setups);
        tasks.spawn(async move {
            let _permit = setups.acquire_owned().await.ok()?;
            let mut rng = Rng::new(0x5EED ^ n as u64);
            tokio::time::timeout(GAME_SETUP, one_game(addr, level, &mut rng))
                .await
                .ok()?
        });
    }
    let mut between_turns = 0;
    while let Some(done) = tasks.join_next().await {
        if matches!(done, Ok(Some(()))) {
            between_turns += 1;
        }
    }
    let setup_secs = started.elapsed().as_secs_f64();
    tokio::time::sleep(SETTLE).await;
    let after = server::memory(pid).unwrap_or_default();
    let searches = engine_counters(addr).await.computer_searches - searches_before;
    let grown = after.rss_kib.saturating_sub(before.rss_kib) as f64;
    MemoryReport {
        games,
        level,
        between_turns,
        failures: games - between_turns,
        setup_secs,
        before,
        after,
        per_game_kib: ratio(grown, between_turns as f64),
        computer_searches: searches as u64,
    }
}

/// One computer game (10+0, the person White) played to the person's second turn, then left
/// with its socket closed.
async fn one_game(addr: SocketAddr, level: u8, rng: &mut Rng) -> Option<()> {
    let body = json!({"color": "white", "clock": {"base_secs": 600, "increment_secs": 0},
                      "computer": {"level": level}})
    .to_string();
    let created = http::expect_ok(addr, "POST", "/api/games", Some(&body))
        .await
        .ok()?;
    let created: Value = serde_json::from_str(&created).ok()?;
    let id = created.get("id")?.as_str()?;
    let token = created.get("token")?.as_str()?;
    let mut socket = ws::connect(addr, &format!("/ws/game/{id}?token={token}"))
        .await
        .ok()?;
    let mut sent = false;
    // Bounded by the caller's timeout and by the socket's end.
    while let Some(Ok(frame)) = socket.next().await {
        let Message::Text(text) = frame else { continue };
        if std::env::var_os("LOADGEN_VERBOSE").is_some() {
            eprintln!("loadgen: computer-memory game {id}: {text}");
        }
        let Some(msg) = ws::parse(text.as_str()) else {
            continue;
        };
        match msg {
            ServerMsg::State { d, .. } if !sent => {
                let shared = d.shared.parse().ok()?;
                let mv = *shared.legal.get(rng.below(shared.legal.len().max(1)))?;
                socket
                    .send(Message::Text(ws::move_text(mv, 1).into()))
                    .await
                    .ok()?;
                sent = true;
            }
            ServerMsg::Move { d, .. } if d.color == Side::Black && d.turn == Side::White => {
                let _ = socket.close(None).await;
                return Some(());
            }
            ServerMsg::End { .. } => return None,
            _ => {}
        }
    }
    None
}

pub fn print_memory(report: &MemoryReport, as_json: bool) {
    if as_json {
        println!("{}", json!(report));
        return;
    }
    println!(
        "computer memory: {} games at level {} between turns ({} failed), set up in {:.0} s, {} computer searches",
        report.between_turns,
        report.level,
        report.failures,
        report.setup_secs,
        report.computer_searches
    );
    println!(
        "  server RSS {} KiB -> {} KiB: {:.1} KiB per game",
        report.before.rss_kib, report.after.rss_kib, report.per_game_kib
    );
}
