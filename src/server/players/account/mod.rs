//! Accounts: who a player is when they sign in (issue 11). Anonymous play does not go through
//! here at all: a seat token alone still proves a seat.
//!
//! The values every other part of the server passes around (a user's id, a checked username,
//! the signed-in [`Account`]) are in [`crate::server::domain::user`]; these modules build
//! sign-in on them:
//! `password.rs` (Argon2id, off the runtime, bounded), `session.rs` (ids and the cookie),
//! `service.rs` ([`Accounts`]: register, log in, resolve a session), `limits.rs` (per-username
//! rate limit), `origin.rs` (the CSRF layer), `extract.rs` (the [`MaybeAccount`] /
//! [`RequireAccount`] extractors other routes use), `routes.rs` (`/api/account/*`), `settings.rs` (the personal settings kept in the account) and
//! `error.rs` (their typed errors).
//!
//! The account's own controls (issue 32) are `controls.rs` (their routes) over
//! `password_change.rs`, `session_list.rs`, `deletion.rs`, `archive.rs` and `page.rs` (the
//! `/account` page), and `control_request.rs` (what they share).

pub mod archive;
pub mod control_request;
pub mod controls;
pub mod deletion;
pub mod error;
pub mod extract;
pub mod limits;
pub mod origin;
pub mod page;
pub mod password;
pub mod password_change;
pub mod routes;
pub mod service;
pub mod session;
pub mod session_list;
pub mod settings;
pub mod state;

pub use crate::server::domain::user::{Account, UserId, Username, UsernameError};
pub use extract::{MaybeAccount, RequireAccount};
pub use service::Accounts;
