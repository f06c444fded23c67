//! The lobby's rating-range filter: `GET /api/games?rating_min=&rating_max=` keeps the games
//! whose creator's rating (as the listing row shows it) is within the range. Games of anonymous
//! creators, and of creators whose row shows no rating, have no rating to compare: they are left
//! out whenever a bound is given.
//!
//! The store pages over every listed game of a status; the filter reads its pages in order and
//! keeps the matching rows, so `offset` and `limit` count matching games. It reads at most
//! [`MAX_SCANNED`] rows per request (the newest), which bounds the cost of a narrow range over
//! many games: older matching games are then not listed (documented in docs/protocol.md).

use serde_json::Value;

use crate::server::store::{GameStatus, Store, StoreError};

/// Rows read from the store per page of the scan.
const PAGE: u32 = 100;

/// Most rows one filtered request reads.
pub const MAX_SCANNED: u32 = 2000;

/// Highest bound accepted (far above any Glicko-2 rating).
const MAX_BOUND: u32 = 10_000;

/// A rating range; either end may be open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RatingRange {
    pub min: Option<u32>,
    pub max: Option<u32>,
}

/// Why a range is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    #[error("rating_min and rating_max are at most {MAX_BOUND}")]
    TooHigh,
    #[error("rating_min is above rating_max")]
    Empty,
}

impl RatingRange {
    pub fn new(min: Option<u32>, max: Option<u32>) -> Result<RatingRange, RangeError> {
        if min.is_some_and(|m| m > MAX_BOUND) || max.is_some_and(|m| m > MAX_BOUND) {
            return Err(RangeError::TooHigh);
        }
        if let (Some(min), Some(max)) = (min, max)
            && min > max
        {
            return Err(RangeError::Empty);
        }
        Ok(RatingRange { min, max })
    }

    /// Whether no bound is given (then nothing is filtered).
    pub fn is_open(&self) -> bool {
        self.min.is_none() && self.max.is_none()
    }

    /// Whether a listing row's summary passes: its creator has a rating within the range.
    pub fn admits(&self, summary: &Value) -> bool {
        if self.is_open() {
            return true;
        }
        let Some(rating) = creator_rating(summary) else {
            return false;
        };
        self.min.is_none_or(|min| rating >= f64::from(min))
            && self.max.is_none_or(|max| rating <= f64::from(max))
    }
}

/// The rating of a game's creator as its listing summary shows it (the wire's rounded
/// `{"rating": 1512, ...}`): the player of the seat taken first, `players.white` or
/// `players.black` (an open game has one), or `creator`.
pub fn creator_rating(summary: &Value) -> Option<f64> {
    let players = &summary["players"];
    ["white", "black"]
        .iter()
        .map(|side| &players[*side])
        .chain(std::iter::once(&summary["creator"]))
        .find(|player| player.is_object())
        .and_then(|player| player["rating"]["rating"].as_f64())
}

/// The summaries of a page of listed games of `status` whose summaries `range` admits, `offset` matching rows
/// skipped, at most `limit`, reading at most [`MAX_SCANNED`] rows.
pub async fn list(
    store: &dyn Store,
    status: GameStatus,
    range: RatingRange,
    limit: u32,
    offset: u32,
) -> Result<Vec<Value>, StoreError> {
    let mut kept = Vec::new();
    let mut skipped = 0;
    let mut scanned = 0;
    while scanned < MAX_SCANNED && kept.len() < limit as usize {
        let page = store
            .list(status, PAGE.min(MAX_SCANNED - scanned), scanned)
            .await?;
        let full = page.len() == PAGE as usize;
        scanned += page.len() as u32;
        for row in page {
            let Ok(summary) = serde_json::from_str::<Value>(&row.summary) else {
                continue;
            };
            if !range.admits(&summary) {
                continue;
            }
            if skipped < offset {
                skipped += 1;
                continue;
            }
            if kept.len() < limit as usize {
                kept.push(summary);
            }
        }
        if !full {
            break;
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn by(rating: Option<i64>) -> Value {
        match rating {
            Some(r) => {
                json!({"players": {"white": {"name": "a", "rating": {"rating": r, "deviation": 80, "provisional": false}}, "black": null}})
            }
            None => json!({"players": {"white": null, "black": null}}),
        }
    }

    #[test]
    fn a_range_keeps_creators_within_it_inclusive_and_drops_anonymous_ones() {
        let range = RatingRange::new(Some(1400), Some(1600)).unwrap();
        assert!(range.admits(&by(Some(1400))));
        assert!(range.admits(&by(Some(1600))));
        assert!(!range.admits(&by(Some(1399))));
        assert!(!range.admits(&by(Some(1601))));
        assert!(!range.admits(&by(None)), "anonymous creator");
        assert!(!range.admits(&json!({})), "a row from before accounts");
        let open = RatingRange::default();
        assert!(open.admits(&by(None)));
        let floor = RatingRange::new(Some(1500), None).unwrap();
        assert!(floor.admits(&by(Some(2500))));
        assert!(!floor.admits(&by(Some(1499))));
    }

    #[test]
    fn the_black_creator_and_a_creator_field_are_read_too() {
        let black =
            json!({"players": {"white": null, "black": {"name": "b", "rating": {"rating": 1700}}}});
        assert_eq!(creator_rating(&black), Some(1700.0));
        let creator = json!({"creator": {"name": "c", "rating": {"rating": 1300}}});
        assert_eq!(creator_rating(&creator), Some(1300.0));
        let unrated = json!({"players": {"white": {"name": "a"}, "black": null}});
        assert_eq!(creator_rating(&unrated), None);
    }

    #[test]
    fn an_empty_or_absurd_range_is_refused() {
        assert_eq!(
            RatingRange::new(Some(1600), Some(1500)),
            Err(RangeError::Empty)
        );
        assert_eq!(
            RatingRange::new(Some(20_000), None),
            Err(RangeError::TooHigh)
        );
        assert!(RatingRange::new(Some(1500), Some(1500)).is_ok());
    }
}
