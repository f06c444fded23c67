//! One live game as an actor: a task that owns the [`GameState`] and handles [`Command`]s one
//! at a time, with its timers. Serializing a game's commands in one task is what keeps the move
//! path simple, with no lock at all, let alone one held across the store's `.await`:
//!
//! ```text
//! Act{conn, msg} -> timeouts -> decide (complete: [Move] or [Move, End]) -> store commit
//!     Err -> refusal to the actor; nothing to undo (nothing was applied)
//!     Ok  -> apply each (cannot fail) -> project each to its message (serialized once)
//!         -> history, fan-out to every subscriber, ack to the actor
//! ```
//!
//! A subscriber is a socket or an in-process agent (a computer player): both connect with an
//! [`Outbox`] and act with [`Command::Act`], so both go through the same decisions and the same
//! ack-id idempotency. Who is here is [`crowd`], what a reconnecting client missed is
//! [`history`], delivery is [`fanout`]; the room reaches the rest of the server through
//! [`RoomDeps`] only.

mod act;
pub mod agent;
mod blocks;
pub mod chat;
pub mod chat_member;
mod connect;
pub mod crowd;
pub mod fanout;
pub mod history;
pub mod mailbox;
mod path;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use tokio::sync::{oneshot, watch};
use tokio_tungstenite::tungstenite::Utf8Bytes;

pub use self::act::rating_now;
use self::crowd::{Crowd, Member};
pub use self::fanout::{ConnId, Outbox};
use self::fanout::{Fanout, LocalFanout};
use self::history::History;
pub use self::history::replay_history;
use crate::server::computer::ComputerProof;
use crate::server::config::{Config, PanicSite};
use crate::server::game::{Decided, GameState, HouseRules, Input, now_ms};
use crate::server::metrics::Metrics;
use crate::server::play::export;
use crate::server::play::project;
use crate::server::play::protocol::{
    AckMsg, ClientMsg, ErrorCode, GameSnapshot, RatingsMsg, Refusal, ServerMsg, SharedText, Side,
};
use crate::server::players::account::{Account, UserId};
use crate::server::store::{DeadlineChange, Fence, GameStatus, Store};
use crate::server::web::bucket::TokenBucket;
use crate::server::web::rtt::RttEstimate;

/// Commands a room's inbox holds before senders wait.
const INBOX: usize = 256;

/// A seat handed to a player: the HTTP reply to create / join. Holds a seat token, so its
/// `Debug` does not show it (secrets are never logged).
#[derive(Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SeatGrant {
    pub id: String,
    pub color: Side,
    pub token: String,
    pub url: String,
}

impl std::fmt::Debug for SeatGrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeatGrant")
            .field("id", &self.id)
            .field("color", &self.color)
            .field("token", &"<secret>")
            .field("url", &self.url)
            .finish()
    }
}

/// What a room needs from the server that hosts it: the registry implements it (so the room
/// does not depend on the registry's module, nor the registry on the room's internals).
pub trait Host: Send + Sync + 'static {
    /// The room has stopped for good: forget it, unless a newer instance replaced it.
    fn retired(&self, id: &str, instance: u64);
    /// A new game, the rematch of the finished game `rematch_of`, is committed: start its room
    /// (with its public messages so far).
    fn start(&self, state: GameState, recent: Vec<(u64, String)>, rematch_of: &str);
    /// A commit (or a reload from the store) changed game `id`'s status: what its creator's
    /// slots hold follows ([`crate::server::per_client::games`]).
    fn status_changed(&self, _id: &str, _status: GameStatus) {}
    /// A commit of game `id` changed its turn deadline (durable now): the correspondence
    /// schedule follows it ([`crate::server::play::schedule`]).
    fn turn_deadline(&self, id: &str, change: DeadlineChange);
    /// A commit may have changed whose turn it is for these accounts (a correspondence game's
    /// turn ended, a seat was taken, the game ended): their `your_turn` list is sent again
    /// ([`crate::server::players::my_games`]).
    fn turn_changed(&self, _users: &[UserId]) {}
}

/// Everything a room uses besides its own state, as one value.
#[derive(Clone)]
pub struct RoomDeps {
    pub store: Arc<dyn Store>,
    pub config: Arc<Config>,
    pub metrics: Arc<Metrics>,
    pub host: Arc<dyn Host>,
    pub shutdown: watch::Receiver<bool>,
}

