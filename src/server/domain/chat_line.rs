//! A chat line as stored: [`NewChatLine`] (to store, its text already valid) and [`ChatLine`]
//! (stored, with its id).

use super::chat::{ChatRoom, ChatText};
use super::user::UserId;

/// A line to store: its text already valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewChatLine {
    /// `None`: the lobby's room.
    pub game_id: Option<String>,
    pub room: ChatRoom,
    /// Unix milliseconds.
    pub at_ms: i64,
    /// The signed-in author, if any.
    pub user_id: Option<UserId>,
    /// The label shown ([`crate::server::chat::author_label`]).
    pub author: String,
    pub text: ChatText,
}

/// A stored line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    /// Increasing in the order lines were stored (the order they are shown in).
    pub id: i64,
    pub game_id: Option<String>,
    pub room: ChatRoom,
    pub at_ms: i64,
    pub user_id: Option<UserId>,
    pub author: String,
    pub text: String,
}

impl NewChatLine {
    /// The line as stored under `id`.
    pub fn stored(self, id: i64) -> ChatLine {
        ChatLine {
            id,
            game_id: self.game_id,
            room: self.room,
            at_ms: self.at_ms,
            user_id: self.user_id,
            author: self.author,
            text: self.text.into_string(),
        }
    }
}
