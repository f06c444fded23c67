//! Playing games through the real server: HTTP to create and join, then
//! WebSocket messages, with a spectator watching.

use crate::support;

use serde_json::{Value, json};
use support::game::{each_move, play_until_white_mates_in_one};
use support::rig::Rig;
use support::s;
use support::ws::{Client, Incoming};

/// Waits for the `move` events of the given UCI sub-moves, in order.
async fn watch_moves(client: &mut Client, ucis: &[&str]) -> Vec<Incoming> {
    let mut events = Vec::new();
    for uci in ucis {
        let event = client.recv_type("move").await;
        assert_eq!(event.d["uci"], *uci, "{event}");
        events.push(event);
    }
    events
}

#[tokio::test]
async fn a_whole_game_to_checkmate_is_seen_by_a_spectator_in_order_with_the_same_pgn() {
    let server = Rig::start().await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    let mut spectator = server.spectate(&id).await;

    let state = white.recv_type("state").await;
    assert_eq!(state.d["you"], "white");
    assert_eq!(state.d["status"], "playing");
    assert_eq!(state.d["phase"], "single");
    let spectator_state = spectator.recv_type("state").await;
    assert_eq!(spectator_state.d["you"], Value::Null);
    let start_v = spectator_state.v.expect("v");

    play_until_white_mates_in_one(&mut white, &mut black).await;
    let mate = white.play("d1h5", "w2").await;
    assert_eq!(mate.d["san"], "Qh5#");
    let end = white.recv_type("end").await;
    assert_eq!(end.d["result"], "1-0");
    assert_eq!(end.d["winner"], "white");
    assert_eq!(end.d["reason"], "checkmate");

    let seen = watch_moves(&mut spectator, &["e2e4", "f7f6", "g7g5", "d1h5"]).await;
    let sans: Vec<String> = seen.iter().map(|e| s(&e.d["san"])).collect();
    assert_eq!(sans, ["e4", "f6", "g5", "Qh5#"]);
    let versions: Vec<u64> = seen.iter().filter_map(|e| e.v).collect();
    assert_eq!(versions, (start_v + 1..=start_v + 4).collect::<Vec<_>>());
    let spectator_end = spectator.recv_type("end").await;
    assert_eq!(spectator_end.v, Some(start_v + 5));
    assert_eq!(spectator_end.d, end.d);
    assert!(
        spectator.seen.iter().all(|m| m.t != "ack"),
        "acks are private"
    );

    let pgn = server.pgn(&id).await;
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    assert!(pgn.contains("[Termination \"checkmate\"]"), "{pgn}");
    assert!(pgn.contains("1. e4 f6,g5 2. Qh5# 1-0"), "{pgn}");
    // The spectator's view of the record matches the PGN's moves.
    let (status, public) = server.http("GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, 200);
    let public: Value = serde_json::from_str(&public).expect("json");
    let record = each_move(&public["moves"], "san");
    assert_eq!(record, sans);
    assert_eq!(public["status"], "finished");
    server.stop().await;
}

#[tokio::test]
async fn a_check_on_the_first_sub_move_ends_the_turn() {
    let server = Rig::start().await;
    let (_, mut white, mut black) = server.players(json!({})).await;
    white.play("e2e4", "1").await;
    black.play("f7f6", "1").await;
    let second = black.play("a7a6", "2").await;
    assert_eq!(second.d["turn"], "white");
    assert_eq!(second.d["phase"], "first");
    let check = white.play("d1h5", "2").await;
    assert_eq!(check.d["san"], "Qh5+");
    assert_eq!(check.d["turn"], "black", "the check ended White's turn");
    assert_eq!(check.d["phase"], "first");
    assert_eq!(check.d["check"], true);
    assert_eq!(check.d["legal"], json!(["g7g6"]));
    // White cannot play a second sub-move now.
    white.mv("h5g6", "3").await;
    let error = white.next_non_presence().await;
    assert_eq!(error.t, "error");
    assert_eq!(error.d["code"], "not_your_turn");
    assert_eq!(error.d["id"], "3");
    server.stop().await;
}

#[tokio::test]
async fn a_first_sub_move_that_leaves_no_second_is_a_stalemate_draw() {
    let server = Rig::start().await;
    let fen = "1r5k/8/8/8/6p1/p7/P5P1/K7 w - - 0 5";
    let (id, white_token, _) = server.game_between_two(json!({"fen": fen})).await;
    let mut white = server.seat(&id, &white_token).await;
    let state = white.recv_type("state").await;
    assert_eq!(state.d["fen"], fen);
    white.play("g2g3", "1").await;
    let end = white.recv_type("end").await;
    assert_eq!(end.d["result"], "1/2-1/2");
    assert_eq!(end.d["reason"], "second_move_stalemate");
    let pgn = server.pgn(&id).await;
    assert!(
        pgn.contains("[FEN \"1r5k/8/8/8/6p1/p7/P5P1/K7 w - - 0 5\"]"),
        "{pgn}"
    );
    assert!(
        pgn.contains("[Termination \"second-move stalemate\"]"),
        "{pgn}"
    );
    server.stop().await;
}

#[tokio::test]
async fn en_passant_works_across_sub_moves_through_the_protocol() {
    let server = Rig::start().await;
    // Black to move: d7d5 and f7f5 give White two en-passant targets.
    let fen = "4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5";
    let (_, mut white, mut black) = server.players(json!({"fen": fen})).await;
    black.play("d7d5", "1").await;
    let second = black.play("f7f5", "2").await;
    let legal = second.d["legal"].as_array().expect("legal").clone();
    assert!(legal.contains(&json!("e5d6")), "{legal:?}");
    assert!(legal.contains(&json!("g5f6")), "{legal:?}");
    let first = white.play("e5d6", "1").await;
    assert_eq!(first.d["san"], "exd6");
    assert_eq!(first.d["phase"], "second");
    let legal = first.d["legal"].as_array().expect("legal").clone();
    assert!(
        legal.contains(&json!("g5f6")),
        "S2 may take the other pawn e.p.: {legal:?}"
    );
    let second = white.play("g5f6", "2").await;
    let board = s(&second.d["fen"]);
    let placement = board.split(' ').next().unwrap_or_default();
    assert_eq!(
        placement, "4k3/8/3P1P2/8/8/8/8/4K3",
        "both black pawns are gone"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_mover_can_take_back_its_first_sub_move_before_the_second() {
    let server = Rig::start().await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    let mut spectator = server.spectate(&id).await;
    // In the room before anything happens that it must see as an event.
    spectator.recv_type("state").await;
    white.play("e2e4", "1").await;
    let before = black.recv_type("move").await;
    black.play("e7e5", "1").await;
    // Only the mover may take back, and only its own S1.
    white.send(json!({"t": "takeback_submove"})).await;
    let refused = white.recv_type("error").await;
    assert_eq!(refused.d["code"], "not_your_turn");
    black.send(json!({"t": "takeback_submove"})).await;
    let takeback = spectator.recv_type("takeback").await;
    assert_eq!(takeback.d["uci"], "e7e5");
    assert_eq!(takeback.d["fen"], before.d["fen"]);
    assert_eq!(takeback.d["phase"], "first");
    assert_eq!(takeback.d["turn"], "black");
    black.play("d7d5", "2").await;
    black.play("g8f6", "3").await;
    let pgn = server.pgn(&id).await;
    assert!(pgn.contains("1. e4 d5,Nf6 *"), "{pgn}");
    // Nothing to take back at the start of a turn.
    white.send(json!({"t": "takeback_submove"})).await;
    let error = white.recv_type("error").await;
    assert_eq!(error.d["code"], "not_available");
    server.stop().await;
}

#[tokio::test]
async fn a_marseillais_game_gives_white_two_sub_moves_on_its_first_turn() {
    let server = Rig::start().await;
    let (id, white_token, _) = server
        .game_between_two(json!({"variant": "marseillais"}))
        .await;
    let mut white = server.seat(&id, &white_token).await;
    let state = white.recv_type("state").await;
    assert_eq!(state.d["phase"], "first");
    let first = white.play("e2e4", "1").await;
    assert_eq!(first.d["turn"], "white");
    assert_eq!(first.d["phase"], "second");
    let second = white.play("d2d4", "2").await;
    assert_eq!(second.d["turn"], "black");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_games_are_played_at_once() {
    // 32 seat grants from one address: over the default creation burst.
    let server = Rig::start_with(|c| c.create_rate_per_sec = 0.0).await;
    let mut games = Vec::new();
    for _ in 0..16 {
        games.push(server.game_between_two(json!({})).await);
    }
    let addr = server.addr();
    let mut tasks = Vec::new();
    for (id, white_token, black_token) in games.clone() {
        tasks.push(tokio::spawn(async move {
            let mut white = Client::connect(addr, &id, &format!("token={white_token}")).await;
            let mut black = Client::connect(addr, &id, &format!("token={black_token}")).await;
            play_until_white_mates_in_one(&mut white, &mut black).await;
            white.play("d1h5", "2").await;
            white.recv_type("end").await
        }));
    }
    for task in tasks {
        let end = task.await.expect("game task");
        assert_eq!(end.d["reason"], "checkmate");
    }
    let (_, listing) = server
        .http("GET", "/api/games?status=finished&limit=100", None)
        .await;
    let listing: Value = serde_json::from_str(&listing).expect("json");
    let finished = listing["games"].as_array().expect("games");
    for (id, _, _) in &games {
        assert!(
            finished
                .iter()
                .any(|g| g["id"] == json!(id) && g["result"] == "1-0"),
            "{id} not listed as finished"
        );
    }
    let (_, metrics) = server.http("GET", "/metrics", None).await;
    assert!(
        metrics.contains("marseillais_submoves_accepted_total 64"),
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test]
async fn games_are_listed_by_status_and_paged() {
    let server = Rig::start().await;
    // Made first: 127.0.0.1 holds at most 3 open games, and this one is open until joined.
    let (playing, _, _) = server.game_between_two(json!({})).await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(
            server
                .create(json!({"clock": {"base_secs": 180, "increment_secs": 2}}))
                .await
                .0,
        );
    }
    let list = |query: &'static str| {
        let server = &server;
        async move {
            let (status, text) = server.http("GET", query, None).await;
            assert_eq!(status, 200, "{text}");
            let v: Value = serde_json::from_str(&text).expect("json");
            v["games"]
                .as_array()
                .expect("games")
                .iter()
                .map(|g| s(&g["id"]))
                .collect::<Vec<_>>()
        }
    };
    let all_open = list("/api/games?status=open").await;
    assert_eq!(all_open.len(), 3);
    assert!(open.iter().all(|id| all_open.contains(id)));
    assert_eq!(list("/api/games").await, all_open, "open is the default");
    let first = list("/api/games?status=open&limit=2").await;
    let rest = list("/api/games?status=open&limit=2&offset=2").await;
    assert_eq!([first, rest].concat(), all_open);
    assert_eq!(list("/api/games?status=playing").await, [playing]);
    assert!(list("/api/games?status=finished").await.is_empty());
    let (_, text) = server
        .http("GET", "/api/games?status=open&limit=1", None)
        .await;
    let row: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(row["games"][0]["clock"]["base_secs"], 180);
    assert_eq!(row["games"][0]["status"], "open");
    server.stop().await;
}
