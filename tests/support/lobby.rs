//! The test client of the lobby channel (`/ws/lobby`): every frame is read as the server's own
//! typed [`LobbyMsg`] (unknown or missing fields fail the test), kept in [`LobbyClient::seen`],
//! or as the pools' [`PoolMsg`], kept apart in [`LobbyClient::pool_inbox`] for
//! [`LobbyClient::pool_until`].
//! Signed in with a session cookie, or anonymous. Every wait is bounded ([`WAIT`] per message,
//! a count on every loop).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use std::collections::VecDeque;

use marseillais::server::lobby::channel::msg::LobbyMsg;
use marseillais::server::play::protocol::ErrorMsg;
use marseillais::server::pool::msg::{LeftMsg, PairedMsg, PoolMsg};
use tokio_tungstenite::tungstenite::Message;

use super::WAIT;
use super::ws::{ConnectError, Ended, Socket, open_socket};

/// How many messages a wait may skip before it gives up.
const MAX_SKIPPED: usize = 200;

/// What a text frame was.
enum Frame {
    Lobby(LobbyMsg),
    /// A pool message, now in `pool_inbox`.
    Pool,
}

pub struct LobbyClient {
    pub ws: Socket,
    /// Every message received, in order.
    pub seen: Vec<LobbyMsg>,
    /// The pools' messages not yet read by [`LobbyClient::pool_until`].
    pub pool_inbox: VecDeque<PoolMsg>,
    /// Every pool message received, in order.
    pub pool_seen: Vec<PoolMsg>,
}

impl LobbyClient {
    /// Opens `/ws/lobby`, with `cookie` (a `Cookie:` header value such as
    /// `marseillais_session=...`) if given, and the server's own `Origin` (as a page of the
    /// site would).
    pub async fn try_connect(
        addr: SocketAddr,
        cookie: Option<&str>,
    ) -> Result<LobbyClient, ConnectError> {
        LobbyClient::try_connect_from(None, addr, cookie).await
    }

    /// [`LobbyClient::try_connect`] from the loopback address `source` (a client of its own).
    pub async fn try_connect_from(
        source: Option<IpAddr>,
        addr: SocketAddr,
        cookie: Option<&str>,
    ) -> Result<LobbyClient, ConnectError> {
        let origin = format!("http://{addr}");
        let mut headers = vec![("origin", origin.as_str())];
        if let Some(cookie) = cookie {
            headers.push(("cookie", cookie));
        }
        let ws = open_socket(source, addr, "/ws/lobby", &headers).await?;
        Ok(LobbyClient {
            ws,
            seen: Vec::new(),
            pool_inbox: VecDeque::new(),
            pool_seen: Vec::new(),
        })
    }

    pub async fn connect(addr: SocketAddr, cookie: Option<&str>) -> LobbyClient {
        match LobbyClient::try_connect(addr, cookie).await {
            Ok(client) => client,
            Err(why) => panic!("lobby channel: {why}"),
        }
    }

