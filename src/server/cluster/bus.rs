//! The Redis bus between nodes (`--bus redis://...`): publish/subscribe, nothing stored in
//! Redis (the store is the truth; the bus only carries what is already committed, or a
//! client's request on its way to the game's owner).
//!
//! Two connections per node, each owned by one task:
//! - the publisher: a redis `ConnectionManager` fed by one bounded queue. [`Bus::publish`]
//!   only pushes into the queue (a room never waits on Redis); the task takes everything
//!   queued (up to [`BATCH`]) and sends it as one pipeline, so messages go out in call order
//!   and a burst costs one round trip. Queue full or Redis down: the message is dropped and
//!   counted; receivers see the hole in their own sequence numbers and resync. A request
//!   that was dropped has no sequence number to miss (a relay's `Connect` to an owner, say),
//!   so when the publisher is back after dropping anything, every subscription of this bus is
//!   told [`BusEvent::Gap`] too: its owner resyncs (and asks again) now that asking works.
//! - the subscriber: one RESP2 pub/sub connection shared by every [`Subscription`]. When it is
//!   lost it is made again (bounded backoff), every channel subscribed again, and every
//!   subscription told [`BusEvent::Gap`].
//!
//! Payloads are never logged: they can carry seat tokens.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, PubSubSink, PubSubStream};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::{Instant, timeout};

/// Messages waiting to be published, at most; beyond it `publish` drops.
pub const QUEUE: usize = 65_536;
/// PUBLISH commands sent in one pipeline, at most.
pub const BATCH: usize = 512;
/// First wait before connecting again after a loss; doubles up to [`BACKOFF_MAX`].
const BACKOFF_MIN: Duration = Duration::from_millis(50);
const BACKOFF_MAX: Duration = Duration::from_secs(1);
/// A Redis command (a pipeline, a ping, a SUBSCRIBE) that takes longer than this failed.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(2);
/// The publisher pings when it had nothing to send for this long, so that `connected` (and
/// the reconnect) does not wait for the next message.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How often the subscriber retries handing a pending `Gap` to a full subscription.
const GAP_RETRY: Duration = Duration::from_millis(20);
/// How long `close` waits for the publishing queue to drain.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// `--bus`: `redis://[user:password@]host[:port][/db]`, `redis+unix:///path/to/redis.sock`
/// or `unix:///path/to/redis.sock`. Its `Debug` and `Display` hide a password.
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

    fn from_str(s: &str) -> Result<BusUrl, BadBusUrl> {
        let bad = |why: &str| BadBusUrl(why.to_string());
        let Some((scheme, rest)) = s.split_once("://") else {
            return Err(bad(
                "expected redis://host[:port][/db] or redis+unix:///path/to/redis.sock",
            ));
        };
        match scheme {
            "redis" => {
                let (authority, path) = match rest.split_once('/') {
                    Some((a, p)) => (a, p),
                    None => (rest, ""),
                };
                let host_port = match authority.rsplit_once('@') {
                    Some((_, h)) => h,
                    None => authority,
                };
                let host = if let Some(bracketed) = host_port.strip_prefix('[') {
                    // An IPv6 literal: [::1]:6379.
                    let Some((host, after)) = bracketed.split_once(']') else {
                        return Err(bad("an IPv6 host needs its closing ]"));
                    };
                    if !after.is_empty() && !after.starts_with(':') {
                        return Err(bad("unexpected text after the IPv6 host"));
                    }
                    check_port(after.strip_prefix(':'))?;
                    host
                } else {
                    let (host, port) = match host_port.split_once(':') {
                        Some((h, p)) => (h, Some(p)),
                        None => (host_port, None),
                    };
                    check_port(port)?;
                    host
                };
                if host.is_empty() {
                    return Err(bad("no host in the redis:// URL"));
                }
                let db = path.split('?').next().unwrap_or_default();
                if !db.is_empty() && db.parse::<u32>().is_err() {
                    return Err(bad("the path of a redis:// URL is a database number"));
                }
            }
            "redis+unix" | "unix" => {
                let path = rest.split('?').next().unwrap_or_default();
                if !path.starts_with('/') || path.len() < 2 {
                    return Err(bad(
                        "a unix socket URL needs an absolute path: redis+unix:///path/to/redis.sock",
                    ));
                }
            }
            "rediss" => {
                return Err(bad(
                    "rediss:// (TLS) is not supported: this build has no TLS for Redis; \
                     use redis:// on a private network or redis+unix:///path",
                ));
            }
            _ => {
                return Err(bad("the scheme must be redis://, redis+unix:// or unix://"));
            }
        }
        Ok(BusUrl(s.to_string()))
    }
}

