//! Moderation (issue 32): moderators (a role given by the command line only, [`cli`]), reports
//! from players ([`reports`]), the moderators' actions and their log ([`actions`]), the chat
//! ban's check every chat path makes ([`chat_ban`]), closing an account ([`close`]) and the
//! leaderboard that leaves marked players out ([`leaderboard`]). The pure rules (limits,
//! lengths, messages) are in [`rules`]; the store keeps everything (store/moderation.rs), so
//! every node sees a ban, a mark or a role at once. A mark's effect on ratings is the store's
//! rating transaction's (no rated game of a marked player changes a rating).

pub mod actions;
pub mod chat_ban;
pub mod cli;
pub mod close;
pub mod error;
pub mod leaderboard;
pub mod reports;
pub mod routes;
pub mod rules;
pub mod state;
pub mod view;

pub use routes::router;
pub use state::ModerationState;
