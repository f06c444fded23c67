//! The one WebSocket client of the tests. It reads every server message into
//! a typed [`Incoming`] (its type, its version, its data) and keeps them all
//! in [`Client::seen`]. The decoding is this file's [`Incoming::decode`]
//! alone, so that moving to the server's own typed messages is a change here.
//!
//! Waits are bounded: [`WAIT`] per message, a count on every loop. `try_*`
//! methods return failures as values (for servers that are killed on
//! purpose); the others panic with what was seen.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use marseillais::server::play::protocol::ServerMsg;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::WAIT;

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens the WebSocket `path` of the server at `addr`, from `source` if given (any address of
/// 127.0.0.0/8: [`super::http::connect_from`]), with extra request `headers`. The one place
/// the tests' WebSocket clients (game and lobby) connect.
pub async fn open_socket(
    source: Option<IpAddr>,
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
) -> Result<Socket, ConnectError> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
    let mut request = format!("ws://{addr}{path}")
        .into_client_request()
        .map_err(|e| ConnectError::Failed(e.to_string()))?;
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| ConnectError::Failed(e.to_string()))?;
        let value =
            HeaderValue::from_str(value).map_err(|e| ConnectError::Failed(e.to_string()))?;
        request.headers_mut().insert(name, value);
    }
    let opened = async {
        let tcp = super::http::connect_from(source, addr)
            .await
            .map_err(|e| ConnectError::Failed(e.to_string()))?;
        let _ = tcp.set_nodelay(true);
        tokio_tungstenite::client_async(request, MaybeTlsStream::Plain(tcp))
            .await
            .map_err(|e| match e {
                tungstenite::Error::Http(response) => {
                    ConnectError::Refused(response.status().as_u16())
                }
                other => ConnectError::Failed(other.to_string()),
            })
    };
    let (ws, _) = tokio::time::timeout(WAIT, opened)
        .await
        .map_err(|_| ConnectError::Timeout)??;
    Ok(ws)
}

/// How many messages a "wait for the next X" may skip before it gives up.
const MAX_SKIPPED: usize = 200;
/// The same bound for the lenient waits, which skip floods of events.
const MAX_SKIPPED_LENIENT: usize = 100_000;

/// One message from the server: `{"t": .., "v": .., "d": ..}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming {
    /// The message type (`state`, `move`, `ack`, `error`, ...).
    pub t: String,
    /// The game version of an event; `None` for unversioned messages.
    pub v: Option<u64>,
    /// The data (`Null` when the server omitted it).
    pub d: Value,
    /// The whole message as sent, for checks on its exact shape.
    pub json: Value,
    /// The message read as the server's own typed [`ServerMsg`] (which refuses unknown fields
    /// and missing ones): every message a test receives is checked against the types the
    /// server writes.
    pub msg: ServerMsg,
}

#[derive(Deserialize)]
struct Wire {
    t: String,
    #[serde(default)]
    v: Option<u64>,
    #[serde(default)]
    d: Value,
}

impl Incoming {
    /// Reads one text frame; Err if it is not a server message.
    pub fn decode(text: &str) -> Result<Incoming, String> {
        let msg =
            ServerMsg::from_text(text).map_err(|e| format!("not a ServerMsg: {e}: {text:?}"))?;
        let json: Value = serde_json::from_str(text).map_err(|e| format!("{e}: {text:?}"))?;
        let wire: Wire =
            serde_json::from_value(json.clone()).map_err(|e| format!("{e}: {text:?}"))?;
        Ok(Incoming {
            t: wire.t,
            v: wire.v,
            d: wire.d,
            json,
            msg,
        })
    }

    /// `d[key]` as a string ("" if absent).
    pub fn str(&self, key: &str) -> String {
        super::s(&self.d[key])
    }
}

impl fmt::Display for Incoming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.json)
    }
}

