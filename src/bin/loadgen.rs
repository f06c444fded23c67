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
//! | one phase of human games, and the two phases of `--mode bots` | `play` |
//! | the report, as text and JSON | `report` |
//! | one game slot: players, spectators, pacing | `game` |
//! | computer games (`--mode bots`): the human seat against the server's engine | `bots` |
//! | the computer's strength, engine wait and memory per game (`--mode computer`, `computer-memory`) | `computer` |
//! | the echo floor | `echo` |
//! | the fsync floor | `disk` |
//! | idle memory per room / connection | `idle` |
//! | memory of a live game as it gets longer | `memory` |
//! | quick pairing: pages joining a pool again and again | `pools` |
//! | an arena of accounts paired again and again | `tournament` |
//! | the next-puzzle latency with a large set stored | `puzzles` |
//! | the opening explorer's latency with many games counted | `explorer` |
//! | the server process, its memory and counters | `server` |
//! | WebSocket client, reading server messages | `ws` |
//! | tiny HTTP client | `http` |
//! | latency samples and counters | `stats` |
//!
//! The modules live in `src/bin/loadgen/` (a binary's root resolves `mod` next
//! to itself, hence the `#[path]`s).

#[path = "loadgen/bots.rs"]
mod bots;
#[path = "loadgen/computer.rs"]
mod computer;
#[path = "loadgen/disk.rs"]
mod disk;
#[path = "loadgen/echo.rs"]
mod echo;
#[path = "loadgen/explorer.rs"]
mod explorer;
#[path = "loadgen/game.rs"]
mod game;
#[path = "loadgen/http.rs"]
mod http;
#[path = "loadgen/idle.rs"]
mod idle;
#[path = "loadgen/long_game.rs"]
mod long_game;
#[path = "loadgen/memory.rs"]
mod memory;
#[path = "loadgen/play.rs"]
mod play;
#[path = "loadgen/pools.rs"]
mod pools;
#[path = "loadgen/puzzles.rs"]
mod puzzles;
#[path = "loadgen/report.rs"]
mod report;
#[path = "loadgen/rng.rs"]
mod rng;
#[path = "loadgen/server.rs"]
mod server;
#[path = "loadgen/stats.rs"]
mod stats;
#[path = "loadgen/tournament.rs"]
mod tournament;
#[path = "loadgen/ws.rs"]
mod ws;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use play::{BotSettings, Load, Mode, Settings};

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
    /// Spread the client connections over this many loopback source addresses, 127.0.0.1
    /// and up (1 to 250): one source address reaches one server port from at most the
    /// ephemeral port range (`net.ipv4.ip_local_port_range`, ~28,000 ports), so 100,000
    /// connections need 4 or more.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=250))]
    source_addrs: u8,
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
    /// Pools mode: the pool the pages join.
    #[arg(long, default_value = "1+0")]
    pool: String,
    /// Idle mode: rooms to create.
    #[arg(long, default_value_t = 1000)]
    idle_rooms: usize,
    /// Idle mode: connections to open (spectators spread over the rooms).
    #[arg(long, default_value_t = 2000)]
    idle_connections: usize,
    /// Idle mode: games being played with nobody moving (clock running, both players
    /// connected).
    #[arg(long, default_value_t = 500)]
    idle_games: usize,
    /// Idle mode: the length of each CPU window, in seconds (longer than the server's
    /// `--ping-interval-secs`, 20 by default, so that every socket's keepalive is in it).
    #[arg(long, default_value_t = 30)]
    idle_window_secs: u64,
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
    /// Bots mode: computer games running during the second phase; computer modes: the
    /// computer games (slots) to keep going or to set up.
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
    /// Puzzles mode: synthetic puzzles the started server imports before the run.
    #[arg(long, default_value_t = 100_000)]
    puzzles: usize,
    /// Explorer mode: synthetic games counted in the started server's store before it starts.
    #[arg(long, default_value_t = 100_000)]
    explorer_games: usize,
    /// Print the report as one JSON object (last line of stdout).
    #[arg(long)]
    json: bool,
}

/// The puzzle set written for a started server, removed when the run ends.
struct PuzzleFile(PathBuf);

