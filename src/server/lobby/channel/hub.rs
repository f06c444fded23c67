//! Who has a lobby channel open: the signed-in users (each with one or more channels, one per
//! page) and the anonymous channels. It delivers to every channel of one user (challenge
//! notifications), counts the players online, and remembers when a user's last channel closed
//! (the challenger-left grace, [`crate::server::lobby::challenge`]).
//!
//! One mutex, never held across an await: every operation is a few map updates and
//! `try_send`s into bounded queues. A channel whose queue is full is dropped and marked lagged
//! (the game socket's rule, [`LocalFanout`]), so a slow page never slows anyone else.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::msg::{LobbyMsg, OnlineMsg};
use crate::server::play::room::fanout::{Fanout, LocalFanout};
use crate::server::play::room::{ConnId, Outbox};
use crate::server::players::account::UserId;
use crate::server::web::ratelimit::Client;

/// One user's open channels.
#[derive(Default)]
struct Channels {
    fanout: LocalFanout,
    /// Channels subscribed to `fanout` (it does not say).
    count: usize,
}

#[derive(Default)]
struct Inner {
    users: HashMap<UserId, Channels>,
    anonymous: LocalFanout,
    /// The address of each anonymous channel, and the channels open per address: the online
    /// figure counts an address once however many pages it opens (issue 34: 50 sockets of one
    /// address made the figure whatever it wanted).
    anonymous_at: HashMap<ConnId, Client>,
    anonymous_clients: HashMap<Client, usize>,
    /// Users whose last channel closed, and when (cleared when one opens again).
    left: HashMap<UserId, Instant>,
    /// The count last broadcast.
    announced: Option<u64>,
}

impl Inner {
    fn online(&self) -> u64 {
        (self.users.len() + self.anonymous_clients.len()) as u64
    }

    /// Forgets the anonymous channel `conn` (closed, or dropped as too slow).
    fn anonymous_gone(&mut self, conn: ConnId) {
        let Some(client) = self.anonymous_at.remove(&conn) else {
            return;
        };
        if let Some(open) = self.anonymous_clients.get_mut(&client) {
            *open = open.saturating_sub(1);
            if *open == 0 {
                self.anonymous_clients.remove(&client);
            }
        }
    }

    /// Forgets the channels `dropped` from `user`'s (dropped by the fanout as too slow).
    /// Queues `text` on every open channel, signed in or not; channels too slow to take it
    /// are dropped (and counted as gone).
    fn publish_all(&mut self, text: &Utf8Bytes) {
        self.publish_all_but(text, &|_| false);
    }

    /// [`Inner::publish_all`] but for the channels of the users `hidden` names.
    fn publish_all_but(&mut self, text: &Utf8Bytes, hidden: &dyn Fn(UserId) -> bool) {
        let now = Instant::now();
        for conn in self.anonymous.publish(text.clone()) {
            self.anonymous_gone(conn);
        }
        let users: Vec<UserId> = self.users.keys().copied().filter(|&u| !hidden(u)).collect();
        for user in users {
            let dropped = match self.users.get_mut(&user) {
                Some(channels) => channels.fanout.publish(text.clone()).len(),
                None => 0,
            };
            self.lost(user, dropped, now);
        }
    }

    fn lost(&mut self, user: UserId, dropped: usize, now: Instant) {
        if dropped == 0 {
            return;
        }
        if let Some(channels) = self.users.get_mut(&user) {
            channels.count = channels.count.saturating_sub(dropped);
            if channels.count == 0 {
                self.users.remove(&user);
                self.left.insert(user, now);
            }
        }
    }
}

/// Every open lobby channel of the server.
#[derive(Default)]
pub struct Hub {
    inner: Mutex<Inner>,
}

