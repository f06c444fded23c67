//! Shared helpers of the reliability tests (crash, store faults, abuse,
//! soak): the real server binary as a child process (spawn, SIGKILL,
//! SIGTERM, its memory and open files from /proc), an HTTP/1.1 client and a
//! WebSocket client whose failures are values (a killed server is expected
//! here, so nothing panics on a network error), a raw WebSocket connection
//! for hand-made frames, and a small seeded random generator so that a failing
//! run can be replayed. Only 127.0.0.1; every wait is bounded.
#![allow(dead_code)]

#[path = "../http_support/mod.rs"]
mod http_support;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStdout, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The longest any single network step may take before it counts as failed.
pub const WAIT: Duration = Duration::from_secs(10);

/// The server binary, started with `serve --listen 127.0.0.1:0 --data-dir DIR`.
pub struct ServerProcess {
    child: Child,
    /// Kept open so that the server's later writes to stdout do not fail.
    _stdout: BufReader<ChildStdout>,
    pub addr: SocketAddr,
}

impl ServerProcess {
    /// Starts the binary and waits (bounded) for its `listening on http://ADDR`
    /// line. Its stderr (the logs) is appended to `log`. `extra` are more flags.
    pub async fn spawn(data_dir: &Path, log: &Path, extra: &[&str]) -> ServerProcess {
        ServerProcess::spawn_with_env(data_dir, log, extra, &[]).await
    }

    pub async fn spawn_with_env(
        data_dir: &Path,
        log: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> ServerProcess {
        let log_file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("open the server log file");
        let mut command = Command::new(env!("CARGO_BIN_EXE_marseillais"));
        command
            .arg("serve")
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(data_dir)
            .args(extra)
            .env_remove("RUST_LOG")
            // These tests play hundreds of games from 127.0.0.1, each as
            // fast as acks come back; the per-address creation limit and the
            // per-game action rate are tested in server_http_limits and
            // server_room_limits.
            .env("MARSEILLAIS_CREATE_RATE_PER_SEC", "0")
            .env("MARSEILLAIS_GAME_RATE_PER_SEC", "1000000")
            .env("MARSEILLAIS_GAME_RATE_BURST", "1000000")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log_file))
            .kill_on_drop(true);
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("spawn the server binary");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stdout = BufReader::new(stdout);
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(30), stdout.read_line(&mut line)).await;
        let addr = match read {
            Ok(Ok(n)) if n > 0 => line
                .trim()
                .strip_prefix("listening on http://")
                .and_then(|a| a.parse().ok()),
            _ => None,
        };
        let Some(addr) = addr else {
            let _ = child.start_kill();
            let logs = std::fs::read_to_string(log).unwrap_or_default();
            panic!("the server did not start (stdout {line:?}); its log:\n{logs}");
        };
        ServerProcess {
            child,
            _stdout: stdout,
            addr,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id().expect("the server is running")
    }

    /// SIGKILL (no chance to flush or close anything), then reap it.
    pub async fn kill9(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(WAIT, self.child.wait()).await;
    }

    /// SIGTERM (graceful shutdown) and wait for the exit; true if it exited 0.
    pub async fn terminate(mut self) -> bool {
        let pid = self.pid().to_string();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .is_ok_and(|s| s.success());
        if !sent {
            return false;
        }
        match tokio::time::timeout(Duration::from_secs(20), self.child.wait()).await {
            Ok(Ok(status)) => status.success(),
            _ => {
                let _ = self.child.start_kill();
                false
            }
        }
    }

    /// Resident memory of the server process, in KiB (Linux /proc).
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// Open file descriptors of the server process (Linux /proc).
    pub fn open_fds(&self) -> Option<usize> {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .ok()
            .map(|d| d.count())
    }

    pub async fn metric(&self, name: &str) -> Option<f64> {
        metric(self.addr, name).await
    }
}

