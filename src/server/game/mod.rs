//! The game core, pure: a game's typed events ([`event`]), what they mean ([`state`], the fold),
//! how requests become events ([`decide`]), how events are folded in ([`apply`]), and the rules
//! of game management ([`policy`]). No I/O, no async, no wire or stored text: the protocol
//! projects the state into messages (`protocol::project`), the store encodes the events
//! (`store::codec`), the room runs the move path (decide -> commit -> apply -> project ->
//! publish).

pub mod after;
pub mod apply;
pub mod clock;
pub mod creation;
pub mod decide;
pub mod event;
pub mod expiry;
pub mod lag;
pub mod policy;
pub mod rated;
pub mod speed;
pub mod state;
pub mod time_control;
pub mod timeouts;

#[cfg(test)]
mod tests;

pub use after::After;
pub use apply::ReplayError;
pub use decide::{Checked, Decided, Decision, HouseRules, Input, LagCredit, Refused, Request};
pub use event::{
    ACCOUNT_SEAT_HASH, BadDaysPerTurn, COMPUTER_SEAT_HASH, ClockSpec, DaysPerTurn, Event, Readings,
    SeatUser, TimeControl, TimeControlError, Variant, now_ms, requested_clock,
    requested_live_clock,
};
pub use lag::{Lag, LagTracker};
pub use state::{ACK_WINDOW, ComputerSeat, GameState, LiveParts, RecordEntry};
