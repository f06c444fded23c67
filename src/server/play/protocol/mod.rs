//! The WebSocket wire format (docs/protocol.md section 3), typed in both
//! directions, and the names it is written with.
//!
//! | concept | module |
//! |---|---|
//! | what clients send, parsed strictly | [`client`] ([`ClientMsg`], [`parse_client`]) |
//! | what the server sends, in its envelope | [`server`] ([`ServerMsg`]) |
//! | the whole public state (`state`, HTTP snapshot, lobby summary) | [`snapshot`] |
//! | the one table of wire names | [`names`] |
//! | the players' names and ratings, rating changes | [`players`] |
//! | error codes, refusals, the `error` payload | [`error`] ([`ErrorCode`], [`Refusal`], [`ErrorMsg`]) |
//! | a sub-move as UCI text in serde | [`uci`] |
//!
//! The server serializes, test clients and the load generator deserialize
//! the same types. Turning a game's state or events into these messages is
//! not done here: this module knows the wire, not the game.

pub mod client;
pub mod error;
pub mod http;
pub mod names;
pub mod players;
pub mod server;
pub mod snapshot;
pub mod uci;
pub mod views;

/// Defined with the store (it is a column there); one of the wire names.
pub use crate::server::domain::status::GameStatus;
pub use client::{ClientMsg, FrameRefusal, MAX_ACK_ID_LEN, parse_client};
pub use error::{ErrorCode, ErrorMsg, Refusal};
pub use names::{
    ClaimName, GameResult, PhaseName, Reason, Side, claim_name, phase_name, reason_name, result_str,
};
pub use players::{PlayerView, Players, RatingChange, RatingView, RatingsMsg};
pub use server::{
    AckMsg, BerserkMsg, ByMsg, ChatHistoryMsg, ChatLineMsg, ClaimInMs, EndMsg, JoinMsg, MoveMsg,
    MsgType, PositionFields, PresenceMsg, RematchMsg, RematchSeatMsg, ServerMsg, TakebackMsg,
};
pub use snapshot::{
    ArenaGameView, ArenaMark, BerserkView, ComputerView, GameSnapshot, GameSummary, LiveState,
    MoveRecord, SeatView, Seats, SeatsTaken, SharedState, SharedText, StateMsg,
};
pub use views::{ClockView, CorrespondenceView, OutcomeView};