impl Hub {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding it leaves plain maps behind, still consistent enough to go on.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a channel: of `user`, or anonymous (counted online by its `client` address).
    pub fn open(&self, user: Option<UserId>, client: Client, conn: ConnId, outbox: Outbox) {
        let mut inner = self.lock();
        match user {
            Some(user) => {
                inner.left.remove(&user);
                let channels = inner.users.entry(user).or_default();
                channels.fanout.subscribe(conn, outbox);
                channels.count += 1;
            }
            None => {
                inner.anonymous.subscribe(conn, outbox);
                inner.anonymous_at.insert(conn, client);
                *inner.anonymous_clients.entry(client).or_insert(0) += 1;
            }
        }
    }

    /// Forgets a channel (it closed). When it was `user`'s last, the user counts as having left
    /// at `now`.
    pub fn close(&self, user: Option<UserId>, conn: ConnId, now: Instant) {
        let mut inner = self.lock();
        match user {
            Some(user) => {
                let removed = inner
                    .users
                    .get_mut(&user)
                    .is_some_and(|channels| channels.fanout.unsubscribe(conn));
                if removed {
                    inner.lost(user, 1, now);
                }
            }
            None => {
                inner.anonymous.unsubscribe(conn);
                inner.anonymous_gone(conn);
            }
        }
    }

    /// Players online now ([`OnlineMsg`]).
    pub fn online(&self) -> u64 {
        self.lock().online()
    }

    /// Whether `user` has a lobby channel open.
    pub fn is_present(&self, user: UserId) -> bool {
        self.lock().users.contains_key(&user)
    }

    /// Queues `msg` on every channel of `user` (none: nothing happens).
    pub fn send_to(&self, user: UserId, msg: &LobbyMsg) {
        self.send_text_to(user, Utf8Bytes::from(msg.to_text()));
    }

    /// [`Hub::send_to`] of a message already serialized (a notice from another node).
    pub fn send_text_to(&self, user: UserId, text: Utf8Bytes) {
        let mut inner = self.lock();
        let Some(channels) = inner.users.get_mut(&user) else {
            return;
        };
        let dropped = channels.fanout.publish(text).len();
        inner.lost(user, dropped, Instant::now());
    }

    /// Queues `msg` on one channel (what a channel is told when it opens).
    pub fn send_one(&self, user: Option<UserId>, conn: ConnId, msg: &LobbyMsg) {
        self.send_text(user, conn, msg.to_text());
    }

    /// [`Hub::send_one`] of a message already serialized (another feature's: the pools').
    pub fn send_text(&self, user: Option<UserId>, conn: ConnId, text: String) {
        let text = Utf8Bytes::from(text);
        let mut inner = self.lock();
        match user {
            Some(user) => {
                let Some(channels) = inner.users.get_mut(&user) else {
                    return;
                };
                if !channels.fanout.send(conn, text) {
                    inner.lost(user, 1, Instant::now());
                }
            }
            None => {
                if !inner.anonymous.send(conn, text) {
                    inner.anonymous_gone(conn);
                }
            }
        }
    }

    /// Queues `msg` on every open channel, signed in or not (a lobby chat line).
    pub fn send_all(&self, msg: &LobbyMsg) {
        self.send_text_all(&Utf8Bytes::from(msg.to_text()));
    }

    /// [`Hub::send_all`] but for the channels of the users `hidden` names (a chat line, to
    /// none of the accounts in a block with its author: issue 32).
    pub fn send_all_but(&self, msg: &LobbyMsg, hidden: &dyn Fn(UserId) -> bool) {
        let text = Utf8Bytes::from(msg.to_text());
        self.lock().publish_all_but(&text, hidden);
    }

    /// [`Hub::send_all`] of a message already serialized (a notice from another node).
    pub fn send_text_all(&self, text: &Utf8Bytes) {
        self.lock().publish_all(text);
    }

