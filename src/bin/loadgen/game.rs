//! One game slot: creates a game over HTTP, connects both players and the
//! spectators over WebSocket, plays random legal sub-moves (taken from the
//! `legal` list the server sends) at the slot's pace, measures latencies,
//! and starts a new game whenever one ends, until the run is over.
//!
//! Both players live in one task (a `select!` over their two sockets), so
//! the send time of a sub-move is at hand when the opponent's copy of the
//! event arrives; spectators run in their own tasks and find send times in
//! a small ring shared with the game task.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;

use marseillais::rules::SubMove;
use marseillais::server::play::protocol::{GameStatus, ServerMsg};

use crate::http;
use crate::long_game;
use crate::rng::Rng;
use crate::stats::Tally;
use crate::ws::{self, Ws};

/// A game with no frame at all for this long is given up (and counted).
const STALL: Duration = Duration::from_secs(15);

/// After the run ends, in-flight moves get this long to be acknowledged and delivered.
const DRAIN: Duration = Duration::from_secs(3);

/// Pause after a failed setup before trying again.
const SETUP_RETRY: Duration = Duration::from_millis(500);

/// The measurement window, known once every slot has set up its first game.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub start: Instant,
    pub end: Instant,
}

impl Window {
    pub fn contains(&self, at: Instant) -> bool {
        at >= self.start && at < self.end
    }
}

/// Where a game's players connect when there are several nodes (`--placement`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Both players (and the spectators) on the node that created the game: the node that
    /// first needs a game claims it, so these sockets are the owner's own and nothing crosses
    /// the bus but the other nodes' listings.
    Owner,
    /// White and Black each on another node than the one that created the game (the owner),
    /// spectators spread over all: every client message is relayed to the owner over the bus and
    /// every event back.
    Other,
}

/// What every slot shares.
pub struct Plan {
    /// The first node (its counters are the report's).
    pub addr: SocketAddr,
    /// Every node (`--addrs`; just `addr` on one node). Games are created on them in turn.
    pub nodes: Vec<SocketAddr>,
    pub placement: Placement,
    /// Games set up so far (which node creates the next one).
    pub next_game: std::sync::atomic::AtomicUsize,
    pub spectators: usize,
    /// Each spectator sends a `hello` this often (`--spectator-hello-rate`).
    pub hello_period: Option<Duration>,
    /// Players choose sub-moves that keep games going (`--long-games`).
    pub long_games: bool,
    /// Time between two sub-moves of one game.
    pub period: Duration,
    /// Limits concurrent game setups (HTTP + WebSocket handshakes).
    pub setups: Semaphore,
    /// The window, sent once every slot is ready.
    pub window: watch::Receiver<Option<Window>>,
    /// Slots report here when their first game is set up (or failed to be).
    pub ready: tokio::sync::mpsc::Sender<()>,
    /// The setup phase's deadline: a slot that cannot set up by then gives up.
    pub setup_deadline: Instant,
}

/// Send times (and movers) of recent sub-moves by the version their event will have.
#[derive(Default)]
struct SentRing([(u64, Option<(Instant, usize)>); 16]);

impl SentRing {
    fn put(&mut self, v: u64, at: Instant, mover: usize) {
        self.0[(v % 16) as usize] = (v, Some((at, mover)));
    }
    fn get(&self, v: u64) -> Option<(Instant, usize)> {
        let (stored, sent) = self.0[(v % 16) as usize];
        if stored == v { sent } else { None }
    }
}

type Shared = Arc<Mutex<SentRing>>;

fn sent_at(ring: &Shared, v: u64) -> Option<(Instant, usize)> {
    ring.lock().ok().and_then(|r| r.get(v))
}

