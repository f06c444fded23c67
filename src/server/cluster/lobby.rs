//! The lobby across nodes (issue 13): what one node knows of the others' lobbies, and how it
//! talks to them. It owns
//! - who the lobby's owner is (the node holding the store's lease on the key `lobby`; it runs
//!   the challenge registry, every other node forwards challenge operations to it),
//! - the other nodes' presence (their anonymous channels and the users with a channel open
//!   there, each node's latest report, forgotten when older than a lease),
//! - the forwarded operations waiting for their answer (5 s, then `not_available`).
//!
//! It does not deliver to channels (the node's [`crate::server::lobby::channel::hub::Hub`] does,
//! when the bus brings a notice back) nor run challenges ([`crate::server::lobby::challenge`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::lobby_wire::{LOBBY_CHANNEL, Op, Outcome, Wire, node_channel};
use super::{Bus, NodeId};
use crate::server::play::protocol::ChatLineMsg;
use crate::server::players::account::UserId;
use crate::server::store::{Claim, Store};

/// The store key of the lobby's lease (leases are keyed by any string).
pub const LOBBY_LEASE: &str = "lobby";

/// How long a forwarded challenge operation waits for the owner's answer.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(5);

/// Forwarded operations waiting at most (beyond, an ask is refused at once).
const MAX_WAITING: usize = 10_000;

/// A forwarded operation that got no answer (the owner is gone, or the bus is down).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the lobby's owner node did not answer")]
pub struct NoAnswer;

/// One other node's lobby, as it last said.
struct Peer {
    anonymous: u64,
    users: HashSet<UserId>,
    heard: Instant,
}

/// The other nodes' lobbies, each as its latest report said; a node not heard for `lease` is
/// dead or gone and its channels are not counted. Pure (explicit `Instant`s).
pub struct Peers {
    lease: Duration,
    nodes: HashMap<String, Peer>,
}

impl Peers {
    pub fn new(lease: Duration) -> Peers {
        Peers {
            lease,
            nodes: HashMap::new(),
        }
    }

    /// `node`'s report at `now`, replacing its previous one.
    pub fn heard(&mut self, node: String, anonymous: u64, users: Vec<i64>, now: Instant) {
        let users = users.into_iter().map(UserId).collect();
        self.nodes.insert(
            node,
            Peer {
                anonymous,
                users,
                heard: now,
            },
        );
    }

    fn forget_stale(&mut self, now: Instant) {
        let lease = self.lease;
        self.nodes
            .retain(|_, peer| now.saturating_duration_since(peer.heard) < lease);
    }

    /// Whether `user` has a lobby channel open on another live node.
    pub fn present(&mut self, user: UserId, now: Instant) -> bool {
        self.forget_stale(now);
        self.nodes.values().any(|peer| peer.users.contains(&user))
    }

    /// The `online` count over this node (`here`) and every live one: distinct users (one
    /// with pages on two nodes counts once, as one with two pages on one node) and every
    /// anonymous channel.
    pub fn online(&mut self, (anonymous, users): (u64, Vec<UserId>), now: Instant) -> u64 {
        self.forget_stale(now);
        let mut all: HashSet<UserId> = users.into_iter().collect();
        let mut anonymous = anonymous;
        for peer in self.nodes.values() {
            all.extend(peer.users.iter().copied());
            anonymous += peer.anonymous;
        }
        all.len() as u64 + anonymous
    }
}

/// What this node last reported of its own lobby, and when.
struct Reported {
    anonymous: u64,
    users: Vec<i64>,
    at: Instant,
}

