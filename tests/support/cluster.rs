//! Several real `marseillais` nodes for the cluster tests (issue 13): one fresh PostgreSQL
//! database ([`super::postgres`]), one private Redis on a unix socket, and `n` processes of the
//! binary started with `--store URL --bus URL --node-id nK --lease-secs 2` on 127.0.0.1.
//! Nodes are numbered from 1 (`n1`, `n2`, ...): [`Cluster::addr`]`(1)` is node `n1`. A node
//! can be killed with SIGKILL and restarted under the same id (on a new port); Redis can be
//! restarted on the same socket. Every node's log goes to a file of its own; they are all
//! printed (their last lines) if the test panics.
//!
//! Without PostgreSQL or `redis-server` the tests skip with a loud message, or fail when `CI` is
//! set, as the other Postgres tests do.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use marseillais::server::store::{GameStatus, PostgresStore, Store};

use super::postgres::{Proxy, TestDatabase, server_url};
use super::process::{ServerProcess, Spawn};
use super::redis::RedisServer;

/// The lease of the test clusters: short, so that a failover is a matter of seconds.
pub const LEASE_SECS: u64 = 2;

/// Lines of each log printed when a test fails.
const LOG_TAIL_LINES: usize = 120;

/// Where a client finds a node that is up: node `k` if it is, else the next one that is
/// (wrapping), with its address. [`Cluster`] is one; [`AddressBook`] is one that tasks share
/// while the test kills and restarts nodes.
pub trait Directory: Send + Sync {
    fn up_from(&self, k: usize) -> Option<(usize, SocketAddr)>;
}

/// The nodes' addresses (None: down), shared between the clients' tasks and the test that
/// kills and restarts nodes ([`Cluster::book`]).
pub struct AddressBook(std::sync::Mutex<Vec<Option<SocketAddr>>>);

impl AddressBook {
    fn set(&self, k: usize, addr: Option<SocketAddr>) {
        let mut book = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = book.get_mut(k - 1) {
            *slot = addr;
        }
    }

    /// The nodes up now.
    pub fn up(&self) -> Vec<usize> {
        let book = self.0.lock().unwrap_or_else(|e| e.into_inner());
        (1..=book.len())
            .filter(|&k| book[k - 1].is_some())
            .collect()
    }
}

impl Directory for AddressBook {
    fn up_from(&self, k: usize) -> Option<(usize, SocketAddr)> {
        let book = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = book.len();
        (0..n)
            .map(|i| (k.max(1) - 1 + i) % n + 1)
            .find_map(|j| book[j - 1].map(|addr| (j, addr)))
    }
}

impl Directory for Cluster {
    fn up_from(&self, k: usize) -> Option<(usize, SocketAddr)> {
        self.book.up_from(k)
    }
}

/// One node: its id, its directory (unused data dir, and its log) and its process if running.
struct Node {
    id: String,
    dir: PathBuf,
    process: Option<ServerProcess>,
    /// The port of its last life (kept for the log lines of a failure).
    last_addr: Option<SocketAddr>,
}

impl Node {
    fn log(&self) -> PathBuf {
        self.dir.join("node.log")
    }
}

/// How to start a cluster: `Cluster::builder("test", 3).through_proxy().start()`.
pub struct ClusterBuilder {
    test: String,
    nodes: usize,
    proxy: bool,
    flags: Vec<String>,
}

impl ClusterBuilder {
    /// The nodes reach Postgres through a [`Proxy`] that [`Cluster::proxy`] can cut.
    pub fn through_proxy(mut self) -> ClusterBuilder {
        self.proxy = true;
        self
    }

    /// More flags for every node.
    pub fn flags(mut self, flags: &[&str]) -> ClusterBuilder {
        self.flags.extend(flags.iter().map(|f| f.to_string()));
        self
    }

    /// None (after a loud message) when Postgres or Redis is missing.
    pub async fn start(self) -> Option<Cluster> {
        let server = server_url(&self.test)?;
        let redis = RedisServer::start(&self.test).await?;
        let scratch = tempfile::tempdir().expect("temp dir");
        let db = TestDatabase::create(&server, &self.test).await;
        let proxy = if self.proxy {
            Some(Proxy::start(&server).await)
        } else {
            None
        };
        let store_url = match &proxy {
            Some(proxy) => db.url_through(proxy),
            None => db.url.clone(),
        };
        let nodes = (1..=self.nodes)
            .map(|k| {
                let dir = scratch.path().join(format!("n{k}"));
                std::fs::create_dir_all(dir.join("data")).expect("node dir");
                Node {
                    id: format!("n{k}"),
                    dir,
                    process: None,
                    last_addr: None,
                }
            })
            .collect();
        let book = Arc::new(AddressBook(std::sync::Mutex::new(vec![None; self.nodes])));
        let mut cluster = Cluster {
            book,
            store: None,
            nodes,
            redis,
            proxy,
            store_url,
            flags: self.flags,
            db,
            _scratch: scratch,
        };
        for k in 1..=self.nodes {
            cluster.restart(k).await;
        }
        // The nodes have migrated the schema: this connection is only for looking.
        let store = PostgresStore::open(&cluster.db.url)
            .await
            .unwrap_or_else(|e| panic!("open the cluster's database: {e}"));
        cluster.store = Some(Arc::new(store));
        Some(cluster)
    }
}

