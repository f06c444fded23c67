//! Hostile clients. Each test is one abuse case and the outcome the server
//! owes: nobody acts for another player, seat tokens cannot be guessed and
//! never leak, limits close only the offending connection with a clear code,
//! malformed frames and JSON are refused without harm, connection churn and
//! slow readers leave nothing behind, and a player may use two tabs.

use crate::support;

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use support::game::new_game;
use support::http::{answers_or_closes, connect_and_send, half_open, metric, try_http};
use support::process::{Scratch, ServerProcess, Spawn};
use support::raw_ws::{BINARY, CONTINUATION, PING, RawWs, TEXT};
use support::rig::Rig;
use support::rng::Rng;
use support::ws::{Client, Ended, Incoming};
use support::{WAIT, eventually, s};

async fn game(addr: SocketAddr) -> (String, String, String) {
    new_game(addr, r#"{"color":"white"}"#).await.expect("game")
}

async fn version(addr: SocketAddr, id: &str) -> (usize, String) {
    let (status, text) = try_http(addr, "GET", &format!("/api/games/{id}"), None)
        .await
        .expect("http");
    assert_eq!(status, 200, "{text}");
    let v: Value = serde_json::from_str(&text).expect("json");
    (v["moves"].as_array().map_or(0, Vec::len), s(&v["fen"]))
}

/// Sends a move and returns the reply (`ack` or `error`).
async fn try_move(ws: &mut Client, uci: &str, id: &str) -> Incoming {
    ws.try_send(&json!({"t": "move", "d": {"uci": uci, "id": id}}))
        .await
        .expect("send");
    loop {
        let msg = ws.try_recv(WAIT).await.expect("a reply");
        if msg.t == "ack" || msg.t == "error" {
            return msg;
        }
    }
}

async fn ping_pong(ws: &mut Client) -> bool {
    if ws.try_send(&json!({"t": "ping"})).await.is_err() {
        return false;
    }
    let deadline = tokio::time::Instant::now() + WAIT;
    while let Some(msg) = ws
        .try_recv(deadline.saturating_duration_since(tokio::time::Instant::now()))
        .await
    {
        if msg.t == "pong" {
            return true;
        }
    }
    false
}

fn bits_of(token: &str) -> Vec<bool> {
    token
        .chars()
        .flat_map(|c| {
            let n = c.to_digit(16).unwrap_or(0);
            (0..4).rev().map(move |b| n >> b & 1 == 1)
        })
        .collect()
}

#[tokio::test]
async fn seat_tokens_are_128_varying_bits_and_every_guess_is_refused() {
    let server = Rig::start_with(|c| {
        c.rate_burst = 10_000.0;
        c.rate_per_sec = 10_000.0;
        // By default `hello` (and so guessing by hello) is limited to 3 at
        // once, then 1/s per connection; lifted here to try many guesses.
        c.hello_burst = 10_000.0;
        c.hello_rate_per_sec = 10_000.0;
        c.create_rate_per_sec = 0.0; // 64 games from one address
    })
    .await;
    let addr = server.addr();
    let mut tokens = Vec::new();
    let mut games = Vec::new();
    for _ in 0..64 {
        let (id, white, black) = game(addr).await;
        tokens.push(white.clone());
        tokens.push(black);
        games.push((id, white));
    }
    for token in &tokens {
        assert_eq!(token.len(), 32, "{token}");
        assert!(
            token.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')),
            "{token}"
        );
    }
    let mut distinct = tokens.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), tokens.len(), "two seats got the same token");
    // Every one of the 128 bit positions takes both values across 128 tokens
    // (a stuck bit would mean fewer than 128 random bits).
    let bits: Vec<Vec<bool>> = tokens.iter().map(|t| bits_of(t)).collect();
    for position in 0..128 {
        let ones = bits.iter().filter(|b| b[position]).count();
        assert!(ones > 0 && ones < bits.len(), "bit {position} never varies");
    }

    let (id, white) = games[0].clone();
    let other_game_token = games[1].1.clone();
    let mut flipped = white.clone();
    let last = flipped.pop().expect("non-empty");
    flipped.push(if last == '0' { '1' } else { '0' });
    let stored_hash = marseillais::server::ids::token_hash(&white);
    let mut guesses = vec![
        flipped,
        white.to_uppercase(),
        white[..31].to_string(),
        format!("{white}0"),
        format!(" {white}"),
        stored_hash,
        other_game_token,
        String::new(),
        "x".repeat(3000),
        "é".repeat(16),
    ];
    let mut rng = Rng::new(0x5eed);
    for _ in 0..200 {
        guesses.push(format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64()));
    }
    let mut spectator = Client::seat(addr, &id, "").await;
    spectator.skip_to("state").await;
    for guess in &guesses {
        spectator
            .try_send(&json!({"t": "hello", "d": {"token": guess}}))
            .await
            .expect("send");
        let reply = spectator.skip_to("error").await;
        assert_eq!(reply.d["code"], "bad_token", "guess {guess:?}");
    }
    // Still a spectator: it cannot move.
    let reply = try_move(&mut spectator, "e2e4", "s1").await;
    assert_eq!(reply.d["code"], "not_a_player");
    // A guess in the connection URL is refused the same way.
    let mut guessed = Client::seat(addr, &id, &guesses[0]).await;
    let first = guessed.try_recv(WAIT).await.expect("a message");
    assert_eq!(first.d["code"], "bad_token", "{first}");
    assert_eq!(guessed.skip_to("state").await.d["you"], Value::Null);
    assert_eq!(version(addr, &id).await.0, 0, "a guess moved a piece");
    // The real token works.
    let mut real = Client::seat(addr, &id, &white).await;
    assert_eq!(real.skip_to("state").await.d["you"], "white");
    eprintln!(
        "token guessing: {} tokens checked, {} guesses refused with bad_token",
        tokens.len(),
        guesses.len() + 1
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seat_tokens_never_appear_in_debug_logs_spectator_messages_or_public_pages() {
    tokens_stay_secret("debug").await;
}

/// `trace` is the most verbose level an operator can turn on; it includes
/// the dependencies' own logs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seat_tokens_never_appear_even_in_trace_logs() {
    tokens_stay_secret("trace").await;
}

