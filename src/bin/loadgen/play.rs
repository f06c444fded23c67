//! The measured modes of `loadgen`: one phase of human games (`--mode steady` and `saturate`,
//! [`play`]) and the two phases of `--mode bots`, without and with computer games beside them
//! ([`play_bots`]), each as the report the `report` module prints.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use serde::Serialize;
use tokio::sync::{Semaphore, watch};

use crate::game::{self, Plan, Window};
use crate::server::{self, Memory, ServerCounters};
use crate::stats::{Percentiles, Samples, Tally};
use crate::{bots, disk, echo, http};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every game moves at `--rate` sub-moves per second.
    Steady,
    /// Every game moves as soon as it may, capped at `--rate` (default 24/s,
    /// under the server's per-connection message limit of 20/s per player).
    Saturate,
    /// Idle rooms and idle connections: memory per object.
    Idle,
    /// Live games played to `--submoves-per-game` sub-moves each: memory per game.
    Memory,
    /// Two steady phases of `--games` human games, the second with
    /// `--bot-games` computer games running: human latency without and with them.
    Bots,
    /// Quick pairing: `--games` lobby pages join `--pool` again and again (`pools`).
    Pools,
    /// One arena of `--games` players paired again and again (`tournament`).
    Tournament,
    /// `--games` accounts asking for their next puzzle with `--puzzles` stored (`puzzles`).
    Puzzles,
    /// `GET /api/explorer` with `--explorer-games` games counted (`explorer`).
    Explorer,
    /// `--bot-games` computer games moving: nodes per search and the engine wait (`computer`).
    Computer,
    /// `--bot-games` computer games between their turns: memory per game (`computer`).
    ComputerMemory,
}

/// What the command line says of the human games of every phase.
pub struct Load {
    pub mode: Mode,
    /// `--addrs`: the nodes of a cluster (empty: one server).
    pub addrs: Vec<SocketAddr>,
    pub placement: game::Placement,
    pub spectators: usize,
    pub spectator_hello_rate: f64,
    pub long_games: bool,
    pub setup_concurrency: usize,
    pub echo_connections: Option<usize>,
    pub echo_bytes: usize,
}

pub struct Settings {
    pub addr: SocketAddr,
    /// Where to probe the disk's fsync latency (next to the server's data).
    pub probe_dir: PathBuf,
    pub pid: Option<u32>,
    pub rate: f64,
    pub duration: Duration,
    pub setup_timeout: Duration,
}

#[derive(Debug, Serialize)]
pub struct PlayReport {
    /// The measurement window (for the bots mode's own counts in the same window).
    #[serde(skip)]
    pub window: Window,
    pub mode: Mode,
    /// Nodes the games were spread over (1: one server), and where their players were.
    pub nodes: usize,
    pub placement: game::Placement,
    pub games: usize,
    pub spectators_per_game: usize,
    pub rate_per_game: f64,
    pub duration_secs: f64,
    pub setup_secs: f64,
    pub sent_per_sec: f64,
    pub accepted_per_sec: f64,
    pub accepted: u64,
    pub accepted_total: u64,
    pub move_to_opponent: Option<Percentiles>,
    pub move_to_spectator: Option<Percentiles>,
    pub move_to_ack: Option<Percentiles>,
    pub echo_round_trip: Option<Percentiles>,
    /// 4 KiB write + fsync next to the server's data, during the window.
    pub fsync: Option<Percentiles>,
    pub echo_connections: usize,
    pub echo_bytes: usize,
    pub echo_lost: u64,
    pub mean_move_event_bytes: f64,
    /// Spectators' `hello`s per second, `state` replies per second and their mean size.
    pub hellos_sent_per_sec: f64,
    pub states_per_sec: f64,
    pub mean_state_bytes: f64,
    pub games_started: u64,
    pub games_finished: u64,
    pub games_stalled: u64,
    pub setup_failures: u64,
    pub errors: std::collections::BTreeMap<String, u64>,
    pub closes: std::collections::BTreeMap<u16, u64>,
    pub unparsed: u64,
    /// Games that ended, by reason.
    pub endings: std::collections::BTreeMap<String, u64>,
    pub client_connections: usize,
    pub server_before: Option<Memory>,
    pub server_after_setup: Option<Memory>,
    pub server_end: Option<Memory>,
    pub loadgen_end: Option<Memory>,
    pub counters_after_setup: Option<ServerCounters>,
    pub counters_end: Option<ServerCounters>,
    /// CPU seconds used during the window, by the server and by the load generator.
    pub server_cpu_secs: Option<f64>,
    pub loadgen_cpu_secs: Option<f64>,
    /// CPU seconds of the echo server's thread during the window (part of
    /// the load generator's): per echoed message, the floor of one WebSocket
    /// read and write.
    pub echo_cpu_secs: Option<f64>,
    /// The machine's 1-minute load average at the start and the end of the window.
    pub load_average: (Option<f64>, Option<f64>),
}

