//! Who plays a game, as the wire shows it: the players' names and, in a rated game, their
//! ratings (`players` of `state`, of the HTTP snapshot, of `join` and of the lobby's summary),
//! and the change a rated game made to both ratings (`ratings`, and in the `state` of a
//! finished rated game). A seat taken anonymously has no entry at all (the client shows
//! "Anonymous"), and a game with no signed-in player has no `players` field, so every
//! anonymous game's bytes are what they were before accounts.

use serde::{Deserialize, Serialize};

use crate::server::players::rating::Rating;

/// A rating on the wire: integers, rounded; `provisional` while the deviation is above
/// [`Rating::PROVISIONAL_DEVIATION`] (shown with a `?`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingView {
    pub rating: i64,
    pub deviation: i64,
    pub provisional: bool,
}

impl From<Rating> for RatingView {
    /// Rounded as [`Rating::view`] rounds (this type only adds reading it back).
    fn from(rating: Rating) -> RatingView {
        let view = rating.view();
        RatingView {
            rating: view.rating,
            deviation: view.deviation,
            provisional: view.provisional,
        }
    }
}

/// A signed-in player: its username, and its rating before the game in a rated one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerView {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingView>,
}

/// The signed-in players of a game, by colour (a seat taken anonymously, or still free, is
/// absent).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Players {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<PlayerView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<PlayerView>,
}

impl Players {
    /// `None` when neither seat has a signed-in player (the field is then left out).
    pub fn some(self) -> Option<Players> {
        (self.black.is_some() || self.white.is_some()).then_some(self)
    }
}

/// One player's rating change in a rated game: before, after, and the rounded difference
/// shown at the end of the game (`+12`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingChange {
    pub after: RatingView,
    pub before: RatingView,
    pub diff: i64,
}

impl RatingChange {
    pub fn new(before: Rating, after: Rating) -> RatingChange {
        let (before, after) = (RatingView::from(before), RatingView::from(after));
        RatingChange {
            after,
            before,
            diff: after.rating - before.rating,
        }
    }
}

/// `ratings`: what a rated game did to both players' ratings, once its end is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingsMsg {
    pub black: RatingChange,
    pub white: RatingChange,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_is_shown_rounded_with_its_provisional_mark() {
        let r = Rating {
            rating: 1512.5,
            deviation: 87.4,
            volatility: 0.09,
            games: 30,
        };
        assert_eq!(
            serde_json::to_string(&RatingView::from(r)).ok().as_deref(),
            Some(r#"{"rating":1513,"deviation":87,"provisional":false}"#)
        );
        assert!(RatingView::from(Rating::INITIAL).provisional);
    }

    #[test]
    fn a_rating_change_is_the_difference_of_the_rounded_ratings() {
        let after = Rating {
            rating: 1511.6,
            ..Rating::INITIAL
        };
        let change = RatingChange::new(Rating::INITIAL, after);
        assert_eq!(change.diff, 12);
        assert_eq!(change.before.rating, 1500);
    }

    #[test]
    fn players_without_a_signed_in_seat_are_no_field() {
        assert_eq!(Players::default().some(), None);
        let one = Players {
            white: Some(PlayerView {
                name: "alice".into(),
                rating: None,
            }),
            black: None,
        };
        assert_eq!(
            serde_json::to_string(&one).ok().as_deref(),
            Some(r#"{"white":{"name":"alice"}}"#)
        );
    }
}
