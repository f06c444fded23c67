//! Quick pairing (issue 29): one-click pools per clock in the lobby. A page joins a pool with
//! `pool_in` on its lobby channel; the server pairs each pool's queue in waves (every 12-40 s,
//! or at once when it is full) by a minimum-cost matching on rating difference, made lighter
//! for every wave a player missed; each pair's game is made in one commit with both seats
//! taken, and each page is sent its seat. Closing the page or `pool_out` leaves at once.
//!
//! The queues live in memory, as lichess's do: a seek is a page waiting, not a promise to
//! keep across a restart (the page's lobby channel closes with the server, and it joins
//! again). What must survive, the game a pairing made, is committed before anyone is told.
//!
//! | concept | module |
//! |---|---|
//! | the pools offered, their waves | [`catalog`] |
//! | one queue: who may meet whom, at what cost; a wave, pure | [`queue`] |
//! | the most pairs at the least cost (the blossom algorithm) | [`matching`] |
//! | the messages | [`msg`] |
//! | one lobby page's seek | [`seek`] |
//! | several nodes: the pools on the lobby's owner | [`remote`], its state `nodes.rs` |
//! | `GET /api/pools` | [`routes`] |
//! | the queues, the waves' task, the games made | [`Pools`] (here) |

pub mod catalog;
pub mod matching;
pub mod msg;
mod nodes;
pub mod queue;
pub mod remote;
pub mod routes;
pub mod seek;

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, oneshot, watch};

use crate::server::game::TimeControl;
use crate::server::ids;
use crate::server::metrics::Metrics;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::play::room::{ConnId, SeatGrant, rating_now};
use crate::server::play::rooms::Rooms;
use crate::server::players::account::Account;
use crate::server::players::rating::Speed;
use crate::server::safety::blocks::check as blocks;
use crate::server::web::ratelimit::{AddressLimiter, Client};
use catalog::{JITTER, POOLS, QueueKey};
use msg::{PoolCount, PoolMsg, PoolsMsg};
use queue::{Queue, Seek, Seeker};

/// What a seek carries besides its place in the queue: the account that plays (for the game's
/// seat) and where to send the game.
#[derive(Debug)]
pub struct Member {
    pub account: Option<Account>,
    reply: oneshot::Sender<SeekEnd>,
}

/// How a seek ended, as its page is told. A seek dropped without one (the server stopping)
/// closes its receiver instead.
#[derive(Debug)]
pub enum SeekEnd {
    Paired(SeatGrant),
    /// The same account joined a pool from another page.
    Replaced,
}

/// Most seeks waiting at once from one address (an IPv4 address, an IPv6 /64), all pools
/// together: a household behind one address can look for games side by side, while a
/// script with many sockets cannot fill a pool and have the server make its games. An
/// account seeks once, whatever its address: its new seek replaces the earlier one.
pub const MAX_SEEKS_PER_ADDRESS: usize = 4;

/// The lobby page a seek comes from.
#[derive(Clone, Copy, Debug)]
pub struct Page<'a> {
    pub account: Option<&'a Account>,
    pub conn: ConnId,
    pub ip: IpAddr,
}

/// The `pool_paired` message of a seat.
pub(crate) fn paired_msg(key: QueueKey, seat: SeatGrant) -> PoolMsg {
    PoolMsg::PoolPaired(msg::PairedMsg {
        pool: key.pool().id.to_owned(),
        rated: key.rated,
        game: seat.id,
        url: seat.url,
        color: seat.color,
        token: seat.token,
    })
}

/// The `pool_left` message of a seek.
pub(crate) fn left_msg(key: QueueKey, reason: msg::LeftReason) -> PoolMsg {
    PoolMsg::PoolLeft(msg::LeftMsg {
        pool: key.pool().id.to_owned(),
        rated: key.rated,
        reason,
    })
}

/// Every pool's queues, and the latest `pools` message.
pub struct Pools {
    queues: Mutex<Vec<Queue<Member>>>,
    counts: watch::Sender<Arc<str>>,
    /// A join, a leave or a wave changed the counts since they were last sent. They are sent
    /// at a tick at least `counts_every` after the last time: a burst of joins and waves costs
    /// each watching lobby page one message a period, not one per change.
    counts_changed: AtomicBool,
    counts_every: Duration,
    counts_sent: Mutex<Option<Instant>>,
    /// The per-address limit on seats granted, the one `POST /api/games` and `join` draw on:
    /// every `pool_in` takes a grant, as it asks the server for a game.
    seat_grants: Arc<AddressLimiter>,
    /// Several nodes: the link, and the pages waiting across it.
    remote: Arc<nodes::Remote>,
    /// A queue became full: its wave runs now, not at the next tick.
    full: Notify,
    /// Every wave's period, instead of each pool's own (tests); no jitter then.
    wave_every: Option<Duration>,
    metrics: Arc<Metrics>,
}

