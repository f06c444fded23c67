//! WebSocket client side: connecting with small buffers (thousands of
//! client connections live in this process too), reading server messages
//! into the server's own typed [`ServerMsg`], and writing the players'
//! sub-moves as [`ClientMsg`]s (the load generator speaks the types the
//! server writes and parses).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::time::Duration;

use marseillais::rules::SubMove;
use marseillais::server::play::protocol::{ClientMsg, ErrorCode, ServerMsg, Side};
use serde::Deserialize;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{WebSocketStream, client_async_with_config};

pub type Ws = WebSocketStream<TcpStream>;

/// A connection attempt is abandoned after this long.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("tcp: {0}")]
    Tcp(#[from] std::io::Error),
    #[error("websocket handshake: {0}")]
    Handshake(#[from] tokio_tungstenite::tungstenite::Error),
    #[error("no connection within {0:?}")]
    Timeout(Duration),
}

/// Small buffers: the default 128 KiB read buffer per connection would make
/// the load generator's own memory dominate the machine.
pub fn small_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0)
        .max_write_buffer_size(1 << 20)
}

/// How many loopback source addresses the connections are spread over (`--source-addrs`).
static SOURCES: AtomicU8 = AtomicU8::new(1);

/// The next connection's source address, in turn.
static NEXT_SOURCE: AtomicUsize = AtomicUsize::new(0);

/// Spreads the connections made from now on over 127.0.0.1 .. 127.0.0.`n` (1..=250).
pub fn spread_sources(n: u8) {
    SOURCES.store(n.clamp(1, 250), Ordering::Relaxed);
}

/// Raises this process's soft open-files limit to its hard one (every connection is a
/// descriptor); says so when even the hard limit is below what a run may need.
pub fn raise_open_files_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if let (Some(soft), Some(hard)) = (limit.current, limit.maximum)
        && soft < hard
    {
        let raised = Rlimit {
            current: Some(hard),
            maximum: Some(hard),
        };
        if let Err(error) = setrlimit(Resource::Nofile, raised) {
            eprintln!("loadgen: could not raise the open-files limit to {hard}: {error}");
        }
    }
}

/// A TCP connection to `addr` from the next source address: the loopback addresses
/// 127.0.0.1 .. 127.0.0.`n` each have their own ephemeral ports towards one server port.
pub async fn tcp_connect(addr: SocketAddr) -> std::io::Result<TcpStream> {
    let sources = usize::from(SOURCES.load(Ordering::Relaxed));
    if sources <= 1 || !addr.ip().is_loopback() || !addr.is_ipv4() {
        return TcpStream::connect(addr).await;
    }
    let index = NEXT_SOURCE.fetch_add(1, Ordering::Relaxed) % sources;
    // index < 250, so the last octet is 1..=250.
    let octet = u8::try_from(index + 1).unwrap_or(1);
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from(([127, 0, 0, octet], 0)))?;
    socket.connect(addr).await
}

/// Opens `ws://addr{path}`.
pub async fn connect(addr: SocketAddr, path: &str) -> Result<Ws, ConnectError> {
    tokio::time::timeout(CONNECT_TIMEOUT, async {
        let tcp = tcp_connect(addr).await?;
        tcp.set_nodelay(true)?;
        let url = format!("ws://{addr}{path}");
        let (ws, _) = client_async_with_config(url, tcp, Some(small_config())).await?;
        Ok(ws)
    })
    .await
    .map_err(|_| ConnectError::Timeout(CONNECT_TIMEOUT))?
}

/// Like [`connect`], as the account of session cookie `cookie` (with our own `Origin`).
pub async fn connect_as(addr: SocketAddr, path: &str, cookie: &str) -> Result<Ws, ConnectError> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::http::HeaderValue;
    tokio::time::timeout(CONNECT_TIMEOUT, async {
        let tcp = tcp_connect(addr).await?;
        tcp.set_nodelay(true)?;
        let mut request = format!("ws://{addr}{path}").into_client_request()?;
        let headers = request.headers_mut();
        for (name, value) in [
            ("cookie", cookie.to_owned()),
            ("origin", format!("http://{addr}")),
        ] {
            let value = HeaderValue::from_str(&value)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
            headers.insert(name, value);
        }
        let (ws, _) = client_async_with_config(request, tcp, Some(small_config())).await?;
        Ok(ws)
    })
    .await
    .map_err(|_| ConnectError::Timeout(CONNECT_TIMEOUT))?
}