fn check_port(port: Option<&str>) -> Result<(), BadBusUrl> {
    match port {
        None => Ok(()),
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => Ok(()),
            _ => Err(BadBusUrl(
                "the port of a redis:// URL is a number from 1 to 65535".to_string(),
            )),
        },
    }
}

impl fmt::Display for BusUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some((scheme, rest)) = self.0.split_once("://") else {
            return f.write_str(&self.0);
        };
        write!(f, "{scheme}://")?;
        // Network form: user:password@ before the host; the unix form has none (its
        // password, if any, is a `pass=` query parameter, handled below).
        let (authority, tail) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        match authority.rsplit_once('@') {
            Some((userinfo, host)) => match userinfo.split_once(':') {
                Some((user, _password)) => write!(f, "{user}:***@{host}")?,
                None => write!(f, "***@{host}")?,
            },
            None => f.write_str(authority)?,
        }
        match tail.split_once('?') {
            None => f.write_str(tail),
            Some((path, query)) => {
                write!(f, "{path}?")?;
                for (i, pair) in query.split('&').enumerate() {
                    if i > 0 {
                        f.write_str("&")?;
                    }
                    match pair.split_once('=') {
                        Some((key, _)) if key == "pass" || key == "password" => {
                            write!(f, "{key}=***")?
                        }
                        _ => f.write_str(pair)?,
                    }
                }
                Ok(())
            }
        }
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

impl From<redis::RedisError> for BusError {
    fn from(e: redis::RedisError) -> BusError {
        BusError::Redis(e.to_string())
    }
}

/// What a subscription receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusEvent {
    /// One message published on the channel, in publishing order (per publisher).
    Message(Vec<u8>),
    /// Messages of this channel may have been lost just before this point: the subscriber
    /// connection was lost and is back (Redis restarted), this subscription's queue was
    /// full, or this bus dropped messages it was to publish and can publish again. Whoever relies on the channel resyncs from the store or the owner.
    Gap,
}

/// A subscription to one channel; dropping it unsubscribes (Redis is told when the last
/// subscription of the channel on this node goes). `events` ends (`None`) when the bus is
/// closed or dropped.
pub struct Subscription {
    pub events: mpsc::Receiver<BusEvent>,
    channel: String,
    id: u64,
    commands: mpsc::WeakUnboundedSender<Command>,
}

impl Subscription {
    /// The next event; `None` once the bus is closed.
    pub async fn recv(&mut self) -> Option<BusEvent> {
        self.events.recv().await
    }

    pub fn channel(&self) -> &str {
        &self.channel
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(commands) = self.commands.upgrade() {
            // The subscriber task is gone when this fails: nothing left to unsubscribe.
            let _ = commands.send(Command::Unsubscribe {
                channel: std::mem::take(&mut self.channel),
                id: self.id,
            });
        }
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("channel", &self.channel)
            .field("id", &self.id)
            .finish()
    }
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

/// The counters both tasks and `publish` update.
#[derive(Default)]
struct Shared {
    publisher_up: AtomicBool,
    subscriber_up: AtomicBool,
    closed: AtomicBool,
    published: AtomicU64,
    dropped: AtomicU64,
    /// `publish` dropped a message (queue full) that the publisher has not yet counted as
    /// one of its own drops (so its next success tells the subscriptions `Gap`).
    queue_dropped: AtomicBool,
    received: AtomicU64,
    reconnects: AtomicU64,
}

enum Outgoing {
    Message {
        channel: String,
        payload: Vec<u8>,
    },
    /// Sent by `close`: everything queued before it is sent, then the publisher stops.
    Flush(oneshot::Sender<()>),
}

enum Command {
    Subscribe {
        channel: String,
        capacity: usize,
        reply: oneshot::Sender<Result<Subscription, BusError>>,
    },
    Unsubscribe {
        channel: String,
        id: u64,
    },
    /// The publisher is back after dropping messages: every subscription gets a `Gap`.
    PublisherBack,
    Close,
}

/// The connection to Redis: one publishing connection fed by one queue (so messages go out
/// in the order `publish` was called, pipelined), one subscribing connection shared by every
/// subscription; both reconnect by themselves, and subscriptions are made again after a
/// reconnect (each told [`BusEvent::Gap`]).
pub struct Bus {
    shared: Arc<Shared>,
    queue: mpsc::Sender<Outgoing>,
    commands: mpsc::UnboundedSender<Command>,
    /// For `ping`: a clone of the publisher's multiplexed connection.
    connection: ConnectionManager,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl fmt::Debug for Bus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bus").field("stats", &self.stats()).finish()
    }
}

