//! The rules engine, compiled into the fuzz crate from its own source files.
//!
//! Depending on the `marseillais` crate would build the whole server (tokio,
//! axum, bundled SQLite) with coverage instrumentation: about 8 minutes on
//! the 2-core CI machine, against well under 2 for these files alone. The
//! rules module is pure and refers only to `super::` paths and to the three
//! crates below, so it compiles here unchanged; if it ever needs more, add
//! the dependency to fuzz/Cargo.toml with the same version as the main one.

#[path = "../../src/rules/mod.rs"]
pub mod rules;
