//! A stored chat line as sent ([`ChatLine::to_msg`]); the line itself is a domain value
//! ([`crate::server::domain::chat_line`]).

use crate::server::domain::chat_line::ChatLine;
use crate::server::play::protocol::ChatLineMsg;

impl ChatLine {
    /// The wire form: `user` is the author's username when the author was signed in, so that
    /// a client can tell the account named `white` from the anonymous White player.
    pub fn to_msg(&self) -> ChatLineMsg {
        ChatLineMsg {
            at_ms: self.at_ms,
            author: self.author.clone(),
            room: self.room,
            text: self.text.clone(),
            user: self.user_id.map(|_| self.author.clone()),
        }
    }
}
