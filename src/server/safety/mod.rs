//! Safety and moderation (issue 32): the rooms that keep the community pleasant. Each is a
//! feature of its own (state, rules, routes); none is imported by `players::account`.

pub mod moderation;