impl Bus {
    /// Connects (the first connection must succeed: a node does not start without its bus).
    pub async fn connect(url: &BusUrl) -> Result<Arc<Bus>, BusError> {
        let client = redis::Client::open(url.expose())?;
        let config = ConnectionManagerConfig::new()
            .set_min_delay(BACKOFF_MIN)
            .set_max_delay(BACKOFF_MAX)
            .set_exponent_base(2.0)
            // One attempt per command while Redis is down: the publisher's own backoff
            // decides when to try again, and a failed attempt must not hold the queue.
            .set_number_of_retries(1)
            .set_connection_timeout(Some(COMMAND_TIMEOUT))
            .set_response_timeout(Some(COMMAND_TIMEOUT));
        let connection = timeout(
            COMMAND_TIMEOUT * 2,
            ConnectionManager::new_with_config(client.clone(), config),
        )
        .await
        .map_err(|_| BusError::Redis("timed out connecting to Redis".to_string()))??;
        let (sink, stream) = open_pubsub(&client).await?;

        let shared = Arc::new(Shared::default());
        shared.publisher_up.store(true, Ordering::Relaxed);
        shared.subscriber_up.store(true, Ordering::Relaxed);
        let (queue, outgoing) = mpsc::channel(QUEUE);
        let (commands, incoming) = mpsc::unbounded_channel();
        let publisher = tokio::spawn(publisher(
            connection.clone(),
            outgoing,
            shared.clone(),
            commands.downgrade(),
        ));
        let subscriber = Subscriber {
            client,
            shared: shared.clone(),
            commands: commands.downgrade(),
            channels: HashMap::new(),
            next_id: 0,
        };
        let subscriber = tokio::spawn(subscriber.run(sink, stream, incoming));
        Ok(Arc::new(Bus {
            shared,
            queue,
            commands,
            connection,
            tasks: Mutex::new(vec![publisher, subscriber]),
        }))
    }

    /// Queues `payload` for `channel`; never waits. Messages of one `Bus` are published in
    /// call order. A full queue (or Redis down) drops it and counts it in `dropped`:
    /// receivers see the gap in their own sequence numbers and resync.
    pub fn publish(&self, channel: &str, payload: Vec<u8>) {
        let message = Outgoing::Message {
            channel: channel.to_string(),
            payload,
        };
        if self.shared.closed.load(Ordering::Relaxed) || self.queue.try_send(message).is_err() {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            self.shared.queue_dropped.store(true, Ordering::Relaxed);
        }
    }

    /// Subscribes to `channel` (resolved once Redis confirmed it); `capacity` bounds the
    /// subscription's queue. Fails while the subscriber connection is down.
    pub async fn subscribe(
        &self,
        channel: &str,
        capacity: usize,
    ) -> Result<Subscription, BusError> {
        if self.shared.closed.load(Ordering::Relaxed) {
            return Err(BusError::Closed);
        }
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(Command::Subscribe {
                channel: channel.to_string(),
                capacity: capacity.max(1),
                reply,
            })
            .map_err(|_| BusError::Closed)?;
        answer.await.map_err(|_| BusError::Closed)?
    }

    /// A round trip to Redis (`/healthz`).
    pub async fn ping(&self) -> Result<Duration, BusError> {
        if self.shared.closed.load(Ordering::Relaxed) {
            return Err(BusError::Closed);
        }
        let mut connection = self.connection.clone();
        let start = Instant::now();
        let pong: Result<String, _> = timeout(
            COMMAND_TIMEOUT,
            redis::cmd("PING").query_async(&mut connection),
        )
        .await
        .map_err(|_| BusError::Redis("ping timed out".to_string()))?;
        pong?;
        Ok(start.elapsed())
    }

