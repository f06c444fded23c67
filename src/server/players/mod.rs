//! Players: accounts and sign-in ([`account`]), ratings ([`rating`]), public profiles
//! ([`profile`]) and an account's unfinished games ([`my_games`]).

pub mod account;
pub mod my_games;
pub mod profile;
pub mod rating;
