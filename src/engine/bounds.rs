//! The fixed bounds every part of the search shares: the mate scores (the transposition table
//! stores them relative to the node, the move ordering's killer table is as deep as the search)
//! and the deepest ply.

/// The score of giving checkmate now; a mate `n` plies away is `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are mate scores.
pub const MATE_BOUND: i32 = MATE - 1_000;
pub const INF: i32 = 31_000;
/// The deepest ply the search reaches, quiescence included.
pub const MAX_PLY: usize = 96;
