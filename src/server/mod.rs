//! The game server: tokio + axum on one port (HTTP API, PGN export, the
//! embedded client, WebSockets), one actor per live game, every accepted
//! sub-move durable in the store before it is acknowledged.
//!
//! This module is the composition root: it builds [`Deps`], the services every feature's state
//! is made of, starts their tasks and merges the features' routers ([`compose`]); nothing else
//! knows every feature. Arrows point down (docs/architecture.md, "The dependency rule"; checked
//! by `tests/house/`):
//!
//! | part | module |
//! |---|---|
//! | flags and environment | [`config`] |
//! | what every feature may take | [`deps`] |
//! | the HTTP/WebSocket edge, which knows no feature | [`web`] |
//! | values every layer names (user, rating, game status) | [`domain`] |
//! | the game core, pure | [`game`] |
//! | playing a game: protocol, rooms, sockets, creation, schedule, routes | [`play`] |
//! | accounts, ratings, profiles, "my games" | [`players`] |
//! | challenges and the lobby channel | [`lobby`] |
//! | the computer's seat and the engine pool | [`computer`] |
//! | analysis and the replay page | [`analysis`] |
//! | the opening explorer | [`explorer`] |
//! | chat rules | [`chat`] |
//! | Learn Marseillais: the lessons, their goals, the progress of accounts | [`learn`] |
//! | safety (issue 32): blocks, reports, moderators and their actions, the leaderboard, fair play | [`safety`] |
//! | what is no feature's: `/`, `/static`, `/healthz`, `/metrics` | [`site`] |
//! | persistence | [`store`] |
//! | several nodes: the bus, leases, relaying to a game's owner | [`cluster`] |
//! | counters | [`metrics`] |
//! | ids and tokens | [`ids`] |

