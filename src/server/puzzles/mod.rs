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

pub mod csv;
pub mod judge;
pub mod line;
pub mod theme;
pub mod themes;
