//! The rules of Marseillais chess, pure: no I/O, no async, no clock.
//!
//! The server builds on this module and never the reverse. Every rule of
//! `docs/rules.md` lives in exactly one place here:
//!
//! | rule | module |
//! |---|---|
//! | piece placement | [`board`] |
//! | turn state: side, phase S1/S2/single, castling, en-passant targets, counters | [`position`] |
//! | legal sub-moves, check, pins, en passant across sub-moves | [`movegen`] |
//! | whether a sub-move gives check, before it is played (for the engine's pruning) | `gives_check` |
//! | how a sub-move changes the turn state (check ends the turn, rights lapse) | [`position`] |
//! | results and their reasons | [`outcome`] |
//! | results and draws judged on one position | [`ending`] |
//! | results and draws that need the history (repetition, claims) | [`game`] |
//! | a game's sub-moves, a byte each | [`record`] |
//! | extended FEN, SAN, comma PGN (with variations and comments: [`pgn::read_tree`]) | [`fen`], [`san`], [`pgn`] |
//! | a move tree: lines and variations from one position, each sub-move checked | [`tree`] |
//! | perft | [`perft`] |
//! | counting legal-move generations (per thread, for tests of what a path costs) | [`generations`] |

pub mod board;
pub mod ending;
pub mod fen;
pub mod game;
pub mod generations;
mod gives_check;
pub mod movegen;
pub mod outcome;
mod pass;
pub mod perft;
pub mod pgn;
pub mod position;
pub mod record;
pub mod san;
pub mod submove;
pub mod tree;
mod zobrist;

/// Low-level primitives (squares, bitboards, colours, pieces) come from the
/// `cozy-chess` crate's public API; everything Marseillais-specific is ours.
pub use cozy_chess::{BitBoard, Color, File, Piece, Rank, Square};

pub use board::Board;
pub use fen::FenError;
pub use game::{Claim, Game, GameError, Preview};
pub use generations::{Generations, generations, reset as reset_generations};
pub use outcome::{Outcome, Termination};
pub use pgn::{GameResult, ImportedGame, PgnError, PgnTags};
pub use position::{Phase, PlayError, Position, Rules};
pub use san::{SanError, SanIssue, StrictSanError};
pub use submove::{SubMove, SubMoveList, UciError};