/// One phase of human games: set up `games` slots, measure one window (with the echo and fsync
/// floors beside it), tally. Fails only when the echo server cannot start.
pub async fn play(load: &Load, games: usize, s: Settings) -> std::io::Result<PlayReport> {
    let memory = |pid: Option<u32>| pid.and_then(server::memory);
    let server_before = memory(s.pid);
    let period = Duration::from_secs_f64(1.0 / s.rate);
    let (window_tx, window_rx) = watch::channel(None::<Window>);
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(games.max(1));
    let setup_started = Instant::now();
    let plan = Arc::new(Plan {
        addr: s.addr,
        nodes: if load.addrs.is_empty() {
            vec![s.addr]
        } else {
            load.addrs.clone()
        },
        placement: load.placement,
        next_game: std::sync::atomic::AtomicUsize::new(0),
        spectators: load.spectators,
        hello_period: (load.spectator_hello_rate.is_finite() && load.spectator_hello_rate > 0.0)
            .then(|| Duration::from_secs_f64(1.0 / load.spectator_hello_rate)),
        long_games: load.long_games,
        period,
        setups: Semaphore::new(load.setup_concurrency.max(1)),
        window: window_rx,
        ready: ready_tx,
        setup_deadline: setup_started + s.setup_timeout,
    });
    let slots: Vec<_> = (0..games)
        .map(|i| tokio::spawn(game::run_slot(Arc::clone(&plan), i)))
        .collect();
    // Wait (bounded) until every slot has its first game.
    let mut ready = 0;
    while ready < games {
        match tokio::time::timeout_at(plan.setup_deadline.into(), ready_rx.recv()).await {
            Ok(Some(())) => ready += 1,
            _ => break,
        }
    }
    let setup_secs = setup_started.elapsed().as_secs_f64();
    let server_after_setup = memory(s.pid);
    let counters_after_setup = server::counters(s.addr).await;

    // The echo floor runs in the same window.
    let echo = echo::EchoServer::start()?;
    let start = Instant::now() + Duration::from_millis(200);
    let window = Window {
        start,
        end: start + s.duration,
    };
    let echo_connections = load.echo_connections.unwrap_or(games.min(100));
    let echo_tasks: Vec<_> = (0..echo_connections)
        .map(|i| {
            let offset = period.mul_f64(i as f64 / echo_connections.max(1) as f64);
            tokio::spawn(echo::client(
                echo.addr,
                load.echo_bytes,
                period,
                window,
                start + offset,
            ))
        })
        .collect();
    let probe = disk::spawn(s.probe_dir.clone(), Duration::from_millis(50), window);
    let _ = window_tx.send(Some(window));
    let cpu = |pid: Option<u32>| pid.and_then(server::cpu_secs);
    let me = Some(std::process::id());
    tokio::time::sleep_until(window.start.into()).await;
    let cpu_start = (cpu(s.pid), cpu(me));
    let echo_cpu_start = echo.cpu_secs();
    let load_start = server::load_average();
    tokio::time::sleep_until(window.end.into()).await;
    let cpu_end = (cpu(s.pid), cpu(me));
    let echo_cpu_end = echo.cpu_secs();
    let load_end = server::load_average();
    let used = |a: Option<f64>, b: Option<f64>| Some(b? - a?);
    let server_end = memory(s.pid);
    let counters_end = server::counters(s.addr).await;
    let client_connections = games * (2 + load.spectators);

    let mut tally = Tally::default();
    for slot in slots {
        if let Ok(t) = slot.await {
            tally.merge(t);
        }
    }
    let mut echo_samples = Samples::default();
    let mut echo_lost = 0;
    for task in echo_tasks {
        if let Ok((samples, lost)) = task.await {
            echo_samples.merge(samples);
            echo_lost += lost;
        }
    }
    echo.stop().await;
    let fsync = tokio::task::spawn_blocking(move || probe.join().unwrap_or_default())
        .await
        .unwrap_or_default();
    let secs = s.duration.as_secs_f64();
    Ok(PlayReport {
        window,
        mode: load.mode,
        nodes: plan.nodes.len(),
        placement: plan.placement,
        games,
        spectators_per_game: load.spectators,
        rate_per_game: s.rate,
        duration_secs: secs,
        setup_secs,
        sent_per_sec: tally.sent as f64 / secs,
        accepted_per_sec: tally.acked as f64 / secs,
        accepted: tally.acked,
        accepted_total: tally.acked_total,
        move_to_opponent: tally.to_opponent.summary(),
        move_to_spectator: tally.to_spectator.summary(),
        move_to_ack: tally.to_ack.summary(),
        echo_round_trip: echo_samples.summary(),
        fsync: fsync.summary(),
        echo_connections,
        echo_bytes: load.echo_bytes,
        echo_lost,
        mean_move_event_bytes: if tally.move_events > 0 {
            tally.move_event_bytes as f64 / tally.move_events as f64
        } else {
            0.0
        },
        hellos_sent_per_sec: tally.hellos_sent as f64 / secs,
        states_per_sec: tally.states as f64 / secs,
        mean_state_bytes: if tally.states > 0 {
            tally.state_bytes as f64 / tally.states as f64
        } else {
            0.0
        },
        games_started: tally.games_started,
        games_finished: tally.games_finished,
        games_stalled: tally.games_stalled,
        setup_failures: tally.setup_failures,
        errors: tally.errors,
        closes: tally.closes,
        unparsed: tally.unparsed,
        endings: tally.endings,
        client_connections,
        server_before,
        server_after_setup,
        server_end,
        loadgen_end: server::memory(std::process::id()),
        counters_after_setup,
        counters_end,
        server_cpu_secs: used(cpu_start.0, cpu_end.0),
        loadgen_cpu_secs: used(cpu_start.1, cpu_end.1),
        echo_cpu_secs: used(echo_cpu_start, echo_cpu_end),
        load_average: (load_start, load_end),
    })
}

