//! Puzzles (issue 30): positions from real games and self-play where one turn wins, found by our
//! engine, trained with a puzzle rating. The pure rules (the line, the judge, the themes) stand
//! apart from the generator (engine work, offline) and from the trainer's routes (store I/O).
//!
//! | concept | module |
//! |---|---|
//! | a puzzle's line, checked by the rules core | [`line`] |
//! | the themes and their keys | [`theme`] |

pub mod line;
pub mod theme;
