//! The real server binary on PostgreSQL (`--store postgres://...`, against the server
//! scripts/test-services.sh starts): a game survives a kill -9 with every acknowledged sub-move,
//! and while Postgres is unreachable a move gets `store_failure` and nothing is acknowledged,
//! then the same move goes through once it is back.

use crate::support;

use std::time::Duration;

use serde_json::Value;
use support::game::each_move;
use support::http::http;
use support::postgres::{Proxy, TestDatabase, server_url};
use support::process::Spawn;
use support::s;
use support::ws::Client;

/// Creates a game and seats both players; returns (id, white token, black token).
async fn new_game(addr: std::net::SocketAddr) -> (String, String, String) {
    let (status, created) = http(addr, "POST", "/api/games", Some(r#"{"color":"white"}"#)).await;
    assert_eq!(status, 201, "{created}");
    let created: Value = serde_json::from_str(&created).expect("json");
    let id = s(&created["id"]);
    let white = s(&created["token"]);
    let (_, joined) = http(addr, "POST", &format!("/api/games/{id}/join"), None).await;
    let black = s(&serde_json::from_str::<Value>(&joined).expect("json")["token"]);
    (id, white, black)
}

#[tokio::test]
async fn a_game_on_postgres_goes_on_after_a_kill_9_with_every_acknowledged_sub_move() {
    let Some(server) = server_url("server_postgres_kill") else {
        return;
    };
    let db = TestDatabase::create(&server, "server_kill").await;
    let dir = tempfile::tempdir().expect("temp dir");
    let child = Spawn::new(dir.path())
        .flags(&["--store", &db.url])
        .spawn()
        .await;
    let addr = child.addr;
    let (id, white_token, black_token) = new_game(addr).await;
    let mut white = Client::connect(addr, &id, &format!("token={white_token}")).await;
    let mut black = Client::connect(addr, &id, &format!("token={black_token}")).await;
    white.play("e2e4", "1").await;
    black.play("e7e5", "1").await;
    black.mv("g8f6", "2").await;
    let acked = black.recv_type("ack").await;
    // SIGKILL right after the acknowledgement: no graceful anything.
    child.kill9().await;
    assert!(
        !dir.path().join("marseillais.sqlite3").exists(),
        "the game must be in Postgres, not in a SQLite file"
    );

    let child = Spawn::new(dir.path())
        .flags(&["--store", &db.url])
        .spawn()
        .await;
    let addr = child.addr;
    let mut black = Client::connect(addr, &id, &format!("token={black_token}")).await;
    let state = black.recv_type("state").await;
    assert_eq!(state.v, acked.d["v"].as_u64());
    assert_eq!(
        each_move(&state.d["moves"], "uci"),
        ["e2e4", "e7e5", "g8f6"]
    );
    assert_eq!(state.d["turn"], "white");
    let mut white = Client::connect(addr, &id, &format!("token={white_token}")).await;
    white.play("d2d4", "2").await;
    let (_, pgn) = http(addr, "GET", &format!("/game/{id}.pgn"), None).await;
    assert!(pgn.contains("1. e4 e5,Nf6 2. d4"), "{pgn}");
}

#[tokio::test]
async fn while_postgres_is_unreachable_a_move_gets_store_failure_and_is_not_acknowledged() {
    let Some(server) = server_url("server_postgres_outage") else {
        return;
    };
    let db = TestDatabase::create(&server, "server_outage").await;
    let proxy = Proxy::start(&server).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let child = Spawn::new(dir.path())
        .flags(&["--store", &db.url_through(&proxy)])
        .spawn()
        .await;
    let addr = child.addr;
    let (id, white_token, black_token) = new_game(addr).await;
    let mut white = Client::connect(addr, &id, &format!("token={white_token}")).await;
    let mut black = Client::connect(addr, &id, &format!("token={black_token}")).await;
    // Black's socket is in the room once its `state` came: a move made before that would be in
    // the state, and no `move` event would follow (the join looks the seat up in Postgres).
    black.recv_type("state").await;
    let played = white.play("e2e4", "1").await;
    black.recv_type("move").await;

    let raw = db.connect().await;
    let count = || async {
        raw.query_one("SELECT count(*) FROM events WHERE game_id = $1", &[&id])
            .await
            .expect("count")
            .get::<_, i64>(0)
    };
    let before = count().await;

    proxy.cut();
    black.mv("e7e5", "1").await;
    let error = black.recv_type("error").await;
    assert_eq!(error.d["code"], "store_failure");
    assert_eq!(error.d["id"], "1");

    // Nothing of it was stored (seen directly, not through the proxy).
    assert_eq!(count().await, before);

    proxy.restore();
    // The same ack id was never accepted: the retry is applied now, once (a bounded number of
    // tries while the pool reconnects).
    let mut applied = None;
    for _ in 0..10 {
        black.mv("e7e5", "1").await;
        let mut reply = black.recv().await;
        for _ in 0..20 {
            if reply.t == "ack" || reply.t == "error" {
                break;
            }
            reply = black.recv().await;
        }
        if reply.t == "ack" {
            applied = Some(reply);
            break;
        }
        assert_eq!(reply.d["code"], "store_failure", "{:?}", reply.d);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let ack = applied.expect("the move goes through once Postgres is back");
    assert_eq!(ack.d["v"].as_u64(), played.v.map(|v| v + 1));
    let seen = white.recv_type("move").await;
    assert_eq!(seen.v, ack.d["v"].as_u64());
    assert!(count().await > before, "the retried move is stored");
    drop(child);
}
