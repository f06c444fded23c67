//! The rules engine through its public API: legal sub-moves and turns, en passant, endings,
//! FEN, SAN, comma PGN, perft against the independent model in `reference.rs`, and the
//! property tests. `cargo test --release --test rules -- --ignored perft` runs the slow perft rows.
//!
//! One test binary per area (issue 26): each binary links the whole crate, so a handful of
//! them instead of one per file is most of what a clean build of the tests costs.

mod reference;
#[path = "../support/mod.rs"]
mod support;

mod en_passant;
mod endings;
mod fen;
mod game_memory;
mod generations;
mod move_list;
mod perft_marseillais;
mod perft_orthodox;
mod pgn;
mod proptest_crowded;
mod proptest_game;
mod proptest_notation;
mod proptest_position;
mod reference_model;
mod san;
mod turns;
mod worked_cases;