    /// This hub's anonymous addresses (each counted once) and the users with a channel open (what a node reports
    /// to the others, [`crate::server::cluster::lobby`]).
    pub fn snapshot(&self) -> (u64, Vec<UserId>) {
        let inner = self.lock();
        (
            inner.anonymous_clients.len() as u64,
            inner.users.keys().copied().collect(),
        )
    }

    /// Sends the `online` count to every channel if it changed since the last time; returns
    /// whether it did.
    pub fn announce_online(&self) -> bool {
        let count = self.online();
        self.announce(count)
    }

    /// [`Hub::announce_online`] of a count made elsewhere (summed over the nodes).
    pub fn announce(&self, count: u64) -> bool {
        let mut inner = self.lock();
        if inner.announced == Some(count) {
            return false;
        }
        inner.announced = Some(count);
        let text = Utf8Bytes::from(LobbyMsg::Online(OnlineMsg { count }).to_text());
        inner.publish_all(&text);
        // Channels dropped just now change the count again: the next period announces it.
        true
    }

    /// The users whose last channel closed at least `grace` before `now` and who have none
    /// open: they have left. Each is reported once.
    pub fn departed(&self, now: Instant, grace: Duration) -> Vec<UserId> {
        let mut inner = self.lock();
        let gone: Vec<UserId> = inner
            .left
            .iter()
            .filter(|(_, at)| now.saturating_duration_since(**at) >= grace)
            .map(|(user, _)| *user)
            .collect();
        for user in &gone {
            inner.left.remove(user);
        }
        gone
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::server::play::room::mailbox;

    fn outbox(capacity: usize) -> (Outbox, mailbox::Receiver<Utf8Bytes>, Arc<AtomicBool>) {
        let (queue, rx) = mailbox::channel(capacity);
        let lagged = Arc::new(AtomicBool::new(false));
        let outbox = Outbox {
            queue,
            lagged: Arc::clone(&lagged),
        };
        (outbox, rx, lagged)
    }

    const ALICE: UserId = UserId(1);
    const BOB: UserId = UserId(2);
    const AT: Client = Client::V4(0x7f00_0002);
    const ELSEWHERE: Client = Client::V4(0x7f00_0003);

    #[test]
    fn anonymous_channels_of_one_address_count_once_online_until_the_last_closes() {
        let hub = Hub::default();
        let mut keep = Vec::new();
        for conn in 0..50 {
            let (o, rx, _) = outbox(8);
            keep.push(rx);
            hub.open(None, AT, conn, o);
        }
        assert_eq!(hub.online(), 1, "50 pages of one address");
        let (o, _r, _) = outbox(8);
        hub.open(None, ELSEWHERE, 99, o);
        assert_eq!(hub.online(), 2);
        let now = Instant::now();
        for conn in 0..49 {
            hub.close(None, conn, now);
        }
        assert_eq!(
            hub.online(),
            2,
            "one page of the first address is still open"
        );
        hub.close(None, 49, now);
        assert_eq!(hub.online(), 1);
    }

    #[test]
    fn online_counts_distinct_users_and_anonymous_addresses() {
        let hub = Hub::default();
        let (a1, _r1, _) = outbox(8);
        let (a2, _r2, _) = outbox(8);
        let (b, _r3, _) = outbox(8);
        let (x, _r4, _) = outbox(8);
        hub.open(Some(ALICE), AT, 1, a1);
        hub.open(Some(ALICE), AT, 2, a2);
        hub.open(Some(BOB), AT, 3, b);
        hub.open(None, AT, 4, x);
        assert_eq!(hub.online(), 3);
        let now = Instant::now();
        hub.close(Some(ALICE), 1, now);
        assert_eq!(hub.online(), 3, "alice still has a page open");
        hub.close(Some(ALICE), 2, now);
        hub.close(None, 4, now);
        assert_eq!(hub.online(), 1);
        hub.close(None, 4, now);
        assert_eq!(hub.online(), 1, "closing twice counts once");
    }

    #[test]
    fn a_user_leaves_only_once_their_last_channel_closed_for_the_grace() {
        let hub = Hub::default();
        let grace = Duration::from_secs(5);
        let t0 = Instant::now();
        let (a1, _r1, _) = outbox(8);
        hub.open(Some(ALICE), AT, 1, a1);
        hub.close(Some(ALICE), 1, t0);
        assert!(hub.departed(t0 + Duration::from_secs(4), grace).is_empty());
        // A reload: a new channel within the grace.
        let (a2, _r2, _) = outbox(8);
        hub.open(Some(ALICE), AT, 2, a2);
        assert!(hub.departed(t0 + Duration::from_secs(9), grace).is_empty());
        hub.close(Some(ALICE), 2, t0 + Duration::from_secs(10));
        assert_eq!(hub.departed(t0 + Duration::from_secs(15), grace), [ALICE]);
        assert!(
            hub.departed(t0 + Duration::from_secs(20), grace).is_empty(),
            "reported once"
        );
    }

    #[test]
    fn a_message_for_a_user_reaches_every_channel_of_theirs_and_no_one_else() {
        let hub = Hub::default();
        let (a1, mut r1, _) = outbox(8);
        let (a2, mut r2, _) = outbox(8);
        let (b, mut r3, _) = outbox(8);
        hub.open(Some(ALICE), AT, 1, a1);
        hub.open(Some(ALICE), AT, 2, a2);
        hub.open(Some(BOB), AT, 3, b);
        hub.send_to(ALICE, &LobbyMsg::Online(OnlineMsg { count: 9 }));
        assert!(r1.try_recv().is_ok());
        assert!(r2.try_recv().is_ok());
        assert!(r3.try_recv().is_err());
    }

    #[test]
    fn a_channel_whose_queue_is_full_is_dropped_lagged_and_no_longer_counted() {
        let hub = Hub::default();
        let (slow, _rx, lagged) = outbox(1);
        hub.open(Some(ALICE), AT, 1, slow);
        let msg = LobbyMsg::Online(OnlineMsg { count: 1 });
        hub.send_to(ALICE, &msg);
        hub.send_to(ALICE, &msg);
        assert!(lagged.load(Ordering::Relaxed));
        assert_eq!(hub.online(), 0);
        assert!(!hub.is_present(ALICE));
        // Its socket then closes it: nothing is counted twice.
        hub.close(Some(ALICE), 1, Instant::now());
        assert_eq!(hub.online(), 0);
    }

    #[test]
    fn a_message_for_all_reaches_every_channel_signed_in_or_not() {
        let hub = Hub::default();
        let (a, mut ra, _) = outbox(8);
        let (b, mut rb, _) = outbox(8);
        let (x, mut rx, _) = outbox(8);
        hub.open(Some(ALICE), AT, 1, a);
        hub.open(Some(BOB), AT, 2, b);
        hub.open(None, AT, 3, x);
        hub.send_all(&LobbyMsg::Online(OnlineMsg { count: 9 }));
        assert!(ra.try_recv().is_ok());
        assert!(rb.try_recv().is_ok());
        assert!(rx.try_recv().is_ok());
    }

    #[test]
    fn the_online_count_is_announced_only_when_it_changed() {
        let hub = Hub::default();
        let (x, mut rx, _) = outbox(8);
        hub.open(None, AT, 1, x);
        assert!(hub.announce_online());
        assert!(!hub.announce_online());
        assert_eq!(
            rx.try_recv().ok().map(|t| t.to_string()),
            Some(r#"{"t":"online","d":{"count":1}}"#.to_string())
        );
        let (y, _ry, _) = outbox(8);
        hub.open(None, ELSEWHERE, 2, y);
        assert!(hub.announce_online());
        assert_eq!(
            rx.try_recv().ok().map(|t| t.to_string()),
            Some(r#"{"t":"online","d":{"count":2}}"#.to_string())
        );
    }
}
