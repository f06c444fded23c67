//! Server settings: command-line flags (each with an environment variable)
//! and the runtime [`Config`] they become. Tests build a [`Config`] directly.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::server::chat::repeat::FloodRule;
use crate::server::chat::words::WordList;
use crate::server::cluster::{BusUrl, ClusterConfig, NodeId};
use crate::server::computer::think::ComputerPace;
use crate::server::game::HouseRules;
use crate::server::game::expiry::Expiry;
use crate::server::game::policy::TakebackLimits;
use crate::server::store::postgres::PostgresUrl;
use crate::server::web::client_addr::TrustedProxies;

/// `marseillais serve` flags.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the real one is printed).
    #[arg(long, env = "MARSEILLAIS_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Directory for the SQLite database (the same as `--store sqlite:DIR`).
    #[arg(long, env = "MARSEILLAIS_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// Where the games are kept: `sqlite:DIR` (the default, `sqlite:./data`, or the
    /// `--data-dir`) or `postgres://user:password@host:port/database` (a PostgreSQL server; a
    /// unix socket directory as `?host=/dir`). Given, it wins over `--data-dir`.
    #[arg(long, env = "MARSEILLAIS_STORE")]
    pub store: Option<StoreLocation>,
    /// Largest WebSocket message a client may send, in bytes (larger: close 1009).
    #[arg(long, env = "MARSEILLAIS_MAX_MESSAGE_BYTES", default_value_t = 4096)]
    pub max_message_bytes: usize,
    /// Sustained client WebSocket frames per second per connection (every
    /// frame counts: fragments, pings and pongs too; more: close 1008).
    #[arg(long, env = "MARSEILLAIS_RATE_PER_SEC", default_value_t = 20.0)]
    pub rate_per_sec: f64,
    /// Burst of client frames allowed above the sustained rate.
    #[arg(long, env = "MARSEILLAIS_RATE_BURST", default_value_t = 40.0)]
    pub rate_burst: f64,
    /// Close a connection that sent nothing (not even a pong) for this long.
    #[arg(long, env = "MARSEILLAIS_IDLE_TIMEOUT_SECS", default_value_t = 60.0)]
    pub idle_timeout_secs: f64,
    /// Interval between the server's WebSocket pings.
    #[arg(long, env = "MARSEILLAIS_PING_INTERVAL_SECS", default_value_t = 20.0)]
    pub ping_interval_secs: f64,
    /// Messages queued for one slow client before it is disconnected.
    #[arg(long, env = "MARSEILLAIS_OUTGOING_QUEUE", default_value_t = 128)]
    pub outgoing_queue: usize,
    /// How long a player must have been disconnected before the opponent may claim victory.
    #[arg(
        long,
        env = "MARSEILLAIS_DISCONNECT_GRACE_SECS",
        default_value_t = 60.0
    )]
    pub disconnect_grace_secs: f64,
    /// Time each side has to complete its first turn in a clocked game before it is aborted.
    #[arg(long, env = "MARSEILLAIS_FIRST_MOVE_SECS", default_value_t = 30.0)]
    pub first_move_secs: f64,
    /// How long a finished game nobody watches stays in memory.
    #[arg(long, env = "MARSEILLAIS_RETIRE_AFTER_SECS", default_value_t = 120.0)]
    pub retire_after_secs: f64,
    /// Sustained player actions per second per game, over all its connections (more: error `rate_limited`).
    #[arg(long, env = "MARSEILLAIS_GAME_RATE_PER_SEC", default_value_t = 50.0)]
    pub game_rate_per_sec: f64,
    /// Burst of player actions per game allowed above the sustained rate.
    #[arg(long, env = "MARSEILLAIS_GAME_RATE_BURST", default_value_t = 100.0)]
    pub game_rate_burst: f64,
    /// Sustained `hello`s per second per connection (more: error `rate_limited`).
    #[arg(long, env = "MARSEILLAIS_HELLO_RATE_PER_SEC", default_value_t = 1.0)]
    pub hello_rate_per_sec: f64,
    /// Burst of `hello`s per connection allowed above the sustained rate.
    #[arg(long, env = "MARSEILLAIS_HELLO_BURST", default_value_t = 3.0)]
    pub hello_burst: f64,
    /// Chat lines a connection may send at once (game or lobby socket; more: `rate_limited`).
    #[arg(long, env = "MARSEILLAIS_CHAT_BURST", default_value_t = 3)]
    pub chat_burst: u32,
    /// Seconds in which a connection's `--chat-burst` lines come back (3 lines per 5 s).
    #[arg(long, env = "MARSEILLAIS_CHAT_WINDOW_SECS", default_value_t = 5.0)]
    pub chat_window_secs: f64,
    /// Takebacks of a first sub-move each player may make per turn (more: `not_available`).
    #[arg(long, env = "MARSEILLAIS_TAKEBACKS_PER_TURN", default_value_t = 1)]
    pub takebacks_per_turn: u32,
    /// Takebacks each player may make per game (more: `not_available`).
    #[arg(long, env = "MARSEILLAIS_TAKEBACKS_PER_GAME", default_value_t = 5)]
    pub takebacks_per_game: u32,
    // Lag compensation (issue 14, hJ): docs/protocol.md section 4.
    /// Interval between the server's WebSocket pings on game sockets opened with a seat token,
    /// in milliseconds: each pong measures the connection's round trip for lag compensation.
    #[arg(
        long,
        env = "MARSEILLAIS_GAME_PING_INTERVAL_MS",
        default_value_t = 2500
    )]
    pub game_ping_interval_ms: u64,
    /// Whether sub-moves are credited the lag the server measured (`off`: the clocks charge
    /// everything, to measure what compensation saves).
    #[arg(
        long,
        env = "MARSEILLAIS_LAG_COMPENSATION",
        value_enum,
        default_value_t = LagCompensation::On
    )]
    pub lag_compensation: LagCompensation,
    /// How long a client may take to send a request's headers (also how
    /// long an idle keep-alive connection is kept).
    #[arg(
        long,
        env = "MARSEILLAIS_HEADER_READ_TIMEOUT_SECS",
        default_value_t = 10.0
    )]
    pub header_read_timeout_secs: f64,
    /// How long a client may take to send a request's body once its headers are in (then 408).
    #[arg(
        long,
        env = "MARSEILLAIS_BODY_READ_TIMEOUT_SECS",
        default_value_t = 10.0
    )]
    pub body_read_timeout_secs: f64,
    /// Deadline for answering an HTTP request, from its headers to the response (then 408).
    /// WebSockets, once upgraded, are not bound by it.
    #[arg(long, env = "MARSEILLAIS_REQUEST_TIMEOUT_SECS", default_value_t = 30.0)]
    pub request_timeout_secs: f64,
    /// Open connections (HTTP and WebSocket) at most; more are closed at accept. By default
    /// all that the process's descriptor limit allows (the server raises its soft limit to
    /// the hard one at start); a larger value is lowered to fit it.
    #[arg(long, env = "MARSEILLAIS_MAX_CONNECTIONS")]
    pub max_connections: Option<usize>,
    /// Games created or joined per second per client address, sustained (0: no limit).
    #[arg(long, env = "MARSEILLAIS_CREATE_RATE_PER_SEC", default_value_t = 1.0)]
    pub create_rate_per_sec: f64,
    /// Games created or joined in a burst per client address, above the sustained rate.
    #[arg(long, env = "MARSEILLAIS_CREATE_BURST", default_value_t = 30.0)]
    pub create_burst: f64,
    /// `POST /api/replay` requests worked on at once (on the blocking pool).
    #[arg(long, env = "MARSEILLAIS_MAX_CONCURRENT_REPLAYS", default_value_t = 2)]
    pub max_concurrent_replays: usize,
    /// How long a replay waits for a free slot before `503 busy`.
    #[arg(long, env = "MARSEILLAIS_REPLAY_WAIT_SECS", default_value_t = 2.0)]
    pub replay_wait_secs: f64,
    /// An open game nobody joined within this long of its creation ends as aborted.
    #[arg(long, env = "MARSEILLAIS_OPEN_GAME_TTL_SECS", default_value_t = 3600.0)]
    pub open_game_ttl_secs: f64,
    /// An untimed game in which nothing happened (no sub-move, offer, ...) for this long ends as aborted.
    #[arg(
        long,
        env = "MARSEILLAIS_IDLE_GAME_TTL_SECS",
        default_value_t = 86400.0
    )]
    pub idle_game_ttl_secs: f64,
    /// An open correspondence game nobody joined within this long of its creation ends as
    /// aborted (longer than `--open-game-ttl-secs`: a seek for a slow game waits longer).
    #[arg(
        long,
        env = "MARSEILLAIS_OPEN_CORRESPONDENCE_TTL_SECS",
        default_value_t = 259_200.0
    )]
    pub open_correspondence_ttl_secs: f64,
    /// A correspondence deadline that passed while the server was down gives the side to move
    /// this long after the server starts again.
    #[arg(
        long,
        env = "MARSEILLAIS_CORRESPONDENCE_GRACE_SECS",
        default_value_t = 3600.0
    )]
    pub correspondence_grace_secs: f64,
    /// Engine searches (computer moves, analysis) run at once; 0 means half the cores, at
    /// least 1. Human games never wait for them: they run on the engine pool's own threads,
    /// at a lower priority.
    #[arg(long, env = "MARSEILLAIS_ENGINE_THREADS", default_value_t = 0)]
    pub engine_threads: usize,
    /// A new game against the computer is refused `503 busy` while a search asked for now
    /// would wait longer than this for an engine thread (the games already playing keep the
    /// whole budget of their level instead of sharing it).
    #[arg(long, env = "MARSEILLAIS_ENGINE_MAX_WAIT_SECS", default_value_t = 5.0)]
    pub engine_max_wait_secs: f64,
    /// How the computer paces its answers: `human` (levels 1-7 take a share of a typical
    /// turn, as a person of their level would) or `instant` (as soon as the search ends).
    #[arg(
        long,
        env = "MARSEILLAIS_COMPUTER_PACE",
        value_enum,
        default_value_t = ComputerPace::Human
    )]
    pub computer_pace: ComputerPace,
    /// An untimed game against the computer in which the person has not played a sub-move
    /// within this long of its creation (nobody opened it, or left at once) ends as aborted.
    #[arg(
        long,
        env = "MARSEILLAIS_UNPLAYED_COMPUTER_GAME_TTL_SECS",
        default_value_t = 600.0
    )]
    pub unplayed_computer_game_ttl_secs: f64,
    /// Engine time one analysis may spend, spread over its positions (each gets between
    /// 20 ms and `--analysis-position-max-ms`; see docs/protocol.md).
    #[arg(long, env = "MARSEILLAIS_ANALYSIS_BUDGET_SECS", default_value_t = 20.0)]
    pub analysis_budget_secs: f64,
    /// Longest search of one position of an analysis, in milliseconds.
    #[arg(
        long,
        env = "MARSEILLAIS_ANALYSIS_POSITION_MAX_MS",
        default_value_t = 500
    )]
    pub analysis_position_max_ms: u64,
    /// Most nodes searched for one position of an analysis.
    #[arg(long, env = "MARSEILLAIS_ANALYSIS_NODES", default_value_t = 1_000_000)]
    pub analysis_nodes: u64,
    /// Most positions one analysis covers (the start and one per sub-move): a longer record
    /// is refused `413 too_large` before any search.
    #[arg(
        long,
        env = "MARSEILLAIS_ANALYSIS_MAX_POSITIONS",
        default_value_t = 1_001
    )]
    pub analysis_max_positions: usize,
    /// Analyses started per minute per client address, sustained (0: no limit).
    #[arg(long, env = "MARSEILLAIS_ANALYSIS_RATE_PER_MIN", default_value_t = 6.0)]
    pub analysis_rate_per_min: f64,
    /// Analyses started in a burst per client address, above the sustained rate.
    #[arg(long, env = "MARSEILLAIS_ANALYSIS_BURST", default_value_t = 3.0)]
    pub analysis_burst: f64,
    /// Analyses streamed at once, over all clients (more: `503 busy`). Each runs one search
    /// at a time, so at most this many of the `--engine-threads` slots go to analyses.
    #[arg(long, env = "MARSEILLAIS_MAX_CONCURRENT_ANALYSES", default_value_t = 2)]
    pub max_concurrent_analyses: usize,
    /// The site's public origin as browsers see it (`https://play.example`), when it is not the
    /// address the server listens on (behind a proxy). The Origin check compares with it
    /// (without it: with the request's Host), and an https one makes cookies `Secure`.
    #[arg(long, env = "MARSEILLAIS_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Reverse proxies whose `X-Forwarded-For` (else `Forwarded`) names the client, and whose
    /// `X-Forwarded-Proto` the scheme: a comma list of networks (`127.0.0.1/32,::1/128`). The
    /// per-address limits then count the client, not the proxy. Default: nobody's headers.
    #[arg(long, env = "MARSEILLAIS_TRUSTED_PROXIES")]
    pub trusted_proxies: Option<TrustedProxies>,
    /// Accounts created per client address per hour (0: no limit).
    #[arg(long, env = "MARSEILLAIS_REGISTER_PER_HOUR", default_value_t = 5.0)]
    pub register_per_hour: f64,
    /// Login attempts per client address per minute (0: no limit).
    #[arg(long, env = "MARSEILLAIS_LOGIN_PER_MIN", default_value_t = 10.0)]
    pub login_per_min: f64,
    /// Login attempts per username per minute, from all addresses (0: no limit).
    #[arg(
        long,
        env = "MARSEILLAIS_LOGIN_PER_MIN_PER_USERNAME",
        default_value_t = 5.0
    )]
    pub login_per_min_per_username: f64,
    /// Argon2id hashes (register) and verifications (login) run at once, each ~19 MiB and tens
    /// of ms of one core; more wait their turn.
    #[arg(
        long,
        env = "MARSEILLAIS_MAX_CONCURRENT_PASSWORD_HASHES",
        default_value_t = 2
    )]
    pub max_concurrent_password_hashes: usize,
    /// Several nodes (issue 13): the Redis bus between them, `redis://host:port` or
    /// `redis+unix:///path/redis.sock`. Needs a `postgres://` `--store` (the nodes share it).
    /// Without it the server is one node on its own.
    #[arg(long, env = "MARSEILLAIS_BUS")]
    pub bus: Option<BusUrl>,
    /// This node's name among several (1-40 of `[A-Za-z0-9_-]`; default: random). One process
    /// per name.
    #[arg(long, env = "MARSEILLAIS_NODE_ID")]
    pub node_id: Option<NodeId>,
    /// How long a node's ownership of a game lasts unrenewed: a node that dies loses its games
    /// to the other nodes after this long (renewed every third of it).
    #[arg(long, env = "MARSEILLAIS_LEASE_SECS", default_value_t = 10.0)]
    pub lease_secs: f64,
    /// The arenas the server makes by itself: `builtin` (an hourly 3+2 and 5+3, a daily
    /// 10+5), `off`, or the path of a JSON file listing them (docs/protocol.md, "Arenas").
    #[arg(long, env = "MARSEILLAIS_ARENA_SCHEDULE", default_value = "builtin")]
    pub arena_schedule: ArenaScheduleChoice,
    /// The puzzles added to the store at startup (a puzzle already there is left as it is):
    /// `builtin` (the set shipped in `assets/puzzles.csv`), `off`, or the path of a CSV file in
    /// the same format (docs/puzzles.md).
    #[arg(long, env = "MARSEILLAIS_PUZZLE_SET", default_value = "builtin")]
    pub puzzle_set: PuzzleSetChoice,
    #[command(flatten)]
    pub clients: ClientLimitArgs,
    #[command(flatten)]
    pub lines: LinesArgs,
}