/// One value of the `/metrics` exposition (a line `name value`).
pub async fn metric(addr: SocketAddr, name: &str) -> Option<f64> {
    let (status, body) = http(addr, "GET", "/metrics", None).await.ok()?;
    if status != 200 {
        return None;
    }
    body.lines().find_map(|line| {
        let (key, value) = line.split_once(' ')?;
        (key == name).then(|| value.trim().parse().ok())?
    })
}

/// Polls `probe` every 50 ms until it returns true or `limit` passes.
pub async fn eventually<F, Fut>(limit: Duration, mut probe: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if probe().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
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

/// One HTTP/1.1 request with `Connection: close`; (status, body) or why not.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&[u8]>,
) -> Result<(u16, String), String> {
    http_support::request(addr, method, path, body.unwrap_or(b""), WAIT).await
}

/// Creates a game (`body` JSON) and has a second player join it:
/// (id, white token, black token). Errors are values.
pub async fn new_game(addr: SocketAddr, body: &str) -> Result<(String, String, String), String> {
    let (status, text) = http(addr, "POST", "/api/games", Some(body.as_bytes())).await?;
    if status != 201 {
        return Err(format!("create: {status} {text}"));
    }
    let created: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let id = str_of(&created["id"]);
    let (status, text) = http(addr, "POST", &format!("/api/games/{id}/join"), None).await?;
    if status != 200 {
        return Err(format!("join: {status} {text}"));
    }
    let joined: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let (white, black) = if created["color"] == "white" {
        (str_of(&created["token"]), str_of(&joined["token"]))
    } else {
        (str_of(&joined["token"]), str_of(&created["token"]))
    };
    Ok((id, white, black))
}

pub fn str_of(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A WebSocket client whose every failure is a value.
pub struct Ws {
    pub ws: Socket,
    /// Every JSON message received, in order.
    pub seen: Vec<Value>,
}

/// How a connection ended, as seen by the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// A close frame with this code and reason.
    Closed(u16, String),
    /// The TCP connection ended (or failed) without a close frame.
    Dropped,
    /// Still open after the wait.
    Open,
}

impl Ws {
    pub async fn connect(addr: SocketAddr, id: &str, query: &str) -> Result<Ws, String> {
        let url = if query.is_empty() {
            format!("ws://{addr}/ws/game/{id}")
        } else {
            format!("ws://{addr}/ws/game/{id}?{query}")
        };
        let (ws, _) = tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(url))
            .await
            .map_err(|_| "ws connect timeout".to_string())?
            .map_err(|e| e.to_string())?;
        Ok(Ws {
            ws,
            seen: Vec::new(),
        })
    }

    pub async fn send(&mut self, msg: &Value) -> Result<(), String> {
        self.send_text(&msg.to_string()).await
    }

    pub async fn send_text(&mut self, text: &str) -> Result<(), String> {
        tokio::time::timeout(WAIT, self.ws.send(Message::text(text.to_string())))
            .await
            .map_err(|_| "ws send timeout".to_string())?
            .map_err(|e| e.to_string())
    }

    /// The next JSON message within `wait`; `None` on timeout or end.
    pub async fn recv(&mut self, wait: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let next = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .ok()??;
            match next {
                Ok(Message::Text(text)) => {
                    let v: Value = serde_json::from_str(text.as_str()).ok()?;
                    self.seen.push(v.clone());
                    return Some(v);
                }
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => continue,
            }
        }
    }

    /// The next message of type `t` within [`WAIT`], skipping others.
    pub async fn expect(&mut self, t: &str) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.recv(left).await {
                Some(v) if v["t"] == t => return v,
                Some(_) => continue,
                None => panic!("no {t} message in time; seen: {:?}", self.seen),
            }
        }
    }

    /// Waits (bounded) for the end of the connection, reading everything.
    pub async fn ended(&mut self, wait: Duration) -> Ended {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => return Ended::Open,
                Ok(None) | Ok(Some(Err(_))) => return Ended::Dropped,
                Ok(Some(Ok(Message::Close(Some(frame))))) => {
                    return Ended::Closed(u16::from(frame.code), frame.reason.to_string());
                }
                Ok(Some(Ok(Message::Close(None)))) => return Ended::Dropped,
                Ok(Some(Ok(Message::Text(text)))) => {
                    if let Ok(v) = serde_json::from_str(text.as_str()) {
                        self.seen.push(v);
                    }
                }
                Ok(Some(Ok(_))) => continue,
            }
        }
    }
}

