//! Server flags, each with an environment-variable equivalent.

use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "MARSEILLAIS_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Directory for the SQLite database.
    #[arg(long, env = "MARSEILLAIS_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
}

impl ServeArgs {
    /// The arguments when `serve` is implied (no subcommand): defaults and
    /// environment variables only.
    pub fn from_env() -> Self {
        use clap::Parser;
        #[derive(Parser)]
        struct Only {
            #[command(flatten)]
            args: ServeArgs,
        }
        Only::parse_from(["marseillais"]).args
    }
}