    pub fn stats(&self) -> BusStats {
        let s = &self.shared;
        BusStats {
            connected: s.publisher_up.load(Ordering::Relaxed)
                && s.subscriber_up.load(Ordering::Relaxed),
            published: s.published.load(Ordering::Relaxed),
            dropped: s.dropped.load(Ordering::Relaxed),
            received: s.received.load(Ordering::Relaxed),
            reconnects: s.reconnects.load(Ordering::Relaxed),
        }
    }

    /// Flushes the publishing queue (bounded) and closes both connections. Subscriptions
    /// then end (`recv` returns `None`).
    pub async fn close(&self) {
        if self.shared.closed.swap(true, Ordering::Relaxed) {
            return;
        }
        let (done, flushed) = oneshot::channel();
        let _ = timeout(CLOSE_TIMEOUT, async {
            if self.queue.send(Outgoing::Flush(done)).await.is_ok() {
                let _ = flushed.await;
            }
        })
        .await;
        let _ = self.commands.send(Command::Close);
        let tasks = match self.tasks.lock() {
            Ok(mut tasks) => std::mem::take(&mut *tasks),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        };
        for task in tasks {
            task.abort_handle().abort();
            let _ = task.await;
        }
        self.shared.publisher_up.store(false, Ordering::Relaxed);
        self.shared.subscriber_up.store(false, Ordering::Relaxed);
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        if let Ok(tasks) = self.tasks.get_mut() {
            for task in tasks.iter() {
                task.abort();
            }
        }
    }
}

/// 50 ms, 100 ms, ... up to 1 s between attempts; reset once connected.
struct Backoff(Duration);

impl Backoff {
    fn new() -> Backoff {
        Backoff(BACKOFF_MIN)
    }

    fn next(&mut self) -> Duration {
        let wait = self.0;
        self.0 = (self.0 * 2).min(BACKOFF_MAX);
        wait
    }

    fn reset(&mut self) {
        self.0 = BACKOFF_MIN;
    }
}

/// The publishing connection's state, as the publisher task sees it.
struct Link {
    shared: Arc<Shared>,
    backoff: Backoff,
    /// While down: no attempt before this instant (messages meanwhile are dropped).
    retry_at: Option<Instant>,
    /// Messages were dropped since the connection was last up.
    dropped_since_up: bool,
    /// The subscriber task, told when the publisher is back after dropping messages.
    subscriber: mpsc::WeakUnboundedSender<Command>,
}

impl Link {
    fn may_try(&self) -> bool {
        self.retry_at.is_none_or(|at| Instant::now() >= at)
    }

    fn up(&mut self) {
        if self.retry_at.take().is_some() {
            self.shared.reconnects.fetch_add(1, Ordering::Relaxed);
            tracing::info!("bus: the publishing connection to Redis is back");
        }
        let queue_dropped = self.shared.queue_dropped.swap(false, Ordering::Relaxed);
        if (std::mem::take(&mut self.dropped_since_up) || queue_dropped)
            && let Some(subscriber) = self.subscriber.upgrade()
        {
            let _ = subscriber.send(Command::PublisherBack);
        }
        self.backoff.reset();
        self.shared.publisher_up.store(true, Ordering::Relaxed);
    }

    fn dropped(&mut self, count: u64) {
        self.shared.dropped.fetch_add(count, Ordering::Relaxed);
        self.dropped_since_up = true;
    }

    fn down(&mut self, why: &str) {
        if self.retry_at.is_none() {
            tracing::warn!("bus: the publishing connection to Redis is lost ({why})");
        }
        self.shared.publisher_up.store(false, Ordering::Relaxed);
        self.retry_at = Some(Instant::now() + self.backoff.next());
    }
}

