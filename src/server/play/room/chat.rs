//! A room's chat ([`crate::server::chat`]): a `chat` line from one of its connections, checked
//! (the room it names, the connection's rate), stored, and only then sent to the connections
//! that read that room; `chat_watch`; the recent lines (`chat_history`) after every `hello`.
//!
//! The room, not the socket, does this so that a line is ordered with the game's events and its
//! audience is decided by the seats the room knows (a connection's seat can change with a
//! `hello`). Lines are not game events: no version, no history entry, no snapshot change. The
//! room keeps each room's last [`HISTORY_LINES`] in memory (read from the store when the room
//! starts, then kept up to date), so a `hello` costs no store read.

use std::collections::VecDeque;
use std::time::Instant;

use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::RoomTask;
use super::chat_member::slot;
use super::fanout::ConnId;
use crate::server::chat::{
    ChatRole, ChatRoom, ChatText, HISTORY_LINES, NewChatLine, author_label, spectator_room_open,
};
use crate::server::game::now_ms;
use crate::server::play::protocol::{ChatHistoryMsg, ChatLineMsg, ErrorCode, Refusal, ServerMsg};
use crate::server::players::account::UserId;

impl RoomTask {
    /// The chat role of a connection: its seat, or a spectator.
    fn chat_role(&self, conn: ConnId) -> Option<ChatRole> {
        let member = self.crowd.get(conn)?;
        Some(member.seat.map_or(ChatRole::Spectator, ChatRole::Player))
    }

    /// Whether `conn` reads `room` now.
    pub(super) fn reads(&self, conn: ConnId, room: ChatRoom) -> bool {
        let Some(member) = self.crowd.get(conn) else {
            return false;
        };
        let role = member.seat.map_or(ChatRole::Spectator, ChatRole::Player);
        role.may_read(room, member.chat.watches_spectators)
    }

    /// Reads the recent lines of both rooms from the store, once: when the room starts (a
    /// failure is retried at the next connect; meanwhile no history is sent).
    pub(super) async fn load_chat(&mut self) {
        if self.chat.recent.is_some() {
            return;
        }
        let mut recent: [VecDeque<ChatLineMsg>; 2] = Default::default();
        for room in ChatRoom::GAME {
            let read = self
                .deps
                .store
                .recent_chat(Some(&self.state.id), room, HISTORY_LINES)
                .await;
            match read {
                Ok(lines) => recent[slot(room)] = lines.iter().map(|l| l.to_msg()).collect(),
                Err(error) => {
                    tracing::warn!(game = %self.state.id, %error, "could not read the chat");
                    return;
                }
            }
        }
        self.chat.recent = Some(Box::new(recent));
    }

    /// `chat_history` of every room `conn` reads that has lines (after its `state`). A room
    /// without lines sends nothing: the bytes a game without chat sends on connect are the ones
    /// it sent before chat existed (tests/server/wire_golden.rs).
    pub(super) fn send_chat_history(&mut self, conn: ConnId) {
        for room in ChatRoom::GAME {
            if self.reads(conn, room) {
                self.send_room_history(conn, room);
            }
        }
    }

    fn send_room_history(&mut self, conn: ConnId, room: ChatRoom) {
        let Some(recent) = &self.chat.recent else {
            return;
        };
        if recent[slot(room)].is_empty() {
            return;
        }
        let lines: Vec<ChatLineMsg> = recent[slot(room)]
            .iter()
            .filter(|line| self.history_shows(conn, line))
            .cloned()
            .collect();
        if lines.is_empty() {
            return;
        }
        let msg = ServerMsg::ChatHistory(ChatHistoryMsg { lines, room });
        self.send_to(conn, &msg);
    }

    /// A chat line from `conn`: refused (with the connection kept) if it may not write there
    /// or is over its rate; else stored, then sent to every connection that reads the room.
    pub(super) async fn chat(
        &mut self,
        conn: ConnId,
        room: ChatRoom,
        text: ChatText,
        received: Instant,
    ) {
        if let Err(refusal) = self.chat_line(conn, room, text, received).await {
            self.send_to(conn, &ServerMsg::error(&refusal, None));
        }
    }

