//! Several in-process nodes (issue 13): `server::start` two or three times on one Postgres
//! test database and one Redis, each node with its own `--node-id` and a short lease. Redis is
//! `MARSEILLAIS_TEST_REDIS` when set, otherwise a private `redis-server` on a unix socket in a
//! temporary directory (killed on drop). Without Postgres or Redis the tests skip loudly
//! (and fail under `CI`).

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use marseillais::server::cluster::ClusterConfig;
use marseillais::server::config::{Config, StoreBackend};
use marseillais::server::store::postgres::PostgresUrl;
use marseillais::server::{ServerHandle, start};

use super::WAIT;
use super::postgres::{TestDatabase, server_url};

/// A Redis for one test.
pub struct Redis {
    pub url: String,
    child: Option<Child>,
    _dir: Option<tempfile::TempDir>,
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn skip(test: &str, what: &str) -> Option<Redis> {
    let message = format!("test `{test}` needs {what}");
    if std::env::var_os("CI").is_some() {
        panic!("CI is set: {message}");
    }
    eprintln!("\n!!! SKIPPED: {message}\n");
    None
}

impl Redis {
    pub async fn start(test: &str) -> Option<Redis> {
        if let Ok(url) = std::env::var("MARSEILLAIS_TEST_REDIS")
            && !url.is_empty()
        {
            return Some(Redis {
                url,
                child: None,
                _dir: None,
            });
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let socket = dir.path().join("redis.sock");
        let child = Command::new("redis-server")
            .args(["--port", "0", "--save", "", "--appendonly", "no"])
            .arg("--unixsocket")
            .arg(&socket)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = child else {
            return skip(test, "redis-server (install the redis-server package)");
        };
        let redis = Redis {
            url: format!("redis+unix://{}", socket.display()),
            child: Some(child),
            _dir: Some(dir),
        };
        let up = super::eventually(WAIT, || {
            let socket = socket.clone();
            async move { socket.exists() }
        })
        .await;
        assert!(up, "redis-server did not open its socket");
        Some(redis)
    }
}

/// The shared backends of one cluster test.
pub struct Backends {
    pub db: TestDatabase,
    pub redis: Redis,
}

impl Backends {
    pub async fn start(test: &str) -> Option<Backends> {
        let server = server_url(test)?;
        let redis = Redis::start(test).await?;
        let db = TestDatabase::create(&server, test).await;
        Some(Backends { db, redis })
    }

    /// The configuration of node `node` with a lease of `lease`.
    pub fn config(&self, node: &str, lease: Duration) -> (Config, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::new(SocketAddr::from(([127, 0, 0, 1], 0)), dir.path());
        config.store = StoreBackend::Postgres(PostgresUrl::parse(&self.db.url).expect("url"));
        config.cluster = Some(ClusterConfig {
            bus: self.redis.url.parse().expect("bus url"),
            node: node.parse().expect("node id"),
            lease,
        });
        (config, dir)
    }

    pub async fn node(&self, node: &str, lease: Duration) -> Node {
        let (config, dir) = self.config(node, lease);
        let handle = start(config).await.expect("node starts");
        Node {
            name: node.to_owned(),
            handle: Some(handle),
            _dir: dir,
        }
    }
}

/// One running node.
pub struct Node {
    pub name: String,
    pub handle: Option<ServerHandle>,
    _dir: tempfile::TempDir,
}

impl Node {
    pub fn addr(&self) -> SocketAddr {
        self.handle.as_ref().expect("running").addr()
    }

    pub async fn stop(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.shutdown().await;
        }
    }
}
