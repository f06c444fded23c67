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
    /// How long a lease lasts unrenewed: a node that dies loses its games after this long.
    /// Renewed every third of it.
    pub lease: Duration,
}
