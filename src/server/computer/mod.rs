//! The computer as a seat of a game: one task per live game against the computer (the
//! driver), started by the registry whenever such a game's room is installed (create,
//! restore at startup, reload from the store, rematch). It joins the room as an in-process
//! [`Agent`] holding the computer's seat by a [`ComputerProof`] (no token), follows the game
//! from the same messages a socket gets, and on its turn searches on the server's
//! [`EnginePool`] (never on an async worker) with the engine of the thread it runs on and the
//! few bytes the game keeps between searches ([`thread_engine`]), then sends the move as
//! a socket would: a `move` with an ack id, decided, committed and acknowledged like a human's.
//!
//! What it answers: a draw offer is declined (the computer plays on; a person who wants a
//! draw can abort early or play it out); a rematch offer is accepted (a new game against the
//! same level, colours swapped); it never offers, takes back, aborts, resigns or claims (not
//! even victory on abandonment). After the end it stays a while for a rematch offer, while
//! the person is connected (see [`LINGER_AWAY`]), then leaves so that the room can retire.
//!
//! Bounded everywhere: a refused move (a bug) is logged and the driver resyncs, at most
//! [`MAX_REFUSALS`] times in a row; a dropped connection (the room's queue was full) is
//! re-attached at most [`MAX_ATTACHES`] times; a search in flight is cancelled by dropping
//! its future when the position it was for is gone (the pool raises its stop flag).

pub mod admission;
pub mod backlog;
pub mod engine_pool;
pub mod seat;
pub mod think;
pub mod thread_engine;
mod view;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

pub use seat::ComputerProof;
use think::ComputerPace;
use thread_engine::GameMemory;
use view::View;

use crate::engine::SearchResult;
use crate::engine::level::splitmix;
use crate::rules::Color;
use crate::server::computer::engine_pool::{EngineFailed, EnginePool};
use crate::server::game::ComputerSeat;
use crate::server::metrics::Metrics;
use crate::server::play::protocol::{ClientMsg, ServerMsg};
use crate::server::play::room::Room;
use crate::server::play::room::agent::Agent;

/// Refused moves in a row before the driver gives up on the game (a bug: it should never
/// happen). The person can then claim victory on abandonment, or the clock ends the game.
pub const MAX_REFUSALS: u32 = 5;

/// Times the driver joins its room again after being dropped for falling behind.
pub const MAX_ATTACHES: u32 = 5;

/// The pause before asking for a fresh `state` after a refusal.
pub const RESYNC_PAUSE: Duration = Duration::from_secs(1);

/// After the end: how long the person may be away before the driver leaves.
pub const LINGER_AWAY: Duration = Duration::from_secs(5);

/// After the end: the longest the driver waits for a rematch offer at all.
pub const LINGER_MAX: Duration = Duration::from_secs(600);

/// A search on the pool, with the game's memory it took along.
type Search =
    Pin<Box<dyn Future<Output = Result<(GameMemory, SearchResult), EngineFailed>> + Send>>;

/// Starts the driver of the computer's seat of the game in `room`.
pub fn spawn(
    room: Arc<Room>,
    engines: Arc<EnginePool>,
    metrics: Arc<Metrics>,
    seat: ComputerSeat,
    queue: usize,
    pace: ComputerPace,
) {
    let memory = GameMemory::new(seat.level, game_seed(&room.id));
    let driver = Driver {
        room,
        engines,
        metrics,
        seat,
        queue,
        pace,
        memory: Some(memory),
        moves_sent: 0,
    };
    tokio::spawn(driver.run());
}

/// The level noise seed of a game: from its id, so that two games differ and a restarted
/// game keeps its character.
fn game_seed(id: &str) -> u64 {
    id.bytes()
        .fold(0x4d61_7273_6569_6c6c, |h, b| splitmix(h ^ u64::from(b)))
}

/// Why a session with the room ended.
enum Exit {
    /// The game needs the computer no more (over, rematched, or given up on).
    Done,
    /// The room dropped the connection, or stopped.
    Dropped,
}

struct Driver {
    room: Arc<Room>,
    engines: Arc<EnginePool>,
    metrics: Arc<Metrics>,
    seat: ComputerSeat,
    queue: usize,
    pace: ComputerPace,
    /// What the game keeps between searches (with the search during one; a fresh one if that
    /// search was given up).
    memory: Option<GameMemory>,
    /// Ack ids are unique per driver run: `c{version}-{count}`.
    moves_sent: u64,
}