pub mod analysis;
pub mod arena;
pub mod chat;
pub mod cluster;
pub mod computer;
pub mod config;
pub mod deps;
pub mod domain;
pub mod explorer;
pub mod game;
pub mod ids;
pub mod learn;
pub mod lobby;
pub mod metrics;
pub mod per_client;
pub mod play;
pub mod players;
pub mod pool;
pub mod puzzles;
pub mod safety;
pub mod site;
pub mod store;
pub mod web;

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use config::Config;
use deps::Deps;
use metrics::Metrics;
use play::rooms::Rooms;
use store::{SqliteStore, Store, StoreError};

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot open the store: {0}")]
    Store(#[from] StoreError),
    /// Several nodes: the bus could not be reached at startup.
    #[error("cannot connect the bus: {0}")]
    Bus(#[from] cluster::BusError),
    /// `--arena-schedule` names a file that cannot be read or is not a schedule.
    #[error("--arena-schedule: {0}")]
    ArenaSchedule(String),
    /// `--puzzle-set` names a file that cannot be read or holds a bad puzzle.
    #[error("--puzzle-set: {0}")]
    PuzzleSet(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// A running server.
pub struct ServerHandle {
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    task: JoinHandle<()>,
    rooms: Arc<Rooms>,
}

impl ServerHandle {
    /// The address actually bound (useful with port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Live games in memory.
    pub fn live_games(&self) -> usize {
        self.rooms.live_games()
    }

    /// The registry of this server's games. For tests: e.g. to run a step of the cluster's
    /// lease pass ([`Rooms::adopt`]) at the very moment a test needs it.
    pub fn rooms(&self) -> &Arc<Rooms> {
        &self.rooms
    }

    /// Joins game `id` as an in-process agent (a computer player, say) holding `token`'s seat,
    /// or as a spectator without a token: the same path as a socket.
    pub async fn attach_agent(
        &self,
        id: &str,
        token: Option<String>,
    ) -> Result<play::room::agent::Agent, play::protocol::Refusal> {
        let unavailable =
            || play::protocol::Refusal::new(play::protocol::ErrorCode::NotFound, "no such game");
        let room = self.rooms.get(id).await?.ok_or_else(unavailable)?;
        play::room::agent::Agent::attach(room, token, None, self.rooms.config.outgoing_queue)
            .await
            .map_err(|_| unavailable())
    }

    /// Closes every socket (1001), stops the rooms and flushes the store.
    pub async fn shutdown(self) {
        let _ = self.shutdown.send(true);
        let _ = self.task.await;
    }
}

/// Starts the server on the store `config.store` names: SQLite in `config.data_dir`, or
/// PostgreSQL.
pub async fn start(config: Config) -> Result<ServerHandle, StartError> {
    let store: Arc<dyn Store> = match &config.store {
        config::StoreBackend::Sqlite => {
            let dir = config.data_dir.clone();
            let store = tokio::task::spawn_blocking(move || SqliteStore::open(&dir))
                .await
                .map_err(|e| StartError::Store(StoreError::Io(e.to_string())))??;
            Arc::new(store)
        }
        config::StoreBackend::Postgres(url) => {
            tracing::info!(store = %url, "store: PostgreSQL");
            Arc::new(store::PostgresStore::open(url.expose()).await?)
        }
    };
    start_with_store(config, store).await
}

/// Starts the server on any store (tests use `MemoryStore` / `FailingStore`).
pub async fn start_with_store(
    config: Config,
    store: Arc<dyn Store>,
) -> Result<ServerHandle, StartError> {
    // This start is the boot correspondence deadlines that passed while down are measured
    // from (a restarted rig reuses its config, so the time it was made would be stale).
    let mut config = config;
    config.boot_ms = game::now_ms();
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|source| StartError::Bind {
            addr: config.listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| StartError::Bind {
        addr: config.listen,
        source,
    })?;
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let metrics = Arc::new(Metrics::default());
    let limits = web::serve::Limits {
        header_read_timeout: config.header_read_timeout,
        request_timeout: config.request_timeout,
        max_connections: config.max_connections,
        metrics: Arc::clone(&metrics),
        trusted_proxies: Arc::new(config.trusted_proxies.clone()),
    };
    let deps = Deps::new(Arc::clone(&store), config, metrics, shutdown_rx.clone());
    let engines = Arc::new(computer::engine_pool::EnginePool::new(
        deps.config.engine_threads,
        Arc::clone(&deps.metrics),
    ));
    let rooms = Rooms::new(&deps, engines);
    if let Some(cluster) = rooms.config.cluster.clone() {
        let games: Arc<dyn cluster::games::LocalGames> = rooms.clone();
        let link = cluster::link::Link::start(&games, &cluster, shutdown_rx.clone()).await?;
        let _ = rooms.cluster.set(Arc::clone(&link));
        rooms.metrics.set_bus(Arc::clone(&link.bus));
        // A fresh process runs no room: what this node id held in an earlier life (killed
        // and restarted within its lease) is given up, so that the orphan sweep and the
        // relays' lookups find those games free instead of renewed by a node without them.
        match rooms.store.release_node(cluster.node.as_str()).await {
            Ok(0) => {}
            Ok(released) => tracing::info!(released, "leases of an earlier life given up"),
            Err(error) => tracing::warn!(%error, "could not give up the leases of an earlier life"),
        }
        // Renew (and so record this node as alive) before anything is claimed.
        cluster::lease_loop::pass(&rooms, &link).await;
        link.announce_start(&*rooms.store).await;
        cluster::lease_loop::spawn(Arc::clone(&rooms), Arc::clone(&link), shutdown_rx.clone());
        cluster::orphans::spawn(Arc::clone(&rooms), link, shutdown_rx.clone());
        tracing::info!(node = %cluster.node, bus = %cluster.bus, "one node of several");
    }
    let restored = rooms.restore_unfinished().await?;
    rooms.spawn_sweeper();
    rooms.spawn_schedule();
    tracing::info!(restored, %addr, "server started");
    let app = compose(&deps, &rooms).await?;
    let signal = shutdown_rx;
    let link = rooms.cluster.get().cloned();
    let task = tokio::spawn(async move {
        web::serve::serve(listener, app, limits, signal).await;
        // Let rooms finish an in-flight commit (and give up their leases) before the store
        // stops.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        if let Some(link) = link {
            link.bus.close().await;
        }
        store.close().await;
        tracing::info!("server stopped");
    });
    Ok(ServerHandle {
        addr,
        shutdown: shutdown_tx,
        task,
        rooms,
    })
}

/// The services every feature's state is made of, and the one router that merges the
/// features' routers: the only place that knows every feature.
async fn compose(deps: &Deps, rooms: &Arc<Rooms>) -> Result<axum::Router, StartError> {
    let config = &deps.config;
    let accounts = Arc::new(players::account::Accounts::new(
        Arc::clone(&deps.store),
        &config.accounts,
        config.public_origin.clone(),
    ));
    let lobby = Arc::new(lobby::challenge::Lobby::new(config.lobby));
    lobby.spawn_sweeper(deps.shutdown.clone());
    players::my_games::spawn_pusher(
        Arc::clone(&deps.store),
        &rooms.your_turn,
        Arc::clone(&lobby),
        deps.shutdown.clone(),
    );
    let replays = Arc::new(analysis::replay::ReplayPool::new(
        config.max_concurrent_replays,
        config.replay_wait,
        Arc::clone(&deps.metrics),
    ));
    // One per-address budget of seats for creating, joining and quick pairing.
    let seat_grants = Arc::new(web::ratelimit::AddressLimiter::new(
        config.create_rate_per_sec,
        config.create_burst,
    ));
    let pools = Arc::new(pool::Pools::new(
        (config.lobby.pool_wave, config.lobby.online_every),
        Arc::clone(&seat_grants),
        Arc::clone(&deps.metrics),
    ));
    pools.spawn(Arc::clone(rooms), deps.shutdown.clone());
    let challenges = lobby::challenge::local::ChallengeState {
        deps: deps.clone(),
        accounts: Arc::clone(&accounts),
        lobby,
        rooms: Arc::clone(rooms),
        pools: Arc::clone(&pools),
    };
    if let (Some(cluster), Some(link)) = (config.cluster.clone(), rooms.cluster.get()) {
        // The lobby across nodes (challenges on the lobby's owner, notices through the bus),
        // over the one bus connection the games use.
        let lobby =
            cluster::lobby::LobbyLink::new(Arc::clone(&link.bus), cluster.node, cluster.lease);
        lobby::challenge::remote::join(&challenges, Arc::new(lobby)).await?;
    }
    let play = play::routes::PlayState {
        deps: deps.clone(),
        rooms: Arc::clone(rooms),
        accounts: Arc::clone(&accounts),
        seat_grants,
    };
    let schedule = match &config.arena.schedule {
        config::ArenaScheduleChoice::BuiltIn => arena::schedule::built_in(),
        config::ArenaScheduleChoice::Off => Vec::new(),
        config::ArenaScheduleChoice::File(path) => std::fs::read_to_string(path)
            .map_err(|e| StartError::ArenaSchedule(format!("{}: {e}", path.display())))
            .and_then(|text| {
                arena::schedule::parse(&text).map_err(|e| StartError::ArenaSchedule(e.to_string()))
            })?,
    };
    let arenas = Arc::new(arena::service::Arenas::new(
        Arc::clone(&deps.store),
        Arc::clone(rooms),
        Arc::clone(&deps.metrics),
        config.arena.clone(),
        schedule,
    ));
    let lease = rooms.cluster.get().map(|link| arena::service::Lease {
        node: link.node.as_str().to_owned(),
        ttl: cluster::lease_ttl(link.lease),
    });
    arena::director::spawn(Arc::clone(&arenas), lease, deps.shutdown.clone());
    let puzzles = Arc::new(puzzles::service::Puzzles::new(Arc::clone(&deps.store)));
    // A set that does not read stops the start (a configuration error); a store that fails
    // to take it does not: the games go on, and the next start imports the set again.
    let set = puzzles::set::read(&config.puzzle_set).map_err(StartError::PuzzleSet)?;
    match puzzles.import(set).await {
        Ok(0) => {}
        Ok(added) => tracing::info!(added, "puzzles added to the store"),
        Err(error) => tracing::warn!(%error, "the puzzle set was not imported"),
    }
    let analysis = analysis::AnalysisState {
        deps: deps.clone(),
        analyses: Arc::new(analysis::Analyses::new(&config.analysis)),
        engines: Arc::clone(&rooms.engines),
        rooms: Arc::clone(rooms),
        accounts: Arc::clone(&accounts),
        lines: Arc::new(analysis::lines::Lines::new(config.analysis.lines)),
    };
    Ok(axum::Router::new()
        .merge(site::router(site::SiteState {
            deps: deps.clone(),
            rooms: Arc::clone(rooms),
        }))
        .merge(play::routes::router(play))
        .merge(analysis::replay::router(analysis::replay::ReplayState {
            deps: deps.clone(),
            replays,
        }))
        .merge(analysis::router(analysis))
        .merge(lobby::challenge::routes::router(challenges))
        .merge(pool::routes::router(pools))
        .merge(arena::routes::router(arena::routes::ArenaState {
            deps: deps.clone(),
            arenas,
            accounts: Arc::clone(&accounts),
        }))
        .merge(players::account::routes::router(
            players::account::state::AccountState {
                deps: deps.clone(),
                accounts: Arc::clone(&accounts),
            },
        ))
        .merge(players::account::controls::router(
            players::account::state::AccountState {
                deps: deps.clone(),
                accounts: Arc::clone(&accounts),
            },
        ))
        .merge(puzzles::routes::router(puzzles::routes::PuzzleState {
            deps: deps.clone(),
            puzzles,
            accounts: Arc::clone(&accounts),
        }))
        .merge(learn::routes::router(learn::routes::LearnState {
            deps: deps.clone(),
            accounts: Arc::clone(&accounts),
        }))
        .merge(explorer::routes::router(explorer::routes::ExplorerState {
            deps: deps.clone(),
        }))
        .merge(safety::moderation::router(
            safety::moderation::ModerationState::new(deps.clone(), Arc::clone(&accounts)),
        ))
        .merge(safety::blocks::routes::router(
            safety::blocks::routes::BlocksState {
                deps: deps.clone(),
                accounts: Arc::clone(&accounts),
            },
        ))
        .merge(safety::playban::routes::router(
            safety::playban::routes::PlaybanState {
                deps: deps.clone(),
                accounts: Arc::clone(&accounts),
            },
        ))
        .merge(players::profile::router(
            deps.clone(),
            Arc::clone(&accounts),
        ))
        .merge(players::my_games::router(players::my_games::MyGamesState {
            deps: deps.clone(),
            accounts: Arc::clone(&accounts),
        }))
        .fallback(web::unknown_route)
        // Every route, whoever added it: a cookie-carrying change must come from our Origin.
        .layer(axum::middleware::from_fn_with_state(
            accounts,
            players::account::origin::check,
        ))
        .layer(axum::middleware::map_response(web::json_errors)))
}

/// `marseillais serve`: starts the server and blocks until SIGTERM or Ctrl-C.
pub fn run_blocking(args: config::ServeArgs) -> ExitCode {
    let mut filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // tungstenite logs every frame at trace level, seat tokens included
    // (docs/reliability.md): never let it go below debug.
    if filter
        .max_level_hint()
        .is_none_or(|level| level >= tracing_subscriber::filter::LevelFilter::TRACE)
        && let Ok(cap) = "tungstenite=debug".parse()
    {
        filter = filter.add_directive(cap);
    }
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
    let config = match args.into_config() {
        Ok(config) => config,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        // Listened to before the address is announced: a supervisor (or a test) that sends
        // SIGTERM as soon as it reads the address gets a graceful stop, not the signal's default
        // action (the process killed by it, status 143, nothing flushed). Registered after the
        // address was printed, a loaded machine let that SIGTERM through (2 runs in 96 of a test
        // that stops the server right after a short exchange, 12 at once on 2 cores).
        let stop = stop_signals();
        let handle = match start(config).await {
            Ok(handle) => handle,
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::FAILURE;
            }
        };
        let mut stdout = std::io::stdout();
        let _ = writeln!(stdout, "listening on http://{}", handle.addr());
        let _ = stdout.flush();
        stop.await;
        tracing::info!("shutting down");
        handle.shutdown().await;
        ExitCode::SUCCESS
    })
}

/// Registers for SIGTERM and SIGINT now (inside the runtime) and returns the wait for the first
/// of them. A signal that arrives between now and the wait is kept, not lost.
fn stop_signals() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        let register = |kind: SignalKind, name: &'static str| match signal(kind) {
            Ok(stream) => Some(stream),
            Err(error) => {
                tracing::error!(%error, signal = name, "cannot listen for the signal");
                None
            }
        };
        let term = register(SignalKind::terminate(), "SIGTERM");
        let interrupt = register(SignalKind::interrupt(), "SIGINT");
        async fn first(stream: Option<Signal>) {
            match stream {
                Some(mut stream) => {
                    stream.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        async move {
            tokio::select! {
                _ = first(term) => {}
                _ = first(interrupt) => {}
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
