//! A bounded queue with one reader: a connection's outgoing messages (offered without waiting:
//! a room never waits for a client) and a room's commands (a sender waits for room).
//!
//! Every socket and every room holds one for as long as it lives, so its size counts a hundred
//! thousand times. tokio's bounded channel, which this replaces, allocates its first block of
//! 32 slots when it is made and pads its shared state to cache lines: about 1.5 KiB per
//! connection, idle or not, and 0.8 KiB per room (boxed commands). Here the shared state is a
//! mutex, a queue and two [`Notify`]s (about 170 bytes), and the queue holds only what is
//! waiting, down to a few slots once it drains.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// The slots a drained queue may keep: a queue that held a burst gives the rest back.
const KEEP: usize = 4;

/// A queue of at most `capacity` messages.
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            items: VecDeque::new(),
            capacity,
            senders: 1,
            receiving: true,
        }),
        ready: Notify::new(),
        space: Notify::new(),
    });
    (Sender(Arc::clone(&shared)), Receiver(shared))
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// Wakes the receiver: a message came, or the last sender left.
    ready: Notify,
    /// Wakes the senders waiting in [`Sender::send`]: a full queue was read from, or the
    /// receiver left.
    space: Notify,
}

struct State<T> {
    items: VecDeque<T>,
    capacity: usize,
    senders: usize,
    /// False once the receiver is gone: nothing more is taken.
    receiving: bool,
}

impl<T> Shared<T> {
    /// The lock is held only for a push or a pop, which cannot panic halfway: a poisoned lock's
    /// state is whole.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why a message was not queued; it is given back.
#[derive(Debug, PartialEq, Eq)]
pub enum TrySendError<T> {
    /// The queue holds `capacity` messages already.
    Full(T),
    /// The receiver is gone.
    Closed(T),
}

/// The receiver is gone; the message is given back.
#[derive(Debug, PartialEq, Eq)]
pub struct Closed<T>(pub T);

/// Why nothing was taken.
#[derive(Debug, PartialEq, Eq)]
pub enum TryRecvError {
    Empty,
    /// Empty, and every sender is gone.
    Disconnected,
}

/// The queuing side; cloned for each holder (the queue ends when the last one goes).
pub struct Sender<T>(Arc<Shared<T>>);

impl<T> Sender<T> {
    /// Queues `item` now, or gives it back.
    pub fn try_send(&self, item: T) -> Result<(), TrySendError<T>> {
        let mut state = self.0.lock();
        if !state.receiving {
            return Err(TrySendError::Closed(item));
        }
        if state.items.len() >= state.capacity {
            return Err(TrySendError::Full(item));
        }
        state.items.push_back(item);
        drop(state);
        self.0.ready.notify_one();
        Ok(())
    }

    /// Queues `item`, waiting while the queue is full; refused once the receiver is gone.
    /// Senders that wait are not served in order.
    pub async fn send(&self, item: T) -> Result<(), Closed<T>> {
        let mut item = item;
        loop {
            // Registered before the check: a read between the check and the wait wakes it.
            let space = self.0.space.notified();
            tokio::pin!(space);
            space.as_mut().enable();
            match self.try_send(item) {
                Ok(()) => return Ok(()),
                Err(TrySendError::Closed(back)) => return Err(Closed(back)),
                Err(TrySendError::Full(back)) => {
                    item = back;
                    space.await;
                }
            }
        }
    }

    /// How many more messages it takes now.
    pub fn capacity(&self) -> usize {
        let state = self.0.lock();
        state.capacity.saturating_sub(state.items.len())
    }

    /// Whether the receiver is gone.
    pub fn is_closed(&self) -> bool {
        !self.0.lock().receiving
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.0.lock().senders += 1;
        Sender(Arc::clone(&self.0))
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.senders -= 1;
        let last = state.senders == 0;
        drop(state);
        if last {
            self.0.ready.notify_one();
        }
    }
}

/// The reading side, held by the connection's task.
pub struct Receiver<T>(Arc<Shared<T>>);

impl<T> Receiver<T> {
    /// The next message; `None` once the queue is empty and every sender is gone. Cancel-safe:
    /// a message is taken only when this returns it.
    pub async fn recv(&mut self) -> Option<T> {
        loop {
            match self.try_recv() {
                Ok(item) => return Some(item),
                Err(TryRecvError::Disconnected) => return None,
                // A message queued between this check and the wait leaves a permit in
                // `ready`, so the wait returns at once.
                Err(TryRecvError::Empty) => self.0.ready.notified().await,
            }
        }
    }