impl Driver {
    async fn run(mut self) {
        for _ in 0..MAX_ATTACHES {
            let Ok(mut agent) =
                Agent::attach_computer(Arc::clone(&self.room), ComputerProof::new(), self.queue)
                    .await
            else {
                return;
            };
            match self.session(&mut agent).await {
                Exit::Done => {
                    agent.detach().await;
                    return;
                }
                Exit::Dropped if agent.lagged() => {
                    tracing::warn!(game = %self.room.id, "the computer fell behind its room; joining again");
                }
                Exit::Dropped => return,
            }
        }
        tracing::error!(game = %self.room.id, "the computer was dropped too often; it leaves the game");
    }

    /// Follows the game until it needs the computer no more, or the room drops it.
    async fn session(&mut self, agent: &mut Agent) -> Exit {
        let me = self.seat.color;
        let mut view: Option<View> = None;
        let mut search: Option<(u64, Search)> = None;
        // The version and ack id of the move sent and not yet seen played.
        let mut pending: Option<(u64, String)> = None;
        let mut refusals = 0u32;
        let mut ended_at: Option<Instant> = None;
        let mut away_since: Option<Instant> = None;
        loop {
            if let Some(v) = view.as_ref()
                && v.finished()
            {
                search = None;
                if v.rematched() {
                    return Exit::Done;
                }
                ended_at.get_or_insert_with(Instant::now);
                away_since = match (v.person_here(me), away_since) {
                    (true, _) => None,
                    (false, since) => Some(since.unwrap_or_else(Instant::now)),
                };
            }
            if let (Some((at, _)), Some(v)) = (search.as_ref(), view.as_ref())
                && (*at != v.position_version() || !v.to_move(me))
            {
                // The position it was for is gone: dropping the future stops the search.
                search = None;
            }
            if search.is_none()
                && pending.is_none()
                && let Some(v) = view.as_ref()
                && v.to_move(me)
            {
                search = Some((v.position_version(), self.start_search(v)));
            }
            let linger = linger_deadline(ended_at, away_since);
            tokio::select! {
                text = agent.recv() => {
                    let Some(text) = text else { return Exit::Dropped };
                    let Ok(msg) = ServerMsg::from_text(&text) else {
                        tracing::error!(game = %self.room.id, "the computer cannot read a message of its room");
                        continue;
                    };
                    match self.hear(agent, &mut view, msg, &mut pending, &mut refusals).await {
                        Heard::Resync => {
                            view = None;
                            search = None;
                            pending = None;
                            if agent.act(ClientMsg::Hello { token: None, v: None }).await.is_err() {
                                return Exit::Dropped;
                            }
                        }
                        Heard::GiveUp => return Exit::Done,
                        Heard::Ok => {}
                    }
                }
                answer = async { search.as_mut().map(|(_, s)| s).expect("guarded").await }, if search.is_some() => {
                    let searched = search.take().map(|(at, _)| at);
                    match answer {
                        Ok((memory, result)) => {
                            self.memory = Some(memory);
                            let current = view.as_ref().filter(|v| Some(v.position_version()) == searched && v.to_move(me));
                            if let (Some(v), Some(mv)) = (current, result.best) {
                                self.moves_sent += 1;
                                let id = format!("c{}-{}", v.version(), self.moves_sent);
                                pending = Some((v.position_version(), id.clone()));
                                let msg = ClientMsg::Move { mv, id: Some(id), v: Some(v.version()), lag: None };
                                if agent.act(msg).await.is_err() {
                                    return Exit::Dropped;
                                }
                            }
                        }
                        Err(EngineFailed::Closed) => return Exit::Done,
                        Err(EngineFailed::Panicked) => {
                            refusals += 1;
                            if refusals > MAX_REFUSALS {
                                tracing::error!(game = %self.room.id, "the computer's searches keep failing; it leaves the game");
                                return Exit::Done;
                            }
                        }
                    }
                }
                _ = sleep_until(linger), if linger.is_some() => return Exit::Done,
            }
        }
    }

