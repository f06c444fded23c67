//! The stores: SQLite, MemoryStore and PostgreSQL against one contract, every fixture database
//! from an earlier schema opened by today's code, `marseillais migrate`, the server on
//! PostgreSQL, and what of puzzles is each backend's own (their searches' plans).
//! The PostgreSQL tests need `MARSEILLAIS_TEST_POSTGRES` (`scripts/test-services.sh`).

mod admin_command;
mod fixture_v10;
mod fixture_v2;
mod memory;
mod migrate_command;
mod migration_account_status;
mod migration_blocks;
mod migration_explorer;
mod migration_learn;
mod migration_moderation;
mod migration_playban;
mod migration_v3;
mod migration_v4;
mod migration_v5;
mod migration_v6;
mod migration_v7;
mod migration_v8;
mod migration_v9;
mod postgres;
mod puzzles;
mod server_postgres;
mod sqlite;
