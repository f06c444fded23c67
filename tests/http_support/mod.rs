//! The tiny HTTP/1.1 client shared by the server and reliability test
//! helpers: one `Connection: close` request written by hand on a TcpStream
//! (so no HTTP client crate is needed), the status line and body parsed back,
//! chunked bodies decoded. Failures are values; callers that want to panic
//! wrap this.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One HTTP/1.1 request with `Connection: close`, bounded by `wait`;
/// (status, body) or why not.
pub async fn request(
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
    let reply = exchange(addr, &request, wait).await?;
    Ok((reply.status, reply.body))
}

/// A response read to the end of the connection.
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
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
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
