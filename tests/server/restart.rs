//! Durability: a game goes on after the server restarts (gracefully in
//! process, or killed with SIGKILL as a real process), acknowledged moves
//! are never lost, retried ack ids are not applied twice, and finished games
//! still export.

use crate::support;

use serde_json::{Value, json};
use support::WAIT;
use support::game::{each_move, play_until_white_mates_in_one};
use support::http::http;
use support::process::Spawn;
use support::rig::Rig;
use support::s;
use support::ws::Client;

#[tokio::test]
async fn a_game_goes_on_after_an_in_process_restart_with_moves_seats_and_clocks() {
    let mut server = Rig::start().await;
    let clock = json!({"base_secs": 300, "increment_secs": 5});
    let (id, white_token, black_token) = server.game_between_two(json!({"clock": clock})).await;
    let (finished, finished_white, _) = server.game_between_two(json!({})).await;
    {
        let mut white = server.seat(&id, &white_token).await;
        let mut black = server.seat(&id, &black_token).await;
        play_until_white_mates_in_one(&mut white, &mut black).await;
        let mut done = server.seat(&finished, &finished_white).await;
        done.send(json!({"t": "resign"})).await;
        done.recv_type("end").await;
    }
    let before_pgn = server.pgn(&finished).await;
    server.restart().await;

    let mut white = server.seat(&id, &white_token).await;
    let state = white.recv_type("state").await;
    assert_eq!(state.d["you"], "white");
    let sans = each_move(&state.d["moves"], "san");
    assert_eq!(sans, ["e4", "f6", "g5"]);
    assert_eq!(state.d["clock"]["running"], "white");
    assert_eq!(state.d["clock"]["black"], 300_000, "no clock ran before");
    assert!(
        state.d["clock"]["white"]
            .as_u64()
            .is_some_and(|ms| ms <= 300_000 && ms > 250_000)
    );
    // A retried ack id from before the restart is acknowledged, not replayed.
    white.mv("e2e4", "w1").await;
    let ack = white.recv_type("ack").await;
    assert_eq!(ack.d["v"].as_u64(), Some(2));
    white.play("d1h5", "w2").await;
    assert_eq!(white.recv_type("end").await.d["reason"], "checkmate");
    assert!(server.pgn(&id).await.contains("1. e4 f6,g5 2. Qh5# 1-0"));
    assert_eq!(server.pgn(&finished).await, before_pgn);
    server.stop().await;
}

