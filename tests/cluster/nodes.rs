//! Three real nodes on one PostgreSQL and one Redis (issue 13): a game's players and spectators
//! on different nodes see one game. White plays on node 1, Black on node 2, a spectator watches
//! on node 3; the moves, the PGN, presence and the spectator count agree everywhere; takebacks,
//! draw offers, rematches, the lobby's listing and a claim of victory over a player gone cross
//! nodes as they do on one node. A lease pass that adopts a game already running here keeps
//! its room (in-process nodes, to run the pass's step at the moment that matters).
//!
//! Needs PostgreSQL and redis-server (`scripts/test-services.sh cargo test --release --test
//! cluster nodes::`); skipped loudly without them, failing under CI.

use crate::support;

use std::time::Duration;

use marseillais::server::cluster::lane::{self, LaneMsg};
use serde_json::{Value, json};
use support::WAIT;
use support::cluster::Cluster;
use support::http::http;
use support::nodes::Nodes;
use support::rng::Rng;
use support::roaming::{Answer, Roamer};
use support::s;
use support::ws::Ended;

/// How long one move may take to be answered, failovers aside (a loaded machine).
const ANSWER: Duration = Duration::from_secs(20);
/// Sub-moves of the random game before White resigns (bounded: a random game rarely mates).
const MAX_SUBMOVES: usize = 160;