/// The analysis board's engine lines (`POST /api/analysis/lines`, issue 31; docs/analysis.md):
/// what one request may cost and how often a client may ask. The engine runs on the server
/// (no WebAssembly toolchain here: docs/analysis.md, "Where the engine runs").
#[derive(clap::Args, Debug, Clone, PartialEq)]
pub struct LinesArgs {
    /// Engine time of one lines request, all its depths and lines together (ms).
    #[arg(long, env = "MARSEILLAIS_LINES_MS", default_value_t = 3_000)]
    pub lines_ms: u64,
    /// Most nodes of one lines request.
    #[arg(long, env = "MARSEILLAIS_LINES_NODES", default_value_t = 3_000_000)]
    pub lines_nodes: u64,
    /// Deepest depth (sub-moves) of a lines request.
    #[arg(long, env = "MARSEILLAIS_LINES_MAX_DEPTH", default_value_t = 30)]
    pub lines_max_depth: u32,
    /// Lines requests per minute per client address, sustained (0: no limit). A new request
    /// of a client stops its running one (newest wins), so clicking through a line costs one
    /// search at a time.
    #[arg(long, env = "MARSEILLAIS_LINES_RATE_PER_MIN", default_value_t = 120.0)]
    pub lines_rate_per_min: f64,
    /// Lines requests in a burst per client address, above the sustained rate.
    #[arg(long, env = "MARSEILLAIS_LINES_BURST", default_value_t = 30.0)]
    pub lines_burst: f64,
    /// Lines requests searched at once over all clients (more: `503 busy`).
    #[arg(long, env = "MARSEILLAIS_MAX_CONCURRENT_LINES", default_value_t = 2)]
    pub max_concurrent_lines: usize,
}

