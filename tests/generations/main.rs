//! Legal-move generations per sub-move, counted by the `count-generations` feature (off in every
//! other build): `cargo test --release --features count-generations --test generations`.
//!
//! One test binary per area (issue 26): each binary links the whole crate, so a handful of
//! them instead of one per file is most of what a clean build of the tests costs.
#![cfg(feature = "count-generations")]

#[path = "../support/mod.rs"]
mod support;

mod rules;
mod server;
