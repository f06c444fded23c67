//! Ratings (issue 11): one Glicko-2 rating per [`Speed`], each rated game its own rating period
//! as lichess does. This module owns the values; `glicko2.rs` owns the update.
//!
//! Pure: no store, no protocol. The store keeps a [`Rating`] per user and speed; the room asks
//! for an update once, from the committed end of a rated game.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::server::game::{ClockSpec, TimeControl};

pub mod glicko2;

/// How fast a game is, from its estimated duration `base + 40 x increment` seconds (lichess's
/// estimate: 40 moves a side). Each speed has its own rating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Speed {
    /// Under 3 minutes estimated.
    Bullet,
    /// Under 8 minutes.
    Blitz,
    /// Under 25 minutes.
    Rapid,
    Classical,
    /// Days per turn (issue 12).
    Correspondence,
}

/// A live game's estimated duration in seconds, `base + 40 x increment` (lichess's estimate:
/// 40 moves a side): what its [`Speed`] and its lag quota (`game::lag`) are judged by.
pub fn estimated_secs(clock: ClockSpec) -> u64 {
    u64::from(clock.base_secs) + 40 * u64::from(clock.increment_secs)
}

impl Speed {
    pub const ALL: [Speed; 5] = [
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// The speed of a time control: a live one's from its estimated duration, days per turn
    /// always [`Speed::Correspondence`].
    pub fn of(clock: impl Into<TimeControl>) -> Speed {
        match clock.into() {
            TimeControl::Live(spec) => Speed::of_live(spec),
            TimeControl::Correspondence { .. } => Speed::Correspondence,
        }
    }

    fn of_live(clock: ClockSpec) -> Speed {
        match estimated_secs(clock) {
            0..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }

    /// The text stored and sent (same as the serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    /// The inverse of [`Speed::as_str`].
    pub fn parse(text: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

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

    fn clock(base_secs: u32, increment_secs: u32) -> ClockSpec {
        ClockSpec {
            base_secs,
            increment_secs,
        }
    }

    #[test]
    fn speed_is_estimated_as_base_plus_forty_increments() {
        assert_eq!(Speed::of(clock(60, 0)), Speed::Bullet);
        assert_eq!(Speed::of(clock(120, 1)), Speed::Bullet); // 160 s
        assert_eq!(Speed::of(clock(180, 0)), Speed::Blitz); // exactly 3 min
        assert_eq!(Speed::of(clock(180, 2)), Speed::Blitz); // 260 s
        assert_eq!(Speed::of(clock(300, 3)), Speed::Blitz); // 420 s
        assert_eq!(Speed::of(clock(480, 0)), Speed::Rapid); // exactly 8 min
        assert_eq!(Speed::of(clock(900, 10)), Speed::Rapid); // 1300 s
        assert_eq!(Speed::of(clock(1500, 0)), Speed::Classical); // exactly 25 min
        assert_eq!(Speed::of(clock(1800, 30)), Speed::Classical);
    }

    #[test]
    fn speed_names_round_trip() {
        for s in Speed::ALL {
            assert_eq!(Speed::parse(s.as_str()), Some(s));
        }
        assert_eq!(Speed::parse("hyper"), None);
    }

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
