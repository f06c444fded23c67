//! A WebSocket connection made by hand on a TCP stream, for the wire-level
//! tests: frames no well-behaved library would send (fragments, bad UTF-8,
//! lying lengths, floods of empty frames) and clients that never read.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::WAIT;

/// Frame opcodes.
pub const CONTINUATION: u8 = 0x0;
pub const TEXT: u8 = 0x1;
pub const BINARY: u8 = 0x2;
pub const CLOSE: u8 = 0x8;
pub const PING: u8 = 0x9;

pub struct RawWs {
    pub stream: TcpStream,
    /// Bytes read but not yet parsed into frames (grows as needed).
    buffer: Vec<u8>,
}

impl RawWs {
    /// Connects and upgrades `path`; Err if the server does not answer 101.
    pub async fn connect(addr: SocketAddr, path: &str) -> Result<RawWs, String> {
        let stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
        RawWs::upgrade(stream, addr, path).await
    }

    /// Upgrades `path` on a stream the caller set up (e.g. with a tiny
    /// receive buffer, for a reader that never reads).
    pub async fn upgrade(
        mut stream: TcpStream,
        addr: SocketAddr,
        path: &str,
    ) -> Result<RawWs, String> {
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        let mut buffer = Vec::new();
        let head_end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            let mut chunk = [0u8; 1024];
            let n = tokio::time::timeout(WAIT, stream.read(&mut chunk))
                .await
                .map_err(|_| "handshake timeout".to_string())?
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("closed during the handshake".into());
            }
            buffer.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
        if !head.starts_with("HTTP/1.1 101") {
            return Err(format!("no upgrade: {head}"));
        }
        buffer.drain(..head_end);
        Ok(RawWs { stream, buffer })
    }

    /// Writes one masked client frame.
    pub async fn send_frame(&mut self, fin: bool, opcode: u8, payload: &[u8]) -> bool {
        self.stream
            .write_all(&client_frame(fin, opcode, payload))
            .await
            .is_ok()
    }

    /// Writes raw bytes (e.g. a header that lies about its length).
    pub async fn send_bytes(&mut self, bytes: &[u8]) -> bool {
        self.stream.write_all(bytes).await.is_ok()
    }

    /// The next server frame (opcode, payload) within `wait`; `None` on
    /// timeout or when the connection ends.
    pub async fn read_frame(&mut self, wait: Duration) -> Option<(u8, Vec<u8>)> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some((frame, used)) = parse_server_frame(&self.buffer) {
                self.buffer.drain(..used);
                return Some(frame);
            }
            let mut chunk = [0u8; 8192];
            let n = tokio::time::timeout_at(deadline, self.stream.read(&mut chunk))
                .await
                .ok()?
                .ok()?;
            if n == 0 {
                return None;
            }
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    /// Reads frames until a text frame holding JSON of type `t`.
    pub async fn expect_text(&mut self, t: &str, wait: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let (opcode, payload) = self.read_frame(left).await?;
            if opcode == TEXT {
                let v: Value = serde_json::from_slice(&payload).ok()?;
                if v["t"] == t {
                    return Some(v);
                }
            }
        }
    }

    /// Reads until the server's close frame (its code) or the end of the
    /// connection (`None`), within `wait`.
    pub async fn close_code(&mut self, wait: Duration) -> Option<u16> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let (opcode, payload) = self.read_frame(left).await?;
            if opcode == CLOSE {
                return (payload.len() >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]]));
            }
        }
    }

    /// The server's close frame: (code, reason), or `None` if the connection
    /// ended (or stayed open for `wait`) without one with a code.
    pub async fn close_frame(&mut self, wait: Duration) -> Option<(u16, String)> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let (opcode, payload) = self.read_frame(left).await?;
            if let Some(closed) = close_of(opcode, &payload) {
                return Some(closed);
            }
        }
    }
}

/// (code, reason) if this frame is a close frame with a code.
pub fn close_of(opcode: u8, payload: &[u8]) -> Option<(u16, String)> {
    if opcode == CLOSE && payload.len() >= 2 {
        let code = u16::from_be_bytes([payload[0], payload[1]]);
        Some((code, String::from_utf8_lossy(&payload[2..]).into_owned()))
    } else {
        None
    }
}

/// A masked client frame.
pub fn client_frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![(u8::from(fin) << 7) | opcode];
    let len = payload.len();
    if len < 126 {
        out.push(0x80 | len as u8);
    } else if len <= 0xffff {
        out.push(0x80 | 126);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0x80 | 127);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    let mask = [0x37u8, 0xfa, 0x21, 0x3d];
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    out
}

/// One unmasked server frame at the start of `buf`: ((opcode, payload), bytes used).
fn parse_server_frame(buf: &[u8]) -> Option<((u8, Vec<u8>), usize)> {
    if buf.len() < 2 {
        return None;
    }
    let opcode = buf[0] & 0x0f;
    let short = usize::from(buf[1] & 0x7f);
    let (len, mut at): (usize, usize) = match short {
        126 => (
            usize::from(u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?])),
            4,
        ),
        127 => {
            let bytes: [u8; 8] = buf.get(2..10)?.try_into().ok()?;
            (usize::try_from(u64::from_be_bytes(bytes)).ok()?, 10)
        }
        n => (n, 2),
    };
    if buf[1] & 0x80 != 0 {
        at += 4;
    }
    let end = at.checked_add(len)?;
    let payload = buf.get(at..end)?.to_vec();
    Some(((opcode, payload), end))
}