/// This node's side of the lobby across nodes.
pub struct LobbyLink {
    bus: Arc<Bus>,
    node: NodeId,
    lease: Duration,
    /// The lobby owner's node id, as the last claim said.
    owner: Mutex<Option<String>>,
    peers: Mutex<Peers>,
    waiting: Mutex<HashMap<u64, oneshot::Sender<Outcome>>>,
    next_ask: AtomicU64,
    reported: Mutex<Option<Reported>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Plain maps: still consistent after a panic elsewhere.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl LobbyLink {
    pub fn new(bus: Arc<Bus>, node: NodeId, lease: Duration) -> LobbyLink {
        LobbyLink {
            bus,
            node,
            lease,
            owner: Mutex::new(None),
            peers: Mutex::new(Peers::new(lease)),
            waiting: Mutex::new(HashMap::new()),
            next_ask: AtomicU64::new(1),
            reported: Mutex::new(None),
        }
    }

    pub fn bus(&self) -> &Arc<Bus> {
        &self.bus
    }

    pub fn node(&self) -> &NodeId {
        &self.node
    }

    /// How often the lease is claimed again and presence reported even when unchanged: a
    /// quarter of the lease ([`super::lease_period`]), so that one lost round never lets
    /// either lapse.
    pub fn refresh_every(&self) -> Duration {
        super::lease_period(self.lease)
    }

    /// Claims (or keeps) the lobby's lease; remembers who owns it. A store failure keeps the
    /// last known owner (logged): the lease itself says who may act once it runs out.
    pub async fn claim(&self, store: &dyn Store) {
        match store
            .claim_game(
                LOBBY_LEASE,
                self.node.as_str(),
                super::lease_ttl(self.lease),
            )
            .await
        {
            Ok(Claim::Owned(fence)) | Ok(Claim::Held(fence)) => {
                let mut owner = lock(&self.owner);
                if owner.as_deref() != Some(fence.node.as_str()) {
                    tracing::info!(owner = %fence.node, "lobby owner");
                }
                *owner = Some(fence.node);
            }
            Err(error) => tracing::warn!(%error, "could not claim the lobby's lease"),
        }
    }

    /// The lobby's owner when it is another node (`None`: this node runs the challenges).
    pub fn remote_owner(&self) -> Option<String> {
        lock(&self.owner)
            .clone()
            .filter(|owner| owner != self.node.as_str())
    }

    fn publish(&self, channel: &str, wire: &Wire) {
        self.bus.publish(channel, wire.to_bytes());
    }

    /// A lobby message's text for every channel of `user` (`None`: all), on every node.
    pub fn notice(&self, user: Option<UserId>, text: String) {
        let wire = Wire::Notice {
            user: user.map(|u| u.0),
            text,
        };
        self.publish(LOBBY_CHANNEL, &wire);
    }

    /// A stored lobby chat line, for every node.
    pub fn chat(&self, line: ChatLineMsg) {
        self.publish(LOBBY_CHANNEL, &Wire::Chat { line });
    }

    /// Reports this node's lobby if it changed since the last report, or a refresh is due.
    pub fn report(&self, (anonymous, mut users): (u64, Vec<UserId>), now: Instant) {
        users.sort();
        let users: Vec<i64> = users.into_iter().map(|u| u.0).collect();
        let mut reported = lock(&self.reported);
        if let Some(last) = reported.as_ref()
            && last.anonymous == anonymous
            && last.users == users
            && now.saturating_duration_since(last.at) < self.refresh_every()
        {
            return;
        }
        let wire = Wire::Presence {
            node: self.node.as_str().to_owned(),
            anonymous,
            users: users.clone(),
        };
        self.publish(LOBBY_CHANNEL, &wire);
        *reported = Some(Reported {
            anonymous,
            users,
            at: now,
        });
    }

    /// Another node's report (this node's own, coming back, is ignored).
    pub fn heard(&self, node: String, anonymous: u64, users: Vec<i64>, now: Instant) {
        if node == self.node.as_str() {
            return;
        }
        lock(&self.peers).heard(node, anonymous, users, now);
    }

    /// Whether `user` has a lobby channel open on another live node.
    pub fn present_elsewhere(&self, user: UserId, now: Instant) -> bool {
        lock(&self.peers).present(user, now)
    }

    /// The `online` count over every live node ([`Peers::online`]).
    pub fn online(&self, here: (u64, Vec<UserId>), now: Instant) -> u64 {
        lock(&self.peers).online(here, now)
    }

    /// Forwards `op` to `owner` and waits for its answer (at most [`ASK_TIMEOUT`]).
    pub async fn ask(&self, owner: &str, op: Op) -> Result<Outcome, NoAnswer> {
        let id = self.next_ask.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut waiting = lock(&self.waiting);
            if waiting.len() >= MAX_WAITING {
                return Err(NoAnswer);
            }
            waiting.insert(id, tx);
        }
        let wire = Wire::Ask {
            id,
            reply_to: self.node.as_str().to_owned(),
            op,
        };
        self.publish(&node_channel(owner), &wire);
        let answer = tokio::time::timeout(ASK_TIMEOUT, rx).await;
        lock(&self.waiting).remove(&id);
        match answer {
            Ok(Ok(outcome)) => Ok(outcome),
            _ => Err(NoAnswer),
        }
    }