    /// The next message if one is queued.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let mut state = self.0.lock();
        let was_full = state.items.len() >= state.capacity;
        match state.items.pop_front() {
            Some(item) => {
                if state.items.is_empty() && state.items.capacity() > KEEP {
                    state.items = VecDeque::new();
                }
                drop(state);
                if was_full {
                    self.0.space.notify_waiters();
                }
                Ok(item)
            }
            None if state.senders == 0 => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.receiving = false;
        // Dropped here, not when the last sender goes.
        let items = std::mem::take(&mut state.items);
        drop(state);
        drop(items);
        self.0.space.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_come_out_in_order_up_to_the_capacity_and_then_the_queue_is_full() {
        let (tx, mut rx) = channel(3);
        for n in 0..3 {
            assert_eq!(tx.try_send(n), Ok(()));
        }
        assert_eq!(tx.capacity(), 0);
        assert_eq!(tx.try_send(3), Err(TrySendError::Full(3)));
        assert_eq!(rx.try_recv(), Ok(0));
        assert_eq!(tx.capacity(), 1);
        assert_eq!(tx.try_send(4), Ok(()));
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(rx.try_recv(), Ok(2));
        assert_eq!(rx.try_recv(), Ok(4));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    }

    #[test]
    fn the_queue_ends_when_the_last_sender_goes_after_what_it_holds_is_read() {
        let (tx, mut rx) = channel(4);
        let other = tx.clone();
        tx.try_send("a").expect("queued");
        drop(tx);
        assert_eq!(rx.try_recv(), Ok("a"));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty), "a sender is left");
        other.try_send("b").expect("queued");
        drop(other);
        assert_eq!(rx.try_recv(), Ok("b"));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    }

    #[test]
    fn a_sender_whose_receiver_is_gone_is_refused_with_closed() {
        let (tx, rx) = channel(4);
        drop(rx);
        assert!(tx.is_closed());
        assert_eq!(tx.try_send(1), Err(TrySendError::Closed(1)));
    }

    #[test]
    fn a_drained_queue_gives_back_the_slots_of_a_burst() {
        let (tx, mut rx) = channel(100);
        for n in 0..50 {
            tx.try_send(n).expect("queued");
        }
        while rx.try_recv().is_ok() {}
        assert!(rx.0.lock().items.capacity() <= KEEP);
    }

    #[tokio::test]
    async fn a_waiting_receiver_wakes_for_a_message_and_for_the_last_sender_leaving() {
        let (tx, mut rx) = channel(4);
        let reader = tokio::spawn(async move {
            let first = rx.recv().await;
            let end = rx.recv().await;
            (first, end)
        });
        // One thread: the reader runs until it waits, each time.
        tokio::task::yield_now().await;
        tx.try_send(7).expect("queued");
        tokio::task::yield_now().await;
        drop(tx);
        assert_eq!(reader.await.expect("joined"), (Some(7), None));
    }

    #[tokio::test]
    async fn a_sender_waits_while_the_queue_is_full_and_is_refused_once_the_receiver_is_gone() {
        let (tx, mut rx) = channel(1);
        tx.send(1).await.expect("room");
        let waiting = tokio::spawn({
            let tx = tx.clone();
            async move { tx.send(2).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "the queue is full");
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(waiting.await.expect("joined"), Ok(()));
        assert_eq!(rx.recv().await, Some(2));
        // Full again, then the receiver goes: the waiting sender gets its message back.
        tx.send(3).await.expect("room");
        let refused = tokio::spawn({
            let tx = tx.clone();
            async move { tx.send(4).await }
        });
        tokio::task::yield_now().await;
        drop(rx);
        assert_eq!(refused.await.expect("joined"), Err(Closed(4)));
    }

    #[tokio::test]
    async fn a_wait_given_up_after_its_wake_up_loses_no_message() {
        let (tx, mut rx) = channel(4);
        let mut waiting = Box::pin(rx.recv());
        assert!(futures_util::poll!(&mut waiting).is_pending());
        // Woken, then dropped unread, as a `select!` does when another branch wins.
        tx.try_send(1).expect("queued");
        drop(waiting);
        assert_eq!(rx.recv().await, Some(1));
    }
}
