//! Analysis (issue 10): the engine's evaluation and best turn for every position of a game,
//! streamed as it is computed. Two entry points, one engine:
//! - `POST /api/analysis`: the body of `POST /api/replay` (`{"pgn": ...}` or `{"fen": ...}`),
//!   read by the very same code ([`replay::game_of_body`]), so bad input gets exactly the
//!   replay's typed errors (400, with the turn and sub-move it failed at);
//! - `GET /api/games/{id}/analysis`: a finished game of this server. An open or playing game
//!   is refused (`409 game_not_over`): analysis of a live game would be a cheating aid.
//!
//! The answer is `application/x-ndjson`: one JSON line per position (the start, then after
//! each sub-move), then `{"done": true, ...}`, or `{"error": ...}` if a search failed. Lines
//! are written as they are computed, so a long game shows its first evaluations at once.
//!
//! Cost: every search goes through `rooms.engines` ([`EnginePool::run`]), one position per
//! run, so analyses and computer games take turns on the `--engine-threads` slots (the
//! pool's semaphore is fair). One [`Engine`] per analysis (a small table, [`HASH_MB`]),
//! moved into each search and back out, so what it learnt on one position (TT, history)
//! helps the next. The engine time of an analysis is bounded by [`Budget`]; how many
//! analyses run at once by `--max-concurrent-analyses` (503 `busy` beyond it, so analyses
//! can never hold every engine slot); how often one address may start one by
//! `--analysis-rate-per-min` (429 `rate_limited`).
//!
//! A client that goes away stops its analysis: hyper drops the response body, which drops
//! the search future, and the pool then raises the search's stop flag (the thread is back
//! at the engine's next node check). A server shutdown ends the stream with an error line.

pub mod replay;

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use crate::engine::{Engine, Limits, Score, SearchResult};
use crate::rules::{Color, Game, Outcome, Position, Rules, SubMove};
use crate::server::analysis::replay::{MAX_REPLAY_BYTES, game_of_body};
use crate::server::computer::engine_pool::{EngineFailed, EnginePool};
use crate::server::config::AnalysisLimits;
use crate::server::deps::Deps;
use crate::server::metrics::Metrics;
use crate::server::play::protocol::{ErrorCode, GameStatus, PhaseName, Refusal, Side, reason_name};
use crate::server::play::room::Command;
use crate::server::play::rooms::Rooms;
use crate::server::play::routes::ask;
use crate::server::web::ApiError;
use crate::server::web::ratelimit::AddressLimiter;
use crate::server::web::{EdgeCode, read_json_body};

/// Shortest search of one position while the budget lasts.
pub const POSITION_MIN: Duration = Duration::from_millis(20);
/// Nodes of each position searched once the budget is spent (a depth or two: a game so long
/// that [`POSITION_MIN`] each would overrun the budget still gets a line per position).
pub const QUICK_NODES: u64 = 2_000;
/// The transposition table of one analysis, in MB: positions follow each other closely, and
/// several analyses and computer games share the machine.
pub const HASH_MB: usize = 8;
/// The White-relative value of a mate on the board (the graph's number for `mate 0`); a mate
/// in `n` sub-moves is `MATE_WHITE - n`, so nearer mates are larger.
pub const MATE_WHITE: i32 = 10_000;
/// `Retry-After` of a `503 busy`: an analysis takes seconds.
const BUSY_RETRY_SECS: u64 = 5;

/// The routes this module owns, merged into the main router.
/// What the analysis routes need: the limits and slots of analyses, the engine pool, and the
/// games (to analyse a finished one).
#[derive(Clone)]
pub struct AnalysisState {
    pub deps: Deps,
    pub analyses: Arc<Analyses>,
    pub engines: Arc<EnginePool>,
    pub rooms: Arc<Rooms>,
}

pub fn router(state: AnalysisState) -> Router {
    Router::new()
        .route("/api/analysis", post(analyse_record))
        .route("/api/games/{id}/analysis", get(analyse_game))
        .with_state(state)
}

