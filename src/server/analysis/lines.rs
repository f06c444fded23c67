//! `POST /api/analysis/lines`: the analysis board's engine lines, 1 to 5 best turns of a
//! position (or the opponent's, for a threat), streamed as NDJSON, one line per completed depth,
//! then `done` (docs/protocol.md, "Analysis board"; docs/analysis.md, "Engine lines").
//!
//! Where it runs: on the server, through the engine pool (one depth per pool run, the engine
//! moved in and out), as the game analysis does; there is no WebAssembly toolchain on this
//! machine (docs/analysis.md, "Where the engine runs"). What it may cost ([`Lines`]): an engine
//! time and node budget per request, a deepest depth, a per-address rate bucket, a global cap
//! of requests searched at once, and newest wins: a client's new request stops its running one
//! (so a user clicking through a line is never refused, and holds one search at a time). A
//! client that closes the connection stops the search: hyper drops the body, which drops the
//! pool's future, which raises the search's stop flag.
//!
//! Newest wins is kept per node: behind a load balancer two requests of one client may land on
//! two nodes, and the older then runs to its budget (a few seconds) instead of stopping.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use super::multipv::{Allowance, TurnLine, lines_at_depth, passed};
use super::stream::{HASH_MB, ScoreView, line, millis};
use crate::engine::{Engine, Score};
use crate::rules::{Game, Position};
use crate::server::computer::engine_pool::{EngineFailed, EnginePool};
use crate::server::config::LinesLimits;
use crate::server::domain::user::UserId;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::web::ratelimit::{AddressLimiter, Holder};
use crate::server::web::{ApiError, EdgeCode};

/// Most lines one request may ask for.
pub const MAX_MULTIPV: usize = 5;
/// How long a new request waits for a global slot (the one its client's previous request is
/// giving back, usually) before `503 busy`.
const SLOT_WAIT: Duration = Duration::from_secs(2);
/// `Retry-After` of a `503 busy`.
const BUSY_RETRY_SECS: u64 = 2;

/// The request.
#[derive(Deserialize)]
pub struct LinesRequest {
    pub fen: String,
    #[serde(default = "one")]
    pub multipv: usize,
    #[serde(default)]
    pub threat: bool,
}

fn one() -> usize {
    1
}

/// Per client key: the ticket of its running request and the way to stop it.
type Running = Arc<Mutex<HashMap<Holder<UserId>, (u64, watch::Sender<bool>)>>>;

/// The engine lines of the server: budget, rate, global cap, and each client's running request.
pub struct Lines {
    pub(super) limits: LinesLimits,
    slots: Arc<Semaphore>,
    addresses: AddressLimiter,
    running: Running,
    tickets: AtomicU64,
}

/// A request let in: its global slot, its stop signal, and its place in `running` (taken out
/// on drop if still its own).
pub struct Admitted {
    _slot: OwnedSemaphorePermit,
    stopped: watch::Receiver<bool>,
    ticket: u64,
    keys: Vec<Holder<UserId>>,
    running: Running,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        for key in &self.keys {
            if running
                .get(key)
                .is_some_and(|(ticket, _)| *ticket == self.ticket)
            {
                running.remove(key);
            }
        }
    }
}

impl Lines {
    pub fn new(limits: LinesLimits) -> Lines {
        Lines {
            limits,
            slots: Arc::new(Semaphore::new(limits.max_concurrent.max(1))),
            addresses: AddressLimiter::new(limits.rate_per_min / 60.0, limits.burst),
            running: Arc::new(Mutex::new(HashMap::new())),
            tickets: AtomicU64::new(1),
        }
    }

