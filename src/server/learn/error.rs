//! Why a lesson request is refused, and what each refusal is on the wire (docs/protocol.md,
//! "Learn Marseillais").

use axum::http::StatusCode;
use serde::Serialize;

use crate::server::web::ApiError;

use super::judge::JudgeError;

/// The lesson routes' error codes (their serde names are the wire names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LearnCode {
    NotFound,
    BadRequest,
    IllegalMove,
    StoreFailure,
    Internal,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LearnError {
    #[error("no such lesson: {0}")]
    UnknownLesson(String),
    #[error("lesson {lesson} has no step {step}")]
    UnknownStep { lesson: String, step: String },
    #[error("'moves': {0}")]
    Moves(String),
    #[error(transparent)]
    Judge(#[from] JudgeError),
    #[error("the store failed; try again")]
    Store,
}

impl From<LearnError> for ApiError {
    fn from(error: LearnError) -> ApiError {
        let (status, code) = match &error {
            LearnError::UnknownLesson(_) | LearnError::UnknownStep { .. } => {
                (StatusCode::NOT_FOUND, LearnCode::NotFound)
            }
            LearnError::Moves(_) => (StatusCode::BAD_REQUEST, LearnCode::BadRequest),
            LearnError::Judge(JudgeError::Illegal { .. } | JudgeError::PastTurn { .. }) => {
                (StatusCode::BAD_REQUEST, LearnCode::IllegalMove)
            }
            LearnError::Judge(JudgeError::Damaged(_)) => {
                (StatusCode::INTERNAL_SERVER_ERROR, LearnCode::Internal)
            }
            LearnError::Store => (StatusCode::SERVICE_UNAVAILABLE, LearnCode::StoreFailure),
        };
        ApiError::new(status, code, error.to_string())
    }
}