    async fn chat_line(
        &mut self,
        conn: ConnId,
        room: ChatRoom,
        text: ChatText,
        received: Instant,
    ) -> Result<(), Refusal> {
        let Some(role) = self.chat_role(conn) else {
            return Ok(());
        };
        role.may_write(room)
            .map_err(|e| Refusal::new(ErrorCode::NotAllowed, e.to_string()))?;
        crate::server::safety::moderation::chat_ban::refuse_if_banned(
            &*self.deps.store,
            self.chat_account(conn, role),
        )
        .await?;
        let after_end = self.deps.config.clients.spectator_chat_after_end;
        if room == ChatRoom::Spectator
            && !spectator_room_open(self.state.ended_ms(), now_ms(), after_end)
        {
            return Err(Refusal::new(
                ErrorCode::NotAllowed,
                format!(
                    "the spectators' room closed {} s after the game ended",
                    after_end.as_secs()
                ),
            ));
        }
        let allowed = self
            .crowd
            .get_mut(conn)
            .is_some_and(|m| m.chat.rate.take(received));
        if !allowed {
            let config = &self.deps.config;
            return Err(Refusal::new(
                ErrorCode::RateLimited,
                format!(
                    "at most {} chat lines per {} s; the line was not sent, the connection is kept",
                    config.chat_burst,
                    config.chat_window.as_secs_f64()
                ),
            ));
        }
        let (user_id, username) = self.chat_author(conn, role).await?;
        let line = NewChatLine {
            game_id: Some(self.state.id.clone()),
            room,
            at_ms: now_ms(),
            user_id,
            author: author_label(role, username.as_deref()),
            text,
        };
        let id = self
            .deps
            .store
            .append_chat(line.clone())
            .await
            .map_err(|error| {
                tracing::warn!(game = %self.state.id, %error, "could not store a chat line");
                Refusal::new(
                    ErrorCode::StoreFailure,
                    "the chat line could not be stored; nobody got it, try again",
                )
            })?;
        let msg = line.stored(id).to_msg();
        if let Some(recent) = &mut self.chat.recent {
            let lines = &mut recent[slot(room)];
            lines.push_back(msg.clone());
            while lines.len() > HISTORY_LINES as usize {
                lines.pop_front();
            }
        }
        let text = Utf8Bytes::from(ServerMsg::Chat(msg).to_text());
        self.send_chat_line(room, text, user_id).await;
        Ok(())
    }

    /// The account a line of `conn` in `role` is written by, if any (what a chat ban is
    /// checked against): the seat's account for a player, the connection's for a spectator.
    fn chat_account(&self, conn: ConnId, role: ChatRole) -> Option<UserId> {
        match role {
            ChatRole::Player(color) => self.state.user(color).map(|u| u.id),
            _ => self.crowd.get(conn).and_then(|m| m.account),
        }
    }

    /// Who writes a line: a player is the seat's account (if the seat has one); a spectator
    /// the connection's signed-in account, whose name is read from the store once.
    async fn chat_author(
        &mut self,
        conn: ConnId,
        role: ChatRole,
    ) -> Result<(Option<UserId>, Option<String>), Refusal> {
        if let ChatRole::Player(color) = role {
            let user = self.state.user(color);
            return Ok((user.map(|u| u.id), user.map(|u| u.name.to_string())));
        }
        let Some(member) = self.crowd.get(conn) else {
            return Ok((None, None));
        };
        let Some(account) = member.account else {
            return Ok((None, None));
        };
        if let Some(name) = &member.chat.username {
            return Ok((Some(account), Some(name.clone())));
        }
        let record = self.deps.store.user_by_id(account).await.map_err(|error| {
            tracing::warn!(%error, "could not read a chat author's account");
            Refusal::new(ErrorCode::StoreFailure, "the game store failed; try again")
        })?;
        let name = record.map(|r| r.account.name.to_string());
        if let (Some(member), Some(name)) = (self.crowd.get_mut(conn), &name) {
            member.chat.username = Some(name.clone());
        }
        Ok((name.as_ref().map(|_| account), name))
    }

    /// A player starts or stops reading the spectators' room; starting sends its history (if it
    /// has lines). A
    /// spectator's `chat_watch` changes nothing (it reads that room anyway).
    pub(super) fn chat_watch(&mut self, conn: ConnId, spectator: bool) {
        let Some(member) = self.crowd.get_mut(conn) else {
            return;
        };
        if member.seat.is_none() {
            return;
        }
        let was = std::mem::replace(&mut member.chat.watches_spectators, spectator);
        if spectator && !was {
            self.send_room_history(conn, ChatRoom::Spectator);
        }
    }
}
