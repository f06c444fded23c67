//! `POST /api/replay`: validates a pasted comma PGN or extended FEN for the
//! replay page and returns every position of the game, so that the browser
//! client can step through a record without a rules engine of its own.
//! Also serves the page itself at `/replay`.
//!
//! Reply on success (`200`):
//! `{"start_fen", "moves": [{"uci", "san", "color", "fen", "turn", "submove"}],
//!   "turns": [{"number", "color", "moves": [index, ..], "starts_at_second"}],
//!   "result", "reason", "tags": [[name, value], ..], "time_control"}`, `time_control` being
//! the `TimeControl` tag read as the server's time control (`{"base_secs", "increment_secs"}`
//! or `{"days_per_turn"}`: [`crate::server::play::export::read_time_control`]), `null` without one.
//! On failure (`400`): `{"code", "message", "turn", "submove", "game"}` where
//! `turn` and `submove` are `null` unless the problem is at a sub-move, and
//! `game` is then the record as far as it replays (the success shape), so
//! that the page can show the position where it stops.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::rules::pgn::{
    GameResult, ImportedGame, MoveError, PgnError, read_game, read_game_prefix,
};
use crate::rules::{Game, Position, Rules};
use crate::server::deps::Deps;
use crate::server::metrics::Metrics;
use crate::server::play::protocol::Side;
use crate::server::play::protocol::reason_name;
use crate::server::web::ApiError;
use crate::server::web::assets;
use crate::server::web::{EdgeCode, read_json_body};

/// Largest text accepted: a long game is a few kilobytes; this bounds the
/// work a single request can cause.
pub const MAX_REPLAY_BYTES: usize = 256 * 1024;

/// The routes this module owns, merged into the main router.
/// What the replay route needs: the pool replays run on.
#[derive(Clone)]
pub struct ReplayState {
    pub deps: Deps,
    pub replays: Arc<ReplayPool>,
}

pub fn router(state: ReplayState) -> Router {
    Router::new()
        .route("/replay", get(page))
        .route("/api/replay", post(replay))
        .with_state(state)
}

async fn page() -> Response {
    assets::index_page()
}

/// The request: exactly one of the two fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayRequest {
    pgn: Option<String>,
    fen: Option<String>,
}

/// What kind of problem refused a replay request; its snake_case name is
/// the `code` field on the wire, so the set of codes is closed and checked
/// by the compiler rather than spelled out as strings at each use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayErrorCode {
    /// The body is not `{"pgn": ...}` or `{"fen": ...}` with exactly one field.
    BadRequest,
    /// The body is longer than [`MAX_REPLAY_BYTES`].
    TooLarge,
    /// The text holds no game or position.
    Empty,
    /// The FEN (field or PGN tag) does not parse.
    BadFen,
    /// A PGN tag pair is malformed.
    BadTag,
    /// A PGN comment is never closed.
    BadComment,
    /// A sub-move is unreadable or illegal.
    BadMove,
}

/// Why a replay request was refused; the body of a `400` reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct ReplayError {
    /// The kind of problem, sent as its snake_case name.
    pub code: ReplayErrorCode,
    /// Plain words, with the turn and sub-move when there is one.
    pub message: String,
    /// The turn's move number, for errors at a sub-move.
    pub turn: Option<u32>,
    /// 1 or 2, for errors at a sub-move.
    pub submove: Option<u8>,
    /// For errors at a sub-move: the record up to there, as a success reply
    /// describes it.
    pub game: Option<Value>,
}

impl ReplayError {
    fn plain(code: ReplayErrorCode, message: impl Into<String>) -> ReplayError {
        ReplayError {
            code,
            message: message.into(),
            turn: None,
            submove: None,
            game: None,
        }
    }
}

impl IntoResponse for ReplayError {
    fn into_response(self) -> Response {
        (StatusCode::BAD_REQUEST, axum::Json(&self)).into_response()
    }
}

