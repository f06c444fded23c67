//! Arena tournaments (issue 29): an arena has a clock and a duration; while it runs, its
//! players are paired again and again as their games end, and scored by lichess's arena rules.
//! Its state is the store's (the arena, its players, the games that name it), read afresh at
//! every step, so a restart or another node carries on where it stopped.
//!
//! | concept | module |
//! |---|---|
//! | the score: wins, draws, the fire streak, berserk, short draws; the tie-break | [`score`] |
//! | who meets whom: rank factor, no immediate rematch, colours, closing time | [`pairing`] |
//! | an arena, checked; its phase; who may join | [`tournament`] |
//! | the standings and who waits, read from the players and games | [`standings`] |
//! | the arenas the server makes by itself | [`schedule`] |
//! | one step of a running arena: the games to start, the podium | [`step`] |
//! | an arena as the store keeps it | [`record`] |
//! | an arena read whole from the store | [`read`] |
//! | what the routes answer | [`view`] |
//! | the refusals | [`error`] |
//! | the actions: make, join, withdraw, list, step | [`service`] |
//! | the pairing task, under a lease on several nodes | [`director`] |
//! | the routes | [`routes`] |

pub mod director;
pub mod error;
pub mod pairing;
pub mod read;
pub mod record;
pub mod routes;
pub mod schedule;
pub mod score;
pub mod service;
pub mod standings;
pub mod step;
pub mod tournament;
pub mod view;