impl Default for LinesArgs {
    fn default() -> LinesArgs {
        LinesArgs {
            lines_ms: 3_000,
            lines_nodes: 3_000_000,
            lines_max_depth: 30,
            lines_rate_per_min: 120.0,
            lines_burst: 30.0,
            max_concurrent_lines: 2,
        }
    }
}

/// [`LinesArgs`] checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinesLimits {
    pub budget: Duration,
    pub nodes: u64,
    pub max_depth: u32,
    /// Per client address; 0 means no limit.
    pub rate_per_min: f64,
    pub burst: f64,
    pub max_concurrent: usize,
}

impl LinesArgs {
    fn checked(&self) -> LinesLimits {
        LinesLimits {
            budget: Duration::from_millis(self.lines_ms.max(1)),
            nodes: self.lines_nodes.max(1),
            max_depth: self.lines_max_depth.clamp(1, 60),
            rate_per_min: if self.lines_rate_per_min.is_finite() {
                self.lines_rate_per_min.max(0.0)
            } else {
                0.0
            },
            burst: self.lines_burst.max(1.0),
            max_concurrent: self.max_concurrent_lines.max(1),
        }
    }
}

/// What one client (an address, and an account when signed in) may hold and send at once, over
/// all its connections (issue 34): the per-connection limits above stop a socket, these stop
/// a client that opens sockets. docs/protocol.md, "Limits per client".
#[derive(clap::Args, Debug, Clone, PartialEq)]
pub struct ClientLimitArgs {
    /// Lobby channels (`/ws/lobby`) open at once per client address and per account (0: no
    /// cap; more: `429 rate_limited`).
    #[arg(
        long,
        env = "MARSEILLAIS_LOBBY_SOCKETS_PER_CLIENT",
        default_value_t = 10
    )]
    pub lobby_sockets_per_client: u32,
    /// Game sockets (`/ws/game/{id}`) open at once per client address and per account (0: no
    /// cap; more: `429 rate_limited`).
    #[arg(
        long,
        env = "MARSEILLAIS_GAME_SOCKETS_PER_CLIENT",
        default_value_t = 64
    )]
    pub game_sockets_per_client: u32,
    /// Open games (made by `POST /api/games`, nobody joined yet) per client address and per
    /// account, live and correspondence together (0: no cap; more: `429 rate_limited`). Three,
    /// as lichess keeps few seeks per player: one live game to wait for and a correspondence
    /// seek or two is what a person asks for at once (a household behind one address too: a
    /// game waits minutes, not hours), and the lobby's first page of 50 then shows at least 17
    /// creators, where one address once filled it in a second.
    #[arg(long, env = "MARSEILLAIS_OPEN_GAMES_PER_CLIENT", default_value_t = 3)]
    pub open_games_per_client: u32,
    /// Games against the computer not finished per client address and per account (0: no cap;
    /// more: `429 rate_limited`). Four: a person plays one, or a few side by side in tabs; each
    /// costs the server memory and engine time for as long as it lasts.
    #[arg(
        long,
        env = "MARSEILLAIS_COMPUTER_GAMES_PER_CLIENT",
        default_value_t = 4
    )]
    pub computer_games_per_client: u32,
    /// Chat lines per client address and per account in one room, per `--chat-window-secs`
    /// (0: no limit; more: `rate_limited`).
    #[arg(
        long,
        env = "MARSEILLAIS_CHAT_ROOM_BURST_PER_CLIENT",
        default_value_t = 6
    )]
    pub chat_room_burst_per_client: u32,
    /// Chat lines per client address and per account over all rooms, per `--chat-window-secs`
    /// (0: no limit).
    #[arg(long, env = "MARSEILLAIS_CHAT_BURST_PER_CLIENT", default_value_t = 15)]
    pub chat_burst_per_client: u32,
    /// A game's spectator room takes no new line this long after the game ended (the players'
    /// room stays open).
    #[arg(
        long,
        env = "MARSEILLAIS_SPECTATOR_CHAT_SECS_AFTER_END",
        default_value_t = 600.0
    )]
    pub spectator_chat_secs_after_end: f64,
    /// A word list for chat (docs/fair-play.md, "Chat rules"): a file of one word or phrase a
    /// line (`#` comments); a line that holds one (case and accents ignored, whole words) is
    /// not sent and its writer gets `chat_word`. A file that cannot be read stops the start.
    /// None by default.
    #[arg(long, env = "MARSEILLAIS_CHAT_WORD_LIST")]
    pub chat_word_list: Option<PathBuf>,
    /// The flood rule: a writer (an account, or an anonymous address) saying more than this
    /// many chat lines within `--chat-flood-secs` is silenced (0: no such limit; a repeated
    /// line silences whatever this says).
    #[arg(long, env = "MARSEILLAIS_CHAT_FLOOD_LINES", default_value_t = 5)]
    pub chat_flood_lines: u32,
    /// The flood rule's window.
    #[arg(long, env = "MARSEILLAIS_CHAT_FLOOD_SECS", default_value_t = 10.0)]
    pub chat_flood_secs: f64,
    /// How long a writer who repeated a line or flooded stays silenced (`chat_silenced`; 0
    /// turns the flood rule off).
    #[arg(long, env = "MARSEILLAIS_CHAT_SILENCE_SECS", default_value_t = 60.0)]
    pub chat_silence_secs: f64,
}

