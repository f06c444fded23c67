//! The stores: SQLite, MemoryStore and PostgreSQL against one contract, every fixture database
//! from an earlier schema opened by today's code, `marseillais migrate`, and the server on
//! PostgreSQL.
//! The PostgreSQL tests need `MARSEILLAIS_TEST_POSTGRES` (`scripts/test-services.sh`).
//!
//! One test binary per area (issue 26): each binary links the whole crate, so a handful of
//! them instead of one per file is most of what a clean build of the tests costs.

#[path = "../support/mod.rs"]
mod support;

mod fixture_v2;
mod memory;
mod migrate_command;
mod migration_v3;
mod migration_v4;
mod migration_v5;
mod migration_v6;
mod migration_v7;
mod postgres;
mod server_postgres;
mod sqlite;