    /// Lets a request of the client at `ip` (signed in as `account`) in: 429 past its rate,
    /// 503 while every slot stays busy. Stops the client's running request first.
    pub(super) async fn admit(
        &self,
        ip: IpAddr,
        account: Option<UserId>,
    ) -> Result<Admitted, ApiError> {
        self.addresses
            .check(ip, Instant::now())
            .map_err(|limited| {
                ApiError::from(Refusal::new(
                    ErrorCode::RateLimited,
                    format!(
                        "too many engine line requests from your address; try again in {} s",
                        limited.retry_after_secs
                    ),
                ))
                .retry_after(limited.retry_after_secs)
            })?;
        let keys: Vec<Holder<UserId>> = Holder::of(ip, account).collect();
        let ticket = self.tickets.fetch_add(1, Ordering::Relaxed);
        let (stop, stopped) = watch::channel(false);
        {
            let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            for key in &keys {
                if let Some((_, older)) = running.insert(*key, (ticket, stop.clone())) {
                    let _ = older.send(true);
                }
            }
        }
        let admitted = |slot| Admitted {
            _slot: slot,
            stopped,
            ticket,
            keys,
            running: Arc::clone(&self.running),
        };
        match tokio::time::timeout(SLOT_WAIT, Arc::clone(&self.slots).acquire_owned()).await {
            Ok(Ok(slot)) => Ok(admitted(slot)),
            _ => Err(ApiError::http(
                StatusCode::SERVICE_UNAVAILABLE,
                EdgeCode::Busy,
                "the engine is busy with other lines; try again",
            )
            .retry_after(BUSY_RETRY_SECS)),
        }
    }
}

/// One line as the stream writes it.
#[derive(Serialize)]
struct LineView {
    turn: Vec<String>,
    san: Vec<String>,
    score: ScoreView,
    white: i32,
    pv: Vec<String>,
    pv_san: Vec<String>,
}

#[derive(Serialize)]
struct DepthLine {
    depth: u32,
    nodes: u64,
    ms: u64,
    lines: Vec<LineView>,
}

#[derive(Serialize)]
struct DoneLine {
    done: bool,
    depth: u32,
    nodes: u64,
    ms: u64,
}

/// Why a stream stopped early (the `code` of its `error` line).
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
enum StopCode {
    EngineFailed,
    ShuttingDown,
}

#[derive(Serialize)]
struct ErrorLine {
    error: ErrorBody,
}

#[derive(Serialize)]
struct ErrorBody {
    code: StopCode,
    message: &'static str,
}

/// The position searched for a request: the FEN's, or with the side to move passed (a threat).
pub fn searched_position(position: &Position, threat: bool) -> Result<Position, String> {
    if threat {
        passed(position).map_err(|e| e.to_string())
    } else {
        Ok(*position)
    }
}

/// The streamed reply.
pub(super) fn stream(
    engines: &Arc<EnginePool>,
    shutdown: watch::Receiver<bool>,
    limits: LinesLimits,
    position: Position,
    multipv: usize,
    admitted: Admitted,
) -> Response {
    let search = Search {
        pool: Arc::clone(engines),
        shutdown,
        limits,
        game: Some(Game::new(position)),
        multipv: multipv.clamp(1, MAX_MULTIPV),
        engine: None,
        depth: 0,
        spent: Duration::ZERO,
        nodes: 0,
        ended: false,
        admitted,
    };
    let lines = futures_util::stream::unfold(search, |mut search| async move {
        let line = search.next_line().await?;
        Some((Ok::<Bytes, std::convert::Infallible>(line), search))
    });
    (
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        Body::from_stream(lines),
    )
        .into_response()
}

struct Search {
    pool: Arc<EnginePool>,
    shutdown: watch::Receiver<bool>,
    limits: LinesLimits,
    /// `None` while a search holds it.
    game: Option<Game>,
    multipv: usize,
    engine: Option<Engine>,
    /// The last depth streamed.
    depth: u32,
    spent: Duration,
    nodes: u64,
    ended: bool,
    admitted: Admitted,
}

