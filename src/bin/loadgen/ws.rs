//! WebSocket client side: connecting with small buffers (thousands of
//! client connections live in this process too), and reading the few
//! fields of server messages that the load generator needs.

use std::net::SocketAddr;
use std::time::Duration;

use serde::Deserialize;
use tokio::net::TcpStream;
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

/// Opens `ws://addr{path}`.
pub async fn connect(addr: SocketAddr, path: &str) -> Result<Ws, ConnectError> {
    tokio::time::timeout(CONNECT_TIMEOUT, async {
        let tcp = TcpStream::connect(addr).await?;
        tcp.set_nodelay(true)?;
        let url = format!("ws://{addr}{path}");
        let (ws, _) = client_async_with_config(url, tcp, Some(small_config())).await?;
        Ok(ws)
    })
    .await
    .map_err(|_| ConnectError::Timeout(CONNECT_TIMEOUT))?
}

/// The envelope of a server message, with the fields of `d` the players use.
#[derive(Deserialize, Debug)]
pub struct Incoming<'a> {
    #[serde(borrow)]
    pub t: &'a str,
    #[serde(default)]
    pub v: Option<u64>,
    #[serde(borrow, default)]
    pub d: Option<Data<'a>>,
}

/// Fields of `d` across message types (`move`, `state`, `ack`, `error`).
#[derive(Deserialize, Debug, Default)]
pub struct Data<'a> {
    /// `move`, `state`: the side to move next.
    #[serde(borrow, default)]
    pub turn: Option<&'a str>,
    /// `move`, `state`: its legal sub-moves.
    #[serde(borrow, default)]
    pub legal: Option<Vec<&'a str>>,
    /// `move`, `state`: the position (for `--long-games`).
    #[serde(borrow, default)]
    pub fen: Option<&'a str>,
    /// `state`: open / playing / finished.
    #[serde(borrow, default)]
    pub status: Option<&'a str>,
    /// `ack`: the version the move got.
    #[serde(default)]
    pub v: Option<u64>,
    /// `end`: why the game ended.
    #[serde(borrow, default)]
    pub reason: Option<&'a str>,
    /// `error`: the code.
    #[serde(default)]
    pub code: Option<String>,
}

/// Reads a text frame; `None` when it is not the JSON the protocol describes.
pub fn parse(text: &str) -> Option<Incoming<'_>> {
    serde_json::from_str(text).ok()
}

/// The version of an event without looking at its contents (spectators).
#[derive(Deserialize)]
pub struct Versioned<'a> {
    #[serde(borrow)]
    pub t: &'a str,
    #[serde(default)]
    pub v: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_event_gives_the_next_turn_and_its_legal_moves() {
        let text = r#"{"t":"move","v":2,"d":{"uci":"e2e4","san":"e4","color":"white","fen":"x",
            "turn":"black","phase":"first","check":false,"legal":["a7a6","e7e5"],
            "clock":null,"first_move_ms":null,"draw_offer":null,"claims":[]}}"#;
        let msg = parse(text).expect("parses");
        let d = msg.d.expect("d");
        assert_eq!((msg.t, msg.v), ("move", Some(2)));
        assert_eq!(d.turn, Some("black"));
        assert_eq!(d.legal, Some(vec!["a7a6", "e7e5"]));
    }

    #[test]
    fn an_error_with_an_escaped_message_still_parses() {
        let text = r#"{"t":"error","d":{"code":"illegal_move","message":"say \"no\"","id":"3"}}"#;
        let msg = parse(text).expect("parses");
        assert_eq!(msg.d.and_then(|d| d.code).as_deref(), Some("illegal_move"));
    }
}
