//! The owner's side of relaying: the sockets of other nodes as members of the rooms this node
//! runs. A relay's `Connect` becomes an ordinary `Command::Connect` with a local conn id and
//! an [`Outbox`] that a small task drains onto the relay's lane (`Deliver`, numbered per
//! remote conn so that the relay sees a gap), so that the room treats a remote member like any
//! socket: presence, spectator counts, chat, lag, offers and rematches work as on one node.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use dashmap::DashMap;
use tokio::sync::oneshot;

use super::games::LocalGames;
use super::lane::{AskReply, AskWhat, LaneMsg, WireRefusal, WireRtt};
use super::link::Link;
use crate::server::play::protocol::{ErrorCode, Refusal, parse_client};
use crate::server::play::room::{Command, ConnId, Outbox, Room, fanout::next_conn, mailbox};
use crate::server::players::account::UserId;

/// A remote socket in one of this node's rooms.
struct Member {
    local: ConnId,
    room: Arc<Room>,
    /// The `seq` of the last `Deliver` published for it (stored after the publish, so that an
    /// answer reading it is published after that `Deliver`: see [`Bridge::sent`]).
    sent: Arc<AtomicU64>,
}

/// The remote members of this node's rooms, by (their node, their conn id there).
#[derive(Default)]
pub struct Bridge {
    members: Arc<DashMap<(String, u64), Member>>,
}

/// The room of `game` if this node runs it (claiming it if nobody does); `None` if another
/// node does, or the store failed.
async fn owned(rooms: &dyn LocalGames, game: &str) -> Option<Arc<Room>> {
    match rooms.room(game).await {
        Ok(Some(room)) if !room.relay => Some(room),
        _ => None,
    }
}

impl Bridge {
    #[allow(clippy::too_many_arguments)]
    pub async fn connect(
        &self,
        link: &Arc<Link>,
        rooms: &dyn LocalGames,
        game: &str,
        from: &str,
        conn: u64,
        token: Option<String>,
        account: Option<i64>,
        since: Option<u64>,
    ) {
        let Some(room) = owned(rooms, game).await else {
            link.publish(
                from,
                &LaneMsg::Moved {
                    game: game.to_owned(),
                },
            );
            return;
        };
        let local = next_conn();
        let (queue, rx) = mailbox::channel(rooms.config().outgoing_queue);
        let lagged = Arc::new(AtomicBool::new(false));
        let key = (from.to_owned(), conn);
        let sent = Arc::new(AtomicU64::new(0));
        self.members.insert(
            key.clone(),
            Member {
                local,
                room: Arc::clone(&room),
                sent: Arc::clone(&sent),
            },
        );
        tokio::spawn(drain(
            Arc::clone(link),
            Arc::clone(&self.members),
            key,
            local,
            game.to_owned(),
            rx,
            sent,
            Arc::clone(&lagged),
            room.moved_flag(),
        ));
        let (done, _registered) = oneshot::channel();
        let command = Command::Connect {
            conn: local,
            token,
            account: account.map(UserId),
            since,
            outbox: Outbox { queue, lagged },
            done,
        };
        if room.send(command).await.is_err() {
            self.members.remove(&(from.to_owned(), conn));
            link.publish(
                from,
                &LaneMsg::Moved {
                    game: game.to_owned(),
                },
            );
        }
    }

    pub async fn act(
        &self,
        link: &Arc<Link>,
        game: &str,
        from: &str,
        conn: u64,
        msg: &str,
        rtt: Option<WireRtt>,
    ) {
        let target = self
            .members
            .get(&(from.to_owned(), conn))
            .map(|m| (m.local, Arc::clone(&m.room)));
        let Some((local, room)) = target else {
            // The member is gone here (its room moved): the relay reconnects.
            link.publish(
                from,
                &LaneMsg::Moved {
                    game: game.to_owned(),
                },
            );
            return;
        };
        // The relay's node parsed it from the client's frame; it parses again here.
        let Ok(msg) = parse_client(msg) else {
            tracing::warn!(game, "a relayed client message does not parse");
            return;
        };
        let command = Command::Act {
            conn: local,
            msg,
            received: Instant::now(),
            rtt: rtt.map(Into::into),
        };
        let _ = room.send(command).await;
    }

    pub async fn disconnect(&self, from: &str, conn: u64) {
        if let Some((_, member)) = self.members.remove(&(from.to_owned(), conn)) {
            let _ = member
                .room
                .send(Command::Disconnect { conn: member.local })
                .await;
        }
    }

    /// Disconnects the members of nodes not in `live` (sorted): their node died, and
    /// presence must not say "connected" forever.
    pub async fn drop_dead(&self, live: &[String]) {
        let dead: Vec<(String, u64)> = self
            .members
            .iter()
            .filter(|e| live.binary_search(&e.key().0).is_err())
            .map(|e| e.key().clone())
            .collect();
        for (node, conn) in dead {
            self.disconnect(&node, conn).await;
        }
    }