/// A game, a rematch (two more tokens) and every public view of them, with
/// the server logging at `level`: no token appears where it must not.
async fn tokens_stay_secret(level: &str) {
    let scratch = Scratch::new();
    let server = Spawn::new(&scratch.data())
        .log(&scratch.log())
        .relaxed_limits()
        .env("RUST_LOG", level)
        .spawn()
        .await;
    let addr = server.addr;
    let (id, white, black) = game(addr).await;
    let mut w = Client::seat(addr, &id, &white).await;
    let mut b = Client::seat(addr, &id, "").await;
    b.try_send(&json!({"t": "hello", "d": {"token": black}}))
        .await
        .expect("send");
    let mut spectator = Client::seat(addr, &id, "").await;
    assert_eq!(try_move(&mut w, "e2e4", "1").await.t, "ack");
    b.skip_to("state").await;
    assert_eq!(try_move(&mut b, "e7e5", "1").await.t, "ack");
    assert_eq!(try_move(&mut b, "g8f6", "2").await.t, "ack");
    w.try_send(&json!({"t": "resign"})).await.expect("send");
    spectator.skip_to("end").await;
    // A rematch hands out two more tokens, privately.
    w.try_send(&json!({"t": "rematch_offer"}))
        .await
        .expect("send");
    b.skip_to("rematch_offer").await;
    b.try_send(&json!({"t": "rematch_accept"}))
        .await
        .expect("send");
    let b_seat = b.skip_to("rematch_seat").await;
    let w_seat = w.skip_to("rematch_seat").await;
    spectator.skip_to("rematch").await;
    let rematch_id = s(&b_seat.d["id"]);
    let (_, public) = try_http(addr, "GET", &format!("/api/games/{id}"), None)
        .await
        .expect("http");
    let (_, rematch_public) = try_http(addr, "GET", &format!("/api/games/{rematch_id}"), None)
        .await
        .expect("http");
    let (_, pgn) = try_http(addr, "GET", &format!("/game/{id}.pgn"), None)
        .await
        .expect("http");
    let mut listings = String::new();
    for status in ["open", "playing", "finished"] {
        let (_, list) = try_http(addr, "GET", &format!("/api/games?status={status}"), None)
            .await
            .expect("http");
        listings.push_str(&list);
    }
    let (_, metrics) = try_http(addr, "GET", "/metrics", None).await.expect("http");
    assert!(server.terminate().await, "graceful shutdown");
    let logs = std::fs::read_to_string(scratch.log()).expect("log");
    assert!(logs.contains("game created"), "debug logs were written");
    let all_tokens = [
        white.clone(),
        black.clone(),
        s(&w_seat.d["token"]),
        s(&b_seat.d["token"]),
    ];
    let places = [
        ("logs", logs),
        ("spectator messages", format!("{:?}", spectator.seen)),
        ("public state", public),
        ("rematch public state", rematch_public),
        ("pgn", pgn),
        ("listings", listings),
        ("metrics", metrics),
    ];
    for token in &all_tokens {
        assert_eq!(token.len(), 32);
        for (name, text) in &places {
            let lines: Vec<&str> = text
                .lines()
                .filter(|line| line.contains(token.as_str()))
                .take(3)
                .collect();
            assert!(
                lines.is_empty(),
                "token {token} is in the {name}: {lines:#?}"
            );
        }
    }
    // Each player received only its own tokens.
    let white_seen = format!("{:?}", w.seen);
    let black_seen = format!("{:?}", b.seen);
    assert!(!white_seen.contains(&black) && !white_seen.contains(&all_tokens[3]));
    assert!(!black_seen.contains(&white) && !black_seen.contains(&all_tokens[2]));
}

