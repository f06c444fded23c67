//! The room's limits and its resilience, through the real server: a move
//! carries the version it was played on (a stale one is refused), takebacks
//! and a game's event rate are bounded, `hello` is rate-limited per
//! connection and answered from a cached snapshot, and a panic while
//! handling a message neither wedges the game nor leaves a dead room behind.

use crate::support;

use marseillais::server::config::{PanicOnMove, PanicSite};
use serde_json::{Value, json};
use support::rig::Rig;
use support::ws::{Client, Incoming};

/// The next `ack` or `error` (skipping events and presence).
async fn reply(client: &mut Client) -> Incoming {
    for _ in 0..200 {
        let msg = client.recv().await;
        if msg.t == "ack" || msg.t == "error" {
            return msg;
        }
    }
    panic!("no ack or error");
}

/// The version of the `state` a fresh connection gets first.
async fn state_version(client: &mut Client) -> u64 {
    let state = client.recv_type("state").await;
    state.v.expect("a state has a v")
}

async fn move_at(client: &mut Client, uci: &str, id: &str, v: u64) {
    client
        .send(json!({"t": "move", "d": {"uci": uci, "id": id, "v": v}}))
        .await;
}

async fn public_moves(server: &Rig, id: &str) -> usize {
    let (status, text) = server.http("GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, 200, "{text}");
    let public: Value = serde_json::from_str(&text).expect("json");
    public["moves"].as_array().map_or(0, Vec::len)
}

async fn metric(server: &Rig, name: &str) -> u64 {
    let (_, text) = server.http("GET", "/metrics", None).await;
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no metric {name} in\n{text}"))
}

#[tokio::test]
async fn two_tabs_of_one_seat_moving_on_the_same_version_apply_exactly_one_move() {
    let server = Rig::start().await;
    // Marseillais: White's first turn has two sub-moves, so without the
    // version check the second tab's sub-move would be applied as S2.
    let (id, white_token, black_token) = server
        .game_between_two(json!({"variant": "marseillais"}))
        .await;
    let mut tab_a = server.seat(&id, &white_token).await;
    let mut tab_b = server.seat(&id, &white_token).await;
    let mut black = server.seat(&id, &black_token).await;
    let v = state_version(&mut tab_a).await;
    assert_eq!(state_version(&mut tab_b).await, v);
    black.recv_type("state").await;

    move_at(&mut tab_a, "e2e4", "a1", v).await;
    move_at(&mut tab_b, "d2d4", "b1", v).await;
    let replies = [reply(&mut tab_a).await, reply(&mut tab_b).await];
    let acks = replies.iter().filter(|r| r.t == "ack").count();
    assert_eq!(acks, 1, "exactly one tab's move applies: {replies:?}");
    let refused = replies
        .iter()
        .find(|r| r.t == "error")
        .expect("the other is refused");
    assert_eq!(refused.d["code"], "stale", "{refused}");
    assert_eq!(public_moves(&server, &id).await, 1);

    // Idempotency comes first: the winner re-sending its move (same id,
    // same old v) is acknowledged again at the same version, not stale.
    let (winner, uci, ack_id) = if replies[0].t == "ack" {
        (&mut tab_a, "e2e4", "a1")
    } else {
        (&mut tab_b, "d2d4", "b1")
    };
    move_at(winner, uci, ack_id, v).await;
    let again = reply(winner).await;
    assert_eq!(again.t, "ack", "{again}");
    assert_eq!(again.d["v"], v + 1);
    // A version the game never had is stale too; a move on the current one plays.
    move_at(winner, "a2a3", "x", v + 5).await;
    assert_eq!(reply(winner).await.d["code"], "stale");
    move_at(winner, "a2a3", "ok", v + 1).await;
    assert_eq!(reply(winner).await.t, "ack");
    // Moves without v (older clients) are not checked.
    black.play("e7e5", "b1").await;
    assert_eq!(public_moves(&server, &id).await, 3);
    server.stop().await;
}

#[tokio::test]
async fn a_move_on_an_older_version_that_only_saw_a_draw_offer_is_not_stale() {
    let server = Rig::start().await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    let v = state_version(&mut white).await;
    black.recv_type("state").await;
    // Black's draw offer is an event, but it does not change the position
    // White played its move on.
    black.send(json!({"t": "draw_offer"})).await;
    white.recv_type("draw_offer").await;
    move_at(&mut white, "e2e4", "w1", v).await;
    assert_eq!(reply(&mut white).await.t, "ack");
    assert_eq!(public_moves(&server, &id).await, 1);
    server.stop().await;
}

#[tokio::test]
async fn a_player_may_take_back_once_per_turn_by_default() {
    let server = Rig::start().await;
    let (_id, mut white, _black) = server.players(json!({"variant": "marseillais"})).await;
    white.play("e2e4", "1").await;
    white.send(json!({"t": "takeback_submove"})).await;
    white.recv_type("takeback").await;
    white.play("d2d4", "2").await;
    white.send(json!({"t": "takeback_submove"})).await;
    let refused = reply(&mut white).await;
    assert_eq!(refused.d["code"], "not_available", "{refused}");
    // The turn goes on normally.
    white.play("e2e4", "3").await;
    server.stop().await;
}

#[tokio::test]
async fn takebacks_per_game_are_bounded_and_the_bound_survives_a_restart() {
    let mut server = Rig::start_with(|c| c.takebacks.per_game = 2).await;
    let (id, white_token, black_token) = server
        .game_between_two(json!({"variant": "marseillais"}))
        .await;
    let mut white = server.seat(&id, &white_token).await;
    let mut black = server.seat(&id, &black_token).await;
    let mut n = 0;
    let mut ack = || {
        n += 1;
        n.to_string()
    };
    // Two turns of White, each with one takeback.
    for (s1, s2, b1, b2) in [
        ("e2e4", "d2d4", "a7a6", "h7h6"),
        ("a2a3", "h2h3", "b7b6", "g7g6"),
    ] {
        white.play(s1, &ack()).await;
        white.send(json!({"t": "takeback_submove"})).await;
        white.recv_type("takeback").await;
        white.play(s1, &ack()).await;
        white.play(s2, &ack()).await;
        black.play(b1, &ack()).await;
        black.play(b2, &ack()).await;
    }
    white.play("b2b3", &ack()).await;
    white.send(json!({"t": "takeback_submove"})).await;
    let refused = reply(&mut white).await;
    assert_eq!(refused.d["code"], "not_available", "{refused}");

    // The count comes from the game's log: a restart does not reset it.
    drop((white, black));
    server.restart().await;
    let mut white = server.seat(&id, &white_token).await;
    white.recv_type("state").await;
    white.send(json!({"t": "takeback_submove"})).await;
    let refused = reply(&mut white).await;
    assert_eq!(refused.d["code"], "not_available", "{refused}");
    // Black still has both of its takebacks.
    white.play("g2g3", &ack()).await;
    let mut black = server.seat(&id, &black_token).await;
    black.recv_type("state").await;
    black.play("c7c6", &ack()).await;
    black.send(json!({"t": "takeback_submove"})).await;
    black.recv_type("takeback").await;
    server.stop().await;
}

#[tokio::test]
async fn a_player_may_offer_a_draw_once_per_turn() {
    let server = Rig::start().await;
    let (_id, mut white, mut black) = server.players(json!({})).await;
    white.send(json!({"t": "draw_offer"})).await;
    black.recv_type("draw_offer").await;
    black.send(json!({"t": "draw_decline"})).await;
    white.recv_type("draw_decline").await;
    // "Offer, decline" again and again would grow the log forever.
    white.send(json!({"t": "draw_offer"})).await;
    let refused = reply(&mut white).await;
    assert_eq!(refused.d["code"], "not_available", "{refused}");
    // Black may still offer; accepting is never limited.
    white.play("e2e4", "w1").await;
    black.send(json!({"t": "draw_offer"})).await;
    white.recv_type("draw_offer").await;
    black.recv_type("draw_offer").await;
    white.send(json!({"t": "draw_decline"})).await;
    black.recv_type("draw_decline").await;
    // After a completed turn White may offer again.
    white.send(json!({"t": "draw_offer"})).await;
    assert_eq!(black.recv_type("draw_offer").await.d["by"], "white");
    black.send(json!({"t": "draw_accept"})).await;
    assert_eq!(white.recv_type("end").await.d["reason"], "agreement");
    server.stop().await;
}

#[tokio::test]
async fn a_games_event_rate_is_bounded_across_all_its_sockets() {
    let server = Rig::start_with(|c| {
        c.game_rate_burst = 4.0;
        // Practically no refill within the test.
        c.game_rate_per_sec = 0.0001;
    })
    .await;
    let (id, white_token, black_token) = server.game_between_two(json!({})).await;
    let mut white = server.seat(&id, &white_token).await;
    let mut white_tab = server.seat(&id, &white_token).await;
    let mut black = server.seat(&id, &black_token).await;
    white.play("e2e4", "w1").await;
    black.play("e7e5", "b1").await;
    black.play("g8f6", "b2").await;
    white_tab.recv_type("state").await;
    white_tab.play("d2d4", "w2").await;
    // The bucket (4) is empty, whichever socket or seat asks.
    white.mv("c2c4", "w3").await;
    let refused = reply(&mut white).await;
    assert_eq!(refused.d["code"], "rate_limited", "{refused}");
    assert_eq!(refused.d["id"], "w3");
    black.send(json!({"t": "resign"})).await;
    assert_eq!(reply(&mut black).await.d["code"], "rate_limited");
    // Refusals are not events: nothing changed, and the sockets are kept.
    assert_eq!(public_moves(&server, &id).await, 4);
    white.send(json!({"t": "ping"})).await;
    white.recv_type("pong").await;
    server.stop().await;
}

#[tokio::test]
async fn a_hello_flood_gets_rate_limited_errors_and_the_connection_survives() {
    // No refill: exactly the burst (3) is answered, whatever the machine's speed.
    let server = Rig::start_with(|c| c.hello_rate_per_sec = 0.0).await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    let mut spectator = server.spectate(&id).await;
    spectator.recv_type("state").await;
    for _ in 0..10 {
        spectator.send(json!({"t": "hello"})).await;
    }
    let mut states = 0;
    let mut limited = 0;
    while states + limited < 10 {
        let msg = spectator.recv().await;
        match msg.t.as_str() {
            "state" => states += 1,
            "error" => {
                assert_eq!(msg.d["code"], "rate_limited", "{msg}");
                limited += 1;
            }
            _ => {}
        }
    }
    assert_eq!((states, limited), (3, 7));
    // The connection is kept and still follows the game.
    spectator.send(json!({"t": "ping"})).await;
    spectator.recv_type("pong").await;
    white.play("e2e4", "w1").await;
    assert_eq!(spectator.recv_type("move").await.d["uci"], "e2e4");
    black.recv_type("move").await;
    server.stop().await;
}

#[tokio::test]
async fn snapshots_are_serialized_once_per_version_and_differ_only_in_you() {
    let server = Rig::start().await;
    let (id, white_token, _) = server.game_between_two(json!({})).await;
    let mut white = server.seat(&id, &white_token).await;
    let white_state = white.recv_type("state").await;
    let before = metric(&server, "marseillais_snapshots_serialized_total").await;
    let mut spectators = Vec::new();
    for _ in 0..5 {
        spectators.push(server.spectate(&id).await);
    }
    let mut states = Vec::new();
    for spectator in &mut spectators {
        states.push(spectator.recv_type("state").await);
    }
    let after = metric(&server, "marseillais_snapshots_serialized_total").await;
    assert_eq!(after, before, "served from the cache built for White");
    assert_eq!(white_state.d["you"], "white");
    for state in &states {
        assert_eq!(state.d["you"], Value::Null);
        assert_eq!(state.d["moves"], white_state.d["moves"]);
        assert_eq!(state.d["legal"], white_state.d["legal"]);
        assert_eq!(state.v, white_state.v);
    }
    // The last spectator sees the others (presence is live, not cached).
    assert_eq!(states[4].d["spectators"], 5, "{}", states[4]);
    // A move is a new version: the next snapshot is serialized again, once.
    white.play("e2e4", "w1").await;
    for spectator in &mut spectators {
        spectator.send(json!({"t": "hello"})).await;
        let state = spectator.recv_type("state").await;
        assert_eq!(state.d["moves"].as_array().map(Vec::len), Some(1));
    }
    let last = metric(&server, "marseillais_snapshots_serialized_total").await;
    assert_eq!(last, after + 1);
    server.stop().await;
}

#[tokio::test]
async fn a_panic_while_handling_a_move_refuses_it_and_the_game_goes_on() {
    let server = Rig::start_with(|c| {
        c.panic_on_move = Some(PanicOnMove {
            uci: "d2d4".into(),
            site: PanicSite::Handling,
        })
    })
    .await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    white.mv("d2d4", "boom").await;
    let refused = reply(&mut white).await;
    assert_eq!(refused.t, "error", "{refused}");
    assert_eq!(refused.d["id"], "boom");
    // Same sockets, same room: the next legal move plays and is seen.
    white.play("e2e4", "w1").await;
    assert_eq!(black.recv_type("move").await.d["uci"], "e2e4");
    black.play("e7e5", "b1").await;
    assert_eq!(public_moves(&server, &id).await, 2);
    assert_eq!(
        metric(&server, "marseillais_rooms_restarted_total").await,
        0
    );
    server.stop().await;
}

#[tokio::test]
async fn a_room_task_that_died_is_restarted_from_the_store_on_the_next_command() {
    let server = Rig::start_with(|c| {
        c.panic_on_move = Some(PanicOnMove {
            uci: "d2d4".into(),
            site: PanicSite::Task,
        })
    })
    .await;
    let (id, white_token, black_token) = server.game_between_two(json!({})).await;
    let mut white = server.seat(&id, &white_token).await;
    white.recv_type("state").await;
    white.play("e2e4", "w1").await;
    let mut black = server.seat(&id, &black_token).await;
    black.recv_type("state").await;
    black.play("e7e5", "b1").await;
    black.play("d7d5", "b2").await;
    white.mv("d2d4", "boom").await;
    // The task died: its sockets are closed (they reconnect) ...
    let (code, _) = white.expect_close().await;
    assert_eq!(code, 1000);
    // ... and the next command for the game restarts it from the store.
    let (status, text) = server.http("GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, 200, "{text}");
    let mut white = server.seat(&id, &white_token).await;
    let state = white.recv_type("state").await;
    assert_eq!(state.d["moves"].as_array().map(Vec::len), Some(3));
    white.play("g1f3", "w2").await;
    white.play("b1c3", "w3").await;
    let mut black = server.seat(&id, &black_token).await;
    black.recv_type("state").await;
    black.play("b8c6", "b3").await;
    assert_eq!(public_moves(&server, &id).await, 6);
    assert_eq!(
        metric(&server, "marseillais_rooms_restarted_total").await,
        1
    );
    server.stop().await;
}