impl Default for ClientLimitArgs {
    fn default() -> ClientLimitArgs {
        ClientLimitArgs {
            lobby_sockets_per_client: 10,
            game_sockets_per_client: 64,
            open_games_per_client: 3,
            computer_games_per_client: 4,
            chat_room_burst_per_client: 6,
            chat_burst_per_client: 15,
            spectator_chat_secs_after_end: 600.0,
            chat_word_list: None,
            chat_flood_lines: 5,
            chat_flood_secs: 10.0,
            chat_silence_secs: 60.0,
        }
    }
}

/// [`ClientLimitArgs`] checked: see each flag.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientLimits {
    pub lobby_sockets: u32,
    pub game_sockets: u32,
    pub open_games: u32,
    pub computer_games: u32,
    pub chat_room_burst: u32,
    pub chat_burst: u32,
    pub spectator_chat_after_end: Duration,
    /// The chat word list (`--chat-word-list`, read at startup; empty by default).
    pub chat_words: WordList,
    /// The flood rule (`--chat-flood-lines`, `--chat-flood-secs`, `--chat-silence-secs`).
    pub chat_flood: FloodRule,
}

/// `--public-url` reduced to its origin (`scheme://host[:port]`, lower case, no path).
fn public_origin(url: &str) -> Result<String, ConfigError> {
    let bad = || ConfigError::PublicUrl {
        value: url.to_owned(),
    };
    let (scheme, rest) = url.split_once("://").ok_or_else(bad)?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(bad());
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty()
        || authority.contains('@')
        || !authority
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
    {
        return Err(bad());
    }
    Ok(format!("{scheme}://{}", authority.to_ascii_lowercase()))
}

/// A finite, non-negative rate (0 turns its limit off).
fn rate(name: &'static str, value: f64) -> Result<f64, ConfigError> {
    if value.is_finite() {
        Ok(value.max(0.0))
    } else {
        Err(ConfigError::AccountRate { name, value })
    }
}

/// Half the cores, at least one: what `--engine-threads 0` means.
fn default_engine_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

