//! The persisted event log of one game (event sourcing): one [`Event`] per
//! state change, stored as JSON through `Store::commit` and replayed by
//! [`super::state::GameState::apply`] after a restart. The position of an
//! event in the log is the game's version `v`.
//!
//! Events hold what cannot be recomputed: wall-clock times, clock readings,
//! client ack ids, token hashes (never tokens). Everything else (positions,
//! SAN, outcomes of board endings) is recomputed by replaying the sub-moves.

use serde::{Deserialize, Serialize};

use super::protocol::Side;

/// Which first turn a game from the initial position has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// White's first turn is one sub-move (the default).
    Balanced,
    /// White's first turn is two sub-moves (initial FEN with phase 1).
    Marseillais,
}

/// A time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSpec {
    pub base_secs: u32,
    pub increment_secs: u32,
}

/// One state change of a game. `at_ms` is Unix-epoch milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
pub enum Event {
    /// Always event 0.
    Created {
        at_ms: i64,
        variant: Variant,
        start_fen: String,
        clock: Option<ClockSpec>,
        creator: Side,
        seat_hash: String,
        /// Whether the game appears in the lobby listings. Absent (old logs, and every listed
        /// game: the log of a listed game is written exactly as before) means listed.
        #[serde(default = "listed_by_default", skip_serializing_if = "is_listed")]
        listed: bool,
    },
    /// The second seat was taken; the game starts.
    Joined {
        at_ms: i64,
        color: Side,
        seat_hash: String,
    },
    /// An accepted sub-move; `clock` holds both readings (white, black) right
    /// after it, increment included.
    Move {
        at_ms: i64,
        uci: String,
        ack: Option<String>,
        clock: Option<[u64; 2]>,
    },
    /// The mover withdrew its S1; `clock` is the readings at that moment.
    Takeback {
        at_ms: i64,
        clock: Option<[u64; 2]>,
    },
    DrawOffer {
        at_ms: i64,
        by: Side,
    },
    DrawDecline {
        at_ms: i64,
        by: Side,
    },
    /// `seat_hash` is the hash of the offerer's rematch token
    /// ([`super::ids::rematch_token`]), taken while the offerer is here to present its token,
    /// so that the rematch can be created while it is away. Absent in logs of older versions.
    RematchOffer {
        at_ms: i64,
        by: Side,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat_hash: Option<String>,
    },
    /// A rematch game was created with this id. `derived_seats`: its seats belong to the
    /// players' rematch tokens, derived from their tokens of this game, so that the server can
    /// hand each player its new seat again whenever it comes back (false in older logs, whose
    /// rematch tokens were random and are lost with the room).
    Rematch {
        at_ms: i64,
        id: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        derived_seats: bool,
    },
    /// The game ended. `reason` is a [`crate::rules::Termination`] tag text.
    End {
        at_ms: i64,
        winner: Option<Side>,
        reason: String,
        clock: Option<[u64; 2]>,
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
            | Event::RematchOffer { at_ms, .. }
            | Event::Rematch { at_ms, .. }
            | Event::End { at_ms, .. } => *at_ms,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

fn listed_by_default() -> bool {
    true
}

fn is_listed(listed: &bool) -> bool {
    *listed
}

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

    #[test]
    fn events_written_before_listing_and_derived_rematch_seats_read_as_before() {
        let created = r#"{"k":"created","at_ms":1,"variant":"balanced","start_fen":"8/8/8/8/8/8/8/8 w - - 0 1","clock":null,"creator":"white","seat_hash":"h"}"#;
        let Ok(Event::Created { listed, .. }) = serde_json::from_str(created) else {
            panic!("an old created event reads");
        };
        assert!(listed, "an old game is listed");
        let Ok(Event::RematchOffer { seat_hash, .. }) =
            serde_json::from_str(r#"{"k":"rematch_offer","at_ms":1,"by":"white"}"#)
        else {
            panic!("an old offer reads");
        };
        assert_eq!(seat_hash, None);
        let Ok(Event::Rematch { derived_seats, .. }) =
            serde_json::from_str(r#"{"k":"rematch","at_ms":1,"id":"AbCd1234"}"#)
        else {
            panic!("an old rematch reads");
        };
        assert!(!derived_seats);
    }

    #[test]
    fn a_listed_game_is_logged_exactly_as_before_and_an_unlisted_one_says_so() {
        let created = |listed| Event::Created {
            at_ms: 1,
            variant: Variant::Balanced,
            start_fen: "f".into(),
            clock: None,
            creator: Side::White,
            seat_hash: "h".into(),
            listed,
        };
        assert!(!created(true).to_json().contains("listed"));
        assert!(created(false).to_json().contains(r#""listed":false"#));
    }
}
