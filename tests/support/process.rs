//! The real `marseillais` binary as a child process: started on a data
//! directory with `serve --listen 127.0.0.1:0`, its address read from its
//! `listening on http://ADDR` line, then killed with SIGKILL, stopped with
//! SIGTERM, or measured (memory, open files) through /proc. Also [`run`]:
//! one of the package's command-line tools run to its end.

use std::ffi::OsStr;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};

use super::WAIT;

/// How long the binary may take to print its address (a cold start on a
/// loaded machine, or a recovery that replays many games).
const STARTUP: Duration = Duration::from_secs(30);
/// How long a graceful shutdown may take.
const SHUTDOWN: Duration = Duration::from_secs(20);

/// Only a guard against a hung tool: a command-line run that takes longer
/// is killed and fails.
const CLI_HANG_GUARD: Duration = Duration::from_secs(300);

/// Runs `exe` (e.g. `env!("CARGO_BIN_EXE_marseillais")`) with `args` to its
/// end, stdin empty, and returns its exit status and output. Panics if it
/// cannot start or hangs past the guard.
pub fn run<S: AsRef<OsStr>>(exe: &str, args: &[S]) -> std::process::Output {
    let mut child = std::process::Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{exe} does not start: {e}"));
    // Drained on threads, so that a full pipe cannot stall the child.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = std::time::Instant::now() + CLI_HANG_GUARD;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{exe} did not finish within {CLI_HANG_GUARD:?}: {other:?}");
            }
        }
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// A fresh data directory and log file under one temporary directory.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn log(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }
}

/// How to start the binary: `Spawn::new(data).log(..).flags(..).spawn()`.
pub struct Spawn {
    data_dir: PathBuf,
    log: Option<PathBuf>,
    flags: Vec<String>,
    env: Vec<(String, String)>,
    relaxed_limits: bool,
    /// Another build of the binary (an older server writing a fixture); `None`: this package's.
    exe: Option<PathBuf>,
}

impl Spawn {
    /// The binary on this data directory; its logs are dropped, `RUST_LOG`
    /// is not passed on, the limits are the defaults.
    pub fn new(data_dir: &Path) -> Spawn {
        Spawn {
            data_dir: data_dir.to_path_buf(),
            log: None,
            flags: Vec::new(),
            env: Vec::new(),
            relaxed_limits: false,
            exe: None,
        }
    }

    /// Runs this executable instead of this package's `marseillais` (an older build that writes
    /// a fixture of its schema version).
    pub fn binary(mut self, exe: &Path) -> Spawn {
        self.exe = Some(exe.to_path_buf());
        self
    }

    /// Appends the server's stderr (its logs) to this file.
    pub fn log(mut self, path: &Path) -> Spawn {
        self.log = Some(path.to_path_buf());
        self
    }

