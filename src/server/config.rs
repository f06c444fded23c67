//! Server settings: command-line flags (each with an environment variable)
//! and the runtime [`Config`] they become. Tests build a [`Config`] directly.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// `marseillais serve` flags.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the real one is printed).
    #[arg(long, env = "MARSEILLAIS_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Directory for the SQLite database.
    #[arg(long, env = "MARSEILLAIS_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// Largest WebSocket message a client may send, in bytes (larger: close 1009).
    #[arg(long, env = "MARSEILLAIS_MAX_MESSAGE_BYTES", default_value_t = 4096)]
    pub max_message_bytes: usize,
    /// Sustained client messages per second per connection (more: close 1008).
    #[arg(long, env = "MARSEILLAIS_RATE_PER_SEC", default_value_t = 20.0)]
    pub rate_per_sec: f64,
    /// Burst of client messages allowed above the sustained rate.
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
}

impl ServeArgs {
    /// The runtime configuration; rejects negative or non-finite durations.
    pub fn into_config(self) -> Result<Config, ConfigError> {
        let secs = |name: &'static str, value: f64| {
            Duration::try_from_secs_f64(value).map_err(|_| ConfigError::Duration { name, value })
        };
        Ok(Config {
            listen: self.listen,
            data_dir: self.data_dir,
            max_message_bytes: self.max_message_bytes.max(64),
            rate_per_sec: self.rate_per_sec.max(0.1),
            rate_burst: self.rate_burst.max(1.0),
            idle_timeout: secs("idle-timeout-secs", self.idle_timeout_secs)?,
            ping_interval: secs("ping-interval-secs", self.ping_interval_secs)?,
            outgoing_queue: self.outgoing_queue.max(1),
            disconnect_grace: secs("disconnect-grace-secs", self.disconnect_grace_secs)?,
            first_move: secs("first-move-secs", self.first_move_secs)?,
            retire_after: secs("retire-after-secs", self.retire_after_secs)?,
            open_game_ttl: secs("open-game-ttl-secs", self.open_game_ttl_secs)?,
            idle_game_ttl: secs("idle-game-ttl-secs", self.idle_game_ttl_secs)?,
        })
    }
}

/// A flag value that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("--{name} must be a non-negative number of seconds, got {value}")]
    Duration { name: &'static str, value: f64 },
}

/// Everything the running server needs to know; see [`ServeArgs`] for meanings.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub data_dir: PathBuf,
    pub max_message_bytes: usize,
    pub rate_per_sec: f64,
    pub rate_burst: f64,
    pub idle_timeout: Duration,
    pub ping_interval: Duration,
    pub outgoing_queue: usize,
    pub disconnect_grace: Duration,
    pub first_move: Duration,
    pub retire_after: Duration,
    pub open_game_ttl: Duration,
    pub idle_game_ttl: Duration,
}

impl Config {
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
            max_message_bytes: 4096,
            rate_per_sec: 20.0,
            rate_burst: 40.0,
            idle_timeout_secs: 60.0,
            ping_interval_secs: 20.0,
            outgoing_queue: 128,
            disconnect_grace_secs: 60.0,
            first_move_secs: 30.0,
            retire_after_secs: 120.0,
            open_game_ttl_secs: 3600.0,
            idle_game_ttl_secs: 86400.0,
        }
    }
}
