//! Why a puzzle request is refused, and what each refusal is on the wire (docs/protocol.md,
//! "Puzzles").

use axum::http::StatusCode;
use serde::Serialize;

use crate::server::web::ApiError;

use super::judge::JudgeError;

/// The puzzle routes' error codes (their serde names are the wire names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PuzzleCode {
    BadRequest,
    NotFound,
    StoreFailure,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PuzzleError {
    #[error("no such puzzle")]
    NotFound,
    #[error("no puzzle is left to play here")]
    NoneLeft,
    #[error("no such user")]
    NoSuchUser,
    #[error("no such theme: {0}")]
    UnknownTheme(String),
    #[error("'played': {0}")]
    Played(String),
    #[error(transparent)]
    Judge(#[from] JudgeError),
    /// A stored puzzle the rules core refuses: never written by this server's import, which
    /// checks every line, but a store edited by hand could hold one.
    #[error("this puzzle is damaged: {0}")]
    Damaged(String),
    #[error("the store failed; try again")]
    Store,
}

impl From<PuzzleError> for ApiError {
    fn from(error: PuzzleError) -> ApiError {
        let (status, code) = match &error {
            PuzzleError::NotFound | PuzzleError::NoneLeft | PuzzleError::NoSuchUser => {
                (StatusCode::NOT_FOUND, PuzzleCode::NotFound)
            }
            PuzzleError::UnknownTheme(_) | PuzzleError::Played(_) | PuzzleError::Judge(_) => {
                (StatusCode::BAD_REQUEST, PuzzleCode::BadRequest)
            }
            PuzzleError::Damaged(_) | PuzzleError::Store => {
                (StatusCode::SERVICE_UNAVAILABLE, PuzzleCode::StoreFailure)
            }
        };
        ApiError::new(status, code, error.to_string())
    }
}
