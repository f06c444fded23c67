//! One WebSocket connection: reads client messages (size limit, idle
//! timeout with pings; the rate limit is charged per frame underneath, see
//! [`crate::server::web::frame_meter`]), parses them, forwards game actions to the room,
//! and writes what the room queues for it. One task per connection, no
//! reader/writer split: the room never waits on it (it uses the bounded
//! queue), so a blocked write only ever stalls this connection. A client
//! that breaks the WebSocket protocol is told why in a close frame (1002,
//! 1007, 1008, 1009) before the connection goes. Every frame goes through
//! [`read_frame`], the one place that turns a frame into a message for the
//! room, an answer from the connection (typed [`ServerMsg`]s: refusals,
//! `pong`), or a close.

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::oneshot;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::error::ProtocolError;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message, Utf8Bytes};

use crate::server::chat::flood::ChatPlace;
use crate::server::chat::guard::ChatRefused;
use crate::server::metrics::Metrics;
use crate::server::play::protocol::{ClientMsg, ErrorCode, Refusal, ServerMsg, parse_client};
use crate::server::play::room::{Command, ConnId, Outbox, Room, mailbox};
use crate::server::play::rooms::Rooms;
use crate::server::players::account::UserId;
use crate::server::web::frame_meter::RateExceeded;
use crate::server::web::outgoing;
use crate::server::web::rtt::RttMeter;
use crate::server::web::upgrade::Ws as WebSocket;

/// Close codes (RFC 6455 7.4.1).
pub(crate) mod close_code {
    pub const NORMAL: u16 = 1000;
    pub const AWAY: u16 = 1001;
    pub const PROTOCOL: u16 = 1002;
    pub const INVALID: u16 = 1007;
    pub const POLICY: u16 = 1008;
    pub const SIZE: u16 = 1009;
    pub const ERROR: u16 = 1011;
    /// "Service restart": the game moved to another node (several nodes); reconnect with the
    /// last `v` and the next connection reaches its current owner.
    pub const RESTART: u16 = 1012;
}

/// Why a connection closes when its room stopped sending: the room dropped it for being too
/// slow (1013), the game moved to another node (1012), the server is shutting down (1001),
/// or the game retired (1000).
fn ended_reason(lagged: bool, room: &Room, shutting_down: bool) -> (u16, Cow<'static, str>) {
    if lagged {
        (
            TRY_AGAIN_LATER,
            "outgoing queue full; reconnect with your last v".into(),
        )
    } else if room.moved() {
        (
            close_code::RESTART,
            "service restart; reconnect with your last v".into(),
        )
    } else if shutting_down {
        (close_code::AWAY, "server shutting down".into())
    } else {
        (close_code::NORMAL, "game retired".into())
    }
}

/// How long a closing connection waits for the client's close frame.
const CLOSE_WAIT: Duration = Duration::from_secs(3);

/// Close code for a client that cannot keep up with its messages.
pub(crate) const TRY_AGAIN_LATER: u16 = 1013;

/// How long one write may wait on a client that does not read. A socket
/// task blocked in a write never gets back to its loop (queue, idle check),
/// so without this a client that stops reading holds its connection, task
/// and buffers forever, even after the room dropped it.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends one message; false if the connection failed or the client took
/// nothing for [`WRITE_TIMEOUT`].
pub(crate) async fn send(ws: &mut WebSocket, message: Message) -> bool {
    matches!(
        tokio::time::timeout(WRITE_TIMEOUT, ws.send(message)).await,
        Ok(Ok(()))
    )
}

/// At most this many queued messages go out with one flush (one socket write): bounds the
/// buffer a burst can build up.
const MAX_WRITE_BATCH: usize = 16;

/// Writes `first` and whatever else is already queued for the connection with one flush: the
/// room queues a mover's `ack` and the `move` event together, and one socket write instead of
/// two saves a `sendto` (a loopback `sendto` costs the sender the receiver's TCP processing
/// too). Nothing waits for more messages to come: a lone message leaves at once. The frames
/// go out past tungstenite's write buffer ([`outgoing`]), so an idle socket keeps none. False
/// if the connection failed or the client took nothing for [`WRITE_TIMEOUT`].
pub(crate) async fn send_queued<S>(
    ws: &mut WebSocketStream<S>,
    first: Utf8Bytes,
    inbox: &mut mailbox::Receiver<Utf8Bytes>,
) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut batch = vec![first];
    while batch.len() < MAX_WRITE_BATCH {
        match inbox.try_recv() {
            Ok(text) => batch.push(text),
            Err(_) => break,
        }
    }
    send_texts(ws, &batch).await
}

