//! Safety and moderation (issue 32): what keeps the community pleasant, one room per part.
//!
//! | part | module |
//! |---|---|
//! | fair play by rule: outcomes of finished games, pauses from starting games | [`playban`] |

pub mod playban;