/// A WebSocket connection made by hand on a TCP stream, for frames no
/// well-behaved library would send (fragments, bad UTF-8, lying lengths).
pub struct RawWs {
    pub stream: TcpStream,
    buffer: Vec<u8>,
}

/// Frame opcodes.
pub const CONTINUATION: u8 = 0x0;
pub const TEXT: u8 = 0x1;
pub const BINARY: u8 = 0x2;
pub const CLOSE: u8 = 0x8;
pub const PING: u8 = 0x9;

impl RawWs {
    /// Connects and upgrades `path`; Err if the server does not answer 101.
    pub async fn connect(addr: SocketAddr, path: &str) -> Result<RawWs, String> {
        let mut stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        let mut buffer = Vec::new();
        let head_end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            let mut chunk = [0u8; 1024];
            let n = tokio::time::timeout(WAIT, stream.read(&mut chunk))
                .await
                .map_err(|_| "handshake timeout".to_string())?
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("closed during the handshake".into());
            }
            buffer.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
        if !head.starts_with("HTTP/1.1 101") {
            return Err(format!("no upgrade: {head}"));
        }
        buffer.drain(..head_end);
        Ok(RawWs { stream, buffer })
    }

    /// Writes one masked client frame.
    pub async fn send_frame(&mut self, fin: bool, opcode: u8, payload: &[u8]) -> bool {
        self.stream
            .write_all(&client_frame(fin, opcode, payload))
            .await
            .is_ok()
    }

    /// Writes raw bytes (e.g. a header that lies about its length).
    pub async fn send_bytes(&mut self, bytes: &[u8]) -> bool {
        self.stream.write_all(bytes).await.is_ok()
    }

    /// The next server frame (opcode, payload) within `wait`; `None` on
    /// timeout or when the connection ends.
    pub async fn read_frame(&mut self, wait: Duration) -> Option<(u8, Vec<u8>)> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some((frame, used)) = parse_server_frame(&self.buffer) {
                self.buffer.drain(..used);
                return Some(frame);
            }
            let mut chunk = [0u8; 8192];
            let n = tokio::time::timeout_at(deadline, self.stream.read(&mut chunk))
                .await
                .ok()?
                .ok()?;
            if n == 0 {
                return None;
            }
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    /// Reads frames until a text frame holding JSON of type `t`.
    pub async fn expect_text(&mut self, t: &str, wait: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let (opcode, payload) = self.read_frame(left).await?;
            if opcode == TEXT {
                let v: Value = serde_json::from_slice(&payload).ok()?;
                if v["t"] == t {
                    return Some(v);
                }
            }
        }
    }

    /// Reads until the server's close frame (its code) or the end of the
    /// connection (`None`), within `wait`.
    pub async fn close_code(&mut self, wait: Duration) -> Option<u16> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let (opcode, payload) = self.read_frame(left).await?;
            if opcode == CLOSE {
                return (payload.len() >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]]));
            }
        }
    }
}

/// A masked client frame.
pub fn client_frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![(u8::from(fin) << 7) | opcode];
    let len = payload.len();
    if len < 126 {
        out.push(0x80 | len as u8);
    } else if len <= 0xffff {
        out.push(0x80 | 126);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0x80 | 127);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    let mask = [0x37u8, 0xfa, 0x21, 0x3d];
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    out
}

