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

pub mod agent;
pub mod crowd;
pub mod fanout;
pub mod history;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use self::crowd::{Crowd, Member, Tell};
pub use self::fanout::{ConnId, Outbox};
use self::fanout::{Fanout, LocalFanout};
use self::history::History;
use super::bucket::TokenBucket;
use super::config::{Config, PanicSite};
use super::expiry::Expiry;
use super::export;
use super::game::{Checked, Decided, Event, GameState, Request, now_ms};
use super::ids;
use super::lobby;
use super::metrics::Metrics;
use super::project;
use super::protocol::{
    AckMsg, ClaimInMs, ClientMsg, ErrorCode, GameSnapshot, PresenceMsg, Refusal, RematchSeatMsg,
    ServerMsg, SharedText, Side,
};
use super::store::{Commit, GameStatus, Store, StoreError, codec};
use crate::rules::Color;

/// Commands a room's inbox holds before senders wait.
const INBOX: usize = 256;

/// A seat handed to a player: the HTTP reply to create / join. Holds a seat token, so its
/// `Debug` does not show it (secrets are never logged).
#[derive(Clone, serde::Serialize)]
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
    /// A new game (a rematch) is committed: start its room (with its public messages so far).
    fn start(&self, state: GameState, recent: Vec<(u64, String)>);
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
    /// A subscriber joins the room (as the seat of `token`, if valid) and is brought up to
    /// date from version `since`.
    Connect {
        conn: ConnId,
        token: Option<String>,
        since: Option<u64>,
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
    },
    /// HTTP join: take the free seat.
    Join {
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
}

/// The handle to a room task, shared through the registry.
pub struct Room {
    pub id: String,
    /// Distinguishes this room task from a later one for the same game.
    pub instance: u64,
    /// Boxed: a tokio channel allocates its first block of 32 slots when it is created, and
    /// `Command` is ~72 bytes, so unboxed that block alone was ~2.3 KiB of every idle room
    /// (target: 8 KiB per idle room); boxed it is 256 bytes, for one small allocation per
    /// command.
    tx: mpsc::Sender<Box<Command>>,
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

    /// Starts the task of a room for `state` (with the public messages of its last events,
    /// by version) and returns its handle.
    pub fn spawn(
        deps: RoomDeps,
        state: GameState,
        recent: Vec<(u64, String)>,
        instance: u64,
    ) -> Arc<Room> {
        let (tx, rx) = mpsc::channel(INBOX);
        let room = Arc::new(Room {
            id: state.id.clone(),
            instance,
            tx,
        });
        let now = Instant::now();
        let game_rate = TokenBucket::new(
            deps.config.game_rate_per_sec,
            deps.config.game_rate_burst,
            now,
        );
        let mut history = History::default();
        for (v, text) in recent {
            history.push(v, Utf8Bytes::from(text));
        }
        let shutdown = deps.shutdown.clone();
        let task = RoomTask {
            expiry: Expiry::from_config(&deps.config),
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
        };
        tokio::spawn(task.run(rx, shutdown));
        room
    }
}

struct RoomTask {
    deps: RoomDeps,
    expiry: Expiry,
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
}

/// The public messages of the last [`history::RECENT_EVENTS`] events of a replayed log.
pub fn replay_history(
    id: &str,
    events: &[Event],
    first_move: Duration,
    now: Instant,
) -> Result<(GameState, Vec<(u64, String)>), super::game::ReplayError> {
    let last = u64::try_from(events.len())
        .unwrap_or(u64::MAX)
        .saturating_sub(1);
    let keep_from = last.saturating_sub(history::RECENT_EVENTS as u64);
    let mut recent = Vec::new();
    let state = GameState::replay(id, events, first_move, now, |state, event, v| {
        if v > keep_from
            && let Some(msg) = project::event(state, event, v, now)
        {
            recent.push((v, msg.to_text()));
        }
    })?;
    Ok((state, recent))
}