impl ServeArgs {
    /// The runtime configuration; rejects negative or non-finite durations.
    pub fn into_config(self) -> Result<Config, ConfigError> {
        let secs = |name: &'static str, value: f64| {
            Duration::try_from_secs_f64(value).map_err(|_| ConfigError::Duration { name, value })
        };
        let (data_dir, store) = match self.store {
            None => (self.data_dir, StoreBackend::Sqlite),
            Some(StoreLocation::Sqlite(dir)) => (dir, StoreBackend::Sqlite),
            Some(StoreLocation::Postgres(url)) => (self.data_dir, StoreBackend::Postgres(url)),
        };
        let cluster = match self.bus {
            None => None,
            Some(_) if !matches!(store, StoreBackend::Postgres(_)) => {
                return Err(ConfigError::BusWithoutPostgres);
            }
            Some(bus) => Some(ClusterConfig {
                bus,
                node: self.node_id.unwrap_or_else(NodeId::random),
                lease: match Duration::try_from_secs_f64(self.lease_secs) {
                    Ok(lease) if lease >= Duration::from_secs(1) => lease,
                    _ => {
                        return Err(ConfigError::Lease {
                            value: self.lease_secs,
                        });
                    }
                },
            }),
        };
        Ok(Config {
            listen: self.listen,
            data_dir,
            store,
            max_message_bytes: self.max_message_bytes.max(64),
            rate_per_sec: self.rate_per_sec.max(0.1),
            rate_burst: self.rate_burst.max(1.0),
            idle_timeout: secs("idle-timeout-secs", self.idle_timeout_secs)?,
            ping_interval: secs("ping-interval-secs", self.ping_interval_secs)?,
            outgoing_queue: self.outgoing_queue.max(1),
            disconnect_grace: secs("disconnect-grace-secs", self.disconnect_grace_secs)?,
            first_move: secs("first-move-secs", self.first_move_secs)?,
            retire_after: secs("retire-after-secs", self.retire_after_secs)?,
            game_rate_per_sec: self.game_rate_per_sec.max(0.0),
            game_rate_burst: self.game_rate_burst.max(1.0),
            hello_rate_per_sec: self.hello_rate_per_sec.max(0.0),
            hello_burst: self.hello_burst.max(1.0),
            chat_burst: self.chat_burst.max(1),
            chat_window: secs("chat-window-secs", self.chat_window_secs)?,
            takebacks: TakebackLimits {
                per_turn: self.takebacks_per_turn,
                per_game: self.takebacks_per_game,
            },
            panic_on_move: None,
            game_ping_interval: Duration::from_millis(self.game_ping_interval_ms.max(100)),
            lag_compensation: self.lag_compensation,
            header_read_timeout: secs("header-read-timeout-secs", self.header_read_timeout_secs)?,
            body_read_timeout: secs("body-read-timeout-secs", self.body_read_timeout_secs)?,
            request_timeout: secs("request-timeout-secs", self.request_timeout_secs)?,
            max_connections: self.max_connections.map(|n| n.max(1)),
            create_rate_per_sec: if self.create_rate_per_sec.is_finite() {
                self.create_rate_per_sec.max(0.0)
            } else {
                return Err(ConfigError::Rate {
                    value: self.create_rate_per_sec,
                });
            },
            create_burst: self.create_burst.max(1.0),
            max_concurrent_replays: self.max_concurrent_replays.max(1),
            replay_wait: secs("replay-wait-secs", self.replay_wait_secs)?,
            open_game_ttl: secs("open-game-ttl-secs", self.open_game_ttl_secs)?,
            idle_game_ttl: secs("idle-game-ttl-secs", self.idle_game_ttl_secs)?,
            open_correspondence_ttl: secs(
                "open-correspondence-ttl-secs",
                self.open_correspondence_ttl_secs,
            )?,
            correspondence_grace: secs(
                "correspondence-grace-secs",
                self.correspondence_grace_secs,
            )?,
            boot_ms: crate::server::game::now_ms(),
            engine_threads: match self.engine_threads {
                0 => default_engine_threads(),
                n => n,
            },
            engine_max_wait: secs("engine-max-wait-secs", self.engine_max_wait_secs)?,
            computer_pace: self.computer_pace,
            unplayed_computer_game_ttl: secs(
                "unplayed-computer-game-ttl-secs",
                self.unplayed_computer_game_ttl_secs,
            )?,
            analysis: AnalysisLimits {
                budget: secs("analysis-budget-secs", self.analysis_budget_secs)?,
                position_max: Duration::from_millis(self.analysis_position_max_ms.max(1)),
                nodes: self.analysis_nodes.max(1),
                max_positions: self.analysis_max_positions.max(1),
                rate_per_min: if self.analysis_rate_per_min.is_finite() {
                    self.analysis_rate_per_min.max(0.0)
                } else {
                    return Err(ConfigError::AnalysisRate {
                        value: self.analysis_rate_per_min,
                    });
                },
                burst: self.analysis_burst.max(1.0),
                max_concurrent: self.max_concurrent_analyses.max(1),
                lines: self.lines.checked(),
            },
            lobby: LobbyLimits::default(),
            arena: ArenaSettings {
                schedule: self.arena_schedule,
                ..ArenaSettings::default()
            },
            puzzle_set: self.puzzle_set,
            clients: ClientLimits {
                lobby_sockets: self.clients.lobby_sockets_per_client,
                game_sockets: self.clients.game_sockets_per_client,
                open_games: self.clients.open_games_per_client,
                computer_games: self.clients.computer_games_per_client,
                chat_room_burst: self.clients.chat_room_burst_per_client,
                chat_burst: self.clients.chat_burst_per_client,
                spectator_chat_after_end: secs(
                    "spectator-chat-secs-after-end",
                    self.clients.spectator_chat_secs_after_end,
                )?,
                chat_words: match &self.clients.chat_word_list {
                    Some(path) => WordList::read(path).map_err(ConfigError::ChatWordList)?,
                    None => WordList::default(),
                },
                chat_flood: FloodRule {
                    lines: self.clients.chat_flood_lines,
                    window: secs("chat-flood-secs", self.clients.chat_flood_secs)?,
                    silence: secs("chat-silence-secs", self.clients.chat_silence_secs)?,
                },
            },
            cluster,
            public_origin: self.public_url.as_deref().map(public_origin).transpose()?,
            trusted_proxies: self.trusted_proxies.unwrap_or_default(),
            accounts: AccountLimits {
                register_per_hour: rate("register-per-hour", self.register_per_hour)?,
                login_per_min: rate("login-per-min", self.login_per_min)?,
                login_per_min_per_username: rate(
                    "login-per-min-per-username",
                    self.login_per_min_per_username,
                )?,
                max_concurrent_hashes: self.max_concurrent_password_hashes.max(1),
            },
        })
    }
}

/// A flag value that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("--chat-word-list: {0}")]
    ChatWordList(String),
    #[error("--{name} must be a non-negative number of seconds, got {value}")]
    Duration { name: &'static str, value: f64 },
    #[error("--create-rate-per-sec must be a finite number (0 turns the limit off), got {value}")]
    Rate { value: f64 },
    #[error("--analysis-rate-per-min must be a finite number (0 turns the limit off), got {value}")]
    AnalysisRate { value: f64 },
    #[error("--public-url must be an http:// or https:// URL of a host, got {value:?}")]
    PublicUrl { value: String },
    #[error("--{name} must be a finite number (0 turns the limit off), got {value}")]
    AccountRate { name: &'static str, value: f64 },
    #[error("--bus needs a postgres:// --store: the nodes share one store")]
    BusWithoutPostgres,
    #[error("--lease-secs must be at least 1, got {value}")]
    Lease { value: f64 },
}

/// `--lag-compensation`: whether the clocks credit measured lag (docs/protocol.md section 4).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LagCompensation {
    On,
    Off,
}

