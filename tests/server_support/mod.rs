//! Shared helpers of the server integration tests: an in-process server on
//! 127.0.0.1:0 with a temporary data directory, a tiny HTTP/1.1 client
//! (hand-written on a TcpStream, so no HTTP client crate is needed), and a
//! WebSocket client that reads typed messages with bounded waits.
#![allow(dead_code)]

#[path = "../http_support/mod.rs"]
pub mod http_support;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use marseillais::server::config::Config;
use marseillais::server::store::Store;
use marseillais::server::{ServerHandle, start, start_with_store};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Every wait in these tests is bounded by this.
pub const WAIT: Duration = Duration::from_secs(10);

pub struct TestServer {
    pub handle: Option<ServerHandle>,
    pub dir: tempfile::TempDir,
    pub config: Config,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    pub async fn start_with(tune: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::new(SocketAddr::from(([127, 0, 0, 1], 0)), dir.path());
        tune(&mut config);
        let handle = start(config.clone()).await.expect("server starts");
        TestServer {
            handle: Some(handle),
            dir,
            config,
        }
    }

    /// A server on another store (e.g. a `FailingStore`); not restartable.
    pub async fn start_on_store(store: std::sync::Arc<dyn Store>) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = Config::new(SocketAddr::from(([127, 0, 0, 1], 0)), dir.path());
        let handle = start_with_store(config.clone(), store)
            .await
            .expect("server starts");
        TestServer {
            handle: Some(handle),
            dir,
            config,
        }
    }

    pub fn live_games(&self) -> usize {
        self.handle.as_ref().expect("running").live_games()
    }

    pub fn addr(&self) -> SocketAddr {
        self.handle.as_ref().expect("running").addr()
    }

    /// Shuts down and starts again on the same data directory (new port).
    pub async fn restart(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.shutdown().await;
        }
        let handle = start(self.config.clone()).await.expect("server restarts");
        self.handle = Some(handle);
    }

    pub async fn stop(mut self) {
        if let Some(handle) = self.handle.take() {
            handle.shutdown().await;
        }
    }

    pub async fn http(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        http(self.addr(), method, path, body).await
    }

    /// Creates a game with this body; returns (id, creator token, creator colour).
    pub async fn create(&self, body: Value) -> (String, String, String) {
        let (status, text) = self
            .http("POST", "/api/games", Some(&body.to_string()))
            .await;
        assert_eq!(status, 201, "{text}");
        let v: Value = serde_json::from_str(&text).expect("json");
        (s(&v["id"]), s(&v["token"]), s(&v["color"]))
    }

    pub async fn join(&self, id: &str) -> (String, String) {
        let (status, text) = self
            .http("POST", &format!("/api/games/{id}/join"), None)
            .await;
        assert_eq!(status, 200, "{text}");
        let v: Value = serde_json::from_str(&text).expect("json");
        (s(&v["token"]), s(&v["color"]))
    }

    /// A game with both seats taken: (id, white token, black token).
    pub async fn game_between_two(&self, mut body: Value) -> (String, String, String) {
        body["color"] = json!("white");
        let (id, white, _) = self.create(body).await;
        let (black, color) = self.join(&id).await;
        assert_eq!(color, "black");
        (id, white, black)
    }

    /// A game with both seats taken and both players connected, White
    /// first: (id, white, black).
    pub async fn players(&self, body: Value) -> (String, Client, Client) {
        let (id, white_token, black_token) = self.game_between_two(body).await;
        let white = self.seat(&id, &white_token).await;
        let black = self.seat(&id, &black_token).await;
        (id, white, black)
    }

    pub async fn connect(&self, id: &str, query: &str) -> Client {
        Client::connect(self.addr(), id, query).await
    }

    /// Connects as the player holding this seat token.
    pub async fn seat(&self, id: &str, token: &str) -> Client {
        self.connect(id, &format!("token={token}")).await
    }

    /// Connects as a spectator (no token, no version).
    pub async fn spectate(&self, id: &str) -> Client {
        self.connect(id, "").await
    }

    pub async fn pgn(&self, id: &str) -> String {
        let (status, text) = self.http("GET", &format!("/game/{id}.pgn"), None).await;
        assert_eq!(status, 200, "{text}");
        text
    }
}

/// Plays 1. e4 f6,g5 (ack ids `w1`, `b1`, `b2`): White to move, and `d1h5`
/// (Qh5#) mates at once.
pub async fn play_until_white_mates_in_one(white: &mut Client, black: &mut Client) {
    white.play("e2e4", "w1").await;
    black.play("f7f6", "b1").await;
    black.play("g7g5", "b2").await;
}

