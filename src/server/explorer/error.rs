//! Why an explorer request is refused, and what each refusal is on the wire
//! (docs/protocol.md, "Opening explorer").

use axum::http::StatusCode;
use serde::Serialize;

use crate::server::web::ApiError;

/// The explorer's error codes (their serde names are the wire names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExplorerCode {
    BadFen,
    NotTurnStart,
    BadRequest,
    StoreFailure,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExplorerError {
    #[error("{0}")]
    BadFen(String),
    /// The explorer knows positions between turns only: a turn in progress was never a
    /// position a game was counted at.
    #[error("the position is in the middle of a turn; the explorer knows turn starts only")]
    NotTurnStart,
    #[error("'rated' is all, rated or casual, not {0:?}")]
    BadRated(String),
    #[error(
        "'speeds': {0:?} is not a clock family (bullet, blitz, rapid, classical, correspondence, untimed)"
    )]
    BadSpeed(String),
    #[error("the store failed; try again")]
    Store,
}

impl From<ExplorerError> for ApiError {
    fn from(error: ExplorerError) -> ApiError {
        let (status, code) = match &error {
            ExplorerError::BadFen(_) => (StatusCode::BAD_REQUEST, ExplorerCode::BadFen),
            ExplorerError::NotTurnStart => (StatusCode::BAD_REQUEST, ExplorerCode::NotTurnStart),
            ExplorerError::BadRated(_) | ExplorerError::BadSpeed(_) => {
                (StatusCode::BAD_REQUEST, ExplorerCode::BadRequest)
            }
            ExplorerError::Store => (StatusCode::SERVICE_UNAVAILABLE, ExplorerCode::StoreFailure),
        };
        ApiError::new(status, code, error.to_string())
    }
}