/// `n` nodes on one Postgres database and one Redis.
pub struct Cluster {
    /// The nodes' addresses, kept up to date by [`Cluster::kill9`] and [`Cluster::restart`].
    book: Arc<AddressBook>,
    /// The test's own connection to the database (never through the proxy).
    store: Option<Arc<dyn Store>>,
    nodes: Vec<Node>,
    redis: RedisServer,
    proxy: Option<Proxy>,
    /// What the nodes get as `--store` (through the proxy, if any).
    store_url: String,
    flags: Vec<String>,
    pub db: TestDatabase,
    _scratch: tempfile::TempDir,
}

impl Cluster {
    pub fn builder(test: &str, nodes: usize) -> ClusterBuilder {
        ClusterBuilder {
            test: test.to_owned(),
            nodes,
            proxy: false,
            flags: Vec::new(),
        }
    }

    /// `n` nodes with the defaults; None when Postgres or Redis is missing (skipped).
    pub async fn start(test: &str, n: usize) -> Option<Cluster> {
        Cluster::builder(test, n).start().await
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    fn node(&self, k: usize) -> &Node {
        assert!(
            (1..=self.nodes.len()).contains(&k),
            "no node {k} (1..={})",
            self.nodes.len()
        );
        &self.nodes[k - 1]
    }

    fn node_mut(&mut self, k: usize) -> &mut Node {
        assert!(
            (1..=self.nodes.len()).contains(&k),
            "no node {k} (1..={})",
            self.nodes.len()
        );
        &mut self.nodes[k - 1]
    }

    /// The address of node `k` (1-based); panics if it is down.
    pub fn addr(&self, k: usize) -> SocketAddr {
        match self.try_addr(k) {
            Some(addr) => addr,
            None => panic!("node n{k} is down"),
        }
    }

    pub fn try_addr(&self, k: usize) -> Option<SocketAddr> {
        self.node(k).process.as_ref().map(|p| p.addr)
    }

    pub fn is_up(&self, k: usize) -> bool {
        self.node(k).process.is_some()
    }

    /// `nK`.
    pub fn node_id(&self, k: usize) -> &str {
        &self.node(k).id
    }

    /// The node numbered by its id (`n2` -> 2).
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id).map(|i| i + 1)
    }

    /// The nodes running now.
    pub fn up(&self) -> Vec<usize> {
        (1..=self.nodes.len()).filter(|&k| self.is_up(k)).collect()
    }

    /// The address book that follows kills and restarts, for clients in other tasks.
    pub fn book(&self) -> Arc<AddressBook> {
        Arc::clone(&self.book)
    }

    /// SIGKILL to node `k` (no graceful anything), reaped; a no-op if it is down.
    pub async fn kill9(&mut self, k: usize) {
        self.book.set(k, None);
        if let Some(process) = self.node_mut(k).process.take() {
            process.kill9().await;
        }
    }

    /// SIGTERM to node `k` and waits for its exit; true if it exited 0.
    pub async fn terminate(&mut self, k: usize) -> bool {
        self.book.set(k, None);
        match self.node_mut(k).process.take() {
            Some(process) => process.terminate().await,
            None => false,
        }
    }

    /// Starts node `k` again under the same id (killed first if it runs), on a new port.
    pub async fn restart(&mut self, k: usize) {
        self.kill9(k).await;
        let lease = LEASE_SECS.to_string();
        let (store_url, bus_url) = (self.store_url.clone(), self.redis.url());
        let flags = self.flags.clone();
        let node = self.node_mut(k);
        let mut all: Vec<&str> = vec![
            "--store",
            &store_url,
            "--bus",
            &bus_url,
            "--node-id",
            &node.id,
            "--lease-secs",
            &lease,
        ];
        all.extend(flags.iter().map(String::as_str));
        let process = Spawn::new(&node.dir.join("data"))
            .log(&node.log())
            .flags(&all)
            .relaxed_limits()
            .spawn()
            .await;
        node.last_addr = Some(process.addr);
        let addr = process.addr;
        node.process = Some(process);
        self.book.set(k, Some(addr));
    }

    /// The private Redis (restart it with `cluster.redis().restart().await`).
    pub fn redis(&mut self) -> &mut RedisServer {
        &mut self.redis
    }

    /// The proxy in front of Postgres ([`ClusterBuilder::through_proxy`]).
    pub fn proxy(&self) -> &Proxy {
        match &self.proxy {
            Some(proxy) => proxy,
            None => panic!("this cluster was not started through_proxy()"),
        }
    }

    /// The test's own store on the cluster's database (to look: never to write).
    pub fn store(&self) -> &dyn Store {
        match &self.store {
            Some(store) => store.as_ref(),
            None => panic!("the cluster's store is not open yet"),
        }
    }

    /// The node holding a live lease on `game` (its number), and the lease's epoch.
    pub async fn owner(&self, game: &str) -> Option<(usize, i64)> {
        let fence = self.store().game_owner(game).await.ok()??;
        Some((self.index_of(&fence.node)?, fence.epoch))
    }

    /// Waits (bounded by `limit`) until a node that is up holds `game`'s lease.
    pub async fn owner_within(&self, game: &str, limit: Duration) -> Option<(usize, i64)> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if let Some((k, epoch)) = self.owner(game).await
                && self.is_up(k)
            {
                return Some((k, epoch));
            }
            if tokio::time::Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The stored events of `game`, as JSON (empty if there is no such game).
    pub async fn events(&self, game: &str) -> Vec<serde_json::Value> {
        match self.store().load_game(game).await {
            Ok(Some((_, events))) => events
                .iter()
                .map(|text| serde_json::from_str(text).unwrap_or(serde_json::Value::Null))
                .collect(),
            Ok(None) => Vec::new(),
            Err(e) => panic!("load {game} from the cluster's database: {e}"),
        }
    }

    /// What is wrong with `game`'s stored log against the sub-moves a client saw acknowledged
    /// (`(ack id, v, uci)`): each must be the move event at its version, with its ack id; and
    /// no ack id may be stored twice (a sub-move applied twice). Empty when all is well.
    pub async fn check_acked(&self, game: &str, acked: &[(String, u64, String)]) -> Vec<String> {
        let events = self.events(game).await;
        let mut failures = Vec::new();
        for (id, v, uci) in acked {
            let kept = events.get(*v as usize).is_some_and(|e| {
                e["k"] == "move" && super::s(&e["uci"]) == *uci && super::s(&e["ack"]) == *id
            });
            if !kept {
                failures.push(format!(
                    "{game}: LOST acked {id} {uci} at v={v}: stored {:?}",
                    events.get(*v as usize)
                ));
            }
        }
        let mut seen = std::collections::HashMap::new();
        for (v, e) in events.iter().enumerate() {
            let ack = super::s(&e["ack"]);
            if e["k"] == "move"
                && !ack.is_empty()
                && let Some(first) = seen.insert(ack.clone(), v)
            {
                failures.push(format!(
                    "{game}: ack id {ack} stored twice, at v={first} and v={v}"
                ));
            }
        }
        failures
    }

    /// Every stored game with its events (as JSON text), read from the database.
    pub async fn stored_games(&self) -> Vec<(String, Vec<String>)> {
        let store = self.store();
        let mut games = Vec::new();
        for status in [GameStatus::Open, GameStatus::Playing, GameStatus::Finished] {
            let mut offset = 0;
            // Bounded: 10 000 pages of 100 games.
            for _ in 0..10_000 {
                let page = store.list(status, 100, offset).await.expect("list games");
                if page.is_empty() {
                    break;
                }
                offset += page.len() as u32;
                for listing in page {
                    if let Some((_, events)) =
                        store.load_game(&listing.id).await.expect("load a game")
                    {
                        games.push((listing.id, events));
                    }
                }
            }
        }
        games
    }

    /// Every node's whole log, concatenated (the audit looks for panics in it).
    pub fn logs(&self) -> String {
        self.nodes
            .iter()
            .map(|n| {
                format!(
                    "===== {} =====\n{}",
                    n.id,
                    std::fs::read_to_string(n.log()).unwrap_or_default()
                )
            })
            .collect()
    }

    /// The last lines of every log (nodes and Redis).
    pub fn log_tails(&self) -> String {
        let tail = |path: &Path| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(LOG_TAIL_LINES)..].join("\n")
        };
        let mut out = String::new();
        for node in &self.nodes {
            out.push_str(&format!(
                "===== node {} (last port {:?}, {}) =====\n{}\n",
                node.id,
                node.last_addr,
                if node.process.is_some() { "up" } else { "down" },
                tail(&node.log())
            ));
        }
        out.push_str(&format!("===== redis =====\n{}\n", tail(&self.redis.log())));
        out
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("\n*** the cluster's logs ***\n{}", self.log_tails());
            self.keep_logs();
        }
    }
}

impl Cluster {
    /// With `CLUSTER_KEEP_LOGS=<dir>`, copies every node's whole log (all its lives) and
    /// Redis's there, for a failure whose cause is older than the printed tails.
    fn keep_logs(&self) {
        let Some(dir) = std::env::var_os("CLUSTER_KEEP_LOGS").map(PathBuf::from) else {
            return;
        };
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("CLUSTER_KEEP_LOGS: {e}");
            return;
        }
        let mut logs: Vec<(String, PathBuf)> = self
            .nodes
            .iter()
            .map(|n| (format!("{}.log", n.id), n.log()))
            .collect();
        logs.push(("redis.log".to_owned(), self.redis.log()));
        for (name, from) in logs {
            match std::fs::copy(&from, dir.join(&name)) {
                Ok(_) => eprintln!("kept {}", dir.join(&name).display()),
                Err(e) => eprintln!("CLUSTER_KEEP_LOGS: {name}: {e}"),
            }
        }
    }
}
