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
    RematchOffer {
        at_ms: i64,
        by: Side,
    },
    /// A rematch game was created with this id.
    Rematch {
        at_ms: i64,
        id: String,
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

/// Unix-epoch milliseconds now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