impl From<PgnError> for ReplayError {
    fn from(error: PgnError) -> ReplayError {
        match &error {
            PgnError::Move { at, token, reason } => {
                let side = match Side::from(at.side) {
                    Side::White => "White",
                    Side::Black => "Black",
                };
                // `token` is then the turn's first (and only) sub-move: it is
                // sub-move 2 that is missing, not `token` that is wrong.
                let message = if *reason == MoveError::TurnIncomplete {
                    format!(
                        "Turn {} ({side}), sub-move {} is missing: '{token}' is only sub-move 1, and this turn needs two sub-moves joined by a comma ('{token},...') (line {})",
                        at.turn, at.submove, at.line
                    )
                } else {
                    format!(
                        "Turn {} ({side}), sub-move {} '{token}': {reason} (line {})",
                        at.turn, at.submove, at.line
                    )
                };
                ReplayError {
                    code: ReplayErrorCode::BadMove,
                    message,
                    turn: Some(at.turn),
                    submove: Some(at.submove),
                    game: None,
                }
            }
            PgnError::Fen(e) => {
                ReplayError::plain(ReplayErrorCode::BadFen, format!("FEN tag: {e}"))
            }
            PgnError::Tag { .. } => ReplayError::plain(ReplayErrorCode::BadTag, error.to_string()),
            PgnError::UnclosedComment { .. } => {
                ReplayError::plain(ReplayErrorCode::BadComment, error.to_string())
            }
        }
    }
}

/// Where replays run. A long game takes tens of milliseconds of CPU: on a
/// runtime worker that stalls every socket and request sharing it, so
/// replays go to the blocking pool, at most `slots` at once (the pool
/// itself would start hundreds of threads); a request that cannot get a
/// slot within `wait` is refused `503 busy`.
pub struct ReplayPool {
    slots: Arc<Semaphore>,
    wait: Duration,
    metrics: Arc<Metrics>,
}

impl ReplayPool {
    pub fn new(slots: usize, wait: Duration, metrics: Arc<Metrics>) -> ReplayPool {
        ReplayPool {
            slots: Arc::new(Semaphore::new(slots.max(1))),
            wait,
            metrics,
        }
    }

    /// Runs [`replay_body`] on the blocking pool once a slot is free.
    pub async fn run(&self, body: Vec<u8>) -> Result<Result<Value, ReplayError>, ApiError> {
        let permit = tokio::time::timeout(self.wait, Arc::clone(&self.slots).acquire_owned())
            .await
            .ok()
            .and_then(Result::ok)
            .ok_or_else(|| {
                ApiError::http(
                    StatusCode::SERVICE_UNAVAILABLE,
                    EdgeCode::Busy,
                    "the server is busy replaying other games; try again",
                )
                .retry_after(1)
            })?;
        let running = Running::start(Arc::clone(&self.metrics));
        let work = tokio::task::spawn_blocking(move || {
            let answer = replay_body(&body);
            drop(running);
            drop(permit);
            answer
        });
        work.await.map_err(|e| {
            tracing::error!(error = %e, "a replay task failed");
            ApiError::http(
                StatusCode::INTERNAL_SERVER_ERROR,
                EdgeCode::Internal,
                "the replay failed",
            )
        })
    }
}

/// Counts one replay in `marseillais_replays_running` (and its peak) for
/// as long as it lives, however the replay ends.
struct Running(Arc<Metrics>);

impl Running {
    fn start(metrics: Arc<Metrics>) -> Running {
        let now = metrics.replays_running.fetch_add(1, Ordering::Relaxed) + 1;
        metrics
            .replays_running_peak
            .fetch_max(now, Ordering::Relaxed);
        Running(metrics)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.replays_running.fetch_sub(1, Ordering::Relaxed);
    }
}

async fn replay(State(app): State<ReplayState>, request: Request) -> Response {
    let timeout = app.deps.config.body_read_timeout;
    let body = match read_json_body(request, MAX_REPLAY_BYTES, timeout).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    match app.replays.run(body.to_vec()).await {
        Ok(Ok(reply)) => axum::Json(reply).into_response(),
        Ok(Err(refused)) => refused.into_response(),
        Err(error) => error.into_response(),
    }
}

/// What a request body asks for: a comma PGN or an extended FEN.
enum Record {
    Pgn(String),
    Fen(String),
}

/// The body's size and shape checked, the record taken out of it.
fn read_request(body: &[u8]) -> Result<Record, ReplayError> {
    if body.len() > MAX_REPLAY_BYTES {
        return Err(ReplayError::plain(
            ReplayErrorCode::TooLarge,
            format!("the text is longer than {} KiB", MAX_REPLAY_BYTES / 1024),
        ));
    }
    let request: ReplayRequest = serde_json::from_slice(body).map_err(|e| {
        ReplayError::plain(
            ReplayErrorCode::BadRequest,
            format!("expected {{\"pgn\": \"...\"}} or {{\"fen\": \"...\"}}: {e}"),
        )
    })?;
    match (request.pgn, request.fen) {
        (Some(pgn), None) => Ok(Record::Pgn(pgn)),
        (None, Some(fen)) => Ok(Record::Fen(fen)),
        _ => Err(ReplayError::plain(
            ReplayErrorCode::BadRequest,
            "give exactly one of \"pgn\" or \"fen\"",
        )),
    }
}

