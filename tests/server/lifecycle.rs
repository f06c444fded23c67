//! A game's life around the moves: reconnecting by version, clocks and
//! flags, first-turn abort, resignation, draws, abort, abandonment, rematch.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::game::play_both_first_turns;
use support::rig::Rig;
use support::s;

#[tokio::test]
async fn a_reconnecting_client_gets_exactly_the_events_it_missed() {
    let server = Rig::start().await;
    let (id, white_token, black_token) = server.game_between_two(json!({})).await;
    let mut white = server.seat(&id, &white_token).await;
    let mut black = server.seat(&id, &black_token).await;
    let mut spectator = server.spectate(&id).await;
    // In the room before the move, so that the move comes as an event, not in the state.
    spectator.recv_type("state").await;
    white.play("e2e4", "1").await;
    let last = spectator.recv_type("move").await;
    let seen_v = last.v.expect("v");
    drop(spectator);

    black.play("e7e5", "1").await;
    black.play("g8f6", "2").await;
    white.send(json!({"t": "draw_offer"})).await;
    white.recv_type("draw_offer").await;

    let mut back = server.connect(&id, &format!("v={seen_v}")).await;
    let missed = [
        back.next_non_presence().await,
        back.next_non_presence().await,
        back.next_non_presence().await,
    ];
    let types: Vec<String> = missed.iter().map(|m| m.t.clone()).collect();
    assert_eq!(types, ["move", "move", "draw_offer"]);
    let versions: Vec<u64> = missed.iter().filter_map(|m| m.v).collect();
    assert_eq!(versions, [seen_v + 1, seen_v + 2, seen_v + 3]);
    assert_eq!(missed[1].d["uci"], "g8f6");

    // Up to date: nothing but presence. Unknown or future version: a snapshot.
    let mut current = server.connect(&id, &format!("v={}", seen_v + 3)).await;
    assert_eq!(current.recv().await.t, "presence");
    let mut future = server.connect(&id, &format!("v={}", seen_v + 50)).await;
    let state = future.next_non_presence().await;
    assert_eq!(state.t, "state");
    assert_eq!(state.v, Some(seen_v + 3));
    assert_eq!(state.d["draw_offer"], "white");

    // A hello with a token and a version upgrades a spectator and resyncs it.
    let mut tab = server.spectate(&id).await;
    tab.recv_type("state").await;
    tab.send(json!({"t": "hello", "d": {"token": black_token, "v": seen_v + 3}}))
        .await;
    tab.send(json!({"t": "draw_accept"})).await;
    let end = tab.recv_type("end").await;
    assert_eq!(end.d["reason"], "agreement");
    assert_eq!(end.d["result"], "1/2-1/2");
    server.stop().await;
}

#[tokio::test]
async fn the_server_flags_a_side_whose_clock_runs_out() {
    let server = Rig::start().await;
    let clock = json!({"base_secs": 1, "increment_secs": 0});
    let (id, mut white, mut black) = server.players(json!({"clock": clock})).await;
    let first = white.play("e2e4", "1").await;
    assert_eq!(
        first.d["clock"]["running"],
        Value::Null,
        "no clock before Black's first turn"
    );
    black.play("e7e5", "1").await;
    let started = black.play("b8c6", "2").await;
    assert_eq!(started.d["clock"]["running"], "white");
    assert_eq!(started.d["clock"]["white"], 1000);
    // White does nothing; the server ends the game by itself.
    let end = black.recv_type("end").await;
    assert_eq!(end.d["reason"], "time_forfeit");
    assert_eq!(end.d["winner"], "black");
    assert_eq!(end.d["clock"]["white"], 0);
    let pgn = server.pgn(&id).await;
    assert!(pgn.contains("[TimeControl \"1+0\"]"), "{pgn}");
    assert!(pgn.contains("[Termination \"time forfeit\"]"), "{pgn}");
    server.stop().await;
}

