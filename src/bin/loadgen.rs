//! `loadgen`: plays many concurrent random games against the marseillais
//! server over loopback, with spectators, and reports accepted sub-moves per
//! second, move-to-opponent latency (mover's send to the opponent's
//! receipt), connections and server memory; beside it, a plain WebSocket
//! echo round trip measured in the same run as the floor.
//!
//! By default it starts the real server itself (the `marseillais` binary
//! next to this one, fresh data directory, durability on) and stops it at
//! the end; `--addr` uses a running server instead. See docs/performance.md.
//!
//! | concept | module |
//! |---|---|
//! | one game slot: players, spectators, pacing | `game` |
//! | computer games (`--mode bots`): the human seat against the server's engine | `bots` |
//! | the echo floor | `echo` |
//! | the fsync floor | `disk` |
//! | idle memory per room / connection | `idle` |
//! | memory of a live game as it gets longer | `memory` |
//! | the server process, its memory and counters | `server` |
//! | WebSocket client, reading server messages | `ws` |
//! | tiny HTTP client | `http` |
//! | latency samples and counters | `stats` |
//!
//! The modules live in `src/bin/loadgen/` (a binary's root resolves `mod` next
//! to itself, hence the `#[path]`s).

#[path = "loadgen/bots.rs"]
mod bots;
#[path = "loadgen/disk.rs"]
mod disk;
#[path = "loadgen/echo.rs"]
mod echo;
#[path = "loadgen/game.rs"]
mod game;
#[path = "loadgen/http.rs"]
mod http;
#[path = "loadgen/idle.rs"]
mod idle;
#[path = "loadgen/memory.rs"]
mod memory;
#[path = "loadgen/server.rs"]
mod server;
#[path = "loadgen/stats.rs"]
mod stats;
#[path = "loadgen/ws.rs"]
mod ws;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use serde::Serialize;
use tokio::sync::{Semaphore, watch};

use game::{Plan, Window};
use server::{Memory, ServerCounters};
use stats::{Percentiles, Samples, Tally};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
enum Mode {
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
}

