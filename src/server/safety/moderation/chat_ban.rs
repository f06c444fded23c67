//! The chat ban's check, called with one line by every chat path (a game room's
//! `chat_line`, the lobby's `say`) after the room is allowed and before anything else is
//! spent: a banned account's line is refused with `chat_banned` (the reason and until when)
//! and reaches nobody. Read from the store at each line, so a ban given on any node holds on
//! every node at once (chat lines are rate limited: the read is cheap and bounded).

use crate::server::domain::user::UserId;
use crate::server::game::now_ms;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::store::Store;

use super::rules::ban_message;

/// `Ok` for an anonymous writer (a ban is an account's) or an account without a ban holding
/// now; `chat_banned` otherwise. A store that cannot say refuses the line (`store_failure`):
/// a ban must not be skipped because the store hiccuped.
pub async fn refuse_if_banned(store: &dyn Store, user: Option<UserId>) -> Result<(), Refusal> {
    let Some(user) = user else {
        return Ok(());
    };
    match store.chat_ban(user, now_ms()).await {
        Ok(None) => Ok(()),
        Ok(Some(ban)) => Err(Refusal::new(ErrorCode::ChatBanned, ban_message(&ban))),
        Err(error) => {
            tracing::warn!(%error, "could not read a chat ban");
            Err(Refusal::new(
                ErrorCode::StoreFailure,
                "the chat line could not be checked; nobody got it, try again",
            ))
        }
    }
}
