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
            ErrorCode::NotPossible => StatusCode::FORBIDDEN,
            ErrorCode::Playban => StatusCode::FORBIDDEN,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_limited_refusal_over_http_is_429_and_keeps_when_to_try_again() {
        let limited =
            ApiError::from(Refusal::new(ErrorCode::RateLimited, "slow down").retry_after(7));
        assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(limited.retry_after_secs, Some(7));
        let plain = ApiError::from(Refusal::new(ErrorCode::NotFound, "no such game"));
        assert_eq!(
            (plain.status, plain.retry_after_secs),
            (StatusCode::NOT_FOUND, None)
        );
    }
}