    /// Node `node` restarted: its sockets of before are gone.
    pub async fn drop_node(&self, node: &str) {
        let gone: Vec<(String, u64)> = self
            .members
            .iter()
            .filter(|e| e.key().0 == node)
            .map(|e| e.key().clone())
            .collect();
        for (node, conn) in gone {
            self.disconnect(&node, conn).await;
        }
    }

    /// This node's lane lost messages: any relay may have lost a `Connect`, an `Act` or a
    /// `Disconnect`. Every remote member leaves, and its relay is told to reconnect.
    pub async fn gap(&self, link: &Link) {
        let all: Vec<((String, u64), String)> = self
            .members
            .iter()
            .map(|e| (e.key().clone(), e.value().room.id.clone()))
            .collect();
        for ((node, conn), game) in all {
            link.publish(&node, &LaneMsg::Moved { game });
            self.disconnect(&node, conn).await;
        }
    }

    /// The answer to a relay's `Check`: for each of node `from`'s conns, the `seq` of the
    /// last message published for it in `game`, or `None` if it is no member of that game
    /// here (its `Connect` was lost, or this node dropped it without its relay knowing).
    /// Called by the lane reader, in lane order: a `Connect` published before the `Check` is
    /// a member by now.
    pub fn sent(&self, from: &str, game: &str, conns: &[u64]) -> Vec<Option<u64>> {
        conns
            .iter()
            .map(|&conn| {
                self.members
                    .get(&(from.to_owned(), conn))
                    .filter(|m| m.room.id == game)
                    .map(|m| m.sent.load(Ordering::Acquire))
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// Publishes what the room queues for a remote member on its node's lane, numbered; when
/// the room drops the member, tells its relay why (unless the relay itself left).
#[allow(clippy::too_many_arguments)]
async fn drain(
    link: Arc<Link>,
    members: Arc<DashMap<(String, u64), Member>>,
    key: (String, u64),
    local: ConnId,
    game: String,
    mut rx: mailbox::Receiver<tokio_tungstenite::tungstenite::Utf8Bytes>,
    sent: Arc<AtomicU64>,
    lagged: Arc<AtomicBool>,
    moved: Arc<AtomicBool>,
) {
    let (node, conn) = key.clone();
    let mut seq = 0;
    while let Some(text) = rx.recv().await {
        seq += 1;
        let msg = LaneMsg::Deliver {
            game: game.clone(),
            conn,
            seq,
            text: text.as_str().to_owned(),
        };
        link.publish(&node, &msg);
        sent.store(seq, Ordering::Release);
    }
    let still_member = members.remove_if(&key, |_, m| m.local == local).is_some();
    if moved.load(Ordering::Relaxed) {
        link.publish(&node, &LaneMsg::Moved { game });
    } else if still_member {
        let lagged = lagged.load(Ordering::Relaxed);
        link.publish(&node, &LaneMsg::Ended { game, conn, lagged });
    }
}

/// The owner's answer to a relay's HTTP question.
pub async fn answer(rooms: &dyn LocalGames, game: &str, what: AskWhat) -> AskReply {
    let Some(room) = owned(rooms, game).await else {
        return AskReply::Moved;
    };
    match what {
        AskWhat::Join { account } => {
            let account = match account.map(|a| a.account()) {
                Some(None) => {
                    let refusal = Refusal::new(ErrorCode::BadRequest, "bad account");
                    let grant = Err(WireRefusal::from(&refusal));
                    return AskReply::Join { grant };
                }
                Some(Some(account)) => Some(account),
                None => None,
            };
            let (reply, rx) = oneshot::channel();
            if room.send(Command::Join { account, reply }).await.is_err() {
                return AskReply::Moved;
            }
            match rx.await {
                Ok(grant) => AskReply::Join {
                    grant: grant.map_err(|r| WireRefusal::from(&r)),
                },
                Err(_) => AskReply::Moved,
            }
        }
        AskWhat::Snapshot => {
            let (reply, rx) = oneshot::channel();
            if room.send(Command::Snapshot { reply }).await.is_err() {
                return AskReply::Moved;
            }
            match rx.await {
                Ok(snapshot) => AskReply::Snapshot {
                    snapshot: Box::new(snapshot),
                },
                Err(_) => AskReply::Moved,
            }
        }
        // Answered by the lane reader itself, in lane order (`Link::dispatch`), never here.
        AskWhat::Check { conns } => AskReply::Check {
            sent: vec![None; conns.len()],
        },
        AskWhat::Pgn => {
            let (reply, rx) = oneshot::channel();
            if room.send(Command::Pgn { reply }).await.is_err() {
                return AskReply::Moved;
            }
            match rx.await {
                Ok(pgn) => AskReply::Pgn { pgn },
                Err(_) => AskReply::Moved,
            }
        }
    }
}
