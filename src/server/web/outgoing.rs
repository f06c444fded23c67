//! A connection's outgoing text messages, written as WebSocket frames straight onto its stream
//! with a buffer that lives only for the write.
//!
//! tungstenite copies every frame it sends into a write buffer it keeps for the life of the
//! connection, at the size of the largest write it ever made: a `state` snapshot of a long
//! game (tens of KiB) stayed on every socket that ever received one, idle or not, and even
//! a fresh game's first messages left 1.3 KiB on each socket (heaptrack, 2,000 idle
//! spectators). Here the frames of one write (tungstenite formats them: headers and
//! payloads) go into a buffer of their size (at most 10 header bytes each) that is freed when
//! the write is done,
//! so an idle socket holds no write buffer at all. tungstenite keeps writing what it writes
//! itself, the control frames (pings, pong answers, close), which are tiny.
//!
//! The two writers never interleave: each write first flushes tungstenite, so that nothing it
//! queued (a pong answer, part of a frame the socket would not take yet) is left when these
//! bytes go out, and the connection's task does one write at a time.

use futures_util::SinkExt;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::{Bytes, Error as WsError, Utf8Bytes};

/// The bytes of `texts` as unmasked, final text frames (the server's frames are not masked).
pub(crate) fn text_frames(texts: &[Utf8Bytes]) -> Result<Vec<u8>, WsError> {
    // A frame's header is at most 10 bytes for a server (no masking key).
    let size = texts.iter().map(|text| text.len() + 10).sum();
    let mut bytes = Vec::with_capacity(size);
    for text in texts {
        Frame::message(Bytes::from(text.clone()), OpCode::Data(Data::Text), true)
            .format(&mut bytes)?;
    }
    Ok(bytes)
}

/// Writes `texts` to the connection, one text frame each, in one write, and flushes.
pub async fn write_texts<S>(ws: &mut WebSocketStream<S>, texts: &[Utf8Bytes]) -> Result<(), WsError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    // Whatever tungstenite holds goes first, whole.
    ws.flush().await?;
    let bytes = text_frames(texts)?;
    let stream = ws.get_mut();
    stream.write_all(&bytes).await?;
    stream.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::Role;

    #[tokio::test]
    async fn frames_written_past_tungstenite_read_as_the_same_messages_on_the_other_side() {
        // Room for everything written before the client reads.
        let (server, client) = tokio::io::duplex(1 << 20);
        let mut server = WebSocketStream::from_raw_socket(server, Role::Server, None).await;
        let mut client = WebSocketStream::from_raw_socket(client, Role::Client, None).await;
        let long = "é".repeat(40_000);
        // A ping from tungstenite's own buffer, then frames of all three header sizes.
        server
            .send(Message::Ping(Bytes::from_static(b"n")))
            .await
            .expect("ping");
        let texts = ["short", &"x".repeat(300), &long].map(|t| Utf8Bytes::from(t.to_string()));
        write_texts(&mut server, &texts).await.expect("written");
        server
            .send(Message::text("after"))
            .await
            .expect("tungstenite writes again");
        assert_eq!(
            client.next().await.expect("open").expect("read"),
            Message::Ping(Bytes::from_static(b"n"))
        );
        for text in texts.iter().chain([&Utf8Bytes::from("after")]) {
            let message = client.next().await.expect("open").expect("read");
            assert_eq!(message, Message::Text(text.clone()));
        }
    }

    #[test]
    fn the_frames_buffer_is_exactly_what_is_written() {
        let texts = [Utf8Bytes::from("abc"), Utf8Bytes::from("x".repeat(200))];
        let bytes = text_frames(&texts).expect("formatted");
        // 2-byte header + 3, then 4-byte header (126 + 16-bit length) + 200.
        assert_eq!(bytes.len(), 2 + 3 + 4 + 200);
        assert_eq!(&bytes[..5], b"\x81\x03abc");
        assert_eq!(&bytes[5..9], &[0x81, 126, 0, 200]);
    }
}
