//! Whether the server can take one more game against the computer now: only while a search
//! asked for now would start within `--engine-max-wait-secs` (default 5 s). Past that a new
//! computer game is refused `503 busy` with a `Retry-After` of about the wait, rather than
//! taken and every game's search shortened (issue 35). A game already playing is never
//! refused a move: its searches queue, first come first served, with their whole budget.

use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::http::StatusCode;

use super::backlog::Queued;
use super::engine_pool::EnginePool;
use crate::server::metrics::Metrics;
use crate::server::web::{ApiError, EdgeCode};

/// The `Retry-After` of a refusal, in seconds: the expected wait, at least 1, at most this.
const MAX_RETRY_SECS: u64 = 60;

/// Refused: the engine queue would keep a new game's first search waiting `wait`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the computer is busy with other games: a move would wait {} s for it", wait.as_secs())]
pub struct Busy {
    pub wait: Duration,
}

impl Busy {
    pub fn retry_after_secs(&self) -> u64 {
        self.wait
            .as_secs_f64()
            .ceil()
            .clamp(1.0, MAX_RETRY_SECS as f64) as u64
    }
}

/// Takes a new computer game, or says how busy the engine is. The game counts as one search
/// in the queue while the returned [`Queued`] is held: by the create request, then by the
/// pool until the game's first search ([`EnginePool::keep_reserved`]).
pub fn admit(engines: &EnginePool, max_wait: Duration) -> Result<Queued, Busy> {
    let wait = engines.expected_wait();
    if wait > max_wait {
        return Err(Busy { wait });
    }
    Ok(engines.reserve())
}

/// [`admit`], refused as the HTTP edge says it: `503 busy` with `Retry-After`, counted.
pub fn admit_http(
    engines: &EnginePool,
    max_wait: Duration,
    metrics: &Metrics,
) -> Result<Queued, ApiError> {
    admit(engines, max_wait).map_err(|busy| {
        metrics
            .computer_games_refused
            .fetch_add(1, Ordering::Relaxed);
        ApiError::http(
            StatusCode::SERVICE_UNAVAILABLE,
            EdgeCode::Busy,
            format!("{busy}; try again in a moment or play a person"),
        )
        .retry_after(busy.retry_after_secs())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_retry_after_is_the_wait_rounded_up_within_bounds() {
        let busy = |ms| Busy {
            wait: Duration::from_millis(ms),
        };
        assert_eq!(busy(200).retry_after_secs(), 1);
        assert_eq!(busy(7_300).retry_after_secs(), 8);
        assert_eq!(busy(600_000).retry_after_secs(), MAX_RETRY_SECS);
    }

    #[tokio::test]
    async fn games_being_admitted_at_once_count_against_each_other() {
        let pool = EnginePool::new(1, std::sync::Arc::new(Metrics::default()));
        let max_wait = 2 * super::super::backlog::PRIOR_MEAN;
        // An idle pool: no wait. Each game admitted and not yet started counts as a search.
        let first = admit(&pool, max_wait).expect("taken");
        let second = admit(&pool, max_wait).expect("taken");
        let _third = admit(&pool, max_wait).expect("taken: two ahead, exactly the bound");
        assert!(
            admit(&pool, max_wait).is_err(),
            "three ahead: over the bound"
        );
        drop((first, second));
        assert!(admit(&pool, max_wait).is_ok());
    }
}
