//! Puzzles (issue 30): positions from real games and self-play where one turn wins, found by our
//! engine, trained with a puzzle rating. The pure rules (the line, the judge, the themes) stand
//! apart from the generator (engine work, offline) and from the trainer's routes (store I/O).
//!
//! | concept | module |
//! |---|---|
//! | a puzzle's line, checked by the rules core | [`line`] |
//! | the themes and their keys | [`theme`] |
//! | the trainer's verdict on the solver's sub-moves, and hints | [`judge`] |
//! | the detectors that tag a line with themes | [`themes`] |
//! | the puzzle set as CSV (lichess's layout), and puzzle ids | [`csv`] |
//! | which puzzle comes next: the rating aimed at, the day's cursor | [`pick`] |
//! | a player's dashboard from their rounds | [`dashboard`] |
//! | winning chances: the scale of the generator's thresholds | [`win_chance`] |
//! | turns as the engine sees them: the best, the second, mates in one turn | [`analyst`] |
//! | finding puzzles in a game (lichess-puzzler's method, by turns) | [`find`] |
//! | checking a found line again, deeper | [`verify`] |
//! | seeded engine self-play, the generator's games | [`selfplay`] |
//! | the generator: games in, verified and tagged puzzles out (CSV), figures | [`generate`] |
//! | the set between its CSV and the store (`puzzles import`, `puzzles export`) | [`transfer`] |
//! | the set added to the store at startup | [`set`] |
//! | what the routes answer | [`view`] |
//! | the refusals | [`error`] |
//! | the trainer's actions over the store, the import of a set | [`service`] |
//! | the routes | [`routes`] |

pub mod analyst;
pub mod csv;
pub mod dashboard;
pub mod error;
pub mod find;
pub mod generate;
pub mod judge;
pub mod line;
pub mod pick;
pub mod routes;
#[cfg(test)]
mod scripted;
pub mod selfplay;
pub mod service;
pub mod set;
pub mod theme;
pub mod themes;
pub mod transfer;
pub mod verify;
pub mod view;
pub mod win_chance;
