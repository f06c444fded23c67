//! The server under load: either a child process started from the
//! `marseillais` binary next to the load generator (with a fresh data
//! directory, durability on: the SQLite store with `synchronous=FULL`), or
//! an address given on the command line. Also reads its memory from
//! `/proc/<pid>/status` and its counters from `/metrics`.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::http;

/// The limits per client a server started here runs without (environment, so that a
/// `--server-arg` flag still wins): the load generator is one machine standing in for thousands
/// of clients, over a few source addresses, where a real client is one address (docs/protocol.md
/// 3.9). The load measured is the server's, not its defence against one address.
pub const PER_CLIENT_LIFTED: &[(&str, &str)] = &[
    ("MARSEILLAIS_LOBBY_SOCKETS_PER_CLIENT", "0"),
    ("MARSEILLAIS_GAME_SOCKETS_PER_CLIENT", "0"),
    ("MARSEILLAIS_OPEN_GAMES_PER_CLIENT", "0"),
    ("MARSEILLAIS_COMPUTER_GAMES_PER_CLIENT", "0"),
    ("MARSEILLAIS_CHAT_ROOM_BURST_PER_CLIENT", "0"),
    ("MARSEILLAIS_CHAT_BURST_PER_CLIENT", "0"),
];

/// The server must print its address within this long.
const START_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(
        "cannot find the marseillais binary next to {0}: build it with `cargo build --release`"
    )]
    NoBinary(PathBuf),
    #[error("cannot start the server: {0}")]
    Spawn(std::io::Error),
    #[error("the server did not print `listening on http://ADDR` within {0:?}")]
    NoAddress(Duration),
    #[error("cannot prepare the data directory {0}: {1}")]
    DataDir(PathBuf, std::io::Error),
}

/// A server child process; killed when dropped (also on error paths).
pub struct Spawned {
    child: Child,
    pub addr: SocketAddr,
    /// The directory holding the data directory and the server's log.
    dir: PathBuf,
    /// Removed when dropped, if we created it.
    temp: Option<PathBuf>,
}

impl Spawned {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Starts `binary serve --listen 127.0.0.1:0 --data-dir <dir>` plus
    /// `extra` flags, with `env` set (environment variables rather than
    /// flags, so that a server build without one of them still starts).
    pub fn start(
        binary: Option<PathBuf>,
        data_dir: Option<PathBuf>,
        extra: &[String],
        env: &[(&str, &str)],
    ) -> Result<Spawned, ServerError> {
        let binary = match binary {
            Some(path) => path,
            None => sibling_binary()?,
        };
        let (dir, temp) = match data_dir {
            Some(dir) => (dir, None),
            None => {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos());
                let dir = std::env::temp_dir().join(format!(
                    "marseillais-loadgen-{}-{nanos}",
                    std::process::id()
                ));
                (dir.clone(), Some(dir))
            }
        };
        std::fs::create_dir_all(&dir).map_err(|e| ServerError::DataDir(dir.clone(), e))?;
        let log = std::fs::File::create(dir.join("server.log"))
            .map_err(|e| ServerError::DataDir(dir.clone(), e))?;
        let mut child = Command::new(&binary)
            .arg("serve")
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(dir.join("data"))
            // All its games come from one address: no per-address creation limit.
            .env("MARSEILLAIS_CREATE_RATE_PER_SEC", "0")
            .envs(env.iter().copied())
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .spawn()
            .map_err(ServerError::Spawn)?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            return Err(ServerError::Spawn(std::io::Error::other("no stdout")));
        };
        let mut spawned = Spawned {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            dir,
            temp,
        };
        spawned.addr = read_address(stdout)?;
        Ok(spawned)
    }

    /// SIGTERM (graceful: the store is flushed), then kill after a bound.
    pub fn stop(mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if let Some(dir) = &self.temp {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Reads stdout until `listening on http://ADDR` (in a thread, bounded by a timeout).
fn read_address(stdout: std::process::ChildStdout) -> Result<SocketAddr, ServerError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let reader = BufReader::new(stdout);
        for line in reader.lines().take(1000) {
            let Ok(line) = line else { break };
            if let Some(addr) = line
                .trim()
                .strip_prefix("listening on http://")
                .and_then(|a| a.parse::<SocketAddr>().ok())
            {
                let _ = tx.send(addr);
            }
        }
        // The server prints nothing else on stdout; later writes would fail harmlessly.
    });
    rx.recv_timeout(START_TIMEOUT)
        .map_err(|_| ServerError::NoAddress(START_TIMEOUT))
}

