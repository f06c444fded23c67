//! The events of one game (event sourcing), typed: one [`Event`] per state change. Event *n* of a
//! game is its version `v = n`. Events hold what cannot be recomputed (wall-clock times, clock
//! readings, client ack ids, token hashes, never tokens); positions, SAN and board endings are
//! recomputed by replaying the sub-moves.
//!
//! Pure values. Their stored text is the store's business ([`crate::server::store::codec`]),
//! byte-compatible with every log written so far; only the two plain records below derive
//! serde, because their field names are the same on the wire, in requests and on disk.

use serde::{Deserialize, Serialize};

use crate::engine::Level;
use crate::rules::{Color, Outcome, Position, SubMove};
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{Account, UserId, Username};

/// Which first turn a game from the initial position has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// White's first turn is one sub-move (the default).
    Balanced,
    /// White's first turn is two sub-moves (initial FEN with phase 1).
    Marseillais,
}

/// A live time control: base time and increment per turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSpec {
    pub base_secs: u32,
    pub increment_secs: u32,
}

/// Days per turn of a correspondence game: only 1, 2, 3, 5, 7 or 14 (vchess.club's and
/// lichess's choices; a closed set keeps ratings by speed meaningful and the lobby readable).
/// Its serde form is the bare number, refused (not rounded) outside the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct DaysPerTurn(u8);

/// A `days_per_turn` outside [`DaysPerTurn::ALLOWED`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("days_per_turn must be one of 1, 2, 3, 5, 7 or 14, got {0}")]
pub struct BadDaysPerTurn(pub u64);

impl DaysPerTurn {
    /// The values a game may have.
    pub const ALLOWED: [u8; 6] = [1, 2, 3, 5, 7, 14];

    pub fn days(self) -> u8 {
        self.0
    }

    /// One turn's length in milliseconds.
    pub fn millis(self) -> i64 {
        i64::from(self.0) * 86_400_000
    }

    /// One turn's length in seconds (the PGN `TimeControl` period).
    pub fn secs(self) -> u64 {
        u64::from(self.0) * 86_400
    }
}

impl TryFrom<u64> for DaysPerTurn {
    type Error = BadDaysPerTurn;

    fn try_from(days: u64) -> Result<DaysPerTurn, BadDaysPerTurn> {
        DaysPerTurn::ALLOWED
            .into_iter()
            .find(|&d| u64::from(d) == days)
            .map(DaysPerTurn)
            .ok_or(BadDaysPerTurn(days))
    }
}

impl From<DaysPerTurn> for u64 {
    fn from(days: DaysPerTurn) -> u64 {
        u64::from(days.0)
    }
}

/// A game's time control: a live clock, or days per turn. Serialized untagged, so a live one is
/// exactly the [`ClockSpec`] object every earlier version wrote (`{"base_secs":300,
/// "increment_secs":3}`: old logs and wire bytes are unchanged) and a correspondence one is
/// `{"days_per_turn":3}`. Read strictly through [`RawTimeControl`]: an object with both kinds
/// of field is refused with a clear error, where plain `untagged` would take it as a live clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, try_from = "RawTimeControl")]
pub enum TimeControl {
    Live(ClockSpec),
    Correspondence { days_per_turn: DaysPerTurn },
}

impl TimeControl {
    /// The live clock, if it is one.
    pub fn live(self) -> Option<ClockSpec> {
        match self {
            TimeControl::Live(spec) => Some(spec),
            TimeControl::Correspondence { .. } => None,
        }
    }

    /// The days per turn, if it is a correspondence game.
    pub fn days_per_turn(self) -> Option<DaysPerTurn> {
        match self {
            TimeControl::Live(_) => None,
            TimeControl::Correspondence { days_per_turn } => Some(days_per_turn),
        }
    }
}

impl From<ClockSpec> for TimeControl {
    fn from(spec: ClockSpec) -> TimeControl {
        TimeControl::Live(spec)
    }
}

impl From<DaysPerTurn> for TimeControl {
    fn from(days_per_turn: DaysPerTurn) -> TimeControl {
        TimeControl::Correspondence { days_per_turn }
    }
}