impl LagCompensation {
    pub fn is_on(self) -> bool {
        self == LagCompensation::On
    }
}

/// The store the server runs on (`--store`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreBackend {
    /// The embedded SQLite database in [`Config::data_dir`].
    Sqlite,
    /// A PostgreSQL server.
    Postgres(PostgresUrl),
}

/// A `--store` value: `sqlite:DIR` or `postgres://...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreLocation {
    Sqlite(PathBuf),
    Postgres(PostgresUrl),
}

/// A `--store` value that is neither. The value is not echoed: a Postgres URL may hold a
/// password.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be sqlite:DIR or a postgres:// URL ({0})")]
pub struct BadStoreLocation(String);

impl std::str::FromStr for StoreLocation {
    type Err = BadStoreLocation;

    fn from_str(location: &str) -> Result<Self, Self::Err> {
        if let Some(dir) = location.strip_prefix("sqlite:") {
            if dir.is_empty() {
                return Err(BadStoreLocation(
                    "sqlite: needs a directory, e.g. sqlite:./data".to_owned(),
                ));
            }
            return Ok(StoreLocation::Sqlite(PathBuf::from(dir)));
        }
        if location.starts_with("postgres://") || location.starts_with("postgresql://") {
            return PostgresUrl::parse(location)
                .map(StoreLocation::Postgres)
                .map_err(|e| BadStoreLocation(e.to_string()));
        }
        Err(BadStoreLocation("unknown kind of store".to_owned()))
    }
}

/// Everything the running server needs to know; see [`ServeArgs`] for meanings.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    /// The SQLite store's directory (used when `store` is [`StoreBackend::Sqlite`]).
    pub data_dir: PathBuf,
    pub store: StoreBackend,
    pub max_message_bytes: usize,
    pub rate_per_sec: f64,
    pub rate_burst: f64,
    pub idle_timeout: Duration,
    pub ping_interval: Duration,
    pub outgoing_queue: usize,
    pub disconnect_grace: Duration,
    pub first_move: Duration,
    pub retire_after: Duration,
    pub game_rate_per_sec: f64,
    pub game_rate_burst: f64,
    pub hello_rate_per_sec: f64,
    pub hello_burst: f64,
    /// A connection's chat rate: `chat_burst` lines per `chat_window` ([`crate::server::chat::ChatRate`]).
    pub chat_burst: u32,
    pub chat_window: Duration,
    pub takebacks: TakebackLimits,
    pub header_read_timeout: Duration,
    pub body_read_timeout: Duration,
    pub request_timeout: Duration,
    /// `None`: all that the descriptor limit allows.
    pub max_connections: Option<usize>,
    /// 0 means no limit.
    pub create_rate_per_sec: f64,
    pub create_burst: f64,
    pub max_concurrent_replays: usize,
    pub replay_wait: Duration,
    pub open_game_ttl: Duration,
    pub idle_game_ttl: Duration,
    /// See [`ServeArgs::open_correspondence_ttl_secs`].
    pub open_correspondence_ttl: Duration,
    /// See [`ServeArgs::correspondence_grace_secs`].
    pub correspondence_grace: Duration,
    /// Unix ms at which this server started (set when the config is made, at startup):
    /// correspondence deadlines that passed before it get [`Config::correspondence_grace`].
    pub boot_ms: i64,
    /// Engine searches at once (resolved: never 0).
    pub engine_threads: usize,
    /// See [`ServeArgs::engine_max_wait_secs`].
    pub engine_max_wait: Duration,
    /// See [`ServeArgs::computer_pace`].
    pub computer_pace: ComputerPace,
    /// See [`ServeArgs::unplayed_computer_game_ttl_secs`].
    pub unplayed_computer_game_ttl: Duration,
    /// `/api/analysis` budget, limits and rate (see [`AnalysisLimits`]).
    pub analysis: AnalysisLimits,
    /// Challenges and the lobby channel (no flags: tests shorten the times).
    pub lobby: LobbyLimits,
    /// Arena tournaments: the schedule (`--arena-schedule`) and the pairing's pace.
    pub arena: ArenaSettings,
    /// The puzzles imported at startup (`--puzzle-set`).
    pub puzzle_set: PuzzleSetChoice,
    /// What one client may hold and send at once (see [`ClientLimitArgs`]).
    pub clients: ClientLimits,
    /// Test hook, off (`None`) by default and settable only by code that
    /// builds a `Config` (no flag, no environment variable, nothing on the
    /// wire): see [`PanicOnMove`].
    pub panic_on_move: Option<PanicOnMove>,
    /// `--game-ping-interval-ms` (at least 100 ms).
    pub game_ping_interval: Duration,
    /// `--lag-compensation`.
    pub lag_compensation: LagCompensation,
    /// `--public-url`'s origin (`https://host`), if set: see [`ServeArgs::public_url`].
    pub public_origin: Option<String>,
    /// `--trusted-proxies` (empty: the TCP peer is the client): [`crate::server::web::client_addr`].
    pub trusted_proxies: TrustedProxies,
    /// The account routes' limits (see [`AccountLimits`]).
    pub accounts: AccountLimits,
    /// `--bus` and its companions: `Some` when this server is one node of several.
    pub cluster: Option<ClusterConfig>,
}

/// Rate limits of registering and logging in, and the password hashing bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccountLimits {
    /// Per client address; 0 means no limit.
    pub register_per_hour: f64,
    /// Per client address; 0 means no limit.
    pub login_per_min: f64,
    /// Per username, whatever the address; 0 means no limit.
    pub login_per_min_per_username: f64,
    /// Argon2id computations at once.
    pub max_concurrent_hashes: usize,
}

/// What one analysis may cost, and how many clients may ask for them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnalysisLimits {
    /// Engine time of a whole analysis, spread over its positions.
    pub budget: Duration,
    /// Longest search of one position.
    pub position_max: Duration,
    /// Most nodes of one position's search.
    pub nodes: u64,
    /// Most positions of one analysis (the start included).
    pub max_positions: usize,
    /// Per client address; 0 means no limit.
    pub rate_per_min: f64,
    pub burst: f64,
    /// Analyses streamed at once, over all clients.
    pub max_concurrent: usize,
    /// The analysis board's engine lines (`--lines-*`).
    pub lines: LinesLimits,
}

