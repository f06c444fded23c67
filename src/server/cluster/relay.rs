//! A relay: this node's stand-in for a game owned by another node. It is a task behind the
//! same [`Room`] handle as a room (so sockets, HTTP handlers and agents use it unchanged); it
//! keeps its local subscribers and forwards their commands to the owner's lane, and hands
//! them what the owner delivers for them, in order (`seq`).
//!
//! Whenever it cannot be sure its sockets got everything (a `seq` gap, a lane gap, the game
//! moved, its owner died) it resyncs by reconnecting: it closes its sockets with 1012 and
//! forgets itself; clients reconnect with their last `v`, the next lookup finds the current
//! owner, and the owner's room brings them up to date from its history (or a `state`).
//!
//! A `seq` gap shows only when a later message comes, and a player waiting for the other's
//! move gets none: so while its sockets hear nothing for [`check_after`], the relay asks the
//! owner what it has sent each of them (`Check`), and resyncs if the owner sent more than
//! arrived or does not know a socket. (Seen in the cluster crash test: a player's relay on a
//! node restarted twice in three seconds waited 10 s, once over 60 s, for a move its owner
//! had acknowledged. The loss found since, a room orphaned by the lease pass's adopt, is fixed
//! in `Rooms::adopt`; the check stays as the net for any other.)

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::lane::{AskReply, AskWhat, LaneMsg, RelayIn, WireAccount};
use super::link::Link;
use crate::server::play::protocol::{ClientMsg, ErrorCode, GameSnapshot, Refusal};
use crate::server::play::room::{Command, ConnId, Outbox, Room, mailbox};

/// Commands a relay's inbox holds before senders wait (as a room's).
const INBOX: usize = 256;

/// How long a relayed move may go without the owner saying anything to its socket before the
/// relay resyncs. A safety net: every known way of losing a request (a Redis restart, a bus
/// that dropped, an owner restarted or dead) already resyncs; this one catches the unknown
/// ones, so that no move waits forever. An owner answers a move within milliseconds.
const MOVE_SILENCE: Duration = Duration::from_secs(10);

/// How long a relay's sockets may hear nothing before it checks with the owner that nothing
/// was lost: half of `--lease-secs` (5 s by default, 1 s in the test clusters). An idle
/// relayed game costs one `Check` and its answer on the bus per period; a busy one none.
pub fn check_after(lease: Duration) -> Duration {
    (lease / 2).max(Duration::from_millis(100))
}

/// A local socket of the relay.
struct Sub {
    outbox: Outbox,
    /// The last `seq` delivered to it.
    seq: u64,
    /// When it sent a move that nothing has been delivered to it since.
    move_sent: Option<Instant>,
}

/// Starts a relay for `game` towards `owner` and returns its handle.
pub fn spawn(
    link: &Arc<Link>,
    game: &str,
    owner: &str,
    instance: u64,
    retire_after: Duration,
    shutdown: watch::Receiver<bool>,
) -> Arc<Room> {
    let (tx, rx) = mailbox::channel(INBOX);
    let (lane_tx, lane_rx) = mpsc::unbounded_channel();
    let moved = Arc::new(AtomicBool::new(false));
    let room = Room::relay_handle(game.to_owned(), instance, tx, Arc::clone(&moved));
    link.add_relay(game, instance, owner, lane_tx.clone());
    let task = RelayTask {
        link: Arc::clone(link),
        game: game.to_owned(),
        owner: owner.to_owned(),
        instance,
        subs: HashMap::new(),
        moved,
        lane_tx,
        idle_since: Instant::now(),
        retire_after,
        heard: Instant::now(),
        checking: false,
        check_after: check_after(link.lease),
    };
    tokio::spawn(task.run(rx, lane_rx, shutdown));
    room
}

struct RelayTask {
    link: Arc<Link>,
    game: String,
    owner: String,
    instance: u64,
    subs: HashMap<ConnId, Sub>,
    moved: Arc<AtomicBool>,
    /// Its own lane inbox, for the tasks waiting on an answer that found the game moved.
    lane_tx: mpsc::UnboundedSender<RelayIn>,
    idle_since: Instant,
    retire_after: Duration,
    /// When its sockets last heard from the owner (or a check last ended).
    heard: Instant,
    /// A `Check` is on its way.
    checking: bool,
    check_after: Duration,
}

