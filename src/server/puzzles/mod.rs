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
//! | what the routes answer | [`view`] |
//! | the refusals | [`error`] |
//! | the set added to the store at startup | [`set`] |
//! | the trainer's actions over the store, the import of a set | [`service`] |
//! | the routes | [`routes`] |

pub mod csv;
pub mod dashboard;
pub mod error;
pub mod judge;
pub mod line;
pub mod pick;
pub mod routes;
pub mod service;
pub mod set;
pub mod theme;
pub mod themes;
pub mod view;