    /// The next lobby message within `wait` (pings skipped, pool messages put in
    /// `pool_inbox`); `None` on timeout or end.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<LobbyMsg> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            match self.next_frame(deadline).await? {
                Frame::Lobby(msg) => return Some(msg),
                Frame::Pool => continue,
            }
        }
    }

    /// The next text frame before `deadline`, read and kept; `None` on timeout or end.
    async fn next_frame(&mut self, deadline: tokio::time::Instant) -> Option<Frame> {
        loop {
            let next = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .ok()??;
            match next {
                Ok(Message::Text(text)) => {
                    if let Ok(pool) = PoolMsg::from_text(text.as_str()) {
                        self.pool_seen.push(pool.clone());
                        self.pool_inbox.push_back(pool);
                        return Some(Frame::Pool);
                    }
                    let msg = LobbyMsg::from_text(text.as_str())
                        .unwrap_or_else(|e| panic!("not a LobbyMsg: {e}: {text:?}"));
                    self.seen.push(msg.clone());
                    return Some(Frame::Lobby(msg));
                }
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => continue,
            }
        }
    }

    /// The next message that `pred` accepts, skipping others (bounded); panics with what was
    /// seen if none comes.
    pub async fn until(&mut self, what: &str, mut pred: impl FnMut(&LobbyMsg) -> bool) -> LobbyMsg {
        for _ in 0..MAX_SKIPPED {
            match self.try_recv(WAIT).await {
                Some(msg) if pred(&msg) => return msg,
                Some(_) => continue,
                None => break,
            }
        }
        panic!("no {what}; seen {:?}", self.seen);
    }

    /// The next pool message that `pred` accepts (earlier ones not yet read first, skipping
    /// others, bounded); panics with what was seen if none comes. Lobby messages read meanwhile
    /// are kept in `seen`.
    pub async fn pool_until(&mut self, what: &str, pred: impl FnMut(&PoolMsg) -> bool) -> PoolMsg {
        match self.pool_wait(what, pred, false).await {
            Ok(msg) => msg,
            Err(error) => unreachable!("errors are skipped: {error:?}"),
        }
    }

    /// The next pool message that `pred` accepts, or the next `error` if one comes first
    /// (bounded; panics if neither comes).
    pub async fn pool_or_error(
        &mut self,
        what: &str,
        pred: impl FnMut(&PoolMsg) -> bool,
    ) -> Result<PoolMsg, ErrorMsg> {
        self.pool_wait(what, pred, true).await
    }

    async fn pool_wait(
        &mut self,
        what: &str,
        mut pred: impl FnMut(&PoolMsg) -> bool,
        stop_at_error: bool,
    ) -> Result<PoolMsg, ErrorMsg> {
        for _ in 0..MAX_SKIPPED {
            while let Some(msg) = self.pool_inbox.pop_front() {
                if pred(&msg) {
                    return Ok(msg);
                }
            }
            let deadline = tokio::time::Instant::now() + WAIT;
            match self.next_frame(deadline).await {
                Some(Frame::Lobby(LobbyMsg::Error(error))) if stop_at_error => return Err(error),
                Some(_) => continue,
                None if !self.pool_inbox.is_empty() => continue,
                None => break,
            }
        }
        panic!(
            "no {what}; pool messages seen {:?}; lobby {:?}",
            self.pool_seen, self.seen
        );
    }

    /// Sends `pool_in` for `pool` (`rated` or casual).
    pub async fn pool_in(&mut self, pool: &str, rated: bool) {
        let msg = serde_json::json!({"t": "pool_in", "d": {"pool": pool, "rated": rated}});
        self.send_text(&msg.to_string()).await;
    }

    /// Sends `pool_in` and waits for its `pool_joined`.
    pub async fn join_pool(&mut self, pool: &str, rated: bool) {
        self.pool_in(pool, rated).await;
        self.pool_until(
            "pool_joined",
            |m| matches!(m, PoolMsg::PoolJoined(q) if q.pool == pool && q.rated == rated),
        )
        .await;
    }

    /// Asks for the pools' counts, as the lobby page does (`pools_watch`).
    pub async fn watch_pools(&mut self) {
        self.send_text(r#"{"t":"pools_watch"}"#).await;
    }

    /// The next `pool_paired`: this page's seat.
    pub async fn pool_paired(&mut self) -> PairedMsg {
        match self
            .pool_until("pool_paired", |m| matches!(m, PoolMsg::PoolPaired(_)))
            .await
        {
            PoolMsg::PoolPaired(seat) => seat,
            _ => unreachable!("the predicate takes only pool_paired"),
        }
    }

    /// Waits until the pools' counts show `rated` and `casual` waiting in `pool`: the latest
    /// count this page has, or a later one (counts skipped on the way are dropped; other pool
    /// messages stay to be read).
    pub async fn pools_show(&mut self, pool: &str, rated: usize, casual: usize) {
        let shows = |m: &PoolMsg| match m {
            PoolMsg::Pools(counts) => counts
                .pools
                .iter()
                .any(|p| p.id == pool && p.rated == rated && p.casual == casual),
            _ => false,
        };
        self.pool_inbox.retain(|m| !matches!(m, PoolMsg::Pools(_)));
        let latest = self
            .pool_seen
            .iter()
            .rev()
            .find(|m| matches!(m, PoolMsg::Pools(_)));
        if latest.is_some_and(shows) {
            return;
        }
        self.pool_until(&format!("{pool}: {rated} rated, {casual} casual"), shows)
            .await;
    }

    /// The next `pool_left`.
    pub async fn pool_left(&mut self) -> LeftMsg {
        match self
            .pool_until("pool_left", |m| matches!(m, PoolMsg::PoolLeft(_)))
            .await
        {
            PoolMsg::PoolLeft(left) => left,
            _ => unreachable!("the predicate takes only pool_left"),
        }
    }

    /// Whether no pool message `pred` accepts arrives within `wait` (the rest are read).
    pub async fn pool_quiet_for(
        &mut self,
        wait: Duration,
        mut pred: impl FnMut(&PoolMsg) -> bool,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        for _ in 0..MAX_SKIPPED {
            while let Some(msg) = self.pool_inbox.pop_front() {
                if pred(&msg) {
                    return false;
                }
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return true;
            }
            let deadline = tokio::time::Instant::now() + left;
            if self.next_frame(deadline).await.is_none() && self.pool_inbox.is_empty() {
                return true;
            }
        }
        true
    }

    /// Waits for an `online` count of exactly `count` (counts are coalesced, so intermediate
    /// ones may be skipped).
    pub async fn online(&mut self, count: u64) {
        self.until(
            &format!("online {count}"),
            |m| matches!(m, LobbyMsg::Online(o) if o.count == count),
        )
        .await;
    }

    /// Whether no message `pred` accepts arrives within `wait` (others are read and kept).
    pub async fn quiet_for(
        &mut self,
        wait: Duration,
        mut pred: impl FnMut(&LobbyMsg) -> bool,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        for _ in 0..MAX_SKIPPED {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return true;
            }
            match self.try_recv(left).await {
                Some(msg) if pred(&msg) => return false,
                Some(_) => continue,
                None => return true,
            }
        }
        true
    }

    pub async fn send_text(&mut self, text: &str) {
        let sent = tokio::time::timeout(WAIT, self.ws.send(Message::text(text.to_string()))).await;
        assert!(matches!(sent, Ok(Ok(()))), "lobby send: {sent:?}");
    }

    /// Waits (bounded) for the end of the connection.
    pub async fn ended(&mut self, wait: Duration) -> Ended {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => return Ended::Open,
                Ok(None) | Ok(Some(Err(_))) => return Ended::Dropped,
                Ok(Some(Ok(Message::Close(Some(frame))))) => {
                    return Ended::Closed(u16::from(frame.code), frame.reason.to_string());
                }
                Ok(Some(Ok(Message::Close(None)))) => return Ended::Dropped,
                Ok(Some(Ok(_))) => continue,
            }
        }
    }

    /// Closes the channel, waiting (bounded) for the server's answering close, so that the
    /// server has seen it go.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(WAIT, self.ws.close(None)).await;
        let _ = self.ended(WAIT).await;
    }
}
