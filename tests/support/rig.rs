//! The one in-process server rig: the real server (`marseillais::server`)
//! started on 127.0.0.1:0 in this test's runtime, on a temporary data
//! directory (its own SQLite store, or any store the test hands it: a
//! `MemoryStore`, a `FailingStore`, a `SqliteStore` with options), stopped
//! and started again on the same directory, plus the few HTTP and WebSocket
//! steps every game test begins with.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::Arc;

use marseillais::server::chat::repeat::FloodRule;
use marseillais::server::computer::think::ComputerPace;
use marseillais::server::config::Config;
use marseillais::server::store::{MemoryStore, SqliteOptions, SqliteStore, Store};
use marseillais::server::{ServerHandle, start, start_with_store};
use serde_json::{Value, json};

use super::WAIT;
use super::http::{http, request_from};
use super::s;
use super::ws::Client;

type Tune = Box<dyn FnOnce(&mut Config)>;

enum StoreChoice {
    /// The server opens its own SQLite store in the data directory.
    InDir,
    /// A store opened by the rig in the data directory, with options.
    Sqlite(SqliteOptions),
    Memory,
    Given(Arc<dyn Store>),
}

/// `Rig::builder().config(|c| ..).memory().start()`.
pub struct RigBuilder {
    tunes: Vec<Tune>,
    store: StoreChoice,
    keep_port: bool,
}

impl RigBuilder {
    /// Changes the configuration before the start (may be called again).
    pub fn config(mut self, tune: impl FnOnce(&mut Config) + 'static) -> RigBuilder {
        self.tunes.push(Box::new(tune));
        self
    }

    pub fn memory(mut self) -> RigBuilder {
        self.store = StoreChoice::Memory;
        self
    }

    /// A SQLite store in the rig's data directory, opened with `options`.
    pub fn sqlite(mut self, options: SqliteOptions) -> RigBuilder {
        self.store = StoreChoice::Sqlite(options);
        self
    }

    /// Any store (e.g. a `FailingStore` whose switch the test keeps).
    pub fn store(mut self, store: Arc<dyn Store>) -> RigBuilder {
        self.store = StoreChoice::Given(store);
        self
    }

    /// Restarts listen on the first start's port (so browsers reconnect). The rig holds that
    /// port for its whole life ([`reserve_port`]), so that no other socket can take it while
    /// the server is paused.
    pub fn keep_port(mut self) -> RigBuilder {
        self.keep_port = true;
        self
    }

    pub async fn start(self) -> Rig {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::new(SocketAddr::from(([127, 0, 0, 1], 0)), dir.path());
        // Every anonymous client of a test is 127.0.0.1, one writer for the chat's flood rule
        // (issue 32): off here, on in tests/server/chat_rules.rs.
        config.clients.chat_flood = FloodRule::OFF;
        // The computer answers as soon as it has searched: tests play whole games against
        // levels 1-7, whose human pace would add a second a turn (on in
        // tests/server/computer_pace.rs).
        config.computer_pace = ComputerPace::Instant;
        for tune in self.tunes {
            tune(&mut config);
        }
        let port = self.keep_port.then(|| {
            let socket = reserve_port(config.listen);
            config.listen = socket.local_addr().expect("the reserved port");
            socket
        });
        let store: Option<Arc<dyn Store>> = match self.store {
            StoreChoice::InDir => None,
            StoreChoice::Sqlite(options) => Some(Arc::new(
                SqliteStore::open_with(&config.data_dir, options).expect("open the store"),
            )),
            StoreChoice::Memory => Some(Arc::new(MemoryStore::new())),
            StoreChoice::Given(store) => Some(store),
        };
        let handle = match store {
            None => start(config.clone()).await,
            Some(store) => start_with_store(config.clone(), store).await,
        }
        .expect("server starts");
        Rig {
            handle: Some(handle),
            dir,
            config,
            _port: port,
        }
    }
}