/// The computer games of `--mode bots`.
pub struct BotSettings {
    /// The phase with the computer games first (`--bots-first`).
    pub first: bool,
    pub games: usize,
    pub level: u8,
    pub clock: Option<(u64, u64)>,
    pub engine_threads: Option<usize>,
}

#[derive(Debug, Serialize)]
pub struct BotsReport {
    /// Whether the phase with the computer games ran first.
    pub bots_first: bool,
    pub bot_games: usize,
    pub bot_level: u8,
    /// `(base_secs, increment_secs)`; `null`: untimed.
    pub bot_clock: Option<(u64, u64)>,
    /// The server's `--engine-threads`, when known.
    pub engine_threads: Option<usize>,
    /// Phase 1: the human games alone.
    pub without_bots: PlayReport,
    /// Phase 2: the same number of human games while the computer games run.
    pub with_bots: PlayReport,
    /// Computer games whose first game was set up before phase 2, and how long that took.
    pub bot_slots_ready: usize,
    pub bot_setup_secs: f64,
    /// The computer's sub-moves during phase 2's window, and per second.
    pub computer_submoves: u64,
    pub computer_submoves_per_sec: f64,
    /// Sub-moves the load generator played for the humans of the computer games (all phases).
    pub bot_human_submoves: u64,
    /// From the human sub-move that handed the turn over to the computer's first sub-move
    /// (thinking, plus waiting for an engine slot), for the replies that arrived in phase 2's
    /// window.
    pub computer_reply: Option<Percentiles>,
    pub bot_games_started: u64,
    pub bot_games_finished: u64,
    pub bot_setup_failures: u64,
    pub bot_endings: std::collections::BTreeMap<String, u64>,
    pub bot_errors: std::collections::BTreeMap<String, u64>,
    pub bot_closes: std::collections::BTreeMap<u16, u64>,
    pub bot_unparsed: u64,
    /// `/metrics` at the end: the most engine searches that ever ran at once.
    pub engine_searches_running_peak: Option<f64>,
    /// Whether that peak is within `engine_threads` (unknown without it).
    pub engine_peak_within_threads: Option<bool>,
}