/// How the engine time of one analysis is spread over its positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Engine time of the whole analysis.
    pub total: Duration,
    /// Longest search of one position.
    pub position_max: Duration,
    /// Most nodes of one position.
    pub nodes: u64,
}

impl Budget {
    pub fn of(limits: &AnalysisLimits) -> Budget {
        Budget {
            total: limits.budget,
            position_max: limits.position_max,
            nodes: limits.nodes,
        }
    }

    /// The limits of the next search: what is left of the budget (`spent` so far) shared
    /// equally by the `to_search` positions still to search, this one included, clamped to
    /// [`POSITION_MIN`]..`position_max`; once less than [`POSITION_MIN`] is left, a quick
    /// search of [`QUICK_NODES`]. The share is recomputed at every position, so the time a
    /// mate found early (or a capped position) did not use goes to the positions after it.
    pub fn next(&self, spent: Duration, to_search: usize) -> Limits {
        let left = self.total.saturating_sub(spent);
        if left < POSITION_MIN {
            return Limits {
                nodes: Some(QUICK_NODES.min(self.nodes)),
                movetime: Some(POSITION_MIN),
                ..Limits::default()
            };
        }
        let share = left / u32::try_from(to_search.max(1)).unwrap_or(u32::MAX);
        Limits {
            nodes: Some(self.nodes),
            movetime: Some(share.clamp(POSITION_MIN, self.position_max.max(POSITION_MIN))),
            ..Limits::default()
        }
    }
}

/// The analyses of the server: the per-address limit and the global cap.
pub struct Analyses {
    budget: Budget,
    slots: Arc<Semaphore>,
    addresses: AddressLimiter,
}

impl Analyses {
    pub fn new(limits: &AnalysisLimits) -> Analyses {
        Analyses {
            budget: Budget::of(limits),
            slots: Arc::new(Semaphore::new(limits.max_concurrent.max(1))),
            addresses: AddressLimiter::new(limits.rate_per_min / 60.0, limits.burst),
        }
    }

    /// One analysis for `ip`: 429 past its rate, 503 when `--max-concurrent-analyses` run.
    /// The permit is held for as long as the stream lives.
    fn admit(&self, ip: IpAddr, metrics: &Metrics) -> Result<OwnedSemaphorePermit, ApiError> {
        let refused = |error: ApiError| {
            metrics.analyses_refused.fetch_add(1, Ordering::Relaxed);
            error
        };
        self.addresses
            .check(ip, Instant::now())
            .map_err(|limited| {
                refused(
                    ApiError::from(Refusal::new(
                        ErrorCode::RateLimited,
                        format!(
                            "too many analyses from your address; try again in {} s",
                            limited.retry_after_secs
                        ),
                    ))
                    .retry_after(limited.retry_after_secs),
                )
            })?;
        Arc::clone(&self.slots).try_acquire_owned().map_err(|_| {
            refused(
                ApiError::http(
                    StatusCode::SERVICE_UNAVAILABLE,
                    EdgeCode::Busy,
                    "the server is busy analysing other games; try again",
                )
                .retry_after(BUSY_RETRY_SECS),
            )
        })
    }
}

async fn analyse_record(
    State(app): State<AnalysisState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let timeout = app.deps.config.body_read_timeout;
    let body = match read_json_body(request, MAX_REPLAY_BYTES, timeout).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let slot = match app.analyses.admit(peer.ip(), &app.deps.metrics) {
        Ok(slot) => slot,
        Err(error) => return error.into_response(),
    };
    // Reading a long record takes tens of milliseconds: not on a runtime worker.
    let game = match tokio::task::spawn_blocking(move || game_of_body(&body)).await {
        Ok(Ok(game)) => game,
        Ok(Err(refused)) => return refused.into_response(),
        Err(error) => {
            tracing::error!(%error, "reading an analysis request failed");
            return internal("the record could not be read").into_response();
        }
    };
    stream(&app, *game.start(), game.submoves().to_vec(), slot)
}

