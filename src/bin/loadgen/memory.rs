//! `--mode memory`: what a live game costs the server as it gets longer.
//!
//! First a warm-up: W games are played to the last checkpoint and closed
//! (they stay in the server's memory as unfinished games, part of the
//! baseline), so that one-off costs that do not grow with the number of
//! games (SQLite's page cache filling up, the WAL index, allocator arenas of
//! the worker threads) are not charged to the measured games: without it,
//! 5 games measured 740 KiB each at 1,000 sub-moves where 100 games
//! measured 380 KiB. Then it sets up N games (create + join over HTTP, both
//! players and the spectators connected by WebSocket, no sub-move yet), lets
//! the server settle and reads its resident memory; then, for each checkpoint K in
//! `--submoves-per-game` (ascending, e.g. 10,100,1000), every game plays
//! random legal sub-moves as fast as the server acknowledges them until it
//! has K acknowledged sub-moves, and the server's RSS is read again after a
//! settle. The cost of a live game of K sub-moves is (RSS at K - RSS after
//! setup) / N, and per sub-move that divided by K.
//!
//! The players choose like `--long-games` ([`crate::long_game`]: quiet piece
//! moves while the 75-move rule is far, then a pawn push or a capture; never a
//! sub-move that ends the game while another is legal), so a random game
//! passes 10,000 sub-moves. One that does end anyway is closed (the server is started with
//! a short `retire-after`, so its finished room leaves memory) and a new game
//! takes its slot and plays from zero to K: at every reading each slot holds
//! one live game with exactly K acknowledged sub-moves; the report counts the
//! replaced games and every sub-move played.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::{Semaphore, mpsc, watch};

use crate::game::{Counted, Drive, Plan};
use crate::rng::Rng;
use crate::server::{self, Memory, ServerCounters};
use crate::stats::Tally;

/// Time for the server to settle (store flush, retired rooms, freed buffers) before a reading.
const SETTLE: Duration = Duration::from_secs(2);

/// The target that tells every slot to close its game and stop.
const STOP: u64 = u64::MAX;

/// Server settings the memory mode needs when it starts the server itself:
/// no rate limit on the players (the checkpoints are reached as fast as the
/// server goes), and finished rooms leave memory within a second.
pub const SERVER_ENV: &[(&str, &str)] = &[
    ("MARSEILLAIS_RATE_PER_SEC", "100000"),
    ("MARSEILLAIS_RATE_BURST", "100000"),
    ("MARSEILLAIS_GAME_RATE_PER_SEC", "100000"),
    ("MARSEILLAIS_GAME_RATE_BURST", "100000"),
    ("MARSEILLAIS_RETIRE_AFTER_SECS", "1"),
];

/// What the memory mode is asked to do.
pub struct MemoryPlan {
    pub addr: std::net::SocketAddr,
    pub pid: u32,
    pub games: usize,
    pub spectators: usize,
    /// Ascending checkpoints, in acknowledged sub-moves per game.
    pub checkpoints: Vec<u64>,
    /// Games played to the last checkpoint before the baseline (0: none).
    pub warmup_games: usize,
    pub setup_concurrency: usize,
    pub setup_timeout: Duration,
    /// Bound on the time to reach one checkpoint.
    pub phase_timeout: Duration,
}

#[derive(Debug, Serialize)]
pub struct MemoryReport {
    pub games: usize,
    pub spectators_per_game: usize,
    /// Slots whose first game was set up in time.
    pub games_set_up: usize,
    pub setup_secs: f64,
    pub server_before: Option<Memory>,
    pub warmup_games: usize,
    /// Warm-up games that reached the last checkpoint.
    pub warmup_reached: usize,
    pub server_after_warmup: Option<Memory>,
    /// After setup and a settle: N live games with no sub-move.
    pub server_after_setup: Option<Memory>,
    pub counters_after_setup: Option<ServerCounters>,
    pub checkpoints: Vec<Checkpoint>,
    /// Games that ended (or were closed or stalled) and were replaced.
    pub games_replaced: u64,
    pub games_stalled: u64,
    pub setup_failures: u64,
    pub errors: std::collections::BTreeMap<String, u64>,
    pub closes: std::collections::BTreeMap<u16, u64>,
    pub unparsed: u64,
    /// Why the replaced games ended (`reason` of their `end` events).
    pub endings: std::collections::BTreeMap<String, u64>,
}