impl RelayTask {
    async fn run(
        mut self,
        mut rx: mailbox::Receiver<Box<Command>>,
        mut lane: mpsc::UnboundedReceiver<RelayIn>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        loop {
            let retire = self
                .subs
                .is_empty()
                .then(|| self.idle_since + self.retire_after);
            let silence = self
                .subs
                .values()
                .filter_map(|s| s.move_sent)
                .min()
                .map(|sent| sent + MOVE_SILENCE);
            let check =
                (!self.subs.is_empty() && !self.checking).then(|| self.heard + self.check_after);
            tokio::select! {
                biased;
                _ = shutdown.changed() => break,
                input = lane.recv() => match input {
                    Some(RelayIn::Resync) | None => {
                        self.resync();
                        break;
                    }
                    Some(input) => self.on_lane(input),
                },
                command = rx.recv() => match command {
                    Some(command) => {
                        if self.on_command(*command) {
                            self.resync();
                            break;
                        }
                    }
                    None => break,
                },
                _ = sleep_until(retire), if retire.is_some() => break,
                _ = sleep_until(silence), if silence.is_some() => {
                    tracing::warn!(game = %self.game, "a relayed move got no answer; resyncing");
                    self.resync();
                    break;
                }
                _ = sleep_until(check), if check.is_some() => self.check(),
            }
        }
        self.link.forget_relay(&self.game, self.instance);
    }

    fn publish(&self, msg: LaneMsg) {
        self.link.publish(&self.owner, &msg);
    }

    fn from(&self) -> String {
        self.link.node.to_string()
    }

    /// Handles one command; true when the relay must resync.
    fn on_command(&mut self, command: Command) -> bool {
        match command {
            Command::Connect {
                conn,
                token,
                account,
                since,
                outbox,
                done,
            } => {
                self.heard = Instant::now();
                self.subs.insert(
                    conn,
                    Sub {
                        outbox,
                        seq: 0,
                        move_sent: None,
                    },
                );
                self.publish(LaneMsg::Connect {
                    game: self.game.clone(),
                    from: self.from(),
                    conn,
                    token,
                    account: account.map(|a| a.0),
                    since,
                });
                // The lane keeps order: the owner's room sees the connect before any act.
                let _ = done.send(());
            }
            // The computer's driver runs on the game's owner, never behind a relay.
            Command::ConnectComputer { .. } => {}
            Command::Disconnect { conn } => self.leave(conn),
            Command::Act { conn, msg, rtt, .. } => {
                if let Some(sub) = self.subs.get_mut(&conn) {
                    if matches!(msg, ClientMsg::Move { .. }) && sub.move_sent.is_none() {
                        sub.move_sent = Some(Instant::now());
                    }
                    self.publish(LaneMsg::Act {
                        game: self.game.clone(),
                        from: self.from(),
                        conn,
                        msg: msg.to_text(),
                        rtt: rtt.map(Into::into),
                    });
                }
            }
            Command::Join { account, reply } => {
                let what = AskWhat::Join {
                    account: account.as_ref().map(WireAccount::of),
                };
                self.ask(what, move |answer| {
                    let grant = match answer {
                        Some(AskReply::Join { grant }) => grant.map_err(Refusal::from),
                        _ => Err(unavailable()),
                    };
                    let _ = reply.send(grant);
                });
            }
            Command::Snapshot { reply } => self.ask(AskWhat::Snapshot, move |answer| {
                if let Some(AskReply::Snapshot { snapshot }) = answer {
                    let snapshot: GameSnapshot = *snapshot;
                    let _ = reply.send(snapshot);
                }
            }),
            Command::Pgn { reply } => self.ask(AskWhat::Pgn, move |answer| {
                if let Some(AskReply::Pgn { pgn }) = answer {
                    let _ = reply.send(pgn);
                }
            }),
            Command::Moved => return true,
        }
        false
    }

    /// Asks the owner (in a task of its own: the relay goes on meanwhile); an answer saying
    /// the game moved makes the relay resync.
    fn ask(&self, what: AskWhat, then: impl FnOnce(Option<AskReply>) + Send + 'static) {
        let link = Arc::clone(&self.link);
        let owner = self.owner.clone();
        let game = self.game.clone();
        let me = self.lane_tx.clone();
        tokio::spawn(async move {
            let answer = link.ask(&owner, &game, what).await;
            if matches!(answer, Some(AskReply::Moved)) {
                let _ = me.send(RelayIn::Resync);
            }
            then(answer);
        });
    }

