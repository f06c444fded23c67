//! What every feature may take from the composition root: the store, the configuration, the
//! counters, the shutdown signal and the limits per client. A feature's state is built from these (and from the
//! services of the features below it), never from a registry used as a locator.

use std::sync::Arc;

use tokio::sync::watch;

use crate::server::config::Config;
use crate::server::metrics::Metrics;
use crate::server::per_client::PerClient;
use crate::server::store::Store;

#[derive(Clone)]
pub struct Deps {
    pub store: Arc<dyn Store>,
    pub config: Arc<Config>,
    pub metrics: Arc<Metrics>,
    /// `true` once the server is stopping.
    pub shutdown: watch::Receiver<bool>,
    /// What one client may hold and send at once, over every feature's connections.
    pub clients: Arc<PerClient>,
}

impl Deps {
    pub fn new(
        store: Arc<dyn Store>,
        config: Config,
        metrics: Arc<Metrics>,
        shutdown: watch::Receiver<bool>,
    ) -> Deps {
        let clients = Arc::new(PerClient::new(&config, Arc::clone(&metrics)));
        Deps {
            store,
            config: Arc::new(config),
            metrics,
            shutdown,
            clients,
        }
    }
}