async fn publisher(
    mut connection: ConnectionManager,
    mut queue: mpsc::Receiver<Outgoing>,
    shared: Arc<Shared>,
    subscriber: mpsc::WeakUnboundedSender<Command>,
) {
    let mut link = Link {
        shared: shared.clone(),
        backoff: Backoff::new(),
        retry_at: None,
        dropped_since_up: false,
        subscriber,
    };
    let mut batch: Vec<(String, Vec<u8>)> = Vec::with_capacity(BATCH);
    loop {
        let first = match timeout(HEARTBEAT, queue.recv()).await {
            Ok(Some(first)) => first,
            Ok(None) => return,
            Err(_idle) => {
                if link.may_try() {
                    let pong: Result<Result<String, _>, _> = timeout(
                        COMMAND_TIMEOUT,
                        redis::cmd("PING").query_async(&mut connection),
                    )
                    .await;
                    match pong {
                        Ok(Ok(_)) => link.up(),
                        Ok(Err(e)) => link.down(&e.to_string()),
                        Err(_) => link.down("ping timed out"),
                    }
                }
                continue;
            }
        };
        let mut flush = None;
        let mut next = Some(first);
        while let Some(item) = next.take() {
            match item {
                Outgoing::Message { channel, payload } => batch.push((channel, payload)),
                Outgoing::Flush(done) => {
                    flush = Some(done);
                    break;
                }
            }
            if batch.len() < BATCH {
                next = queue.try_recv().ok();
            }
        }
        if !batch.is_empty() {
            send_batch(&mut connection, &mut batch, &mut link).await;
        }
        if let Some(done) = flush {
            let _ = done.send(());
            return;
        }
    }
}

/// Sends `batch` as one pipeline (emptying it), or drops it while Redis is down.
async fn send_batch(
    connection: &mut ConnectionManager,
    batch: &mut Vec<(String, Vec<u8>)>,
    link: &mut Link,
) {
    let count = batch.len() as u64;
    if !link.may_try() {
        batch.clear();
        link.dropped(count);
        return;
    }
    let mut pipe = redis::pipe();
    for (channel, payload) in batch.drain(..) {
        pipe.cmd("PUBLISH").arg(channel).arg(payload).ignore();
    }
    let sent: Result<Result<(), _>, _> =
        timeout(COMMAND_TIMEOUT, pipe.query_async(connection)).await;
    match sent {
        Ok(Ok(())) => {
            link.shared.published.fetch_add(count, Ordering::Relaxed);
            link.up();
        }
        Ok(Err(e)) => {
            link.dropped(count);
            link.down(&e.to_string());
        }
        Err(_) => {
            link.dropped(count);
            link.down("publishing timed out");
        }
    }
}

async fn open_pubsub(client: &redis::Client) -> Result<(PubSubSink, PubSubStream), BusError> {
    let pubsub = timeout(COMMAND_TIMEOUT, client.get_async_pubsub())
        .await
        .map_err(|_| BusError::Redis("timed out connecting to Redis".to_string()))??;
    Ok(pubsub.split())
}

/// One local subscription: where its messages go, and whether it owes a `Gap`.
struct Local {
    id: u64,
    events: mpsc::Sender<BusEvent>,
    gap_pending: bool,
}

impl Local {
    /// Hands `event` over without waiting: a full queue turns into a pending `Gap`.
    /// False when the subscription's receiver is gone.
    fn deliver(&mut self, event: BusEvent) -> bool {
        if self.gap_pending && !self.flush_gap() {
            return !self.events.is_closed();
        }
        match self.events.try_send(event) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.gap_pending = true;
                true
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Tries to hand over the pending `Gap`; true once it is handed over.
    fn flush_gap(&mut self) -> bool {
        match self.events.try_send(BusEvent::Gap) {
            Ok(()) => {
                self.gap_pending = false;
                true
            }
            Err(_) => false,
        }
    }
}

/// The subscriber task's state: the channels subscribed in Redis and their local subscribers.
struct Subscriber {
    client: redis::Client,
    shared: Arc<Shared>,
    commands: mpsc::WeakUnboundedSender<Command>,
    channels: HashMap<String, Vec<Local>>,
    next_id: u64,
}

impl Subscriber {
    async fn run(
        mut self,
        mut sink: PubSubSink,
        mut stream: PubSubStream,
        mut commands: mpsc::UnboundedReceiver<Command>,
    ) {
        let mut gap_timer = tokio::time::interval(GAP_RETRY);
        loop {
            let any_gap_pending = self
                .channels
                .values()
                .any(|locals| locals.iter().any(|l| l.gap_pending));
            tokio::select! {
                biased;
                command = commands.recv() => match command {
                    None | Some(Command::Close) => return,
                    Some(command) => self.command(&mut sink, command).await,
                },
                message = stream.next() => match message {
                    Some(message) => self.dispatch(message),
                    None => {
                        tracing::warn!("bus: the subscribing connection to Redis is lost");
                        self.shared.subscriber_up.store(false, Ordering::Relaxed);
                        match self.reconnect(&mut commands).await {
                            Some((s, st)) => {
                                sink = s;
                                stream = st;
                            }
                            None => return,
                        }
                    }
                },
                _ = gap_timer.tick(), if any_gap_pending => {
                    for locals in self.channels.values_mut() {
                        for local in locals.iter_mut().filter(|l| l.gap_pending) {
                            local.flush_gap();
                        }
                    }
                }
            }
        }
    }