#[derive(Parser, Debug)]
#[command(name = "loadgen", about = "Load generator for the marseillais server")]
struct Args {
    #[arg(long, value_enum, default_value = "steady")]
    mode: Mode,
    /// Concurrent games (default 1000; 100 in memory mode).
    #[arg(long)]
    games: Option<usize>,
    /// Spectators per game.
    #[arg(long, default_value_t = 2)]
    spectators: usize,
    /// Each spectator also sends `hello` this many times per second (0: never):
    /// the snapshot-amplification case, e.g. 20 spectators at 18/s.
    #[arg(long, default_value_t = 0.0)]
    spectator_hello_rate: f64,
    /// Players avoid captures and pawn moves until the 75-move rule is near,
    /// so games last thousands of sub-moves (large snapshots).
    #[arg(long)]
    long_games: bool,
    /// Sub-moves per second per game (default 1 in steady mode, 24 in saturate mode).
    #[arg(long)]
    rate: Option<f64>,
    /// Length of the measurement window, after every game is set up.
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// Use a running server (127.0.0.1 only) instead of starting one.
    #[arg(long)]
    addr: Option<SocketAddr>,
    /// Several nodes of one cluster (127.0.0.1 only), `--addrs A,B,C`: games are created on
    /// them in turn and their players placed by `--placement`; no server is started. The
    /// first node's counters are reported (memory and CPU: `--server-pid` of that node).
    #[arg(long, value_delimiter = ',', conflicts_with = "addr")]
    addrs: Vec<SocketAddr>,
    /// With `--addrs`: `owner` puts both players on the node that created the game (its
    /// owner), `other` each on another node (every message relayed over the bus).
    #[arg(long, value_enum, default_value = "owner")]
    placement: game::Placement,
    /// With --addr: the server's process id, to read its memory.
    #[arg(long)]
    server_pid: Option<u32>,
    /// The server binary (default: `marseillais` next to this executable).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// Data directory for the started server (default: a fresh temporary one, removed at the end).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Extra flags for the started server, e.g. `--server-arg=--rate-per-sec=50`.
    #[arg(long = "server-arg", allow_hyphen_values = true)]
    server_args: Vec<String>,
    /// Concurrent game setups (HTTP create/join and WebSocket handshakes).
    #[arg(long, default_value_t = 64)]
    setup_concurrency: usize,
    /// Give up setting up the first games after this many seconds.
    #[arg(long, default_value_t = 120.0)]
    setup_timeout: f64,
    /// Echo-floor connections (default: min(games, 100)), each at the per-game rate.
    #[arg(long)]
    echo_connections: Option<usize>,
    /// Size of an echo message in bytes (about a `move` event).
    #[arg(long, default_value_t = 450)]
    echo_bytes: usize,
    /// Idle mode: rooms to create.
    #[arg(long, default_value_t = 1000)]
    idle_rooms: usize,
    /// Idle mode: connections to open (spectators spread over the rooms).
    #[arg(long, default_value_t = 2000)]
    idle_connections: usize,
    /// Memory mode: ascending checkpoints, in acknowledged sub-moves per game.
    #[arg(long, value_delimiter = ',', default_value = "10,100,1000")]
    submoves_per_game: Vec<u64>,
    /// Memory mode: games played to the last checkpoint before the baseline
    /// (one-off costs such as SQLite's page cache are not charged to the games).
    #[arg(long, default_value_t = 10)]
    warmup_games: usize,
    /// Memory mode: give up reaching one checkpoint after this many seconds.
    #[arg(long, default_value_t = 120.0)]
    phase_timeout: f64,
    /// Bots mode: computer games running during the second phase.
    #[arg(long, default_value_t = 50)]
    bot_games: usize,
    /// Bots mode: the computer's level (1 beginner .. 8 full strength).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=8))]
    bot_level: u8,
    /// Bots mode: the computer games' clock, `MINUTES+SECONDS` (e.g. `3+2`) or `none`
    /// (untimed: the computer thinks for its default time).
    #[arg(long, default_value = "none")]
    bot_clock: String,
    /// Bots mode: the phase with the computer games first, then the one without (the
    /// computer games resign at the end of their phase). Running both orders shows how much
    /// of a difference is the machine drifting.
    #[arg(long)]
    bots_first: bool,
    /// The server's `--engine-threads` (given to a started server; with `--addr`, what the
    /// running server was given): the report checks the engine peak against it.
    #[arg(long)]
    engine_threads: Option<usize>,
    /// Print the report as one JSON object (last line of stdout).
    #[arg(long)]
    json: bool,
}