/// One reading of the server's memory.
#[derive(Debug, Serialize)]
pub struct Checkpoint {
    pub submoves_per_game: u64,
    /// Slots whose live game had reached it at the reading (all, unless the phase timed out).
    pub games_reached: usize,
    pub phase_secs: f64,
    /// Acknowledged sub-moves since setup, replaced games included.
    pub accepted_since_setup: u64,
    pub games_replaced_so_far: u64,
    pub server: Option<Memory>,
    pub counters: Option<ServerCounters>,
    /// (RSS - RSS after setup) / games set up, in KiB (meaningful when
    /// `games_reached` is all of them).
    pub rss_per_game_kib: Option<f64>,
    /// The same divided by the checkpoint, in bytes per sub-move.
    pub rss_per_submove_bytes: Option<f64>,
}

/// What a slot tells the coordinator: it reached `target` with these totals so far.
struct Reached {
    slot: usize,
    target: u64,
    acked_total: u64,
    replaced: u64,
}

pub async fn run(mp: MemoryPlan) -> MemoryReport {
    let server_before = server::memory(mp.pid);
    // The window never opens: nothing is timed in this mode.
    let (_window_tx, window_rx) = watch::channel(None);
    let (ready_tx, _ready_rx) = mpsc::channel(1);
    let plan = Arc::new(Plan {
        addr: mp.addr,
        nodes: vec![mp.addr],
        placement: crate::game::Placement::Owner,
        next_game: std::sync::atomic::AtomicUsize::new(0),
        spectators: mp.spectators,
        hello_period: None,
        long_games: true,
        period: Duration::ZERO,
        setups: Semaphore::new(mp.setup_concurrency.max(1)),
        window: window_rx,
        ready: ready_tx,
        // Unused here: every setup below has its own deadline.
        setup_deadline: Instant::now() + mp.setup_timeout,
    });
    let spawn = |first: usize, n: usize| {
        let (targets_tx, targets_rx) = watch::channel(0u64);
        let (reached_tx, reached_rx) = mpsc::unbounded_channel();
        let handles: Vec<_> = (first..first + n)
            .map(|i| {
                tokio::spawn(slot(
                    Arc::clone(&plan),
                    i,
                    first,
                    targets_rx.clone(),
                    reached_tx.clone(),
                    mp.setup_timeout,
                ))
            })
            .collect();
        (targets_tx, reached_rx, handles)
    };
    let last = mp.checkpoints.last().copied().unwrap_or(0);
    let mut warmup_reached = 0;
    if mp.warmup_games > 0 && last > 0 {
        let (targets_tx, mut reached_rx, handles) = spawn(mp.games, mp.warmup_games);
        let mut latest: Vec<Option<Reached>> = (0..mp.warmup_games).map(|_| None).collect();
        gather(
            &mut reached_rx,
            &mut latest,
            0,
            Instant::now() + mp.setup_timeout,
        )
        .await;
        let _ = targets_tx.send(last);
        let deadline = Instant::now() + mp.phase_timeout;
        warmup_reached = gather(&mut reached_rx, &mut latest, last, deadline).await;
        let _ = targets_tx.send(STOP);
        finish(handles).await;
    }
    tokio::time::sleep(SETTLE).await;
    let server_after_warmup = server::memory(mp.pid);
    let setup_started = Instant::now();
    let setup_deadline = setup_started + mp.setup_timeout;
    let (targets_tx, mut reached_rx, slots) = spawn(0, mp.games);
    let mut latest: Vec<Option<Reached>> = (0..mp.games).map(|_| None).collect();
    let games_set_up = gather(&mut reached_rx, &mut latest, 0, setup_deadline).await;
    let setup_secs = setup_started.elapsed().as_secs_f64();
    tokio::time::sleep(SETTLE).await;
    let server_after_setup = server::memory(mp.pid);
    let counters_after_setup = server::counters(mp.addr).await;
    let base = |l: &[Option<Reached>]| l.iter().flatten().map(|r| r.acked_total).sum::<u64>();
    let accepted_at_setup = base(&latest);

    let mut checkpoints = Vec::new();
    for &k in &mp.checkpoints {
        let started = Instant::now();
        let _ = targets_tx.send(k);
        let reached = gather(&mut reached_rx, &mut latest, k, started + mp.phase_timeout).await;
        let phase_secs = started.elapsed().as_secs_f64();
        tokio::time::sleep(SETTLE).await;
        let memory = server::memory(mp.pid);
        // Every slot that was set up holds one live game at the reading.
        let per_game = match (memory, server_after_setup) {
            (Some(m), Some(s)) if games_set_up > 0 => {
                Some((m.rss_kib as f64 - s.rss_kib as f64) / games_set_up as f64)
            }
            _ => None,
        };
        checkpoints.push(Checkpoint {
            submoves_per_game: k,
            games_reached: reached,
            phase_secs,
            accepted_since_setup: base(&latest).saturating_sub(accepted_at_setup),
            games_replaced_so_far: latest.iter().flatten().map(|r| r.replaced).sum(),
            server: memory,
            counters: server::counters(mp.addr).await,
            rss_per_game_kib: per_game,
            rss_per_submove_bytes: per_game
                .filter(|_| k > 0)
                .map(|kib| kib * 1024.0 / k as f64),
        });
    }
    let _ = targets_tx.send(STOP);
    let (tally, replaced) = finish(slots).await;
    MemoryReport {
        games: mp.games,
        spectators_per_game: mp.spectators,
        games_set_up,
        setup_secs,
        server_before,
        warmup_games: mp.warmup_games,
        warmup_reached,
        server_after_warmup,
        server_after_setup,
        counters_after_setup,
        checkpoints,
        games_replaced: replaced,
        games_stalled: tally.games_stalled,
        setup_failures: tally.setup_failures,
        errors: tally.errors,
        closes: tally.closes,
        unparsed: tally.unparsed,
        endings: tally.endings,
    }
}