    /// Tells the owner that `user` left this node's lobby (no answer awaited).
    pub fn left(&self, owner: &str, user: UserId) {
        self.tell_owner(owner, Op::Left { user: user.0 });
    }

    /// A pool message for the page `conn` of `node`.
    pub fn pool_told(&self, node: &str, conn: u64, text: String) {
        self.publish(&node_channel(node), &Wire::PoolTold { conn, text });
    }

    /// The owner's `pools` message, for every node.
    pub fn pool_counts(&self, text: String) {
        self.publish(LOBBY_CHANNEL, &Wire::PoolCounts { text });
    }

    /// Sends `op` to `owner` without waiting for an answer (a closed page's seek withdrawn).
    pub fn tell_owner(&self, owner: &str, op: Op) {
        let wire = Wire::Ask {
            id: 0,
            reply_to: self.node.as_str().to_owned(),
            op,
        };
        self.publish(&node_channel(owner), &wire);
    }

    /// Sends the answer to a forwarded operation.
    pub fn answer(&self, reply_to: &str, id: u64, outcome: Outcome) {
        self.publish(&node_channel(reply_to), &Wire::Answer { id, outcome });
    }

    /// An answer came: wakes its asker (if still waiting).
    pub fn answered(&self, id: u64, outcome: Outcome) {
        if let Some(tx) = lock(&self.waiting).remove(&id) {
            let _ = tx.send(outcome);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_online_count_counts_a_user_on_two_nodes_once_and_every_anonymous_channel() {
        let now = Instant::now();
        let mut peers = Peers::new(Duration::from_secs(10));
        peers.heard("n2".into(), 2, vec![1, 3], now);
        peers.heard("n3".into(), 1, vec![3], now);
        // Here: one anonymous page and users 1 and 2.
        assert_eq!(peers.online((1, vec![UserId(1), UserId(2)]), now), 3 + 4);
    }

    #[test]
    fn a_node_not_heard_for_a_lease_is_not_counted_and_its_users_are_not_present() {
        let t0 = Instant::now();
        let lease = Duration::from_secs(10);
        let mut peers = Peers::new(lease);
        peers.heard("n2".into(), 5, vec![7], t0);
        let before = t0 + lease - Duration::from_millis(1);
        assert!(peers.present(UserId(7), before));
        assert_eq!(peers.online((0, vec![]), before), 6);
        assert!(!peers.present(UserId(7), t0 + lease));
        assert_eq!(peers.online((0, vec![]), t0 + lease), 0);
    }

    #[test]
    fn a_nodes_new_report_replaces_its_last() {
        let now = Instant::now();
        let mut peers = Peers::new(Duration::from_secs(10));
        peers.heard("n2".into(), 0, vec![7], now);
        peers.heard("n2".into(), 0, vec![8], now);
        assert!(!peers.present(UserId(7), now));
        assert!(peers.present(UserId(8), now));
    }
}
