//! Safety and moderation (issue 32): the rooms that keep the community pleasant. Each is a
//! feature of its own (state, rules, routes); none is imported by `players::account`.
//!
//! | part | module |
//! |---|---|
//! | blocks between accounts and where they apply (chat, challenges, pairing, open games) | [`blocks`] |
//! | reports, moderators and their actions, the moderation log, the leaderboard | [`moderation`] |
//! | fair play by rule: outcomes of finished games, pauses from starting games | [`playban`] |

pub mod blocks;
pub mod moderation;
pub mod playban;
