//! `POST /api/analysis` and `GET /api/games/{id}/analysis`: the request read (a record, or a
//! finished game of this server), admitted ([`super::budget::Analyses`]), then streamed.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use tokio::sync::OwnedSemaphorePermit;

use super::budget::Analyses;
use super::stream::stream;
use crate::rules::{Position, Rules, SubMove};
use crate::server::analysis::replay::{MAX_REPLAY_BYTES, game_of_body};
use crate::server::computer::engine_pool::EnginePool;
use crate::server::deps::Deps;
use crate::server::play::protocol::GameStatus;
use crate::server::play::room::Command;
use crate::server::play::rooms::Rooms;
use crate::server::play::routes::ask;
use crate::server::web::ApiError;
use crate::server::web::{EdgeCode, read_json_body};

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
    stream(
        &app.deps,
        &app.engines,
        app.analyses.budget,
        *game.start(),
        game.submoves(),
        slot,
    )
}

async fn analyse_game(
    State(app): State<AnalysisState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
) -> Response {
    match game_record(&app, peer.ip(), &id).await {
        Ok((start, record, slot)) => stream(
            &app.deps,
            &app.engines,
            app.analyses.budget,
            start,
            record,
            slot,
        ),
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