impl Pools {
    /// The pools, empty, their waves not yet running: the composition root starts them
    /// ([`Pools::spawn`]); a test may call [`Pools::waves`] itself instead.
    /// `counts_every`: the shortest time between two `pools` messages (the lobby's
    /// `online_every`).
    pub fn new(
        (wave_every, counts_every): (Option<Duration>, Duration),
        seat_grants: Arc<AddressLimiter>,
        metrics: Arc<Metrics>,
    ) -> Pools {
        let now = Instant::now();
        let queues = QueueKey::all()
            .map(|key| Queue::new(now, wave_every.unwrap_or(key.pool().every)))
            .collect();
        let pools = Pools {
            queues: Mutex::new(queues),
            counts: watch::Sender::new(Arc::from("")),
            counts_changed: AtomicBool::new(false),
            counts_every,
            counts_sent: Mutex::new(None),
            seat_grants,
            remote: Arc::default(),
            full: Notify::new(),
            wave_every,
            metrics,
        };
        pools.publish_counts();
        pools
    }

    fn queues(&self) -> std::sync::MutexGuard<'_, Vec<Queue<Member>>> {
        // Plain vectors: still consistent after a panic elsewhere.
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The `pools` message, as it changes.
    pub fn counts(&self) -> watch::Receiver<Arc<str>> {
        self.counts.subscribe()
    }

    /// How many wait in each pool, each side.
    pub fn census(&self) -> PoolsMsg {
        let queues = self.queues();
        let pools = POOLS
            .iter()
            .enumerate()
            .map(|(pool, spec)| PoolCount {
                id: spec.id.to_owned(),
                clock: spec.clock,
                rated: queues[QueueKey { pool, rated: true }.index()].len(),
                casual: queues[QueueKey { pool, rated: false }.index()].len(),
            })
            .collect();
        PoolsMsg { pools }
    }

    /// Sends the `pools` message to every watching lobby page if something changed it and
    /// the last one is at least `counts_every` old.
    fn publish_changed_counts(&self) {
        let now = Instant::now();
        {
            let mut sent = self.counts_sent.lock().unwrap_or_else(|e| e.into_inner());
            if sent.is_some_and(|at| now.duration_since(at) < self.counts_every) {
                return;
            }
            if !self.counts_changed.swap(false, Ordering::Relaxed) {
                return;
            }
            *sent = Some(now);
        }
        self.publish_counts();
    }

    /// Sends the `pools` message to every lobby page if it changed (and, on the node that
    /// runs the pools for several, to the other nodes).
    fn publish_counts(&self) {
        let text: Arc<str> = Arc::from(PoolMsg::Pools(self.census()).to_text());
        let changed = self.set_counts(Arc::clone(&text));
        self.share_counts(&text, changed);
    }

    /// Makes `text` the `pools` message of this node's lobby pages; whether it changed.
    fn set_counts(&self, text: Arc<str>) -> bool {
        self.counts.send_if_modified(|old| {
            let changed = *old != text;
            if changed {
                *old = text;
            }
            changed
        })
    }