async fn analyse_game(
    State(app): State<AnalysisState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
) -> Response {
    match game_record(&app, peer.ip(), &id).await {
        Ok((start, record, slot)) => stream(&app, start, record, slot),
        Err(error) => error.into_response(),
    }
}

/// A finished game's start and sub-moves, once the client is admitted.
async fn game_record(
    app: &AnalysisState,
    ip: IpAddr,
    id: &str,
) -> Result<(Position, Vec<SubMove>, OwnedSemaphorePermit), ApiError> {
    let slot = app.analyses.admit(ip, &app.deps.metrics)?;
    let snapshot = ask(&app.rooms, id, |reply| Command::Snapshot { reply }).await?;
    if snapshot.status != GameStatus::Finished {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            AnalysisCode::GameNotOver,
            format!(
                "game {id} is {}: only a finished game can be analysed",
                snapshot.status.as_str()
            ),
        ));
    }
    let start = Position::from_fen(&snapshot.start_fen, Rules::Marseillais).map_err(|error| {
        tracing::error!(game = %id, %error, "a stored game's start does not parse");
        internal("the game's record could not be read")
    })?;
    let record = snapshot.moves.iter().map(|m| m.uci).collect();
    Ok((start, record, slot))
}

/// The analysis routes' own codes (docs/protocol.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum AnalysisCode {
    /// 409: an analysis asked of a game still open or being played (a cheating aid).
    GameNotOver,
}

fn internal(message: &str) -> ApiError {
    ApiError::http(
        StatusCode::INTERNAL_SERVER_ERROR,
        EdgeCode::Internal,
        message,
    )
}