#[tokio::test]
async fn spectators_the_wrong_seat_and_foreign_tokens_cannot_act() {
    let server = Rig::start().await;
    let addr = server.addr();
    let (id, white, black) = game(addr).await;
    let (other_id, other_white, _) = game(addr).await;
    let mut w = Client::seat(addr, &id, &white).await;
    let b = Client::seat(addr, &id, &black).await;
    let spectator = Client::seat(addr, &id, "").await;
    // White's token of another game makes nobody a player here.
    let mut foreign = Client::seat(addr, &id, &other_white).await;
    assert_eq!(foreign.skip_to("error").await.d["code"], "bad_token");
    w.skip_to("state").await;
    let before = version(addr, &id).await;
    const S: usize = 0;
    const F: usize = 1;
    const B: usize = 2;
    let cases = [
        (
            S,
            json!({"t": "move", "d": {"uci": "e2e4", "id": "s"}}),
            "not_a_player",
        ),
        (S, json!({"t": "resign"}), "not_a_player"),
        (S, json!({"t": "abort"}), "not_a_player"),
        (S, json!({"t": "draw_offer"}), "not_a_player"),
        (S, json!({"t": "takeback_submove"}), "not_a_player"),
        (
            F,
            json!({"t": "move", "d": {"uci": "e2e4", "id": "f"}}),
            "not_a_player",
        ),
        (F, json!({"t": "resign"}), "not_a_player"),
        (
            B,
            json!({"t": "move", "d": {"uci": "e2e4", "id": "b"}}),
            "not_your_turn",
        ),
        (
            B,
            json!({"t": "move", "d": {"uci": "e7e5", "id": "b"}}),
            "not_your_turn",
        ),
        (B, json!({"t": "takeback_submove"}), "not_your_turn"),
        (B, json!({"t": "draw_accept"}), "not_available"),
    ];
    let mut clients = [spectator, foreign, b];
    let mut tried = 0;
    for (who, msg, code) in cases {
        let ws = &mut clients[who];
        ws.try_send(&msg).await.expect("send");
        let reply = ws.skip_to("error").await;
        assert_eq!(reply.d["code"], code, "{msg}: {reply}");
        tried += 1;
    }
    assert_eq!(version(addr, &id).await, before);
    assert_eq!(version(addr, &other_id).await.0, 0);
    // The rightful player still moves.
    assert_eq!(try_move(&mut w, "e2e4", "w1").await.t, "ack");
    eprintln!("acting for another: {tried} attempts refused");
    server.stop().await;
}

#[tokio::test]
async fn a_replayed_ack_id_is_never_applied_twice_even_after_a_restart() {
    let mut server = Rig::start().await;
    let addr = server.addr();
    let (id, white, black) = game(addr).await;
    let mut w = Client::seat(addr, &id, &white).await;
    let mut w2 = Client::seat(addr, &id, &white).await;
    let mut b = Client::seat(addr, &id, &black).await;
    let first = try_move(&mut w, "e2e4", "same").await;
    assert_eq!(first.t, "ack");
    let v = first.d["v"].clone();
    // The same id again, the same id with another move, from another tab.
    for (tab, uci) in [(0, "e2e4"), (0, "d2d4"), (1, "g1f3")] {
        let ws = if tab == 0 { &mut w } else { &mut w2 };
        let reply = try_move(ws, uci, "same").await;
        assert_eq!(reply.t, "ack", "{reply}");
        assert_eq!(reply.d["v"], v);
    }
    assert_eq!(version(addr, &id).await.0, 1, "a replayed id was applied");
    // The opponent's ids are its own.
    assert_eq!(try_move(&mut b, "e7e5", "same").await.t, "ack");
    assert_eq!(try_move(&mut b, "g8f6", "other").await.t, "ack");
    server.restart().await;
    let addr = server.addr();
    let mut w = Client::seat(addr, &id, &white).await;
    let reply = try_move(&mut w, "d2d4", "same").await;
    assert_eq!(reply.d["v"], v, "after a restart: {reply}");
    assert_eq!(version(addr, &id).await.0, 3);
    assert_eq!(try_move(&mut w, "d2d4", "new").await.t, "ack");
    server.stop().await;
}