/// What a room can be asked.
pub enum Command {
    /// A subscriber joins the room (as the seat of `token`, if valid, or else the seat
    /// `account` owns) and is brought up to date from version `since`.
    Connect {
        conn: ConnId,
        token: Option<String>,
        /// The signed-in account of the connection (its session cookie), if any.
        account: Option<UserId>,
        since: Option<u64>,
        outbox: Outbox,
        done: oneshot::Sender<()>,
    },
    /// The server's computer player joins the room in the game's computer seat (the proof
    /// can only be made by the computer's driver: no token, nothing from the wire).
    ConnectComputer {
        conn: ConnId,
        proof: ComputerProof,
        outbox: Outbox,
        done: oneshot::Sender<()>,
    },
    Disconnect {
        conn: ConnId,
    },
    /// A parsed client message from a connected subscriber.
    Act {
        conn: ConnId,
        msg: ClientMsg,
        received: Instant,
        /// The connection's round trip as its socket measured it (`None`: not measured yet,
        /// or an in-process agent, which has no lag).
        rtt: Option<RttEstimate>,
    },
    /// HTTP join: take the free seat (for `account`, when the request was signed in).
    Join {
        account: Option<Account>,
        reply: oneshot::Sender<Result<SeatGrant, Refusal>>,
    },
    /// HTTP: the public state.
    Snapshot {
        reply: oneshot::Sender<GameSnapshot>,
    },
    /// HTTP: the comma PGN.
    Pgn {
        reply: oneshot::Sender<String>,
    },
    /// Several nodes: this node no longer holds the game's lease (it was taken over, or could
    /// not be renewed). The room stops at once without writing anything, and its subscribers
    /// are closed with "moved" (1012 for sockets, [`Room::moved`]) so that they reconnect to
    /// the game's current owner.
    Moved,
}

/// The handle to a room task, shared through the registry.
pub struct Room {
    pub id: String,
    /// Distinguishes this room task from a later one for the same game.
    pub instance: u64,
    /// Several nodes: the lease this room runs under (`None` on one node, and for relays).
    pub fence: Option<Fence>,
    /// When the lease was claimed: a renewal that started before it may not list it yet.
    pub claimed_at: Instant,
    /// A relay towards the game's owner on another node ([`crate::server::cluster::relay`]),
    /// not a room running the game here.
    pub relay: bool,
    /// Set when the room (or relay) stops because the game moved to (or is run by) another
    /// node: its sockets close with 1012 and reconnect with their last `v`.
    moved: Arc<AtomicBool>,
    /// Whether the seated players' sockets ping for lag ([`GameState::measures_lag`]), kept
    /// current by the room task after every change of the game.
    lag_pings: Arc<AtomicBool>,
    /// Boxed, so that a burst of commands queues pointers (a `Command` is 112 bytes), for one
    /// small allocation per command.
    tx: mailbox::Sender<Box<Command>>,
}

/// The room task has stopped (retired or shut down); look the game up again.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the room is gone")]
pub struct Gone;