/// The streamed reply: one line per position, then `done` (or `error`).
fn stream(
    app: &AnalysisState,
    start: Position,
    record: Vec<SubMove>,
    slot: OwnedSemaphorePermit,
) -> Response {
    let metrics = Arc::clone(&app.deps.metrics);
    metrics.analyses_started.fetch_add(1, Ordering::Relaxed);
    metrics.analyses_running.fetch_add(1, Ordering::Relaxed);
    let analysis = Analysis {
        pool: Arc::clone(&app.engines),
        running: Running(metrics),
        _slot: slot,
        shutdown: app.deps.shutdown.clone(),
        budget: app.analyses.budget,
        game: Some(Game::new(start)),
        record,
        engine: None,
        ply: 0,
        spent: Duration::ZERO,
        nodes: 0,
        searched: 0,
        ended: false,
    };
    let lines = futures_util::stream::unfold(analysis, |mut analysis| async move {
        let line = analysis.next_line().await?;
        Some((Ok::<Bytes, Infallible>(line), analysis))
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

/// Counts one analysis in `marseillais_analyses_running` for as long as its stream lives.
struct Running(Arc<Metrics>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.analyses_running.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One analysis in progress: the stream's state between two lines.
struct Analysis {
    pool: Arc<EnginePool>,
    running: Running,
    _slot: OwnedSemaphorePermit,
    shutdown: watch::Receiver<bool>,
    budget: Budget,
    /// The game up to `ply`; `None` while a search holds it, or once the record stopped
    /// replaying.
    game: Option<Game>,
    record: Vec<SubMove>,
    /// Made by the first search (on an engine thread: it allocates the table).
    engine: Option<Engine>,
    /// The next position to report: 0 is the start, `k` follows `record[k - 1]`.
    ply: usize,
    /// Engine time spent so far, nodes searched, positions searched.
    spent: Duration,
    nodes: u64,
    searched: usize,
    ended: bool,
}

/// A score as the lines write it: `{"cp": 34}` or `{"mate": 3}`, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScoreView {
    Cp(i32),
    Mate(i32),
}

impl From<Score> for ScoreView {
    fn from(score: Score) -> ScoreView {
        match score {
            Score::Cp(cp) => ScoreView::Cp(cp),
            Score::Mate(n) => ScoreView::Mate(n),
        }
    }
}

impl ScoreView {
    /// The graph's number: centipawns for White; a mate is ±([`MATE_WHITE`] - distance).
    pub fn for_white(self, side: Color) -> i32 {
        let mover = match self {
            ScoreView::Cp(cp) => cp.clamp(-(MATE_WHITE - 1_000), MATE_WHITE - 1_000),
            ScoreView::Mate(n) if n > 0 => MATE_WHITE - n.min(MATE_WHITE),
            ScoreView::Mate(n) => -(MATE_WHITE - n.saturating_abs().min(MATE_WHITE)),
        };
        match side {
            Color::White => mover,
            Color::Black => -mover,
        }
    }
}

/// One position's line.
#[derive(Serialize)]
struct PositionLine {
    ply: usize,
    fen: String,
    side: Side,
    phase: PhaseName,
    /// How the game ends here (no search then): `checkmate`, `stalemate`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<String>,
    score: ScoreView,
    white: i32,
    /// The best turn from here: the principal variation's sub-moves until the side to move
    /// changes (one or two).
    best: Vec<String>,
    best_san: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    depth: Option<u32>,
    nodes: u64,
    ms: u64,
}

#[derive(Serialize)]
struct DoneLine {
    done: bool,
    positions: usize,
    searched: usize,
    nodes: u64,
    ms: u64,
}

/// Why an analysis stopped before its end (the `code` of its `error` line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum StopCode {
    /// A search panicked (a bug).
    EngineFailed,
    /// The server is shutting down.
    ShuttingDown,
    /// A stored sub-move does not replay (a damaged record).
    BadRecord,
}

#[derive(Serialize)]
struct ErrorLine {
    error: ErrorBody,
}

#[derive(Serialize)]
struct ErrorBody {
    code: StopCode,
    message: String,
    ply: usize,
}

fn line(value: &impl Serialize) -> Bytes {
    let mut bytes = serde_json::to_vec(value).unwrap_or_else(|error| {
        tracing::error!(%error, "an analysis line could not be written");
        b"{\"error\":{\"code\":\"engine_failed\",\"message\":\"unwritable line\"}}".to_vec()
    });
    bytes.push(b'\n');
    Bytes::from(bytes)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Analysis {
    /// The next line of the stream, or `None` after the last.
    async fn next_line(&mut self) -> Option<Bytes> {
        if self.ended {
            return None;
        }
        if self.ply > self.record.len() {
            self.ended = true;
            return Some(line(&DoneLine {
                done: true,
                positions: self.record.len() + 1,
                searched: self.searched,
                nodes: self.nodes,
                ms: millis(self.spent),
            }));
        }
        let Some(game) = self.game.take() else {
            return Some(self.stop(
                StopCode::BadRecord,
                "the game's record does not replay from here",
            ));
        };
        let position = *game.position();
        let report = match game.automatic_outcome() {
            Some(outcome) => {
                self.game = Some(game);
                ended(self.ply, &position, outcome)
            }
            None => match self.search(game, &position).await {
                Ok(report) => report,
                Err(failed) => return Some(failed),
            },
        };
        if let (Some(&mv), Some(game)) = (self.record.get(self.ply), self.game.as_mut())
            && game.play(mv).is_err()
        {
            self.game = None;
        }
        self.ply += 1;
        Some(line(&report))
    }

    /// Searches the current position on the engine pool (or stops on shutdown).
    async fn search(&mut self, game: Game, position: &Position) -> Result<PositionLine, Bytes> {
        let limits = self
            .budget
            .next(self.spent, self.record.len() + 1 - self.ply);
        let engine = self.engine.take();
        let pool = Arc::clone(&self.pool);
        let run = pool.run(move |stop, _crowd| {
            let mut engine = engine.unwrap_or_else(|| Engine::with_hash_mb(HASH_MB));
            let started = Instant::now();
            let result = engine.search(&game, &limits, stop, |_| {});
            (engine, game, result, started.elapsed())
        });
        let answer = tokio::select! {
            answer = run => answer,
            _ = self.shutdown.wait_for(|stopped| *stopped) => Err(EngineFailed::Closed),
        };
        let (engine, game, result, elapsed) = match answer {
            Ok(answer) => answer,
            Err(EngineFailed::Panicked) => {
                return Err(self.stop(StopCode::EngineFailed, "the engine search failed"));
            }
            Err(EngineFailed::Closed) => {
                return Err(self.stop(StopCode::ShuttingDown, "the server is shutting down"));
            }
        };
        self.engine = Some(engine);
        self.game = Some(game);
        self.spent += elapsed;
        self.searched += 1;
        self.running
            .0
            .analysis_positions
            .fetch_add(1, Ordering::Relaxed);
        let report = searched(self.ply, position, &result, elapsed);
        self.nodes += report.nodes;
        Ok(report)
    }

    fn stop(&mut self, code: StopCode, message: &str) -> Bytes {
        self.ended = true;
        line(&ErrorLine {
            error: ErrorBody {
                code,
                message: message.to_string(),
                ply: self.ply,
            },
        })
    }
}

/// The line of a position where the game is over: no search.
fn ended(ply: usize, position: &Position, outcome: Outcome) -> PositionLine {
    let side = position.side_to_move();
    let score = match outcome {
        // The side to move is mated: "mate 0", as UCI GUIs write it.
        Outcome::Win { .. } => ScoreView::Mate(0),
        Outcome::Draw { .. } => ScoreView::Cp(0),
    };
    PositionLine {
        ply,
        fen: position.fen(),
        side: Side::from(side),
        phase: PhaseName::from(position.phase()),
        end: Some(reason_name(outcome.reason())),
        score,
        white: score.for_white(side),
        best: Vec::new(),
        best_san: Vec::new(),
        depth: None,
        nodes: 0,
        ms: 0,
    }
}

/// The line of a searched position.
fn searched(
    ply: usize,
    position: &Position,
    result: &SearchResult,
    elapsed: Duration,
) -> PositionLine {
    let side = position.side_to_move();
    let (score, depth, nodes, pv) = match &result.info {
        Some(info) => (
            ScoreView::from(info.score),
            Some(info.depth),
            info.nodes,
            info.pv.as_slice(),
        ),
        None => (ScoreView::Cp(0), None, 0, &[][..]),
    };
    let pv = if pv.is_empty() {
        result.best.as_slice()
    } else {
        pv
    };
    let (best, best_san) = best_turn(position, pv);
    PositionLine {
        ply,
        fen: position.fen(),
        side: Side::from(side),
        phase: PhaseName::from(position.phase()),
        end: None,
        score,
        white: score.for_white(side),
        best,
        best_san,
        depth,
        nodes,
        ms: millis(elapsed),
    }
}

/// The best turn of a principal variation: its sub-moves while the side to move is the
/// root's (one, or two when the first keeps the turn), in UCI and SAN.
pub fn best_turn(root: &Position, pv: &[SubMove]) -> (Vec<String>, Vec<String>) {
    let side = root.side_to_move();
    let mut position = *root;
    let mut uci = Vec::new();
    let mut san = Vec::new();
    for &mv in pv.iter().take(2) {
        if position.side_to_move() != side || !position.is_legal(mv) {
            break;
        }
        uci.push(mv.to_string());
        san.push(position.san(mv));
        position = position.play_unchecked(mv);
    }
    (uci, san)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(total_ms: u64, max_ms: u64) -> Budget {
        Budget {
            total: Duration::from_millis(total_ms),
            position_max: Duration::from_millis(max_ms),
            nodes: 1_000_000,
        }
    }

    #[test]
    fn the_budget_is_shared_equally_by_the_positions_left() {
        let b = budget(20_000, 500);
        let limits = b.next(Duration::ZERO, 80);
        assert_eq!(limits.movetime, Some(Duration::from_millis(250)));
        assert_eq!(limits.nodes, Some(1_000_000));
        // Half spent on the first 20: the other 60 share the other half.
        let limits = b.next(Duration::from_secs(10), 60);
        assert_eq!(limits.movetime, Some(Duration::from_secs(10) / 60));
    }

    #[test]
    fn a_position_gets_at_least_the_minimum_and_at_most_the_maximum() {
        let b = budget(20_000, 500);
        assert_eq!(b.next(Duration::ZERO, 3).movetime, Some(b.position_max));
        assert_eq!(b.next(Duration::ZERO, 5_000).movetime, Some(POSITION_MIN));
        assert_eq!(b.next(Duration::ZERO, 0).movetime, Some(b.position_max));
    }

    #[test]
    fn once_the_budget_is_spent_every_position_gets_a_quick_search() {
        let b = budget(20_000, 500);
        let limits = b.next(Duration::from_millis(19_990), 100);
        assert_eq!(limits.nodes, Some(QUICK_NODES));
        assert_eq!(limits.movetime, Some(POSITION_MIN));
        let over = b.next(Duration::from_secs(30), 100);
        assert_eq!(over.nodes, Some(QUICK_NODES));
    }

    #[test]
    fn a_node_cap_below_the_quick_search_is_kept() {
        let mut b = budget(0, 500);
        b.nodes = 100;
        assert_eq!(b.next(Duration::ZERO, 1).nodes, Some(100));
    }

    #[test]
    fn the_graph_number_is_white_relative_and_nearer_mates_are_larger() {
        assert_eq!(ScoreView::Cp(34).for_white(Color::White), 34);
        assert_eq!(ScoreView::Cp(34).for_white(Color::Black), -34);
        assert_eq!(
            ScoreView::Mate(1).for_white(Color::White),
            MATE_WHITE - 1,
            "White mates"
        );
        assert_eq!(
            ScoreView::Mate(2).for_white(Color::Black),
            -(MATE_WHITE - 2)
        );
        assert_eq!(ScoreView::Mate(-3).for_white(Color::Black), MATE_WHITE - 3);
        assert_eq!(ScoreView::Mate(0).for_white(Color::White), -MATE_WHITE);
        assert!(ScoreView::Cp(i32::MAX).for_white(Color::White) < MATE_WHITE - 100);
        assert_eq!(
            ScoreView::Mate(i32::MIN).for_white(Color::White),
            0,
            "no overflow"
        );
    }

    #[test]
    fn scores_are_written_as_uci_writes_them() {
        assert_eq!(
            serde_json::to_string(&ScoreView::Cp(-12)).unwrap(),
            r#"{"cp":-12}"#
        );
        assert_eq!(
            serde_json::to_string(&ScoreView::Mate(3)).unwrap(),
            r#"{"mate":3}"#
        );
    }

    #[test]
    fn the_best_turn_stops_where_the_side_to_move_changes() {
        let start = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1",
            Rules::Marseillais,
        )
        .unwrap();
        let pv: Vec<SubMove> = ["e2e4", "d2d4", "e7e5"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        let (uci, san) = best_turn(&start, &pv);
        assert_eq!(uci, ["e2e4", "d2d4"]);
        assert_eq!(san, ["e4", "d4"]);
        let single = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 s",
            Rules::Marseillais,
        )
        .unwrap();
        let (uci, _) = best_turn(&single, &pv);
        assert_eq!(uci, ["e2e4"], "a single-sub-move turn");
        let (uci, _) = best_turn(&start, &["e7e5".parse().unwrap()]);
        assert!(uci.is_empty(), "an illegal PV is not shown");
    }
}
