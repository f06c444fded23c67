//! A refusal of the game core, answered over HTTP: its code, and the status that code means.
//! Apart from `error.rs` so that the wire format stays free of the HTTP edge (the fuzz targets
//! mount it alone).

use axum::http::StatusCode;

use super::error::{ErrorCode, Refusal};
use crate::server::web::ApiError;

/// A refusal answered over HTTP: its code, and the status that code means.
impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        let status = match refusal.code {
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::SeatTaken => StatusCode::CONFLICT,
            ErrorCode::StoreFailure => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            _ => StatusCode::BAD_REQUEST,
        };
        let retry_after = refusal.retry_after_secs;
        let error = ApiError::new(status, refusal.code, refusal.message);
        match retry_after {
            Some(secs) => error.retry_after(secs),
            None => error,
        }
    }
}