#[tokio::test]
async fn a_flag_against_a_side_whose_opponent_cannot_mate_is_a_draw() {
    let server = Rig::start().await;
    // White has a lone king; Black (king and rook) lets its clock run out.
    let fen = "4k3/8/8/8/8/8/8/r3K3 w - - 0 30";
    // Two seconds leave White ample time for its two quick sub-moves.
    let clock = json!({"base_secs": 2, "increment_secs": 0});
    let (_, mut white, mut black) = server.players(json!({"clock": clock, "fen": fen})).await;
    white.play("e1e2", "1").await;
    white.play("e2e3", "2").await;
    black.play("a1a2", "1").await;
    black.play("a2a1", "2").await;
    // Both first turns are done: White's clock runs; White plays at once, then
    // Black's clock runs out while White has only its king.
    white.play("e3e2", "3").await;
    white.play("e2e3", "4").await;
    let end = white.recv_type("end").await;
    assert_eq!(end.d["reason"], "time_forfeit");
    assert_eq!(end.d["result"], "1/2-1/2", "White cannot mate: {end}");
    server.stop().await;
}

#[tokio::test]
async fn a_first_turn_not_played_in_time_aborts_a_clocked_game() {
    let server = Rig::start_with(|c| c.first_move = Duration::from_millis(300)).await;
    let clock = json!({"base_secs": 60, "increment_secs": 0});
    let (id, white_token, _) = server.game_between_two(json!({"clock": clock})).await;
    let mut white = server.seat(&id, &white_token).await;
    let state = white.recv_type("state").await;
    assert!(
        state.d["first_move_ms"]
            .as_u64()
            .is_some_and(|ms| ms <= 300)
    );
    let end = white.recv_type("end").await;
    assert_eq!(end.d["reason"], "aborted");
    assert_eq!(end.d["result"], "*");
    server.stop().await;
}

#[tokio::test]
async fn resign_draw_decline_and_abort_follow_the_rules() {
    let server = Rig::start().await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    white.play("e2e4", "1").await;
    white.send(json!({"t": "draw_offer"})).await;
    assert_eq!(black.recv_type("draw_offer").await.d["by"], "white");
    black.send(json!({"t": "draw_decline"})).await;
    assert_eq!(white.recv_type("draw_decline").await.d["by"], "black");
    black.play("e7e5", "1").await;
    black.play("g8f6", "2").await;
    // Both sides have played: too late to abort, but resigning works.
    white.send(json!({"t": "abort"})).await;
    assert_eq!(white.recv_type("error").await.d["code"], "not_available");
    black.send(json!({"t": "resign"})).await;
    let end = white.recv_type("end").await;
    assert_eq!(end.d["winner"], "white");
    assert_eq!(end.d["reason"], "resignation");
    white.mv("d2d4", "2").await;
    assert_eq!(white.recv_type("error").await.d["code"], "game_over");

    let (id2, white2, _) = server.game_between_two(json!({})).await;
    let mut early = server.seat(&id2, &white2).await;
    early.play("e2e4", "1").await;
    early.send(json!({"t": "abort"})).await;
    let end = early.recv_type("end").await;
    assert_eq!(end.d["reason"], "aborted");
    let pgn = server.pgn(&id2).await;
    assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
    let _ = id;
    server.stop().await;
}

#[tokio::test]
async fn a_player_may_claim_victory_when_the_opponent_stays_away() {
    let server = Rig::start_with(|c| c.disconnect_grace = Duration::from_millis(300)).await;
    let (_, mut white, mut black) = server.players(json!({})).await;
    play_both_first_turns(&mut white, &mut black).await;
    white.send(json!({"t": "claim_victory"})).await;
    assert_eq!(white.recv_type("error").await.d["code"], "not_available");
    drop(black);
    // Presence tells White that Black left.
    for _ in 0..20 {
        let presence = white.recv_type("presence").await;
        if presence.d["black"] == false {
            break;
        }
    }
    // Keep claiming until the grace period is over (bounded).
    let mut end = None;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        white.send(json!({"t": "claim_victory"})).await;
        let reply = white.next_non_presence().await;
        if reply.t == "end" {
            end = Some(reply);
            break;
        }
        assert_eq!(reply.d["code"], "not_available");
    }
    let end = end.expect("an end after the grace period");
    assert_eq!(end.d["reason"], "abandonment", "{end}");
    assert_eq!(end.d["winner"], "white");
    server.stop().await;
}