/// A game created on node 1 and joined on node 2; White on node 1, Black on node 2, a spectator
/// on node 3, all connected.
async fn three_way(cluster: &Cluster, body: Value) -> (String, Roamer, Roamer, Roamer) {
    let mut body = body;
    body["color"] = json!("white");
    let (status, created) = http(
        cluster.addr(1),
        "POST",
        "/api/games",
        Some(&body.to_string()),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let created: Value = serde_json::from_str(&created).expect("json");
    let id = s(&created["id"]);
    let white_token = s(&created["token"]);
    let (status, joined) = http(
        cluster.addr(2),
        "POST",
        &format!("/api/games/{id}/join"),
        None,
    )
    .await;
    assert_eq!(status, 200, "joined on another node: {joined}");
    let black_token = s(&serde_json::from_str::<Value>(&joined).expect("json")["token"]);
    let white = Roamer::join(&id, &white_token, 1, cluster).await;
    let black = Roamer::join(&id, &black_token, 2, cluster).await;
    let spectator = Roamer::join(&id, "", 3, cluster).await;
    (id, white, black, spectator)
}

/// Reads on every client until each has seen version `v`.
async fn all_see(cluster: &Cluster, clients: &mut [&mut Roamer], v: u64) {
    for client in clients.iter_mut() {
        client.sync_to(cluster, v, ANSWER).await;
    }
}

/// Reads on every client until each has seen the game end, and checks the end's fields there.
async fn all_see_the_end(cluster: &Cluster, clients: &mut [&mut Roamer], fields: &[(&str, &str)]) {
    for client in clients.iter_mut() {
        let node = client.node;
        assert!(
            client.wait_for(cluster, ANSWER, Roamer::over).await,
            "node {node} sees the end"
        );
        let end = client.events.last().expect("an end");
        for (field, value) in fields {
            assert_eq!(end.d[*field], *value, "node {node}: {end}");
        }
    }
}

/// The sub-moves of a PGN export, as UCI.
fn pgn_submoves(pgn: &str) -> Vec<String> {
    match marseillais::rules::pgn::read_game(pgn) {
        Some(Ok(imported)) => imported
            .game
            .submoves()
            .iter()
            .map(|m| m.to_string())
            .collect(),
        other => panic!("the PGN does not import: {other:?}\n{pgn}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_across_three_nodes_has_one_pgn_on_every_node() {
    let Some(cluster) = Cluster::start("cluster_whole_game", 3).await else {
        return;
    };
    let (mut rng, _seed, _note) = Rng::seeded_from_env("MARSEILLAIS_CLUSTER_SEED");
    let (id, mut white, mut black, mut spectator) = three_way(&cluster, json!({})).await;
    let mut played = Vec::new();
    for _ in 0..MAX_SUBMOVES {
        if white.over() {
            break;
        }
        let mover = if white.turn == "white" {
            &mut white
        } else {
            &mut black
        };
        let Some(uci) = rng.pick(&mover.legal).cloned() else {
            break;
        };
        let answer = mover.play(&cluster, &uci, ANSWER).await;
        let Answer::Acked(v) = answer else {
            panic!("{uci} on node {}: {answer:?}", mover.node);
        };
        played.push(uci);
        all_see(&cluster, &mut [&mut white, &mut black, &mut spectator], v).await;
    }
    if !white.over() {
        assert!(white.send(&cluster, &json!({"t": "resign"})).await);
        for client in [&mut white, &mut black, &mut spectator] {
            assert!(
                client.wait_for(&cluster, ANSWER, Roamer::over).await,
                "the end did not reach node {}",
                client.node
            );
        }
    }
    for client in [&white, &black, &spectator] {
        assert_eq!(
            client.moves, played,
            "the moves seen on node {} are the moves played",
            client.node
        );
    }
    let mut pgns = Vec::new();
    for k in 1..=3 {
        let (status, pgn) = http(cluster.addr(k), "GET", &format!("/game/{id}.pgn"), None).await;
        assert_eq!(status, 200, "node {k}: {pgn}");
        pgns.push(pgn);
    }
    assert_eq!(pgns[0], pgns[1], "the PGN of node 1 and node 2");
    assert_eq!(pgns[0], pgns[2], "the PGN of node 1 and node 3");
    assert_eq!(
        pgn_submoves(&pgns[0]),
        played,
        "the PGN holds the moves played"
    );
    eprintln!(
        "a whole game across three nodes: {} sub-moves, ended: {}",
        played.len(),
        white.over()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_and_the_spectator_count_are_the_same_on_every_node() {
    let Some(cluster) = Cluster::start("cluster_presence", 3).await else {
        return;
    };
    let (id, mut white, mut black, mut spectator) = three_way(&cluster, json!({})).await;
    // Both seats connected and one spectator, seen from each node.
    for client in [&mut white, &mut black, &mut spectator] {
        let node = client.node;
        let seen = client
            .wait_for(&cluster, ANSWER, |c| {
                c.presence["white"] == true
                    && c.presence["black"] == true
                    && c.presence["spectators"] == 1
            })
            .await;
        assert!(
            seen,
            "node {node} sees both seats and one spectator: {}",
            client.presence
        );
    }
    // A second spectator on node 1: the count is 2 everywhere.
    let mut second = Roamer::join(&id, "", 1, &cluster).await;
    for client in [&mut white, &mut black, &mut spectator, &mut second] {
        let node = client.node;
        let seen = client
            .wait_for(&cluster, ANSWER, |c| c.presence["spectators"] == 2)
            .await;
        assert!(
            seen,
            "node {node} counts two spectators: {}",
            client.presence
        );
    }
    // Black leaves node 2: White (node 1) and the spectator (node 3) see the seat go.
    black.close().await;
    for client in [&mut white, &mut spectator] {
        let node = client.node;
        let seen = client
            .wait_for(&cluster, ANSWER, |c| c.presence["black"] == false)
            .await;
        assert!(seen, "node {node} sees Black gone: {}", client.presence);
    }
    // The game's page (any node) lists the same players.
    for k in 1..=3 {
        let (status, _) = http(cluster.addr(k), "GET", &format!("/game/{id}"), None).await;
        assert_eq!(status, 200, "node {k} serves the game's page");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relayed_player_the_owner_lost_without_a_word_is_resynced_and_sees_the_next_move() {
    let Some(mut cluster) = Cluster::start("cluster_lost_member", 3).await else {
        return;
    };
    let (_id, mut white, mut black, _spectator) = three_way(&cluster, json!({})).await;
    assert_eq!(white.play(&cluster, "e2e4", ANSWER).await, Answer::Acked(2));
    assert_eq!(black.play(&cluster, "e7e5", ANSWER).await, Answer::Acked(3));
    assert_eq!(black.play(&cluster, "b8c6", ANSWER).await, Answer::Acked(4));
    white.sync_to(&cluster, 4, ANSWER).await;
    black.sync_to(&cluster, 4, ANSWER).await;
    // The owner (node 1) is told that node 2 restarted, which node 2 did not: it drops node
    // 2's sockets from its rooms, and node 2's relay hears of it in no message. A lost lane
    // message does the same. Black, waiting for White, sends nothing that could show it:
    // only the relay's check with the owner can.
    let forged = LaneMsg::Started {
        node: "n2".to_owned(),
    };
    let payload = String::from_utf8(forged.encode()).expect("json");
    let published = cluster
        .redis()
        .command(&["PUBLISH", &lane::channel("n1"), &payload])
        .await;
    assert_eq!(
        published.as_deref(),
        Some(":1"),
        "node 1 subscribes its lane"
    );
    assert!(
        white
            .wait_for(&cluster, ANSWER, |c| c.presence["black"] == false)
            .await,
        "the owner dropped Black's socket"
    );
    assert_eq!(white.play(&cluster, "d2d4", ANSWER).await, Answer::Acked(5));
    black.sync_to(&cluster, 5, ANSWER).await;
    assert!(
        black
            .ends
            .iter()
            .any(|end| matches!(end, Ended::Closed(1012, _))),
        "Black's relay resynced: {:?}",
        black.ends
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_on_one_node_reaches_the_other_nodes() {
    let Some(cluster) = Cluster::start("cluster_takeback", 3).await else {
        return;
    };
    let (_id, mut white, mut black, mut spectator) = three_way(&cluster, json!({})).await;
    assert_eq!(white.play(&cluster, "e2e4", ANSWER).await, Answer::Acked(2));
    let Answer::Acked(v) = black.play(&cluster, "e7e5", ANSWER).await else {
        panic!("e7e5 refused");
    };
    all_see(&cluster, &mut [&mut white, &mut black, &mut spectator], v).await;
    assert!(
        black
            .send(&cluster, &json!({"t": "takeback_submove"}))
            .await
    );
    all_see(
        &cluster,
        &mut [&mut white, &mut black, &mut spectator],
        v + 1,
    )
    .await;
    for client in [&white, &black, &spectator] {
        assert_eq!(
            client.moves,
            ["e2e4"],
            "node {} took e7e5 back",
            client.node
        );
        assert_eq!(client.events.last().map(|e| e.t.as_str()), Some("takeback"));
    }
    // Black plays again from node 2: accepted at the next version.
    assert_eq!(
        black.play(&cluster, "d7d5", ANSWER).await,
        Answer::Acked(v + 2)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_offered_on_one_node_is_accepted_on_another() {
    let Some(cluster) = Cluster::start("cluster_draw", 3).await else {
        return;
    };
    let (id, mut white, mut black, mut spectator) = three_way(&cluster, json!({})).await;
    assert_eq!(white.play(&cluster, "e2e4", ANSWER).await, Answer::Acked(2));
    assert!(white.send(&cluster, &json!({"t": "draw_offer"})).await);
    let offered = black
        .wait_for(&cluster, ANSWER, |c| {
            c.events.last().is_some_and(|e| e.t == "draw_offer")
        })
        .await;
    assert!(offered, "the offer made on node 1 reached node 2");
    assert!(black.send(&cluster, &json!({"t": "draw_accept"})).await);
    all_see_the_end(
        &cluster,
        &mut [&mut white, &mut black, &mut spectator],
        &[("result", "1/2-1/2"), ("reason", "agreement")],
    )
    .await;
    let (_, pgn) = http(cluster.addr(3), "GET", &format!("/game/{id}.pgn"), None).await;
    assert!(pgn.contains("1/2-1/2"), "{pgn}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_agreed_across_nodes_seats_both_players_in_the_new_game() {
    let Some(cluster) = Cluster::start("cluster_rematch", 3).await else {
        return;
    };
    let (_id, mut white, mut black, _spectator) = three_way(&cluster, json!({})).await;
    assert_eq!(white.play(&cluster, "e2e4", ANSWER).await, Answer::Acked(2));
    assert!(black.send(&cluster, &json!({"t": "resign"})).await);
    for client in [&mut white, &mut black] {
        assert!(client.wait_for(&cluster, ANSWER, Roamer::over).await);
    }
    assert!(white.send(&cluster, &json!({"t": "rematch_offer"})).await);
    assert!(
        black
            .wait_for(&cluster, ANSWER, |c| c
                .events
                .last()
                .is_some_and(|e| e.t == "rematch_offer"))
            .await,
        "the rematch offer from node 1 reached node 2"
    );
    assert!(black.send(&cluster, &json!({"t": "rematch_accept"})).await);
    let mut next = Vec::new();
    for client in [&mut white, &mut black] {
        let node = client.node;
        let seen = client
            .wait_for(&cluster, ANSWER, |c| {
                c.events.iter().any(|e| e.t == "rematch") && !c.rematch_seats.is_empty()
            })
            .await;
        assert!(seen, "node {node} sees the rematch and its seat in it");
        let seat = client.rematch_seats.last().expect("rematch_seat").clone();
        next.push((s(&seat.d["id"]), s(&seat.d["color"]), s(&seat.d["token"])));
    }
    assert_eq!(next[0].0, next[1].0, "one rematch game");
    assert_eq!(
        next[0].1, "black",
        "colours swapped: the old White is Black"
    );
    assert_eq!(
        next[1].1, "white",
        "colours swapped: the old Black is White"
    );
    let game = next[0].0.clone();
    // The new game is played across nodes too: its White (old Black) on node 3, its Black
    // (old White) on node 1.
    let mut new_white = Roamer::join(&game, &next[1].2, 3, &cluster).await;
    let mut new_black = Roamer::join(&game, &next[0].2, 1, &cluster).await;
    let Answer::Acked(v) = new_white.play(&cluster, "d2d4", ANSWER).await else {
        panic!("the rematch's first move is refused");
    };
    new_black.sync_to(&cluster, v, ANSWER).await;
    assert_eq!(new_black.moves, ["d2d4"]);
    for k in 1..=3 {
        let (status, body) =
            http(cluster.addr(k), "GET", &format!("/api/games/{game}"), None).await;
        assert_eq!(status, 200, "node {k} knows the rematch: {body}");
    }
}

/// A player who leaves is seen gone on every node, and the opponent, on another node than the
/// leaver's, claims the game once the grace is over. The game is listed as played on a node
/// that neither made nor joined it (the lobby's listings are the shared store's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_gone_from_one_node_is_claimed_against_from_another() {
    let Some(cluster) = Cluster::builder("cluster_claim", 3)
        .flags(&["--disconnect-grace-secs", "1"])
        .start()
        .await
    else {
        return;
    };
    let (id, mut white, mut black, mut spectator) = three_way(&cluster, json!({})).await;
    let (status, playing) = http(cluster.addr(3), "GET", "/api/games?status=playing", None).await;
    assert_eq!(status, 200, "{playing}");
    assert!(playing.contains(&id), "node 3 lists the game: {playing}");
    assert_eq!(white.play(&cluster, "e2e4", ANSWER).await, Answer::Acked(2));
    black.sync_to(&cluster, 2, ANSWER).await;
    assert_eq!(black.play(&cluster, "e7e5", ANSWER).await, Answer::Acked(3));
    assert_eq!(black.play(&cluster, "g8f6", ANSWER).await, Answer::Acked(4));
    black.close().await;
    for client in [&mut white, &mut spectator] {
        let node = client.node;
        assert!(
            client
                .wait_for(&cluster, ANSWER, |c| c.presence["black"] == json!(false))
                .await,
            "node {node} sees Black gone from node 2: {}",
            client.presence
        );
    }
    // Claimed until the grace is over (bounded: 50 tries, 200 ms apart).
    let mut claimed = false;
    for _ in 0..50 {
        assert!(white.send(&cluster, &json!({"t": "claim_victory"})).await);
        if white
            .wait_for(&cluster, Duration::from_millis(200), Roamer::over)
            .await
        {
            claimed = true;
            break;
        }
    }
    assert!(claimed, "White's claim on node 1 ended the game");
    all_see_the_end(
        &cluster,
        &mut [&mut white, &mut spectator],
        &[("reason", "abandonment"), ("winner", "white")],
    )
    .await;
}

/// The lease pass lists this node's relays, then adopts those whose owner is gone one at a
/// time; meanwhile a socket may have claimed the game and started its room here (its relay
/// resynced at the owner's restart). The pass's adopt then finds that room running and must
/// keep it: it used to load a second room, leaving the first one running with its sockets,
/// so that a move acknowledged in one never reached the players of the other (the likely
/// stall of the cluster crash test). Here the adopt runs right after White's socket started
/// the room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_pass_that_adopts_a_game_already_running_here_keeps_its_room() {
    let Some(nodes) =
        Nodes::start("cluster_adopt_running", 2, Duration::from_secs(2), |_| {}).await
    else {
        return;
    };
    let (id, white_token, _) = nodes.node(1).create(json!({"color": "white"})).await;
    let (black_token, _) = nodes.node(2).join(&id).await;
    let mut white = nodes.node(1).seat(&id, &white_token).await;
    white.recv_type("state").await;
    let rooms = nodes.node(1).handle.as_ref().expect("running").rooms();
    let running = rooms.get(&id).await.expect("store").expect("the game");
    assert!(!running.relay, "node 1 runs the game");
    let adopted = rooms.adopt(&id).await.expect("store");
    // Black's socket on node 2 is relayed to node 1, into whichever room node 1 now serves.
    let mut black = nodes.node(2).seat(&id, &black_token).await;
    black.recv_type("state").await;
    white.play("e2e4", "w1").await;
    let seen = black
        .try_until(WAIT, |m| m.t == "move" && m.str("uci") == "e2e4")
        .await;
    assert!(
        seen.is_some(),
        "White's acknowledged e2e4 never reached Black; seen: {:?}",
        black.seen.iter().map(|m| m.t.as_str()).collect::<Vec<_>>()
    );
    black.play("e7e5", "b1").await;
    let seen = white
        .try_until(WAIT, |m| m.t == "move" && m.str("uci") == "e7e5")
        .await;
    assert!(
        seen.is_some(),
        "Black's acknowledged e7e5 never reached White; seen: {:?}",
        white.seen.iter().map(|m| m.t.as_str()).collect::<Vec<_>>()
    );
    assert_eq!(
        adopted.map(|room| room.instance),
        Some(running.instance),
        "the adopt kept the running room"
    );
    let serving = rooms.get(&id).await.expect("store").expect("the game");
    assert_eq!(
        serving.instance, running.instance,
        "the room serving the game is the one White's socket started"
    );
}