/// One unmasked server frame at the start of `buf`: ((opcode, payload), bytes used).
fn parse_server_frame(buf: &[u8]) -> Option<((u8, Vec<u8>), usize)> {
    if buf.len() < 2 {
        return None;
    }
    let opcode = buf[0] & 0x0f;
    let short = usize::from(buf[1] & 0x7f);
    let (len, mut at): (usize, usize) = match short {
        126 => (
            usize::from(u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?])),
            4,
        ),
        127 => {
            let bytes: [u8; 8] = buf.get(2..10)?.try_into().ok()?;
            (usize::try_from(u64::from_be_bytes(bytes)).ok()?, 10)
        }
        n => (n, 2),
    };
    if buf[1] & 0x80 != 0 {
        at += 4;
    }
    let end = at.checked_add(len)?;
    let payload = buf.get(at..end)?.to_vec();
    Some(((opcode, payload), end))
}

/// A small deterministic generator (xorshift64*), so that a failing run can
/// be repeated with the seed it prints.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// A seed from `var` if set, else from the clock; printed for replay.
    pub fn seeded_from_env(var: &str) -> (Rng, u64) {
        let seed = std::env::var(var)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1)
            });
        (Rng::new(seed), seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform-enough in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn between_ms(&mut self, low: u64, high: u64) -> Duration {
        Duration::from_millis(low + self.below(high.saturating_sub(low) + 1))
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len() as u64) as usize)
        }
    }
}

/// Every stored game of a data directory, read with the store directly
/// (the server must not be running): (id, events as JSON).
pub async fn stored_games(data_dir: &Path) -> Vec<(String, Vec<String>)> {
    use marseillais::server::store::{GameStatus, SqliteStore, Store};
    let store = SqliteStore::open(data_dir).expect("open the data directory");
    let mut games = Vec::new();
    for status in [GameStatus::Open, GameStatus::Playing, GameStatus::Finished] {
        let mut offset = 0;
        loop {
            let page = store.list(status, 100, offset).await.expect("list");
            if page.is_empty() {
                break;
            }
            offset += page.len() as u32;
            for listing in page {
                let (_, events) = store
                    .load_game(&listing.id)
                    .await
                    .expect("load")
                    .expect("listed game exists");
                games.push((listing.id, events));
            }
        }
    }
    store.close().await;
    games
}

