//! What an analysis may cost: its engine time spread over its positions ([`Budget`]), and
//! how many run at once, how many one client runs at once, and how often one address may
//! start one ([`Analyses`]).
//!
//! Fair shares (issue 35): a client (an address, and an account when signed in) runs one
//! analysis at a time, so the `--max-concurrent-analyses` slots (2) go to as many clients; at
//! 6 a minute one address used to hold both slots with long records and every other address
//! got `503 busy`. A record is analysed up to `--analysis-max-positions` (1,001: the start
//! and 1,000 sub-moves); a longer one is refused before any search, so one analysis streams at
//! most that many lines in about `--analysis-budget-secs` plus a quick search per position
//! past the budget.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::engine::Limits;
use crate::server::config::AnalysisLimits;
use crate::server::domain::user::UserId;
use crate::server::metrics::Metrics;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::web::ApiError;
use crate::server::web::EdgeCode;
use crate::server::web::holdings::{Hold, Holdings};
use crate::server::web::ratelimit::{AddressLimiter, Holder};

/// Shortest search of one position while the budget lasts.
pub const POSITION_MIN: Duration = Duration::from_millis(20);
/// Nodes of each position searched once the budget is spent (a depth or two: a game so long
/// that [`POSITION_MIN`] each would overrun the budget still gets a line per position).
pub const QUICK_NODES: u64 = 2_000;
/// `Retry-After` of a `503 busy`, and of a client's second analysis while its first runs:
/// an analysis takes seconds.
const BUSY_RETRY_SECS: u64 = 5;
/// Analyses one client (an address; an account) runs at once.
pub const PER_CLIENT: u32 = 1;

/// How the engine time of one analysis is spread over its positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Engine time of the whole analysis.
    pub total: Duration,
    /// Longest search of one position.
    pub position_max: Duration,
    /// Most nodes of one position.
    pub nodes: u64,
}

impl Budget {
    pub fn of(limits: &AnalysisLimits) -> Budget {
        Budget {
            total: limits.budget,
            position_max: limits.position_max,
            nodes: limits.nodes,
        }
    }

    /// The limits of the next search: what is left of the budget (`spent` so far) shared
    /// equally by the `to_search` positions still to search, this one included, clamped to
    /// [`POSITION_MIN`]..`position_max`; once less than [`POSITION_MIN`] is left, a quick
    /// search of [`QUICK_NODES`]. The share is recomputed at every position, so the time a
    /// mate found early (or a capped position) did not use goes to the positions after it.
    pub fn next(&self, spent: Duration, to_search: usize) -> Limits {
        let left = self.total.saturating_sub(spent);
        if left < POSITION_MIN {
            return Limits {
                nodes: Some(QUICK_NODES.min(self.nodes)),
                movetime: Some(POSITION_MIN),
                ..Limits::default()
            };
        }
        let share = left / u32::try_from(to_search.max(1)).unwrap_or(u32::MAX);
        Limits {
            nodes: Some(self.nodes),
            movetime: Some(share.clamp(POSITION_MIN, self.position_max.max(POSITION_MIN))),
            ..Limits::default()
        }
    }
}

/// The analyses of the server: the per-address rate, the per-client hold and the global cap.
pub struct Analyses {
    pub(super) budget: Budget,
    pub(super) max_positions: usize,
    slots: Arc<Semaphore>,
    running: Arc<Holdings<Holder<UserId>>>,
    addresses: AddressLimiter,
    /// The analysis board's move trees read and written at once
    /// ([`super::tree::on_deep_stack`]).
    pub(super) trees: Arc<Semaphore>,
    /// The analysis board's engine lines ([`super::lines`]).
    pub(super) lines: super::lines::Lines,
}

/// An admitted analysis: its global slot and its client's share, held while it streams.
pub struct Admitted {
    _slot: OwnedSemaphorePermit,
    _hold: Hold<Holder<UserId>>,
}

impl Analyses {
    pub fn new(limits: &AnalysisLimits) -> Analyses {
        Analyses {
            budget: Budget::of(limits),
            max_positions: limits.max_positions,
            slots: Arc::new(Semaphore::new(limits.max_concurrent.max(1))),
            running: Holdings::new(PER_CLIENT),
            addresses: AddressLimiter::new(limits.rate_per_min / 60.0, limits.burst),
            trees: Arc::new(Semaphore::new(super::tree::DEEP_SLOTS)),
            lines: super::lines::Lines::new(limits.lines),
        }
    }