    /// Takes in one message of the room.
    async fn hear(
        &mut self,
        agent: &Agent,
        view: &mut Option<View>,
        msg: ServerMsg,
        pending: &mut Option<(u64, String)>,
        refusals: &mut u32,
    ) -> Heard {
        let me = self.seat.color;
        match msg {
            ServerMsg::Ack(ack) => {
                // The room acks before it broadcasts the move: the move stays pending until
                // its broadcast moves the position on, or the next search would be for the
                // position the move was played in.
                if pending
                    .as_ref()
                    .is_some_and(|(_, id)| ack.id.as_ref() == Some(id))
                {
                    *refusals = 0;
                }
                return Heard::Ok;
            }
            ServerMsg::Error(error) => {
                let ours = pending
                    .as_ref()
                    .is_some_and(|(_, id)| error.id.as_ref() == Some(id));
                if !ours && view.is_some() {
                    return Heard::Ok;
                }
                *refusals += 1;
                tracing::error!(game = %self.room.id, code = ?error.code, message = %error.message, "the room refused the computer; resyncing");
                if *refusals > MAX_REFUSALS {
                    tracing::error!(game = %self.room.id, "the computer was refused too often; it leaves the game");
                    return Heard::GiveUp;
                }
                // Give the room a moment: its game rate and hello allowance refill at
                // about one a second.
                tokio::time::sleep(RESYNC_PAUSE).await;
                return Heard::Resync;
            }
            ServerMsg::State { v, d } => match View::from_state(v, &d, Instant::now()) {
                Ok(fresh) => {
                    *view = Some(fresh);
                    *pending = None;
                    return Heard::Ok;
                }
                Err(error) => {
                    tracing::error!(game = %self.room.id, %error, "the computer cannot follow the state");
                    *refusals += 1;
                    return if *refusals > MAX_REFUSALS {
                        Heard::GiveUp
                    } else {
                        Heard::Resync
                    };
                }
            },
            _ => {}
        }
        let Some(current) = view.as_mut() else {
            // Waiting for a `state`: events before it are in it.
            return Heard::Ok;
        };
        match current.follow(&msg, Instant::now()) {
            view::Followed::Applied => {}
            view::Followed::Old | view::Followed::NotAnEvent => return Heard::Ok,
            view::Followed::Lost(reason) => {
                tracing::warn!(game = %self.room.id, %reason, "the computer lost track of the game; resyncing");
                return Heard::Resync;
            }
        }
        if pending
            .as_ref()
            .is_some_and(|(at, _)| current.position_version() > *at)
        {
            // The position moved on (our move, or the end): nothing is in flight any more.
            *pending = None;
        }
        let reply = match &msg {
            ServerMsg::DrawOffer { d, .. } if Color::from(d.by) != me => {
                Some(ClientMsg::DrawDecline)
            }
            ServerMsg::RematchOffer { d, .. } if Color::from(d.by) != me => {
                Some(ClientMsg::RematchAccept)
            }
            _ => None,
        };
        if let Some(reply) = reply
            && agent.act(reply).await.is_err()
        {
            return Heard::GiveUp;
        }
        Heard::Ok
    }

    /// Starts the search of the position in `view` on the pool, with the game's memory.
    fn start_search(&mut self, view: &View) -> Search {
        let game = view.game().clone();
        let (clock, first_move) = (view.clock(), view.first_move());
        let (me, level) = (self.seat.color, self.seat.level);
        let mut memory = self
            .memory
            .take()
            .unwrap_or_else(|| GameMemory::new(level, game_seed(&self.room.id)));
        // A person's pace for the level, counted from now (the search's time included).
        let answer_at = tokio::time::Instant::now()
            + match self.pace {
                ComputerPace::Human => {
                    think::least_think(me, level, clock, first_move, game.position().hash())
                }
                ComputerPace::Instant => Duration::ZERO,
            };
        let engines = Arc::clone(&self.engines);
        engines.searching(&self.room.id);
        let metrics = Arc::clone(&self.metrics);
        Box::pin(async move {
            let searched = engines
                .run(move |stop| {
                    // Read the clocks when the search starts, not when it was asked for:
                    // the wait for a free engine thread is time off the computer's clock.
                    let limits = think::limits(me, level, clock, first_move, Instant::now());
                    let result = thread_engine::search(&mut memory, &game, &limits, stop);
                    let nodes = result.info.as_ref().map_or(0, |info| info.nodes);
                    metrics.computer_searches.fetch_add(1, Ordering::Relaxed);
                    metrics.computer_nodes.fetch_add(nodes, Ordering::Relaxed);
                    (memory, result)
                })
                .await;
            if searched.is_ok() {
                tokio::time::sleep_until(answer_at).await;
            }
            searched
        })
    }
}

/// What a message asks of the driver.
enum Heard {
    Ok,
    /// Ask the room for a fresh `state`.
    Resync,
    /// Leave the game.
    GiveUp,
}

/// When the driver leaves a finished game: once the person has been away for
/// [`LINGER_AWAY`], or [`LINGER_MAX`] after the end.
fn linger_deadline(ended_at: Option<Instant>, away_since: Option<Instant>) -> Option<Instant> {
    let ended_at = ended_at?;
    let cap = ended_at + LINGER_MAX;
    Some(match away_since {
        Some(since) => (since + LINGER_AWAY).min(cap),
        None => cap,
    })
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests;