/// Plays 1. e4 e5,Nf6 (ack ids `w1`, `b1`, `b2`): both first turns are
/// done (clocks run, abort is over) and White is to move.
pub async fn play_both_first_turns(white: &mut Client, black: &mut Client) {
    white.play("e2e4", "w1").await;
    black.play("e7e5", "b1").await;
    black.play("g8f6", "b2").await;
}

/// One field (`san`, `uci`, ...) of every move in a `moves` array of a
/// state snapshot or a public game record.
pub fn each_move(moves: &Value, field: &str) -> Vec<String> {
    moves
        .as_array()
        .expect("a moves array")
        .iter()
        .map(|m| s(&m[field]))
        .collect()
}

pub fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// One HTTP/1.1 request with `Connection: close`; returns status and body,
/// or panics (within [`WAIT`]) if there is no HTTP response.
pub async fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let body = body.unwrap_or("").as_bytes();
    match http_support::request(addr, method, path, body, WAIT).await {
        Ok(answer) => answer,
        Err(why) => panic!("http {method} {path}: {why}"),
    }
}

pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Every message received, in order.
    pub seen: Vec<Value>,
}

impl Client {
    pub async fn connect(addr: SocketAddr, id: &str, query: &str) -> Client {
        let url = if query.is_empty() {
            format!("ws://{addr}/ws/game/{id}")
        } else {
            format!("ws://{addr}/ws/game/{id}?{query}")
        };
        let (ws, _) = tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(url))
            .await
            .expect("ws connect in time")
            .expect("ws connect");
        Client {
            ws,
            seen: Vec::new(),
        }
    }

    pub async fn send(&mut self, msg: Value) {
        self.send_text(&msg.to_string()).await;
    }

    pub async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::text(text.to_string()))
            .await
            .expect("ws send");
    }

    pub async fn mv(&mut self, uci: &str, id: &str) {
        self.send(json!({"t": "move", "d": {"uci": uci, "id": id}}))
            .await;
    }

    /// The next JSON message (ignoring pings), or panics after [`WAIT`].
    pub async fn recv(&mut self) -> Value {
        self.try_recv(WAIT).await.expect("a message in time")
    }

    pub async fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let next = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .ok()??;
            match next {
                Ok(Message::Text(text)) => {
                    let v: Value = serde_json::from_str(text.as_str()).expect("server sends JSON");
                    self.seen.push(v.clone());
                    return Some(v);
                }
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => continue,
            }
        }
    }

    /// The next message of type `t`, skipping others (presence, ...).
    pub async fn expect(&mut self, t: &str) -> Value {
        for _ in 0..200 {
            let v = self.recv().await;
            if v["t"] == t {
                return v;
            }
            assert_ne!(
                v["t"], "error",
                "unexpected error while waiting for {t}: {v}"
            );
        }
        panic!("no {t} message");
    }

    /// The next message that is not `presence`.
    pub async fn next_non_presence(&mut self) -> Value {
        for _ in 0..200 {
            let v = self.recv().await;
            if v["t"] != "presence" {
                return v;
            }
        }
        panic!("only presence messages");
    }

    /// Plays a sub-move and waits for its ack and its broadcast.
    pub async fn play(&mut self, uci: &str, id: &str) -> Value {
        self.mv(uci, id).await;
        let ack = self.expect("ack").await;
        assert_eq!(ack["d"]["id"], id);
        let event = self.expect("move").await;
        assert_eq!(event["d"]["uci"], uci);
        assert_eq!(event["v"], ack["d"]["v"]);
        event
    }

    /// Sends a sub-move that the server must refuse with `store_failure`.
    pub async fn play_unacked_then_refused(&mut self, uci: &str, id: &str) {
        self.mv(uci, id).await;
        let error = self.expect("error").await;
        assert_eq!(error["d"]["code"], "store_failure", "{error}");
        assert_eq!(error["d"]["id"], id);
    }

    /// Waits for the server to close the connection; returns (code, reason).
    pub async fn expect_close(&mut self) -> (u16, String) {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => panic!("no close in time"),
                Ok(None) => panic!("closed without a close frame"),
                Ok(Some(Err(e))) => panic!("closed with an error: {e}"),
                Ok(Some(Ok(Message::Close(Some(frame))))) => {
                    return (u16::from(frame.code), frame.reason.to_string());
                }
                Ok(Some(Ok(Message::Close(None)))) => panic!("close without code"),
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