/// A socket bound to `addr` (port 0: any free one) and never listening, with `SO_REUSEADDR`,
/// which the server's listener also sets (tokio): the server binds and listens on the same
/// port beside it (Linux allows it when both sockets reuse and the other is not listening),
/// and while the server is paused the port stays bound. Without it, an outgoing connection of
/// another test could take the port as its source port during a pause (the kernel gives an
/// unbound port to `connect`, and skips ports that a `bind` holds), and the restart would
/// fail with "address in use" for as long as that connection lives.
fn reserve_port(addr: SocketAddr) -> tokio::net::TcpSocket {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket.set_reuseaddr(true).expect("SO_REUSEADDR");
    socket.bind(addr).expect("a port to reserve");
    socket
}

/// A running (or paused) in-process server and its data directory.
pub struct Rig {
    pub handle: Option<ServerHandle>,
    pub dir: tempfile::TempDir,
    pub config: Config,
    /// With `keep_port`: the port held for the rig's life ([`reserve_port`]).
    _port: Option<tokio::net::TcpSocket>,
}

impl Rig {
    pub fn builder() -> RigBuilder {
        RigBuilder {
            tunes: Vec::new(),
            store: StoreChoice::InDir,
            keep_port: false,
        }
    }

    /// Defaults, on its own SQLite store.
    pub async fn start() -> Rig {
        Rig::builder().start().await
    }

    pub async fn start_with(tune: impl FnOnce(&mut Config) + 'static) -> Rig {
        Rig::builder().config(tune).start().await
    }

    /// A server on another store (the server closes it when it stops, so
    /// [`Rig::restart`] is for the rig's own store; see [`Rig::resume_on`]).
    pub async fn start_on_store(store: Arc<dyn Store>) -> Rig {
        Rig::builder().store(store).start().await
    }

    pub fn addr(&self) -> SocketAddr {
        self.handle.as_ref().expect("running").addr()
    }

    pub fn live_games(&self) -> usize {
        self.handle.as_ref().expect("running").live_games()
    }

    pub fn data_dir(&self) -> &Path {
        &self.config.data_dir
    }

    /// Stops the server (sockets close with 1001), keeping the data.
    pub async fn pause(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.shutdown().await;
        }
    }

    /// Starts again on the same data directory (and the same port with `keep_port`, which the
    /// rig held meanwhile).
    pub async fn resume(&mut self) {
        let handle = start(self.config.clone())
            .await
            .expect("the server restarts");
        self.handle = Some(handle);
    }

    /// Starts again on another store, with the same configuration.
    pub async fn resume_on(&mut self, store: Arc<dyn Store>) {
        let handle = start_with_store(self.config.clone(), store)
            .await
            .expect("server restarts");
        self.handle = Some(handle);
    }

    /// Shuts down and starts again on the same data directory.
    pub async fn restart(&mut self) {
        self.pause().await;
        self.resume().await;
    }

    pub async fn stop(mut self) {
        self.pause().await;
    }

    pub async fn http(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        http(self.addr(), method, path, body).await
    }

    /// Creates a game with this body; returns (id, creator token, creator colour).
    pub async fn create(&self, body: Value) -> (String, String, String) {
        self.create_from(None, body).await
    }

    /// [`Rig::create`] from the loopback address `source` (`None`: 127.0.0.1), a client of its
    /// own: a client holds at most 3 open games (docs/protocol.md 3.9).
    pub async fn create_from(
        &self,
        source: Option<IpAddr>,
        body: Value,
    ) -> (String, String, String) {
        let body = body.to_string();
        let reply = request_from(
            source,
            self.addr(),
            "POST",
            "/api/games",
            body.as_bytes(),
            WAIT,
        )
        .await;
        let (status, text) = reply.unwrap_or_else(|why| panic!("POST /api/games: {why}"));
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
        let mut white = self.seat(&id, &white_token).await;
        let mut black = self.seat(&id, &black_token).await;
        // Both in the room before the test moves: each sees the other's moves as events.
        white.joined().await;
        black.joined().await;
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
