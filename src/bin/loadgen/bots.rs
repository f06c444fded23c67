//! `--mode bots`: games against the server's computer opponent, the load
//! whose effect on human games issue 10 asks to measure. Each bot slot
//! creates a computer game (`POST /api/games` with `"computer": {"level":
//! N}`), holds the human seat over one WebSocket and answers every computer
//! turn at once with random legal sub-moves, so that the engine pool always
//! has work; when a game ends it starts another, until told to stop.
//!
//! It counts the computer's sub-moves (by the time their event arrived, so
//! the caller can take those of a window) and the time from the human
//! sub-move that handed the turn over to the computer's first sub-move (its
//! thinking plus any wait for an engine slot).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, watch};
use tokio_tungstenite::tungstenite::Message;

use marseillais::rules::SubMove;
use marseillais::server::play::protocol::{ClientMsg, GameStatus, ServerMsg, Side};

use crate::http;
use crate::rng::Rng;
use crate::stats::Samples;
use crate::ws::{self, Ws};

/// Pause after a failed setup before trying again.
const SETUP_RETRY: Duration = Duration::from_millis(500);

/// What every bot slot shares.
pub struct BotPlan {
    pub addr: SocketAddr,
    /// The computer's level, 1..=8.
    pub level: u8,
    /// `(base_secs, increment_secs)`, or `None` for an untimed game.
    pub clock: Option<(u64, u64)>,
    /// Limits concurrent game setups.
    pub setups: Semaphore,
    /// Each slot reports here once its first game is set up (`true`) or could not be.
    pub ready: tokio::sync::mpsc::Sender<bool>,
    pub setup_deadline: Instant,
    /// Becomes `true` when the slots must close their games and return.
    pub stop: watch::Receiver<bool>,
}

impl BotPlan {
    /// The create body of one game; the human (the load generator) plays `human`.
    pub fn create_body(&self, human: Side) -> String {
        let clock = self
            .clock
            .map(|(base, inc)| json!({"base_secs": base, "increment_secs": inc}));
        let color = match human {
            Side::White => "white",
            Side::Black => "black",
        };
        json!({"color": color, "clock": clock, "computer": {"level": self.level}}).to_string()
    }
}

/// What one bot slot saw.
#[derive(Default)]
pub struct BotTally {
    pub games_started: u64,
    pub games_finished: u64,
    pub setup_failures: u64,
    /// When each of the computer's sub-moves arrived.
    pub computer_moves: Vec<Instant>,
    /// Sub-moves the load generator played for the human side.
    pub human_moves: u64,
    /// (when the computer's first sub-move arrived, how long after the human handed the turn over).
    pub replies: Vec<(Instant, Duration)>,
    pub endings: BTreeMap<String, u64>,
    pub errors: BTreeMap<String, u64>,
    pub closes: BTreeMap<u16, u64>,
    pub unparsed: u64,
}

impl BotTally {
    pub fn merge(&mut self, other: BotTally) {
        self.games_started += other.games_started;
        self.games_finished += other.games_finished;
        self.setup_failures += other.setup_failures;
        self.computer_moves.extend(other.computer_moves);
        self.human_moves += other.human_moves;
        self.replies.extend(other.replies);
        for (k, v) in other.endings {
            *self.endings.entry(k).or_default() += v;
        }
        for (k, v) in other.errors {
            *self.errors.entry(k).or_default() += v;
        }
        for (k, v) in other.closes {
            *self.closes.entry(k).or_default() += v;
        }
        self.unparsed += other.unparsed;
    }

    /// The computer's sub-moves that arrived in `[start, end)`.
    pub fn computer_moves_between(&self, start: Instant, end: Instant) -> u64 {
        self.computer_moves
            .iter()
            .filter(|&&at| at >= start && at < end)
            .count() as u64
    }

