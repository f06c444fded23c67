//! Why an arena action is refused, and what each refusal is on the wire (docs/protocol.md,
//! "Arenas").

use axum::http::StatusCode;
use serde::Serialize;

use crate::server::web::ApiError;

use super::tournament::{JoinRefused, TournamentRefused};

/// The arena routes' error codes (their serde names are the wire names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArenaCode {
    BadRequest,
    NotFound,
    NotLoggedIn,
    ArenaOver,
    TooFewRatedGames,
    NotJoined,
    TooManyArenas,
    StoreFailure,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArenaError {
    #[error(transparent)]
    Terms(#[from] TournamentRefused),
    #[error(transparent)]
    Join(#[from] JoinRefused),
    #[error("no such arena")]
    NotFound,
    #[error("you are not in this arena")]
    NotJoined,
    #[error(
        "you already have {} arenas to come; wait for one to end",
        super::tournament::MAX_OPEN_ARENAS_PER_USER
    )]
    TooManyArenas,
    #[error("the store failed; try again")]
    Store,
}

impl From<ArenaError> for ApiError {
    fn from(error: ArenaError) -> ApiError {
        let (status, code) = match &error {
            ArenaError::Terms(_) => (StatusCode::BAD_REQUEST, ArenaCode::BadRequest),
            ArenaError::Join(JoinRefused::SignIn) => {
                (StatusCode::UNAUTHORIZED, ArenaCode::NotLoggedIn)
            }
            ArenaError::Join(JoinRefused::Finished) => (StatusCode::CONFLICT, ArenaCode::ArenaOver),
            ArenaError::Join(JoinRefused::TooFewRatedGames { .. }) => {
                (StatusCode::FORBIDDEN, ArenaCode::TooFewRatedGames)
            }
            ArenaError::NotFound => (StatusCode::NOT_FOUND, ArenaCode::NotFound),
            ArenaError::NotJoined => (StatusCode::CONFLICT, ArenaCode::NotJoined),
            ArenaError::TooManyArenas => (StatusCode::TOO_MANY_REQUESTS, ArenaCode::TooManyArenas),
            ArenaError::Store => (StatusCode::SERVICE_UNAVAILABLE, ArenaCode::StoreFailure),
        };
        ApiError::new(status, code, error.to_string())
    }
}
