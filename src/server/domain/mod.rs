//! The values every layer of the server passes around, below the game core and the store alike:
//! a user's id and name, a rating and its Glicko-2 update, a game's status, a colour's wire name, a chat line and what of its text shows. They import nothing of the server, so that the pure core
//! (`game/`) and the store can name them without reaching up into a feature.

pub mod chat;
pub mod chat_line;
pub mod glicko2;
pub mod rating;
pub mod side;
pub mod status;
pub mod user;
pub mod visible;
