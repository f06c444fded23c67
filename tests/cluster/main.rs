//! Several nodes on one PostgreSQL and one Redis: the bus, ownership, failover, features across
//! nodes and the kill -9 run (docs/reliability.md, section 15).
//!
//! One test binary per area (issue 26): each binary links the whole crate, so a handful of
//! them instead of one per file is most of what a clean build of the tests costs.

#[path = "../support/mod.rs"]
mod support;

mod arenas;
mod bus_redis;
mod crash;
mod failover;
mod features;
mod health;
mod lobby;
mod nodes;