    /// Takes the seek made by the page `conn` out of every queue.
    fn withdraw_conn(&self, conn: ConnId) {
        let mut queues = self.queues();
        for queue in queues.iter_mut() {
            if queue.remove_conn(conn).is_some() {
                self.counts_changed.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Puts the page `conn` (of `account`, or anonymous, from `page.ip`) in the queue `key`,
    /// out of any other (a seeker waits once); the receiver gets its seat when a wave pairs it,
    /// or `Replaced` if another page of the same account joins.
    /// `blocking`: whom the account may not meet, besides its block relations (issue 32),
    /// read from the store here, as it joins, on the node that runs the pools.
    pub async fn join(
        &self,
        store: &dyn crate::server::store::Store,
        key: QueueKey,
        page: Page<'_>,
        blocking: HashSet<crate::server::domain::user::UserId>,
    ) -> Result<oneshot::Receiver<SeekEnd>, Refusal> {
        let Page { account, conn, ip } = page;
        if account.is_none() && key.rated {
            return Err(Refusal::new(
                ErrorCode::NotLoggedIn,
                "sign in to play rated games; casual pools take anyone",
            ));
        }
        if let Err(limited) = self.seat_grants.check(ip, Instant::now()) {
            self.metrics.rate_limited.fetch_add(1, Ordering::Relaxed);
            return Err(Refusal::new(
                ErrorCode::RateLimited,
                format!(
                    "too many games asked for from your address; try again in {} s",
                    limited.retry_after_secs
                ),
            ));
        }
        let rating = match account {
            None => None,
            Some(account) => {
                let speed = Speed::of(TimeControl::Live(key.pool().clock));
                let rating = rating_now(store, account.id, speed).await?;
                Some(rating.rating.round() as i32)
            }
        };
        let blocking = blocks::pool_blocking(store, account.map(|a| a.id), blocking).await?;
        let client = Client::from(ip);
        let seeker = match account {
            Some(account) => Seeker::Account(account.id),
            None => Seeker::Anonymous(conn),
        };
        let (reply, paired) = oneshot::channel();
        let seek = Seek {
            seeker,
            conn,
            client,
            rating,
            blocking,
            misses: 0,
            payload: Member {
                account: account.cloned(),
                reply,
            },
        };
        let full = {
            let mut queues = self.queues();
            let from_client: usize = queues.iter().map(|q| q.from_client(client, seeker)).sum();
            if from_client >= MAX_SEEKS_PER_ADDRESS {
                return Err(Refusal::new(
                    ErrorCode::RateLimited,
                    format!(
                        "{MAX_SEEKS_PER_ADDRESS} seeks already wait from your address; cancel one first"
                    ),
                ));
            }
            // Any earlier seek of this seeker's, here or in another pool, ends: its page hears
            // `replaced`.
            for queue in queues.iter_mut() {
                if let Some(earlier) = queue.remove(seeker) {
                    let _ = earlier.payload.reply.send(SeekEnd::Replaced);
                }
            }
            let queue = &mut queues[key.index()];
            queue.join(seek);
            queue.due(Instant::now(), key.pool().full)
        };
        if full {
            self.full.notify_one();
        }
        self.counts_changed.store(true, Ordering::Relaxed);
        Ok(paired)
    }

    /// Takes the seek of the page `conn` out of the queue `key`, if it still waits there.
    pub fn leave(&self, key: QueueKey, seeker: Seeker, conn: ConnId) -> bool {
        let left = self.queues()[key.index()].leave(seeker, conn).is_some();
        if left {
            self.counts_changed.store(true, Ordering::Relaxed);
        }
        left
    }

    /// Runs every wave due at `now` and makes the games of its pairs; returns how many games
    /// it made.
    pub async fn waves(&self, rooms: &Rooms, now: Instant) -> usize {
        let mut due = Vec::new();
        {
            let mut queues = self.queues();
            for key in QueueKey::all() {
                let pool = key.pool();
                let queue = &mut queues[key.index()];
                if !queue.due(now, pool.full) {
                    continue;
                }
                let (every, jitter) = match self.wave_every {
                    Some(every) => (every, Duration::ZERO),
                    None => (pool.every, JITTER.mul_f64(rand::random::<f64>())),
                };
                let started = Instant::now();
                let pairs = queue.wave(now, every, jitter);
                self.metrics.pool_wave.observe(started.elapsed());
                due.extend(pairs.into_iter().map(|pair| (key, pair)));
            }
        }
        self.drop_stale_waits();
        if due.is_empty() {
            self.publish_changed_counts();
            let current = Arc::clone(&self.counts.borrow());
            self.share_counts(&current, false);
            return 0;
        }
        self.counts_changed.store(true, Ordering::Relaxed);
        self.publish_changed_counts();
        let made = futures_util::future::join_all(
            due.into_iter()
                .map(|(key, pair)| self.make_game(rooms, key, pair)),
        )
        .await;
        made.into_iter().filter(|made| *made).count()
    }

    /// Makes the game of one pair, colours drawn at random, and sends each page its seat. If
    /// the game cannot be made, both seeks wait again with the waves they had missed.
    async fn make_game(
        &self,
        rooms: &Rooms,
        key: QueueKey,
        pair: (Seek<Member>, Seek<Member>),
    ) -> bool {
        let (white, black) = if ids::coin_flip() {
            (pair.0, pair.1)
        } else {
            (pair.1, pair.0)
        };
        let clock = TimeControl::Live(key.pool().clock);
        let players = [
            white.payload.account.as_ref(),
            black.payload.account.as_ref(),
        ];
        match rooms.create_paired(clock, key.rated, players, None).await {
            Ok([white_seat, black_seat]) => {
                tracing::info!(game = %white_seat.id, pool = key.pool().id, rated = key.rated, "pool pairing");
                // A page that closed meanwhile misses its seat; the game's first-move limit
                // ends it.
                let _ = white.payload.reply.send(SeekEnd::Paired(white_seat));
                let _ = black.payload.reply.send(SeekEnd::Paired(black_seat));
                self.metrics.pool_games.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(refusal) => {
                tracing::warn!(%refusal, pool = key.pool().id, "a pool pairing's game could not be made");
                let mut queues = self.queues();
                for seek in [white, black] {
                    if !seek.payload.reply.is_closed() {
                        queues[key.index()].put_back(seek);
                    }
                }
                self.counts_changed.store(true, Ordering::Relaxed);
                false
            }
        }
    }

    /// How often the waves' task looks at the queues: often enough that a wave is late by
    /// at most a quarter of the shortest period.
    fn tick(&self) -> Duration {
        let shortest = self
            .wave_every
            .unwrap_or_else(|| POOLS.iter().map(|p| p.every).min().unwrap_or(JITTER));
        (shortest / 4).clamp(Duration::from_millis(10), Duration::from_millis(500))
    }

    /// Runs the waves until `shutdown`. Needs a tokio runtime.
    pub fn spawn(self: &Arc<Self>, rooms: Arc<Rooms>, mut shutdown: watch::Receiver<bool>) {
        let pools = Arc::clone(self);
        let tick = self.tick();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(tick);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = shutdown.changed() => break,
                    _ = ticker.tick() => {}
                    _ = pools.full.notified() => {}
                }
                pools.waves(&rooms, Instant::now()).await;
            }
        });
    }
}