/// Checks one stored game the way an auditor would: it replays through the
/// server's state machine (which plays every sub-move through the rules
/// engine), every move event is legal when replayed independently with
/// [`marseillais::rules::Game`], and its comma PGN export reads back as the
/// same sub-moves and passes the strict check. Returns the sub-move count.
pub fn audit_game(id: &str, events: &[String]) -> Result<usize, String> {
    use marseillais::rules::pgn::{check_games, read_game};
    use marseillais::rules::{Game, Position, Rules, SubMove};
    use marseillais::server::export::pgn;
    use marseillais::server::game::GameState;
    use marseillais::server::store::codec;

    let typed = events
        .iter()
        .map(|text| codec::decode(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{id}: does not decode: {e}"))?;
    let state = GameState::replay(
        id,
        &typed,
        Duration::from_secs(30),
        std::time::Instant::now(),
        |_, _, _| {},
    )
    .map_err(|e| format!("{id}: does not replay: {e}"))?;
    // Independent replay of the sub-moves and takebacks.
    let created: Value = serde_json::from_str(events.first().ok_or("no events")?)
        .map_err(|e| format!("{id}: event 0: {e}"))?;
    let start = Position::from_fen(&str_of(&created["start_fen"]), Rules::Marseillais)
        .map_err(|e| format!("{id}: start fen: {e}"))?;
    let mut game = Game::new(start);
    for (seq, text) in events.iter().enumerate().skip(1) {
        let event: Value =
            serde_json::from_str(text).map_err(|e| format!("{id}: event {seq}: {e}"))?;
        match event["k"].as_str() {
            Some("move") => {
                let mv: SubMove = str_of(&event["uci"])
                    .parse()
                    .map_err(|e| format!("{id}: event {seq}: {e}"))?;
                game.play(mv)
                    .map_err(|e| format!("{id}: event {seq} {mv} is illegal: {e}"))?;
            }
            Some("takeback") => {
                game.takeback_first_submove()
                    .map_err(|e| format!("{id}: event {seq} takeback: {e}"))?;
            }
            Some(_) => {}
            None => return Err(format!("{id}: event {seq} has no kind: {text}")),
        }
    }
    if game.submoves() != state.game().submoves() {
        return Err(format!("{id}: independent replay differs"));
    }
    let text = pgn(&state);
    let imported = match read_game(&text) {
        Some(Ok(imported)) => imported,
        other => return Err(format!("{id}: PGN does not re-import: {other:?}\n{text}")),
    };
    if imported.game.submoves() != state.game().submoves() {
        return Err(format!("{id}: PGN re-imports as other sub-moves\n{text}"));
    }
    let reports = check_games(&text);
    if !reports.iter().all(|r| r.is_good()) {
        return Err(format!(
            "{id}: PGN fails the strict check: {reports:?}\n{text}"
        ));
    }
    Ok(state.game().submoves().len())
}

/// Both players of one game, each reading its own socket.
pub struct Duo {
    pub white: Ws,
    pub black: Ws,
    pub turn: String,
    pub legal: Vec<String>,
    pub version: u64,
}

/// What became of one move.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Acked(u64),
    Refused(String),
}

impl Duo {
    pub async fn open(addr: SocketAddr, id: &str, white: &str, black: &str) -> Duo {
        let mut white = Ws::connect(addr, id, &format!("token={white}"))
            .await
            .expect("ws");
        let mut black = Ws::connect(addr, id, &format!("token={black}"))
            .await
            .expect("ws");
        let state = white.expect("state").await;
        black.expect("state").await;
        Duo {
            white,
            black,
            turn: str_of(&state["d"]["turn"]),
            legal: strings(&state["d"]["legal"]),
            version: state["v"].as_u64().expect("v"),
        }
    }

    /// The side to move plays `uci` with ack id `id`; on an ack, both sockets
    /// are read up to its broadcast.
    pub async fn play(&mut self, uci: &str, id: &str) -> Outcome {
        let mover = if self.turn == "white" {
            &mut self.white
        } else {
            &mut self.black
        };
        mover
            .send(&json!({"t": "move", "d": {"uci": uci, "id": id}}))
            .await
            .expect("send");
        let reply = loop {
            let msg = mover.recv(WAIT).await.expect("an answer to the move");
            if msg["t"] == "ack" || msg["t"] == "error" {
                break msg;
            }
            assert!(msg.get("v").is_none(), "an event before the answer: {msg}");
        };
        assert_eq!(reply["d"]["id"], id, "{reply}");
        if reply["t"] == "error" {
            return Outcome::Refused(str_of(&reply["d"]["code"]));
        }
        let v = reply["d"]["v"].as_u64().expect("ack v");
        for ws in [&mut self.white, &mut self.black] {
            loop {
                let msg = ws.recv(WAIT).await.expect("the broadcast");
                if let Some(ev) = msg["v"].as_u64() {
                    assert!(ev <= v + 1, "{msg}");
                    if msg["t"] == "move" && ev == v {
                        self.turn = str_of(&msg["d"]["turn"]);
                        self.legal = strings(&msg["d"]["legal"]);
                        break;
                    }
                }
            }
        }
        self.version = v;
        Outcome::Acked(v)
    }

    pub fn any_legal(&self, n: usize) -> String {
        self.legal[n % self.legal.len().max(1)].clone()
    }
}

pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(str_of).collect())
        .unwrap_or_default()
}
