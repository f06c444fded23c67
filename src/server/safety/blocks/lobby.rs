//! The lobby chat with blocks (issue 32): a line reaches no channel of an account in a block
//! with its author ([`send_line`], the last step of the lobby's chat path, on every node), and
//! the history a channel gets on connect drops the lines of authors in a block with its reader
//! ([`history_for`]).

use super::check::relations;
use super::rules::Relations;
use crate::server::domain::user::{UserId, Username};
use crate::server::lobby::channel::hub::Hub;
use crate::server::lobby::channel::msg::LobbyMsg;
use crate::server::play::protocol::ChatLineMsg;
use crate::server::store::Store;

/// Sends `line` to every lobby channel but those of accounts in a block with its author:
/// `author` when the node that took the line knows it, else (a line from the bus) the account
/// its `user` names, read from the store.
pub async fn send_line(store: &dyn Store, hub: &Hub, line: ChatLineMsg, author: Option<UserId>) {
    let author = match (author, line.user.as_deref()) {
        (Some(author), _) => Some(author),
        (None, Some(name)) => author_of(store, name).await,
        (None, None) => None,
    };
    let hidden = match (author, line.user.is_some()) {
        (Some(author), _) => relations(store, Some(author)).await,
        // A signed-in author the store could not find: hidden from every account.
        (None, true) => Relations::Unknown(None),
        (None, false) => Relations::None,
    };
    hub.send_all_but(&LobbyMsg::Chat(line), &|reader| hidden.hides_reader(reader));
}

async fn author_of(store: &dyn Store, name: &str) -> Option<UserId> {
    let name = Username::parse(name).ok()?;
    match store.find_user(&name).await {
        Ok(record) => record.map(|r| r.account.id),
        Err(error) => {
            tracing::warn!(%error, "a lobby line's author could not be read");
            None
        }
    }
}

/// The lobby's `chat_history` for the channel of `reader`: without the lines of authors in a
/// block with them (`None` when nothing is left).
pub async fn history_for(
    store: &dyn Store,
    reader: Option<UserId>,
    history: Option<LobbyMsg>,
) -> Option<LobbyMsg> {
    let Some(LobbyMsg::ChatHistory(mut history)) = history else {
        return history;
    };
    let hidden = relations(store, reader).await;
    if !hidden.is_none() {
        history
            .lines
            .retain(|line| !hidden.hides_author(line.user.as_deref()));
    }
    if history.lines.is_empty() {
        return None;
    }
    Some(LobbyMsg::ChatHistory(history))
}