#[tokio::test]
async fn a_player_flooding_over_the_rate_limit_is_closed_and_the_game_goes_on() {
    let server = Rig::start_with(|c| {
        c.rate_per_sec = 5.0;
        c.rate_burst = 10.0;
    })
    .await;
    let addr = server.addr();
    let (id, white, black) = game(addr).await;
    let mut w = Client::seat(addr, &id, &white).await;
    let mut b = Client::seat(addr, &id, &black).await;
    let mut spectator = Client::seat(addr, &id, "").await;
    assert_eq!(try_move(&mut w, "e2e4", "w1").await.t, "ack");
    // Black floods: illegal moves and pings, far over the burst.
    for n in 0..200 {
        let msg = if n % 2 == 0 {
            json!({"t": "move", "d": {"uci": "a7a1", "id": n}})
        } else {
            json!({"t": "ping"})
        };
        if b.try_send(&msg).await.is_err() {
            break;
        }
    }
    match b.ended(WAIT).await {
        Ended::Closed(code, reason) => {
            assert_eq!(code, 1008, "{reason}");
            assert!(reason.contains("rate"), "{reason}");
        }
        other => panic!("the flooder was not closed with 1008: {other:?}"),
    }
    // At most the burst was handled: none of it was a legal move.
    assert_eq!(version(addr, &id).await.0, 1);
    // Black comes back and plays; the spectator saw it all in order.
    let mut b = Client::seat(addr, &id, &black).await;
    assert_eq!(try_move(&mut b, "e7e5", "b1").await.t, "ack");
    assert_eq!(spectator.skip_to("move").await.d["uci"], "e2e4");
    assert_eq!(spectator.skip_to("move").await.d["uci"], "e7e5");
    server.stop().await;
}

