//! Blocks in a game's room (issue 32, [`crate::server::safety::blocks`]): a chat line reaches no
//! reader in a block with its author ([`RoomTask::send_chat_line`], the last step of the chat
//! path), the history a connection gets drops the lines of authors in a block with it (its
//! relations read when it connects), and nobody takes the seat of an open game whose player
//! is in a block with them ([`RoomTask::refuse_blocked_join`]).

use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::RoomTask;
use super::fanout::ConnId;
use crate::rules::Color;
use crate::server::chat::ChatRoom;
use crate::server::play::protocol::{ChatLineMsg, Refusal};
use crate::server::players::account::{Account, UserId};
use crate::server::safety::blocks::check;

impl RoomTask {
    /// The accounts a connection reads as: its session's, and its seat's.
    fn reader_accounts(&self, conn: ConnId) -> Vec<UserId> {
        let Some(member) = self.crowd.get(conn) else {
            return Vec::new();
        };
        let seat = member
            .seat
            .and_then(|color| self.state.user(color))
            .map(|u| u.id);
        member.account.into_iter().chain(seat).collect()
    }

    /// Sends a stored line (`text`, serialized once) to every connection that reads `room`,
    /// but those of accounts in a block with its `author`, read from the store now.
    pub(super) async fn send_chat_line(
        &mut self,
        room: ChatRoom,
        text: Utf8Bytes,
        author: Option<UserId>,
    ) {
        let hidden = check::relations(&*self.deps.store, author).await;
        for reader in self.crowd.conns() {
            if !self.reads(reader, room) {
                continue;
            }
            if !hidden.is_none()
                && self
                    .reader_accounts(reader)
                    .iter()
                    .any(|&user| hidden.hides_reader(user))
            {
                continue;
            }
            self.send_bytes(reader, text.clone());
        }
    }

    /// Reads, as `conn` connects, the relations of the accounts it will read as (its session's,
    /// and the seat's its token or its account holds): its chat history leaves out their lines.
    pub(super) async fn read_chat_relations(&mut self, conn: ConnId, token: Option<&str>) {
        let mut users = self.reader_accounts(conn);
        let seat = token.and_then(|t| self.state.seat_of(t)).or_else(|| {
            let account = self.crowd.get(conn)?.account?;
            self.state.seat_of_user(account)
        });
        if let Some(user) = seat.and_then(|color| self.state.user(color)) {
            users.push(user.id);
        }
        let relations = check::relations_of_all(&*self.deps.store, &users).await;
        if let Some(member) = self.crowd.get_mut(conn) {
            member.chat.blocks = relations;
        }
    }

    /// Whether `conn`'s history shows `line`.
    pub(super) fn history_shows(&self, conn: ConnId, line: &ChatLineMsg) -> bool {
        self.crowd
            .get(conn)
            .is_none_or(|member| !member.chat.blocks.hides_author(line.user.as_deref()))
    }

    /// `not_possible` when `account` would sit down against a player in a block with them.
    pub(super) async fn refuse_blocked_join(
        &mut self,
        account: Option<&Account>,
    ) -> Result<(), Refusal> {
        let Some(account) = account else {
            return Ok(());
        };
        let seated: Vec<UserId> = Color::ALL
            .into_iter()
            .filter_map(|color| self.state.user(color).map(|u| u.id))
            .collect();
        let store = std::sync::Arc::clone(&self.deps.store);
        for user in seated {
            check::refuse_between(&*store, user, account.id).await?;
        }
        Ok(())
    }
}
