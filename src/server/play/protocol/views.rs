//! The views that several messages carry: a game's clocks, its correspondence time control, how
//! it ended. Shared by the server's messages (`server.rs`) and the snapshot (`snapshot.rs`).

use serde::{Deserialize, Serialize};

use super::names::{GameResult, Reason, Side};
use crate::rules::Outcome;
use crate::server::game::DaysPerTurn;

/// The clocks of a clocked game (`clock`; `null` in an unclocked one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockView {
    pub base_secs: u32,
    /// Black's remaining milliseconds.
    pub black: u64,
    pub increment_secs: u32,
    /// Whose clock is running, if any.
    pub running: Option<Side>,
    /// White's remaining milliseconds.
    pub white: u64,
}

/// A correspondence game's time control on the wire (`correspondence`, present only in such
/// games, whose `clock` is `null`): its days per turn, and the Unix ms at which the side to
/// move's turn runs out (`null` while no turn is timed: open or finished).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorrespondenceView {
    pub days_per_turn: DaysPerTurn,
    pub deadline_ms: Option<i64>,
}

/// How a game ended (`outcome` of `state`, and the fields of `end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutcomeView {
    pub reason: Reason,
    pub result: GameResult,
    pub winner: Option<Side>,
}

impl From<Outcome> for OutcomeView {
    fn from(outcome: Outcome) -> OutcomeView {
        OutcomeView {
            reason: outcome.reason().into(),
            result: outcome.into(),
            winner: outcome.winner().map(Side::from),
        }
    }
}
