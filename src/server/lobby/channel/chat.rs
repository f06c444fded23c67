//! The lobby chat (room `lobby`, docs/protocol.md 3.8): every lobby channel reads it, anyone
//! writes (a signed-in page under its username, an anonymous one as `anonymous`). Lines are
//! stored (game id NULL) before they are sent, like a game room's.
//!
//! One lock orders the lobby's lines: it is held while a line is stored, so lines reach every
//! channel in the order of their ids, and the recent lines kept here (for `chat_history` on
//! connect, without a store read per page) are exactly the newest stored ones. The lobby chat is
//! low volume (3 lines per 5 s per channel), so a line waiting for the previous one's group
//! commit costs nothing that matters.
//!
//! With several nodes, the node that took a line stores it and publishes it; every node (that
//! one too) adds it to its recent lines and sends it when the bus brings it ([`LobbyChat::received`]).
//! Lines said on two nodes at once may then arrive in either order: the recent lines are kept
//! in the order of their time, each once.

use std::collections::VecDeque;

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Mutex;

use super::hub::Hub;
use super::msg::LobbyMsg;
use crate::server::chat::{
    ChatRate, ChatRole, ChatRoom, ChatText, HISTORY_LINES, NewChatLine, author_label,
};
use crate::server::cluster::lobby::LobbyLink;
use crate::server::game::now_ms;
use crate::server::play::protocol::{ChatHistoryMsg, ChatLineMsg, ErrorCode, Refusal};
use crate::server::players::account::Account;
use crate::server::store::Store;

/// The lobby room's recent lines, read from the store once.
#[derive(Default)]
pub struct LobbyChat {
    recent: Mutex<Option<VecDeque<ChatLineMsg>>>,
}

fn store_failure(error: impl std::fmt::Display) -> Refusal {
    tracing::warn!(%error, "lobby chat: store failure");
    Refusal::new(
        ErrorCode::StoreFailure,
        "the chat line could not be stored; nobody got it, try again",
    )
}

impl LobbyChat {
    async fn loaded<'a>(
        &'a self,
        store: &dyn Store,
    ) -> Result<tokio::sync::MutexGuard<'a, Option<VecDeque<ChatLineMsg>>>, Refusal> {
        let mut recent = self.recent.lock().await;
        if recent.is_none() {
            let lines = store
                .recent_chat(None, ChatRoom::Lobby, HISTORY_LINES)
                .await
                .map_err(store_failure)?;
            *recent = Some(lines.iter().map(|l| l.to_msg()).collect());
        }
        Ok(recent)
    }

    /// The `chat_history` a channel gets on connect: `None` when the room has no lines (or the
    /// store could not be read: the page simply shows no history).
    pub async fn history(&self, store: &dyn Store) -> Option<LobbyMsg> {
        let recent = self.loaded(store).await.ok()?;
        let lines: Vec<ChatLineMsg> = recent.as_ref()?.iter().cloned().collect();
        if lines.is_empty() {
            return None;
        }
        Some(LobbyMsg::ChatHistory(ChatHistoryMsg {
            lines,
            room: ChatRoom::Lobby,
        }))
    }

    /// Stores a line of `account` (or an anonymous page), then sends it to every lobby channel.
    /// Checked first: the room (`not_allowed`), then the channel's `rate` (`rate_limited`; a
    /// refused room costs no token).
    pub async fn say(
        &self,
        store: &dyn Store,
        (hub, link): (&Hub, Option<&Arc<LobbyLink>>),
        account: Option<&Account>,
        (room, text): (ChatRoom, ChatText),
        rate: &mut ChatRate,
    ) -> Result<(), Refusal> {
        ChatRole::Lobby
            .may_write(room)
            .map_err(|e| Refusal::new(ErrorCode::NotAllowed, e.to_string()))?;
        crate::server::safety::moderation::chat_ban::refuse_if_banned(store, account.map(|a| a.id))
            .await?;
        if !rate.take(Instant::now()) {
            return Err(Refusal::new(
                ErrorCode::RateLimited,
                "too many chat lines; the line was not sent, the channel is kept",
            ));
        }
        let mut recent = self.loaded(store).await?;
        let line = NewChatLine {
            game_id: None,
            room: ChatRoom::Lobby,
            at_ms: now_ms(),
            user_id: account.map(|a| a.id),
            author: author_label(ChatRole::Lobby, account.map(|a| a.name.as_str())),
            text,
        };
        let id = store
            .append_chat(line.clone())
            .await
            .map_err(store_failure)?;
        let msg = line.stored(id).to_msg();
        if let Some(link) = link {
            // Kept and sent when the bus brings it back, here as on every node.
            link.chat(msg);
            return Ok(());
        }
        if let Some(lines) = recent.as_mut() {
            lines.push_back(msg.clone());
            while lines.len() > HISTORY_LINES as usize {
                lines.pop_front();
            }
        }
        let author = account.map(|a| a.id);
        crate::server::safety::blocks::lobby::send_line(store, hub, msg, author).await;
        Ok(())
    }

    /// A line another node (or this one) stored, from the bus: kept among the recent lines in
    /// time order, once (a node that read the store just after it was stored has it already).
    /// Not yet read from the store: nothing to do, the first read has it.
    pub async fn received(&self, line: ChatLineMsg) {
        let mut recent = self.recent.lock().await;
        let Some(lines) = recent.as_mut() else {
            return;
        };
        if lines.contains(&line) {
            return;
        }
        let at = lines.partition_point(|l| l.at_ms <= line.at_ms);
        lines.insert(at, line);
        while lines.len() > HISTORY_LINES as usize {
            lines.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(at_ms: i64, text: &str) -> ChatLineMsg {
        ChatLineMsg {
            at_ms,
            author: "alice".into(),
            room: ChatRoom::Lobby,
            text: text.into(),
            user: Some("alice".into()),
        }
    }

    #[tokio::test]
    async fn lines_from_the_bus_are_kept_in_time_order_each_once() {
        let chat = LobbyChat::default();
        chat.received(line(1, "before the first read")).await;
        assert!(chat.recent.lock().await.is_none(), "the first read has it");
        *chat.recent.lock().await = Some(VecDeque::from([line(10, "a")]));
        chat.received(line(30, "c")).await;
        chat.received(line(20, "b")).await;
        chat.received(line(30, "c")).await;
        let kept: Vec<String> = chat
            .recent
            .lock()
            .await
            .iter()
            .flatten()
            .map(|l| l.text.clone())
            .collect();
        assert_eq!(kept, ["a", "b", "c"]);
    }

    #[tokio::test]
    async fn the_recent_lines_from_the_bus_stay_within_the_history_length() {
        let chat = LobbyChat::default();
        *chat.recent.lock().await = Some(VecDeque::new());
        for at in 0..(HISTORY_LINES as i64 + 5) {
            chat.received(line(at, &at.to_string())).await;
        }
        let recent = chat.recent.lock().await;
        let lines = recent.as_ref().map(|l| l.len());
        assert_eq!(lines, Some(HISTORY_LINES as usize));
        assert_eq!(
            recent.as_ref().and_then(|l| l.front()).map(|l| l.at_ms),
            Some(5)
        );
    }
}