/// Writes text messages (one write, flushed); false if the connection failed or the client
/// took nothing for [`WRITE_TIMEOUT`].
pub(crate) async fn send_texts<S>(ws: &mut WebSocketStream<S>, texts: &[Utf8Bytes]) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    matches!(
        tokio::time::timeout(WRITE_TIMEOUT, outgoing::write_texts(ws, texts)).await,
        Ok(Ok(()))
    )
}

/// One connection in the connection gauge, for as long as it lives: counted when made, and
/// taken off however the task ends.
pub(crate) struct Counted(Arc<Metrics>);

impl Counted {
    pub(crate) fn new(metrics: &Arc<Metrics>) -> Counted {
        metrics.connections.fetch_add(1, Ordering::Relaxed);
        Counted(Arc::clone(metrics))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Runs one connection to `room` until it closes.
pub async fn run(
    mut ws: WebSocket,
    rooms: Arc<Rooms>,
    mut room: Arc<Room>,
    token: Option<String>,
    (account, ip): (Option<UserId>, IpAddr),
    since: Option<u64>,
    shutdown: tokio::sync::watch::Receiver<bool>,
) {
    // Every wait that is not the loop's own (the registration, a write, the close) runs in a
    // future of its own on the heap, only while it runs: the task's future, held for as long
    // as the connection lives, is then what the loop keeps between messages (the whole task
    // 1,640 bytes; 3,256 with them inline and the stream unboxed).
    let _counted = Counted::new(&rooms.metrics);
    let config = Arc::clone(&rooms.config);
    let conn: ConnId = crate::server::play::room::fanout::next_conn();
    let (queue, mut inbox) = mailbox::channel::<Utf8Bytes>(config.outgoing_queue);
    let lagged = Arc::new(AtomicBool::new(false));

    // Register with the room; if it retired meanwhile, look it up again once.
    let mut connected = false;
    for _ in 0..2 {
        let (done, registered) = oneshot::channel();
        let command = Command::Connect {
            conn,
            token: token.clone(),
            account,
            since,
            outbox: Outbox {
                queue: queue.clone(),
                lagged: Arc::clone(&lagged),
            },
            done,
        };
        if room.send(command).await.is_ok() && registered.await.is_ok() {
            connected = true;
            break;
        }
        match Box::pin(rooms.get(&room.id)).await {
            Ok(Some(again)) => room = again,
            _ => break,
        }
    }
    drop(queue);
    if !connected {
        Box::pin(close(&mut ws, close_code::ERROR, "game unavailable")).await;
        return;
    }

    let mut last_heard = Instant::now();
    let mut last_ping = Instant::now();
    // A socket that came with a seat token pings every `--game-ping-interval-ms` while its
    // room measures the players' links ([`Room::measures_lag`]: a live clock being played):
    // its pongs measure the link for lag compensation. Otherwise, and for every spectator,
    // whose round trip is never used, the socket pings only to keep the link alive (every
    // `--ping-interval-secs`). A seated socket still wakes at the game interval, so that it
    // starts measuring within one interval of the game starting.
    let measuring = token.is_some();
    let lag_interval = config.ping_interval.min(config.game_ping_interval);
    let ping_interval = |room: &Room| {
        if measuring && room.measures_lag() {
            lag_interval
        } else {
            config.ping_interval
        }
    };
    let mut rtt = RttMeter::default();
    let tick = if measuring {
        lag_interval
    } else {
        config.ping_interval
    }
    .min(config.idle_timeout / 4)
    .max(Duration::from_millis(20));
    let mut ticker = tokio::time::interval(tick);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);

    // One wait for shutdown for the whole connection: a `changed()` made anew at every turn of
    // the loop registered with, and then left, the one watch all connections share (two
    // locks of its mutex per message written).
    let shutting_down = shutdown.clone();
    let mut shutdown = shutdown;
    let signal = shutdown.changed();
    tokio::pin!(signal);
    let reason: Option<(u16, Cow<'static, str>)> = loop {
        tokio::select! {
            biased;
            _ = &mut signal => break Some((close_code::AWAY, "server shutting down".into())),
            outgoing = inbox.recv() => match outgoing {
                Some(text) => {
                    if !Box::pin(send_queued(&mut ws, text, &mut inbox)).await {
                        break None;
                    }
                }
                // The room stops on shutdown too; say why the right way.
                None => break Some(ended_reason(
                    lagged.load(Ordering::Relaxed),
                    &room,
                    *shutting_down.borrow(),
                )),
            },
            incoming = ws.next() => {
                let now = Instant::now();
                let message = match incoming {
                    Some(Ok(message)) => message,
                    Some(Err(error)) => break close_for(&error),
                    None => break None,
                };
                last_heard = now;
                if let Message::Pong(payload) = &message
                    && let Some(sample) = rtt.pong(payload, now)
                {
                    rooms.metrics.ping_rtt.observe(sample);
                }
                match read_frame(message, config.max_message_bytes) {
                    Frame::Nothing => {}
                    Frame::Reply(reply) => {
                        if !Box::pin(send_texts(&mut ws, &[reply.to_text().into()])).await {
                            break None;
                        }
                    }
                    Frame::Forward(msg) => {
                        if let Some(refusal) = over_client_chat(&rooms, &room.id, (account, ip), &msg, now) {
                            let reply = ServerMsg::error(&refusal, None);
                            if !Box::pin(send_texts(&mut ws, &[reply.to_text().into()])).await {
                                break None;
                            }
                            continue;
                        }
                        let rtt = rtt.estimate();
                        if room.send(Command::Act { conn, msg, received: now, rtt }).await.is_err() {
                            break Some(ended_reason(false, &room, *shutting_down.borrow()));
                        }
                    }
                    Frame::Closed => {
                        // tungstenite queued the answering close frame; send it.
                        let _ = tokio::time::timeout(CLOSE_WAIT, ws.flush()).await;
                        break None;
                    }
                    Frame::Close(code, why) => break Some((code, why)),
                }
            }
            _ = ticker.tick() => {
                let now = Instant::now();
                if now.saturating_duration_since(last_heard) >= config.idle_timeout {
                    break Some((close_code::NORMAL, "idle timeout".into()));
                }
                // The next measuring ping waits for the last one's pong (a link slower than the
                // interval is still measured); a keepalive goes out every --ping-interval-secs.
                if now.saturating_duration_since(last_ping) >= ping_interval(&room)
                    && rtt.may_ping(now, config.ping_interval)
                {
                    last_ping = now;
                    let nonce = rtt.ping(now);
                    if !Box::pin(send(&mut ws, Message::Ping(nonce.to_vec().into()))).await {
                        break None;
                    }
                }
            }
        }
    };
    let _ = room.send(Command::Disconnect { conn }).await;
    if let Some((code, why)) = reason {
        tracing::debug!(conn, code, %why, "closing connection");
        Box::pin(close(&mut ws, code, &why)).await;
    }
}

/// What one frame from the client asks of its connection.
#[derive(Debug, PartialEq)]
pub(crate) enum Frame {
    /// Nothing (control frames: tungstenite answers pings itself, on the
    /// next read or write).
    Nothing,
    /// An answer from the connection itself; the room is not involved (a
    /// refused frame, a `pong`).
    Reply(ServerMsg),
    /// A message for the room.
    Forward(ClientMsg),
    /// The client closed; its close frame is answered.
    Closed,
    /// Close the connection with this code and reason.
    Close(u16, Cow<'static, str>),
}

/// Reads one client frame: the one place where a frame becomes a message,
/// a refusal, or a reason to close. `ping` is answered here (it needs
/// nothing from the game, and a busy room must not delay it).
pub(crate) fn read_frame(message: Message, max_message_bytes: usize) -> Frame {
    let too_big = || Frame::Close(close_code::SIZE, "message too big".into());
    let text = match message {
        Message::Text(text) => text,
        Message::Binary(bytes) if bytes.len() > max_message_bytes => return too_big(),
        Message::Binary(_) => {
            let refusal = Refusal::new(
                ErrorCode::BadJson,
                "binary frames are not used; send JSON text",
            );
            return Frame::Reply(ServerMsg::error(&refusal, None));
        }
        Message::Ping(_) | Message::Pong(_) => return Frame::Nothing,
        Message::Close(_) => return Frame::Closed,
        // Only ever produced for writing raw frames.
        Message::Frame(_) => return Frame::Nothing,
    };
    if text.len() > max_message_bytes {
        return too_big();
    }
    match parse_client(text.as_str()) {
        // A refused `move` is answered with its id when it has a readable one.
        Err(refused) => Frame::Reply(ServerMsg::Error(refused.error_msg())),
        Ok(ClientMsg::Ping) => Frame::Reply(ServerMsg::Pong),
        Ok(msg) => Frame::Forward(msg),
    }
}

/// A chat line the chat rules refuse ([`crate::server::chat::guard`]: the word list, the
/// flood rule) or over its client's share ([`crate::server::chat::flood`]), refused here: the
/// room never sees it. Anything else passes.
fn over_client_chat(
    rooms: &Rooms,
    game: &str,
    (account, ip): (Option<UserId>, IpAddr),
    msg: &ClientMsg,
    now: Instant,
) -> Option<Refusal> {
    let ClientMsg::Chat { room, text } = msg else {
        return None;
    };
    if let Err(refused) = rooms
        .clients
        .chat_rules
        .check(ip, account, text.as_str(), now)
    {
        return Some(chat_rule_refusal(refused));
    }
    let place = ChatPlace::game(game, *room);
    let limited = rooms.clients.chat.check(ip, account, &place, now).err()?;
    Some(client_chat_refusal(limited.retry_after_secs))
}

/// A line the chat rules that need no moderator refuse ([`ChatGuard`]): `chat_word`, or
/// `chat_silenced` with the seconds of silence left as `retry_after_secs`.
///
/// [`ChatGuard`]: crate::server::chat::guard::ChatGuard
pub(crate) fn chat_rule_refusal(refused: ChatRefused) -> Refusal {
    match refused {
        ChatRefused::Word => Refusal::new(ErrorCode::ChatWord, refused.message()),
        ChatRefused::Silenced { secs, .. } => {
            Refusal::new(ErrorCode::ChatSilenced, refused.message()).retry_after(secs)
        }
    }
}

/// `rate_limited` for a chat line over its client's share, with when to try again.
pub(crate) fn client_chat_refusal(retry_after_secs: u64) -> Refusal {
    Refusal::new(
        ErrorCode::RateLimited,
        format!(
            "too many chat lines from your address or account; the line was not sent, try again in {retry_after_secs} s"
        ),
    )
    .retry_after(retry_after_secs)
}

/// Longest close reason: a close frame's payload is at most 125 bytes, two
/// of them the code.
const MAX_REASON_BYTES: usize = 123;

/// The close frame owed to a client whose frames tungstenite (or the frame
/// meter) refused; `None` when the connection is already gone.
pub(crate) fn close_for(error: &WsError) -> Option<(u16, Cow<'static, str>)> {
    match error {
        WsError::Capacity(_) => Some((close_code::SIZE, "message too big".into())),
        WsError::Utf8(_) => Some((
            close_code::INVALID,
            "invalid UTF-8 in a text message".into(),
        )),
        WsError::Io(io) if RateExceeded::is(io) => {
            Some((close_code::POLICY, "rate limit exceeded".into()))
        }
        WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => None,
        WsError::Protocol(violation) => {
            let mut why = format!("protocol error: {violation}");
            while why.len() > MAX_REASON_BYTES {
                why.pop();
            }
            Some((close_code::PROTOCOL, why.into()))
        }
        _ => None,
    }
}

/// Sends a close frame and waits (bounded) for the client's answering close,
/// so that the client reads our code and reason before the TCP connection goes.
pub(crate) async fn close(ws: &mut WebSocket, code: u16, reason: &str) {
    let frame = CloseFrame {
        code: CloseCode::from(code),
        reason: Utf8Bytes::from(reason.to_string()),
    };
    let handshake = async {
        if ws.send(Message::Close(Some(frame))).await.is_err() {
            return;
        }
        // After a read error the stream has ended: this returns at once.
        while let Some(Ok(message)) = ws.next().await {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(CLOSE_WAIT, handshake).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::Bytes;

    const MAX: usize = 64;

    fn reply_code(frame: Frame) -> Option<ErrorCode> {
        match frame {
            Frame::Reply(ServerMsg::Error(error)) => Some(error.code),
            _ => None,
        }
    }

    /// A socket that records what is written to it and in how many writes; reads never end.
    #[derive(Clone, Default)]
    struct Recorder {
        written: Arc<std::sync::Mutex<Vec<Vec<u8>>>>,
    }

    impl tokio::io::AsyncRead for Recorder {
        fn poll_read(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            _: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Pending
        }
    }

    impl tokio::io::AsyncWrite for Recorder {
        fn poll_write(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            self.written
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(buf.to_vec());
            std::task::Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn the_messages_queued_for_a_connection_leave_in_one_socket_write() {
        let socket = Recorder::default();
        let config = crate::server::config::Config::new(
            std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            "unused",
        );
        let mut ws = tokio_tungstenite::WebSocketStream::from_raw_socket(
            socket.clone(),
            tokio_tungstenite::tungstenite::protocol::Role::Server,
            Some(crate::server::web::upgrade::websocket_config(&config)),
        )
        .await;
        // What the room queues for a mover: its ack, then the move event.
        let (queue, mut inbox) = mailbox::channel(8);
        for text in [r#"{"t":"ack","id":"a1"}"#, r#"{"t":"move","v":3}"#] {
            queue
                .try_send(Utf8Bytes::from(text))
                .expect("room in the queue");
        }
        let first = inbox.recv().await.expect("queued");
        assert!(send_queued(&mut ws, first, &mut inbox).await);
        let written = socket
            .written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        assert_eq!(written.len(), 1, "one write: {written:?}");
        let bytes = String::from_utf8_lossy(&written[0]).into_owned();
        assert!(bytes.contains(r#"{"t":"ack","id":"a1"}"#), "{bytes}");
        assert!(bytes.contains(r#"{"t":"move","v":3}"#), "{bytes}");
        assert!(inbox.try_recv().is_err(), "nothing left behind");
    }

    #[test]
    fn a_ping_message_is_answered_by_the_connection_with_a_pong() {
        let frame = read_frame(Message::text(r#"{"t":"ping"}"#), MAX);
        assert_eq!(frame, Frame::Reply(ServerMsg::Pong));
    }

    #[test]
    fn text_that_is_not_json_is_refused_as_bad_json_and_the_connection_kept() {
        for text in ["not json", "", "\u{0}", "[1,2", r#"{"t":1}"#] {
            let frame = read_frame(Message::text(text), MAX);
            assert_eq!(reply_code(frame), Some(ErrorCode::BadJson), "{text:?}");
        }
    }

    #[test]
    fn a_move_the_parser_refuses_is_answered_with_its_id() {
        let text = r#"{"t":"move","d":{"uci":"e2e4","id":"a1","v":-1}}"#;
        match read_frame(Message::text(text), MAX) {
            Frame::Reply(ServerMsg::Error(error)) => {
                assert_eq!(error.code, ErrorCode::BadMessage);
                assert_eq!(error.id.as_deref(), Some("a1"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_binary_frame_is_refused_as_bad_json_and_the_connection_kept() {
        let frame = read_frame(Message::Binary(Bytes::from_static(br#"{"t":"ping"}"#)), MAX);
        assert_eq!(reply_code(frame), Some(ErrorCode::BadJson));
    }

    #[test]
    fn a_frame_over_the_message_limit_closes_with_1009_whether_text_or_binary() {
        let big = "x".repeat(MAX + 1);
        for message in [
            Message::text(big.clone()),
            Message::Binary(Bytes::from(big.into_bytes())),
        ] {
            assert_eq!(
                read_frame(message, MAX),
                Frame::Close(close_code::SIZE, "message too big".into())
            );
        }
    }

    #[test]
    fn a_game_message_goes_to_the_room_and_control_frames_go_nowhere() {
        assert_eq!(
            read_frame(Message::text(r#"{"t":"resign"}"#), MAX),
            Frame::Forward(ClientMsg::Resign)
        );
        assert_eq!(read_frame(Message::Ping(Bytes::new()), MAX), Frame::Nothing);
        assert_eq!(read_frame(Message::Pong(Bytes::new()), MAX), Frame::Nothing);
        assert_eq!(read_frame(Message::Close(None), MAX), Frame::Closed);
    }
}
