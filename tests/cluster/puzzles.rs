//! Puzzles on two nodes of one PostgreSQL: both import the same set at startup (the second
//! finds every puzzle already there), and an account's rounds, played on one node, are what
//! the other reads: its next puzzle skips them, its dashboard counts them, the puzzle's plays
//! went up once.

use crate::support;

use std::path::PathBuf;
use std::time::Duration;

use marseillais::server::config::PuzzleSetChoice;
use serde_json::json;
use support::nodes::Nodes;
use support::s;
use support::session::Session;

#[tokio::test]
async fn a_round_played_on_one_node_is_known_to_the_other() {
    let set = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/puzzles_small.csv");
    let Some(nodes) = Nodes::start("cluster_puzzles", 2, Duration::from_secs(2), move |c| {
        c.puzzle_set = PuzzleSetChoice::File(set.clone());
    })
    .await
    else {
        return;
    };
    let alice = Session::register(nodes.addr(1), "alice").await;
    let (status, next) = alice
        .call(nodes.addr(1), "GET", "/api/puzzles/next", None)
        .await;
    assert_eq!(status, 200, "{next}");
    let first = s(&next["puzzle"]["id"]);
    let (_, shown) = alice
        .call(
            nodes.addr(1),
            "POST",
            &format!("/api/puzzles/{first}/solution"),
            None,
        )
        .await;
    assert_eq!(shown["round"]["rated"], json!(true), "{shown}");
    // Node 2 reads the same store: never the puzzle played on node 1.
    let (status, other) = alice
        .call(nodes.addr(2), "GET", "/api/puzzles/next", None)
        .await;
    assert_eq!(status, 200, "{other}");
    assert_ne!(s(&other["puzzle"]["id"]), first);
    assert_eq!(
        other["player"]["rating"],
        shown["round"]["rating"]["rating"]
    );
    let (_, again) = alice
        .call(
            nodes.addr(2),
            "POST",
            &format!("/api/puzzles/{first}/solution"),
            None,
        )
        .await;
    assert_eq!(
        again["round"],
        serde_json::Value::Null,
        "rated once, on either node"
    );
    let (_, board) = alice
        .call(nodes.addr(2), "GET", "/api/users/alice/puzzles", None)
        .await;
    assert_eq!(board["failed"], json!(1), "{board}");
    let (_, puzzle) = alice
        .call(nodes.addr(2), "GET", &format!("/api/puzzles/{first}"), None)
        .await;
    assert_eq!(puzzle["puzzle"]["plays"], json!(1));
    let (_, themes) = alice
        .call(nodes.addr(2), "GET", "/api/puzzles/themes", None)
        .await;
    assert_eq!(
        themes["total"],
        json!(2),
        "the second node's import added nothing"
    );
}