/// Runs one slot until the window ends; returns what it measured.
pub async fn run_slot(plan: Arc<Plan>, slot: usize) -> Tally {
    let mut tally = Tally::default();
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15 ^ (slot as u64).wrapping_mul(0x1000_0001));
    let mut window_rx = plan.window.clone();
    // The first game, during the setup phase.
    let mut game = setup_until(&plan, &mut tally, plan.setup_deadline).await;
    let _ = plan.ready.send(()).await;
    let window = loop {
        if let Some(window) = *window_rx.borrow_and_update() {
            break window;
        }
        if window_rx.changed().await.is_err() {
            return tally;
        }
    };
    // Spread the games' moves evenly over one period.
    let offset = plan
        .period
        .mul_f64(rng.below(1_000_000) as f64 / 1_000_000.0);
    let mut next_due = window.start + offset;
    // Each round plays one game; bounded by the window (a game that
    // cannot be set up sleeps before the next attempt).
    while Instant::now() < window.end {
        let Some(g) = game.take() else {
            game = setup_until(&plan, &mut tally, window.end).await;
            continue;
        };
        next_due = g.play(&plan, window, next_due, &mut rng, &mut tally).await;
    }
    if let Some(g) = game {
        g.close().await;
    }
    tally
}

/// Sets up a game, retrying until `deadline`.
async fn setup_until(plan: &Plan, tally: &mut Tally, deadline: Instant) -> Option<Game> {
    while Instant::now() < deadline {
        let attempt = {
            let Ok(_permit) = plan.setups.acquire().await else {
                return None;
            };
            tokio::time::timeout_at(deadline.into(), Game::setup(plan)).await
        };
        match attempt {
            Ok(Ok(game)) => {
                tally.games_started += 1;
                return Some(game);
            }
            Ok(Err(error)) => {
                tally.setup_failures += 1;
                verbose(&format!("game setup failed: {error}"));
                tokio::time::sleep(SETUP_RETRY).await;
            }
            Err(_) => return None,
        }
    }
    None
}

/// Setup failures are counted in the report; `LOADGEN_VERBOSE=1` also prints why.
fn verbose(text: &str) {
    if std::env::var_os("LOADGEN_VERBOSE").is_some() {
        eprintln!("loadgen: {text}");
    }
}