/// The whole request, from bytes to the reply's JSON (kept apart from axum
/// so that it can be tested directly).
pub fn replay_body(body: &[u8]) -> Result<Value, ReplayError> {
    match read_request(body)? {
        Record::Pgn(pgn) => replay_pgn(&pgn),
        Record::Fen(fen) => replay_fen(&fen),
    }
}

/// The game a body holds, read exactly as a replay reads it (same limits,
/// same errors): what `POST /api/analysis` analyses. A FEN is a game of no
/// sub-moves.
pub fn game_of_body(body: &[u8]) -> Result<Game, ReplayError> {
    match read_request(body)? {
        Record::Pgn(pgn) => import_pgn(&pgn).map(|imported| imported.game),
        Record::Fen(fen) => fen_position(&fen).map(Game::new),
    }
}

/// A comma PGN (the first game of the text).
pub fn replay_pgn(text: &str) -> Result<Value, ReplayError> {
    let imported = import_pgn(text)?;
    let result = imported
        .result
        .unwrap_or(GameResult::of(imported.game.outcome()));
    Ok(describe(&imported.game, result, &imported.tags))
}

/// The first game of a comma PGN text, or why not (with the record as far
/// as it replays when a sub-move stops it).
fn import_pgn(text: &str) -> Result<ImportedGame, ReplayError> {
    if text.trim().is_empty() {
        return Err(ReplayError::plain(
            ReplayErrorCode::Empty,
            "paste a comma PGN or a FEN",
        ));
    }
    match read_game(text) {
        None => Err(ReplayError::plain(
            ReplayErrorCode::Empty,
            "no game was found in the text",
        )),
        Some(Err(error)) => {
            let at_submove = matches!(error, PgnError::Move { .. });
            let mut error = ReplayError::from(error);
            if at_submove {
                error.game = read_game_prefix(text)
                    .map(|game| describe(&game, GameResult::of(game.outcome()), &[]));
            }
            Err(error)
        }
        Some(Ok(imported)) => Ok(imported),
    }
}

/// An extended FEN: the one position, no moves.
pub fn replay_fen(text: &str) -> Result<Value, ReplayError> {
    let game = Game::new(fen_position(text)?);
    Ok(describe(&game, GameResult::of(game.outcome()), &[]))
}

fn fen_position(text: &str) -> Result<Position, ReplayError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ReplayError::plain(
            ReplayErrorCode::Empty,
            "paste a comma PGN or a FEN",
        ));
    }
    Position::from_fen(text, Rules::Marseillais)
        .map_err(|e| ReplayError::plain(ReplayErrorCode::BadFen, e.to_string()))
}

