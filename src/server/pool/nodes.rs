//! What the pools keep about the other nodes (several nodes, [`super::remote`]): the link, the
//! proxies of other nodes' pages on the owner, this node's pages waiting on the owner.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

use tokio::sync::oneshot;

use crate::server::cluster::lobby::LobbyLink;
use crate::server::play::room::ConnId;

/// On a page's node: a page waiting in another node's pools.
#[derive(Debug)]
pub(super) struct RemoteWait {
    /// The owner it joined through: if the lobby's lease moves, the seek is gone.
    pub(super) owner: String,
    pub(super) tell: oneshot::Sender<String>,
}

/// The cluster side of the pools.
#[derive(Default)]
pub(super) struct Remote {
    pub(super) link: OnceLock<Arc<LobbyLink>>,
    /// On the owner: the proxy connection of each page of another node that waits here.
    pub(super) proxies: Mutex<HashMap<(String, ConnId), ConnId>>,
    /// On a page's node: its pages that wait in the owner's pools.
    pub(super) waits: Mutex<HashMap<ConnId, RemoteWait>>,
    /// When the owner last sent its count to the other nodes.
    pub(super) last_counts: Mutex<Option<Instant>>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Plain maps: still consistent after a panic elsewhere.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