impl Drop for PuzzleFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A data directory this run made, removed when the run ends.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
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
    #[error("cannot write the puzzle set: {0}")]
    PuzzleSet(std::io::Error),
    #[error("explorer mode: {0}")]
    Explorer(String),
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
    ws::spread_sources(args.source_addrs);
    ws::raise_open_files_limit();
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
        Mode::Tournament => tournament::SERVER_ENV.to_vec(),
        Mode::Puzzles => puzzles::SERVER_ENV.to_vec(),
        Mode::Explorer => explorer::SERVER_ENV.to_vec(),
        Mode::ComputerMemory => computer::MEMORY_SERVER_ENV.to_vec(),
        _ => Vec::new(),
    };
    env.extend_from_slice(server::PER_CLIENT_LIFTED);
    if let Some(n) = &threads_text {
        env.push(("MARSEILLAIS_ENGINE_THREADS", n));
    }
    // Puzzles mode: the set the started server imports, written first (removed at the end).
    let puzzle_dir = match (args.mode, first_node) {
        (Mode::Puzzles, None) => {
            let path = std::env::temp_dir().join(format!(
                "marseillais-loadgen-puzzles-{}.csv",
                std::process::id()
            ));
            let started = std::time::Instant::now();
            puzzles::write_set(&path, args.puzzles, 0x5EED).map_err(LoadError::PuzzleSet)?;
            eprintln!(
                "loadgen: {} puzzles written in {:.1} s",
                args.puzzles,
                started.elapsed().as_secs_f64()
            );
            Some(PuzzleFile(path))
        }
        _ => None,
    };
    let puzzle_path = puzzle_dir
        .as_ref()
        .map(|file| file.0.to_string_lossy().into_owned());
    if let Some(path) = &puzzle_path {
        env.push(("MARSEILLAIS_PUZZLE_SET", path));
    }
    // Explorer mode: the started server's store filled before it starts (its data directory
    // chosen here, removed at the end unless given).
    let mut explorer_fill = None;
    let mut data_dir = args.data_dir.clone();
    let _explorer_dir = match (args.mode, first_node) {
        (Mode::Explorer, Some(_)) => {
            return Err(LoadError::Explorer(
                "it fills the store of the server it starts: no --addr".into(),
            ));
        }
        (Mode::Explorer, None) => {
            let (dir, temp) = match &args.data_dir {
                Some(dir) => (dir.clone(), None),
                None => {
                    let dir = std::env::temp_dir().join(format!(
                        "marseillais-loadgen-explorer-{}",
                        std::process::id()
                    ));
                    (dir.clone(), Some(TempDir(dir)))
                }
            };
            let started = std::time::Instant::now();
            let runtime = tokio::runtime::Runtime::new().map_err(LoadError::Runtime)?;
            let sampled = runtime
                .block_on(explorer::fill(
                    &dir.join("data"),
                    args.explorer_games,
                    0xE4E5,
                ))
                .map_err(LoadError::Explorer)?;
            let seconds = started.elapsed().as_secs_f64();
            eprintln!(
                "loadgen: {} games counted in the explorer in {seconds:.1} s",
                args.explorer_games
            );
            explorer_fill = Some((sampled, seconds));
            data_dir = Some(dir);
            temp
        }
        _ => None,
    };
    let spawned = match first_node {
        Some(_) => None,
        None => Some(server::Spawned::start(
            args.server_bin.clone(),
            data_dir.clone(),
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
    let load = Load {
        mode: args.mode,
        addrs: args.addrs.clone(),
        placement: args.placement,
        spectators: args.spectators,
        spectator_hello_rate: args.spectator_hello_rate,
        long_games: args.long_games,
        setup_concurrency: args.setup_concurrency,
        echo_connections: args.echo_connections,
        echo_bytes: args.echo_bytes,
    };
    let runtime = tokio::runtime::Runtime::new().map_err(LoadError::Runtime)?;
    let result = runtime.block_on(async {
        match args.mode {
            Mode::Idle => {
                let Some(pid) = pid else {
                    eprintln!("loadgen: idle mode needs the server's memory: give --server-pid");
                    return Ok(());
                };
                let counts = (args.idle_rooms, args.idle_connections, args.idle_games);
                let window = Duration::from_secs(args.idle_window_secs.max(1));
                let report = idle::run(addr, pid, counts, window).await;
                report::print_idle(&report, args.json);
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
                report::print_memory(&report, args.json);
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
                let report = play::play(&load, games, settings)
                    .await
                    .map_err(LoadError::Echo)?;
                report::print_play(&report, args.json);
                Ok(())
            }
            Mode::Pools => {
                let report = pools::run(pools::PoolsPlan {
                    addr,
                    pid,
                    pages: games,
                    pool: args.pool.clone(),
                    duration: Duration::from_secs_f64(duration),
                })
                .await;
                report::print_pools(&report, args.json);
                Ok(())
            }
            Mode::Puzzles => {
                let report = puzzles::run(puzzles::PuzzlesPlan {
                    addr,
                    pid,
                    accounts: games,
                    duration: Duration::from_secs_f64(duration),
                })
                .await;
                report::print_puzzles(&report, args.json);
                Ok(())
            }
            Mode::Explorer => {
                let (positions, fill_seconds) = explorer_fill.take().unwrap_or_default();
                let mut report =
                    explorer::run(addr, pid, positions, Duration::from_secs_f64(duration)).await;
                report.games = args.explorer_games;
                report.fill_seconds = fill_seconds;
                explorer::print(&report, args.json);
                Ok(())
            }
            Mode::Tournament => {
                let report = tournament::run(tournament::TournamentPlan {
                    addr,
                    pid,
                    players: games,
                    duration: Duration::from_secs_f64(duration),
                })
                .await;
                report::print_tournament(&report, args.json);
                Ok(())
            }
            Mode::Computer => {
                let report = computer::strength(
                    addr,
                    args.bot_games,
                    args.bot_level,
                    bot_clock,
                    engine_threads,
                    Duration::from_secs_f64(duration),
                    Duration::from_secs_f64(setup_timeout),
                )
                .await;
                computer::print_strength(&report, args.json);
                Ok(())
            }
            Mode::ComputerMemory => {
                let Some(pid) = pid else {
                    eprintln!(
                        "loadgen: computer-memory mode needs the server's memory: give --server-pid"
                    );
                    return Ok(());
                };
                let report = computer::memory(
                    addr,
                    pid,
                    args.bot_games,
                    args.bot_level,
                    args.setup_concurrency,
                )
                .await;
                computer::print_memory(&report, args.json);
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
                    first: args.bots_first,
                    games: args.bot_games,
                    level: args.bot_level,
                    clock: bot_clock,
                    engine_threads,
                };
                let report = play::play_bots(&load, games, settings, bots)
                    .await
                    .map_err(LoadError::Echo)?;
                report::print_bots(&report, args.json);
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
