//! The system tests: the real server (in process or the binary), its stores and its nodes, end
//! to end, one area per module: `server` (the wire, one module per feature), `store`, `cluster`,
//! `reliability` (crash, faults, abuse, soak) and `browser` (headless Chromium).
//!
//! One binary for the five areas (and three small ones of pure rules, engine and house): each
//! test binary links the whole crate and instantiates its generics again in release, so five
//! areas in one binary build in 106 s where five binaries took 354 s of CPU (`--timings`,
//! 2026-12-05; docs/performance.md, "CI"). Select an area as a filter:
//! `cargo nextest run --release --test system cluster::`.

#[path = "../support/mod.rs"]
mod support;

#[path = "../browser/mod.rs"]
mod browser;
#[path = "../cluster/mod.rs"]
mod cluster;
#[path = "../reliability/mod.rs"]
mod reliability;
#[path = "../server/mod.rs"]
mod server;
#[path = "../store/mod.rs"]
mod store;