/// How a connection ended, as seen by the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// A close frame with this code and reason.
    Closed(u16, String),
    /// The TCP connection ended (or failed) without a close frame.
    Dropped,
    /// Still open after the wait.
    Open,
}

/// Why a connection was not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectError {
    /// The server answered the upgrade with this HTTP status.
    Refused(u16),
    /// No answer within [`WAIT`].
    Timeout,
    Failed(String),
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Refused(status) => write!(f, "upgrade refused with HTTP {status}"),
            ConnectError::Timeout => write!(f, "ws connect timeout"),
            ConnectError::Failed(why) => write!(f, "{why}"),
        }
    }
}

/// One step of reading.
#[derive(Debug)]
pub enum Recv {
    Msg(Box<Incoming>),
    /// Nothing within the wait.
    Timeout,
    /// Closed (with or without a close frame) or failed.
    Ended,
    /// A text frame that is not a server message.
    NotJson(String),
}

pub struct Client {
    pub ws: Socket,
    /// Every message received, in order.
    pub seen: Vec<Incoming>,
    /// How the connection ended, once a read saw it end: a failing [`Client::recv`] then says
    /// "closed by the server (1008 ...)" rather than "no message in time".
    pub ended: Option<Ended>,
    /// Messages read by [`Client::joined`] and not yet returned: the next reads return them
    /// first (as received, with their raw text for [`Client::recv_text`]).
    unread: std::collections::VecDeque<(String, Incoming)>,
}

impl Client {
    /// Connects to `/ws/game/{id}?{query}` (no `?` if the query is empty).
    pub async fn try_connect(
        addr: SocketAddr,
        id: &str,
        query: &str,
    ) -> Result<Client, ConnectError> {
        Client::try_connect_with(addr, id, query, &[]).await
    }

    /// [`Client::try_connect`] with extra request headers (a session `Cookie`, an `Origin`).
    pub async fn try_connect_with(
        addr: SocketAddr,
        id: &str,
        query: &str,
        headers: &[(&str, &str)],
    ) -> Result<Client, ConnectError> {
        Client::try_connect_from(None, addr, (id, query), headers).await
    }

    /// [`Client::try_connect_with`] from the loopback address `source` (a client of its own).
    pub async fn try_connect_from(
        source: Option<IpAddr>,
        addr: SocketAddr,
        (id, query): (&str, &str),
        headers: &[(&str, &str)],
    ) -> Result<Client, ConnectError> {
        let path = if query.is_empty() {
            format!("/ws/game/{id}")
        } else {
            format!("/ws/game/{id}?{query}")
        };
        let ws = open_socket(source, addr, &path, headers).await?;
        Ok(Client {
            ws,
            seen: Vec::new(),
            ended: None,
            unread: std::collections::VecDeque::new(),
        })
    }

    pub async fn connect(addr: SocketAddr, id: &str, query: &str) -> Client {
        match Client::try_connect(addr, id, query).await {
            Ok(client) => client,
            Err(why) => panic!("ws connect to {id}?{query}: {why}"),
        }
    }

    /// Connects as the holder of a seat token, or as a spectator if it is "".
    pub async fn seat(addr: SocketAddr, id: &str, token: &str) -> Client {
        if token.is_empty() {
            Client::connect(addr, id, "").await
        } else {
            Client::connect(addr, id, &format!("token={token}")).await
        }
    }

    pub async fn try_send(&mut self, msg: &Value) -> Result<(), String> {
        self.try_send_text(&msg.to_string()).await
    }

    pub async fn try_send_text(&mut self, text: &str) -> Result<(), String> {
        tokio::time::timeout(WAIT, self.ws.send(Message::text(text.to_string())))
            .await
            .map_err(|_| "ws send timeout".to_string())?
            .map_err(|e| e.to_string())
    }

    pub async fn send(&mut self, msg: Value) {
        self.send_text(&msg.to_string()).await;
    }

