//! The analysis board's routes (issue 31; docs/analysis.md, docs/protocol.md "Analysis
//! board"): the page `/analysis` (the client shell), a position's legal sub-moves, a PGN with
//! variations read into a move tree and a tree written back as PGN, and the engine's lines.
//!
//! The position and PGN routes are cheap and pure (no engine, no store): they run on the
//! blocking pool within the replay's body limit. The lines go through the engine pool with a
//! budget of their own ([`super::lines`]).

use axum::Router;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::lines::{LinesRequest, MAX_MULTIPV, searched_position, stream};
use super::position::{read_fen, view};
use super::replay::MAX_REPLAY_BYTES;
use super::routes::AnalysisState;
use super::tree::{TreeRefusal, export, import, on_deep_stack};
use crate::server::players::account::MaybeAccount;
use crate::server::web::{ApiError, assets, read_json_body};

/// Largest body of `POST /api/analysis/position`: a FEN is under 100 bytes.
pub const MAX_POSITION_BYTES: usize = 4 * 1024;

/// The board's own error codes (docs/protocol.md, "Analysis board"). The PGN routes answer the
/// replay's codes (`bad_move`, `bad_fen`, ...) with the replay's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardCode {
    /// 400: a FEN that does not parse.
    BadFen,
    /// 400: a threat asked where the side to move cannot pass (mid-turn, in check, game over).
    NoThreat,
}

/// The board's routes, merged into the analysis router.
pub fn routes() -> Router<AnalysisState> {
    Router::new()
        .route("/analysis", get(page))
        .route("/api/analysis/position", post(position))
        .route("/api/analysis/pgn", post(import_pgn))
        .route("/api/analysis/pgn/export", post(export_pgn))
        .route("/api/analysis/lines", post(lines))
}

async fn page() -> Response {
    assets::index_page()
}

/// A body read within `limit` and decoded as `T`: 400 `bad_request` when it is not.
pub(super) async fn read_body<T: DeserializeOwned>(
    app: &AnalysisState,
    request: Request,
    limit: usize,
) -> Result<T, ApiError> {
    let body = read_json_body(request, limit, app.deps.config.body_read_timeout).await?;
    serde_json::from_slice(&body)
        .map_err(|error| ApiError::bad_request(format!("the request body does not read: {error}")))
}

#[derive(Deserialize)]
struct PositionRequest {
    fen: String,
}

async fn position(State(app): State<AnalysisState>, request: Request) -> Response {
    let body: PositionRequest = match read_body(&app, request, MAX_POSITION_BYTES).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    match read_fen(&body.fen) {
        Ok(position) => axum::Json(view(&position)).into_response(),
        Err(error) => {
            ApiError::new(StatusCode::BAD_REQUEST, BoardCode::BadFen, error.0).into_response()
        }
    }
}

async fn import_pgn(State(app): State<AnalysisState>, request: Request) -> Response {
    tree_route(app, request, import).await
}

async fn export_pgn(State(app): State<AnalysisState>, request: Request) -> Response {
    tree_route(app, request, export).await
}

/// A PGN route: the body (within the replay's limit) read and answered on a deep stack.
async fn tree_route(
    app: AnalysisState,
    request: Request,
    work: fn(&[u8]) -> Result<String, TreeRefusal>,
) -> Response {
    let timeout = app.deps.config.body_read_timeout;
    let body = match read_json_body(request, MAX_REPLAY_BYTES, timeout).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    match on_deep_stack(&app.analyses.trees, move || work(&body)).await {
        Ok(Ok(json)) => (
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            json,
        )
            .into_response(),
        Ok(Err(TreeRefusal::Replay(refused))) => refused.into_response(),
        Ok(Err(TreeRefusal::Api(error))) | Err(error) => error.into_response(),
    }
}

async fn lines(
    State(app): State<AnalysisState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    MaybeAccount(account): MaybeAccount,
    request: Request,
) -> Response {
    let body: LinesRequest = match read_body(&app, request, MAX_POSITION_BYTES).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    if !(1..=MAX_MULTIPV).contains(&body.multipv) {
        return ApiError::bad_request(format!(
            "multipv is 1 to {MAX_MULTIPV}, not {}",
            body.multipv
        ))
        .into_response();
    }
    let position = match read_fen(&body.fen) {
        Ok(position) => position,
        Err(error) => {
            return ApiError::new(StatusCode::BAD_REQUEST, BoardCode::BadFen, error.0)
                .into_response();
        }
    };
    let searched = match searched_position(&position, body.threat) {
        Ok(searched) => searched,
        Err(message) => {
            return ApiError::new(StatusCode::BAD_REQUEST, BoardCode::NoThreat, message)
                .into_response();
        }
    };
    let lines = &app.analyses.lines;
    let admitted = match lines.admit(peer.ip(), account.map(|a| a.id)).await {
        Ok(admitted) => admitted,
        Err(error) => return error.into_response(),
    };
    stream(
        &app.engines,
        app.deps.shutdown.clone(),
        lines.limits,
        searched,
        body.multipv,
        admitted,
    )
}
