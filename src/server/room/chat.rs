//! A room's chat: a `chat` line from a connection, checked (room, rate), stored, then sent to
//! those of the room's connections that read its room; `chat_watch`; the recent lines sent on
//! connect.

use std::time::Instant;

use super::RoomTask;
use super::fanout::ConnId;
use crate::server::chat::{ChatRoom, ChatText};
use crate::server::protocol::{ErrorCode, Refusal, ServerMsg};

impl RoomTask {
    /// A chat line from `conn`.
    pub(super) async fn chat(
        &mut self,
        conn: ConnId,
        _room: ChatRoom,
        _text: ChatText,
        _received: Instant,
    ) {
        let refusal = Refusal::new(ErrorCode::NotAvailable, "chat is not served yet");
        self.send_to(conn, &ServerMsg::error(&refusal, None));
    }

    /// A player starts or stops reading the spectators' room.
    pub(super) fn chat_watch(&mut self, conn: ConnId, _spectator: bool) {
        let refusal = Refusal::new(ErrorCode::NotAvailable, "chat is not served yet");
        self.send_to(conn, &ServerMsg::error(&refusal, None));
    }
}
