//! What every feature may take from the composition root: the store, the configuration, the
//! counters and the shutdown signal. A feature's state is built from these (and from the
//! services of the features below it), never from a registry used as a locator.

use std::sync::Arc;

use tokio::sync::watch;

use crate::server::config::Config;
use crate::server::metrics::Metrics;
use crate::server::store::Store;

#[derive(Clone)]
pub struct Deps {
    pub store: Arc<dyn Store>,
    pub config: Arc<Config>,
    pub metrics: Arc<Metrics>,
    /// `true` once the server is stopping.
    pub shutdown: watch::Receiver<bool>,
}