/// A time control object as read, before it is known to be one: every field of both kinds.
/// Unknown fields are ignored, as [`ClockSpec`] always did.
#[derive(Deserialize)]
pub struct RawTimeControl {
    base_secs: Option<u32>,
    increment_secs: Option<u32>,
    days_per_turn: Option<u64>,
}

/// Why a time control object is not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    #[error("clock: days_per_turn cannot be given with base_secs or increment_secs")]
    Mixed,
    #[error("clock: base_secs and increment_secs (a live clock) or days_per_turn (correspondence)")]
    Incomplete,
    #[error("clock: {0}")]
    Days(#[from] BadDaysPerTurn),
}

impl TryFrom<RawTimeControl> for TimeControl {
    type Error = TimeControlError;

    fn try_from(raw: RawTimeControl) -> Result<TimeControl, TimeControlError> {
        match raw {
            RawTimeControl {
                base_secs: None,
                increment_secs: None,
                days_per_turn: Some(days),
            } => Ok(TimeControl::Correspondence {
                days_per_turn: DaysPerTurn::try_from(days)?,
            }),
            RawTimeControl {
                days_per_turn: Some(_),
                ..
            } => Err(TimeControlError::Mixed),
            RawTimeControl {
                base_secs: Some(base_secs),
                increment_secs: Some(increment_secs),
                days_per_turn: None,
            } => Ok(TimeControl::Live(ClockSpec {
                base_secs,
                increment_secs,
            })),
            _ => Err(TimeControlError::Incomplete),
        }
    }
}

/// Both clock readings (white, black) in milliseconds.
pub type Readings = [u64; 2];

/// One state change of a game. `at_ms` is Unix-epoch milliseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Always event 0.
    Created {
        at_ms: i64,
        variant: Variant,
        start: Position,
        /// `None`: untimed. A live clock, or days per turn (issue 12).
        clock: Option<TimeControl>,
        creator: Color,
        seat_hash: String,
        /// Whether the game appears in the lobby listings.
        listed: bool,
        /// Whether the game counts for both players' ratings (both seats then have a user).
        /// False in every log written before accounts.
        rated: bool,
        /// The creator's account, when it was signed in (`None` in older logs).
        user: Option<SeatUser>,
        /// The arena tournament that paired this game (issue 29); `None` for every other game
        /// and in older logs.
        arena: Option<String>,
    },
    /// The second seat was taken; the game starts. `computer`: the seat is the server's
    /// computer player at this level (its `seat_hash` is then [`COMPUTER_SEAT_HASH`], which
    /// no token hashes to); `None` for a human, and in every log written before it existed.
    Joined {
        at_ms: i64,
        color: Color,
        seat_hash: String,
        computer: Option<Level>,
        /// The joining player's account, when it was signed in (`None` in older logs).
        user: Option<SeatUser>,
    },
    /// An accepted sub-move; `clock` holds both readings right after it, increment included.
    Move {
        at_ms: i64,
        mv: SubMove,
        ack: Option<String>,
        clock: Option<Readings>,
    },
    /// The mover withdrew its S1; `clock` is the readings at that moment.
    Takeback {
        at_ms: i64,
        clock: Option<Readings>,
    },
    DrawOffer {
        at_ms: i64,
        by: Color,
    },
    DrawDecline {
        at_ms: i64,
        by: Color,
    },
    /// An arena player gave up half their clock and their increment for an extra point on a
    /// win (issue 29), before their first sub-move.
    Berserk {
        at_ms: i64,
        by: Color,
    },
    /// `seat_hash` is the hash of the offerer's rematch token
    /// ([`crate::server::ids::rematch_token`]), taken while the offerer is here to present its
    /// token, so that the rematch can be created while it is away. `None` in older logs.
    RematchOffer {
        at_ms: i64,
        by: Color,
        seat_hash: Option<String>,
    },
    /// A rematch game was created with this id. `derived_seats`: its seats belong to the
    /// players' rematch tokens, derived from their tokens of this game (false in older logs).
    Rematch {
        at_ms: i64,
        id: String,
        derived_seats: bool,
    },
    /// The game ended.
    End {
        at_ms: i64,
        outcome: Outcome,
        clock: Option<Readings>,
    },
}

