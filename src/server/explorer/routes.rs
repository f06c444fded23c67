//! The explorer's route (docs/protocol.md, "Opening explorer"): `GET /api/explorer`, one
//! position's turns and example games from the store.

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;

use crate::rules::{Position, Rules};
use crate::server::deps::Deps;
use crate::server::web::ApiError;

use super::answer::{Filter, answer};
use super::error::ExplorerError;
use super::extract::position_key;

/// The longest FEN read (an extended FEN is under 100 bytes; anything longer is no FEN).
const MAX_FEN_BYTES: usize = 128;

/// The explorer's state: only the store (through [`Deps`]); it keeps nothing of its own, so
/// every node of a cluster answers the same from the one database.
#[derive(Clone)]
pub struct ExplorerState {
    pub deps: Deps,
}

pub fn router(state: ExplorerState) -> Router {
    Router::new()
        .route("/api/explorer", get(position))
        .with_state(state)
}

/// `?fen=FEN&rated=all|rated|casual&speeds=blitz,rapid`; no `fen`: the standard start.
#[derive(Deserialize)]
struct ExplorerQuery {
    fen: Option<String>,
    rated: Option<String>,
    speeds: Option<String>,
}

/// The position a query names, checked: a FEN the rules read, at the start of a turn.
pub fn queried_position(fen: Option<&str>) -> Result<(String, Position), ExplorerError> {
    let position = match fen.map(str::trim).filter(|f| !f.is_empty()) {
        None => Position::initial(),
        Some(text) if text.len() > MAX_FEN_BYTES => {
            return Err(ExplorerError::BadFen(format!(
                "a FEN has at most {MAX_FEN_BYTES} bytes"
            )));
        }
        Some(text) => Position::from_fen(text, Rules::Marseillais)
            .map_err(|e| ExplorerError::BadFen(e.to_string()))?,
    };
    if !position.is_turn_start() {
        return Err(ExplorerError::NotTurnStart);
    }
    Ok((position.fen(), position))
}

async fn position(
    State(app): State<ExplorerState>,
    Query(query): Query<ExplorerQuery>,
) -> Result<Response, ApiError> {
    let (fen, position) = queried_position(query.fen.as_deref())?;
    let filter = Filter::parse(query.rated.as_deref(), query.speeds.as_deref())?;
    let stored = app
        .deps
        .store
        .explorer_position(position_key(&position))
        .await
        .map_err(|error| {
            tracing::warn!(%error, "explorer: the store failed");
            ExplorerError::Store
        })?;
    Ok(Json(answer(fen, &position, stored, &filter)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_fen_is_the_standard_start() {
        let (fen, position) = queried_position(None).expect("start");
        assert_eq!(position, Position::initial());
        assert_eq!(fen, Position::initial().fen());
    }

    #[test]
    fn a_turn_in_progress_is_refused() {
        let second = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 2";
        assert_eq!(
            queried_position(Some(second)).map(|_| ()),
            Err(ExplorerError::NotTurnStart)
        );
        assert!(matches!(
            queried_position(Some("not a fen")),
            Err(ExplorerError::BadFen(_))
        ));
    }
}
