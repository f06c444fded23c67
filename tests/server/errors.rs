//! Bad input over HTTP and WebSocket: typed errors, state untouched,
//! connection kept; limits close the connection with a clear code.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::game::play_both_first_turns;
use support::rig::Rig;
use support::s;
use support::ws::{Client, ConnectError};

#[tokio::test]
async fn every_bad_message_gets_a_typed_error_and_changes_nothing() {
    let server = Rig::start().await;
    let (id, mut white, black) = server.players(json!({})).await;
    let spectator = server.spectate(&id).await;
    let state = white.recv_type("state").await;
    let version = state.v;
    let fen = state.d["fen"].clone();

    const W: usize = 0;
    const B: usize = 1;
    const S: usize = 2;
    let cases: Vec<(usize, String, &str)> = vec![
        (W, "{not json".into(), "bad_json"),
        (W, "[1,2]".into(), "bad_json"),
        (W, json!({"t": "teleport"}).to_string(), "unknown_type"),
        (
            W,
            json!({"t": "move", "d": {"id": "x"}}).to_string(),
            "bad_message",
        ),
        (
            W,
            json!({"t": "move", "d": {"uci": "e2e9", "id": "x"}}).to_string(),
            "bad_message",
        ),
        (
            W,
            json!({"t": "move", "d": {"uci": "e2e5", "id": "x"}}).to_string(),
            "illegal_move",
        ),
        (
            W,
            json!({"t": "move", "d": {"uci": "e7e5", "id": "y"}}).to_string(),
            "illegal_move",
        ),
        (
            B,
            json!({"t": "move", "d": {"uci": "e7e5", "id": "z"}}).to_string(),
            "not_your_turn",
        ),
        (
            S,
            json!({"t": "move", "d": {"uci": "e2e4", "id": "s"}}).to_string(),
            "not_a_player",
        ),
        (S, json!({"t": "resign"}).to_string(), "not_a_player"),
        (
            S,
            json!({"t": "hello", "d": {"token": "0123456789abcdef0123456789abcdef"}}).to_string(),
            "bad_token",
        ),
        (W, json!({"t": "draw_accept"}).to_string(), "not_available"),
        (W, json!({"t": "draw_claim"}).to_string(), "not_available"),
        (
            W,
            json!({"t": "rematch_offer"}).to_string(),
            "not_available",
        ),
        (
            W,
            json!({"t": "claim_victory"}).to_string(),
            "not_available",
        ),
    ];
    let mut clients = [white, black, spectator];
    for (who, text, code) in cases {
        let client = &mut clients[who];
        client.send_text(&text).await;
        let reply = client.recv_type("error").await;
        assert_eq!(reply.d["code"], code, "for {text}: {reply}");
        assert!(!s(&reply.d["message"]).is_empty());
    }
    let [mut white, _black, mut spectator] = clients;
    // The spectator with a bad token is still a spectator and still connected.
    spectator.send(json!({"t": "ping"})).await;
    assert_eq!(spectator.recv_type("pong").await.t, "pong");
    let (_, public) = server.http("GET", &format!("/api/games/{id}"), None).await;
    let public: Value = serde_json::from_str(&public).expect("json");
    assert_eq!(public["fen"], fen);
    assert_eq!(public["moves"], json!([]));
    // Nothing was broadcast: a fresh snapshot has the same version.
    let mut late = server.spectate(&id).await;
    assert_eq!(late.recv_type("state").await.v, version);
    // And the connections still play.
    white.play("e2e4", "ok").await;
    server.stop().await;
}