    async fn command(&mut self, sink: &mut PubSubSink, command: Command) {
        match command {
            Command::Subscribe {
                channel,
                capacity,
                reply,
            } => {
                let answer = self.subscribe(sink, channel, capacity).await;
                // The caller gave up waiting: its Subscription drops and unsubscribes.
                let _ = reply.send(answer);
            }
            Command::Unsubscribe { channel, id } => {
                let Some(locals) = self.channels.get_mut(&channel) else {
                    return;
                };
                locals.retain(|l| l.id != id);
                if locals.is_empty() {
                    self.channels.remove(&channel);
                    if self.shared.subscriber_up.load(Ordering::Relaxed) {
                        // A failure here means the connection is lost; the reconnect
                        // subscribes only the channels still wanted.
                        let _ = timeout(COMMAND_TIMEOUT, sink.unsubscribe(&channel)).await;
                    }
                }
            }
            Command::PublisherBack => {
                for locals in self.channels.values_mut() {
                    for local in locals.iter_mut() {
                        local.gap_pending = true;
                        local.flush_gap();
                    }
                }
            }
            Command::Close => {}
        }
    }

    async fn subscribe(
        &mut self,
        sink: &mut PubSubSink,
        channel: String,
        capacity: usize,
    ) -> Result<Subscription, BusError> {
        if !self.shared.subscriber_up.load(Ordering::Relaxed) {
            return Err(BusError::Redis(
                "the subscribing connection to Redis is down".to_string(),
            ));
        }
        if !self.channels.contains_key(&channel) {
            timeout(COMMAND_TIMEOUT, sink.subscribe(&channel))
                .await
                .map_err(|_| BusError::Redis("SUBSCRIBE timed out".to_string()))??;
        }
        let (events, receiver) = mpsc::channel(capacity);
        let id = self.next_id;
        self.next_id += 1;
        self.channels
            .entry(channel.clone())
            .or_default()
            .push(Local {
                id,
                events,
                gap_pending: false,
            });
        Ok(Subscription {
            events: receiver,
            channel,
            id,
            commands: self.commands.clone(),
        })
    }

    fn dispatch(&mut self, message: redis::Msg) {
        self.shared.received.fetch_add(1, Ordering::Relaxed);
        let channel = message.get_channel_name();
        let Some(locals) = self.channels.get_mut(channel) else {
            // Unsubscribed a moment ago: the message was already on its way.
            return;
        };
        let payload = message.get_payload_bytes();
        locals.retain_mut(|local| local.deliver(BusEvent::Message(payload.to_vec())));
    }

