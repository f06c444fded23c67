//! One live game as an actor: a task that owns the [`GameState`], the seats'
//! presence, the recent versioned events and the sockets to broadcast to,
//! and handles [`Command`]s one at a time. Serializing a game's commands in
//! one task is what makes "commit, then acknowledge, then broadcast" simple:
//! there is no lock at all, let alone one held across the store's `.await`.
//!
//! Sockets talk to the room through [`Room::send`]; the room talks back
//! through each socket's bounded queue with `try_send`, never waiting on a
//! slow client (a full queue disconnects that client, the game goes on).

use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::bucket::TokenBucket;
use super::config::PanicSite;
use super::events::{Event, now_ms};
use super::export;
use super::ids;
use super::protocol::{ClientMsg, ErrorCode, Refusal, Side, error_msg, server_msg};
use super::rooms::Rooms;
use super::state::{GameState, LiveParts, Presence};
use super::store::{Commit, GameStatus};
use crate::rules::{Color, SubMove};

/// How many recent public events a room keeps for reconnecting clients.
pub const RECENT_EVENTS: usize = 64;

/// How long spectator-count changes are gathered before one `presence`.
const SPECTATOR_COALESCE: Duration = Duration::from_millis(500);

/// Commands a room's inbox holds before senders wait.
const INBOX: usize = 256;

pub type ConnId = u64;

/// Every event a publish applied, and the public messages by version.
type Applied = (Vec<Event>, Vec<(u64, Utf8Bytes)>);

/// A seat handed to a player: the HTTP reply to create / join.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SeatGrant {
    pub id: String,
    pub color: Side,
    pub token: String,
    pub url: String,
}

/// A socket's side of the room: where to send it messages.
pub struct Outbox {
    pub queue: mpsc::Sender<Utf8Bytes>,
    /// Set by the room when it drops the socket because its queue was full.
    pub lagged: Arc<AtomicBool>,
}

/// What a room can be asked.
pub enum Command {
    /// A socket joins the room (as the seat of `token`, if valid) and is
    /// brought up to date from version `since`.
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
    /// A parsed client message from a connected socket.
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
        reply: oneshot::Sender<Value>,
    },
    /// HTTP: the comma PGN.
    Pgn {
        reply: oneshot::Sender<String>,
    },
}

/// The handle to a room task, shared through the rooms map.
pub struct Room {
    pub id: String,
    /// Distinguishes this room task from a later one for the same game.
    pub instance: u64,
    /// Boxed: a tokio channel allocates its first block of 32 slots when it
    /// is created, and `Command` is ~72 bytes, so unboxed that block alone
    /// was ~2.3 KiB of every idle room (target: 8 KiB per idle room); boxed
    /// it is 256 bytes, for one small allocation per command.
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

    /// Starts the task of a room for `state` and returns its handle.
    pub fn spawn(
        rooms: Arc<Rooms>,
        state: GameState,
        recent: Vec<(u64, String)>,
        instance: u64,
        shutdown: watch::Receiver<bool>,
    ) -> Arc<Room> {
        let (tx, rx) = mpsc::channel(INBOX);
        let room = Arc::new(Room {
            id: state.id.clone(),
            instance,
            tx,
        });
        let now = Instant::now();
        let game_rate = TokenBucket::new(
            rooms.config.game_rate_per_sec,
            rooms.config.game_rate_burst,
            now,
        );
        let mut log: VecDeque<(u64, Utf8Bytes)> = recent
            .into_iter()
            .map(|(v, text)| (v, Utf8Bytes::from(text)))
            .collect();
        while log.len() > RECENT_EVENTS {
            log.pop_front();
        }
        let task = RoomTask {
            rooms,
            instance,
            state,
            log,
            subs: HashMap::new(),
            away_since: [Some(now), Some(now)],
            idle_since: now,
            retry_at: None,
            last_presence: Presence::default(),
            presence_due: None,
            broken: false,
            game_rate,
            snapshot: None,
        };
        tokio::spawn(task.run(rx, shutdown));
        room
    }
}