#[tokio::test]
async fn a_move_whose_v_or_lag_is_malformed_is_refused_as_bad_message_with_its_id() {
    let server = Rig::start().await;
    let (_, mut white, _black) = server.players(json!({})).await;
    white.recv_type("state").await;
    for (n, field) in [
        r#""v":18446744073709551616"#,
        r#""v":-1"#,
        r#""v":1.5"#,
        r#""v":"1""#,
        r#""lag":4294967296"#,
        r#""lag":1000.0"#,
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("m{n}");
        let text = format!(r#"{{"t":"move","d":{{"uci":"e2e4","id":"{id}",{field}}}}}"#);
        white.send_text(&text).await;
        let reply = white.recv_type("error").await;
        assert_eq!(reply.d["code"], "bad_message", "{text}: {reply}");
        assert_eq!(reply.d["id"], id.as_str(), "{text}: {reply}");
        let name = if field.contains("lag") {
            "lag: "
        } else {
            "v: "
        };
        assert!(s(&reply.d["message"]).starts_with(name), "{text}: {reply}");
    }
    // Nothing was played: the move is still White's to make.
    white.play("e2e4", "ok").await;
    server.stop().await;
}

#[tokio::test]
async fn a_resent_ack_id_is_acknowledged_again_but_not_applied_twice() {
    let server = Rig::start().await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    let first = white.play("e2e4", "same").await;
    white.mv("e2e4", "same").await;
    let ack = white.recv_type("ack").await;
    assert_eq!(ack.d["v"].as_u64(), first.v);
    // Black sees exactly one move and can answer.
    black.play("e7e5", "b").await;
    let (_, public) = server.http("GET", &format!("/api/games/{id}"), None).await;
    let public: Value = serde_json::from_str(&public).expect("json");
    assert_eq!(public["moves"].as_array().map(Vec::len), Some(2));
    server.stop().await;
}

#[tokio::test]
async fn http_refuses_bad_bodies_and_unknown_games() {
    let server = Rig::start().await;
    for body in [
        "{",
        r#"{"color":"purple"}"#,
        r#"{"variant":"crazyhouse"}"#,
        r#"{"fen":"not a fen"}"#,
        r#"{"fen":"k7/1Q6/1K6/8/8/8/8/8 b - - 0 5"}"#,
        r#"{"clock":{"base_secs":0,"increment_secs":0}}"#,
        r#"{"surprise":1}"#,
    ] {
        let (status, text) = server.http("POST", "/api/games", Some(body)).await;
        assert_eq!(status, 400, "{body}: {text}");
        let error: Value = serde_json::from_str(&text).expect("json error");
        assert_eq!(error["code"], "bad_request", "{body}");
    }
    for path in [
        "/api/games/zzzzzzzz",
        "/game/zzzzzzzz.pgn",
        "/api/games/../etc",
    ] {
        let (status, _) = server.http("GET", path, None).await;
        assert_eq!(status, 404, "{path}");
    }
    let (status, text) = server.http("POST", "/api/games/zzzzzzzz/join", None).await;
    assert_eq!(status, 404);
    assert_eq!(
        serde_json::from_str::<Value>(&text).expect("json")["code"],
        "not_found"
    );
    let (status, _) = server.http("GET", "/api/games?status=lost", None).await;
    assert_eq!(status, 400);
    let (id, _, _) = server.game_between_two(json!({})).await;
    let (status, text) = server
        .http("POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 409);
    assert_eq!(
        serde_json::from_str::<Value>(&text).expect("json")["code"],
        "seat_taken"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_message_over_the_size_limit_closes_with_1009() {
    let server = Rig::start().await;
    let (id, _, _) = server.game_between_two(json!({})).await;
    let mut client = server.spectate(&id).await;
    client.recv_type("state").await;
    let big = json!({"t": "ping", "d": {"pad": "x".repeat(5000)}}).to_string();
    client.send_text(&big).await;
    let (code, reason) = client.expect_close().await;
    assert_eq!(code, 1009, "{reason}");
    // Far above the limit, the WebSocket layer itself refuses the frame.
    let mut huge_sender = server.spectate(&id).await;
    huge_sender.recv_type("state").await;
    let huge = json!({"t": "ping", "d": {"pad": "x".repeat(100_000)}}).to_string();
    huge_sender.send_text(&huge).await;
    let (code, reason) = huge_sender.expect_close().await;
    assert_eq!(code, 1009, "{reason}");
    server.stop().await;
}

#[tokio::test]
async fn a_client_over_the_message_rate_is_closed_with_1008() {
    let server = Rig::start_with(|c| {
        c.rate_per_sec = 5.0;
        c.rate_burst = 10.0;
    })
    .await;
    let (id, _, _) = server.game_between_two(json!({})).await;
    let mut client = server.spectate(&id).await;
    client.recv_type("state").await;
    for _ in 0..40 {
        client.send(json!({"t": "ping"})).await;
    }
    let (code, reason) = client.expect_close().await;
    assert_eq!(code, 1008);
    assert!(reason.contains("rate"), "{reason}");
    server.stop().await;
}

#[tokio::test]
async fn a_silent_connection_is_closed_but_one_that_answers_pings_is_kept() {
    let server = Rig::start_with(|c| {
        c.idle_timeout = Duration::from_millis(1000);
        c.ping_interval = Duration::from_millis(100);
    })
    .await;
    let (id, _, _) = server.game_between_two(json!({})).await;
    // This client reads (so tungstenite answers the server's pings).
    let mut lively = server.spectate(&id).await;
    lively.recv_type("state").await;
    // This one never reads, so it never answers a ping.
    let mut silent = server.spectate(&id).await;
    // Keep reading the lively client for 2.5 idle timeouts (bounded loop).
    let until = tokio::time::Instant::now() + Duration::from_millis(2500);
    for _ in 0..100 {
        if tokio::time::Instant::now() >= until {
            break;
        }
        lively.try_recv(Duration::from_millis(50)).await;
    }
    let (code, reason) = silent.expect_close().await;
    assert_eq!((code, reason.as_str()), (1000, "idle timeout"));
    lively.send(json!({"t": "ping"})).await;
    assert_eq!(lively.recv_type("pong").await.t, "pong");
    server.stop().await;
}

#[tokio::test]
async fn seat_tokens_never_reach_spectators_or_opponents() {
    let server = Rig::start().await;
    let (id, white_token, black_token) = server.game_between_two(json!({})).await;
    let mut white = server.seat(&id, &white_token).await;
    let mut black = server.seat(&id, &black_token).await;
    let mut spectator = server.spectate(&id).await;
    // In the room before anything happens that it must see as an event.
    spectator.recv_type("state").await;
    play_both_first_turns(&mut white, &mut black).await;
    white.send(json!({"t": "resign"})).await;
    spectator.recv_type("end").await;
    black.recv_type("end").await;
    let (_, public) = server.http("GET", &format!("/api/games/{id}"), None).await;
    let (_, listing) = server.http("GET", "/api/games?status=finished", None).await;
    let everything = format!(
        "{:?}{:?}{public}{listing}{}",
        spectator.seen,
        black.seen,
        server.pgn(&id).await
    );
    assert!(!everything.contains(&white_token));
    let white_seen = format!("{:?}", white.seen);
    assert!(!white_seen.contains(&black_token));
    server.stop().await;
}

#[tokio::test]
async fn a_websocket_to_an_unknown_game_is_refused_with_404() {
    let server = Rig::start().await;
    let refused = Client::try_connect(server.addr(), "zzzzzzzz", "").await;
    match refused {
        Err(ConnectError::Refused(status)) => assert_eq!(status, 404),
        other => panic!("expected an HTTP 404, got {:?}", other.map(|_| ())),
    }
    server.stop().await;
}
