//! Game features through a relay (issue 13): the game chat and the computer opponent work for
//! a socket held by another node than the game's owner, as on one node. In-process nodes on
//! one Postgres and one private redis-server (tests/support/nodes.rs).

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::nodes::Nodes;
use support::strings;

/// Messages read at most while waiting for the computer.
const MAX_MESSAGES: usize = 500;

#[tokio::test]
async fn a_player_line_said_on_a_relayed_socket_reaches_the_opponent_on_the_owner() {
    let Some(nodes) = Nodes::start("cluster_chat", 2, Duration::from_secs(2), |_| {}).await else {
        return;
    };
    let (id, white_token, _) = nodes.node(1).create(json!({"color": "white"})).await;
    let (black_token, _) = nodes.node(2).join(&id).await;
    let mut white = nodes.node(1).seat(&id, &white_token).await;
    let mut black = nodes.node(2).seat(&id, &black_token).await;
    black
        .send(json!({"t": "chat", "d": {"room": "player", "text": "from node 2"}}))
        .await;
    for (who, client) in [
        ("white on the owner", &mut white),
        ("black, relayed", &mut black),
    ] {
        let line = client.skip_to("chat").await;
        assert_eq!(line.d["text"], "from node 2", "{who}");
        assert_eq!(line.d["author"], "black", "{who}");
        assert_eq!(line.d["room"], "player", "{who}");
    }
}

#[tokio::test]
async fn a_computer_game_owned_by_one_node_is_played_from_another() {
    let Some(nodes) = Nodes::start("cluster_computer", 2, Duration::from_secs(2), |_| {}).await
    else {
        return;
    };
    let (id, token, color) = nodes
        .node(1)
        .create(json!({"computer": {"level": 1}, "color": "white"}))
        .await;
    assert_eq!(color, "white");
    // The person's socket is on node 2: the game's room (and the computer's driver) on 1.
    let mut me = nodes.node(2).seat(&id, &token).await;
    let state = me.recv_type("state").await;
    let first = strings(&state.d["legal"])
        .into_iter()
        .next()
        .expect("White has a first sub-move");
    me.send(json!({"t": "move", "d": {"uci": first, "id": "m1"}}))
        .await;
    // White's first turn is one sub-move; then the computer plays Black's two, relayed here.
    let mut theirs = Vec::new();
    for _ in 0..MAX_MESSAGES {
        let msg = me.recv().await;
        if msg.t == "error" {
            panic!("the relayed move was refused: {msg}");
        }
        if msg.t == "move" && msg.str("uci") != first {
            theirs.push(msg.str("uci"));
            if theirs.len() == 2 || msg.d["turn"] == "white" {
                break;
            }
        }
    }
    assert!(
        !theirs.is_empty(),
        "the computer's sub-moves never reached the relayed socket"
    );
    // The PGN asked on node 2 (answered by the owner) holds the person's and the computer's.
    let pgn = nodes.node(2).pgn(&id).await;
    let played: Vec<String> = match marseillais::rules::pgn::read_game(&pgn) {
        Some(Ok(imported)) => imported
            .game
            .submoves()
            .iter()
            .map(|m| m.to_string())
            .collect(),
        other => panic!("the PGN does not import: {other:?}\n{pgn}"),
    };
    let mut expected = vec![first];
    expected.extend(theirs);
    assert_eq!(played[..expected.len()], expected[..], "{pgn}");
}

#[tokio::test]
async fn an_open_game_joined_on_another_node_gives_its_slot_back_on_the_node_that_made_it() {
    // Rooms retire at once: node 1 lets the game go as soon as it is made, and the join is run
    // by whichever node claims it then; node 1 counts it until it sees it joined.
    let Some(nodes) = Nodes::start("cluster_open_slot", 2, Duration::from_secs(2), |c| {
        c.retire_after = Duration::ZERO;
        c.clients.open_games = 1;
    })
    .await
    else {
        return;
    };
    let (id, _, _) = nodes.node(1).create(json!({})).await;
    let (status, text) = nodes.node(1).http("POST", "/api/games", Some("{}")).await;
    assert_eq!(status, 429, "node 1's one open game: {text}");
    nodes.node(2).join(&id).await;
    // What node 1's sweeper does at each pass (every minute), now.
    let node = nodes.node(1).handle.as_ref().expect("node 1 runs");
    node.rooms().settle_game_holds().await;
    nodes.node(1).create(json!({})).await;
}
