//! A player's rating as a value: what a seat carries into a game, what the store keeps per user
//! and speed, and how it is shown. Pure; the update is in [`crate::server::players::rating::glicko2`].

use serde::Serialize;

/// A Glicko-2 rating on the Glicko scale (1500-centred), as stored per user and speed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    /// Rated games counted into it.
    pub games: u32,
}

impl Rating {
    /// Where every player starts (the issue's constants, lichess's too).
    pub const INITIAL: Rating = Rating {
        rating: 1500.0,
        deviation: 500.0,
        volatility: 0.09,
        games: 0,
    };
    /// The deviation is kept within these bounds after every update.
    pub const MIN_DEVIATION: f64 = 45.0;
    pub const MAX_DEVIATION: f64 = 500.0;
    /// Above this deviation a rating is provisional, shown with a `?`.
    pub const PROVISIONAL_DEVIATION: f64 = 110.0;

    pub fn provisional(&self) -> bool {
        self.deviation > Self::PROVISIONAL_DEVIATION
    }
}

impl Rating {
    /// How the rating is sent and shown: `{"rating": 1512, "deviation": 87, "provisional": false}`.
    pub fn view(&self) -> RatingView {
        RatingView {
            rating: rounded(self.rating),
            deviation: rounded(self.deviation),
            provisional: self.provisional(),
        }
    }

    /// The change a game made, as shown (`+12`): the difference of the rounded ratings, so that
    /// the shown before, change and after always add up.
    pub fn change(before: &Rating, after: &Rating) -> i64 {
        rounded(after.rating) - rounded(before.rating)
    }
}

/// A rating on the wire (issue 11's agreed form): whole numbers, and whether it is provisional
/// (the client shows it with a `?`). The volatility is internal and never sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RatingView {
    pub rating: i64,
    pub deviation: i64,
    pub provisional: bool,
}

/// To the nearest whole number (`as` saturates; a NaN, which the store never holds, is 0).
fn rounded(x: f64) -> i64 {
    x.round() as i64
}

impl Default for Rating {
    fn default() -> Self {
        Rating::INITIAL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_is_sent_as_whole_numbers_without_its_volatility() {
        let r = Rating {
            rating: 1511.5,
            deviation: 86.6,
            volatility: 0.06,
            games: 12,
        };
        assert_eq!(
            serde_json::to_string(&r.view()).unwrap(),
            r#"{"rating":1512,"deviation":87,"provisional":false}"#
        );
        assert!(Rating::INITIAL.view().provisional);
    }

    #[test]
    fn a_shown_change_is_the_difference_of_the_shown_ratings() {
        let before = Rating {
            rating: 1500.4,
            ..Rating::INITIAL
        };
        let after = Rating {
            rating: 1512.6,
            ..Rating::INITIAL
        };
        // 1500 -> 1513 is shown as +13 (not the unrounded 12.2).
        assert_eq!(Rating::change(&before, &after), 13);
        assert_eq!(Rating::change(&after, &before), -13);
    }

    #[test]
    fn a_new_player_is_provisional() {
        assert!(Rating::INITIAL.provisional());
        let settled = Rating {
            deviation: 80.0,
            ..Rating::INITIAL
        };
        assert!(!settled.provisional());
    }
}