/// Waits for stopped slots (each closes its sockets with bounded waits) and sums what they counted.
async fn finish(slots: Vec<tokio::task::JoinHandle<(Tally, u64)>>) -> (Tally, u64) {
    let mut tally = Tally::default();
    let mut replaced = 0;
    for handle in slots {
        if let Ok(Ok((t, r))) = tokio::time::timeout(Duration::from_secs(30), handle).await {
            tally.merge(t);
            replaced += r;
        }
    }
    (tally, replaced)
}

/// Reads reports until every slot has reached `target` or `deadline` passes;
/// returns how many slots have.
async fn gather(
    rx: &mut mpsc::UnboundedReceiver<Reached>,
    latest: &mut [Option<Reached>],
    target: u64,
    deadline: Instant,
) -> usize {
    let count = |l: &[Option<Reached>]| l.iter().flatten().filter(|r| r.target == target).count();
    while count(latest) < latest.len() {
        match tokio::time::timeout_at(deadline.into(), rx.recv()).await {
            Ok(Some(r)) => {
                if let Some(entry) = latest.get_mut(r.slot) {
                    *entry = Some(r);
                }
            }
            _ => break,
        }
    }
    count(latest)
}

/// One slot: keeps one live game, plays it to each target, replaces it when
/// it ends; returns what it counted and how many games it replaced.
async fn slot(
    plan: Arc<Plan>,
    index: usize,
    first: usize,
    mut targets: watch::Receiver<u64>,
    reached: mpsc::UnboundedSender<Reached>,
    setup_timeout: Duration,
) -> (Tally, u64) {
    let mut tally = Tally::default();
    let mut rng = Rng::new(0xD1B5_4A32_D192_ED03 ^ (index as u64).wrapping_mul(0x1000_0001));
    let mut replaced = 0u64;
    let mut game = Counted::setup(&plan, &mut tally, Instant::now() + setup_timeout).await;
    let mut target = *targets.borrow_and_update();
    let mut reported: Option<u64> = None;
    // Each round either reports, waits for a new target, or replaces a game;
    // the coordinator's deadlines bound the run, and STOP (or its absence) ends it.
    while target != STOP {
        let Some(g) = game.as_mut() else {
            game = Counted::setup(&plan, &mut tally, Instant::now() + setup_timeout).await;
            if game.is_none() && targets.changed().await.is_err() {
                break;
            }
            target = *targets.borrow_and_update();
            continue;
        };
        let hold = reported == Some(target);
        match g
            .drive(
                target,
                hold,
                &mut targets,
                plan.long_games,
                &mut rng,
                &mut tally,
            )
            .await
        {
            Drive::Reached => {
                reported = Some(target);
                let _ = reached.send(Reached {
                    slot: index - first,
                    target,
                    acked_total: tally.acked_total,
                    replaced,
                });
            }
            Drive::Changed => {
                if targets.has_changed().is_err() {
                    break;
                }
                target = *targets.borrow_and_update();
            }
            ended @ (Drive::Over | Drive::Closed | Drive::Stalled) => {
                if ended == Drive::Stalled {
                    tally.games_stalled += 1;
                }
                replaced += 1;
                if let Some(g) = game.take() {
                    g.close(&mut tally).await;
                }
                reported = None;
            }
        }
    }
    if let Some(g) = game {
        g.close(&mut tally).await;
    }
    (tally, replaced)
}