#[derive(Debug, thiserror::Error)]
enum SetupError {
    #[error("http: {0}")]
    Http(#[from] http::HttpError),
    #[error("websocket: {0}")]
    Ws(#[from] ws::ConnectError),
    #[error("reply without {0}")]
    Missing(&'static str),
}

struct Game {
    /// Index 0 white, 1 black.
    players: [Ws; 2],
    spectators: Vec<JoinHandle<Tally>>,
    stop_spectators: watch::Sender<bool>,
    ring: Shared,
}

fn field(value: &Value, name: &'static str) -> Result<String, SetupError> {
    value
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or(SetupError::Missing(name))
}

impl Game {
    async fn setup(plan: &Plan) -> Result<Game, SetupError> {
        let n = plan.nodes.len().max(1);
        let home = plan
            .next_game
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            % n;
        let node = |i: usize| plan.nodes.get(i % n).copied().unwrap_or(plan.addr);
        let (white_at, black_at) = match plan.placement {
            Placement::Owner => (node(home), node(home)),
            // With two nodes both players share the other one.
            Placement::Other => (node(home + 1), node(home + n.saturating_sub(1).max(1))),
        };
        let created_at = node(home);
        let created = http::expect_ok(
            created_at,
            "POST",
            "/api/games",
            Some(r#"{"color":"white"}"#),
        )
        .await?;
        let created: Value = serde_json::from_str(&created).map_err(http::HttpError::from)?;
        let id = field(&created, "id")?;
        let white_token = field(&created, "token")?;
        let joined =
            http::expect_ok(created_at, "POST", &format!("/api/games/{id}/join"), None).await?;
        let joined: Value = serde_json::from_str(&joined).map_err(http::HttpError::from)?;
        let black_token = field(&joined, "token")?;
        let white = ws::connect(white_at, &format!("/ws/game/{id}?token={white_token}")).await?;
        let black = ws::connect(black_at, &format!("/ws/game/{id}?token={black_token}")).await?;
        let ring: Shared = Arc::default();
        let (stop_spectators, stop_rx) = watch::channel(false);
        let mut spectators = Vec::with_capacity(plan.spectators);
        for i in 0..plan.spectators {
            let at = match plan.placement {
                Placement::Owner => created_at,
                Placement::Other => node(home + 1 + i),
            };
            let socket = ws::connect(at, &format!("/ws/game/{id}")).await?;
            spectators.push(tokio::spawn(spectate(
                socket,
                plan.hello_period,
                Arc::clone(&ring),
                plan.window.clone(),
                stop_rx.clone(),
            )));
        }
        Ok(Game {
            players: [white, black],
            spectators,
            stop_spectators,
            ring,
        })
    }

    /// Plays until the game ends, stalls, or the window ends (then drains).
    /// Returns when the next sub-move of the slot is due.
    async fn play(
        mut self,
        plan: &Plan,
        window: Window,
        mut next_due: Instant,
        rng: &mut Rng,
        tally: &mut Tally,
    ) -> Instant {
        let mut view = View::default();
        let mut next_id: u64 = 1;
        let mut last_frame = Instant::now();
        let mut drain_until: Option<Instant> = None;
        let [white, black] = &mut self.players;
        let outcome = loop {
            let now = Instant::now();
            if drain_until.is_none() && now >= window.end {
                drain_until = Some(now + DRAIN);
            }
            if drain_until.is_some() && view.in_flight.is_none() && view.undelivered.is_none() {
                break Ended::Window;
            }
            if view.over {
                break Ended::Game;
            }
            let mover = view.mover();
            let can_move = drain_until.is_none() && mover.is_some();
            let stall_at = last_frame + STALL;
            let wake_at = drain_until.unwrap_or(window.end).min(stall_at);
            tokio::select! {
                frame = white.next() => {
                    last_frame = Instant::now();
                    if let Err(code) = view.on_frame(0, frame, &self.ring, window, tally) {
                        *tally.closes.entry(code).or_default() += 1;
                        break Ended::Closed;
                    }
                }
                frame = black.next() => {
                    last_frame = Instant::now();
                    if let Err(code) = view.on_frame(1, frame, &self.ring, window, tally) {
                        *tally.closes.entry(code).or_default() += 1;
                        break Ended::Closed;
                    }
                }
                _ = tokio::time::sleep_until(next_due.into()), if can_move => {
                    let Some(side) = mover else { continue };
                    let text = ws::move_text(view.choose(plan.long_games, rng), next_id);
                    let v = view.v + 1;
                    let socket = if side == 0 { &mut *white } else { &mut *black };
                    let at = Instant::now();
                    if let Ok(mut ring) = self.ring.lock() {
                        ring.put(v, at, side);
                    }
                    if socket.send(Message::Text(text.into())).await.is_err() {
                        *tally.closes.entry(0).or_default() += 1;
                        break Ended::Closed;
                    }
                    if window.contains(at) {
                        tally.sent += 1;
                    }
                    view.in_flight = Some((v, side));
                    view.undelivered = Some((v, 1 - side));
                    next_id += 1;
                    next_due = (next_due + plan.period).max(at);
                }
                _ = tokio::time::sleep_until(wake_at.into()) => {
                    let now = Instant::now();
                    if drain_until.is_some_and(|until| now >= until) {
                        break Ended::Window;
                    }
                    if now >= stall_at {
                        break Ended::Stalled;
                    }
                }
            }
        };
        match outcome {
            Ended::Game => tally.games_finished += 1,
            Ended::Stalled => tally.games_stalled += 1,
            Ended::Window | Ended::Closed => {}
        }
        self.close_and_collect(tally).await;
        next_due
    }

    async fn close_and_collect(self, tally: &mut Tally) {
        let spectators = self.close_players().await;
        for handle in spectators {
            if let Ok(t) = handle.await {
                tally.merge(t);
            }
        }
    }

    /// Closes the players and tells the spectators to stop; returns their tasks.
    async fn close_players(self) -> Vec<JoinHandle<Tally>> {
        let Game {
            players,
            spectators,
            stop_spectators,
            ..
        } = self;
        let _ = stop_spectators.send(true);
        for mut socket in players {
            let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
        }
        spectators
    }

    async fn close(self) {
        for handle in self.close_players().await {
            let _ = handle.await;
        }
    }
}

/// How [`Counted::drive`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drive {
    /// The game has `target` acknowledged sub-moves and none in flight.
    Reached,
    /// The game ended (a random game may: mate, repetition, 75-move rule).
    Over,
    /// The server closed a player's socket.
    Closed,
    /// Nothing arrived for [`STALL`] while sub-moves were still due.
    Stalled,
    /// The target changed (or its sender is gone).
    Changed,
}

/// `--mode memory`: one game played up to a given number of acknowledged
/// sub-moves, as fast as the server answers, then held open (its sockets
/// still read, so pings are answered) until the next target.
pub struct Counted {
    game: Game,
    view: View,
    next_id: u64,
    /// `tally.acked_total` when this game was set up.
    acked_before: u64,
}

impl Counted {
    /// Sets up a game (retrying until `deadline`).
    pub async fn setup(plan: &Plan, tally: &mut Tally, deadline: Instant) -> Option<Counted> {
        let game = setup_until(plan, tally, deadline).await?;
        Some(Counted {
            game,
            view: View::default(),
            next_id: 1,
            acked_before: tally.acked_total,
        })
    }

    /// Plays random legal sub-moves until `target` are acknowledged (returns
    /// `Reached`, unless `hold`: then it only reads, sending nothing more),
    /// until the game ends, or until `targets` changes.
    pub async fn drive(
        &mut self,
        target: u64,
        hold: bool,
        targets: &mut watch::Receiver<u64>,
        long_games: bool,
        rng: &mut Rng,
        tally: &mut Tally,
    ) -> Drive {
        // Nothing is measured in time here: an empty window records no samples.
        let now = Instant::now();
        let window = Window {
            start: now,
            end: now,
        };
        let mut last_frame = now;
        let view = &mut self.view;
        let [white, black] = &mut self.game.players;
        loop {
            if view.over {
                return Drive::Over;
            }
            let accepted = tally.acked_total - self.acked_before;
            let settled = view.awaiting_ack.is_none() && view.in_flight.is_none();
            if !hold && accepted >= target && settled {
                return Drive::Reached;
            }
            let mover = if accepted < target && view.awaiting_ack.is_none() {
                view.mover()
            } else {
                None
            };
            let moving = accepted < target;
            tokio::select! {
                frame = white.next() => {
                    last_frame = Instant::now();
                    if let Err(code) = view.on_frame(0, frame, &self.game.ring, window, tally) {
                        *tally.closes.entry(code).or_default() += 1;
                        return Drive::Closed;
                    }
                }
                frame = black.next() => {
                    last_frame = Instant::now();
                    if let Err(code) = view.on_frame(1, frame, &self.game.ring, window, tally) {
                        *tally.closes.entry(code).or_default() += 1;
                        return Drive::Closed;
                    }
                }
                _ = std::future::ready(()), if mover.is_some() => {
                    let Some(side) = mover else { continue };
                    let text = ws::move_text(view.choose(long_games, rng), self.next_id);
                    let socket = if side == 0 { &mut *white } else { &mut *black };
                    if socket.send(Message::Text(text.into())).await.is_err() {
                        *tally.closes.entry(0).or_default() += 1;
                        return Drive::Closed;
                    }
                    tally.sent += 1;
                    view.in_flight = Some((view.v + 1, side));
                    view.awaiting_ack = Some(side);
                    self.next_id += 1;
                }
                _ = targets.changed() => return Drive::Changed,
                _ = tokio::time::sleep_until((last_frame + STALL).into()), if moving => {
                    return Drive::Stalled;
                }
            }
        }
    }

    /// Closes the players and spectators, merging what the spectators counted.
    pub async fn close(self, tally: &mut Tally) {
        self.game.close_and_collect(tally).await;
    }
}

enum Ended {
    Game,
    Window,
    Stalled,
    Closed,
}

/// What the players know of the game.
#[derive(Default)]
struct View {
    /// Latest version seen on either player socket.
    v: u64,
    /// 0 white, 1 black; `None` before the first state or once over.
    turn: Option<usize>,
    legal: Vec<SubMove>,
    /// The position's FEN, as the last event gave it.
    fen: String,
    over: bool,
    /// The move whose event has not been seen yet: (expected version, mover).
    in_flight: Option<(u64, usize)>,
    /// The last move whose event the opponent has not received yet: (version, opponent).
    undelivered: Option<(u64, usize)>,
    /// The side whose last sub-move has neither its `ack` nor an `error` yet
    /// (kept by `--mode memory`, which counts acknowledged sub-moves exactly).
    awaiting_ack: Option<usize>,
}

impl View {
    /// A random legal sub-move (one that keeps the game going with `long_games`).
    fn choose(&self, long_games: bool, rng: &mut Rng) -> SubMove {
        if long_games {
            self.legal[long_game::choose(&self.legal, &self.fen, rng)]
        } else {
            self.legal[rng.below(self.legal.len())]
        }
    }

    /// The side that may send now: its turn, position known, nothing in flight.
    fn mover(&self) -> Option<usize> {
        if self.over || self.in_flight.is_some() || self.legal.is_empty() {
            return None;
        }
        self.turn
    }

    /// Handles one frame read by player `side`; `Err(close code)` when the socket ended.
    fn on_frame(
        &mut self,
        side: usize,
        frame: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
        ring: &Shared,
        window: Window,
        tally: &mut Tally,
    ) -> Result<(), u16> {
        let now = Instant::now();
        let text = match frame {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Close(frame))) => return Err(frame.map_or(0, |f| f.code.into())),
            Some(Ok(_)) => return Ok(()),
            Some(Err(_)) | None => return Err(0),
        };
        // Both players receive every event: only the first copy of a
        // version is read in full; the other only needs `t` and `v`.
        let Ok(head) = serde_json::from_str::<ws::Versioned>(text.as_str()) else {
            tally.unparsed += 1;
            return Ok(());
        };
        match head.t {
            "move" => {
                let v = head.v.unwrap_or(0);
                let sent = sent_at(ring, v);
                if let Some((at, mover)) = sent
                    && mover != side
                {
                    if window.contains(at) {
                        tally.to_opponent.record(now - at);
                    }
                    if self.undelivered.is_some_and(|(u, _)| u <= v) {
                        self.undelivered = None;
                    }
                    tally.move_event_bytes += text.len() as u64;
                    tally.move_events += 1;
                }
                if v > self.v {
                    let Some(ServerMsg::Move { v, d }) = ws::parse(text.as_str()) else {
                        tally.unparsed += 1;
                        return Ok(());
                    };
                    self.v = v;
                    self.turn = Some(ws::side_index(d.turn));
                    self.legal = d.legal;
                    self.fen = d.fen;
                }
                if self.in_flight.is_some_and(|f| f.0 <= v) {
                    self.in_flight = None;
                }
            }
            "state" | "ack" | "error" => {
                let Some(msg) = ws::parse(text.as_str()) else {
                    tally.unparsed += 1;
                    return Ok(());
                };
                self.on_message(side, now, msg, ring, window, tally);
            }
            "end" => {
                // Both players receive it: count the first copy.
                if !self.over {
                    let reason = match ws::parse(text.as_str()) {
                        Some(ServerMsg::End { d, .. }) => d.reason.as_str(),
                        _ => "unknown",
                    };
                    *tally.endings.entry(reason.to_string()).or_default() += 1;
                }
                self.over = true;
                self.turn = None;
            }
            _ => {
                if let Some(v) = head.v {
                    self.v = self.v.max(v);
                }
            }
        }
        Ok(())
    }

    fn on_message(
        &mut self,
        side: usize,
        now: Instant,
        msg: ServerMsg,
        ring: &Shared,
        window: Window,
        tally: &mut Tally,
    ) {
        match msg {
            ServerMsg::State { v, d } if v >= self.v => {
                let Ok(shared) = d.shared.parse() else {
                    tally.unparsed += 1;
                    return;
                };
                self.v = v;
                self.turn = Some(ws::side_index(shared.turn));
                self.legal = shared.legal;
                self.fen = shared.fen;
                self.over = shared.status == GameStatus::Finished;
            }
            ServerMsg::Ack(ack) => {
                // The opponent's copy of the event may have been read first
                // (and cleared `in_flight`), so acks go by the ring.
                tally.acked_total += 1;
                if self.awaiting_ack == Some(side) {
                    self.awaiting_ack = None;
                }
                if window.contains(now) {
                    tally.acked += 1;
                }
                if let Some((at, _)) = sent_at(ring, ack.v)
                    && window.contains(at)
                {
                    tally.to_ack.record(now - at);
                }
            }
            ServerMsg::Error(error) => {
                *tally.errors.entry(ws::code_name(error.code)).or_default() += 1;
                // A refused move: choose again from what we know.
                if self.in_flight.is_some_and(|f| f.1 == side) {
                    self.in_flight = None;
                    self.undelivered = None;
                }
                if self.awaiting_ack == Some(side) {
                    self.awaiting_ack = None;
                }
            }
            _ => {}
        }
    }
}

/// A spectator: reads every frame, measures send-to-spectator latency of
/// `move` events, and stops at the game's end, on `stop`, or when closed.
async fn spectate(
    mut socket: Ws,
    hello_period: Option<Duration>,
    ring: Shared,
    window: watch::Receiver<Option<Window>>,
    mut stop: watch::Receiver<bool>,
) -> Tally {
    let mut tally = Tally::default();
    let mut hello = hello_period.map(|period| {
        let mut timer = tokio::time::interval(period);
        timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        timer
    });
    let in_window = |at: Instant| window.borrow().is_some_and(|w| w.contains(at));
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            _ = async {
                match hello.as_mut() {
                    Some(timer) => {
                        timer.tick().await;
                    }
                    None => std::future::pending().await,
                }
            } => {
                if socket.send(Message::text(r#"{"t":"hello"}"#)).await.is_err() {
                    break;
                }
                if in_window(Instant::now()) {
                    tally.hellos_sent += 1;
                }
            }
            frame = socket.next() => {
                let now = Instant::now();
                let text = match frame {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(frame))) => {
                        *tally.closes.entry(frame.map_or(0, |f| f.code.into())).or_default() += 1;
                        break;
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(_)) | None => {
                        *tally.closes.entry(0).or_default() += 1;
                        break;
                    }
                };
                let Ok(msg) = serde_json::from_str::<ws::Versioned>(text.as_str()) else {
                    tally.unparsed += 1;
                    continue;
                };
                match (msg.t, msg.v) {
                    ("move", Some(v)) => {
                        let w = *window.borrow();
                        if let (Some((at, _)), Some(w)) = (sent_at(&ring, v), w)
                            && w.contains(at)
                        {
                            tally.to_spectator.record(now - at);
                        }
                    }
                    ("end", _) => break,
                    ("state", _) if in_window(now) => {
                        tally.states += 1;
                        tally.state_bytes += text.len() as u64;
                    }
                    ("error", _) => {
                        let code = match ws::parse(text.as_str()) {
                            Some(ServerMsg::Error(e)) => ws::code_name(e.code),
                            _ => "unknown".to_string(),
                        };
                        *tally.errors.entry(format!("spectator {code}")).or_default() += 1;
                    }
                    _ => {}
                }
            }
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
    tally
}
