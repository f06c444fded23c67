//! The WebSocket limits at the frame level, with hand-made frames: every
//! frame a client sends counts against its rate limit (empty continuation
//! frames too, which never complete a message), frames that carry nothing do
//! not keep an idle connection open, and a client that breaks the protocol
//! reads why in a close frame (1007 for invalid UTF-8, 1002 for the rest)
//! before the server lets it go.

use crate::support;

use std::net::SocketAddr;
use std::time::Duration;

use support::WAIT;
use support::game::new_game;
use support::raw_ws::{CONTINUATION, PING, RawWs, TEXT, client_frame, close_of};
use support::rig::Rig;

/// A spectator's raw connection to a fresh game.
async fn raw_spectator(addr: SocketAddr) -> RawWs {
    let (id, _, _) = new_game(addr, r#"{"color":"white"}"#).await.expect("game");
    RawWs::connect(addr, &format!("/ws/game/{id}"))
        .await
        .expect("upgrade")
}

/// An empty continuation frame: 6 bytes (header and mask), no payload.
fn empty_continuation() -> Vec<u8> {
    client_frame(false, CONTINUATION, b"")
}

#[tokio::test]
async fn a_flood_of_empty_continuation_frames_is_closed_with_1008() {
    let server = Rig::start_with(|c| {
        c.rate_per_sec = 1.0;
        c.rate_burst = 20.0;
    })
    .await;
    let mut raw = raw_spectator(server.addr()).await;
    // A message that never ends: one opening fragment, then 5 000 empty
    // continuations (never a complete message for the socket to count).
    let mut flood = client_frame(false, TEXT, b"{");
    for _ in 0..5_000 {
        flood.extend_from_slice(&empty_continuation());
    }
    // The server may close before it read everything: a failed write is fine.
    let _ = raw.send_bytes(&flood).await;
    let closed = raw.close_frame(WAIT).await;
    assert_eq!(
        closed.as_ref().map(|(code, _)| *code),
        Some(1008),
        "{closed:?}"
    );
    assert!(closed.is_some_and(|(_, why)| why.contains("rate")));
    // Only that connection: another one is served.
    let mut other = raw_spectator(server.addr()).await;
    other.send_frame(true, TEXT, br#"{"t":"ping"}"#).await;
    assert!(other.expect_text("pong", WAIT).await.is_some());
    server.stop().await;
}

#[tokio::test]
async fn pings_count_against_the_rate_limit_like_messages() {
    let server = Rig::start_with(|c| {
        c.rate_per_sec = 1.0;
        c.rate_burst = 20.0;
    })
    .await;
    let mut raw = raw_spectator(server.addr()).await;
    let mut flood = Vec::new();
    for _ in 0..2_000 {
        flood.extend_from_slice(&client_frame(true, PING, b""));
    }
    let _ = raw.send_bytes(&flood).await;
    let closed = raw.close_frame(WAIT).await;
    assert_eq!(closed.map(|(code, _)| code), Some(1008));
    server.stop().await;
}

#[tokio::test]
async fn empty_continuation_frames_do_not_keep_an_idle_connection_open() {
    let server = Rig::start_with(|c| {
        c.idle_timeout = Duration::from_secs(1);
        c.ping_interval = Duration::from_secs(600);
    })
    .await;
    let mut raw = raw_spectator(server.addr()).await;
    raw.send_frame(false, TEXT, b"{").await;
    // One empty continuation every 100 ms (within the rate limit) for at
    // most 30 s; the idle timeout must close the connection meanwhile.
    let mut closed = None;
    for _ in 0..300 {
        if !raw.send_bytes(&empty_continuation()).await {
            break;
        }
        if let Some((opcode, payload)) = raw.read_frame(Duration::from_millis(100)).await
            && let Some(close) = close_of(opcode, &payload)
        {
            closed = Some(close);
            break;
        }
    }
    if closed.is_none() {
        closed = raw.close_frame(WAIT).await;
    }
    assert_eq!(closed, Some((1000, "idle timeout".to_string())));
    server.stop().await;
}

#[tokio::test]
async fn invalid_utf8_in_a_text_frame_is_closed_with_1007() {
    let server = Rig::start().await;
    let mut raw = raw_spectator(server.addr()).await;
    raw.send_frame(true, TEXT, b"{\"t\":\"ping\",\"d\":\"\xff\xfe\"}")
        .await;
    let closed = raw.close_frame(WAIT).await;
    assert_eq!(closed.map(|(code, _)| code), Some(1007));
    // Split across fragments, too.
    let mut raw = raw_spectator(server.addr()).await;
    raw.send_frame(false, TEXT, b"{\"t\":\"ping\",\"d\":\"\xe2")
        .await;
    raw.send_frame(true, CONTINUATION, b"\x28\xa1\"}").await;
    let closed = raw.close_frame(WAIT).await;
    assert_eq!(closed.map(|(code, _)| code), Some(1007));
    server.stop().await;
}

#[tokio::test]
async fn a_frame_with_reserved_bits_set_is_closed_with_1002() {
    let server = Rig::start().await;
    for rsv in [0x40u8, 0x20, 0x10] {
        let mut raw = raw_spectator(server.addr()).await;
        let mut frame = client_frame(true, TEXT, br#"{"t":"ping"}"#);
        frame[0] |= rsv;
        raw.send_bytes(&frame).await;
        let closed = raw.close_frame(WAIT).await;
        assert_eq!(closed.map(|(code, _)| code), Some(1002), "rsv {rsv:#x}");
    }
    server.stop().await;
}

#[tokio::test]
async fn an_unmasked_client_frame_is_closed_with_1002() {
    let server = Rig::start().await;
    let mut raw = raw_spectator(server.addr()).await;
    let payload = br#"{"t":"ping"}"#;
    let mut frame = vec![0x80 | TEXT, payload.len() as u8];
    frame.extend_from_slice(payload);
    raw.send_bytes(&frame).await;
    let closed = raw.close_frame(WAIT).await;
    assert_eq!(closed.map(|(code, _)| code), Some(1002));
    server.stop().await;
}

#[tokio::test]
async fn other_protocol_errors_are_closed_with_1002() {
    let server = Rig::start().await;
    let cases: [(&str, Vec<u8>); 4] = [
        (
            "a continuation with nothing to continue",
            client_frame(true, CONTINUATION, b"orphan"),
        ),
        ("a fragmented ping", client_frame(false, PING, b"hi")),
        ("an unknown opcode", client_frame(true, 0x3, b"?")),
        (
            "a new message inside a fragmented one",
            [
                client_frame(false, TEXT, b"{"),
                client_frame(true, TEXT, br#"{"t":"ping"}"#),
            ]
            .concat(),
        ),
    ];
    for (case, bytes) in cases {
        let mut raw = raw_spectator(server.addr()).await;
        raw.send_bytes(&bytes).await;
        let closed = raw.close_frame(WAIT).await;
        assert_eq!(closed.map(|(code, _)| code), Some(1002), "{case}");
    }
    server.stop().await;
}
