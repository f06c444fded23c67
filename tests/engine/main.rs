//! The computer opponent: search, UCI over the binary's stdin/stdout, and the match harness.
//!
//! One test binary per area (issue 26): each binary links the whole crate, so a handful of
//! them instead of one per file is most of what a clean build of the tests costs.

#[path = "../support/mod.rs"]
mod support;

mod arena;
mod exclude;
mod search;
mod uci;