#[tokio::test]
async fn acknowledged_moves_survive_a_kill_9_of_the_real_binary() {
    let dir = tempfile::tempdir().expect("temp dir");
    let child = Spawn::new(dir.path()).spawn().await;
    let addr = child.addr;
    let (status, created) = http(addr, "POST", "/api/games", Some(r#"{"color":"white"}"#)).await;
    assert_eq!(status, 201);
    let created: Value = serde_json::from_str(&created).expect("json");
    let id = s(&created["id"]);
    let white_token = s(&created["token"]);
    let (_, joined) = http(addr, "POST", &format!("/api/games/{id}/join"), None).await;
    let black_token = s(&serde_json::from_str::<Value>(&joined).expect("json")["token"]);
    let mut white = Client::connect(addr, &id, &format!("token={white_token}")).await;
    let mut black = Client::connect(addr, &id, &format!("token={black_token}")).await;
    white.play("e2e4", "1").await;
    black.play("e7e5", "1").await;
    black.mv("g8f6", "2").await;
    let acked = black.recv_type("ack").await;
    // SIGKILL right after the acknowledgement: no graceful anything.
    child.kill9().await;

    let child = Spawn::new(dir.path()).spawn().await;
    let addr = child.addr;
    let mut black = Client::connect(addr, &id, &format!("token={black_token}")).await;
    let state = black.recv_type("state").await;
    assert_eq!(state.v, acked.d["v"].as_u64());
    let moves = each_move(&state.d["moves"], "uci");
    assert_eq!(moves, ["e2e4", "e7e5", "g8f6"]);
    assert_eq!(state.d["turn"], "white");
    let mut white = Client::connect(addr, &id, &format!("token={white_token}")).await;
    white.play("d2d4", "2").await;
    let (_, pgn) = http(addr, "GET", &format!("/game/{id}.pgn"), None).await;
    assert!(pgn.contains("1. e4 e5,Nf6 2. d4"), "{pgn}");
}

#[tokio::test]
async fn a_move_the_store_refuses_is_neither_acknowledged_nor_broadcast() {
    use marseillais::server::store::{FailingStore, MemoryStore};
    use std::sync::Arc;
    let failing = FailingStore::new(Arc::new(MemoryStore::new()));
    let switch = failing.switch();
    let server = Rig::start_on_store(Arc::new(failing)).await;
    let (_, mut white, mut black) = server.players(json!({})).await;
    let state = black.recv_type("state").await;
    switch.store(true, std::sync::atomic::Ordering::SeqCst);
    white.mv("e2e4", "1").await;
    let error = white.recv_type("error").await;
    assert_eq!(error.d["code"], "store_failure");
    assert_eq!(error.d["id"], "1");
    switch.store(false, std::sync::atomic::Ordering::SeqCst);
    // The same ack id was never accepted, so the retry is applied now, once.
    let event = white.play("e2e4", "1").await;
    assert_eq!(event.v, state.v.map(|v| v + 1));
    let seen = black.recv_type("move").await;
    assert_eq!(seen.v, event.v);
    server.stop().await;
}

#[tokio::test]
async fn finished_and_open_games_leave_memory_and_come_back_from_the_store() {
    let server = Rig::start_with(|c| c.retire_after = std::time::Duration::from_millis(100)).await;
    let (id, white_token, _) = server.game_between_two(json!({})).await;
    let (open, _, _) = server.create(json!({})).await;
    {
        let mut white = server.seat(&id, &white_token).await;
        white.play("e2e4", "1").await;
        white.send(json!({"t": "resign"})).await;
        white.recv_type("end").await;
    }
    let mut retired = false;
    for _ in 0..100 {
        if server.live_games() == 0 {
            retired = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(retired, "the finished and open rooms stayed in memory");
    // The open game is still joinable: it comes back from the store.
    let (_, color) = server.join(&open).await;
    assert!(color == "white" || color == "black");
    let pgn = server.pgn(&id).await;
    assert!(pgn.contains("[Termination \"resignation\"]"), "{pgn}");
    let mut spectator = server.spectate(&id).await;
    let state = spectator.recv_type("state").await;
    assert_eq!(state.d["outcome"]["winner"], "black");
    server.stop().await;
}

#[tokio::test]
async fn a_client_whose_outgoing_queue_overflows_is_dropped_and_resyncs_by_version() {
    let server = Rig::start_with(|c| c.outgoing_queue = 2).await;
    let (id, white_token, black_token) = server.game_between_two(json!({})).await;
    let mut white = server.seat(&id, &white_token).await;
    let mut black = server.seat(&id, &black_token).await;
    play_until_white_mates_in_one(&mut white, &mut black).await;
    // The mating move queues three messages at once for White (ack, move,
    // end) while its queue holds two: White is dropped, the game is not.
    white.mv("d1h5", "2").await;
    let (code, reason) = white.expect_close().await;
    assert_eq!(code, 1013, "{reason}");
    let last_v = white
        .seen
        .iter()
        .filter_map(|m| m.v)
        .max()
        .expect("some versioned event");
    let end = black.recv_type("end").await;
    let mut again = server
        .connect(&id, &format!("token={white_token}&v={last_v}"))
        .await;
    let missed = again.recv_type("end").await;
    assert_eq!(missed, end);
    server.stop().await;
}

#[tokio::test]
async fn sigterm_closes_sockets_with_1001_and_the_binary_exits_cleanly() {
    let dir = tempfile::tempdir().expect("temp dir");
    let child = Spawn::new(dir.path()).spawn().await;
    let addr = child.addr;
    let (status, created) = http(addr, "POST", "/api/games", Some("{}")).await;
    assert_eq!(status, 201);
    let id = s(&serde_json::from_str::<Value>(&created).expect("json")["id"]);
    let mut spectator = Client::connect(addr, &id, "").await;
    spectator.recv_type("state").await;
    assert!(child.sigterm(), "kill -TERM");
    let (code, reason) = spectator.expect_close().await;
    assert_eq!((code, reason.as_str()), (1001, "server shutting down"));
    let exit = child
        .wait_exit(WAIT)
        .await
        .expect("the server exits in time");
    assert!(exit.success(), "{exit:?}");
}

/// A SIGTERM that arrives while the server is still starting (here: after the games were
/// restored, while the features are being composed, before the address is printed) is kept and
/// stops the server gracefully once it has started, instead of killing it with the signal's
/// default action. Without the early registration this run dies of signal 15 unless the whole
/// composition takes less than the log poll.
#[tokio::test]
async fn sigterm_during_startup_is_a_graceful_stop_once_started() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("server.log");
    let starting = Spawn::new(&dir.path().join("data")).log(&log).launch();
    assert!(
        starting.until_logged("server started").await,
        "the server logs its start"
    );
    assert!(starting.terminate().await, "a graceful exit, status 0");
}

#[tokio::test]
async fn a_flag_that_cannot_be_saved_is_retried_until_the_store_recovers() {
    use marseillais::server::store::{FailingStore, MemoryStore};
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    let failing = FailingStore::new(Arc::new(MemoryStore::new()));
    let switch = failing.switch();
    let server = Rig::start_on_store(Arc::new(failing)).await;
    let clock = json!({"base_secs": 1, "increment_secs": 0});
    let (_, mut white, mut black) = server.players(json!({"clock": clock})).await;
    white.play("e2e4", "1").await;
    black.play("e7e5", "1").await;
    switch.store(true, Ordering::SeqCst);
    black.play_unacked_then_refused("b8c6", "2").await;
    switch.store(false, Ordering::SeqCst);
    black.play("b8c6", "2").await;
    // White's clock (1 s) runs; the flag's end event fails to commit at first.
    switch.store(true, Ordering::SeqCst);
    let until = tokio::time::Instant::now() + std::time::Duration::from_millis(1500);
    for _ in 0..100 {
        let left = until.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            break;
        }
        if let Some(early) = black.try_recv(left).await {
            assert_ne!(early.t, "end", "an end that was not saved was broadcast");
        }
    }
    switch.store(false, Ordering::SeqCst);
    let end = black.recv_type("end").await;
    assert_eq!(end.d["reason"], "time_forfeit");
    assert_eq!(end.d["winner"], "black");
    server.stop().await;
}

/// What the browser tests stand on when they pause the server: its port stays bound by the rig
/// (no other socket can take it, so the restart cannot find it in use), refuses connections
/// while paused, and serves again after the restart.
#[tokio::test]
async fn a_kept_port_is_held_while_the_server_is_paused_and_served_again_after() {
    let mut server = Rig::builder().keep_port().start().await;
    let addr = server.addr();
    server.pause().await;
    let other = tokio::net::TcpSocket::new_v4().expect("a socket");
    let taken = other
        .bind(addr)
        .expect_err("the paused server's port is held");
    assert_eq!(taken.kind(), std::io::ErrorKind::AddrInUse, "{taken}");
    let refused = tokio::net::TcpStream::connect(addr)
        .await
        .expect_err("nothing listens while paused");
    assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
    server.resume().await;
    assert_eq!(server.addr(), addr);
    let (status, _) = server.http("GET", "/api/games", None).await;
    assert_eq!(status, 200);
    server.stop().await;
}
