//! An in-process subscriber of a room: what a computer player (or any server-side actor) uses
//! to take part in a game. It connects like a socket (an [`Outbox`], a seat token, the
//! version it has seen), receives the same serialized messages, and acts with the same
//! [`ClientMsg`]s, so its moves go through the same decisions, commit and ack-id idempotency
//! as a human's; the room cannot tell them apart.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::fanout::{ConnId, Outbox, next_conn};
use super::{Command, Gone, Room, mailbox};
use crate::server::computer::ComputerProof;
use crate::server::play::protocol::ClientMsg;

pub struct Agent {
    conn: ConnId,
    room: Arc<Room>,
    inbox: mailbox::Receiver<Utf8Bytes>,
    lagged: Arc<AtomicBool>,
}

impl Agent {
    /// Connects to `room` as the seat of `token` (a spectator without one), brought up to date
    /// from `since`; `queue` bounds what the room may queue for it, as for a socket.
    pub async fn attach(
        room: Arc<Room>,
        token: Option<String>,
        since: Option<u64>,
        queue: usize,
    ) -> Result<Agent, Gone> {
        Agent::connect(room, queue, |conn, outbox, done| Command::Connect {
            conn,
            token,
            account: None,
            since,
            outbox,
            done,
        })
        .await
    }

    /// Connects to `room` as the server's computer player, in the game's computer seat
    /// (proved by `proof`, not by a token: the computer has none), with a fresh snapshot.
    pub async fn attach_computer(
        room: Arc<Room>,
        proof: ComputerProof,
        queue: usize,
    ) -> Result<Agent, Gone> {
        Agent::connect(room, queue, |conn, outbox, done| Command::ConnectComputer {
            conn,
            proof,
            outbox,
            done,
        })
        .await
    }

    /// Registers a new connection with `room` by the command `connect` builds, and waits until
    /// the room has it.
    async fn connect(
        room: Arc<Room>,
        queue: usize,
        connect: impl FnOnce(ConnId, Outbox, oneshot::Sender<()>) -> Command,
    ) -> Result<Agent, Gone> {
        let conn = next_conn();
        let (tx, inbox) = mailbox::channel(queue.max(1));
        let lagged = Arc::new(AtomicBool::new(false));
        let (done, registered) = oneshot::channel();
        let outbox = Outbox {
            queue: tx,
            lagged: Arc::clone(&lagged),
        };
        room.send(connect(conn, outbox, done)).await?;
        registered.await.map_err(|_| Gone)?;
        Ok(Agent {
            conn,
            room,
            inbox,
            lagged,
        })
    }

    /// Sends one action, as a socket forwards a parsed client message.
    pub async fn act(&self, msg: ClientMsg) -> Result<(), Gone> {
        self.room
            .send(Command::Act {
                conn: self.conn,
                msg,
                received: Instant::now(),
                rtt: None,
            })
            .await
    }

    /// The next message for this agent; `None` once the room dropped it (retired, shut down,
    /// or the agent fell behind: see [`Agent::lagged`]).
    pub async fn recv(&mut self) -> Option<Utf8Bytes> {
        self.inbox.recv().await
    }

    /// Whether the room dropped this agent because its queue was full.
    pub fn lagged(&self) -> bool {
        self.lagged.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Leaves the room.
    pub async fn detach(self) {
        let _ = self
            .room
            .send(Command::Disconnect { conn: self.conn })
            .await;
    }
}