/// `--mode bots`: phase 1 plays `games` human games alone; then the
/// computer games start; phase 2 plays `games` fresh human games beside them.
/// Two phases of one run on one server, so the two latency figures differ by
/// the computer games (and by whatever else the machine did meanwhile: the
/// load average of each phase is in its report).
pub async fn play_bots(
    load: &Load,
    games: usize,
    s: Settings,
    bots: BotSettings,
) -> std::io::Result<BotsReport> {
    let Settings {
        addr,
        probe_dir,
        pid,
        rate,
        duration,
        setup_timeout,
    } = s;
    let settings = || Settings {
        addr,
        probe_dir: probe_dir.clone(),
        pid,
        rate,
        duration,
        setup_timeout,
    };
    let mut without_bots = None;
    if !bots.first {
        eprintln!("loadgen: phase 1: {games} human games, no computer game");
        without_bots = Some(play(load, games, settings()).await?);
    }

    let (stop_tx, stop_rx) = watch::channel(false);
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(bots.games.max(1));
    let setup_started = Instant::now();
    let plan = Arc::new(bots::BotPlan {
        addr,
        level: bots.level,
        clock: bots.clock,
        setups: Semaphore::new(load.setup_concurrency.max(1)),
        ready: ready_tx,
        setup_deadline: setup_started + setup_timeout,
        stop: stop_rx,
    });
    let slots: Vec<_> = (0..bots.games)
        .map(|i| tokio::spawn(bots::run_slot(Arc::clone(&plan), i)))
        .collect();
    let (mut reported, mut ready) = (0, 0);
    while reported < bots.games {
        match tokio::time::timeout_at(plan.setup_deadline.into(), ready_rx.recv()).await {
            Ok(Some(set_up)) => {
                reported += 1;
                ready += usize::from(set_up);
            }
            _ => break,
        }
    }
    let bot_setup_secs = setup_started.elapsed().as_secs_f64();
    eprintln!(
        "loadgen: {} phase: {games} human games beside {} computer games (level {})",
        if bots.first { "first" } else { "second" },
        bots.games,
        bots.level
    );
    let with_bots = play(load, games, settings()).await?;
    let _ = stop_tx.send(true);
    let mut tally = bots::BotTally::default();
    for slot in slots {
        // A slot closes its game within a second of `stop`; bounded anyway.
        if let Ok(Ok(t)) = tokio::time::timeout(Duration::from_secs(10), slot).await {
            tally.merge(t);
        }
    }
    let without_bots = match without_bots {
        Some(report) => report,
        None => {
            engine_idle(addr).await;
            eprintln!("loadgen: second phase: {games} human games, no computer game");
            play(load, games, settings()).await?
        }
    };
    let metrics = http::expect_ok(addr, "GET", "/metrics", None).await.ok();
    let peak =
        metrics.and_then(|text| http::metric(&text, "marseillais_engine_searches_running_peak"));
    let window = with_bots.window;
    let computer_submoves = tally.computer_moves_between(window.start, window.end);
    let secs = duration.as_secs_f64();
    Ok(BotsReport {
        bots_first: bots.first,
        bot_games: bots.games,
        bot_level: bots.level,
        bot_clock: bots.clock,
        engine_threads: bots.engine_threads,
        without_bots,
        with_bots,
        bot_slots_ready: ready,
        bot_setup_secs,
        computer_submoves,
        computer_submoves_per_sec: computer_submoves as f64 / secs,
        bot_human_submoves: tally.human_moves,
        computer_reply: tally.replies_between(window.start, window.end).summary(),
        bot_games_started: tally.games_started,
        bot_games_finished: tally.games_finished,
        bot_setup_failures: tally.setup_failures,
        bot_endings: tally.endings,
        bot_errors: tally.errors,
        bot_closes: tally.closes,
        bot_unparsed: tally.unparsed,
        engine_searches_running_peak: peak,
        engine_peak_within_threads: match (peak, bots.engine_threads) {
            (Some(peak), Some(threads)) => Some(peak <= threads as f64),
            _ => None,
        },
    })
}

/// Waits (at most 15 s) until `/metrics` shows no engine search running or waiting: the
/// resigned computer games have given their engine slots back.
async fn engine_idle(addr: SocketAddr) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        let busy = match http::expect_ok(addr, "GET", "/metrics", None).await {
            Ok(text) => ["running", "waiting"].iter().any(|what| {
                http::metric(&text, &format!("marseillais_engine_searches_{what}"))
                    .is_some_and(|n| n > 0.0)
            }),
            Err(_) => false,
        };
        if !busy {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