    /// The computer's reply times of the replies that arrived in `[start, end)` (a reply can
    /// take longer than a window when many games wait for one engine slot).
    pub fn replies_between(&self, start: Instant, end: Instant) -> Samples {
        let mut samples = Samples::default();
        for &(at, took) in &self.replies {
            if at >= start && at < end {
                samples.record(took);
            }
        }
        samples
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

/// Runs one bot slot until `stop`; slot parity picks the human's colour.
pub async fn run_slot(plan: std::sync::Arc<BotPlan>, slot: usize) -> BotTally {
    let mut tally = BotTally::default();
    let mut rng = Rng::new(0xB07_5EED ^ (slot as u64).wrapping_mul(0x9E37_79B9));
    let human = if slot.is_multiple_of(2) {
        Side::White
    } else {
        Side::Black
    };
    let mut stop = plan.stop.clone();
    let mut first = true;
    // Also ends if the stop sender is gone (`has_changed` errs).
    while !*stop.borrow() && stop.has_changed().is_ok() {
        let game = setup(&plan, human, &mut tally, &mut stop).await;
        if first {
            first = false;
            let _ = plan.ready.send(game.is_some()).await;
        }
        let Some(socket) = game else {
            if *stop.borrow() {
                break;
            }
            tokio::select! {
                _ = tokio::time::sleep(SETUP_RETRY) => continue,
                _ = stop.changed() => break,
            }
        };
        play(socket, human, None, &mut stop, &mut rng, &mut tally).await;
    }
    tally
}

/// Creates one computer game and connects its human seat (retrying until
/// the setup deadline for the first game, once afterwards).
async fn setup(
    plan: &BotPlan,
    human: Side,
    tally: &mut BotTally,
    stop: &mut watch::Receiver<bool>,
) -> Option<Ws> {
    loop {
        let attempt = {
            let Ok(_permit) = plan.setups.acquire().await else {
                return None;
            };
            connect(plan, human).await
        };
        match attempt {
            Ok(socket) => {
                tally.games_started += 1;
                return Some(socket);
            }
            Err(error) => {
                tally.setup_failures += 1;
                if std::env::var_os("LOADGEN_VERBOSE").is_some() {
                    eprintln!("loadgen: computer game setup failed: {error}");
                }
                // A refusal of the request itself (400: a server without computer games)
                // will not change on a retry; a busy server (429, 5xx) may.
                let refused = matches!(
                    &error,
                    SetupError::Http(http::HttpError::Status { status, .. })
                        if (400..500).contains(status) && *status != 429
                );
                if refused || *stop.borrow() || Instant::now() >= plan.setup_deadline {
                    return None;
                }
                tokio::select! {
                    _ = tokio::time::sleep(SETUP_RETRY) => {}
                    _ = stop.changed() => return None,
                }
            }
        }
    }
}

async fn connect(plan: &BotPlan, human: Side) -> Result<Ws, SetupError> {
    let body = plan.create_body(human);
    let created = http::expect_ok(plan.addr, "POST", "/api/games", Some(&body)).await?;
    let created: Value = serde_json::from_str(&created).map_err(http::HttpError::from)?;
    let field = |name: &'static str| {
        created
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or(SetupError::Missing(name))
    };
    let (id, token) = (field("id")?, field("token")?);
    Ok(ws::connect(plan.addr, &format!("/ws/game/{id}?token={token}")).await?)
}

/// What the human seat knows of its game.
struct Seat {
    human: Side,
    v: u64,
    turn: Option<Side>,
    legal: Vec<SubMove>,
    over: bool,
    /// A sub-move sent and neither played nor refused yet.
    in_flight: bool,
    /// When the last human sub-move was sent.
    last_sent: Option<Instant>,
    /// The turn was handed to the computer by the sub-move sent at this time.
    awaiting_reply: Option<Instant>,
}

/// Plays one game to its end (or until `stop`; or, with `resign_after`, resigns once it has
/// sent that many sub-moves), then closes the socket.
pub async fn play(
    mut socket: Ws,
    human: Side,
    resign_after: Option<u64>,
    stop: &mut watch::Receiver<bool>,
    rng: &mut Rng,
    tally: &mut BotTally,
) {
    let mut seat = Seat {
        human,
        v: 0,
        turn: None,
        legal: Vec::new(),
        over: false,
        in_flight: false,
        last_sent: None,
        awaiting_reply: None,
    };
    let mut next_id: u64 = 1;
    // Bounded by `stop` (the caller raises it when the run ends) and by the game's end.
    let mut resigned = false;
    while !seat.over {
        if !resigned && resign_after.is_some_and(|n| next_id > n) {
            let resign = ClientMsg::Resign.to_text();
            if socket.send(Message::Text(resign.into())).await.is_err() {
                break;
            }
            resigned = true;
        }
        if !resigned && !seat.in_flight && seat.turn == Some(human) && !seat.legal.is_empty() {
            let mv = seat.legal[rng.below(seat.legal.len())];
            let text = ws::move_text(mv, next_id);
            next_id += 1;
            if socket.send(Message::Text(text.into())).await.is_err() {
                *tally.closes.entry(0).or_default() += 1;
                break;
            }
            seat.in_flight = true;
            seat.last_sent = Some(Instant::now());
        }
        tokio::select! {
            _ = stop.changed() => break,
            frame = socket.next() => {
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
                match ws::parse(text.as_str()) {
                    Some(msg) => seat.on_message(msg, tally),
                    None => tally.unparsed += 1,
                }
            }
        }
    }
    if seat.over {
        tally.games_finished += 1;
    } else {
        // Stopped mid-game: resign, so that the computer does not go on thinking (and
        // taking an engine slot) in a game nobody plays any more.
        let resign = ClientMsg::Resign.to_text();
        let _ = tokio::time::timeout(
            Duration::from_secs(1),
            socket.send(Message::Text(resign.into())),
        )
        .await;
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
}

impl Seat {
    fn on_message(&mut self, msg: ServerMsg, tally: &mut BotTally) {
        let now = Instant::now();
        match msg {
            ServerMsg::State { v, d } if v >= self.v => {
                let Ok(shared) = d.shared.parse() else {
                    tally.unparsed += 1;
                    return;
                };
                self.v = v;
                self.turn = Some(shared.turn);
                self.legal = shared.legal;
                self.over = shared.status == GameStatus::Finished;
                // A snapshot answers whatever was in flight.
                self.in_flight = false;
            }
            ServerMsg::Move { v, d } if v > self.v => {
                self.v = v;
                if d.color == self.human {
                    tally.human_moves += 1;
                    self.in_flight = false;
                    if d.turn != self.human {
                        self.awaiting_reply = self.last_sent;
                    }
                } else {
                    tally.computer_moves.push(now);
                    if let Some(at) = self.awaiting_reply.take() {
                        tally.replies.push((now, now - at));
                    }
                }
                self.turn = Some(d.turn);
                self.legal = d.legal;
            }
            ServerMsg::End { d, .. } => {
                let reason = serde_json::to_value(d.reason)
                    .ok()
                    .and_then(|r| r.as_str().map(str::to_string))
                    .unwrap_or_else(|| "unknown".to_string());
                *tally.endings.entry(reason).or_default() += 1;
                self.over = true;
            }
            ServerMsg::Error(error) => {
                *tally.errors.entry(ws::code_name(error.code)).or_default() += 1;
                // A refused sub-move: choose again from what we know.
                self.in_flight = false;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(clock: Option<(u64, u64)>) -> BotPlan {
        let (_ready, _) = tokio::sync::mpsc::channel(1);
        let (_, stop) = watch::channel(false);
        BotPlan {
            addr: SocketAddr::from(([127, 0, 0, 1], 1)),
            level: 8,
            clock,
            setups: Semaphore::new(1),
            ready: _ready,
            setup_deadline: Instant::now(),
            stop,
        }
    }

    #[test]
    fn a_computer_game_is_asked_for_with_the_humans_colour_the_level_and_the_clock() {
        let body: Value =
            serde_json::from_str(&plan(Some((180, 2))).create_body(Side::Black)).expect("JSON");
        assert_eq!(
            body,
            json!({"color": "black", "clock": {"base_secs": 180, "increment_secs": 2},
                   "computer": {"level": 8}})
        );
        let untimed: Value =
            serde_json::from_str(&plan(None).create_body(Side::White)).expect("JSON");
        assert_eq!(untimed["clock"], Value::Null);
        assert_eq!(untimed["color"], json!("white"));
    }

    #[test]
    fn only_the_computers_moves_and_replies_inside_a_window_are_counted() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let tally = BotTally {
            computer_moves: vec![at(0), at(100), at(200), at(300)],
            replies: vec![
                (at(50), Duration::from_millis(7)),
                (at(400), Duration::ZERO),
            ],
            ..BotTally::default()
        };
        assert_eq!(tally.computer_moves_between(at(100), at(300)), 2);
        let replies = tally
            .replies_between(at(0), at(300))
            .summary()
            .expect("one");
        assert_eq!(replies.count, 1);
        assert!((replies.p50_ms - 7.0).abs() < 1e-9);
    }
}