#[derive(Debug, thiserror::Error)]
enum LoadError {
    #[error("{0}")]
    Server(#[from] server::ServerError),
    #[error("only 127.0.0.1 is allowed, not {0}")]
    NotLoopback(SocketAddr),
    #[error("--{0} must be a positive finite number")]
    BadNumber(&'static str),
    #[error("--submoves-per-game must be ascending")]
    Checkpoints,
    #[error("--bot-clock must be MINUTES+SECONDS (e.g. 3+2) or none, not {0:?}")]
    BotClock(String),
    #[error("cannot start the echo server: {0}")]
    Echo(std::io::Error),
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("loadgen: error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), LoadError> {
    let positive = |name, x: f64| {
        if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(LoadError::BadNumber(name))
        }
    };
    let rate = positive(
        "rate",
        args.rate.unwrap_or(match args.mode {
            Mode::Saturate => 24.0,
            _ => 1.0,
        }),
    )?;
    let duration = positive("duration", args.duration)?;
    let setup_timeout = positive("setup-timeout", args.setup_timeout)?;
    let phase_timeout = positive("phase-timeout", args.phase_timeout)?;
    if !args.submoves_per_game.is_sorted() {
        return Err(LoadError::Checkpoints);
    }
    let bot_clock = parse_clock(&args.bot_clock)?;
    let games = args.games.unwrap_or(match args.mode {
        Mode::Memory => 100,
        _ => 1000,
    });
    for addr in args.addr.iter().chain(&args.addrs) {
        if !addr.ip().is_loopback() {
            return Err(LoadError::NotLoopback(*addr));
        }
    }
    // `--addrs` is a running cluster: its first node stands for `--addr`.
    let first_node = args.addr.or_else(|| args.addrs.first().copied());
    let threads_text = args.engine_threads.map(|n| n.to_string());
    let mut env: Vec<(&str, &str)> = match args.mode {
        Mode::Memory => memory::SERVER_ENV.to_vec(),
        _ => Vec::new(),
    };
    if let Some(n) = &threads_text {
        env.push(("MARSEILLAIS_ENGINE_THREADS", n));
    }
    let spawned = match first_node {
        Some(_) => None,
        None => Some(server::Spawned::start(
            args.server_bin.clone(),
            args.data_dir.clone(),
            &args.server_args,
            &env,
        )?),
    };
    // What the server runs with: as given, else (a server we started) its default.
    let engine_threads = args.engine_threads.or_else(|| {
        spawned
            .as_ref()
            .map(|_| std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1)))
    });
    let (addr, pid) = match &spawned {
        Some(s) => (s.addr, Some(s.pid())),
        None => (
            first_node.unwrap_or(SocketAddr::from(([127, 0, 0, 1], 8080))),
            args.server_pid,
        ),
    };
    let probe_dir = match (&spawned, &args.data_dir) {
        (Some(s), _) => s.dir().to_path_buf(),
        (None, Some(dir)) => dir.clone(),
        (None, None) => std::env::temp_dir(),
    };
    let runtime = tokio::runtime::Runtime::new().map_err(LoadError::Runtime)?;
    let result = runtime.block_on(async {
        match args.mode {
            Mode::Idle => {
                let Some(pid) = pid else {
                    eprintln!("loadgen: idle mode needs the server's memory: give --server-pid");
                    return Ok(());
                };
                let report = idle::run(addr, pid, args.idle_rooms, args.idle_connections).await;
                print_idle(&report, args.json);
                Ok(())
            }
            Mode::Memory => {
                let Some(pid) = pid else {
                    eprintln!("loadgen: memory mode needs the server's memory: give --server-pid");
                    return Ok(());
                };
                let report = memory::run(memory::MemoryPlan {
                    addr,
                    pid,
                    games,
                    spectators: args.spectators,
                    checkpoints: args.submoves_per_game.clone(),
                    warmup_games: args.warmup_games,
                    setup_concurrency: args.setup_concurrency,
                    setup_timeout: Duration::from_secs_f64(setup_timeout),
                    phase_timeout: Duration::from_secs_f64(phase_timeout),
                })
                .await;
                print_memory(&report, args.json);
                Ok(())
            }
            Mode::Steady | Mode::Saturate => {
                let settings = Settings {
                    addr,
                    probe_dir: probe_dir.clone(),
                    pid,
                    rate,
                    duration: Duration::from_secs_f64(duration),
                    setup_timeout: Duration::from_secs_f64(setup_timeout),
                };
                let report = play(&args, games, settings).await?;
                print_play(&report, args.json);
                Ok(())
            }
            Mode::Bots => {
                let settings = Settings {
                    addr,
                    probe_dir: probe_dir.clone(),
                    pid,
                    rate,
                    duration: Duration::from_secs_f64(duration),
                    setup_timeout: Duration::from_secs_f64(setup_timeout),
                };
                let bots = BotSettings {
                    games: args.bot_games,
                    level: args.bot_level,
                    clock: bot_clock,
                    engine_threads,
                };
                let report = play_bots(&args, games, settings, bots).await?;
                print_bots(&report, args.json);
                Ok(())
            }
        }
    });
    runtime.shutdown_timeout(Duration::from_secs(5));
    if let Some(s) = spawned {
        s.stop();
    }
    result
}

struct Settings {
    addr: SocketAddr,
    /// Where to probe the disk's fsync latency (next to the server's data).
    probe_dir: PathBuf,
    pid: Option<u32>,
    rate: f64,
    duration: Duration,
    setup_timeout: Duration,
}

