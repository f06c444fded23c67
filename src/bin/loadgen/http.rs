//! A tiny HTTP/1.1 client for the few requests the load generator makes
//! (create, join, metrics): one connection per request with
//! `Connection: close`, so the reply is everything until end of stream.
//! Written by hand on a `TcpStream` to avoid an HTTP client dependency.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Every request is abandoned after this long.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Replies larger than this are refused (the API's replies are small).
const MAX_REPLY: usize = 4 << 20;

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("no reply within {0:?}")]
    Timeout(Duration),
    #[error("malformed reply")]
    Malformed,
    #[error("reply larger than {MAX_REPLY} bytes")]
    TooLarge,
    #[error("status {status}: {body}")]
    Status { status: u16, body: String },
    #[error("unexpected JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Sends one request and returns the status and body.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Result<(u16, String), HttpError> {
    let (status, body, _) = request_as(addr, None, method, path, body).await?;
    Ok((status, body))
}

/// Sends one request as the account of session cookie `cookie` (`name=value`; with our own
/// `Origin`, as a page sends it) and returns the status, the body and the session cookie the
/// reply sets, if any.
pub async fn request_as(
    addr: SocketAddr,
    cookie: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Result<(u16, String, Option<String>), HttpError> {
    tokio::time::timeout(TIMEOUT, exchange(addr, cookie, method, path, body))
        .await
        .map_err(|_| HttpError::Timeout(TIMEOUT))?
}

/// Sends one request and returns the body of a 2xx reply.
pub async fn expect_ok(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Result<String, HttpError> {
    let (status, text) = request(addr, method, path, body).await?;
    if (200..300).contains(&status) {
        Ok(text)
    } else {
        Err(HttpError::Status { status, body: text })
    }
}

async fn exchange(
    addr: SocketAddr,
    cookie: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Result<(u16, String, Option<String>), HttpError> {
    let mut stream = crate::ws::tcp_connect(addr).await?;
    let body = body.unwrap_or("");
    let account = cookie
        .map(|c| format!("Cookie: {c}\r\nOrigin: http://{addr}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         {account}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    let mut reply = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        if reply.len() + n > MAX_REPLY {
            return Err(HttpError::TooLarge);
        }
        reply.extend_from_slice(&chunk[..n]);
    }
    parse_reply(&reply)
}

/// Splits a whole HTTP/1.1 reply into status, body (plain or chunked) and the cookie it sets
/// (`name=value`, attributes left out).
fn parse_reply(reply: &[u8]) -> Result<(u16, String, Option<String>), HttpError> {
    let split = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or(HttpError::Malformed)?;
    let head = std::str::from_utf8(&reply[..split]).map_err(|_| HttpError::Malformed)?;
    let raw_body = &reply[split + 4..];
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or(HttpError::Malformed)?;
    let mut chunked = false;
    let mut set_cookie = None;
    for line in lines {
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
        if lower.starts_with("set-cookie:") {
            set_cookie = line
                .split_once(':')
                .and_then(|(_, value)| value.split(';').next())
                .map(|pair| pair.trim().to_owned());
        }
    }
    let body = if chunked {
        dechunk(raw_body)?
    } else {
        raw_body.to_vec()
    };
    let body = String::from_utf8(body).map_err(|_| HttpError::Malformed)?;
    Ok((status, body, set_cookie))
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, HttpError> {
    let mut out = Vec::new();
    // Each round consumes one chunk; a reply has fewer chunks than bytes.
    for _ in 0..=data.len() {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or(HttpError::Malformed)?;
        let size_text = std::str::from_utf8(&data[..line_end]).map_err(|_| HttpError::Malformed)?;
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| HttpError::Malformed)?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if data.len() < size + 2 {
            return Err(HttpError::Malformed);
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
    Err(HttpError::Malformed)
}

/// Reads one sample value (`name value`, no labels) from Prometheus text.
pub fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (key, value) = line.split_once(' ')?;
            (key == name).then(|| value.trim().parse().ok())?
        })
}

/// Registers the account `username`; its session cookie, or `None` (said on stderr).
pub async fn register(addr: SocketAddr, username: &str, password: &str) -> Option<String> {
    let body = serde_json::json!({"username": username, "password": password}).to_string();
    match request_as(addr, None, "POST", "/api/account/register", Some(&body)).await {
        Ok((201, _, Some(cookie))) => Some(cookie),
        Ok((status, body, _)) => {
            eprintln!("loadgen: register {username}: {status} {body}");
            None
        }
        Err(error) => {
            eprintln!("loadgen: register {username}: {error}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_reply_gives_status_and_body() {
        let reply = b"HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\n{}";
        let (status, body, cookie) = parse_reply(reply).expect("parses");
        assert_eq!((status, body.as_str(), cookie), (201, "{}", None));
    }

    #[test]
    fn a_chunked_reply_is_reassembled() {
        let reply = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        let (_, body, _) = parse_reply(reply).expect("parses");
        assert_eq!(body, "abcde");
    }

    #[test]
    fn a_reply_that_sets_a_session_gives_its_cookie_without_attributes() {
        let reply = b"HTTP/1.1 201 Created\r\nset-cookie: marseillais_session=abc; HttpOnly; Path=/\r\ncontent-length: 2\r\n\r\n{}";
        let (_, _, cookie) = parse_reply(reply).expect("parses");
        assert_eq!(cookie.as_deref(), Some("marseillais_session=abc"));
    }

    #[test]
    fn a_truncated_reply_is_malformed_not_a_panic() {
        assert!(parse_reply(b"HTTP/1.1 200").is_err());
        assert!(
            parse_reply(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nff\r\nab").is_err()
        );
    }

    #[test]
    fn metric_reads_an_unlabelled_sample() {
        let text = "# HELP x y\nmarseillais_connections 12\nmarseillais_live_games 3\n";
        assert_eq!(metric(text, "marseillais_connections"), Some(12.0));
        assert_eq!(metric(text, "marseillais_nothing"), None);
    }
}
