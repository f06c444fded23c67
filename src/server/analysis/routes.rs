//! `POST /api/analysis` and `GET /api/games/{id}/analysis`: the request read (a record, or a
//! finished game of this server), admitted ([`super::budget::Analyses`]), then streamed.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use super::budget::{Admitted, Analyses};
use super::stream::stream;
use crate::rules::{Position, Rules, SubMove};
use crate::server::analysis::replay::{MAX_REPLAY_BYTES, game_of_body};
use crate::server::computer::engine_pool::EnginePool;
use crate::server::deps::Deps;
use crate::server::play::protocol::GameStatus;
use crate::server::play::room::Command;
use crate::server::play::rooms::Rooms;
use crate::server::play::routes::ask;
use crate::server::players::account::{Accounts, MaybeAccount};
use crate::server::web::ApiError;
use crate::server::web::{EdgeCode, read_json_body};
use axum::Router;
use axum::extract::{ConnectInfo, FromRef, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;

/// What the analysis routes need: the limits and slots of analyses, the engine pool, and the
/// games (to analyse a finished one).
#[derive(Clone)]
pub struct AnalysisState {
    pub deps: Deps,
    pub analyses: Arc<Analyses>,
    pub engines: Arc<EnginePool>,
    pub rooms: Arc<Rooms>,
    /// A signed-in client's analysis counts for its account too.
    pub accounts: Arc<Accounts>,
}

impl FromRef<AnalysisState> for Arc<Accounts> {
    fn from_ref(state: &AnalysisState) -> Arc<Accounts> {
        Arc::clone(&state.accounts)
    }
}

pub fn router(state: AnalysisState) -> Router {
    Router::new()
        .route("/api/analysis", post(analyse_record))
        .route("/api/games/{id}/analysis", get(analyse_game))
        .merge(super::board::routes())
        .with_state(state)
}

async fn analyse_record(
    State(app): State<AnalysisState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    MaybeAccount(account): MaybeAccount,
    request: Request,
) -> Response {
    let timeout = app.deps.config.body_read_timeout;
    let body = match read_json_body(request, MAX_REPLAY_BYTES, timeout).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let account = account.map(|a| a.id);
    let admitted = match app.analyses.admit(peer.ip(), account, &app.deps.metrics) {
        Ok(admitted) => admitted,
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
    let record = game.submoves();
    if let Err(error) = app.analyses.check_length(record.len() + 1) {
        return error.into_response();
    }
    stream(
        &app.deps,
        &app.engines,
        app.analyses.budget,
        *game.start(),
        record,
        admitted,
    )
}

async fn analyse_game(
    State(app): State<AnalysisState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    MaybeAccount(account): MaybeAccount,
    Path(id): Path<String>,
) -> Response {
    let account = account.map(|a| a.id);
    match game_record(&app, peer.ip(), account, &id).await {
        Ok((start, record, admitted)) => stream(
            &app.deps,
            &app.engines,
            app.analyses.budget,
            start,
            record,
            admitted,
        ),
        Err(error) => error.into_response(),
    }
}

/// A finished game's start and sub-moves, once the client is admitted.
async fn game_record(
    app: &AnalysisState,
    ip: IpAddr,
    account: Option<crate::server::domain::user::UserId>,
    id: &str,
) -> Result<(Position, Vec<SubMove>, Admitted), ApiError> {
    let admitted = app.analyses.admit(ip, account, &app.deps.metrics)?;
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
    let record: Vec<SubMove> = snapshot.moves.iter().map(|m| m.uci).collect();
    app.analyses.check_length(record.len() + 1)?;
    Ok((start, record, admitted))
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
