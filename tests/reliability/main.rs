//! Crash, store-fault, abuse and soak tests on the real binary, in their short versions
//! (docs/reliability.md gives the long ones).
//!
//! One test binary per area (issue 26): each binary links the whole crate, so a handful of
//! them instead of one per file is most of what a clean build of the tests costs.

#[path = "../support/mod.rs"]
mod support;

mod abuse;
mod arena_kill;
mod crash;
mod soak;
mod store_faults;
