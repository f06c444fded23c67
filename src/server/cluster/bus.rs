//! The Redis bus between nodes (`--bus redis://...`): publish/subscribe, nothing stored in
//! Redis (the store is the truth; the bus only carries what is already committed, or a
//! client's request on its way to the game's owner).
//!
//! INTERFACE (issue 13, round 1): the bodies are being written; the signatures are what the
//! rest of the server builds against.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

/// `--bus`: `redis://[:password@]host:port[/db]` or `redis+unix:///path/to/redis.sock`.
/// Its `Debug` and `Display` hide a password.
#[derive(Clone, PartialEq, Eq)]
pub struct BusUrl(String);

/// A `--bus` value that is no Redis URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad --bus: {0}")]
pub struct BadBusUrl(pub String);

impl BusUrl {
    /// The URL with its password, for the Redis client only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl FromStr for BusUrl {
    type Err = BadBusUrl;

    fn from_str(_s: &str) -> Result<BusUrl, BadBusUrl> {
        todo!("issue 13 round 1: bus helper")
    }
}

impl fmt::Display for BusUrl {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!("issue 13 round 1: bus helper")
    }
}

impl fmt::Debug for BusUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// Redis could not be reached or refused a command.
    #[error("bus: {0}")]
    Redis(String),
    /// [`Bus::close`] was called.
    #[error("the bus is closed")]
    Closed,
}

/// What a subscription receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusEvent {
    /// One message published on the channel, in publishing order (per publisher).
    Message(Vec<u8>),
    /// Messages of this channel may have been lost just before this point: the subscriber
    /// connection was lost and is back (Redis restarted), or this subscription's queue was
    /// full. Whoever relies on the channel resyncs from the store or the owner.
    Gap,
}

/// A subscription to one channel; dropping it unsubscribes.
pub struct Subscription {
    pub events: mpsc::Receiver<BusEvent>,
}

/// Counters for `/metrics` and `/healthz`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BusStats {
    /// Whether the publishing and the subscribing connections are both up now.
    pub connected: bool,
    pub published: u64,
    /// Messages not published because the publishing queue was full or Redis was down.
    pub dropped: u64,
    pub received: u64,
    /// Times a connection to Redis was established again after it was lost.
    pub reconnects: u64,
}

/// The connection to Redis: one publishing connection fed by one queue (so messages go out
/// in the order `publish` was called, pipelined), one subscribing connection shared by every
/// subscription; both reconnect by themselves, and subscriptions are made again after a
/// reconnect (each told [`BusEvent::Gap`]).
pub struct Bus {
    _private: (),
}

impl Bus {
    /// Connects (the first connection must succeed: a node does not start without its bus).
    pub async fn connect(_url: &BusUrl) -> Result<Arc<Bus>, BusError> {
        todo!("issue 13 round 1: bus helper")
    }

    /// Queues `payload` for `channel`; never waits. Messages of one `Bus` are published in
    /// call order. A full queue (or Redis down) drops it and counts it in `dropped`:
    /// receivers see the gap in their own sequence numbers and resync.
    pub fn publish(&self, _channel: &str, _payload: Vec<u8>) {
        todo!("issue 13 round 1: bus helper")
    }

    /// Subscribes to `channel` (resolved once Redis confirmed it); `capacity` bounds the
    /// subscription's queue.
    pub async fn subscribe(
        &self,
        _channel: &str,
        _capacity: usize,
    ) -> Result<Subscription, BusError> {
        todo!("issue 13 round 1: bus helper")
    }

    /// A round trip to Redis (`/healthz`).
    pub async fn ping(&self) -> Result<Duration, BusError> {
        todo!("issue 13 round 1: bus helper")
    }

    pub fn stats(&self) -> BusStats {
        todo!("issue 13 round 1: bus helper")
    }

    /// Flushes the publishing queue (bounded) and closes both connections.
    pub async fn close(&self) {
        todo!("issue 13 round 1: bus helper")
    }
}