impl Room {
    /// Whether the room's task has stopped (retired, shut down, or died).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    pub async fn send(&self, command: Command) -> Result<(), Gone> {
        self.tx.send(Box::new(command)).await.map_err(|_| Gone)
    }

    /// Whether the room stopped because the game is (now) run by another node: its
    /// subscribers reconnect (1012) rather than being told the game retired.
    pub fn moved(&self) -> bool {
        self.moved.load(Ordering::Relaxed)
    }

    /// Whether a seated player's socket pings its link for lag compensation (every
    /// `--game-ping-interval-ms`) rather than only to keep it alive.
    pub fn measures_lag(&self) -> bool {
        self.lag_pings.load(Ordering::Relaxed)
    }

    /// The flag behind [`Room::moved`], for whoever drains a subscriber's queue.
    pub fn moved_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.moved)
    }

    /// The handle of a relay (a task that is no room but takes the same commands); `moved`
    /// is the relay's to set before it stops.
    pub fn relay_handle(
        id: String,
        instance: u64,
        tx: mailbox::Sender<Box<Command>>,
        moved: Arc<AtomicBool>,
    ) -> Arc<Room> {
        Arc::new(Room {
            id,
            instance,
            fence: None,
            claimed_at: Instant::now(),
            relay: true,
            moved,
            // The game's owner, on another node, is the one to judge lag: measure always.
            lag_pings: Arc::new(AtomicBool::new(true)),
            tx,
        })
    }

    /// Starts the task of a room for `state` (with the public messages of its last events,
    /// by version) and returns its handle.
    pub fn spawn(
        deps: RoomDeps,
        state: GameState,
        recent: Vec<(u64, String)>,
        instance: u64,
        fence: Option<Fence>,
    ) -> Arc<Room> {
        let (tx, rx) = mailbox::channel(INBOX);
        let moved = Arc::new(AtomicBool::new(false));
        let lag_pings = Arc::new(AtomicBool::new(state.measures_lag()));
        let room = Arc::new(Room {
            id: state.id.clone(),
            instance,
            fence: fence.clone(),
            claimed_at: Instant::now(),
            relay: false,
            moved: Arc::clone(&moved),
            lag_pings: Arc::clone(&lag_pings),
            tx,
        });
        let now = Instant::now();
        let game_rate = TokenBucket::new(
            deps.config.game_rate_per_sec,
            deps.config.game_rate_burst,
            now,
        );
        // Correspondence deadlines that passed while the server was down get their grace.
        let mut state = state;
        state.set_downtime(deps.config.downtime());
        state.set_lag_compensation(deps.config.lag_compensation.is_on());
        let mut history = History::default();
        for (v, text) in recent {
            history.push(v, Utf8Bytes::from(text));
        }
        let shutdown = deps.shutdown.clone();
        let task = RoomTask {
            house: deps.config.house_rules(),
            deps,
            instance,
            state,
            history,
            fanout: Box::new(LocalFanout::default()),
            crowd: Crowd::new(now),
            retry_at: None,
            broken: false,
            game_rate,
            snapshot: None,
            ratings: None,
            chat: chat_member::RoomChat::default(),
            fence,
            moved,
            lag_pings,
        };
        tokio::spawn(Box::new(task).run(rx, shutdown));
        room
    }
}

struct RoomTask {
    deps: RoomDeps,
    /// The config's rules for every decision ([`crate::server::config::Config::house_rules`]).
    house: HouseRules,
    instance: u64,
    state: GameState,
    history: History,
    fanout: Box<dyn Fanout>,
    crowd: Crowd,
    /// After a failed timeout commit: when to try again.
    retry_at: Option<Instant>,
    /// The state could not be read back from the store: the room retires at once rather than
    /// serve a state that may not be the stored one.
    broken: bool,
    /// Player actions of this game over all its connections: tabs multiply a connection's own
    /// rate limit, this bounds what they add to the log.
    game_rate: TokenBucket,
    /// The shared part of the snapshot, serialized, and its version.
    snapshot: Option<(u64, SharedText)>,
    /// A finished rated game's rating changes, read from the store when the room starts and
    /// when the game's end is committed (the store rated it in that commit).
    ratings: Option<RatingsMsg>,
    /// The chat rooms' recent lines ([`chat`]).
    chat: chat_member::RoomChat,
    /// Several nodes: the lease every commit of this room carries ([`Commit::fence`]).
    ///
    /// [`Commit::fence`]: crate::server::store::Commit::fence
    fence: Option<Fence>,
    /// Set when the lease is lost (taken over, a commit fenced, not renewed): the room stops
    /// without writing anything more ([`Room::moved`]).
    moved: Arc<AtomicBool>,
    /// The flag behind [`Room::measures_lag`].
    lag_pings: Arc<AtomicBool>,
}

impl RoomTask {
    /// Tells the sockets whether the game's players' links are measured now: after every
    /// change of the state (a commit applied, a reload).
    fn follow_lag_pings(&self) {
        self.lag_pings
            .store(self.state.measures_lag(), Ordering::Relaxed);
    }