#[tokio::test]
async fn oversized_binary_and_lying_frames_close_only_that_connection() {
    let server = Rig::start().await;
    let addr = server.addr();
    let (id, white, black) = game(addr).await;
    let path = format!("/ws/game/{id}");
    let mut outcomes = Vec::new();

    // Just over the limit, and far over it (tungstenite's own limit).
    for size in [5_000usize, 100_000] {
        let mut raw = RawWs::connect(addr, &path).await.expect("upgrade");
        let text = format!(r#"{{"t":"ping","d":{{"pad":"{}"}}}}"#, "x".repeat(size));
        raw.send_frame(true, TEXT, text.as_bytes()).await;
        let code = raw.close_code(WAIT).await;
        assert_eq!(code, Some(1009), "{size} bytes");
        outcomes.push(format!("{size}-byte text frame: close {code:?}"));
    }
    // A header announcing 2^62 bytes, and nothing after it.
    let mut raw = RawWs::connect(addr, &path).await.expect("upgrade");
    let mut header = vec![0x81, 0x80 | 127];
    header.extend_from_slice(&(1u64 << 62).to_be_bytes());
    header.extend_from_slice(&[1, 2, 3, 4]);
    raw.send_bytes(&header).await;
    let code = raw.close_code(WAIT).await;
    assert!(matches!(code, None | Some(1009)), "{code:?}");
    outcomes.push(format!("frame header claiming 2^62 bytes: close {code:?}"));
    // A binary frame is refused with an error; the connection stays.
    let mut raw = RawWs::connect(addr, &path).await.expect("upgrade");
    raw.send_frame(true, BINARY, br#"{"t":"ping"}"#).await;
    let reply = raw.expect_text("error", WAIT).await.expect("an error");
    assert_eq!(reply["d"]["code"], "bad_json");
    raw.send_frame(true, TEXT, br#"{"t":"ping"}"#).await;
    assert!(raw.expect_text("pong", WAIT).await.is_some());
    outcomes.push("binary frame: error bad_json, connection kept".into());

    // Nothing of this disturbed the game.
    let mut w = Client::seat(addr, &id, &white).await;
    let mut b = Client::seat(addr, &id, &black).await;
    assert_eq!(try_move(&mut w, "e2e4", "1").await.t, "ack");
    assert_eq!(try_move(&mut b, "e7e5", "1").await.t, "ack");
    eprintln!("frames: {outcomes:?}");
    server.stop().await;
}

#[tokio::test]
async fn fragmented_frames_are_reassembled_within_the_limit_and_refused_beyond_it() {
    let server = Rig::start().await;
    let addr = server.addr();
    let (id, _, _) = game(addr).await;
    let path = format!("/ws/game/{id}");
    let ping = br#"{"t":"ping","d":{}}"#;

    // A ping in one-byte fragments, with a control frame in the middle.
    let mut raw = RawWs::connect(addr, &path).await.expect("upgrade");
    for (i, byte) in ping.iter().enumerate() {
        let opcode = if i == 0 { TEXT } else { CONTINUATION };
        raw.send_frame(i + 1 == ping.len(), opcode, &[*byte]).await;
        if i == 5 {
            raw.send_frame(true, PING, b"hi").await;
        }
    }
    assert!(raw.expect_text("pong", WAIT).await.is_some(), "fragments");

    // 6 fragments of 1000 bytes: over 4096 in total.
    let mut raw = RawWs::connect(addr, &path).await.expect("upgrade");
    let big = format!(r#"{{"t":"ping","d":{{"pad":"{}"}}}}"#, "y".repeat(6000));
    let chunks: Vec<&[u8]> = big.as_bytes().chunks(1000).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        let opcode = if i == 0 { TEXT } else { CONTINUATION };
        raw.send_frame(i + 1 == chunks.len(), opcode, chunk).await;
    }
    assert_eq!(raw.close_code(WAIT).await, Some(1009));

    // Endless fragments that never finish: refused once past the hard limit.
    let mut raw = RawWs::connect(addr, &path).await.expect("upgrade");
    raw.send_frame(false, TEXT, b"{").await;
    for _ in 0..40 {
        if !raw.send_frame(false, CONTINUATION, &[b' '; 1000]).await {
            break;
        }
    }
    let code = raw.close_code(WAIT).await;
    assert!(matches!(code, None | Some(1009) | Some(1002)), "{code:?}");

    // A continuation with nothing to continue is a protocol error.
    let mut raw = RawWs::connect(addr, &path).await.expect("upgrade");
    raw.send_frame(true, CONTINUATION, b"orphan").await;
    let code = raw.close_code(WAIT).await;
    assert!(matches!(code, None | Some(1002)), "{code:?}");

    assert!(try_http(addr, "GET", "/healthz", None).await.is_ok());
    server.stop().await;
}

#[tokio::test]
async fn invalid_utf8_closes_that_connection_and_odd_text_gets_errors() {
    let server = Rig::start().await;
    let addr = server.addr();
    let (id, white, black) = game(addr).await;
    let path = format!("/ws/game/{id}");
    let mut raw = RawWs::connect(addr, &path).await.expect("upgrade");
    raw.send_frame(true, TEXT, b"{\"t\":\"ping\",\"d\":\"\xff\xfe\"}")
        .await;
    let code = raw.close_code(WAIT).await;
    assert!(matches!(code, None | Some(1007)), "{code:?}");

    // Valid UTF-8 that is odd JSON: typed errors, connection kept.
    let mut w = Client::seat(addr, &id, &white).await;
    for (text, code) in [
        (
            "{\"t\":\"move\",\"d\":{\"uci\":\"e2e4\u{0}\",\"id\":\"1\"}}",
            "bad_json",
        ),
        ("{\"t\":\"m\u{f6}ve\"}", "unknown_type"),
        (
            "{\"t\":\"move\",\"d\":{\"uci\":\"e2e4\",\"id\":\"\u{1F600}\u{202E}\"}}",
            "",
        ),
        ("\u{feff}{\"t\":\"ping\"}", "bad_json"),
        (
            "{\"t\":\"move\",\"d\":{\"uci\":\"e2e4\",\"id\":1e400}}",
            "bad_json",
        ),
        (
            "{\"t\":\"move\",\"d\":{\"uci\":\"e2e4\",\"id\":-1.5}}",
            "bad_message",
        ),
    ] {
        w.try_send_text(text).await.expect("send");
        let reply = loop {
            let msg = w.try_recv(WAIT).await.expect("reply");
            if msg.t == "error" || msg.t == "ack" || msg.t == "pong" {
                break msg;
            }
        };
        if code.is_empty() {
            // An exotic but valid ack id is just an id.
            assert_eq!(reply.t, "ack", "{text}: {reply}");
        } else {
            assert_eq!(reply.d["code"], code, "{text}: {reply}");
        }
    }
    let mut b = Client::seat(addr, &id, &black).await;
    assert_eq!(try_move(&mut b, "e7e5", "1").await.t, "ack");
    server.stop().await;
}

#[tokio::test]
async fn deeply_nested_or_huge_json_is_refused_with_an_error() {
    let server = Rig::start().await;
    let addr = server.addr();
    let (id, white, _) = game(addr).await;
    let mut w = Client::seat(addr, &id, &white).await;
    let deep = format!(
        r#"{{"t":"move","d":{}{}}}"#,
        "[".repeat(2000),
        "]".repeat(2000)
    );
    let deep_t = format!(r#"{{"t":{}{}}}"#, "{\"a\":".repeat(600), "}".repeat(600));
    for text in [deep, deep_t] {
        assert!(text.len() <= 4096);
        w.try_send_text(&text).await.expect("send");
        let reply = w.skip_to("error").await;
        let code = s(&reply.d["code"]);
        assert!(code == "bad_json" || code == "bad_message", "{reply}");
    }
    assert!(ping_pong(&mut w).await, "the connection stays usable");

    let mut statuses = Vec::new();
    let nested = "[".repeat(1_000_000);
    let huge = format!(r#"{{"fen":"{}"}}"#, "8/".repeat(1_500_000));
    let long_fen = format!(r#"{{"fen":"{}"}}"#, "p".repeat(100_000));
    for (name, body) in [
        ("1 MB of [", nested.as_str()),
        ("3 MB body", huge.as_str()),
        ("100 kB fen", long_fen.as_str()),
        (
            "deep object",
            &format!("{}{}", "{\"a\":".repeat(10_000), "}".repeat(10_000)),
        ),
    ] {
        let (status, text) = try_http(addr, "POST", "/api/games", Some(body.as_bytes()))
            .await
            .expect("http");
        assert!(status == 400 || status == 413, "{name}: {status} {text}");
        statuses.push(format!("{name}: {status}"));
    }
    for path in [
        "/api/games?limit=99999999999999999999",
        "/api/games?status=open&status=finished",
        "/api/games?offset=-1",
    ] {
        let (status, _) = try_http(addr, "GET", path, None).await.expect("http");
        assert_eq!(status, 400, "{path}");
        statuses.push(format!("{path}: {status}"));
    }
    eprintln!("huge/nested HTTP bodies: {statuses:?}");
    assert!(ping_pong(&mut w).await);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_connections_opened_and_dropped_leave_nothing_behind() {
    let scratch = Scratch::new();
    let server = ServerProcess::spawn(&scratch.data(), &scratch.log(), &[]).await;
    let addr = server.addr;
    let (id, white, black) = game(addr).await;
    // Let the server settle its own files (database, WAL, readers).
    let _ = try_http(addr, "GET", &format!("/api/games/{id}"), None).await;
    let baseline = server.open_fds(&scratch.data()).expect("/proc fd count");
    let waves = 10;
    let per_wave = 200;
    let mut opened = 0;
    for _ in 0..waves {
        let mut wave = Vec::new();
        for _ in 0..per_wave {
            let id = id.clone();
            wave.push(tokio::spawn(async move {
                Client::try_connect(addr, &id, "").await.ok()
            }));
        }
        let mut sockets = Vec::new();
        for task in wave {
            if let Ok(Some(ws)) = task.await {
                sockets.push(ws);
            }
        }
        opened += sockets.len();
        // Dropped without a close handshake: the TCP connection just goes.
        drop(sockets);
    }
    // Raw TCP connections that say nothing, and HTTP requests cut in half.
    let mut raw = Vec::new();
    for n in 0..1000 {
        let half: &[u8] = if n % 2 == 0 {
            b"GET /api/games HTTP/1.1\r\nHost: x\r\n"
        } else {
            b""
        };
        if let Some(stream) = half_open(addr, half).await {
            raw.push(stream);
        }
    }
    let raw_count = raw.len();
    drop(raw);
    let back = eventually(Duration::from_secs(30), || async {
        // The database's own files follow its reader pool; sockets must all be given back.
        server
            .open_fds(&scratch.data())
            .is_some_and(|n| n.other <= baseline.other + 2)
            && metric(addr, "marseillais_connections").await == Some(0.0)
    })
    .await;
    let after = server.open_fds(&scratch.data());
    assert!(back, "fds {after:?} vs baseline {baseline:?}");
    // And the game is playable, with nobody left in the room.
    let mut w = Client::seat(addr, &id, &white).await;
    let state = w.skip_to("state").await;
    assert_eq!(state.d["spectators"], 0, "{state}");
    let mut b = Client::seat(addr, &id, &black).await;
    assert_eq!(try_move(&mut w, "e2e4", "1").await.t, "ack");
    assert_eq!(try_move(&mut b, "e7e5", "1").await.t, "ack");
    eprintln!(
        "connection churn: {opened} WebSockets and {raw_count} raw/half HTTP connections dropped; \
         server fds {baseline:?} before, {after:?} after"
    );
    server.kill9().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_is_dropped_and_disconnected_while_the_game_goes_on() {
    let server = Rig::builder()
        .config(|config| {
            // Long enough that only the full queue, not idleness, can drop it.
            config.idle_timeout = Duration::from_secs(600);
            config.rate_per_sec = 1e6;
            config.rate_burst = 1e6;
            // This test loops "first sub-move, take back" to make events: lift the
            // game's limits on takebacks and on its event rate.
            config.game_rate_per_sec = 1e6;
            config.game_rate_burst = 1e6;
            config.takebacks.per_turn = u32::MAX;
            config.takebacks.per_game = u32::MAX;
        })
        // In memory: the events come as fast as the room can make them.
        .memory()
        .start()
        .await;
    let addr = server.addr();
    let (id, white, black) = game(addr).await;
    // A spectator with a tiny receive buffer that never reads a byte.
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(2048).expect("rcvbuf");
    let stream = socket.connect(addr).await.expect("connect");
    let slow = RawWs::upgrade(stream, addr, &format!("/ws/game/{id}"))
        .await
        .expect("upgrade");
    let mut w = Client::seat(addr, &id, &white).await;
    let mut b = Client::seat(addr, &id, &black).await;
    // The upgrade answers before the room takes the socket in: a `presence` with no spectator
    // that the players read before they count the slow one is not the drop this test waits for.
    for ws in [&mut w, &mut b] {
        ws.until("the slow spectator counted", |m| {
            matches!(m.t.as_str(), "state" | "presence") && m.d["spectators"] == 1
        })
        .await;
    }
    assert_eq!(try_move(&mut w, "e2e4", "w").await.t, "ack");
    // Black plays a first sub-move and takes it back, again and again: each
    // is an event of about a kilobyte (position, legal list) for every
    // socket, and the game never ends.
    // Sent in batches without waiting for each reply (the rate limit is off);
    // the players read everything after each batch (75 messages each: within
    // their outgoing queue of 128).
    let mut dropped = false;
    let mut events = 0;
    for batch in 0..400usize {
        for n in 0..25usize {
            let id = format!("b{batch}-{n}");
            b.try_send(&json!({"t": "move", "d": {"uci": "b8c6", "id": id}}))
                .await
                .expect("send");
            b.try_send(&json!({"t": "takeback_submove"}))
                .await
                .expect("send");
        }
        for ws in [&mut b, &mut w] {
            let mut takebacks = 0;
            while takebacks < 25 {
                let msg = ws.try_recv(WAIT).await.expect("the events of the batch");
                assert_ne!(msg.t, "error", "{msg}");
                if msg.t == "takeback" {
                    takebacks += 1;
                }
                if msg.t == "presence" && msg.d["spectators"] == 0 {
                    dropped = true;
                }
            }
            ws.seen.clear();
        }
        events += 50;
        if dropped {
            break;
        }
    }
    // With Nagle off the whole loop can finish before the queue fills (the
    // kernel's buffers absorb a lot); then the server's write timeout (10 s)
    // ends the stuck connection. Either way the reader must go, within a bound.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !dropped && std::time::Instant::now() < deadline {
        if let Some(msg) = b.try_recv(Duration::from_secs(1)).await
            && msg.t == "presence"
            && msg.d["spectators"] == 0
        {
            dropped = true;
        }
    }
    eprintln!("slow reader: dropped from the room after {events} events");
    assert!(dropped, "the slow reader was never dropped from the room");
    // The game goes on for the others.
    let reply = try_move(&mut b, "b8c6", "after").await;
    assert_eq!(reply.t, "ack", "{reply}");
    // The server lets go of its connection too (no task stuck writing to it).
    let closed = eventually(Duration::from_secs(30), || async {
        metric(addr, "marseillais_connections").await == Some(2.0)
    })
    .await;
    let now = metric(addr, "marseillais_connections").await;
    drop(slow);
    assert!(
        closed,
        "the slow reader's connection is still held: {now:?} connections"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_player_in_two_tabs_sees_one_game_and_each_tab_gets_its_own_acks() {
    let server = Rig::start().await;
    let addr = server.addr();
    let (id, white, black) = game(addr).await;
    let mut tab_a = Client::seat(addr, &id, &white).await;
    let mut tab_b = Client::seat(addr, &id, &white).await;
    let mut b = Client::seat(addr, &id, &black).await;
    assert_eq!(tab_a.skip_to("state").await.d["you"], "white");
    assert_eq!(tab_b.skip_to("state").await.d["you"], "white");
    assert_eq!(try_move(&mut tab_a, "e2e4", "a1").await.t, "ack");
    assert_eq!(tab_b.skip_to("move").await.d["uci"], "e2e4");
    assert_eq!(try_move(&mut b, "e7e5", "1").await.t, "ack");
    assert_eq!(try_move(&mut b, "g8f6", "2").await.t, "ack");
    // The other tab plays the next turn.
    assert_eq!(try_move(&mut tab_b, "d2d4", "b1").await.t, "ack");
    // The same id from both tabs is one move.
    let again = try_move(&mut tab_b, "e2e4", "a1").await;
    assert_eq!(again.d["v"], 2, "{again}");
    assert_eq!(version(addr, &id).await.0, 4);
    // Acks went only to the tab that sent the move.
    let acks = |ws: &Client| -> Vec<String> {
        ws.seen
            .iter()
            .filter(|m| m.t == "ack")
            .map(|m| s(&m.d["id"]))
            .collect()
    };
    tab_a.skip_to("move").await;
    assert_eq!(acks(&tab_a), vec!["a1"]);
    assert_eq!(acks(&tab_b), vec!["b1", "a1"]);
    assert!(b.seen.iter().all(|m| m.t != "ack" || m.d["id"] != "a1"));
    // Closing one tab keeps White present; closing both does not.
    drop(tab_a);
    assert!(
        b.try_recv(Duration::from_millis(500))
            .await
            .is_none_or(|m| m.d["white"] != false)
    );
    drop(tab_b);
    let gone = loop {
        let msg = b.try_recv(WAIT).await.expect("presence");
        if msg.t == "presence" && msg.d["white"] == false {
            break msg;
        }
    };
    assert_eq!(gone.d["black"], true);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_never_finishes_its_headers_is_closed_within_a_minute() {
    let scratch = Scratch::new();
    let server = ServerProcess::spawn(&scratch.data(), &scratch.log(), &[]).await;
    let mut partial = connect_and_send(server.addr, b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("connect and write");
    // The server gives a client 10 s to send its headers (src/server/serve.rs).
    let answered = answers_or_closes(&mut partial, Duration::from_secs(60)).await;
    assert!(
        answered,
        "a half-sent request was still held open after 60 s"
    );
    server.kill9().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_games_created_and_abandoned_cost_a_bounded_amount_of_memory_each() {
    let scratch = Scratch::new();
    let server = ServerProcess::spawn(&scratch.data(), &scratch.log(), &[]).await;
    let addr = server.addr;
    // Warm up the allocator and SQLite caches with a first batch.
    let create = |n: usize| async move {
        let mut tasks = Vec::new();
        for _ in 0..20 {
            tasks.push(tokio::spawn(async move {
                let mut made = 0;
                for _ in 0..n / 20 {
                    if let Ok((201, _)) = try_http(addr, "POST", "/api/games", Some(b"{}")).await {
                        made += 1;
                    }
                }
                made
            }));
        }
        let mut made = 0;
        for task in tasks {
            made += task.await.unwrap_or(0);
        }
        made
    };
    assert_eq!(create(200).await, 200);
    let before = server.rss_kib().expect("rss");
    let games = 2000;
    assert_eq!(create(games).await, games);
    let after = server.rss_kib().expect("rss");
    let live = metric(addr, "marseillais_live_games").await;
    let per_game = after.saturating_sub(before) as f64 / games as f64;
    eprintln!(
        "abandoned open games: {games} created by one client, RSS {before} -> {after} KiB \
         ({per_game:.1} KiB per game), live games {live:?}"
    );
    // Open games never expire: they all stay live. Each must stay cheap.
    assert_eq!(live, Some(2200.0));
    assert!(per_game < 64.0, "{per_game} KiB per open game");
    server.kill9().await;
}