impl Search {
    fn done(&mut self) -> Bytes {
        self.ended = true;
        line(&DoneLine {
            done: true,
            depth: self.depth,
            nodes: self.nodes,
            ms: millis(self.spent),
        })
    }

    fn stop(&mut self, code: StopCode, message: &'static str) -> Bytes {
        self.ended = true;
        line(&ErrorLine {
            error: ErrorBody { code, message },
        })
    }

    /// The next line: the next depth's lines, or `done` once the budget, the deepest depth or
    /// a newer request of the client ends the search.
    async fn next_line(&mut self) -> Option<Bytes> {
        if self.ended {
            return None;
        }
        let out_of_budget = self.spent >= self.limits.budget || self.nodes >= self.limits.nodes;
        let newer = *self.admitted.stopped.borrow();
        if out_of_budget || newer || self.depth >= self.limits.max_depth {
            return Some(self.done());
        }
        let Some(game) = self.game.take() else {
            return Some(self.done());
        };
        let depth = self.depth + 1;
        let allowance = Allowance {
            depth,
            time: self.limits.budget.saturating_sub(self.spent),
            nodes: self.limits.nodes.saturating_sub(self.nodes),
        };
        let engine = self.engine.take();
        let multipv = self.multipv;
        let run = self.pool.run(move |stop| {
            let mut engine = engine.unwrap_or_else(|| Engine::with_hash_mb(HASH_MB));
            let started = Instant::now();
            let found = lines_at_depth(&mut engine, &game, multipv, allowance, stop);
            (engine, game, found, started.elapsed())
        });
        let mut stopped = self.admitted.stopped.clone();
        let answer = tokio::select! {
            answer = run => Some(answer),
            _ = self.shutdown.wait_for(|stopped| *stopped) => Some(Err(EngineFailed::Closed)),
            _ = stopped.wait_for(|stopped| *stopped) => None,
        };
        // A newer request of the client: this one ends (the search's future is dropped, which
        // raises its stop flag).
        let Some(answer) = answer else {
            return Some(self.done());
        };
        let (engine, game, found, elapsed) = match answer {
            Ok(answer) => answer,
            Err(EngineFailed::Panicked) => {
                return Some(self.stop(StopCode::EngineFailed, "the engine search failed"));
            }
            Err(EngineFailed::Closed) => {
                return Some(self.stop(StopCode::ShuttingDown, "the server is shutting down"));
            }
        };
        self.spent += elapsed;
        self.nodes += found.nodes;
        let root = *game.position();
        self.engine = Some(engine);
        self.game = Some(game);
        if !found.complete || found.lines.is_empty() {
            return Some(self.done());
        }
        self.depth = depth;
        let all_mates = found
            .lines
            .iter()
            .all(|l| matches!(l.score, Score::Mate(_)));
        let reply = line(&DepthLine {
            depth,
            nodes: self.nodes,
            ms: millis(self.spent),
            lines: found.lines.iter().map(|l| view(&root, l)).collect(),
        });
        if all_mates {
            // Deeper searches find the same mates: the next line is `done`.
            self.depth = self.limits.max_depth;
        }
        Some(reply)
    }
}

/// A line's wire form: sub-moves in UCI and SAN (the principal variation as far as it is legal).
fn view(root: &Position, found: &TurnLine) -> LineView {
    let score = ScoreView::from(found.score);
    let mut position = *root;
    let mut pv = Vec::new();
    let mut pv_san = Vec::new();
    for &mv in &found.pv {
        if position.board_outcome().is_some() || !position.is_legal(mv) {
            break;
        }
        pv.push(mv.to_string());
        pv_san.push(position.san(mv));
        position = position.play_unchecked(mv);
    }
    let turn_len = found.turn.len().min(pv.len());
    LineView {
        turn: pv[..turn_len].to_vec(),
        san: pv_san[..turn_len].to_vec(),
        score,
        white: score.for_white(root.side_to_move()),
        pv,
        pv_san,
    }
}
