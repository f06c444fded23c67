//! The opening explorer (issue 31): for any position at the start of a turn, the turns played
//! from it in the games the store holds, with their results, their players' average rating
//! and a few example games; rated and casual apart, by clock family (docs/explorer.md).
//!
//! Kept incrementally: the commit that ends a game carries what the explorer counts of it
//! ([`extract::counted_game`], pure), and the store adds it up in that commit's transaction,
//! once per game id. The route only reads.
//!
//! | concept | module |
//! |---|---|
//! | which games count, their turns, the key of a position | [`extract`] |
//! | one position's answer from the stored rows: filters, sums, SAN, examples | [`answer`] |
//! | the refusals | [`error`] |
//! | the route | [`routes`] |

pub mod answer;
pub mod error;
pub mod extract;
pub mod routes;
