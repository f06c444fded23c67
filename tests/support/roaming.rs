//! A client of a cluster that keeps its place in a game across lost connections: it holds a
//! seat token (or none: a spectator), the last version it saw, the game as it knows it (moves,
//! turn, legal sub-moves) and the sub-move it sent and has not seen acknowledged. Whenever its
//! socket ends (a close with 1012 because its relay lost track, 1001 for a node going down,
//! 1013, or a dead TCP connection), it reconnects to its node, or the next node that is up,
//! with `v=<last seen>`, and sends the pending sub-move again with the same ack id: applied
//! once, acknowledged either way. Every end of a connection is kept ([`Roamer::ends`]), so a
//! test can say how its sockets were closed.

use std::time::Duration;

use serde_json::{Value, json};

use super::cluster::Directory;
use super::ws::{Client, Ended, Incoming, Recv};
use super::{s, strings};

/// Reconnection attempts of one [`Roamer::reconnect`] (50 ms apart, about the lease time a
/// few times over).
const RECONNECT_ATTEMPTS: usize = 400;

/// A sub-move this client saw acknowledged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acked {
    pub id: String,
    pub v: u64,
    pub uci: String,
}

/// What became of a sub-move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Acked(u64),
    /// An `error` with this code (the sub-move is no longer pending).
    Refused(String),
    /// Nothing within the wait (still pending).
    Silence,
}

/// Numbers the roamers of a test process (see `Roamer::ack_prefix`).
static NEXT_ROAMER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub struct Roamer {
    pub game: String,
    /// "" for a spectator.
    pub token: String,
    /// The node it prefers (1-based); it moves to the next live one when this is down.
    pub home: usize,
    /// The node of the current connection.
    pub node: usize,
    ws: Option<Client>,
    /// The last version seen (0: nothing yet).
    pub v: u64,
    pub turn: String,
    pub phase: String,
    pub legal: Vec<String>,
    pub moves: Vec<String>,
    pub status: String,
    /// The last `presence` message's data.
    pub presence: Value,
    /// Every game event and snapshot received, in order (over all connections).
    pub events: Vec<Incoming>,
    /// The `rematch_seat` messages received (this player's seat in the rematch).
    pub rematch_seats: Vec<Incoming>,
    pub pending: Option<(String, String)>,
    pub acked: Vec<Acked>,
    /// How each connection ended.
    pub ends: Vec<Ended>,
    /// Connections made after the first.
    pub reconnects: u32,
    /// Version gaps or repeats seen on a connection (each made it reconnect).
    pub gaps: u32,
    /// This client's ack ids are `{ack_prefix}-{n}`: unique in the test process, so that the
    /// audit's "no ack id stored twice" holds per game whoever the players are. (The server keeps
    /// ack ids per seat; the prefix was once the token's first 4 characters, and the two seats
    /// of a game shared it about once in 65,536 games: a false "stored twice" in a long run.)
    ack_prefix: String,
    next_id: u64,
    /// The version to compare the next event with is known (after a `state`, or events
    /// resent after a `v`).
    synced: bool,
}

impl Roamer {
    /// A client of `game` at node `home`, not connected yet.
    pub fn new(game: &str, token: &str, home: usize) -> Roamer {
        Roamer {
            game: game.to_owned(),
            token: token.to_owned(),
            home,
            node: home,
            ws: None,
            v: 0,
            turn: String::new(),
            phase: String::new(),
            legal: Vec::new(),
            moves: Vec::new(),
            status: String::new(),
            presence: Value::Null,
            events: Vec::new(),
            rematch_seats: Vec::new(),
            pending: None,
            acked: Vec::new(),
            ends: Vec::new(),
            reconnects: 0,
            gaps: 0,
            ack_prefix: format!(
                "r{}",
                NEXT_ROAMER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ),
            next_id: 0,
            synced: false,
        }
    }

    /// Connects (to its home, or the next node up) and reads up to the first `presence`.
    pub async fn join(game: &str, token: &str, home: usize, nodes: &dyn Directory) -> Roamer {
        let mut roamer = Roamer::new(game, token, home);
        roamer.reconnect(nodes).await;
        roamer
    }

    pub fn is_connected(&self) -> bool {
        self.ws.is_some()
    }

    pub fn over(&self) -> bool {
        self.status == "finished" || self.status == "aborted"
    }