#[tokio::test]
async fn a_rematch_swaps_colours_and_hands_out_new_seats_privately() {
    let server = Rig::start().await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    let mut spectator = server.spectate(&id).await;
    white.play("e2e4", "1").await;
    black.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;
    white.send(json!({"t": "rematch_offer"})).await;
    assert_eq!(black.recv_type("rematch_offer").await.d["by"], "white");
    black.send(json!({"t": "rematch_accept"})).await;
    let for_white = white.recv_type("rematch_seat").await;
    let for_black = black.recv_type("rematch_seat").await;
    let public = spectator.recv_type("rematch").await;
    let new_id = s(&public.d["id"]);
    assert_eq!(for_white.d["id"], json!(new_id));
    assert_eq!(for_white.d["color"], "black");
    assert_eq!(for_black.d["color"], "white");
    assert!(spectator.seen.iter().all(|m| m.t != "rematch_seat"));
    // The new seats work: the old black player now opens as White.
    let mut new_white = server
        .connect(&new_id, &format!("token={}", s(&for_black.d["token"])))
        .await;
    let state = new_white.recv_type("state").await;
    assert_eq!(state.d["you"], "white");
    assert_eq!(state.d["status"], "playing");
    new_white.play("d2d4", "1").await;
    server.stop().await;
}

#[tokio::test]
async fn the_creator_sees_the_join_with_the_legal_sub_moves() {
    let server = Rig::start().await;
    let (id, token, color) = server.create(json!({"color": "black"})).await;
    assert_eq!(color, "black");
    let mut creator = server.seat(&id, &token).await;
    let state = creator.recv_type("state").await;
    assert_eq!(state.d["status"], "open");
    assert_eq!(state.d["legal"], json!([]));
    creator.mv("e7e5", "early").await;
    assert_eq!(
        creator.recv_type("error").await.d["code"],
        "game_not_started"
    );
    let (_, joined_color) = server.join(&id).await;
    assert_eq!(joined_color, "white");
    let join = creator.recv_type("join").await;
    assert_eq!(join.d["color"], "white");
    assert_eq!(join.d["turn"], "white");
    assert_eq!(join.d["legal"].as_array().map(Vec::len), Some(20));
    assert_eq!(join.v, state.v.map(|v| v + 1));
    server.stop().await;
}

#[tokio::test]
async fn a_threefold_repetition_can_be_claimed_by_the_side_to_move() {
    let server = Rig::start().await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    white.play("g1f3", "w0").await;
    let mut last = None;
    for round in 0..2 {
        // Before the third occurrence nothing can be claimed.
        black.send(json!({"t": "draw_claim"})).await;
        assert_eq!(black.recv_type("error").await.d["code"], "not_available");
        black.play("g8f6", &format!("b{round}a")).await;
        black.play("f6g8", &format!("b{round}b")).await;
        white.play("f3g1", &format!("w{round}a")).await;
        last = Some(white.play("g1f3", &format!("w{round}b")).await);
    }
    let last = last.expect("two rounds played");
    assert_eq!(last.d["claims"], json!(["threefold_repetition"]));
    // Only the side to move may claim.
    white.send(json!({"t": "draw_claim"})).await;
    assert_eq!(white.recv_type("error").await.d["code"], "not_your_turn");
    black
        .send(json!({"t": "draw_claim", "d": {"claim": "threefold_repetition"}}))
        .await;
    let end = white.recv_type("end").await;
    assert_eq!(end.d["result"], "1/2-1/2");
    assert_eq!(end.d["reason"], "threefold_repetition");
    assert!(
        server
            .pgn(&id)
            .await
            .contains("[Termination \"threefold repetition\"]")
    );
    server.stop().await;
}