struct Subscriber {
    outbox: Outbox,
    seat: Option<Color>,
    /// This connection's `hello`s: each one costs a full snapshot.
    hello: TokenBucket,
    /// The seat token this socket proved (`seat` is its seat). Kept in memory only, to derive
    /// the player's rematch token ([`ids::rematch_token`]); never stored, logged or sent.
    token: Option<String>,
}

struct RoomTask {
    rooms: Arc<Rooms>,
    instance: u64,
    state: GameState,
    log: VecDeque<(u64, Utf8Bytes)>,
    subs: HashMap<ConnId, Subscriber>,
    /// Per seat: since when no socket holds it (`None` while connected).
    away_since: [Option<Instant>; 2],
    /// Since when the room has had no sockets (for retiring finished games).
    idle_since: Instant,
    /// After a failed timeout commit: when to try again.
    retry_at: Option<Instant>,
    /// The presence last broadcast, and when a coalesced one is due.
    last_presence: Presence,
    presence_due: Option<Instant>,
    /// The state could not be restored from the store after a failed
    /// commit: the room retires at once rather than serve a state that may
    /// not be the stored one.
    broken: bool,
    /// Player actions of this game over all its sockets: tabs multiply a
    /// connection's own rate limit, this bounds what they add to the log.
    game_rate: TokenBucket,
    /// The shared part of the snapshot, serialized, and its version.
    snapshot: Option<(u64, Arc<str>)>,
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
                self.rooms.remove(&self.state.id, self.instance);
                tracing::debug!(game = %self.state.id, "room retired");
                break;
            }
        }
    }

    /// The [`PanicOnMove`](super::config::PanicOnMove) test hook: off
    /// unless a test put it in the `Config`.
    fn test_hook(&self, site: PanicSite, mv: SubMove) {
        if let Some(hook) = &self.rooms.config.panic_on_move
            && hook.site == site
            && hook.uci == mv.to_string()
        {
            panic!("test hook: panic on the move {} ({site:?})", hook.uci);
        }
    }

    fn deadline(&self) -> Option<Instant> {
        let retire = (self.may_retire() && self.subs.is_empty())
            .then(|| self.idle_since + self.rooms.config.retire_after);
        // After a failed timeout commit, wait for the retry time rather than
        // the (past) flag time, or the task would spin.
        let expiry = self
            .rooms
            .expiry()
            .deadline(&self.state, Instant::now(), now_ms());
        let timers = self.retry_at.or_else(|| {
            [self.state.next_deadline(), expiry]
                .into_iter()
                .flatten()
                .min()
        });
        [timers, self.presence_due, retire]
            .into_iter()
            .flatten()
            .min()
    }

    /// Finished games, and open games waiting for an opponent, have no
    /// timers: nobody watching, they can live in the store alone until
    /// someone asks for them again. Games being played stay (their clocks).
    fn may_retire(&self) -> bool {
        matches!(self.state.status(), GameStatus::Finished | GameStatus::Open)
    }

    fn should_retire(&self, now: Instant) -> bool {
        self.may_retire()
            && self.subs.is_empty()
            && now >= self.idle_since + self.rooms.config.retire_after
    }

    async fn on_deadline(&mut self) {
        let now = Instant::now();
        if self.presence_due.is_some_and(|due| due <= now) {
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
            .or_else(|| self.rooms.expiry().due_event(&self.state, at));
        if let Some(event) = due
            && self.publish(vec![event], now, None).await.is_err()
        {
            self.retry_at = Some(now + Duration::from_secs(1));
        }
    }

    /// Handles one command so that a panic inside (a bug in the rules, the
    /// views, a decision) cannot take the room task down. The whole handler
    /// is guarded, not only the pure `decide_*` step: the events are applied
    /// to the state in place and the views are built from it, so a panic can
    /// come from there too, and a state left half-changed by a panic cannot
    /// be trusted. The way back is the one a failed commit already takes:
    /// rebuild the state from the store's committed events, which hold
    /// exactly what was acknowledged. The sender of a message that panicked
    /// gets an error (with its ack id), everyone else notices nothing (or a
    /// fresh snapshot if the store had moved on). A panic during that
    /// rebuild is not caught: the task ends, and `Rooms::get` restarts the
    /// game from the store on its next command.
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
        let committed = self.state.version();
        let live = self.state.live_parts();
        if AssertUnwindSafe(self.handle(command))
            .catch_unwind()
            .await
            .is_ok()
        {
            return;
        }
        tracing::error!(game = %self.state.id, "panic while handling a command; reloading the game from the store");
        self.restore_committed(committed, live).await;
        if let Some((conn, id)) = origin {
            let refusal = Refusal::new(
                ErrorCode::NotAvailable,
                "internal error while handling this message; the game was reloaded from its log, nothing else changed",
            );
            self.send_to(conn, error_msg(&refusal, id.as_deref()));
        }
    }

    /// [`Self::on_deadline`] under the same guard as [`Self::handle_guarded`].
    async fn on_deadline_guarded(&mut self) {
        let committed = self.state.version();
        let live = self.state.live_parts();
        if AssertUnwindSafe(self.on_deadline())
            .catch_unwind()
            .await
            .is_err()
        {
            tracing::error!(game = %self.state.id, "panic while handling a timer; reloading the game from the store");
            self.restore_committed(committed, live).await;
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
                let config = &self.rooms.config;
                let hello = TokenBucket::new(
                    config.hello_rate_per_sec,
                    config.hello_burst,
                    Instant::now(),
                );
                self.subs.insert(
                    conn,
                    Subscriber {
                        outbox,
                        seat: None,
                        hello,
                        token: None,
                    },
                );
                self.hello(conn, token, since);
                let _ = done.send(());
            }
            Command::Disconnect { conn } => {
                if self.subs.remove(&conn).is_some() {
                    self.after_membership_change();
                }
            }
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
                let _ = reply.send(self.state.snapshot(self.presence(), None, Instant::now()));
            }
            Command::Pgn { reply } => {
                let _ = reply.send(export::pgn(&self.state));
            }
        }
    }

    /// Authenticates (when a token is given) and resyncs one socket.
    fn hello(&mut self, conn: ConnId, token: Option<String>, since: Option<u64>) {
        if let Some(token) = token {
            match self.state.seat_of(&token) {
                Some(color) => {
                    if let Some(sub) = self.subs.get_mut(&conn) {
                        sub.seat = Some(color);
                        sub.token = Some(token);
                    }
                }
                None => {
                    self.rooms
                        .metrics
                        .bad_tokens
                        .fetch_add(1, Ordering::Relaxed);
                    let refusal =
                        Refusal::new(ErrorCode::BadToken, "that token holds no seat in this game");
                    self.send_to(conn, error_msg(&refusal, None));
                }
            }
        }
        self.resync(conn, since);
        if let Some(grant) = self.rematch_grant(conn) {
            self.send_to(conn, rematch_seat_msg(&grant));
        }
        if !self.after_membership_change() {
            let text = self.presence_msg();
            self.send_to(conn, text);
        }
    }

    /// Sends the events after `since`, or a snapshot when they are not all at hand.
    fn resync(&mut self, conn: ConnId, since: Option<u64>) {
        let version = self.state.version();
        if let Some(v) = since {
            if v == version {
                return;
            }
            let first_kept = self.log.front().map(|(first, _)| *first);
            // Replaying is only worth it when it fits in the socket's queue
            // (with room for presence); otherwise one snapshot is better.
            let room_left = self
                .subs
                .get(&conn)
                .map_or(0, |sub| sub.outbox.queue.capacity());
            let missing = usize::try_from(version - v.min(version)).unwrap_or(usize::MAX);
            if v < version && first_kept.is_some_and(|first| first <= v + 1) && missing < room_left
            {
                let missed: Vec<Utf8Bytes> = self
                    .log
                    .iter()
                    .filter(|(ev, _)| *ev > v)
                    .map(|(_, text)| text.clone())
                    .collect();
                for text in missed {
                    self.send_bytes(conn, text);
                }
                return;
            }
        }
        let you = self.subs.get(&conn).and_then(|s| s.seat);
        let text = self.state_text(you);
        self.send_to(conn, text);
    }

    /// The `state` message for one socket: the shared part of the snapshot
    /// (the whole record: 148 KB for a game of 3,000 sub-moves), serialized
    /// once per version and reused by every socket and every `hello` until
    /// the next event, joined with this socket's live fields (clocks as of
    /// now, presence, `you`), which are small.
    fn state_text(&mut self, you: Option<Color>) -> String {
        let version = self.state.version();
        let shared = match &self.snapshot {
            Some((v, text)) if *v == version => Arc::clone(text),
            _ => {
                let text: Arc<str> = Arc::from(self.state.snapshot_shared().to_string());
                self.rooms
                    .metrics
                    .snapshots_serialized
                    .fetch_add(1, Ordering::Relaxed);
                self.snapshot = Some((version, Arc::clone(&text)));
                text
            }
        };
        let live = self
            .state
            .snapshot_live(self.presence(), you, Instant::now())
            .to_string();
        state_message(version, &live, &shared)
    }

    fn presence(&self) -> Presence {
        let mut presence = Presence::default();
        for sub in self.subs.values() {
            match sub.seat {
                Some(Color::White) => presence.white = true,
                Some(Color::Black) => presence.black = true,
                None => presence.spectators += 1,
            }
        }
        presence
    }

    /// Updates away times and tells everyone who is here: at once when a
    /// seat's connection changed, coalesced when only the spectator count
    /// did (so a crowd joining a game does not cost a message per pair).
    /// Returns whether presence was broadcast now.
    fn after_membership_change(&mut self) -> bool {
        let now = Instant::now();
        let presence = self.presence();
        for (color, here) in [
            (Color::White, presence.white),
            (Color::Black, presence.black),
        ] {
            let away = &mut self.away_since[color as usize];
            match (here, *away) {
                (true, _) => *away = None,
                (false, None) => *away = Some(now),
                (false, Some(_)) => {}
            }
        }
        if self.subs.is_empty() {
            self.idle_since = now;
        }
        let last = self.last_presence;
        if presence.white != last.white || presence.black != last.black {
            self.broadcast_presence();
            return true;
        }
        if presence != last && self.presence_due.is_none() {
            self.presence_due = Some(now + SPECTATOR_COALESCE);
        }
        false
    }

    /// The `presence` message. For a taken seat with no socket it also says
    /// in how many ms its opponent may claim victory, so that pages can count
    /// down instead of offering a claim the server would refuse.
    fn presence_msg(&self) -> String {
        let presence = self.presence();
        let now = Instant::now();
        let grace = self.rooms.config.disconnect_grace;
        let claim_in = |color: Color, here: bool| match self.away_since[color as usize] {
            Some(since) if !here && self.state.seat_taken(color) => {
                let left = grace.saturating_sub(now.saturating_duration_since(since));
                json!(u64::try_from(left.as_millis()).unwrap_or(u64::MAX))
            }
            _ => Value::Null,
        };
        server_msg(
            "presence",
            None,
            json!({
                "white": presence.white,
                "black": presence.black,
                "spectators": presence.spectators,
                "claim_in_ms": {
                    "white": claim_in(Color::White, presence.white),
                    "black": claim_in(Color::Black, presence.black),
                },
            }),
        )
    }

    fn broadcast_presence(&mut self) {
        self.last_presence = self.presence();
        self.presence_due = None;
        let text = self.presence_msg();
        self.broadcast(Utf8Bytes::from(text));
    }

    async fn act(&mut self, conn: ConnId, msg: ClientMsg, received: Instant) {
        let Some(seat) = self.subs.get(&conn).map(|s| s.seat) else {
            return;
        };
        if let ClientMsg::Hello { token, v } = msg {
            let allowed = self
                .subs
                .get_mut(&conn)
                .is_some_and(|sub| sub.hello.take(received));
            if !allowed {
                let config = &self.rooms.config;
                let refusal = Refusal::new(
                    ErrorCode::RateLimited,
                    format!(
                        "too many hello messages ({} at once, then {} per second); the connection is kept",
                        config.hello_burst, config.hello_rate_per_sec
                    ),
                );
                self.send_to(conn, error_msg(&refusal, None));
                return;
            }
            self.hello(conn, token, v);
            return;
        }
        if let ClientMsg::Ping = msg {
            self.send_to(conn, server_msg("pong", None, json!({})));
            return;
        }
        let ack_id = match &msg {
            ClientMsg::Move { id, .. } => id.clone(),
            _ => None,
        };
        let Some(color) = seat else {
            let refusal = Refusal::new(ErrorCode::NotAPlayer, "spectators cannot act in the game");
            self.send_to(conn, error_msg(&refusal, ack_id.as_deref()));
            return;
        };
        self.check_timeouts().await;
        let is_move = matches!(msg, ClientMsg::Move { .. });
        if let Err(refusal) = self.player_action(conn, color, msg).await {
            self.send_to(conn, error_msg(&refusal, ack_id.as_deref()));
        } else if is_move {
            self.rooms.metrics.move_latency.observe(received.elapsed());
        }
    }

    async fn player_action(
        &mut self,
        conn: ConnId,
        color: Color,
        msg: ClientMsg,
    ) -> Result<(), Refusal> {
        let now = Instant::now();
        let at = now_ms();
        let state = &self.state;
        let event = match msg {
            ClientMsg::Move { mv, id, v } => {
                // Idempotency first: a re-sent move that was applied is
                // acknowledged again, whatever version it names.
                if let Some(acked) = id.as_deref().and_then(|id| state.acked(color, id)) {
                    self.send_to(conn, ack_msg(id.as_deref(), acked));
                    return Ok(());
                }
                self.test_hook(PanicSite::Handling, mv);
                let state = &self.state;
                state.check_seen(v)?;
                let event = state.decide_move(color, mv, id.clone(), now, at)?;
                self.charge_game_rate(now)?;
                self.publish(vec![event], now, Some((conn, id))).await?;
                self.rooms
                    .metrics
                    .submoves_accepted
                    .fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            ClientMsg::TakebackSubmove => {
                state.decide_takeback(color, self.rooms.config.takebacks, at, now)?
            }
            ClientMsg::Resign => state.decide_resign(color, now, at)?,
            ClientMsg::DrawOffer => state.decide_draw_offer(color, now, at)?,
            ClientMsg::DrawAccept => state.decide_draw_accept(color, now, at)?,
            ClientMsg::DrawDecline => state.decide_draw_decline(color, at)?,
            ClientMsg::DrawClaim { claim } => state.decide_claim(color, claim, now, at)?,
            ClientMsg::Abort => state.decide_abort(now, at)?,
            ClientMsg::ClaimVictory => {
                let grace = self.rooms.config.disconnect_grace;
                let away = self.away_since[(!color) as usize]
                    .is_some_and(|since| now.saturating_duration_since(since) >= grace);
                state.decide_claim_victory(color, away, now, at)?
            }
            ClientMsg::RematchOffer => {
                let seat_hash = self.rematch_seat_hash(conn)?;
                match self.state.decide_rematch_offer(color, seat_hash, at)? {
                    Some(event) => event,
                    None => {
                        self.charge_game_rate(now)?;
                        return self.rematch(conn, color, now).await;
                    }
                }
            }
            ClientMsg::RematchAccept => {
                state.check_rematch_accept(color)?;
                self.charge_game_rate(now)?;
                return self.rematch(conn, color, now).await;
            }
            ClientMsg::Hello { .. } | ClientMsg::Ping => return Ok(()),
        };
        self.charge_game_rate(now)?;
        self.publish(vec![event], now, None).await
    }

    /// Takes one token from the game's bucket for an action that passed its
    /// checks (refusals add nothing to the log and are not charged).
    fn charge_game_rate(&mut self, now: Instant) -> Result<(), Refusal> {
        if self.game_rate.take(now) {
            return Ok(());
        }
        Err(Refusal::new(
            ErrorCode::RateLimited,
            "too many actions in this game; nothing was changed, try again in a moment",
        ))
    }

    /// The hash of the rematch token of the player on socket `conn`.
    fn rematch_seat_hash(&self, conn: ConnId) -> Result<String, Refusal> {
        self.subs
            .get(&conn)
            .and_then(|sub| sub.token.as_deref())
            .map(|token| ids::token_hash(&ids::rematch_token(token, &self.state.id)))
            .ok_or_else(|| Refusal::new(ErrorCode::NotAPlayer, "say hello with your seat token"))
    }

    /// The rematch seat of the player on socket `conn`, when this game has a rematch whose
    /// seats are derived from this game's tokens: recomputed from the socket's token, so it is
    /// handed out whenever the player comes back, after any restart.
    fn rematch_grant(&self, conn: ConnId) -> Option<SeatGrant> {
        let new_id = self.state.derived_rematch_id()?;
        let sub = self.subs.get(&conn)?;
        let (old_color, token) = (sub.seat?, sub.token.as_deref()?);
        Some(SeatGrant {
            id: new_id.to_owned(),
            color: (!old_color).into(),
            token: ids::rematch_token(token, &self.state.id),
            url: format!("/game/{new_id}"),
        })
    }

    /// Creates the rematch game (colours swapped) and records it here in ONE store commit, then
    /// hands each connected player its new seat privately (an absent one gets it when it comes
    /// back: [`Self::rematch_grant`]). `color` accepts the offer of the other side, whose
    /// rematch token hash the offer carries.
    async fn rematch(&mut self, conn: ConnId, color: Color, now: Instant) -> Result<(), Refusal> {
        let mine = self.rematch_seat_hash(conn)?;
        let theirs = match self.state.rematch_offer() {
            Some((by, Some(hash))) if by == !color => hash.to_owned(),
            // An offer stored by an older version has no hash: usable only if its author is
            // here to present its token.
            _ => self
                .subs
                .iter()
                .find(|(_, sub)| sub.seat == Some(!color) && sub.token.is_some())
                .map(|(other, _)| *other)
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
        let (new_commit, new_room) = self.rooms.prepare_rematch(&self.state, seats)?;
        let event = Event::Rematch {
            at_ms: now_ms(),
            id: new_room.id().to_owned(),
            derived_seats: true,
        };
        self.publish_with(vec![event], now, None, vec![new_commit])
            .await?;
        self.rooms.install_new(new_room);
        let conns: Vec<ConnId> = self.subs.keys().copied().collect();
        for conn in conns {
            if let Some(grant) = self.rematch_grant(conn) {
                self.send_to(conn, rematch_seat_msg(&grant));
            }
        }
        Ok(())
    }

    /// HTTP join: the free seat with a fresh token.
    async fn join(&mut self) -> Result<SeatGrant, Refusal> {
        let color = self.state.free_seat().ok_or_else(|| {
            let why = if self.state.is_finished() {
                "the game is over"
            } else {
                "both seats are taken"
            };
            Refusal::new(ErrorCode::SeatTaken, why)
        })?;
        let token = ids::new_token();
        let event = Event::Joined {
            at_ms: now_ms(),
            color: color.into(),
            seat_hash: ids::token_hash(&token),
        };
        self.publish(vec![event], Instant::now(), None).await?;
        self.away_since[color as usize] = Some(Instant::now());
        Ok(SeatGrant {
            id: self.state.id.clone(),
            color: color.into(),
            token,
            url: format!("/game/{}", self.state.id),
        })
    }

    /// Applies `events` (plus a board ending they cause) to the state, commits
    /// them, and only then acknowledges the move and broadcasts. On a store
    /// failure nothing is acknowledged or broadcast and the state is put back
    /// to what the store holds ([`Self::restore_committed`]).
    ///
    /// The events are applied in place, not to a copy: copying the state
    /// copies the whole history (positions, SANs, ack ids), O(game length)
    /// per sub-move, and cost ~40 % of the server's CPU at saturation
    /// (docs/performance.md). Store failures are rare, so the way back is
    /// the slow one: rebuild from the committed events.
    async fn publish(
        &mut self,
        events: Vec<Event>,
        now: Instant,
        ack: Option<(ConnId, Option<String>)>,
    ) -> Result<(), Refusal> {
        self.publish_with(events, now, ack, Vec::new()).await
    }

    /// [`Self::publish`], storing `also` (other games' commits: a rematch's new game) in the
    /// same atomic store commit: all of it is stored or none.
    async fn publish_with(
        &mut self,
        events: Vec<Event>,
        now: Instant,
        ack: Option<(ConnId, Option<String>)>,
        also: Vec<Commit>,
    ) -> Result<(), Refusal> {
        let committed = self.state.version();
        let live = self.state.live_parts();
        let (all, messages) = match self.apply_all(events, now) {
            Ok(applied) => applied,
            Err(refusal) => {
                self.restore_committed(committed, live).await;
                return Err(refusal);
            }
        };
        let commit = Commit {
            game_id: self.state.id.clone(),
            first_seq: committed + 1,
            events: all.iter().map(Event::to_json).collect(),
            listing: self.state.listing(),
        };
        let started = Instant::now();
        let result = if also.is_empty() {
            self.rooms.store.commit(commit).await
        } else {
            let mut all = vec![commit];
            all.extend(also);
            self.rooms.store.commit_all(all).await
        };
        self.rooms.metrics.commit_latency.observe(started.elapsed());
        if let Err(error) = result {
            tracing::warn!(game = %self.state.id, %error, "commit failed");
            self.restore_committed(committed, live).await;
            return Err(Refusal::new(
                ErrorCode::StoreFailure,
                "the game could not be saved; nothing was changed, try again",
            ));
        }
        if let Some(Event::End { winner, reason, .. }) =
            all.iter().find(|e| matches!(e, Event::End { .. }))
        {
            tracing::info!(game = %self.state.id, ?winner, %reason, "game over");
        }
        if let Some((conn, id)) = ack {
            let v = messages.first().map_or(self.state.version(), |(v, _)| *v);
            self.send_to(conn, ack_msg(id.as_deref(), v));
        }
        for (v, text) in messages {
            self.push_log(v, text.clone());
            self.broadcast(text);
        }
        Ok(())
    }

    /// Applies `events` and the board endings they lead to, in place.
    /// Returns every event applied and the public messages, by version.
    fn apply_all(&mut self, mut all: Vec<Event>, now: Instant) -> Result<Applied, Refusal> {
        self.snapshot = None;
        let mut messages = Vec::new();
        let mut applied = 0;
        loop {
            while applied < all.len() {
                let v = self.state.version() + 1;
                let msg = self.state.apply(&all[applied], now).map_err(|e| {
                    tracing::error!(game = %self.state.id, error = %e, "event refused by the state");
                    Refusal::new(ErrorCode::NotAvailable, format!("internal error: {e}"))
                })?;
                if let Some(msg) = msg {
                    messages.push((v, Utf8Bytes::from(msg)));
                }
                applied += 1;
            }
            match self.state.pending_end(now, now_ms()) {
                Some(end) => all.push(end),
                None => break,
            }
        }
        Ok((all, messages))
    }

    fn push_log(&mut self, v: u64, text: Utf8Bytes) {
        self.log.push_back((v, text));
        if self.log.len() > RECENT_EVENTS {
            self.log.pop_front();
        }
    }

    /// After events were applied but not committed: rebuilds the state from
    /// the store's committed events, with the live clocks of the state at
    /// version `committed` put back. Normally the store holds exactly that
    /// version and nobody notices. If it holds more (a commit reported as
    /// failed that did reach the disk) or less, the store is the truth: the
    /// room adopts it and sends every socket a fresh snapshot. If the game
    /// cannot be read back at all, the room retires (its sockets close with
    /// "game retired", clients reconnect and the game is loaded again).
    async fn restore_committed(&mut self, committed: u64, live: LiveParts) {
        self.snapshot = None;
        let id = self.state.id.clone();
        let loaded = match self.rooms.store.load_game(&id).await {
            Ok(Some((_, events))) => {
                GameState::replay(&id, &events, self.rooms.config.first_move, Instant::now())
                    .map_err(|e| e.to_string())
            }
            Ok(None) => Err("the game is not in the store".to_string()),
            Err(e) => Err(e.to_string()),
        };
        let (mut state, recent) = match loaded {
            Ok(replayed) => replayed,
            Err(error) => {
                tracing::error!(game = %id, %error, "cannot reload the game after a failed commit; retiring the room");
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
        self.log.clear();
        for (v, text) in recent {
            self.push_log(v, Utf8Bytes::from(text));
        }
        let conns: Vec<ConnId> = self.subs.keys().copied().collect();
        for conn in conns {
            self.resync(conn, None);
        }
    }

    fn send_to(&mut self, conn: ConnId, text: String) {
        self.send_bytes(conn, Utf8Bytes::from(text));
    }

    fn send_bytes(&mut self, conn: ConnId, text: Utf8Bytes) {
        let Some(sub) = self.subs.get(&conn) else {
            return;
        };
        if !offer(sub, text) {
            self.subs.remove(&conn);
            self.after_membership_change();
        }
    }

    /// Sends to every socket; drops (and reports) those that cannot keep up.
    fn broadcast(&mut self, text: Utf8Bytes) {
        let dropped: Vec<ConnId> = self
            .subs
            .iter()
            .filter(|(_, sub)| !offer(sub, text.clone()))
            .map(|(conn, _)| *conn)
            .collect();
        if dropped.is_empty() {
            return;
        }
        for conn in &dropped {
            self.subs.remove(conn);
        }
        self.after_membership_change();
    }
}

/// Queues `text` for one socket; false when the socket is gone or too slow
/// (then it is marked lagged so that it closes with a reason).
fn offer(sub: &Subscriber, text: Utf8Bytes) -> bool {
    match sub.outbox.queue.try_send(text) {
        Ok(()) => true,
        Err(mpsc::error::TrySendError::Full(_)) => {
            sub.outbox.lagged.store(true, Ordering::Relaxed);
            false
        }
        Err(mpsc::error::TrySendError::Closed(_)) => false,
    }
}

/// `{"t": "state", "v": version, "d": live ∪ shared}` from two serialized
/// JSON objects with disjoint keys, without parsing them again.
fn state_message(version: u64, live: &str, shared: &str) -> String {
    let fields: Vec<&str> = [live, shared]
        .into_iter()
        .map(object_fields)
        .filter(|f| !f.trim().is_empty())
        .collect();
    format!(
        "{{\"t\":\"state\",\"v\":{version},\"d\":{{{}}}}}",
        fields.join(",")
    )
}

/// The text between the braces of a serialized JSON object.
fn object_fields(object: &str) -> &str {
    object
        .trim()
        .strip_prefix('{')
        .and_then(|o| o.strip_suffix('}'))
        .unwrap_or_default()
}

fn ack_msg(id: Option<&str>, v: u64) -> String {
    server_msg("ack", None, json!({"id": id, "v": v}))
}

fn rematch_seat_msg(grant: &SeatGrant) -> String {
    server_msg("rematch_seat", None, json!(grant))
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_message_joins_the_live_and_shared_fields_into_one_object() {
        let live = json!({"clock": null, "you": "white"}).to_string();
        let shared = json!({"moves": [{"uci": "e2e4"}], "fen": "x"}).to_string();
        let text = state_message(7, &live, &shared);
        let parsed: Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(
            parsed,
            json!({"t": "state", "v": 7, "d": {"clock": null, "you": "white", "moves": [{"uci": "e2e4"}], "fen": "x"}})
        );
        let empty: Value = serde_json::from_str(&state_message(1, "{}", &shared)).expect("json");
        assert_eq!(empty["d"]["fen"], "x");
    }
}