    /// Connects again (backoff 50 ms to 1 s, for as long as it takes), subscribes every
    /// channel still wanted, and tells every subscription `Gap`. Subscribe commands meanwhile
    /// fail; unsubscribes are applied. None when the bus is closed meanwhile.
    async fn reconnect(
        &mut self,
        commands: &mut mpsc::UnboundedReceiver<Command>,
    ) -> Option<(PubSubSink, PubSubStream)> {
        let mut backoff = Backoff::new();
        loop {
            let wait = tokio::time::sleep(backoff.next());
            tokio::pin!(wait);
            loop {
                tokio::select! {
                    _ = &mut wait => break,
                    command = commands.recv() => match command {
                        None | Some(Command::Close) => return None,
                        Some(Command::Subscribe { reply, .. }) => {
                            let _ = reply.send(Err(BusError::Redis(
                                "the subscribing connection to Redis is down".to_string(),
                            )));
                        }
                        // The reconnect tells every subscription `Gap` anyway.
                        Some(Command::PublisherBack) => {}
                        Some(Command::Unsubscribe { channel, id }) => {
                            if let Some(locals) = self.channels.get_mut(&channel) {
                                locals.retain(|l| l.id != id);
                                if locals.is_empty() {
                                    self.channels.remove(&channel);
                                }
                            }
                        }
                    },
                }
            }
            let Ok((mut sink, stream)) = open_pubsub(&self.client).await else {
                continue;
            };
            let wanted: Vec<&String> = self.channels.keys().collect();
            if !wanted.is_empty() {
                match timeout(COMMAND_TIMEOUT, sink.subscribe(&wanted)).await {
                    Ok(Ok(())) => {}
                    _ => continue,
                }
            }
            for locals in self.channels.values_mut() {
                locals.retain_mut(|local| {
                    local.gap_pending = true;
                    local.flush_gap();
                    !local.events.is_closed()
                });
            }
            self.shared.subscriber_up.store(true, Ordering::Relaxed);
            self.shared.reconnects.fetch_add(1, Ordering::Relaxed);
            tracing::info!(
                channels = self.channels.len(),
                "bus: the subscribing connection to Redis is back, channels subscribed again"
            );
            return Some((sink, stream));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Result<BusUrl, BadBusUrl> {
        s.parse()
    }

    #[test]
    fn a_redis_url_with_host_port_and_database_is_accepted() {
        for ok in [
            "redis://127.0.0.1",
            "redis://127.0.0.1:6379",
            "redis://127.0.0.1:6379/2",
            "redis://localhost/0",
            "redis://user:secret@10.0.0.5:6380/1",
            "redis://:secret@10.0.0.5",
            "redis://[::1]:6379",
        ] {
            assert!(url(ok).is_ok(), "{ok} should be accepted");
        }
    }

    #[test]
    fn a_unix_socket_url_is_accepted() {
        assert!(url("redis+unix:///run/redis/redis.sock").is_ok());
        assert!(url("unix:///tmp/x/redis.sock").is_ok());
    }

    #[test]
    fn a_url_that_is_no_redis_url_is_refused() {
        for bad in [
            "",
            "127.0.0.1:6379",
            "http://127.0.0.1",
            "redis://",
            "redis://:6379",
            "redis://host:port",
            "redis://host:0",
            "redis://host:70000",
            "redis://host/db",
            "redis+unix://relative/path",
            "redis+unix:///",
            "redis://[::1",
        ] {
            assert!(url(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn a_tls_url_is_refused_saying_tls_is_not_built_in() {
        let err = url("rediss://redis.example:6380").unwrap_err();
        assert!(err.to_string().contains("TLS"), "{err}");
    }

    #[test]
    fn display_and_debug_hide_the_password() {
        let u = url("redis://admin:hunter2@10.0.0.5:6379/1").unwrap();
        assert_eq!(u.to_string(), "redis://admin:***@10.0.0.5:6379/1");
        assert_eq!(format!("{u:?}"), "redis://admin:***@10.0.0.5:6379/1");
        let u = url("redis://:hunter2@host").unwrap();
        assert_eq!(u.to_string(), "redis://:***@host");
        let u = url("redis://hunter2@host").unwrap();
        assert_eq!(u.to_string(), "redis://***@host");
        let u = url("redis+unix:///run/redis.sock?db=1&pass=hunter2").unwrap();
        assert_eq!(u.to_string(), "redis+unix:///run/redis.sock?db=1&pass=***");
        assert!(u.expose().contains("hunter2"));
    }

    #[test]
    fn display_without_a_password_is_the_url_itself() {
        for s in ["redis://127.0.0.1:6379/0", "redis+unix:///tmp/r.sock"] {
            assert_eq!(url(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn the_backoff_doubles_from_50_ms_to_at_most_1_s_and_resets() {
        let mut b = Backoff::new();
        let waits: Vec<u128> = (0..7).map(|_| b.next().as_millis()).collect();
        assert_eq!(waits, [50, 100, 200, 400, 800, 1000, 1000]);
        b.reset();
        assert_eq!(b.next(), BACKOFF_MIN);
    }
}
