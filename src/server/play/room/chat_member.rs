//! What a room keeps of its chat: each connection's chat side ([`ChatMember`], in its crowd
//! member) and the recent lines of the game's two rooms ([`RoomChat`]). The handling of chat
//! messages is in `chat.rs`.

use std::collections::VecDeque;
use std::time::Instant;

use crate::server::chat::{ChatRate, ChatRoom};
use crate::server::config::Config;
use crate::server::play::protocol::ChatLineMsg;

/// A connection's chat side, in its [`super::crowd::Member`].
#[derive(Clone, Debug)]
pub struct ChatMember {
    pub(super) rate: ChatRate,
    /// A player asked to read the spectators' room (`chat_watch`).
    pub(super) watches_spectators: bool,
    /// The signed-in spectator's username, once read from the store.
    pub(super) username: Option<String>,
    /// The relations of the accounts it reads as, read when it connected: its history leaves
    /// out their lines (issue 32, `blocks.rs`).
    pub(super) blocks: crate::server::safety::blocks::rules::Relations,
}

impl ChatMember {
    pub fn new(config: &Config, now: Instant) -> ChatMember {
        ChatMember {
            rate: ChatRate::new(config.chat_burst, config.chat_window, now),
            watches_spectators: false,
            username: None,
            blocks: Default::default(),
        }
    }
}

/// The recent lines of a game's two rooms, once read from the store.
#[derive(Default)]
pub(super) struct RoomChat {
    /// `[player, spectator]`; boxed, so that a room nobody chats in pays one pointer.
    pub(super) recent: Option<Box<[VecDeque<ChatLineMsg>; 2]>>,
}

pub(super) fn slot(room: ChatRoom) -> usize {
    match room {
        ChatRoom::Player => 0,
        ChatRoom::Spectator | ChatRoom::Lobby => 1,
    }
}
