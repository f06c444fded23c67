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

pub use super::time_control::{
    BadDaysPerTurn, ClockField, ClockSpec, DaysPerTurn, TimeControl, TimeControlError,
    requested_clock, requested_live_clock,
};

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
