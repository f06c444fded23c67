//! The per-connection rate limit, charged for every WebSocket frame the
//! client sends, as the bytes arrive.
//!
//! tungstenite hands the socket whole messages only: it reassembles
//! fragments inside one `read` call and loops on by itself over continuation
//! frames, so a client that opens a message and then streams empty
//! continuation frames (6 bytes each) never completes a message. Counted at
//! the message level, such a client was never counted at all and held a core
//! at 100 % (three of them pushed everyone's move latency from 0.5 to 9 ms).
//! So the limit sits under tungstenite: [`FrameMeter`] wraps the upgraded
//! byte stream, follows the frame headers in what the client sends (it only
//! needs the header's length fields to skip each payload) and charges one
//! token per frame (data, continuation, ping, pong or close alike). Out of
//! tokens, the read fails with [`RateExceeded`], which the socket turns into
//! close 1008. Protocol errors are left to tungstenite: the meter only counts.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::server::web::bucket::TokenBucket;

/// The per-connection limit: `burst` frames at once, refilled at `rate` per second.
pub type RateLimit = TokenBucket;

/// Why a metered read failed: the client sent frames faster than its limit.
/// Carried inside an [`io::Error`] (kind `Other`) through tungstenite.
#[derive(Debug, thiserror::Error)]
#[error("rate limit exceeded")]
pub struct RateExceeded;

impl RateExceeded {
    /// Whether this I/O error is the meter's refusal.
    pub fn is(error: &io::Error) -> bool {
        error
            .get_ref()
            .is_some_and(|inner| inner.is::<RateExceeded>())
    }
}

/// Follows frame boundaries in the client's byte stream (RFC 6455 5.2).
#[derive(Debug, Clone, Default)]
struct FrameHeaders {
    /// The header bytes read so far (at most 14: 2 + 8 length + 4 mask).
    header: [u8; 14],
    have: usize,
    /// Payload bytes of the current frame still to skip.
    payload_left: u64,
}

