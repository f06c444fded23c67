//! Delivering a room's messages to its subscribers: each has a bounded queue, offered with
//! `try_send` so that the room never waits for a client; one that cannot keep up is dropped
//! (marked lagged, its socket closes with 1013 and the client reconnects with its last `v`).
//!
//! The room talks to a [`Fanout`] only: this node's subscribers are [`LocalFanout`]; a
//! cross-node bus (Redis) can implement the same interface, publishing each text once to the
//! other nodes as well.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::mailbox;

/// A connection to a room: a socket, or an in-process agent (a computer player).
pub type ConnId = u64;

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// A fresh connection id, unique in this process (sockets and agents draw from the same).
pub fn next_conn() -> ConnId {
    NEXT_CONN.fetch_add(1, Ordering::Relaxed)
}

/// A subscriber's side of the room: where to send it messages.
pub struct Outbox {
    pub queue: mailbox::Sender<Utf8Bytes>,
    /// Set by the room when it drops the subscriber because its queue was full.
    pub lagged: Arc<AtomicBool>,
}

/// Where a room's messages go.
pub trait Fanout: Send {
    fn subscribe(&mut self, conn: ConnId, outbox: Outbox);
    fn unsubscribe(&mut self, conn: ConnId) -> bool;
    /// Sends to one subscriber; false when it is gone or was dropped for being too slow.
    fn send(&mut self, conn: ConnId, text: Utf8Bytes) -> bool;
    /// Sends to every subscriber (the text is reference-counted, never copied); returns those
    /// dropped for being too slow or gone.
    fn publish(&mut self, text: Utf8Bytes) -> Vec<ConnId>;
    /// How many more messages `conn`'s queue takes now.
    fn room_left(&self, conn: ConnId) -> usize;
}

/// This node's subscribers of one room.
#[derive(Default)]
pub struct LocalFanout {
    subs: HashMap<ConnId, Outbox>,
}

impl Fanout for LocalFanout {
    fn subscribe(&mut self, conn: ConnId, outbox: Outbox) {
        self.subs.insert(conn, outbox);
    }

    fn unsubscribe(&mut self, conn: ConnId) -> bool {
        self.subs.remove(&conn).is_some()
    }

    fn send(&mut self, conn: ConnId, text: Utf8Bytes) -> bool {
        let Some(outbox) = self.subs.get(&conn) else {
            return false;
        };
        if offer(outbox, text) {
            return true;
        }
        self.subs.remove(&conn);
        false
    }

    fn publish(&mut self, text: Utf8Bytes) -> Vec<ConnId> {
        let dropped: Vec<ConnId> = self
            .subs
            .iter()
            .filter(|(_, outbox)| !offer(outbox, text.clone()))
            .map(|(conn, _)| *conn)
            .collect();
        for conn in &dropped {
            self.subs.remove(conn);
        }
        dropped
    }

    fn room_left(&self, conn: ConnId) -> usize {
        self.subs.get(&conn).map_or(0, |o| o.queue.capacity())
    }
}

/// Queues `text` for one subscriber; false when it is gone or too slow (then it is marked
/// lagged so that it closes with a reason).
fn offer(outbox: &Outbox, text: Utf8Bytes) -> bool {
    match outbox.queue.try_send(text) {
        Ok(()) => true,
        Err(mailbox::TrySendError::Full(_)) => {
            outbox.lagged.store(true, Ordering::Relaxed);
            false
        }
        Err(mailbox::TrySendError::Closed(_)) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outbox(capacity: usize) -> (Outbox, mailbox::Receiver<Utf8Bytes>, Arc<AtomicBool>) {
        let (queue, rx) = mailbox::channel(capacity);
        let lagged = Arc::new(AtomicBool::new(false));
        (
            Outbox {
                queue,
                lagged: Arc::clone(&lagged),
            },
            rx,
            lagged,
        )
    }

    #[test]
    fn a_subscriber_whose_queue_is_full_is_dropped_and_marked_lagged() {
        let mut fanout = LocalFanout::default();
        let (fast, mut fast_rx, _) = outbox(8);
        let (slow, _slow_rx, slow_lagged) = outbox(1);
        fanout.subscribe(1, fast);
        fanout.subscribe(2, slow);
        assert!(fanout.publish(Utf8Bytes::from("a")).is_empty());
        assert_eq!(fanout.publish(Utf8Bytes::from("b")), vec![2]);
        assert!(slow_lagged.load(Ordering::Relaxed));
        assert!(!fanout.send(2, Utf8Bytes::from("c")), "dropped");
        assert_eq!(fast_rx.try_recv().ok(), Some(Utf8Bytes::from("a")));
        assert_eq!(fast_rx.try_recv().ok(), Some(Utf8Bytes::from("b")));
    }
}