    /// Boxed: an async fn keeps its arguments and their moved-in copies apart, so an unboxed
    /// `self` counted twice in the future every room holds (3,568 bytes where the task is
    /// 1,592).
    async fn run(
        mut self: Box<Self>,
        mut rx: mailbox::Receiver<Box<Command>>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        // The work of a command, a timer or a store read runs in a future of its own on the
        // heap, only while it runs: inline, the largest of them (a commit's) made the task's
        // own future 10,984 bytes, held by every room for as long as it lives, where the
        // waiting loop alone needs the task's state and its inbox (docs/performance.md,
        // "Memory per room, socket and game").
        Box::pin(self.load_ratings()).await;
        // Read before the first connection comes, not while it waits: a connect that waited for
        // the store would have its messages bunched with the next connection's (a client with a
        // small queue was dropped for it: tests/server/restart.rs). A failure is retried at the
        // next connect.
        Box::pin(self.load_chat()).await;
        loop {
            let deadline = self.deadline();
            tokio::select! {
                biased;
                _ = shutdown.changed() => {
                    // Several nodes: the game goes on elsewhere. Remote members reconnect
                    // (1012) to whichever node adopts it, which it may do at once.
                    if self.fence.is_some() {
                        self.moved.store(true, Ordering::Relaxed);
                        self.release_lease();
                    }
                    break;
                }
                command = rx.recv() => match command {
                    Some(command) => {
                        if let Command::Act { msg: ClientMsg::Move { mv, .. }, .. } = &*command {
                            self.test_hook(PanicSite::Task, *mv);
                        }
                        Box::pin(self.handle_guarded(*command)).await
                    }
                    None => break,
                },
                _ = sleep_until(deadline), if deadline.is_some() => Box::pin(self.on_deadline_guarded()).await,
            }
            if self.moved.load(Ordering::Relaxed) {
                self.deps.host.retired(&self.state.id, self.instance);
                tracing::info!(game = %self.state.id, "the game moved to another node; room stopped");
                break;
            }
            if self.broken || self.should_retire(Instant::now()) {
                self.deps.host.retired(&self.state.id, self.instance);
                tracing::debug!(game = %self.state.id, "room retired");
                self.release_lease();
                break;
            }
        }
    }

    /// A room that retires gives its lease up, so that the next node that needs the game
    /// claims it at once rather than relaying to a node that no longer runs it.
    fn release_lease(&self) {
        if let Some(fence) = self.fence.clone() {
            let store = Arc::clone(&self.deps.store);
            let id = self.state.id.clone();
            tokio::spawn(async move {
                if let Err(error) = store.release_game(&id, fence).await {
                    tracing::warn!(game = %id, %error, "could not release a lease");
                }
            });
        }
    }

    /// The [`PanicOnMove`](crate::server::config::PanicOnMove) test hook: off unless a test put it in
    /// the `Config`.
    fn test_hook(&self, site: PanicSite, mv: crate::rules::SubMove) {
        if let Some(hook) = &self.deps.config.panic_on_move
            && hook.site == site
            && hook.uci == mv.to_string()
        {
            panic!("test hook: panic on the move {} ({site:?})", hook.uci);
        }
    }

    fn deadline(&self) -> Option<Instant> {
        let retire = (self.may_retire() && self.crowd.is_empty())
            .then(|| self.crowd.idle_since() + self.deps.config.retire_after);
        // After a failed timeout commit, wait for the retry time rather than the (past) flag
        // time, or the task would spin.
        let timers = self.retry_at.or_else(|| {
            self.state
                .next_tick(&self.house.expiry, Instant::now(), now_ms())
        });
        [timers, self.crowd.due(), retire]
            .into_iter()
            .flatten()
            .min()
    }

    /// Finished games, and open games waiting for an opponent, have no timers: nobody
    /// watching, they can live in the store alone until someone asks for them again. Live
    /// games being played stay (their clocks). Correspondence games being played retire too:
    /// they live for weeks, and their deadline is in the store's index and the in-memory
    /// schedule ([`crate::server::play::schedule`]), which loads the room again to flag the game.
    fn may_retire(&self) -> bool {
        match self.state.status() {
            GameStatus::Finished | GameStatus::Open => true,
            GameStatus::Playing => self.state.days_per_turn().is_some(),
        }
    }

    fn should_retire(&self, now: Instant) -> bool {
        self.may_retire()
            && self.crowd.is_empty()
            && now >= self.crowd.idle_since() + self.deps.config.retire_after
    }

    async fn on_deadline(&mut self) {
        let now = Instant::now();
        if self.crowd.due().is_some_and(|due| due <= now) {
            self.broadcast_presence();
        }
        match self.retry_at {
            Some(at) if at > now => {}
            _ => {
                self.retry_at = None;
                self.check_timeouts().await;
            }
        }
    }

