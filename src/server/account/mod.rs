//! Accounts: who a player is when they sign in (issue 11). Anonymous play does not go through
//! here at all: a seat token alone still proves a seat.
//!
//! `user.rs` holds the values every other part of the server passes around (a user's id, a
//! checked username, the signed-in [`Account`]); registration, passwords and sessions are built
//! on them in the sibling modules.

pub mod user;

pub use user::{Account, UserId, Username, UsernameError};
