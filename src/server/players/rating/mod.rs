//! Ratings (issue 11): one Glicko-2 rating per [`Speed`], each rated game its own rating period
//! as lichess does. This module owns the views per speed; `glicko2.rs` owns the update. The
//! [`Rating`] value is in [`crate::server::domain`] and the [`Speed`] of a time control in the
//! game core, below the seats and the store that carry them.
//!
//! Pure: no store, no protocol. The store keeps a [`Rating`] per user and speed; the room asks
//! for an update once, from the committed end of a rated game.

use std::collections::BTreeMap;

use serde::Serialize;

pub use crate::server::domain::rating::{Rating, RatingView};
pub use crate::server::game::speed::{Speed, estimated_secs};

pub use crate::server::domain::glicko2;

/// A rating on the wire with its games count, as a profile or an account shows it per speed:
/// `{"rating": 1512, "deviation": 87, "provisional": false, "games": 31}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SpeedRatingView {
    #[serde(flatten)]
    pub rating: RatingView,
    pub games: u32,
}

/// A user's ratings as sent: `{speed: {rating, deviation, provisional, games}}`, in [`Speed`]
/// order: every live speed (the initial rating where none was played) and any other speed the
/// user has played (correspondence). The same object as `GET /api/account` sends.
pub fn ratings_view(ratings: &[(Speed, Rating)]) -> BTreeMap<Speed, SpeedRatingView> {
    Speed::ALL
        .into_iter()
        .filter_map(|speed| {
            let stored = ratings.iter().find(|(s, _)| *s == speed).map(|(_, r)| *r);
            let rating = match stored {
                Some(rating) => rating,
                None if speed == Speed::Correspondence => return None,
                None => Rating::INITIAL,
            };
            let view = SpeedRatingView {
                rating: rating.view(),
                games: rating.games,
            };
            Some((speed, view))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_are_sent_per_speed_with_their_games() {
        let blitz = Rating {
            rating: 1612.4,
            deviation: 71.5,
            volatility: 0.06,
            games: 40,
        };
        let view = ratings_view(&[(Speed::Blitz, blitz)]);
        // Every live speed, the initial rating where none was played; no correspondence yet.
        assert_eq!(
            serde_json::to_string(&view).unwrap(),
            concat!(
                r#"{"bullet":{"rating":1500,"deviation":500,"provisional":true,"games":0},"#,
                r#""blitz":{"rating":1612,"deviation":72,"provisional":false,"games":40},"#,
                r#""rapid":{"rating":1500,"deviation":500,"provisional":true,"games":0},"#,
                r#""classical":{"rating":1500,"deviation":500,"provisional":true,"games":0}}"#
            )
        );
        // A speed outside the live ones appears once played.
        let view = ratings_view(&[(Speed::Correspondence, blitz)]);
        assert_eq!(view.len(), 5);
        assert_eq!(view[&Speed::Correspondence].games, 40);
    }
}
