//! Crash, store-fault, abuse and soak tests on the real binary, in their short versions
//! (docs/reliability.md gives the long ones).

mod abuse;
mod arena_kill;
mod crash;
mod soak;
mod store_faults;
