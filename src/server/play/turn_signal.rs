//! The signal the games send when an account's `your_turn` list may have changed: the rooms
//! notify, "my games" listens. It lives beside the games, so that they tell it without knowing
//! who listens.

use crate::server::domain::user::UserId;

/// Who may have a new `your_turn` list: a room sends the seated accounts of a correspondence
/// game after it committed a turn's end, a join, a takeback or the end; the pusher
/// ([`crate::server::players::my_games::spawn_pusher`]) reads their list from the store and sends it to their lobby channels.
/// A broadcast channel of bounded size: a burst beyond it loses notices (logged), never blocks
/// a room.
pub struct TurnSignal {
    tx: tokio::sync::broadcast::Sender<UserId>,
}

/// Notices waiting for the pusher at most.
const SIGNAL_CAPACITY: usize = 4096;

impl Default for TurnSignal {
    fn default() -> TurnSignal {
        let (tx, _) = tokio::sync::broadcast::channel(SIGNAL_CAPACITY);
        TurnSignal { tx }
    }
}

impl TurnSignal {
    pub fn notify(&self, user: UserId) {
        // No receiver (no lobby running, as in some tests): nobody to tell.
        let _ = self.tx.send(user);
    }

    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<UserId> {
        self.tx.subscribe()
    }
}