    pub async fn send_text(&mut self, text: &str) {
        if let Err(why) = self.try_send_text(text).await {
            panic!("ws send: {why}");
        }
    }

    /// Sends a sub-move with this ack id (without waiting for anything).
    pub async fn mv(&mut self, uci: &str, id: &str) {
        self.send(json!({"t": "move", "d": {"uci": uci, "id": id}}))
            .await;
    }

    /// Reads one step within `wait` (pings are answered and skipped); a
    /// message is also kept in [`Client::seen`].
    pub async fn poll(&mut self, wait: Duration) -> Recv {
        if let Some((_, msg)) = self.unread.pop_front() {
            return Recv::Msg(Box::new(msg));
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let next = match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => return Recv::Timeout,
                Ok(next) => next,
            };
            match next {
                Some(Ok(Message::Text(text))) => {
                    return match Incoming::decode(text.as_str()) {
                        Ok(msg) => {
                            self.seen.push(msg.clone());
                            Recv::Msg(Box::new(msg))
                        }
                        Err(why) => Recv::NotJson(why),
                    };
                }
                Some(Ok(Message::Close(frame))) => {
                    self.ended = Some(match frame {
                        Some(f) => Ended::Closed(u16::from(f.code), f.reason.to_string()),
                        None => Ended::Dropped,
                    });
                    return Recv::Ended;
                }
                Some(Err(_)) | None => {
                    self.ended = Some(Ended::Dropped);
                    return Recv::Ended;
                }
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The next text frame within `wait`, exactly as sent (for byte-for-byte
    /// checks: [`Incoming::json`] is re-parsed and loses key order); pings
    /// are answered and skipped, a message is also kept in [`Client::seen`].
    /// `None` on timeout or end.
    pub async fn recv_text(&mut self, wait: Duration) -> Option<String> {
        if let Some((text, _)) = self.unread.pop_front() {
            return Some(text);
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .ok()??
            {
                Ok(Message::Text(text)) => {
                    if let Ok(msg) = Incoming::decode(text.as_str()) {
                        self.seen.push(msg);
                    }
                    return Some(text.as_str().to_string());
                }
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => continue,
            }
        }
    }

    /// The next message within `wait`; `None` on timeout or end. Panics if
    /// the server sends a text frame that is not a message.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<Incoming> {
        match self.poll(wait).await {
            Recv::Msg(msg) => Some(*msg),
            Recv::Timeout | Recv::Ended => None,
            Recv::NotJson(why) => panic!("the server sent a non-message: {why}"),
        }
    }

    /// Waits until the server has put this socket in its game's room, which it says with the
    /// socket's first message (the `state`); that message stays unread, so what the test reads
    /// next is unchanged. Without this wait, a move the opponent makes right after the
    /// connection can be applied before the room takes the socket in: the move is then in
    /// the `state`, and no `move` event follows (the join may wait for the store, say a seat
    /// looked up in PostgreSQL). Panics if nothing comes within [`WAIT`].
    pub async fn joined(&mut self) {
        if !self.unread.is_empty() {
            return;
        }
        let text = match self.recv_text(WAIT).await {
            Some(text) => text,
            None => panic!("the socket never joined its room; seen: {:?}", self.seen),
        };
        let msg = Incoming::decode(&text)
            .unwrap_or_else(|why| panic!("the server sent a non-message: {why}"));
        self.unread.push_back((text, msg));
    }

    /// The next message, or panics after [`WAIT`].
    pub async fn recv(&mut self) -> Incoming {
        match self.try_recv(WAIT).await {
            Some(msg) => msg,
            None => match &self.ended {
                Some(ended) => panic!("the connection ended ({ended:?}); seen: {:?}", self.seen),
                None => panic!("no message in time; seen: {:?}", self.seen),
            },
        }
    }

    /// The next message of type `t`, skipping others (presence, ...); an
    /// `error` on the way is a failure (unless `t` is "error").
    pub async fn recv_type(&mut self, t: &str) -> Incoming {
        for _ in 0..MAX_SKIPPED {
            let msg = self.recv().await;
            if msg.t == t {
                return msg;
            }
            assert_ne!(
                msg.t, "error",
                "unexpected error while waiting for {t}: {msg}"
            );
        }
        panic!("no {t} message");
    }

    /// The next message of type `t` within [`WAIT`] in all, skipping
    /// anything else, errors included.
    pub async fn skip_to(&mut self, t: &str) -> Incoming {
        self.until(t, |m| m.t == t).await
    }

    /// The first message for which `pred` holds, within [`WAIT`] in all;
    /// panics (naming `what`) otherwise.
    pub async fn until(&mut self, what: &str, pred: impl FnMut(&Incoming) -> bool) -> Incoming {
        match self.try_until(WAIT, pred).await {
            Some(msg) => msg,
            None => panic!("no {what} message in time; seen: {:?}", self.seen),
        }
    }

    /// The first message for which `pred` holds within `wait`; `None` on
    /// timeout or end of the connection.
    pub async fn try_until(
        &mut self,
        wait: Duration,
        mut pred: impl FnMut(&Incoming) -> bool,
    ) -> Option<Incoming> {
        let deadline = tokio::time::Instant::now() + wait;
        for _ in 0..MAX_SKIPPED_LENIENT {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let msg = self.try_recv(left).await?;
            if pred(&msg) {
                return Some(msg);
            }
        }
        None
    }

    /// The next message that is not `presence`.
    pub async fn next_non_presence(&mut self) -> Incoming {
        for _ in 0..MAX_SKIPPED {
            let msg = self.recv().await;
            if msg.t != "presence" {
                return msg;
            }
        }
        panic!("only presence messages");
    }

    /// Plays a sub-move and waits for its ack and its broadcast.
    pub async fn play(&mut self, uci: &str, id: &str) -> Incoming {
        self.mv(uci, id).await;
        let ack = self.recv_type("ack").await;
        assert_eq!(ack.d["id"], id);
        let event = self.recv_type("move").await;
        assert_eq!(event.d["uci"], uci);
        assert_eq!(event.v, ack.d["v"].as_u64());
        event
    }

    /// Sends a sub-move that the server must refuse with `store_failure`.
    pub async fn play_unacked_then_refused(&mut self, uci: &str, id: &str) {
        self.mv(uci, id).await;
        let error = self.recv_type("error").await;
        assert_eq!(error.d["code"], "store_failure", "{error}");
        assert_eq!(error.d["id"], id);
    }

    /// Waits for the server to close the connection; returns (code, reason).
    pub async fn expect_close(&mut self) -> (u16, String) {
        match self.ended(WAIT).await {
            Ended::Closed(code, reason) => (code, reason),
            Ended::Open => panic!("no close in time"),
            Ended::Dropped => panic!("closed without a close frame (or with an error)"),
        }
    }

    /// Waits (bounded) for the end of the connection, reading everything.
    pub async fn ended(&mut self, wait: Duration) -> Ended {
        self.unread.clear();
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => return Ended::Open,
                Ok(None) | Ok(Some(Err(_))) => return Ended::Dropped,
                Ok(Some(Ok(Message::Close(Some(frame))))) => {
                    return Ended::Closed(u16::from(frame.code), frame.reason.to_string());
                }
                Ok(Some(Ok(Message::Close(None)))) => return Ended::Dropped,
                Ok(Some(Ok(Message::Text(text)))) => {
                    if let Ok(msg) = Incoming::decode(text.as_str()) {
                        self.seen.push(msg);
                    }
                }
                Ok(Some(Ok(_))) => continue,
            }
        }
    }

    /// Starts a close handshake (errors ignored: the server may be gone).
    pub async fn close(&mut self) {
        let _ = tokio::time::timeout(WAIT, self.ws.close(None)).await;
    }
}
