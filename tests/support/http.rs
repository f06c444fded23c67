//! The one HTTP/1.1 client of the tests: a `Connection: close` request
//! written by hand on a TcpStream (so no HTTP client crate is needed, and
//! limit tests can send bytes no client library would), the status line,
//! headers and body parsed back, chunked bodies decoded; from any loopback
//! source address if asked ([`exchange_from`]). `try_*` and [`exchange`]
//! return failures as values; the rest panic within [`WAIT`].

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use super::WAIT;

/// One request with `Connection: close` and a JSON content type; (status,
/// body), or panics if there is no HTTP response within [`WAIT`].
pub async fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let bytes = body.unwrap_or("").as_bytes();
    match request(addr, method, path, bytes, WAIT).await {
        Ok(answer) => answer,
        Err(why) => panic!("http {method} {path}: {why}"),
    }
}

/// [`http`] with failures as values (raw bytes for the body).
pub async fn try_http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&[u8]>,
) -> Result<(u16, String), String> {
    request(addr, method, path, body.unwrap_or(b""), WAIT).await
}

/// JSON in, JSON out: (status, parsed body); panics if the body is not JSON.
pub async fn json(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let text = body.map(Value::to_string);
    let (status, reply) = http(addr, method, path, text.as_deref()).await;
    let value = serde_json::from_str(&reply).unwrap_or_else(|e| {
        panic!("{method} {path}: {status} with a non-JSON body {reply:?}: {e}")
    });
    (status, value)
}

/// One HTTP/1.1 request with `Connection: close`, bounded by `wait`;
/// (status, body) or why not.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
    wait: Duration,
) -> Result<(u16, String), String> {
    request_from(None, addr, method, path, body, wait).await
}

/// [`request`] from the loopback address `source` ([`connect_from`]): a client of its own,
/// which the server's limits per client count apart.
pub async fn request_from(
    source: Option<IpAddr>,
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
    wait: Duration,
) -> Result<(u16, String), String> {
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    let reply = exchange_from(source, addr, &request, wait).await?;
    Ok((reply.status, reply.body))
}

/// A request head written by hand (`Connection: close`, so that the server
/// ends the exchange by closing), with these extra header lines.
pub fn head(method: &str, path: &str, headers: &[&str]) -> Vec<u8> {
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for header in headers {
        text.push_str(header);
        text.push_str("\r\n");
    }
    text.push_str("\r\n");
    text.into_bytes()
}

/// A response read to the end of the connection.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// The status line and headers, as sent.
    pub head: String,
    /// The body (a chunked body decoded).
    pub body: String,
}

impl Reply {
    /// The value of the first header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then_some(value.trim())
        })
    }
}

/// Writes `request` (raw bytes, whatever they are) on a new connection and
/// reads until the server closes it, bounded by `wait`.
pub async fn exchange(addr: SocketAddr, request: &[u8], wait: Duration) -> Result<Reply, String> {
    exchange_from(None, addr, request, wait).await
}

/// A connection to `addr` from `source` (port chosen by the kernel), or from the address the
/// kernel picks. Any of 127.0.0.0/8 is a source on Linux with no setup, so tests can be many
/// clients of distinct addresses on one machine.
pub async fn connect_from(source: Option<IpAddr>, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let Some(source) = source else {
        return TcpStream::connect(addr).await;
    };
    let socket = match source {
        IpAddr::V4(_) => TcpSocket::new_v4()?,
        IpAddr::V6(_) => TcpSocket::new_v6()?,
    };
    socket.bind(SocketAddr::new(source, 0))?;
    socket.connect(addr).await
}

/// [`exchange`] from the source address `source` ([`connect_from`]).
pub async fn exchange_from(
    source: Option<IpAddr>,
    addr: SocketAddr,
    request: &[u8],
    wait: Duration,
) -> Result<Reply, String> {
    let exchange = async {
        let mut stream = connect_from(source, addr)
            .await
            .map_err(|e| e.to_string())?;
        // The server may answer (413, 400) before reading a large body and
        // close: a failed write is then not a failure of the exchange, and
        // whatever was read decides.
        let _ = stream.write_all(request).await;
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw).await;
        Ok::<_, String>(raw)
    };
    let raw = tokio::time::timeout(wait, exchange)
        .await
        .map_err(|_| "http timeout".to_string())??;
    parse_response(&String::from_utf8_lossy(&raw))
}

/// A connection that has sent `prefix` (perhaps nothing, perhaps half a
/// request) and is kept open by the caller; `None` if it cannot connect.
pub async fn half_open(addr: SocketAddr, prefix: &[u8]) -> Option<TcpStream> {
    let mut stream = TcpStream::connect(addr).await.ok()?;
    if !prefix.is_empty() {
        // The server may already have refused the connection: what it then
        // sends (or not) is the caller's to judge.
        let _ = stream.write_all(prefix).await;
    }
    Some(stream)
}

/// A connection that has sent all of `bytes`; Err if it cannot connect or
/// the write fails.
pub async fn connect_and_send(addr: SocketAddr, bytes: &[u8]) -> Result<TcpStream, String> {
    connect_and_send_from(None, addr, bytes).await
}

/// [`connect_and_send`] from the source address `source` ([`connect_from`]).
pub async fn connect_and_send_from(
    source: Option<IpAddr>,
    addr: SocketAddr,
    bytes: &[u8],
) -> Result<TcpStream, String> {
    let mut stream = connect_from(source, addr)
        .await
        .map_err(|e| e.to_string())?;
    stream.write_all(bytes).await.map_err(|e| e.to_string())?;
    Ok(stream)
}

/// Everything the server sends on `stream` until it closes it; `None` if it
/// is still open after `wait`.
pub async fn read_until_closed(stream: &mut TcpStream, wait: Duration) -> Option<Vec<u8>> {
    let mut raw = Vec::new();
    let read = tokio::time::timeout(wait, stream.read_to_end(&mut raw)).await;
    read.ok().map(|_| raw)
}

/// True if the server sends a byte or ends the connection within `wait`.
pub async fn answers_or_closes(stream: &mut TcpStream, wait: Duration) -> bool {
    let mut byte = [0u8; 1];
    tokio::time::timeout(wait, stream.read(&mut byte))
        .await
        .is_ok()
}

/// One value of the `/metrics` exposition (an unlabelled line `name value`);
/// `None` if there is no such line or no 200 answer.
pub async fn metric(addr: SocketAddr, name: &str) -> Option<f64> {
    let (status, body) = try_http(addr, "GET", "/metrics", None).await.ok()?;
    if status != 200 {
        return None;
    }
    body.lines().find_map(|line| {
        let (key, value) = line.split_once(' ')?;
        (key == name).then(|| value.trim().parse().ok())?
    })
}

/// Status, head and body of a whole response; a chunked body is decoded.
fn parse_response(text: &str) -> Result<Reply, String> {
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("no http response: {text:?}"))?;
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status: {head:?}"))?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    Ok(Reply {
        status,
        head: head.to_string(),
        body,
    })
}

/// The data of a chunked body; stops at the last chunk or at a truncated one.
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n || !tail.is_char_boundary(n) {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}
