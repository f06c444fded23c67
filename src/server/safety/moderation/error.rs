//! Why a report or a moderator's request is refused, and what each refusal is on the wire
//! (docs/protocol.md, "Moderation").

use axum::http::StatusCode;
use serde::Serialize;

use crate::server::store::StoreError;
use crate::server::web::ApiError;

use super::rules::InputError;

/// The moderation routes' error codes (their serde names are the wire names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModCode {
    BadRequest,
    NotFound,
    NotModerator,
    CannotReportYourself,
    TooManyReports,
    ReportNotOpen,
    StoreFailure,
}

#[derive(Debug, thiserror::Error)]
pub enum ModError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{0}")]
    Body(String),
    #[error("no such user")]
    NoSuchUser,
    #[error("no such report")]
    NoSuchReport,
    #[error("this report is no longer open")]
    ReportNotOpen,
    #[error("only moderators may do this")]
    NotModerator,
    #[error("you cannot report yourself")]
    ReportYourself,
    #[error(
        "you already have {0} open reports from the last 24 hours; wait until a moderator handles them"
    )]
    TooManyReports(u32),
    #[error("too many reports from this address; try again later")]
    TooManyFromAddress(u64),
    #[error("the store failed; try again")]
    Store,
}

impl From<StoreError> for ModError {
    fn from(error: StoreError) -> ModError {
        tracing::warn!(%error, "moderation: store failure");
        ModError::Store
    }
}

impl From<ModError> for ApiError {
    fn from(error: ModError) -> ApiError {
        let (status, code) = match &error {
            ModError::Input(_) | ModError::Body(_) => {
                (StatusCode::BAD_REQUEST, ModCode::BadRequest)
            }
            ModError::NoSuchUser | ModError::NoSuchReport => {
                (StatusCode::NOT_FOUND, ModCode::NotFound)
            }
            ModError::ReportNotOpen => (StatusCode::CONFLICT, ModCode::ReportNotOpen),
            ModError::NotModerator => (StatusCode::FORBIDDEN, ModCode::NotModerator),
            ModError::ReportYourself => (StatusCode::BAD_REQUEST, ModCode::CannotReportYourself),
            ModError::TooManyReports(_) | ModError::TooManyFromAddress(_) => {
                (StatusCode::TOO_MANY_REQUESTS, ModCode::TooManyReports)
            }
            ModError::Store => (StatusCode::SERVICE_UNAVAILABLE, ModCode::StoreFailure),
        };
        let retry = match &error {
            ModError::TooManyFromAddress(secs) => Some(*secs),
            _ => None,
        };
        let api = ApiError::new(status, code, error.to_string());
        match retry {
            Some(secs) => api.retry_after(secs),
            None => api,
        }
    }
}
