//! marseillais: an online server for Marseillais chess.
//!
//! [`rules`] is the game itself, pure and synchronous; the server builds on it.

pub mod engine;
pub mod harness;
pub mod rules;
pub mod server;