    /// More command-line flags after `serve --listen .. --data-dir ..`.
    pub fn flags(mut self, flags: &[&str]) -> Spawn {
        self.flags.extend(flags.iter().map(|f| f.to_string()));
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Spawn {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// Lifts the per-address creation limit, the per-game action rate and the caps on the
    /// open games and games against the computer of one client: for tests that play hundreds
    /// of games from 127.0.0.1 as fast as acks come back (those limits are tested in
    /// server_http_limits, server_room_limits and server::client_games).
    pub fn relaxed_limits(mut self) -> Spawn {
        self.relaxed_limits = true;
        self
    }

    /// Starts the binary and waits (bounded) for its address; panics with
    /// its log if it does not start.
    pub async fn spawn(self) -> ServerProcess {
        self.launch().announced().await
    }

    /// Starts the binary without waiting for anything: for a test that acts while the server
    /// is still starting.
    pub fn launch(self) -> Launched {
        let exe = self
            .exe
            .clone()
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_marseillais")));
        let mut command = Command::new(exe);
        command
            .arg("serve")
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(&self.data_dir)
            .args(&self.flags)
            .env_remove("RUST_LOG")
            // Games against levels 1-7 answer as soon as searched (as in the rig); a test
            // that wants the human pace passes `--computer-pace human` (a flag beats this).
            .env("MARSEILLAIS_COMPUTER_PACE", "instant")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        if self.relaxed_limits {
            command
                .env("MARSEILLAIS_CREATE_RATE_PER_SEC", "0")
                .env("MARSEILLAIS_GAME_RATE_PER_SEC", "1000000")
                .env("MARSEILLAIS_GAME_RATE_BURST", "1000000")
                .env("MARSEILLAIS_OPEN_GAMES_PER_CLIENT", "0")
                .env("MARSEILLAIS_COMPUTER_GAMES_PER_CLIENT", "0");
        }
        match &self.log {
            Some(log) => {
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
                    .expect("open the server log file");
                command.stderr(Stdio::from(file));
            }
            None => {
                command.stderr(Stdio::null());
            }
        }
        for (key, value) in &self.env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("spawn the server binary");
        let stdout = child.stdout.take().expect("piped stdout");
        Launched {
            child,
            stdout: BufReader::new(stdout),
            log: self.log,
        }
    }
}

/// A server binary started by [`Spawn::launch`] that may not have announced its address yet.
pub struct Launched {
    child: Child,
    stdout: BufReader<ChildStdout>,
    log: Option<PathBuf>,
}

impl Launched {
    /// Waits (within the startup bound) until the server's log holds `text`; false if it never
    /// does. Polled every millisecond: a test that acts between two startup steps has only
    /// the tens of ms between them. Needs [`Spawn::log`].
    pub async fn until_logged(&self, text: &str) -> bool {
        let Some(log) = &self.log else {
            return false;
        };
        let deadline = tokio::time::Instant::now() + STARTUP;
        while tokio::time::Instant::now() < deadline {
            if std::fs::read_to_string(log).is_ok_and(|logged| logged.contains(text)) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        false
    }

    /// SIGTERM and wait (within the shutdown bound) for the exit; true if it exited 0.
    pub async fn terminate(mut self) -> bool {
        send_sigterm(&self.child)
            && bounded_wait(&mut self.child, SHUTDOWN)
                .await
                .is_some_and(|status| status.success())
    }

    /// Waits (bounded) for the address the server prints once it serves; panics with its log
    /// if it does not come.
    pub async fn announced(self) -> ServerProcess {
        let Launched {
            mut child,
            mut stdout,
            log,
        } = self;
        let mut line = String::new();
        let read = tokio::time::timeout(STARTUP, stdout.read_line(&mut line)).await;
        let addr = match read {
            Ok(Ok(n)) if n > 0 => line
                .trim()
                .strip_prefix("listening on http://")
                .and_then(|a| a.parse().ok()),
            _ => None,
        };
        let Some(addr) = addr else {
            let _ = child.start_kill();
            let logs = log
                .as_ref()
                .and_then(|log| std::fs::read_to_string(log).ok())
                .unwrap_or_default();
            panic!("the server did not start (stdout {line:?}); its log:\n{logs}");
        };
        ServerProcess {
            child,
            _stdout: stdout,
            addr,
        }
    }
}

/// A server's open descriptors. The two kinds are held to different rules: the database's files
/// belong to SQLite connections, and the store keeps a pool of readers that grows with concurrent
/// reads up to its bound (two descriptors each, the database and its WAL), so their number after a
/// load depends on how many reads once overlapped; everything else (sockets, pipes, the log) must
/// come back to its number before the load.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OpenFds {
    /// Files under the data directory: the database, its WAL and its shared-memory index.
    pub database: usize,
    /// Sockets, pipes, epoll and event fds, the log, /dev/null.
    pub other: usize,
}

/// The running binary; killed when dropped.
pub struct ServerProcess {
    child: Child,
    /// Kept open so that the server's later writes to stdout do not fail.
    _stdout: BufReader<ChildStdout>,
    pub addr: SocketAddr,
}

impl ServerProcess {
    /// [`Spawn`] with relaxed limits and logs appended to `log`: the setup of
    /// the reliability tests. `extra` are more flags.
    pub async fn spawn(data_dir: &Path, log: &Path, extra: &[&str]) -> ServerProcess {
        Spawn::new(data_dir)
            .log(log)
            .flags(extra)
            .relaxed_limits()
            .spawn()
            .await
    }

    pub fn pid(&self) -> u32 {
        self.child.id().expect("the server is running")
    }

    /// SIGKILL (no chance to flush or close anything), then reap it.
    pub async fn kill9(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(WAIT, self.child.wait()).await;
    }

    /// Sends SIGTERM (a graceful shutdown) without waiting; true if sent.
    pub fn sigterm(&self) -> bool {
        send_sigterm(&self.child)
    }

    /// Waits (bounded) for the process to exit; `None` if it is still
    /// running after `wait` (it is then killed).
    pub async fn wait_exit(mut self, wait: Duration) -> Option<ExitStatus> {
        bounded_wait(&mut self.child, wait).await
    }

    /// SIGTERM and wait for the exit; true if it exited 0.
    pub async fn terminate(self) -> bool {
        if !self.sigterm() {
            return false;
        }
        self.wait_exit(SHUTDOWN)
            .await
            .is_some_and(|status| status.success())
    }

    /// Resident memory of the server process, in KiB (Linux /proc).
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// The server's open file descriptors (Linux /proc), told apart by what they point to.
    pub fn open_fds(&self, data_dir: &Path) -> Option<OpenFds> {
        let fds = std::fs::read_dir(format!("/proc/{}/fd", self.pid())).ok()?;
        let data_dir = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
        let mut open = OpenFds::default();
        // An fd closed between the listing and the readlink is simply not counted.
        for target in fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok()) {
            if target.starts_with(&data_dir) {
                open.database += 1;
            } else {
                open.other += 1;
            }
        }
        Some(open)
    }

    pub async fn metric(&self, name: &str) -> Option<f64> {
        super::http::metric(self.addr, name).await
    }
}

/// `kill -TERM` to a child still running; true if sent.
fn send_sigterm(child: &Child) -> bool {
    let Some(pid) = child.id() else {
        return false;
    };
    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success())
}

/// The child's exit status within `wait`; `None` (and the child killed) past it.
async fn bounded_wait(child: &mut Child, wait: Duration) -> Option<ExitStatus> {
    match tokio::time::timeout(wait, child.wait()).await {
        Ok(Ok(status)) => Some(status),
        _ => {
            let _ = child.start_kill();
            None
        }
    }
}
