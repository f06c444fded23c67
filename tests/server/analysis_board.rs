//! The analysis board over HTTP (issue 31), on the real server: the page, a position's legal
//! sub-moves for both sides (a turn in progress included), PGN with nested variations and
//! comments read into a move tree and written back (the same text), bad input refused with
//! typed errors, the engine's lines (distinct turns, best first) and the threat, and the
//! judgements and accuracy in the done line of a game analysis.

use crate::support;

use serde_json::{Value, json};
use support::rig::Rig;
use support::{s, strings};

/// `POST path` with a JSON body: status and parsed body.
async fn post(server: &Rig, path: &str, body: &Value) -> (u16, Value) {
    let (status, text) = server.http("POST", path, Some(&body.to_string())).await;
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON: {text}: {e}"));
    (status, value)
}

#[tokio::test]
async fn the_analysis_page_is_the_client_shell() {
    let server = Rig::start().await;
    let (status, body) = server.http("GET", "/analysis", None).await;
    assert_eq!(status, 200);
    assert!(
        body.contains("<html") || body.contains("<!doctype"),
        "{body}"
    );
}

#[tokio::test]
async fn a_position_lists_every_legal_sub_move_with_its_san_and_the_position_after() {
    let server = Rig::start().await;
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (status, view) = post(&server, "/api/analysis/position", &json!({ "fen": start })).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["side"], "white");
    assert_eq!(view["phase"], "single");
    assert_eq!(view["check"], false);
    assert_eq!(view["end"], Value::Null);
    let moves = view["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 20);
    let e4 = moves.iter().find(|m| m["uci"] == "e2e4").unwrap();
    assert_eq!(e4["san"], "e4");
    // Black's turn: a first sub-move, then the second by the same side.
    let (_, black) = post(
        &server,
        "/api/analysis/position",
        &json!({ "fen": e4["fen"] }),
    )
    .await;
    assert_eq!(
        (black["side"].clone(), black["phase"].clone()),
        (json!("black"), json!("first"))
    );
    let e5 = black["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["san"] == "e5")
        .unwrap()
        .clone();
    let (_, second) = post(
        &server,
        "/api/analysis/position",
        &json!({ "fen": e5["fen"] }),
    )
    .await;
    assert_eq!(
        (second["side"].clone(), second["phase"].clone()),
        (json!("black"), json!("second"))
    );
    assert!(s(&second["fen"]).ends_with(" 2"), "{second}");
}

#[tokio::test]
async fn a_bad_fen_is_refused_bad_fen() {
    let server = Rig::start().await;
    let (status, error) = post(
        &server,
        "/api/analysis/position",
        &json!({"fen": "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1"}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(error["code"], "bad_fen", "{error}");
    let (status, error) = post(&server, "/api/analysis/position", &json!({"fan": "x"})).await;
    assert_eq!((status, error["code"].clone()), (400, json!("bad_request")));
    let _ = strings(&json!([]));
}
