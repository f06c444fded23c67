//! Why a block request is refused, and what each refusal is on the wire (docs/protocol.md,
//! "Blocks"); and the one refusal a block causes elsewhere, [`not_possible`].

use axum::http::StatusCode;
use serde::Serialize;

use super::rules::BlockRefused;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::web::ApiError;

/// The block routes' own codes (their serde names are the wire names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockCode {
    CannotBlockYourself,
    TooManyBlocks,
    UnknownUser,
    StoreFailure,
}

#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    #[error("{0}")]
    BadUsername(#[from] crate::server::players::account::UsernameError),
    #[error("there is no user of that name")]
    UnknownUser,
    #[error(transparent)]
    Refused(#[from] BlockRefused),
    #[error("the store failed; try again")]
    Store,
}

impl From<BlockError> for ApiError {
    fn from(error: BlockError) -> ApiError {
        let (status, code) = match &error {
            BlockError::BadUsername(_) => {
                return crate::server::players::account::error::bad_username();
            }
            BlockError::UnknownUser => (StatusCode::NOT_FOUND, BlockCode::UnknownUser),
            BlockError::Refused(BlockRefused::Yourself) => {
                (StatusCode::BAD_REQUEST, BlockCode::CannotBlockYourself)
            }
            BlockError::Refused(BlockRefused::TooMany) => {
                (StatusCode::CONFLICT, BlockCode::TooManyBlocks)
            }
            BlockError::Store => (StatusCode::SERVICE_UNAVAILABLE, BlockCode::StoreFailure),
        };
        ApiError::new(status, code, error.to_string())
    }
}

/// What a block standing in the way answers (a challenge, a join): the same words whoever
/// blocked whom, and never the word "blocked".
pub fn not_possible() -> Refusal {
    Refusal::new(ErrorCode::NotPossible, "this is not possible")
}