/// `--arena-schedule`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArenaScheduleChoice {
    BuiltIn,
    Off,
    /// A JSON file, read (and checked) when the server starts.
    File(PathBuf),
}

impl std::str::FromStr for ArenaScheduleChoice {
    type Err = std::convert::Infallible;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Ok(match value {
            "builtin" => ArenaScheduleChoice::BuiltIn,
            "off" => ArenaScheduleChoice::Off,
            path => ArenaScheduleChoice::File(PathBuf::from(path)),
        })
    }
}

/// The puzzles the server adds to its store at startup (`--puzzle-set`).
#[derive(Debug, Clone, PartialEq)]
pub enum PuzzleSetChoice {
    /// The set shipped in the binary (`assets/puzzles.csv`).
    BuiltIn,
    Off,
    /// A CSV file, read (and checked) when the server starts.
    File(PathBuf),
}

impl std::str::FromStr for PuzzleSetChoice {
    type Err = std::convert::Infallible;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Ok(match value {
            "builtin" => PuzzleSetChoice::BuiltIn,
            "off" => PuzzleSetChoice::Off,
            path => PuzzleSetChoice::File(PathBuf::from(path)),
        })
    }
}

/// Arena tournaments (issue 29): what the server schedules and how often it pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaSettings {
    pub schedule: ArenaScheduleChoice,
    /// How often each running arena pairs the players waiting (lichess: every few seconds;
    /// tests shorten it).
    pub pairing_every: Duration,
    /// How far ahead a scheduled arena is made (it shows in the lobby as upcoming).
    pub announce_ahead: Duration,
}

impl Default for ArenaSettings {
    fn default() -> ArenaSettings {
        ArenaSettings {
            schedule: ArenaScheduleChoice::BuiltIn,
            pairing_every: Duration::from_secs(2),
            announce_ahead: Duration::from_secs(2 * 3600),
        }
    }
}

/// Challenges (`/api/challenges`) and the lobby channel (`/ws/lobby`): docs/protocol.md.
/// Not flags; tests build a [`Config`] with shorter times instead of waiting ten minutes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LobbyLimits {
    /// A pending challenge is withdrawn (`expired`) this long after it was made.
    pub challenge_ttl: Duration,
    /// A challenger whose last lobby channel closed has this long to open another (a page
    /// reload) before their challenges are withdrawn (`challenger_left`).
    pub leave_grace: Duration,
    /// Pending challenges one user may have sent.
    pub challenges_per_user: usize,
    /// Pending challenges on the server.
    pub max_challenges: usize,
    /// Challenges one user may send per minute, sustained, and in a burst.
    pub challenge_rate_per_min: f64,
    pub challenge_burst: f64,
    /// Longest delay of an `online` count after it changed (changes are coalesced, so that
    /// N pages opening at once cost N messages a period, not N squared).
    pub online_every: Duration,
    /// Every quick-pairing wave's period, instead of each pool's own 12-40 s and its jitter
    /// (`None`: the pools' own; tests set a few milliseconds).
    pub pool_wave: Option<Duration>,
}

impl Default for LobbyLimits {
    fn default() -> LobbyLimits {
        LobbyLimits {
            challenge_ttl: Duration::from_secs(600),
            leave_grace: Duration::from_secs(5),
            challenges_per_user: 10,
            max_challenges: 10_000,
            challenge_rate_per_min: 10.0,
            challenge_burst: 10.0,
            online_every: Duration::from_secs(1),
            pool_wave: None,
        }
    }
}

/// Test hook: the room panics while handling a `move` of this sub-move
/// (UCI), to prove that a bug on the move path cannot wedge a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanicOnMove {
    pub uci: String,
    pub site: PanicSite,
}

/// Where [`PanicOnMove`] panics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanicSite {
    /// Inside the room's guarded handling of the message: the room must
    /// survive, refuse that move and go on.
    Handling,
    /// In the room task itself, outside any guard: the task dies, and the
    /// next command for the game must restart it from the store.
    Task,
}

impl Config {
    /// The rules every game of this server is decided under ([`GameState::decide`]).
    ///
    /// [`GameState::decide`]: crate::server::game::GameState::decide
    pub fn house_rules(&self) -> HouseRules {
        HouseRules {
            takebacks: self.takebacks,
            expiry: Expiry {
                open: self.open_game_ttl,
                open_correspondence: self.open_correspondence_ttl,
                idle_untimed: self.idle_game_ttl,
                unplayed_computer: self.unplayed_computer_game_ttl,
            },
        }
    }

    /// This process's boot and the correspondence grace, as a game's state takes them.
    pub fn downtime(&self) -> crate::server::game::policy::Downtime {
        crate::server::game::policy::Downtime {
            boot_ms: self.boot_ms,
            grace: self.correspondence_grace,
        }
    }

    /// The defaults of the flags, listening on `listen` with data in `data_dir`.
    pub fn new(listen: SocketAddr, data_dir: impl Into<PathBuf>) -> Config {
        let mut args = ServeArgs::from_defaults();
        args.listen = listen;
        args.data_dir = data_dir.into();
        args.into_config()
            .unwrap_or_else(|_| unreachable!("the default durations are valid"))
    }
}