impl FrameHeaders {
    /// The header's full size, once its first two bytes are known.
    fn header_len(&self) -> Option<usize> {
        if self.have < 2 {
            return None;
        }
        let extended = match self.header[1] & 0x7f {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        let mask = if self.header[1] & 0x80 != 0 { 4 } else { 0 };
        Some(2 + extended + mask)
    }

    fn payload_len(&self) -> u64 {
        match self.header[1] & 0x7f {
            126 => u64::from(u16::from_be_bytes([self.header[2], self.header[3]])),
            127 => {
                let mut bytes = [0u8; 8];
                bytes.copy_from_slice(&self.header[2..10]);
                u64::from_be_bytes(bytes)
            }
            short => u64::from(short),
        }
    }

    /// Consumes `data`; calls `frame` once per frame header completed in
    /// it and stops early (returning false) as soon as `frame` does.
    fn feed(&mut self, mut data: &[u8], mut frame: impl FnMut() -> bool) -> bool {
        while !data.is_empty() {
            if self.payload_left > 0 {
                let skip = usize::try_from(self.payload_left)
                    .unwrap_or(usize::MAX)
                    .min(data.len());
                self.payload_left -= skip as u64;
                data = &data[skip..];
                continue;
            }
            self.header[self.have] = data[0];
            self.have += 1;
            data = &data[1..];
            if self.header_len() == Some(self.have) {
                self.payload_left = self.payload_len();
                self.have = 0;
                if !frame() {
                    return false;
                }
            }
        }
        true
    }
}

/// A byte stream whose reads charge every client frame to a [`RateLimit`];
/// writes pass through.
#[derive(Debug)]
pub struct FrameMeter<S> {
    inner: S,
    headers: FrameHeaders,
    limit: RateLimit,
    /// Set once the limit was exceeded: every later read fails too.
    exceeded: bool,
}

impl<S> FrameMeter<S> {
    pub fn new(inner: S, limit: RateLimit) -> FrameMeter<S> {
        FrameMeter {
            inner,
            headers: FrameHeaders::default(),
            limit,
            exceeded: false,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for FrameMeter<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.exceeded {
            return Poll::Ready(Err(io::Error::other(RateExceeded)));
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        let now = Instant::now();
        let limit = &mut this.limit;
        let within = this
            .headers
            .feed(&buf.filled()[before..], || limit.take(now));
        if within {
            Poll::Ready(Ok(()))
        } else {
            this.exceeded = true;
            Poll::Ready(Err(io::Error::other(RateExceeded)))
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for FrameMeter<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// A masked client frame (the mask is irrelevant to the meter).
    fn frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![(u8::from(fin) << 7) | opcode];
        match payload.len() {
            len @ 0..=125 => out.push(0x80 | len as u8),
            len @ 126..=0xffff => {
                out.push(0x80 | 126);
                out.extend_from_slice(&(len as u16).to_be_bytes());
            }
            len => {
                out.push(0x80 | 127);
                out.extend_from_slice(&(len as u64).to_be_bytes());
            }
        }
        out.extend_from_slice(&[1, 2, 3, 4]);
        out.extend_from_slice(payload);
        out
    }

    fn count_frames(bytes: &[u8], chunk: usize) -> usize {
        let mut headers = FrameHeaders::default();
        let mut frames = 0;
        for piece in bytes.chunks(chunk) {
            headers.feed(piece, || {
                frames += 1;
                true
            });
        }
        frames
    }

    #[test]
    fn every_frame_is_counted_whatever_its_size_and_however_the_bytes_are_split() {
        let mut bytes = frame(false, 0x1, b"{");
        for _ in 0..100 {
            bytes.extend(frame(false, 0x0, b""));
        }
        bytes.extend(frame(true, 0x9, b"ping"));
        bytes.extend(frame(false, 0x0, &[b' '; 300]));
        bytes.extend(frame(true, 0x0, &[b'}'; 70_000]));
        for chunk in [1, 2, 5, 7, 13, 4096, bytes.len()] {
            assert_eq!(count_frames(&bytes, chunk), 104, "chunks of {chunk}");
        }
    }

    #[test]
    fn unmasked_frames_are_followed_too() {
        // 0x81 0x02 "hi" (unmasked), then a masked empty continuation.
        let mut bytes = vec![0x81, 0x02, b'h', b'i'];
        bytes.extend(frame(true, 0x0, b""));
        assert_eq!(count_frames(&bytes, 1), 2);
    }

    #[tokio::test]
    async fn a_read_fails_at_the_first_frame_over_the_burst_and_every_read_after() {
        let mut bytes = Vec::new();
        for _ in 0..1_000 {
            bytes.extend(frame(false, 0x0, b""));
        }
        let limit = RateLimit::new(0.0, 10.0, Instant::now());
        let mut meter = FrameMeter::new(&bytes[..], limit);
        // Ten frames (60 bytes) pass, one byte at a time.
        let mut one = [0u8; 1];
        for _ in 0..60 {
            assert_eq!(meter.read(&mut one).await.ok(), Some(1));
        }
        // The eleventh frame's header is refused as soon as it is complete.
        for _ in 0..5 {
            assert_eq!(meter.read(&mut one).await.ok(), Some(1));
        }
        let error = meter.read(&mut one).await.unwrap_err();
        assert!(RateExceeded::is(&error), "{error}");
        let error = meter.read(&mut one).await.unwrap_err();
        assert!(RateExceeded::is(&error), "{error}");
    }

    #[tokio::test]
    async fn frames_within_the_rate_pass_untouched() {
        let mut bytes = Vec::new();
        for n in 0..20u8 {
            bytes.extend(frame(true, 0x1, &[n; 200]));
        }
        let limit = RateLimit::new(0.0, 20.0, Instant::now());
        let mut meter = FrameMeter::new(&bytes[..], limit);
        let mut out = Vec::new();
        meter.read_to_end(&mut out).await.expect("within the limit");
        assert_eq!(out, bytes);
    }

    #[test]
    fn the_bucket_refills_at_its_rate_up_to_its_burst() {
        let start = Instant::now();
        let mut limit = RateLimit::new(2.0, 3.0, start);
        assert!((0..3).all(|_| limit.take(start)));
        assert!(!limit.take(start));
        let later = start + std::time::Duration::from_millis(500);
        assert!(limit.take(later));
        assert!(!limit.take(later));
        let much_later = later + std::time::Duration::from_secs(60);
        assert_eq!((0..10).filter(|_| limit.take(much_later)).count(), 3);
    }
}