    fn query(&self) -> String {
        let mut parts = Vec::new();
        if !self.token.is_empty() {
            parts.push(format!("token={}", self.token));
        }
        if self.v > 0 {
            parts.push(format!("v={}", self.v));
        }
        parts.join("&")
    }

    /// Connects again (bounded), to its home node or the next one up; sends the pending
    /// sub-move again with its ack id; reads until the server's `presence` (the end of the
    /// resync). Panics if no node takes it within the attempts.
    pub async fn reconnect(&mut self, nodes: &dyn Directory) {
        if let Some(mut old) = self.ws.take() {
            old.close().await;
        }
        let mut last_error = String::new();
        for _ in 0..RECONNECT_ATTEMPTS {
            let Some((node, addr)) = nodes.up_from(self.home) else {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            match Client::try_connect(addr, &self.game, &self.query()).await {
                Ok(client) => {
                    if !self.ends.is_empty() || self.reconnects > 0 || self.v > 0 {
                        self.reconnects += 1;
                    }
                    self.node = node;
                    self.ws = Some(client);
                    // With `v` the server resends the events after it (the comparison holds);
                    // else a `state` comes first.
                    self.synced = self.v > 0;
                    if let Some((uci, id)) = self.pending.clone()
                        && let Some(ws) = self.ws.as_mut()
                        && ws
                            .try_send(&json!({"t": "move", "d": {"uci": uci, "id": id}}))
                            .await
                            .is_err()
                    {
                        self.lost(Ended::Dropped);
                        continue;
                    }
                    if self.read_until_presence().await {
                        return;
                    }
                }
                Err(e) => last_error = e.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "{} ({}): no node took the connection again: {last_error}; ends {:?}",
            self.game, self.token, self.ends
        );
    }

    /// Reads (bounded) until the `presence` that ends a connect's resync; false if the
    /// connection was lost first.
    async fn read_until_presence(&mut self) -> bool {
        for _ in 0..10_000 {
            match self.poll(super::WAIT).await {
                Some(msg) if msg.t == "presence" => return true,
                Some(_) => continue,
                None => return self.ws.is_some(),
            }
        }
        true
    }

    fn lost(&mut self, how: Ended) {
        self.ends.push(how);
        self.ws = None;
        self.synced = false;
    }

    /// Reads one message within `wait` and folds it into the view. None on a timeout or a
    /// lost connection (then [`Roamer::is_connected`] is false and the end is in `ends`).
    pub async fn poll(&mut self, wait: Duration) -> Option<Incoming> {
        let ws = self.ws.as_mut()?;
        match ws.poll(wait).await {
            Recv::Msg(msg) => {
                let msg = *msg;
                if !self.absorb(&msg) {
                    // A gap: reconnect with the last version (the caller's next step does).
                    self.gaps += 1;
                    self.lost(Ended::Open);
                }
                Some(msg)
            }
            Recv::Timeout => None,
            Recv::Ended => {
                let how = ws.ended.clone().unwrap_or(Ended::Dropped);
                self.lost(how);
                None
            }
            Recv::NotJson(why) => panic!("the server sent a non-message: {why}"),
        }
    }

    /// Folds one message into the view; false on a version gap or repeat.
    fn absorb(&mut self, msg: &Incoming) -> bool {
        let d = &msg.d;
        match msg.t.as_str() {
            "state" => {
                self.v = msg.v.unwrap_or(0);
                self.turn = s(&d["turn"]);
                self.phase = s(&d["phase"]);
                self.legal = strings(&d["legal"]);
                self.status = s(&d["status"]);
                self.moves = d["moves"]
                    .as_array()
                    .map(|m| m.iter().map(|m| s(&m["uci"])).collect())
                    .unwrap_or_default();
                self.synced = true;
                self.events.push(msg.clone());
            }
            "presence" => self.presence = d.clone(),
            "rematch_seat" => self.rematch_seats.push(msg.clone()),
            "ack" => {
                let id = s(&d["id"]);
                if self.pending.as_ref().is_some_and(|(_, p)| *p == id)
                    && let Some((uci, id)) = self.pending.take()
                {
                    let v = d["v"].as_u64().unwrap_or(0);
                    self.acked.push(Acked { id, v, uci });
                }
            }
            "error" => {
                let id = s(&d["id"]);
                if self.pending.as_ref().is_some_and(|(_, p)| *p == id) {
                    self.pending = None;
                }
            }
            _ => {
                let Some(v) = msg.v else {
                    return true;
                };
                if self.synced && v != self.v + 1 {
                    return false;
                }
                self.v = v;
                self.synced = true;
                self.events.push(msg.clone());
                match msg.t.as_str() {
                    "move" => {
                        self.moves.push(s(&d["uci"]));
                        self.turn = s(&d["turn"]);
                        self.phase = s(&d["phase"]);
                        self.legal = strings(&d["legal"]);
                    }
                    "join" => {
                        self.status = "playing".to_owned();
                        self.turn = s(&d["turn"]);
                        self.phase = s(&d["phase"]);
                        self.legal = strings(&d["legal"]);
                    }
                    "takeback" => {
                        self.moves.pop();
                        self.turn = s(&d["turn"]);
                        self.phase = s(&d["phase"]);
                        self.legal = strings(&d["legal"]);
                    }
                    "end" => {
                        self.status = "finished".to_owned();
                        self.legal.clear();
                    }
                    _ => {}
                }
            }
        }
        true
    }

    /// Reads, reconnecting when the connection is lost, until `pred` holds or `limit` passes.
    pub async fn wait_for(
        &mut self,
        nodes: &dyn Directory,
        limit: Duration,
        mut pred: impl FnMut(&Roamer) -> bool,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        for _ in 0..100_000 {
            if pred(self) {
                return true;
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return false;
            }
            if !self.is_connected() {
                self.reconnect(nodes).await;
                continue;
            }
            let wait = (deadline - now).min(Duration::from_millis(200));
            let _ = self.poll(wait).await;
        }
        pred(self)
    }

    /// Reads until it has seen version `v` (reconnecting as needed); panics after `limit`.
    pub async fn sync_to(&mut self, nodes: &dyn Directory, v: u64, limit: Duration) {
        if !self.wait_for(nodes, limit, |r| r.v >= v).await {
            panic!(
                "{}: never saw v={v} (at v={}, ends {:?})",
                self.game, self.v, self.ends
            );
        }
    }

    /// Sends `text` on the current connection (connecting first if needed); false if it could
    /// not be sent (the connection is then lost and the caller retries).
    pub async fn send(&mut self, nodes: &dyn Directory, msg: &Value) -> bool {
        if !self.is_connected() {
            self.reconnect(nodes).await;
        }
        let Some(ws) = self.ws.as_mut() else {
            return false;
        };
        if ws.try_send(msg).await.is_ok() {
            true
        } else {
            self.lost(Ended::Dropped);
            false
        }
    }

    /// Sends the sub-move `uci` under a fresh ack id and waits (bounded by `limit`,
    /// reconnecting and resending the same id whenever the connection is lost) for its ack or
    /// refusal.
    pub async fn play(&mut self, nodes: &dyn Directory, uci: &str, limit: Duration) -> Answer {
        self.next_id += 1;
        let id = format!("{}-{}", self.ack_prefix, self.next_id);
        self.pending = Some((uci.to_owned(), id.clone()));
        let msg = json!({"t": "move", "d": {"uci": uci, "id": id}});
        if !self.send(nodes, &msg).await {
            // Lost while sending: the reconnect below resends it.
        }
        self.answer(nodes, &id, limit).await
    }

    /// Waits for the answer to ack id `id` (still pending: resent on every reconnect).
    pub async fn answer(&mut self, nodes: &dyn Directory, id: &str, limit: Duration) -> Answer {
        let deadline = tokio::time::Instant::now() + limit;
        for _ in 0..100_000 {
            if self.pending.as_ref().is_none_or(|(_, p)| p != id) {
                break;
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Answer::Silence;
            }
            if !self.is_connected() {
                self.reconnect(nodes).await;
                continue;
            }
            if let Some(msg) = self
                .poll((deadline - now).min(Duration::from_millis(200)))
                .await
                && msg.t == "error"
                && s(&msg.d["id"]) == id
            {
                return Answer::Refused(s(&msg.d["code"]));
            }
        }
        match self.acked.iter().rev().find(|a| a.id == id) {
            Some(ack) => Answer::Acked(ack.v),
            None => Answer::Silence,
        }
    }

    /// Closes the connection (the close handshake, errors ignored).
    pub async fn close(&mut self) {
        if let Some(mut ws) = self.ws.take() {
            ws.close().await;
        }
    }
}
