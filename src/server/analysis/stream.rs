//! One analysis as it runs: a search per position on the engine pool, each written as an NDJSON
//! line as soon as it is computed, then `done` (or an error line).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tokio::sync::watch;

use super::accuracy::{Accuracy, PositionEval, TurnJudgement, review};
use super::budget::{Admitted, Budget};
use crate::engine::{Engine, Score, SearchResult};
use crate::rules::{Color, Game, Outcome, Position, SubMove};
use crate::server::computer::engine_pool::{EngineFailed, EnginePool};
use crate::server::deps::Deps;
use crate::server::metrics::Metrics;
use crate::server::play::protocol::{PhaseName, Side, reason_name};

/// The transposition table of one analysis, in MB: positions follow each other closely, and
/// several analyses and computer games share the machine.
pub const HASH_MB: usize = 8;
/// The White-relative value of a mate on the board (the graph's number for `mate 0`); a mate
/// in `n` sub-moves is `MATE_WHITE - n`, so nearer mates are larger.
pub const MATE_WHITE: i32 = 10_000;
/// The streamed reply: one line per position, then `done` (or `error`).
pub(super) fn stream(
    deps: &Deps,
    engines: &Arc<EnginePool>,
    budget: Budget,
    start: Position,
    record: Vec<SubMove>,
    admitted: Admitted,
) -> Response {
    let metrics = Arc::clone(&deps.metrics);
    metrics.analyses_started.fetch_add(1, Ordering::Relaxed);
    metrics.analyses_running.fetch_add(1, Ordering::Relaxed);
    let analysis = Analysis {
        _admitted: admitted,
        pool: Arc::clone(engines),
        running: Running(metrics),
        shutdown: deps.shutdown.clone(),
        budget,
        game: Some(Game::new(start)),
        record,
        engine: None,
        ply: 0,
        spent: Duration::ZERO,
        nodes: 0,
        searched: 0,
        ended: false,
        evals: Vec::new(),
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
    /// Dropped before `running` (fields drop in order): whoever sees the gauge go down finds
    /// the client's hold and the slot given back.
    _admitted: Admitted,
    pool: Arc<EnginePool>,
    running: Running,
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
    /// What each position reported, for the judgements and accuracy of the `done` line.
    evals: Vec<PositionEval>,
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
    /// Each player's accuracy over their turns (issue 31, [`super::accuracy`]).
    accuracy: Accuracy,
    /// The turns that lost winning chances enough to be an inaccuracy, a mistake or a blunder.
    judgements: Vec<TurnJudgement>,
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

/// One NDJSON line of an analysis or a lines stream (a line that cannot be written, a bug,
/// becomes an `engine_failed` error line).
pub(super) fn line(value: &impl Serialize) -> Bytes {
    let mut bytes = serde_json::to_vec(value).unwrap_or_else(|error| {
        tracing::error!(%error, "an NDJSON line could not be written");
        b"{\"error\":{\"code\":\"engine_failed\",\"message\":\"unwritable line\"}}".to_vec()
    });
    bytes.push(b'\n');
    Bytes::from(bytes)
}

pub(super) fn millis(d: Duration) -> u64 {
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
            let review = review(&self.evals);
            return Some(line(&DoneLine {
                done: true,
                positions: self.record.len() + 1,
                searched: self.searched,
                nodes: self.nodes,
                ms: millis(self.spent),
                accuracy: review.accuracy,
                judgements: review.judgements,
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
        self.evals.push(PositionEval {
            ply: self.ply,
            white: report.white,
            side: position.side_to_move(),
            turn_start: position.is_turn_start(),
            number: position.fullmove_number(),
            best: report.best.clone(),
            best_san: report.best_san.clone(),
        });
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
        let run = pool.run(move |stop| {
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
    use crate::rules::Rules;

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
