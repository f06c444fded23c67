//! Several in-process nodes (issue 13): [`Rig`]s started on one fresh Postgres test database
//! and one private redis-server, each with its own `--node-id` (`n1`, `n2`, ...) and a short
//! lease. Faster to start than the process rig ([`super::cluster`]) and its nodes can be
//! stopped cleanly (`Rig::pause`), but a `kill -9` needs the process rig. Without Postgres or
//! Redis the tests skip loudly (and fail under `CI`).

use std::net::SocketAddr;
use std::time::Duration;

use marseillais::server::cluster::ClusterConfig;
use marseillais::server::config::{Config, StoreBackend};
use marseillais::server::store::postgres::PostgresUrl;

use super::postgres::{TestDatabase, server_url};
use super::redis::RedisServer;
use super::rig::Rig;

/// `n` nodes (index 1..=n), their database and their bus.
pub struct Nodes {
    pub rigs: Vec<Rig>,
    pub db: TestDatabase,
    pub redis: RedisServer,
}

impl Nodes {
    /// Starts `n` nodes in order (`n1` first, so it claims the lobby's lease), each with
    /// `lease` and `tune` applied to its configuration. None when Postgres or Redis is missing.
    pub async fn start(
        test: &str,
        n: usize,
        lease: Duration,
        tune: impl Fn(&mut Config) + Clone + 'static,
    ) -> Option<Nodes> {
        let server = server_url(test)?;
        let redis = RedisServer::start(test).await?;
        let db = TestDatabase::create(&server, test).await;
        let mut rigs = Vec::new();
        for k in 1..=n {
            let (url, bus, tune) = (db.url.clone(), redis.url(), tune.clone());
            let rig = Rig::builder()
                .config(move |c| {
                    c.store = StoreBackend::Postgres(PostgresUrl::parse(&url).expect("url"));
                    c.cluster = Some(ClusterConfig {
                        bus: bus.parse().expect("bus url"),
                        node: format!("n{k}").parse().expect("node id"),
                        lease,
                    });
                    tune(c);
                })
                .start()
                .await;
            rigs.push(rig);
        }
        Some(Nodes { rigs, db, redis })
    }

    pub fn node(&self, k: usize) -> &Rig {
        &self.rigs[k - 1]
    }

    pub fn node_mut(&mut self, k: usize) -> &mut Rig {
        &mut self.rigs[k - 1]
    }

    pub fn addr(&self, k: usize) -> SocketAddr {
        self.node(k).addr()
    }
}
