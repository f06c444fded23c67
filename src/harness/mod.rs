//! The match harness: engines play each other from a book's openings, in pairs with the
//! colours swapped, on every core, and a sequential probability ratio test decides whether a
//! change made the engine stronger (docs/engine.md, "Measuring a change"). Not part of the
//! server: the `arena` and `book` binaries and the engine tests use it.
//!
//! | concept | module |
//! |---|---|
//! | the pentanomial SPRT and the Elo estimate, pure | [`sprt`] |
//! | who plays: a level with its techniques, vchess, or another build | [`player`] |
//! | another build's engine process, driven over UCI | [`uci_player`] |
//! | one game to its end, under nodes, a move time or a clock | [`game`] |
//! | the opening book: reading it, making it | [`book`] |
//! | a match: pairs on threads, counted in order, stopped by the test | [`runner`] |
//! | Texel's tuning of the evaluation's numbers, pure | [`texel`] |
//! | the same error minimised by gradient descent, for millions of positions | [`texel_gradient`] |

pub mod book;
pub mod game;
pub mod player;
pub mod runner;
pub mod sprt;
pub mod texel;
pub mod texel_gradient;
pub mod uci_player;