    /// Commits what time passing imposes, as the core decides it ([`Input::Tick`]): the end
    /// of a game whose flag fell, whose first turn timed out, whose correspondence turn ran
    /// out or which expired.
    async fn check_timeouts(&mut self) {
        let now = Instant::now();
        let decided = self.state.decide(Input::Tick, &self.house, now, now_ms());
        if let Ok(Decided::Events(events)) = decided
            && self
                .commit_and_publish(events, now, None, Vec::new())
                .await
                .is_err()
        {
            self.retry_at = Some(now + Duration::from_secs(1));
        }
    }

    /// Handles one command so that a panic inside (a bug in the rules, a projection, a
    /// decision) cannot take the room task down. The whole handler is guarded: a panic while
    /// applying committed events leaves the state half-changed, and such a state cannot be
    /// trusted. The way back is to rebuild the state from the store's committed events, which
    /// hold exactly what was acknowledged. The sender of a message that panicked gets an
    /// error (with its ack id), everyone else notices nothing (or a fresh snapshot if the
    /// store had moved on). A panic during that rebuild is not caught: the task ends, and the
    /// registry restarts the game from the store on its next command.
    async fn handle_guarded(&mut self, command: Command) {
        let origin = match &command {
            Command::Act { conn, msg, .. } => Some((
                *conn,
                match msg {
                    ClientMsg::Move { id, .. } => id.clone(),
                    _ => None,
                },
            )),
            _ => None,
        };
        if AssertUnwindSafe(self.handle(command))
            .catch_unwind()
            .await
            .is_ok()
        {
            return;
        }
        tracing::error!(game = %self.state.id, "panic while handling a command; reloading the game from the store");
        self.reload().await;
        if let Some((conn, id)) = origin {
            let refusal = Refusal::new(
                ErrorCode::NotAvailable,
                "internal error while handling this message; the game was reloaded from its log, nothing else changed",
            );
            self.send_to(conn, &ServerMsg::error(&refusal, id.as_deref()));
        }
    }

    /// [`Self::on_deadline`] under the same guard as [`Self::handle_guarded`].
    async fn on_deadline_guarded(&mut self) {
        if AssertUnwindSafe(self.on_deadline())
            .catch_unwind()
            .await
            .is_err()
        {
            tracing::error!(game = %self.state.id, "panic while handling a timer; reloading the game from the store");
            self.reload().await;
        }
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Connect {
                conn,
                token,
                account,
                since,
                outbox,
                done,
            } => {
                let config = &self.deps.config;
                let hello = TokenBucket::new(
                    config.hello_rate_per_sec,
                    config.hello_burst,
                    Instant::now(),
                );
                let chat = chat_member::ChatMember::new(config, Instant::now());
                self.fanout.subscribe(conn, outbox);
                self.crowd.insert(
                    conn,
                    Member {
                        seat: None,
                        hello,
                        token: None,
                        account,
                        chat,
                    },
                );
                self.load_chat().await;
                self.read_chat_relations(conn, token.as_deref()).await;
                self.hello(conn, token, since);
                let _ = done.send(());
            }
            Command::ConnectComputer {
                conn,
                proof,
                outbox,
                done,
            } => {
                self.fanout.subscribe(conn, outbox);
                self.hello_computer(conn, proof);
                let _ = done.send(());
            }
            Command::Disconnect { conn } => self.leave(conn),
            Command::Act {
                conn,
                msg,
                received,
                rtt,
            } => self.act(conn, msg, received, rtt).await,
            Command::Join { account, reply } => {
                // An open game past its time to live ends now rather than take a player.
                self.check_timeouts().await;
                let user = match self.refuse_blocked_join(account.as_ref()).await {
                    Ok(()) => self.seat_user(account).await,
                    Err(refusal) => Err(refusal),
                };
                let result = match user {
                    Ok(user) => self.join(user).await,
                    Err(refusal) => Err(refusal),
                };
                let _ = reply.send(result);
            }
            Command::Snapshot { reply } => {
                let presence = self.crowd.presence();
                let _ = reply.send(project::snapshot(
                    &self.state,
                    presence,
                    self.ratings,
                    Instant::now(),
                ));
            }
            Command::Pgn { reply } => {
                let _ = reply.send(export::pgn(&self.state));
            }
            Command::Moved => self.moved.store(true, Ordering::Relaxed),
        }
    }
}

fn ack_msg(id: Option<String>, v: u64) -> ServerMsg {
    ServerMsg::Ack(AckMsg { id, v })
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
        None => std::future::pending().await,
    }
}