impl Event {
    pub fn at_ms(&self) -> i64 {
        match self {
            Event::Created { at_ms, .. }
            | Event::Joined { at_ms, .. }
            | Event::Move { at_ms, .. }
            | Event::Takeback { at_ms, .. }
            | Event::DrawOffer { at_ms, .. }
            | Event::DrawDecline { at_ms, .. }
            | Event::Berserk { at_ms, .. }
            | Event::RematchOffer { at_ms, .. }
            | Event::Rematch { at_ms, .. }
            | Event::End { at_ms, .. } => *at_ms,
        }
    }
}

/// The account a seat belongs to: the seat is proven by the account's session as well as by
/// its token (any device where the user is signed in). Written into the event when the seat is
/// taken, so the log alone says whose game it was (listings, PGN, history).
#[derive(Clone, Debug, PartialEq)]
pub struct SeatUser {
    pub id: UserId,
    pub name: Username,
    /// In a game with a clock: the player's rating for the game's speed when the seat was
    /// taken (shown in the lobby and beside the board; in a rated game, the "rating before the
    /// game" of the PGN's `WhiteElo` / `BlackElo`). `None` in an untimed game.
    pub rating: Option<Rating>,
}

/// Ratings are finite numbers (never NaN: the Glicko-2 update keeps them within bounds), so
/// equality is total here, which lets events stay `Eq`.
impl Eq for SeatUser {}

impl SeatUser {
    /// The seat user of an account, with its rating when the game is rated.
    pub fn of(account: &Account, rating: Option<Rating>) -> SeatUser {
        SeatUser {
            id: account.id,
            name: account.name.clone(),
            rating,
        }
    }
}

/// The seat hash of a seat that only its account proves: the rematch of a player who was
/// seated by its session, without a token (`"account"` is not a SHA-256, so no token ever
/// matches it, like [`COMPUTER_SEAT_HASH`]).
pub const ACCOUNT_SEAT_HASH: &str = "account";

/// The seat hash of a computer's seat. A token's hash is 64 lowercase hex digits, so no
/// token can ever match it (and [`super::GameState::seat_of`] skips the computer's seat
/// anyway): the computer holds its seat by an in-process proof, never by a token.
pub const COMPUTER_SEAT_HASH: &str = "computer";

/// Unix-epoch milliseconds now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<TimeControl, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_live_time_control_keeps_the_clock_spec_bytes() {
        let live = TimeControl::Live(ClockSpec {
            base_secs: 300,
            increment_secs: 3,
        });
        let text = r#"{"base_secs":300,"increment_secs":3}"#;
        assert_eq!(serde_json::to_string(&live).ok().as_deref(), Some(text));
        assert_eq!(read(text), Ok(live));
    }

    #[test]
    fn a_correspondence_time_control_is_its_days_per_turn() {
        let days = TimeControl::from(DaysPerTurn::try_from(3).expect("allowed"));
        let text = r#"{"days_per_turn":3}"#;
        assert_eq!(serde_json::to_string(&days).ok().as_deref(), Some(text));
        assert_eq!(read(text), Ok(days));
    }

    #[test]
    fn a_time_control_with_both_kinds_of_field_or_other_days_is_refused() {
        let mixed = read(r#"{"base_secs":300,"increment_secs":3,"days_per_turn":3}"#);
        assert!(
            mixed
                .as_ref()
                .is_err_and(|e| e.contains("cannot be given with")),
            "{mixed:?}"
        );
        let four = read(r#"{"days_per_turn":4}"#);
        assert!(
            four.as_ref()
                .is_err_and(|e| e.contains("one of 1, 2, 3, 5, 7 or 14")),
            "{four:?}"
        );
        assert!(read(r#"{"days_per_turn":-1}"#).is_err());
        assert!(read(r#"{"days_per_turn":3.5}"#).is_err());
        assert!(read(r#"{"base_secs":300}"#).is_err(), "no increment");
        assert!(read(r#"{}"#).is_err());
    }
}
