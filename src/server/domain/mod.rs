//! The values every layer of the server passes around, below the game core and the store alike:
//! a user's id and name, a rating, a game's status. They import nothing of the server, so that the pure core
//! (`game/`) and the store can name them without reaching up into a feature.

pub mod rating;
pub mod status;
pub mod user;