impl RoomTask {
    async fn run(
        mut self,
        mut rx: mpsc::Receiver<Box<Command>>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        loop {
            let deadline = self.deadline();
            tokio::select! {
                biased;
                _ = shutdown.changed() => break,
                command = rx.recv() => match command {
                    Some(command) => {
                        if let Command::Act { msg: ClientMsg::Move { mv, .. }, .. } = &*command {
                            self.test_hook(PanicSite::Task, *mv);
                        }
                        self.handle_guarded(*command).await
                    }
                    None => break,
                },
                _ = sleep_until(deadline), if deadline.is_some() => self.on_deadline_guarded().await,
            }
            if self.broken || self.should_retire(Instant::now()) {
                self.deps.host.retired(&self.state.id, self.instance);
                tracing::debug!(game = %self.state.id, "room retired");
                break;
            }
        }
    }

    /// The [`PanicOnMove`](super::config::PanicOnMove) test hook: off unless a test put it in
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
        let expiry = self.expiry.deadline(&self.state, Instant::now(), now_ms());
        let timers = self.retry_at.or_else(|| {
            [self.state.next_deadline(), expiry]
                .into_iter()
                .flatten()
                .min()
        });
        [timers, self.crowd.due(), retire]
            .into_iter()
            .flatten()
            .min()
    }

    /// Finished games, and open games waiting for an opponent, have no timers: nobody
    /// watching, they can live in the store alone until someone asks for them again. Games
    /// being played stay (their clocks).
    fn may_retire(&self) -> bool {
        matches!(self.state.status(), GameStatus::Finished | GameStatus::Open)
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

    /// Ends the game if a flag fell, a first turn timed out or the game expired
    /// ([`super::expiry`]).
    async fn check_timeouts(&mut self) {
        let now = Instant::now();
        let at = now_ms();
        let due = self
            .state
            .due_timeout(now, at)
            .or_else(|| self.expiry.due(&self.state, at));
        if let Some(end) = due
            && self
                .commit_and_publish(vec![end], now, None, Vec::new())
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
                self.fanout.subscribe(conn, outbox);
                self.crowd.insert(
                    conn,
                    Member {
                        seat: None,
                        hello,
                        token: None,
                    },
                );
                self.hello(conn, token, since);
                let _ = done.send(());
            }
            Command::Disconnect { conn } => self.leave(conn),
            Command::Act {
                conn,
                msg,
                received,
            } => self.act(conn, msg, received).await,
            Command::Join { reply } => {
                // An open game past its time to live ends now rather than take a player.
                self.check_timeouts().await;
                let result = self.join().await;
                let _ = reply.send(result);
            }
            Command::Snapshot { reply } => {
                let presence = self.crowd.presence();
                let _ = reply.send(project::snapshot(&self.state, presence, Instant::now()));
            }
            Command::Pgn { reply } => {
                let _ = reply.send(export::pgn(&self.state));
            }
        }
    }

    fn leave(&mut self, conn: ConnId) {
        self.fanout.unsubscribe(conn);
        if self.crowd.remove(conn) {
            self.after_membership_change();
        }
    }

    /// Authenticates (when a token is given) and resyncs one subscriber.
    fn hello(&mut self, conn: ConnId, token: Option<String>, since: Option<u64>) {
        if let Some(token) = token {
            match self.state.seat_of(&token) {
                Some(color) => {
                    if let Some(member) = self.crowd.get_mut(conn) {
                        member.seat = Some(color);
                        member.token = Some(token);
                    }
                }
                None => {
                    self.deps.metrics.bad_tokens.fetch_add(1, Ordering::Relaxed);
                    let refusal =
                        Refusal::new(ErrorCode::BadToken, "that token holds no seat in this game");
                    self.send_to(conn, &ServerMsg::error(&refusal, None));
                }
            }
        }
        self.resync(conn, since);
        if let Some(grant) = self.rematch_grant(conn) {
            self.send_to(conn, &grant);
        }
        if !self.after_membership_change() {
            let msg = self.presence_msg();
            self.send_to(conn, &msg);
        }
    }

    /// Sends the events after `since`, or a snapshot when they are not all at hand.
    fn resync(&mut self, conn: ConnId, since: Option<u64>) {
        let version = self.state.version();
        if let Some(seen) = since
            && let Some(missed) = self
                .history
                .since(seen, version, self.fanout.room_left(conn))
        {
            for text in missed {
                self.send_bytes(conn, text);
            }
            return;
        }
        let you = self.crowd.get(conn).and_then(|m| m.seat);
        let msg = self.state_msg(you);
        self.send_to(conn, &msg);
    }

    /// The `state` message for one subscriber: the shared part of the snapshot (the whole
    /// record: 148 KB for a game of 3,000 sub-moves), serialized once per version and reused
    /// by every subscriber and every `hello` until the next event, joined with this
    /// subscriber's live fields (clocks as of now, presence, `you`), which are small.
    fn state_msg(&mut self, you: Option<Color>) -> ServerMsg {
        let version = self.state.version();
        let shared = match &self.snapshot {
            Some((v, text)) if *v == version => text.clone(),
            _ => {
                let record = self.state.record();
                // Serializing a plain record cannot fail; if it ever did, the reader gets an
                // empty shared part rather than the room a panic.
                let text = SharedText::new(&project::shared_state(&self.state, &record))
                    .unwrap_or_else(|_| SharedText::empty());
                self.deps
                    .metrics
                    .snapshots_serialized
                    .fetch_add(1, Ordering::Relaxed);
                self.snapshot = Some((version, text.clone()));
                text
            }
        };
        let live = project::live_state(&self.state, self.crowd.presence(), you, Instant::now());
        project::state_msg(version, live, shared)
    }

    /// Tells everyone who is here: at once when a seat's connection changed, coalesced when
    /// only the spectator count did. Returns whether presence was broadcast now.
    fn after_membership_change(&mut self) -> bool {
        match self.crowd.changed(Instant::now()) {
            Some(Tell::Now) => {
                self.broadcast_presence();
                true
            }
            Some(Tell::Later) | None => false,
        }
    }

    /// The `presence` message. For a taken seat with no connection it also says in how many
    /// ms its opponent may claim victory, so that pages can count down instead of offering a
    /// claim the server would refuse.
    fn presence_msg(&self) -> ServerMsg {
        let presence = self.crowd.presence();
        let now = Instant::now();
        let grace = self.deps.config.disconnect_grace;
        let claim_in = |color: Color, here: bool| {
            if !self.state.seat_taken(color) {
                return None;
            }
            self.crowd
                .claim_in(color, here, grace, now)
                .map(project::millis)
        };
        ServerMsg::Presence(PresenceMsg {
            black: presence.black,
            claim_in_ms: ClaimInMs {
                black: claim_in(Color::Black, presence.black),
                white: claim_in(Color::White, presence.white),
            },
            spectators: presence.spectators,
            white: presence.white,
        })
    }

    fn broadcast_presence(&mut self) {
        self.crowd.told();
        let text = self.presence_msg().to_text();
        self.broadcast(Utf8Bytes::from(text));
    }

    async fn act(&mut self, conn: ConnId, msg: ClientMsg, received: Instant) {
        let Some(seat) = self.crowd.get(conn).map(|m| m.seat) else {
            return;
        };
        if let ClientMsg::Hello { token, v } = msg {
            let allowed = self
                .crowd
                .get_mut(conn)
                .is_some_and(|m| m.hello.take(received));
            if !allowed {
                let config = &self.deps.config;
                let refusal = Refusal::new(
                    ErrorCode::RateLimited,
                    format!(
                        "too many hello messages ({} at once, then {} per second); the connection is kept",
                        config.hello_burst, config.hello_rate_per_sec
                    ),
                );
                self.send_to(conn, &ServerMsg::error(&refusal, None));
                return;
            }
            self.hello(conn, token, v);
            return;
        }
        if let ClientMsg::Ping = msg {
            // The socket answers pings itself; an agent's ping is answered here.
            self.send_to(conn, &ServerMsg::Pong);
            return;
        }
        let ack_id = match &msg {
            ClientMsg::Move { id, .. } => id.clone(),
            _ => None,
        };
        let Some(color) = seat else {
            let refusal = Refusal::new(ErrorCode::NotAPlayer, "spectators cannot act in the game");
            self.send_to(conn, &ServerMsg::error(&refusal, ack_id.as_deref()));
            return;
        };
        self.check_timeouts().await;
        let is_move = matches!(msg, ClientMsg::Move { .. });
        if let Err(refusal) = self.player_action(conn, color, msg).await {
            self.send_to(conn, &ServerMsg::error(&refusal, ack_id.as_deref()));
        } else if is_move {
            self.deps.metrics.move_latency.observe(received.elapsed());
        }
    }

    /// The request a client message makes, decided and carried out.
    async fn player_action(
        &mut self,
        conn: ConnId,
        color: Color,
        msg: ClientMsg,
    ) -> Result<(), Refusal> {
        let now = Instant::now();
        let refused = |r: super::game::Refused| project::refusal(&r);
        let mut ack = None;
        let request = match msg {
            ClientMsg::Move { mv, id, v } => {
                // Idempotency first: a re-sent move that was applied is acknowledged again,
                // whatever version it names.
                if let Some(acked) = id.as_deref().and_then(|id| self.state.acked(color, id)) {
                    self.send_to(conn, &ack_msg(id, acked));
                    return Ok(());
                }
                self.test_hook(PanicSite::Handling, mv);
                self.state.check_seen(v).map_err(refused)?;
                ack = Some((conn, id.clone()));
                Request::Move { mv, ack: id }
            }
            ClientMsg::TakebackSubmove => Request::Takeback,
            ClientMsg::Resign => Request::Resign,
            ClientMsg::DrawOffer => Request::DrawOffer,
            ClientMsg::DrawAccept => Request::DrawAccept,
            ClientMsg::DrawDecline => Request::DrawDecline,
            ClientMsg::DrawClaim { claim } => Request::DrawClaim(claim),
            ClientMsg::Abort => Request::Abort,
            ClientMsg::ClaimVictory => Request::ClaimVictory {
                opponent_away: self
                    .crowd
                    .abandoned(!color, self.deps.config.disconnect_grace, now),
            },
            ClientMsg::RematchOffer => Request::RematchOffer {
                seat_hash: self.rematch_seat_hash(conn)?,
            },
            ClientMsg::RematchAccept => Request::RematchAccept,
            ClientMsg::Hello { .. } | ClientMsg::Ping => return Ok(()),
        };
        let is_move = ack.is_some();
        let decided = self
            .state
            .decide(color, request, self.deps.config.takebacks, now, now_ms())
            .map_err(refused)?;
        self.charge_game_rate(now)?;
        match decided {
            Decided::Events(events) => {
                self.commit_and_publish(events.into_iter().collect(), now, ack, Vec::new())
                    .await?;
            }
            Decided::CreateRematch => self.rematch(conn, color, now).await?,
        }
        if is_move {
            self.deps
                .metrics
                .submoves_accepted
                .fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Takes one token from the game's bucket for an action that passed its checks (refusals
    /// add nothing to the log and are not charged).
    fn charge_game_rate(&mut self, now: Instant) -> Result<(), Refusal> {
        if self.game_rate.take(now) {
            return Ok(());
        }
        Err(Refusal::new(
            ErrorCode::RateLimited,
            "too many actions in this game; nothing was changed, try again in a moment",
        ))
    }

    /// The hash of the rematch token of the player on `conn`.
    fn rematch_seat_hash(&self, conn: ConnId) -> Result<String, Refusal> {
        self.crowd
            .get(conn)
            .and_then(|m| m.token.as_deref())
            .map(|token| ids::token_hash(&ids::rematch_token(token, &self.state.id)))
            .ok_or_else(|| Refusal::new(ErrorCode::NotAPlayer, "say hello with your seat token"))
    }

    /// The rematch seat of the player on `conn`, when this game has a rematch whose seats are
    /// derived from this game's tokens: recomputed from the connection's token, so it is
    /// handed out whenever the player comes back, after any restart.
    fn rematch_grant(&self, conn: ConnId) -> Option<ServerMsg> {
        let new_id = self.state.derived_rematch_id()?;
        let member = self.crowd.get(conn)?;
        let (old_color, token) = (member.seat?, member.token.as_deref()?);
        Some(ServerMsg::RematchSeat(RematchSeatMsg {
            color: (!old_color).into(),
            id: new_id.to_owned(),
            token: ids::rematch_token(token, &self.state.id),
            url: format!("/game/{new_id}"),
        }))
    }

    /// Creates the rematch game (colours swapped) and records it here in ONE store commit,
    /// then hands each connected player its new seat privately (an absent one gets it when it
    /// comes back: [`Self::rematch_grant`]). `color` accepts the offer of the other side,
    /// whose rematch token hash the offer carries.
    async fn rematch(&mut self, conn: ConnId, color: Color, now: Instant) -> Result<(), Refusal> {
        let mine = self.rematch_seat_hash(conn)?;
        let theirs = match self.state.rematch_offer() {
            Some((by, Some(hash))) if by == !color => hash.to_owned(),
            // An offer stored by an older version has no hash: usable only if its author is
            // here to present its token.
            _ => self
                .crowd
                .seated(!color)
                .map(|other| self.rematch_seat_hash(other))
                .transpose()?
                .ok_or_else(|| {
                    Refusal::new(
                        ErrorCode::NotAvailable,
                        "this rematch offer cannot be accepted while its author is away; ask again",
                    )
                })?,
        };
        let mut seats = [String::new(), String::new()];
        seats[color as usize] = mine;
        seats[(!color) as usize] = theirs;
        let new_game = lobby::rematch(&self.state, seats, now_ms(), &self.deps.config)?;
        let event = self
            .state
            .decide_rematch(new_game.state.id.clone(), now_ms())
            .map_err(|r| project::refusal(&r))?;
        self.commit_and_publish(vec![event], now, None, vec![new_game.commit])
            .await?;
        self.deps.host.start(new_game.state, new_game.recent);
        for conn in self.crowd.conns() {
            if let Some(grant) = self.rematch_grant(conn) {
                self.send_to(conn, &grant);
            }
        }
        Ok(())
    }

    /// HTTP join: the free seat with a fresh token.
    async fn join(&mut self) -> Result<SeatGrant, Refusal> {
        let token = ids::new_token();
        let event = self
            .state
            .decide_join(ids::token_hash(&token), now_ms())
            .map_err(|r| match r {
                super::game::Refused::GameOver => {
                    Refusal::new(ErrorCode::SeatTaken, "the game is over")
                }
                other => project::refusal(&other),
            })?;
        let Event::Joined { color, .. } = event.event() else {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "internal error: not a join",
            ));
        };
        let color = *color;
        self.commit_and_publish(vec![event], Instant::now(), None, Vec::new())
            .await?;
        self.crowd.seat_taken_now(color, Instant::now());
        Ok(SeatGrant {
            id: self.state.id.clone(),
            color: color.into(),
            token,
            url: format!("/game/{}", self.state.id),
        })
    }

    /// The move path after the decision: commits `events` (with `also`, other games' commits
    /// such as a rematch's new game, in the same atomic store commit), and only once they are
    /// durable applies them, projects each to its public message, acknowledges the move and
    /// publishes. On a store failure nothing was applied, so nothing is undone: the actor
    /// gets `store_failure` and may send the same ack id again.
    async fn commit_and_publish(
        &mut self,
        events: Vec<Checked>,
        now: Instant,
        ack: Option<(ConnId, Option<String>)>,
        also: Vec<Commit>,
    ) -> Result<(), Refusal> {
        let commit = Commit {
            game_id: self.state.id.clone(),
            first_seq: self.state.version() + 1,
            events: events.iter().map(|c| codec::encode(c.event())).collect(),
            listing: project::listing_after(&self.state, &events),
        };
        let started = Instant::now();
        let result = if also.is_empty() {
            self.deps.store.commit(commit).await
        } else {
            let mut all = vec![commit];
            all.extend(also);
            self.deps.store.commit_all(all).await
        };
        self.deps.metrics.commit_latency.observe(started.elapsed());
        if let Err(error) = result {
            tracing::warn!(game = %self.state.id, %error, "commit failed");
            if matches!(error, StoreError::Conflict { .. }) {
                // The store holds more than the room expected (an earlier commit reported
                // as failed did reach the disk, or another writer): the store wins.
                self.reload().await;
            }
            return Err(Refusal::new(
                ErrorCode::StoreFailure,
                "the game could not be saved; nothing was changed, try again",
            ));
        }
        self.snapshot = None;
        let mut messages = Vec::with_capacity(events.len());
        for checked in events {
            let v = self.state.version() + 1;
            let event = checked.event().clone();
            self.state.apply(checked, now);
            if let Event::End { outcome, .. } = &event {
                tracing::info!(game = %self.state.id, winner = ?outcome.winner(), reason = %outcome.reason(), "game over");
            }
            if let Some(msg) = project::event(&self.state, &event, v, now) {
                messages.push((v, Utf8Bytes::from(msg.to_text())));
            }
        }
        if let Some((conn, id)) = ack {
            let v = messages.first().map_or(self.state.version(), |(v, _)| *v);
            self.send_to(conn, &ack_msg(id, v));
        }
        for (v, text) in messages {
            self.history.push(v, text.clone());
            self.broadcast(text);
        }
        Ok(())
    }

    /// Rebuilds the state from the store's committed events, keeping the live clocks when the
    /// store holds the version the room had. If it holds more or less, the store is the truth:
    /// the room adopts it and sends every subscriber a fresh snapshot. If the game cannot be
    /// read back at all, the room retires (its sockets close with "game retired", clients
    /// reconnect and the game is loaded again).
    async fn reload(&mut self) {
        self.snapshot = None;
        let id = self.state.id.clone();
        let committed = self.state.version();
        let live = self.state.live_parts();
        let loaded = match self.deps.store.load_game(&id).await {
            Ok(Some((_, texts))) => texts
                .iter()
                .map(|t| codec::decode(t).map_err(|e| e.to_string()))
                .collect::<Result<Vec<Event>, String>>()
                .and_then(|events| {
                    replay_history(&id, &events, self.deps.config.first_move, Instant::now())
                        .map_err(|e| e.to_string())
                }),
            Ok(None) => Err("the game is not in the store".to_string()),
            Err(e) => Err(e.to_string()),
        };
        let (mut state, recent) = match loaded {
            Ok(replayed) => replayed,
            Err(error) => {
                tracing::error!(game = %id, %error, "cannot reload the game; retiring the room");
                self.broken = true;
                return;
            }
        };
        if state.version() == committed {
            state.restore_live_parts(live);
            self.state = state;
            return;
        }
        tracing::warn!(game = %id, room = committed, store = state.version(), "the store and the room disagreed; the room follows the store");
        self.state = state;
        self.history.clear();
        for (v, text) in recent {
            self.history.push(v, Utf8Bytes::from(text));
        }
        for conn in self.crowd.conns() {
            self.resync(conn, None);
        }
    }

    /// Serializes `msg` for one subscriber only (acks, errors, its own `state`).
    fn send_to(&mut self, conn: ConnId, msg: &ServerMsg) {
        self.send_bytes(conn, Utf8Bytes::from(msg.to_text()));
    }

    fn send_bytes(&mut self, conn: ConnId, text: Utf8Bytes) {
        if self.crowd.get(conn).is_none() {
            return;
        }
        if !self.fanout.send(conn, text) && self.crowd.remove(conn) {
            self.after_membership_change();
        }
    }

    /// Sends to every subscriber; drops (and reports) those that cannot keep up.
    fn broadcast(&mut self, text: Utf8Bytes) {
        let dropped = self.fanout.publish(text);
        let mut changed = false;
        for conn in dropped {
            changed |= self.crowd.remove(conn);
        }
        if changed {
            self.after_membership_change();
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
