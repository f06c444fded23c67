//! The opening explorer on two nodes of one PostgreSQL: a game ended on the node that owns it
//! is counted in the transaction of its end, so the other node answers the same counts at once
//! (the explorer keeps nothing in a node's memory).

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::nodes::Nodes;
use support::s;
use support::session::Session;

/// The explorer's answer for the turn-start position `fen` on the node at `addr`.
async fn explore(session: &Session, addr: std::net::SocketAddr, fen: &str) -> Value {
    let query: String = fen
        .bytes()
        .map(|b| match b {
            b' ' => "%20".to_owned(),
            b'/' => "%2F".to_owned(),
            _ => (b as char).to_string(),
        })
        .collect();
    let (status, body) = session
        .call(addr, "GET", &format!("/api/explorer?fen={query}"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn a_game_ended_on_one_node_is_counted_on_the_other() {
    let Some(nodes) = Nodes::start("cluster_explorer", 2, Duration::from_secs(2), |_| {}).await
    else {
        return;
    };
    let (one, two) = (nodes.addr(1), nodes.addr(2));
    let alice = Session::register(one, "alice").await;
    let bob = Session::register(one, "bob").await;
    let body = json!({"rated": true, "color": "white",
                      "clock": {"base_secs": 300, "increment_secs": 2}});
    let (status, reply) = alice.call(one, "POST", "/api/games", Some(&body)).await;
    assert_eq!(status, 201, "{reply}");
    let id = s(&reply["id"]);
    let (status, reply) = bob
        .call(one, "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{reply}");
    let mut white = alice.connect(one, &id, "").await;
    let mut black = bob.connect(one, &id, "").await;
    white.skip_to("state").await;
    black.skip_to("state").await;
    play_until_white_mates_in_one(&mut white, &mut black).await;
    white.play("d1h5", "w2").await;
    white.recv_type("end").await;

    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    for addr in [one, two] {
        let answer = explore(&alice, addr, start).await;
        assert_eq!(answer["turns"][0]["turn"], json!(["e2e4"]), "{answer}");
        assert_eq!(answer["turns"][0]["games"], json!(1), "{answer}");
        assert_eq!(answer["white"], json!(1), "{answer}");
        assert_eq!(answer["games"][0]["id"], json!(id), "{answer}");
        let reply = explore(&bob, addr, after_e4).await;
        assert_eq!(
            reply["turns"][0]["turn"],
            json!(["f7f6", "g7g5"]),
            "{reply}"
        );
        assert_eq!(reply["turns"][0]["san"], json!(["f6", "g5"]), "{reply}");
    }
}