fn sibling_binary() -> Result<PathBuf, ServerError> {
    let exe = std::env::current_exe().map_err(ServerError::Spawn)?;
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    // Integration tests run from target/<profile>/deps; the binary is one up.
    for candidate in [dir.join("marseillais"), dir.join("../marseillais")] {
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(ServerError::NoBinary(exe))
}

/// A process's memory, from `/proc/<pid>/status`, in KiB.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Memory {
    pub rss_kib: u64,
    pub hwm_kib: u64,
    /// Parts of the RSS: anonymous (the heap), file-backed, shared memory
    /// (SQLite's WAL index is a mapped `-shm` file); 0 when not reported.
    pub anon_kib: u64,
    pub file_kib: u64,
    pub shmem_kib: u64,
}

pub fn memory(pid: u32) -> Option<Memory> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
    };
    Some(Memory {
        rss_kib: field("VmRSS:")?,
        hwm_kib: field("VmHWM:")?,
        anon_kib: field("RssAnon:").unwrap_or(0),
        file_kib: field("RssFile:").unwrap_or(0),
        shmem_kib: field("RssShmem:").unwrap_or(0),
    })
}

/// CPU time a process has used so far (user + system, all threads), in
/// seconds, from `/proc/<pid>/stat` (Linux counts it in 1/100 s).
pub fn cpu_secs(pid: u32) -> Option<f64> {
    stat_cpu_secs(&format!("/proc/{pid}/stat"))
}

/// CPU time one thread of this process has used so far, in seconds: from
/// `schedstat` (nanoseconds on the CPU; a thread that uses a few hundredths
/// of a second would be all rounding in `stat`'s 10 ms ticks), else `stat`.
pub fn thread_cpu_secs(tid: u32) -> Option<f64> {
    let schedstat = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok();
    schedstat
        .and_then(|text| text.split_whitespace().next()?.parse::<u64>().ok())
        .map(|ns| ns as f64 / 1e9)
        .or_else(|| stat_cpu_secs(&format!("/proc/self/task/{tid}/stat")))
}

/// utime + stime of a `stat` file (process or thread).
fn stat_cpu_secs(path: &str) -> Option<f64> {
    let text = std::fs::read_to_string(path).ok()?;
    // The command name may hold spaces; the fields after it are plain.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3 of the whole line, utime 14, stime 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// The machine's 1-minute load average (`/proc/loadavg`): the figures move
/// with whatever else runs on the same cores, so reports carry it.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The server's own counters (`/metrics`).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ServerCounters {
    pub connections: f64,
    pub live_games: f64,
    pub submoves_accepted_total: f64,
    /// Mean time from receiving a move to broadcasting it (commit included).
    pub move_seconds_mean_ms: f64,
    pub move_count: f64,
    pub commit_seconds_mean_ms: f64,
    /// Connections closed at accept because `--max-connections` were open (the goal: none).
    pub connections_refused_total: f64,
}

/// The server's `/metrics` text.
pub async fn counters_text(addr: SocketAddr) -> Option<String> {
    http::expect_ok(addr, "GET", "/metrics", None).await.ok()
}

pub async fn counters(addr: SocketAddr) -> Option<ServerCounters> {
    let text = counters_text(addr).await?;
    let m = |name: &str| http::metric(&text, name);
    let mean = |base: &str| {
        let sum = m(&format!("{base}_sum"))?;
        let count = m(&format!("{base}_count"))?;
        Some(if count > 0.0 {
            sum / count * 1000.0
        } else {
            0.0
        })
    };
    Some(ServerCounters {
        connections: m("marseillais_connections")?,
        live_games: m("marseillais_live_games")?,
        submoves_accepted_total: m("marseillais_submoves_accepted_total")?,
        move_seconds_mean_ms: mean("marseillais_move_seconds").unwrap_or(0.0),
        move_count: m("marseillais_move_seconds_count").unwrap_or(0.0),
        commit_seconds_mean_ms: mean("marseillais_store_commit_seconds").unwrap_or(0.0),
        connections_refused_total: m("marseillais_connections_refused_total").unwrap_or(0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_own_memory_is_readable() {
        let mem = memory(std::process::id()).expect("/proc is there on Linux");
        assert!(mem.rss_kib > 0 && mem.hwm_kib >= mem.rss_kib);
        assert!(mem.anon_kib > 0 && mem.anon_kib <= mem.rss_kib);
    }

    #[test]
    fn our_own_cpu_time_is_readable_and_grows() {
        let before = cpu_secs(std::process::id()).expect("/proc is there on Linux");
        // Spin until the clock ticks (1/100 s of CPU); bounded, however busy the machine.
        let mut x = 0u64;
        let mut after = before;
        let spin = std::time::Instant::now();
        while after <= before && spin.elapsed() < Duration::from_secs(30) {
            for _ in 0..1_000_000 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            after = cpu_secs(std::process::id()).expect("readable");
        }
        assert!(after > before, "{before} -> {after}");
    }
}