#[derive(Debug, Serialize)]
struct PlayReport {
    /// The measurement window (for the bots mode's own counts in the same window).
    #[serde(skip)]
    window: Window,
    mode: Mode,
    /// Nodes the games were spread over (1: one server), and where their players were.
    nodes: usize,
    placement: game::Placement,
    games: usize,
    spectators_per_game: usize,
    rate_per_game: f64,
    duration_secs: f64,
    setup_secs: f64,
    sent_per_sec: f64,
    accepted_per_sec: f64,
    accepted: u64,
    accepted_total: u64,
    move_to_opponent: Option<Percentiles>,
    move_to_spectator: Option<Percentiles>,
    move_to_ack: Option<Percentiles>,
    echo_round_trip: Option<Percentiles>,
    /// 4 KiB write + fsync next to the server's data, during the window.
    fsync: Option<Percentiles>,
    echo_connections: usize,
    echo_bytes: usize,
    echo_lost: u64,
    mean_move_event_bytes: f64,
    /// Spectators' `hello`s per second, `state` replies per second and their mean size.
    hellos_sent_per_sec: f64,
    states_per_sec: f64,
    mean_state_bytes: f64,
    games_started: u64,
    games_finished: u64,
    games_stalled: u64,
    setup_failures: u64,
    errors: std::collections::BTreeMap<String, u64>,
    closes: std::collections::BTreeMap<u16, u64>,
    unparsed: u64,
    /// Games that ended, by reason.
    endings: std::collections::BTreeMap<String, u64>,
    client_connections: usize,
    server_before: Option<Memory>,
    server_after_setup: Option<Memory>,
    server_end: Option<Memory>,
    loadgen_end: Option<Memory>,
    counters_after_setup: Option<ServerCounters>,
    counters_end: Option<ServerCounters>,
    /// CPU seconds used during the window, by the server and by the load generator.
    server_cpu_secs: Option<f64>,
    loadgen_cpu_secs: Option<f64>,
    /// CPU seconds of the echo server's thread during the window (part of
    /// the load generator's): per echoed message, the floor of one WebSocket
    /// read and write.
    echo_cpu_secs: Option<f64>,
    /// The machine's 1-minute load average at the start and the end of the window.
    load_average: (Option<f64>, Option<f64>),
}

