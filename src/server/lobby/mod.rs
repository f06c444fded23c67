//! The lobby: challenges between signed-in players ([`challenge`]) and the lobby channel every
//! page keeps open ([`channel`]: online count, challenge notices, `your_turn`, the lobby chat).

pub mod challenge;
pub mod channel;