    /// One analysis for the client at `ip` (signed in as `account`): 429 while it runs one
    /// already or past its rate, 503 when `--max-concurrent-analyses` run. The slot and the
    /// hold are kept for as long as the stream lives.
    pub(super) fn admit(
        &self,
        ip: IpAddr,
        account: Option<UserId>,
        metrics: &Metrics,
    ) -> Result<Admitted, ApiError> {
        let refused = |error: ApiError| {
            metrics.analyses_refused.fetch_add(1, Ordering::Relaxed);
            error
        };
        let hold = self.running.take(Holder::of(ip, account)).map_err(|_| {
            refused(
                ApiError::from(Refusal::new(
                    ErrorCode::RateLimited,
                    "an analysis of yours is running: one at a time from one address or account",
                ))
                .retry_after(BUSY_RETRY_SECS),
            )
        })?;
        self.addresses
            .check(ip, Instant::now())
            .map_err(|limited| {
                refused(
                    ApiError::from(Refusal::new(
                        ErrorCode::RateLimited,
                        format!(
                            "too many analyses from your address; try again in {} s",
                            limited.retry_after_secs
                        ),
                    ))
                    .retry_after(limited.retry_after_secs),
                )
            })?;
        let slot = Arc::clone(&self.slots).try_acquire_owned().map_err(|_| {
            refused(
                ApiError::http(
                    StatusCode::SERVICE_UNAVAILABLE,
                    EdgeCode::Busy,
                    "the server is busy analysing other games; try again",
                )
                .retry_after(BUSY_RETRY_SECS),
            )
        })?;
        Ok(Admitted {
            _slot: slot,
            _hold: hold,
        })
    }

    /// Refuses a record of more positions than one analysis covers (`positions`: the start
    /// and one per sub-move).
    pub(super) fn check_length(&self, positions: usize) -> Result<(), ApiError> {
        if positions <= self.max_positions {
            return Ok(());
        }
        Err(ApiError::http(
            StatusCode::PAYLOAD_TOO_LARGE,
            EdgeCode::TooLarge,
            format!(
                "the record has {positions} positions; an analysis covers at most {}",
                self.max_positions
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(total_ms: u64, max_ms: u64) -> Budget {
        Budget {
            total: Duration::from_millis(total_ms),
            position_max: Duration::from_millis(max_ms),
            nodes: 1_000_000,
        }
    }

    #[test]
    fn the_budget_is_shared_equally_by_the_positions_left() {
        let b = budget(20_000, 500);
        let limits = b.next(Duration::ZERO, 80);
        assert_eq!(limits.movetime, Some(Duration::from_millis(250)));
        assert_eq!(limits.nodes, Some(1_000_000));
        // Half spent on the first 20: the other 60 share the other half.
        let limits = b.next(Duration::from_secs(10), 60);
        assert_eq!(limits.movetime, Some(Duration::from_secs(10) / 60));
    }

    #[test]
    fn a_position_gets_at_least_the_minimum_and_at_most_the_maximum() {
        let b = budget(20_000, 500);
        assert_eq!(b.next(Duration::ZERO, 3).movetime, Some(b.position_max));
        assert_eq!(b.next(Duration::ZERO, 5_000).movetime, Some(POSITION_MIN));
        assert_eq!(b.next(Duration::ZERO, 0).movetime, Some(b.position_max));
    }

    #[test]
    fn once_the_budget_is_spent_every_position_gets_a_quick_search() {
        let b = budget(20_000, 500);
        let limits = b.next(Duration::from_millis(19_990), 100);
        assert_eq!(limits.nodes, Some(QUICK_NODES));
        assert_eq!(limits.movetime, Some(POSITION_MIN));
        let over = b.next(Duration::from_secs(30), 100);
        assert_eq!(over.nodes, Some(QUICK_NODES));
    }

    #[test]
    fn a_node_cap_below_the_quick_search_is_kept() {
        let mut b = budget(0, 500);
        b.nodes = 100;
        assert_eq!(b.next(Duration::ZERO, 1).nodes, Some(100));
    }
}
