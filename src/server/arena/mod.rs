//! Arena tournaments (issue 29, in progress): a tournament with a clock and a duration, whose
//! players are paired again and again as their games end, scored by lichess's arena rules.
//! What is here so far is the pure core, tested rule by rule; the store, the routes, the
//! pairing task under a lease and the pages come next (see the closing note).
//!
//! | concept | module |
//! |---|---|
//! | the score: wins, draws, the fire streak, berserk, short draws; the tie-break | [`score`] |
//! | who meets whom: rank factor, no immediate rematch, colours, closing time | [`pairing`] |
//! | an arena, checked; its phase; who may join | [`tournament`] |
//! | the standings and who waits, read from the players and games | [`standings`] |
//! | the arenas the server makes by itself | [`schedule`] |
//! | one step of a running arena: the games to start, the podium | [`step`] |

pub mod pairing;
pub mod schedule;
pub mod score;
pub mod standings;
pub mod step;
pub mod tournament;
