//! A real, private redis-server for the tests: one per test, in a fresh temporary directory,
//! listening only on a unix socket there (no TCP port: nothing else on the machine can reach
//! it, and tests never collide), killed on drop. A test can stop and restart it on the same
//! socket path to see what the bus does while Redis is away. The binary comes from
//! `MARSEILLAIS_TEST_REDIS_SERVER` (set by `scripts/test-services.sh`) or `redis-server` on the
//! PATH; without one the tests skip with a loud message, except when `CI` is set, where they fail.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

/// The variable `scripts/test-services.sh` sets.
pub const SERVER_VARIABLE: &str = "MARSEILLAIS_TEST_REDIS_SERVER";

/// The redis-server binary, or None (after a loud message) when there is none; panics under CI.
pub fn server_binary(test: &str) -> Option<PathBuf> {
    if let Ok(path) = std::env::var(SERVER_VARIABLE)
        && !path.is_empty()
    {
        return Some(PathBuf::from(path));
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let candidate = dir.join("redis-server");
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    let message = format!(
        "test `{test}` needs redis-server: install the redis-server package, or set \
         {SERVER_VARIABLE} (scripts/test-services.sh does)"
    );
    if std::env::var_os("CI").is_some() {
        panic!("CI is set: {message}");
    }
    eprintln!("\n!!! SKIPPED: {message}\n");
    None
}

/// One private redis-server.
pub struct RedisServer {
    binary: PathBuf,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts one, or None when there is no redis-server (see [`server_binary`]).
    pub async fn start(test: &str) -> Option<RedisServer> {
        let binary = server_binary(test)?;
        let dir = tempfile::Builder::new()
            .prefix("marseillais-redis.")
            .tempdir()
            .expect("a temporary directory for redis-server");
        let mut server = RedisServer {
            binary,
            dir,
            child: None,
        };
        server.spawn().await;
        Some(server)
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("redis.sock")
    }

    /// `redis+unix:///.../redis.sock`, what `--bus` takes.
    pub fn url(&self) -> String {
        format!("redis+unix://{}", self.socket().display())
    }

    /// Its log file (printed by the cluster rig when a test fails).
    pub fn log(&self) -> PathBuf {
        self.dir.path().join("redis.log")
    }

    async fn spawn(&mut self) {
        let socket = self.socket();
        let _ = std::fs::remove_file(&socket);
        let log = std::fs::File::create(self.log()).expect("the redis-server log file");
        let child = Command::new(&self.binary)
            .args(["--port", "0", "--unixsocket"])
            .arg(&socket)
            .args([
                "--unixsocketperm",
                "700",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .arg("--dir")
            .arg(self.dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the redis-server log file"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.binary.display()));
        self.child = Some(child);
        for _ in 0..200 {
            if command(&socket, &["PING"]).await.as_deref() == Some("+PONG") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let log = std::fs::read_to_string(self.log()).unwrap_or_default();
        panic!(
            "redis-server did not answer on {} within 5 s:\n{log}",
            socket.display()
        );
    }

    /// Kills it (SIGKILL: as a crash would) and waits until it is gone.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_file(self.socket());
    }

    /// Stops it and starts a fresh one on the same socket path (its pub/sub state is gone,
    /// as after a real restart).
    pub async fn restart(&mut self) {
        self.stop();
        self.spawn().await;
    }

    /// Runs one command on a fresh connection; the reply's first line (e.g. `+PONG`, `:1`),
    /// or None when Redis does not answer.
    pub async fn command(&self, args: &[&str]) -> Option<String> {
        command(&self.socket(), args).await
    }

    /// `PUBSUB NUMSUB channel`: how many connections are subscribed to `channel`.
    pub async fn subscribers(&self, channel: &str) -> Option<u64> {
        let reply = raw(&self.socket(), &["PUBSUB", "NUMSUB", channel]).await?;
        // *2 $len channel :count
        let count = reply.lines().find_map(|l| l.strip_prefix(':'))?;
        count.trim().parse().ok()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The whole reply text of one command (RESP), read until it looks complete; bounded.
async fn raw(socket: &Path, args: &[&str]) -> Option<String> {
    let attempt = async {
        let mut stream = UnixStream::connect(socket).await.ok()?;
        let mut request = format!("*{}\r\n", args.len());
        for arg in args {
            request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut reply = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = stream.read(&mut buf).await.ok()?;
            if n == 0 {
                break;
            }
            reply.extend_from_slice(&buf[..n]);
            if complete(&reply) {
                break;
            }
        }
        String::from_utf8(reply).ok()
    };
    tokio::time::timeout(Duration::from_secs(2), attempt)
        .await
        .ok()
        .flatten()
}

/// Whether `reply` holds one whole RESP value (enough for the replies these tests read:
/// simple strings, integers, errors, and arrays of bulk strings and integers).
fn complete(reply: &[u8]) -> bool {
    let text = String::from_utf8_lossy(reply);
    let lines: Vec<&str> = text.split("\r\n").collect();
    if !text.ends_with("\r\n") {
        return false;
    }
    fn value(lines: &[&str], at: usize) -> Option<usize> {
        let line = lines.get(at)?;
        match line.as_bytes().first()? {
            b'+' | b'-' | b':' => Some(at + 1),
            b'$' => {
                if line[1..].trim() == "-1" {
                    Some(at + 1)
                } else {
                    lines.get(at + 1).map(|_| at + 2)
                }
            }
            b'*' => {
                let n: usize = line[1..].trim().parse().ok()?;
                let mut next = at + 1;
                for _ in 0..n {
                    next = value(lines, next)?;
                }
                Some(next)
            }
            _ => None,
        }
    }
    value(&lines, 0).is_some_and(|end| end < lines.len())
}

async fn command(socket: &Path, args: &[&str]) -> Option<String> {
    raw(socket, args)
        .await
        .and_then(|r| r.lines().next().map(str::to_string))
}
