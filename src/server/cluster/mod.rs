//! Several nodes (issue 13): one PostgreSQL store, a Redis bus between the nodes, and for
//! every live game exactly one owner node, which runs its room. Any node accepts any HTTP
//! request and any WebSocket (no sticky sessions); a node that is not the owner of a game
//! relays its sockets' client messages to the owner and their messages back.
//!
//! | concept | module |
//! |---|---|
//! | a node's name | [`node`] |
//! | the Redis connection: ordered publishing, subscriptions that survive a Redis restart | [`bus`] |
//! | what nodes say to each other about games (lane messages) | [`lane`] |
//! | this node's lane, relays and pending questions | [`link`] |
//! | a stand-in for a game owned by another node | [`relay`] |
//! | the owner's side: remote sockets as room members | [`bridge`] |
//! | renewing leases, stopping rooms whose lease is lost, relays whose owner died | [`lease_loop`] |
//! | adopting games whose owner died | [`orphans`] |
//! | lease and relay figures for `/metrics` | [`figures`] |
//! | the lobby across nodes: its owner, the other nodes' presence, forwarded challenge operations | [`lobby`] |
//! | the lobby's messages between nodes | [`lobby_wire`] |
//!
//! Ownership is a lease in the store with an epoch (a fencing token, [`crate::server::store::Fence`]):
//! commits carry it, so a stale owner can never write. See docs/architecture.md, "Several nodes".

pub mod bridge;
pub mod bus;
pub mod figures;
pub mod games;
pub mod lane;
pub mod lease_loop;
pub mod link;
pub mod lobby;
pub mod lobby_wire;
pub mod node;
pub mod orphans;
pub mod relay;

use std::time::Duration;

pub use self::bus::{Bus, BusError, BusEvent, BusUrl};
pub use self::node::NodeId;

/// `--bus`, `--node-id`, `--lease-secs`: what makes this server one node of several.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    pub bus: BusUrl,
    pub node: NodeId,
    /// `--lease-secs`: within this long of a node's death, its games are owned by others.
    /// See [`lease_ttl`] and [`lease_period`].
    pub lease: Duration,
}

/// How long a granted or renewed lease (and a node's heartbeat) lasts: three quarters of
/// `--lease-secs`. With renewals, and the other nodes' checks for dead owners, every quarter
/// ([`lease_period`]), a dead node's games are taken over at most `ttl + period = lease` after
/// its last renewal, so within `--lease-secs` of its death (the promise; measured in
/// tests/cluster/failover.rs), and a live node may miss two renewals in a row before it loses
/// anything.
pub fn lease_ttl(lease: Duration) -> Duration {
    (lease * 3 / 4).max(Duration::from_millis(150))
}

/// How often leases are renewed and dead owners looked for: a quarter of `--lease-secs` (at
/// least 50 ms).
pub fn lease_period(lease: Duration) -> Duration {
    (lease / 4).max(Duration::from_millis(50))
}