    /// Asks the owner what it sent each socket (see the module comment).
    fn check(&mut self) {
        self.checking = true;
        let conns: Vec<ConnId> = self.subs.keys().copied().collect();
        let me = self.lane_tx.clone();
        let what = AskWhat::Check {
            conns: conns.clone(),
        };
        self.ask(what, move |answer| {
            let sent = match answer {
                Some(AskReply::Check { sent }) => Some(sent),
                _ => None,
            };
            let _ = me.send(RelayIn::Checked { conns, sent });
        });
    }

    /// True if the owner's answer to a `Check` shows a socket that missed something: the
    /// answer came on the lane after every `Deliver` it counts, so those have arrived by now
    /// unless they were lost.
    fn missed(&self, conns: &[ConnId], sent: &[Option<u64>]) -> bool {
        conns.iter().zip(sent).any(|(conn, sent)| {
            self.subs
                .get(conn)
                .is_some_and(|sub| sent.is_none_or(|sent| sent > sub.seq))
        })
    }

    fn leave(&mut self, conn: ConnId) {
        if self.subs.remove(&conn).is_some() {
            self.publish(LaneMsg::Disconnect {
                game: self.game.clone(),
                from: self.from(),
                conn,
            });
            if self.subs.is_empty() {
                self.idle_since = Instant::now();
            }
        }
    }

    fn on_lane(&mut self, input: RelayIn) {
        match input {
            RelayIn::Deliver { conn, seq, text } => {
                let Some(sub) = self.subs.get_mut(&conn) else {
                    return;
                };
                if seq != sub.seq + 1 {
                    tracing::info!(game = %self.game, conn, "a relayed message was lost; resyncing");
                    // Handled as a resync of the whole relay by the caller's next turn.
                    let _ = self.lane_tx.send(RelayIn::Resync);
                    return;
                }
                sub.seq = seq;
                sub.move_sent = None;
                self.heard = Instant::now();
                match sub.outbox.queue.try_send(Utf8Bytes::from(text)) {
                    Ok(()) => {}
                    Err(mailbox::TrySendError::Full(_)) => {
                        sub.outbox.lagged.store(true, Ordering::Relaxed);
                        self.leave(conn);
                    }
                    Err(mailbox::TrySendError::Closed(_)) => self.leave(conn),
                }
            }
            RelayIn::Ended { conn, lagged } => {
                if let Some(sub) = self.subs.remove(&conn) {
                    if lagged {
                        sub.outbox.lagged.store(true, Ordering::Relaxed);
                    }
                    if self.subs.is_empty() {
                        self.idle_since = Instant::now();
                    }
                }
            }
            RelayIn::Checked { conns, sent } => {
                self.checking = false;
                self.heard = Instant::now();
                // No answer in time: no verdict (a dead owner is the lease loop's to find).
                if sent.is_some_and(|sent| self.missed(&conns, &sent)) {
                    tracing::info!(game = %self.game, "the owner sent what a relayed socket did not get; resyncing");
                    let _ = self.lane_tx.send(RelayIn::Resync);
                }
            }
            RelayIn::Resync => {}
        }
    }

    /// Closes every socket with 1012 (they reconnect with their last `v`) and tells the
    /// owner they left.
    fn resync(&mut self) {
        self.moved.store(true, Ordering::Relaxed);
        if let Some(rooms) = self.link.rooms.upgrade() {
            rooms
                .metrics()
                .leases
                .relay_resyncs
                .fetch_add(1, Ordering::Relaxed);
            // Out of the registry first: a socket reconnecting at once must not find it.
            rooms.forget(&self.game, self.instance);
        }
        let conns: Vec<ConnId> = self.subs.keys().copied().collect();
        for conn in conns {
            self.leave(conn);
        }
    }
}

fn unavailable() -> Refusal {
    Refusal::new(
        ErrorCode::NotAvailable,
        "the game's server did not answer; try again",
    )
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
        None => std::future::pending().await,
    }
}
