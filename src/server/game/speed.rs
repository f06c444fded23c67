//! How fast a game is: the speed of a time control, which decides which of a player's ratings it
//! counts for, and the estimated duration its lag quota is judged by.

use serde::Serialize;

use super::event::{ClockSpec, TimeControl};

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
}