impl ServeArgs {
    /// The flag defaults, ignoring the environment (for [`Config::new`]).
    fn from_defaults() -> ServeArgs {
        ServeArgs {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir: PathBuf::from("./data"),
            store: None,
            max_message_bytes: 4096,
            rate_per_sec: 20.0,
            rate_burst: 40.0,
            idle_timeout_secs: 60.0,
            ping_interval_secs: 20.0,
            outgoing_queue: 128,
            disconnect_grace_secs: 60.0,
            first_move_secs: 30.0,
            retire_after_secs: 120.0,
            game_rate_per_sec: 50.0,
            game_rate_burst: 100.0,
            hello_rate_per_sec: 1.0,
            hello_burst: 3.0,
            chat_burst: 3,
            chat_window_secs: 5.0,
            takebacks_per_turn: 1,
            takebacks_per_game: 5,
            game_ping_interval_ms: 2500,
            lag_compensation: LagCompensation::On,
            header_read_timeout_secs: 10.0,
            body_read_timeout_secs: 10.0,
            request_timeout_secs: 30.0,
            max_connections: None,
            create_rate_per_sec: 1.0,
            create_burst: 30.0,
            max_concurrent_replays: 2,
            replay_wait_secs: 2.0,
            open_game_ttl_secs: 3600.0,
            idle_game_ttl_secs: 86400.0,
            open_correspondence_ttl_secs: 259_200.0,
            correspondence_grace_secs: 3600.0,
            engine_threads: 0,
            engine_max_wait_secs: 5.0,
            computer_pace: ComputerPace::Human,
            unplayed_computer_game_ttl_secs: 600.0,
            analysis_budget_secs: 20.0,
            analysis_position_max_ms: 500,
            analysis_nodes: 1_000_000,
            analysis_max_positions: 1_001,
            analysis_rate_per_min: 6.0,
            analysis_burst: 3.0,
            max_concurrent_analyses: 2,
            public_url: None,
            trusted_proxies: None,
            register_per_hour: 5.0,
            login_per_min: 10.0,
            login_per_min_per_username: 5.0,
            max_concurrent_password_hashes: 2,
            bus: None,
            node_id: None,
            lease_secs: 10.0,
            arena_schedule: ArenaScheduleChoice::BuiltIn,
            puzzle_set: PuzzleSetChoice::BuiltIn,
            clients: ClientLimitArgs::default(),
            lines: LinesArgs::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: ServeArgs,
    }

    #[test]
    fn a_chat_word_list_that_cannot_be_read_stops_the_start_and_one_that_can_is_loaded() {
        let mut args = ServeArgs::from_defaults();
        args.clients.chat_word_list = Some(PathBuf::from("/nonexistent/words.txt"));
        assert!(matches!(
            args.clone().into_config(),
            Err(ConfigError::ChatWordList(why)) if why.contains("/nonexistent/words.txt")
        ));
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("words.txt");
        std::fs::write(&path, "# words\nidiot\n").expect("write");
        args.clients.chat_word_list = Some(path);
        let config = args.into_config().expect("config");
        assert!(config.clients.chat_words.matches("you IDIOT"));
        assert_eq!(
            ServeArgs::from_defaults()
                .into_config()
                .map(|c| c.clients.chat_words.is_empty())
                .ok(),
            Some(true)
        );
    }

    #[test]
    fn store_names_sqlite_with_a_directory_or_postgres_and_wins_over_data_dir() {
        let config = |flags: &[&str]| {
            let mut argv = vec!["serve"];
            argv.extend_from_slice(flags);
            Cli::try_parse_from(argv)
                .map_err(|e| e.to_string())
                .map(|cli| cli.args.into_config().expect("valid"))
        };
        let default = config(&[]).expect("defaults");
        assert_eq!(
            (default.data_dir, default.store),
            (PathBuf::from("./data"), StoreBackend::Sqlite)
        );
        let dir = config(&["--data-dir", "/d"]).expect("data dir");
        assert_eq!(dir.data_dir, PathBuf::from("/d"));
        let sqlite = config(&["--data-dir", "/d", "--store", "sqlite:/s"]).expect("sqlite");
        assert_eq!(
            (sqlite.data_dir, sqlite.store),
            (PathBuf::from("/s"), StoreBackend::Sqlite)
        );
        let pg = config(&["--store", "postgres://u:secret@127.0.0.1:5432/m"]).expect("pg");
        let StoreBackend::Postgres(url) = &pg.store else {
            panic!("expected postgres, got {:?}", pg.store);
        };
        assert_eq!(url.expose(), "postgres://u:secret@127.0.0.1:5432/m");
        // The password never shows in a printed config.
        assert!(!format!("{pg:?}").contains("secret"));
        assert!(format!("{pg:?}").contains("postgres://u:***@127.0.0.1:5432/m"));
        for bad in [
            "sqlite:",
            "mysql://x",
            "./data",
            "postgres://u@h:notaport/m",
        ] {
            let error = config(&["--store", bad]).expect_err(bad);
            assert!(error.contains("sqlite:DIR or a postgres:// URL"), "{error}");
        }
    }

    #[test]
    fn the_flag_defaults_and_config_new_agree() {
        // Environment variables would override the flag defaults; none of
        // MARSEILLAIS_* is set for unit tests.
        let parsed = Cli::try_parse_from(["serve"]).unwrap().args;
        let by_hand = ServeArgs::from_defaults();
        assert_eq!(format!("{parsed:?}"), format!("{by_hand:?}"));
    }

    #[test]
    fn the_public_url_is_kept_as_its_origin_and_must_be_http_or_https() {
        let origin = |url: &str| {
            let mut args = ServeArgs::from_defaults();
            args.public_url = Some(url.to_owned());
            args.into_config().map(|c| c.public_origin)
        };
        assert_eq!(
            origin("https://Play.Example/lobby?x=1"),
            Ok(Some("https://play.example".to_owned()))
        );
        assert_eq!(
            origin("http://127.0.0.1:8080"),
            Ok(Some("http://127.0.0.1:8080".to_owned()))
        );
        for bad in [
            "play.example",
            "ftp://play.example",
            "https://",
            "https://u@evil",
        ] {
            assert!(
                matches!(origin(bad), Err(ConfigError::PublicUrl { .. })),
                "{bad}"
            );
        }
        assert_eq!(
            ServeArgs::from_defaults()
                .into_config()
                .map(|c| c.public_origin),
            Ok(None)
        );
    }

    #[test]
    fn trusted_proxies_are_a_list_of_networks_and_a_bad_one_is_refused() {
        let parse = |list: &str| Cli::try_parse_from(["serve", "--trusted-proxies", list]);
        let config = parse("127.0.0.1/32,::1/128").map(|cli| {
            cli.args
                .into_config()
                .map(|c| c.trusted_proxies.to_string())
        });
        assert_eq!(config.ok(), Some(Ok("127.0.0.1/32,::1/128".to_owned())));
        let error = parse("10.0.0.1/8").err().map(|e| e.to_string());
        assert!(
            error
                .as_deref()
                .is_some_and(|e| e.contains("the network is 10.0.0.0/8")),
            "{error:?}"
        );
    }

    #[test]
    fn a_non_finite_account_rate_is_refused() {
        let mut args = ServeArgs::from_defaults();
        args.login_per_min = f64::INFINITY;
        assert!(matches!(
            args.into_config(),
            Err(ConfigError::AccountRate {
                name: "login-per-min",
                ..
            })
        ));
    }

    #[test]
    fn a_non_finite_creation_rate_is_refused() {
        let mut args = ServeArgs::from_defaults();
        args.create_rate_per_sec = f64::NAN;
        assert!(matches!(args.into_config(), Err(ConfigError::Rate { .. })));
    }
}
