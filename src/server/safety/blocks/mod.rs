//! Blocks (issue 32): an account blocks another; from then on neither can challenge the other,
//! join the other's open game, be paired with the other in a pool (or an arena, while anyone
//! else can be met), and neither reads the other's chat lines, live or in the history. The
//! blocked account is never told: what stands in its way answers only `not_possible`, "this
//! is not possible" (docs/protocol.md, "Blocks").
//!
//! Blocks are read from the store at the moment they matter (no cache), so that every node
//! agrees the moment a block is stored.
//!
//! | concept | module |
//! |---|---|
//! | the rules, pure: who may block, the relations a reader or an author has | [`rules`] |
//! | the refusals and their wire codes | [`error`] |
//! | the reads the other rooms call (challenge, join, pool, arena, chat, profile) | [`check`] |
//! | the lobby chat's delivery and history, filtered | [`lobby`] |
//! | the routes `/api/blocks` | [`routes`] |

pub mod check;
pub mod error;
pub mod lobby;
pub mod routes;
pub mod rules;
