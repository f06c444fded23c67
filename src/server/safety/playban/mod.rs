//! Fair play by rule, "playban" (issue 32; docs/fair-play.md): a player who aborts often, lets
//! their clock run out instead of playing on, or leaves games, gets a growing pause from
//! starting games.
//!
//! The commit that ends a game carries each seated account's outcome ([`extract::playban_end`],
//! pure), and the store records it in that commit's transaction, once per (user, game): so it
//! is durable with the end and counted once on any number of nodes. Pauses are not stored:
//! they follow from the stored outcomes by [`rules::bans`], so every node derives the same.
//! Every entrance that starts a game for a signed-in player asks [`check::refuse_banned`]
//! (or [`check::ban_refusal`] on the lobby channel) first.
//!
//! | concept | module |
//! |---|---|
//! | the outcomes of a game and the pauses a record earns, pure | [`rules`] |
//! | a game's [`rules::Ending`] from its state and the events that end it | [`extract`] |
//! | a player's pause now, and the refusal that says so | [`check`] |
//! | `GET /api/playban` | [`routes`] |

pub mod check;
pub mod extract;
pub mod routes;
pub mod rules;