/// Reads a text frame into the server's own message type; `None` when it
/// is not a message the protocol describes (the payloads refuse unknown
/// fields, so a server that sends more than `ServerMsg` knows is counted as
/// `unparsed` rather than half read).
pub fn parse(text: &str) -> Option<ServerMsg> {
    ServerMsg::from_text(text).ok()
}

/// The version of an event without reading its payload: both players and
/// every spectator receive each event, and the load generator reads only
/// the first copy of a version in full (a `move` carries the whole `legal`
/// list; its own CPU is part of what the run measures).
#[derive(Deserialize)]
pub struct Versioned<'a> {
    #[serde(borrow)]
    pub t: &'a str,
    #[serde(default)]
    pub v: Option<u64>,
}

/// 0 for white, 1 for black (the players' indices).
pub fn side_index(side: Side) -> usize {
    match side {
        Side::White => 0,
        Side::Black => 1,
    }
}

/// An error code as the wire writes it (`illegal_move`), for the report.
pub fn code_name(code: ErrorCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{code:?}"))
}

/// The `move` message for `mv` with ack id `id`, as the server parses it.
pub fn move_text(mv: SubMove, id: u64) -> String {
    ClientMsg::Move {
        mv,
        id: Some(id.to_string()),
        v: None,
        lag: None,
    }
    .to_text()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn connections_are_spread_over_the_loopback_source_addresses_in_turn() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let addr = listener.local_addr().expect("bound");
        spread_sources(3);
        let mut seen = std::collections::BTreeSet::new();
        let mut clients = Vec::new();
        for _ in 0..6 {
            clients.push(tcp_connect(addr).await.expect("connected"));
            let (_, peer) = listener.accept().await.expect("accepted");
            seen.insert(peer.ip().to_string());
        }
        spread_sources(1);
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            ["127.0.0.1", "127.0.0.2", "127.0.0.3"]
        );
    }

    #[test]
    fn a_move_event_gives_the_next_turn_and_its_legal_moves() {
        let text = r#"{"t":"move","v":2,"d":{"check":false,"claims":[],"clock":null,"color":"white",
            "draw_offer":null,"fen":"x","first_move_ms":null,"legal":["a7a6","e7e5"],
            "phase":"first","san":"e4","turn":"black","uci":"e2e4"}}"#;
        let Some(ServerMsg::Move { v, d }) = parse(text) else {
            panic!("a move: {:?}", parse(text));
        };
        assert_eq!((v, side_index(d.turn)), (2, 1));
        let legal: Vec<String> = d.legal.iter().map(SubMove::to_string).collect();
        assert_eq!(legal, ["a7a6", "e7e5"]);
    }

    #[test]
    fn an_error_with_an_escaped_message_still_parses() {
        let text = r#"{"t":"error","d":{"code":"illegal_move","id":"3","message":"say \"no\""}}"#;
        let Some(ServerMsg::Error(e)) = parse(text) else {
            panic!("an error: {:?}", parse(text));
        };
        assert_eq!(code_name(e.code), "illegal_move");
    }

    #[test]
    fn a_frame_that_is_not_a_server_message_is_not_parsed() {
        assert!(parse("not json").is_none());
        assert!(parse(r#"{"t":"move","v":2,"d":{"uci":"e2e4"}}"#).is_none());
    }

    #[test]
    fn a_move_is_sent_as_the_client_message_the_server_parses() {
        let mv: SubMove = "e2e4".parse().expect("uci");
        let text = move_text(mv, 7);
        let back = marseillais::server::play::protocol::parse_client(&text);
        assert!(
            matches!(&back, Ok(ClientMsg::Move { mv: m, id, .. }) if *m == mv && id.as_deref() == Some("7")),
            "{text} -> {back:?}"
        );
    }
}