async fn play(args: &Args, games: usize, s: Settings) -> Result<PlayReport, LoadError> {
    let memory = |pid: Option<u32>| pid.and_then(server::memory);
    let server_before = memory(s.pid);
    let period = Duration::from_secs_f64(1.0 / s.rate);
    let (window_tx, window_rx) = watch::channel(None::<Window>);
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(games.max(1));
    let setup_started = Instant::now();
    let plan = Arc::new(Plan {
        addr: s.addr,
        nodes: if args.addrs.is_empty() {
            vec![s.addr]
        } else {
            args.addrs.clone()
        },
        placement: args.placement,
        next_game: std::sync::atomic::AtomicUsize::new(0),
        spectators: args.spectators,
        hello_period: (args.spectator_hello_rate.is_finite() && args.spectator_hello_rate > 0.0)
            .then(|| Duration::from_secs_f64(1.0 / args.spectator_hello_rate)),
        long_games: args.long_games,
        period,
        setups: Semaphore::new(args.setup_concurrency.max(1)),
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
    let echo = echo::EchoServer::start().map_err(LoadError::Echo)?;
    let start = Instant::now() + Duration::from_millis(200);
    let window = Window {
        start,
        end: start + s.duration,
    };
    let echo_connections = args.echo_connections.unwrap_or(games.min(100));
    let echo_tasks: Vec<_> = (0..echo_connections)
        .map(|i| {
            let offset = period.mul_f64(i as f64 / echo_connections.max(1) as f64);
            tokio::spawn(echo::client(
                echo.addr,
                args.echo_bytes,
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
    let client_connections = games * (2 + args.spectators);

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
        mode: args.mode,
        nodes: plan.nodes.len(),
        placement: plan.placement,
        games,
        spectators_per_game: args.spectators,
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
        echo_bytes: args.echo_bytes,
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

/// `3+2` (minutes + seconds) as `(180, 2)`; `none` as `None`.
fn parse_clock(text: &str) -> Result<Option<(u64, u64)>, LoadError> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let bad = || LoadError::BotClock(text.to_string());
    let (minutes, seconds) = text.split_once('+').ok_or_else(bad)?;
    let minutes: u64 = minutes.trim().parse().map_err(|_| bad())?;
    let seconds: u64 = seconds.trim().parse().map_err(|_| bad())?;
    if minutes == 0 && seconds == 0 {
        return Err(bad());
    }
    Ok(Some((minutes.saturating_mul(60), seconds)))
}

/// The computer games of `--mode bots`.
struct BotSettings {
    games: usize,
    level: u8,
    clock: Option<(u64, u64)>,
    engine_threads: Option<usize>,
}

#[derive(Debug, Serialize)]
struct BotsReport {
    /// Whether the phase with the computer games ran first.
    bots_first: bool,
    bot_games: usize,
    bot_level: u8,
    /// `(base_secs, increment_secs)`; `null`: untimed.
    bot_clock: Option<(u64, u64)>,
    /// The server's `--engine-threads`, when known.
    engine_threads: Option<usize>,
    /// Phase 1: the human games alone.
    without_bots: PlayReport,
    /// Phase 2: the same number of human games while the computer games run.
    with_bots: PlayReport,
    /// Computer games whose first game was set up before phase 2, and how long that took.
    bot_slots_ready: usize,
    bot_setup_secs: f64,
    /// The computer's sub-moves during phase 2's window, and per second.
    computer_submoves: u64,
    computer_submoves_per_sec: f64,
    /// Sub-moves the load generator played for the humans of the computer games (all phases).
    bot_human_submoves: u64,
    /// From the human sub-move that handed the turn over to the computer's first sub-move
    /// (thinking, plus waiting for an engine slot), for the replies that arrived in phase 2's
    /// window.
    computer_reply: Option<Percentiles>,
    bot_games_started: u64,
    bot_games_finished: u64,
    bot_setup_failures: u64,
    bot_endings: std::collections::BTreeMap<String, u64>,
    bot_errors: std::collections::BTreeMap<String, u64>,
    bot_closes: std::collections::BTreeMap<u16, u64>,
    bot_unparsed: u64,
    /// `/metrics` at the end: the most engine searches that ever ran at once.
    engine_searches_running_peak: Option<f64>,
    /// Whether that peak is within `engine_threads` (unknown without it).
    engine_peak_within_threads: Option<bool>,
}

/// `--mode bots`: phase 1 plays `games` human games alone; then the
/// computer games start; phase 2 plays `games` fresh human games beside them.
/// Two phases of one run on one server, so the two latency figures differ by
/// the computer games (and by whatever else the machine did meanwhile: the
/// load average of each phase is in its report).
async fn play_bots(
    args: &Args,
    games: usize,
    s: Settings,
    bots: BotSettings,
) -> Result<BotsReport, LoadError> {
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
    if !args.bots_first {
        eprintln!("loadgen: phase 1: {games} human games, no computer game");
        without_bots = Some(play(args, games, settings()).await?);
    }

    let (stop_tx, stop_rx) = watch::channel(false);
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(bots.games.max(1));
    let setup_started = Instant::now();
    let plan = Arc::new(bots::BotPlan {
        addr,
        level: bots.level,
        clock: bots.clock,
        setups: Semaphore::new(args.setup_concurrency.max(1)),
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
        if args.bots_first { "first" } else { "second" },
        bots.games,
        bots.level
    );
    let with_bots = play(args, games, settings()).await?;
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
            play(args, games, settings()).await?
        }
    };
    let metrics = http::expect_ok(addr, "GET", "/metrics", None).await.ok();
    let peak =
        metrics.and_then(|text| http::metric(&text, "marseillais_engine_searches_running_peak"));
    let window = with_bots.window;
    let computer_submoves = tally.computer_moves_between(window.start, window.end);
    let secs = duration.as_secs_f64();
    Ok(BotsReport {
        bots_first: args.bots_first,
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

fn print_bots(r: &BotsReport, json: bool) {
    let clock = r.bot_clock.map_or("untimed".to_string(), |(base, inc)| {
        format!("{}+{inc}", base / 60)
    });
    println!(
        "bots: {} human games at {} sub-moves/s per game x {:.0} s, {} {} computer games (level {}, {clock}); engine threads {}",
        r.with_bots.games,
        r.with_bots.rate_per_game,
        r.with_bots.duration_secs,
        if r.bots_first {
            "with and then without"
        } else {
            "without and then with"
        },
        r.bot_games,
        r.bot_level,
        r.engine_threads
            .map_or("unknown".to_string(), |n| n.to_string())
    );
    let phases = if r.bots_first {
        [
            ("with bots", &r.with_bots),
            ("without bots", &r.without_bots),
        ]
    } else {
        [
            ("without bots", &r.without_bots),
            ("with bots", &r.with_bots),
        ]
    };
    for (name, phase) in phases {
        println!(
            "{}  [{name}]",
            line("move -> opponent", &phase.move_to_opponent)
        );
        let cpu = phase.server_cpu_secs.map_or("unknown".to_string(), |secs| {
            format!(
                "{secs:.1} s ({:.0}% of one core)",
                secs * 100.0 / phase.duration_secs
            )
        });
        let load = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x:.2}"));
        println!(
            "  {name}: accepted {:.1} sub-moves/s; server CPU {cpu}; load average {} -> {}; errors {:?}; stalled {}",
            phase.accepted_per_sec,
            load(phase.load_average.0),
            load(phase.load_average.1),
            phase.errors,
            phase.games_stalled
        );
    }
    println!(
        "computer: {} sub-moves in the window ({:.2}/s); {}",
        r.computer_submoves,
        r.computer_submoves_per_sec,
        line("reply", &r.computer_reply)
    );
    println!(
        "computer games: {} of {} ready in {:.1} s; {} started, {} finished (endings {:?}), {} setup failures; errors {:?}; closes {:?}; unparsed {}",
        r.bot_slots_ready,
        r.bot_games,
        r.bot_setup_secs,
        r.bot_games_started,
        r.bot_games_finished,
        r.bot_endings,
        r.bot_setup_failures,
        r.bot_errors,
        r.bot_closes,
        r.bot_unparsed
    );
    println!(
        "engine searches running peak {} (engine threads {}: {})",
        r.engine_searches_running_peak
            .map_or("unknown".to_string(), |p| format!("{p:.0}")),
        r.engine_threads
            .map_or("unknown".to_string(), |n| n.to_string()),
        match r.engine_peak_within_threads {
            Some(true) => "within",
            Some(false) => "ABOVE THE CAP",
            None => "not checked",
        }
    );
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}

fn line(name: &str, p: &Option<Percentiles>) -> String {
    match p {
        Some(p) => format!(
            "{name:<22} p50 {:>8.3} ms  p99 {:>8.3} ms  p999 {:>8.3} ms  max {:>8.3} ms  (n={})",
            p.p50_ms, p.p99_ms, p.p999_ms, p.max_ms, p.count
        ),
        None => format!("{name:<22} no samples"),
    }
}

fn mib(m: &Option<Memory>) -> String {
    match m {
        Some(m) => format!(
            "RSS {:.1} MiB (peak {:.1} MiB)",
            m.rss_kib as f64 / 1024.0,
            m.hwm_kib as f64 / 1024.0
        ),
        None => "unknown".to_string(),
    }
}

fn print_play(r: &PlayReport, json: bool) {
    if r.nodes > 1 {
        println!(
            "{} nodes, players placed: {:?} (on the node that created the game, or on others)",
            r.nodes, r.placement
        );
    }
    println!(
        "mode {:?}: {} games x {} spectators, {} sub-moves/s per game, {:.0} s window (setup took {:.1} s)",
        r.mode, r.games, r.spectators_per_game, r.rate_per_game, r.duration_secs, r.setup_secs
    );
    println!(
        "accepted sub-moves/s   {:.1}  (sent {:.1}/s; {} acks in window, {} in all)",
        r.accepted_per_sec, r.sent_per_sec, r.accepted, r.accepted_total
    );
    println!("{}", line("move -> opponent", &r.move_to_opponent));
    println!("{}", line("move -> spectator", &r.move_to_spectator));
    println!("{}", line("move -> own ack", &r.move_to_ack));
    println!(
        "{}  [{} conns, {} B messages (move events avg {:.0} B), {} lost]",
        line("echo round trip", &r.echo_round_trip),
        r.echo_connections,
        r.echo_bytes,
        r.mean_move_event_bytes,
        r.echo_lost
    );
    println!(
        "{}  [4 KiB write + fsync every 50 ms next to the data]",
        line("disk fsync", &r.fsync)
    );
    if r.hellos_sent_per_sec > 0.0 {
        println!(
            "spectator hellos        {:.1}/s sent, {:.1} state replies/s (avg {:.0} B)",
            r.hellos_sent_per_sec, r.states_per_sec, r.mean_state_bytes
        );
    }
    println!(
        "games: {} started, {} finished, {} stalled, {} setup failures; errors {:?}; closes {:?}; unparsed {}",
        r.games_started,
        r.games_finished,
        r.games_stalled,
        r.setup_failures,
        r.errors,
        r.closes,
        r.unparsed
    );
    println!(
        "connections: {} opened by the load generator; server reports {}",
        r.client_connections,
        r.counters_after_setup.map_or("?".to_string(), |c| format!(
            "{:.0} (live games {:.0})",
            c.connections, c.live_games
        ))
    );
    println!("server memory before     {}", mib(&r.server_before));
    println!("server memory after setup {}", mib(&r.server_after_setup));
    println!("server memory at the end {}", mib(&r.server_end));
    println!("loadgen memory at the end {}", mib(&r.loadgen_end));
    if let Some(c) = r.counters_end {
        println!(
            "server: {:.0} sub-moves accepted in all; mean receive->broadcast {:.3} ms; mean commit {:.3} ms",
            c.submoves_accepted_total, c.move_seconds_mean_ms, c.commit_seconds_mean_ms
        );
    }
    let per_move = |cpu: Option<f64>| match cpu {
        Some(secs) if r.accepted > 0 => format!(
            "{secs:.1} s ({:.0} us per accepted sub-move, {:.0}% of one core)",
            secs * 1e6 / r.accepted as f64,
            secs * 100.0 / r.duration_secs
        ),
        Some(secs) => format!("{secs:.1} s"),
        None => "unknown".to_string(),
    };
    println!("server CPU in window     {}", per_move(r.server_cpu_secs));
    println!("loadgen CPU in window    {}", per_move(r.loadgen_cpu_secs));
    let echoes = r.echo_round_trip.map_or(0, |p| p.count);
    println!(
        "echo server CPU          {}",
        match r.echo_cpu_secs {
            Some(secs) if echoes > 0 => format!(
                "{secs:.2} s ({:.1} us per echoed message, {echoes} messages)",
                secs * 1e6 / echoes as f64
            ),
            _ => "unknown".to_string(),
        }
    );
    let load = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x:.2}"));
    println!(
        "machine load average     {} at the start, {} at the end (2 cores)",
        load(r.load_average.0),
        load(r.load_average.1)
    );
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}

fn print_memory(r: &memory::MemoryReport, json: bool) {
    println!(
        "memory: {} games x {} spectators ({} set up in {:.1} s); {} games replaced (endings {:?}), {} stalled, {} setup failures; errors {:?}; closes {:?}; unparsed {}",
        r.games,
        r.spectators_per_game,
        r.games_set_up,
        r.setup_secs,
        r.games_replaced,
        r.endings,
        r.games_stalled,
        r.setup_failures,
        r.errors,
        r.closes,
        r.unparsed
    );
    println!("server memory before      {}", mib(&r.server_before));
    println!(
        "server memory after warm-up {} ({} of {} games to the last checkpoint)",
        mib(&r.server_after_warmup),
        r.warmup_reached,
        r.warmup_games
    );
    println!("server memory after setup {}", mib(&r.server_after_setup));
    for c in &r.checkpoints {
        let per =
            |x: Option<f64>, unit: &str| x.map_or("?".to_string(), |x| format!("{x:.1} {unit}"));
        println!(
            "{:>6} sub-moves/game: {} ({} of {} games there, {:.1} s, {} sub-moves since setup, {} replaced): {} per live game, {} per sub-move",
            c.submoves_per_game,
            mib(&c.server),
            c.games_reached,
            r.games_set_up,
            c.phase_secs,
            c.accepted_since_setup,
            c.games_replaced_so_far,
            per(c.rss_per_game_kib, "KiB"),
            per(c.rss_per_submove_bytes, "B")
        );
    }
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}

fn print_idle(r: &idle::IdleReport, json: bool) {
    println!(
        "idle: {} rooms ({} failed), {} connections ({} failed)",
        r.rooms, r.rooms_failed, r.connections, r.connections_failed
    );
    println!(
        "server RSS: baseline {} KiB, after rooms {} KiB, after connections {} KiB (peak {} KiB)",
        r.baseline.rss_kib,
        r.after_rooms.rss_kib,
        r.after_connections.rss_kib,
        r.after_connections.hwm_kib
    );
    println!(
        "per room {:.0} B ({:.2} KiB); per connection {:.0} B ({:.2} KiB); server reports {:.0} connections, {:.0} live games",
        r.bytes_per_room,
        r.bytes_per_room / 1024.0,
        r.bytes_per_connection,
        r.bytes_per_connection / 1024.0,
        r.server_connections_metric,
        r.server_live_games_metric
    );
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}