fn describe(game: &Game, result: GameResult, tags: &[(String, String)]) -> Value {
    let positions = game.positions();
    let mut moves = Vec::with_capacity(game.submove_count());
    let mut turns = Vec::new();
    for turn in game.turns() {
        let mut indexes = Vec::new();
        for (offset, &mv) in turn.submoves.iter().enumerate() {
            let index = turn.first_index + offset;
            let before = &positions[index];
            let after = positions.get(index + 1).unwrap_or(before);
            let submove = if turn.starts_at_second { 2 } else { offset + 1 };
            moves.push(json!({
                "uci": mv.to_string(),
                "san": before.san(mv),
                "color": Side::from(turn.side),
                "fen": after.fen(),
                "turn": turn.number,
                "submove": submove,
            }));
            indexes.push(index);
        }
        turns.push(json!({
            "number": turn.number,
            "color": Side::from(turn.side),
            "moves": indexes,
            "starts_at_second": turn.starts_at_second,
        }));
    }
    let outcome = game.outcome();
    let time_control = tags
        .iter()
        .find(|(name, _)| name == "TimeControl")
        .and_then(|(_, value)| crate::server::play::export::read_time_control(value));
    json!({
        "start_fen": game.start().fen(),
        "moves": moves,
        "turns": turns,
        "result": result.as_str(),
        "reason": outcome.map(|o| reason_name(o.reason())),
        "tags": tags,
        "time_control": time_control,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comma_pgn_replays_to_one_fen_per_submove_grouped_by_turn() {
        let reply = replay_pgn("1. e4 e5,Nc6 2. Qh5,Nf3 g6,gxh5").unwrap();
        let moves = reply["moves"].as_array().unwrap();
        assert_eq!(moves.len(), 7);
        assert_eq!(moves[6]["san"], "gxh5");
        assert_eq!(moves[6]["turn"], 2);
        assert_eq!(moves[6]["submove"], 2);
        assert!(
            moves[6]["fen"]
                .as_str()
                .unwrap()
                .starts_with("r1bqkbnr/pppp1p1p/2n5/4p2p/4P3/5N2/PPPP1PPP/RNB1KB1R w")
        );
        assert_eq!(reply["turns"].as_array().unwrap().len(), 4);
        assert_eq!(reply["turns"][1]["moves"], json!([1, 2]));
    }

    #[test]
    fn the_time_control_tag_is_read_as_a_live_clock_or_days_per_turn() {
        let days = replay_pgn("[TimeControl \"1/604800\"]\n\n1. e4 *").unwrap();
        assert_eq!(days["time_control"], json!({"days_per_turn": 7}));
        let live = replay_pgn("[TimeControl \"300+3\"]\n\n1. e4 *").unwrap();
        assert_eq!(
            live["time_control"],
            json!({"base_secs": 300, "increment_secs": 3})
        );
        let lichess = replay_pgn("[TimeControl \"-\"]\n\n1. e4 *").unwrap();
        assert_eq!(lichess["time_control"], Value::Null);
        assert_eq!(replay_pgn("1. e4 *").unwrap()["time_control"], Value::Null);
    }

    #[test]
    fn an_illegal_submove_is_reported_with_its_turn_and_submove() {
        let error = replay_pgn("1. e4 e5,Ke3").unwrap_err();
        assert_eq!(error.code, ReplayErrorCode::BadMove);
        assert_eq!(error.turn, Some(1));
        assert_eq!(error.submove, Some(2));
        assert!(error.message.contains("Turn 1 (Black), sub-move 2"));
    }

    #[test]
    fn an_incomplete_turn_names_its_missing_submove_and_comes_with_the_record_so_far() {
        let error = replay_pgn("1. e4 e5 2. Nf3 Nc6").unwrap_err();
        assert_eq!((error.turn, error.submove), (Some(1), Some(2)));
        assert!(
            error
                .message
                .starts_with("Turn 1 (Black), sub-move 2 is missing: 'e5' is only sub-move 1"),
            "{}",
            error.message
        );
        let game = error.game.unwrap();
        assert_eq!(game["moves"].as_array().unwrap().len(), 2);
        assert_eq!(game["moves"][1]["san"], "e5");
        assert_eq!(game["moves"][1]["submove"], 1);
    }

    #[test]
    fn a_bad_fen_is_refused_with_the_field_named() {
        let error = replay_fen("rnbqkbnr/pppppppp/8/8 w KQkq - 0 1").unwrap_err();
        assert_eq!(error.code, ReplayErrorCode::BadFen);
        assert!(error.message.contains("placement"), "{}", error.message);
    }

    #[test]
    fn a_request_with_both_or_neither_field_is_a_bad_request() {
        assert_eq!(
            replay_body(b"{}").unwrap_err().code,
            ReplayErrorCode::BadRequest
        );
        assert_eq!(
            replay_body(br#"{"pgn":"1. e4","fen":"x"}"#)
                .unwrap_err()
                .code,
            ReplayErrorCode::BadRequest
        );
        assert_eq!(
            replay_body(b"not json").unwrap_err().code,
            ReplayErrorCode::BadRequest
        );
    }

    #[test]
    fn error_codes_keep_their_snake_case_wire_names() {
        let body = serde_json::to_value(replay_body(b"{}").unwrap_err()).unwrap();
        assert_eq!(body["code"], "bad_request");
        let names: Vec<Value> = [
            ReplayErrorCode::TooLarge,
            ReplayErrorCode::Empty,
            ReplayErrorCode::BadFen,
            ReplayErrorCode::BadTag,
            ReplayErrorCode::BadComment,
            ReplayErrorCode::BadMove,
        ]
        .iter()
        .map(|code| serde_json::to_value(code).unwrap())
        .collect();
        assert_eq!(
            names,
            [
                "too_large",
                "empty",
                "bad_fen",
                "bad_tag",
                "bad_comment",
                "bad_move"
            ]
        );
    }
}
