//! The analysis board over HTTP (issue 31), on the real server: the page, a position's legal
//! sub-moves for both sides (a turn in progress included), PGN with nested variations and
//! comments read into a move tree and written back (the same text), bad input refused with
//! typed errors, the engine's lines (distinct turns, best first) and the threat, and the
//! judgements and accuracy in the done line of a game analysis.

use crate::support;

use std::time::Duration;

use marseillais::server::config::Config;
use serde_json::{Value, json};
use support::http::{connect_and_send, exchange, head, read_until_closed};
use support::rig::Rig;
use support::{WAIT, s, strings};

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
}

/// The canonical text of a study: nested variations, comments on both sub-moves of a turn.
const STUDY: &str = "[Event \"Study\"]\n\n{The open game} 1. e4 e5,Nc6 (1... e5,Nf6 {Petrov} 2. d4,Nc3 (2. Nc3,d4)\n2... exd4,Nxe4) (1... d5 {Scandinavian} ,dxe4) 2. Nf3,Bc4 *\n";

#[tokio::test]
async fn a_pgn_with_nested_variations_and_comments_reads_into_the_tree() {
    let server = Rig::start().await;
    let (status, reply) = post(&server, "/api/analysis/pgn", &json!({ "pgn": STUDY })).await;
    assert_eq!(status, 200, "{reply}");
    let tree = &reply["tree"];
    assert_eq!(tree["tags"], json!([["Event", "Study"]]));
    assert_eq!(tree["result"], "*");
    assert_eq!(tree["root"]["comment"], "The open game");
    let e4 = &tree["root"]["children"][0];
    assert_eq!(e4["san"], "e4");
    // e5 is shared by the main line and the Petrov: the tree branches at the second sub-move.
    let children = e4["children"].as_array().unwrap();
    assert_eq!(children.len(), 2, "e5 and d5");
    let e5 = &children[0];
    assert_eq!(e5["children"][0]["san"], "Nc6");
    let petrov = &e5["children"][1];
    assert_eq!(
        (petrov["san"].clone(), petrov["comment"].clone()),
        (json!("Nf6"), json!("Petrov"))
    );
    // Nested: after 2. d4,Nc3 comes the variation 2. Nc3,d4, a second child of White's turn start.
    let turn_two = &petrov["children"];
    assert_eq!(turn_two[0]["san"], "d4");
    assert_eq!(turn_two[1]["san"], "Nc3");
    assert_eq!(turn_two[1]["children"][0]["san"], "d4");
    let d5 = &children[1];
    assert_eq!(
        (d5["san"].clone(), d5["comment"].clone()),
        (json!("d5"), json!("Scandinavian"))
    );
    assert_eq!(d5["children"][0]["uci"], "d5e4");
    assert!(
        s(&d5["children"][0]["fen"]).starts_with("rnbqkbnr/ppp1pppp/8/8/4p3/8/PPPP1PPP/RNBQKBNR w")
    );
}

#[tokio::test]
async fn import_then_export_gives_the_same_text() {
    let server = Rig::start().await;
    let (_, reply) = post(&server, "/api/analysis/pgn", &json!({ "pgn": STUDY })).await;
    let (status, exported) = post(
        &server,
        "/api/analysis/pgn/export",
        &json!({ "tree": reply["tree"] }),
    )
    .await;
    assert_eq!(status, 200, "{exported}");
    assert_eq!(s(&exported["pgn"]), STUDY);
}

#[tokio::test]
async fn bad_pgn_and_bad_trees_are_refused_with_the_replays_typed_errors() {
    let server = Rig::start().await;
    let (status, error) = post(
        &server,
        "/api/analysis/pgn",
        &json!({"pgn": "1. e4 e5,Nc6 (1... e5,Ke3) *"}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(error["code"], "bad_move", "{error}");
    assert_eq!(
        (error["turn"].clone(), error["submove"].clone()),
        (json!(1), json!(2))
    );
    for (pgn, code) in [
        ("  ", "empty"),
        ("[FEN \"8/8 w - - 0 1\"]\n\n1. e4 *", "bad_fen"),
        ("1. e4 {never closed", "bad_comment"),
    ] {
        let (status, error) = post(&server, "/api/analysis/pgn", &json!({ "pgn": pgn })).await;
        assert_eq!(
            (status, error["code"].clone()),
            (400, json!(code)),
            "{pgn}: {error}"
        );
    }
    // A tree with an illegal sub-move: bad_move where it stands.
    let (_, reply) = post(
        &server,
        "/api/analysis/pgn",
        &json!({"pgn": "1. e4 e5,Nc6 *"}),
    )
    .await;
    let mut tree = reply["tree"].clone();
    tree["root"]["children"][0]["children"][0]["children"][0]["uci"] = json!("e8e6");
    let (status, error) = post(
        &server,
        "/api/analysis/pgn/export",
        &json!({ "tree": tree }),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(error["code"], "bad_move", "{error}");
    assert_eq!(
        (error["turn"].clone(), error["submove"].clone()),
        (json!(1), json!(2))
    );
    let (status, error) = post(
        &server,
        "/api/analysis/pgn/export",
        &json!({"tree": {"start_fen": "x", "root": {}}}),
    )
    .await;
    assert_eq!(
        (status, error["code"].clone()),
        (400, json!("bad_fen")),
        "{error}"
    );
}

/// Lines searched to depth 3 at most, with no time or node limit that a loaded machine could
/// hit first: every test run sees the same depths.
fn three_plies(config: &mut Config) {
    config.analysis.lines.max_depth = 3;
    config.analysis.lines.budget = Duration::from_secs(600);
    config.analysis.lines.nodes = u64::MAX;
    config.analysis.lines.rate_per_min = 0.0;
}

/// A whole HTTP request for `POST /api/analysis/lines` with this JSON body.
fn post_lines(body: &Value) -> Vec<u8> {
    let body = body.to_string();
    let mut request = head(
        "POST",
        "/api/analysis/lines",
        &[
            "Content-Type: application/json",
            &format!("Content-Length: {}", body.len()),
        ],
    );
    request.extend_from_slice(body.as_bytes());
    request
}

async fn lines(server: &Rig, body: &Value) -> (u16, Vec<Value>) {
    let reply = exchange(server.addr(), &post_lines(body), 6 * WAIT)
        .await
        .expect("an answer");
    let values = reply
        .body
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}")))
        .collect();
    (reply.status, values)
}

const ITALIAN: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

#[tokio::test]
async fn multi_pv_lines_stream_one_line_per_depth_distinct_turns_best_first() {
    let server = Rig::start_with(three_plies).await;
    let (status, stream) = lines(&server, &json!({"fen": ITALIAN, "multipv": 3})).await;
    assert_eq!(status, 200, "{stream:?}");
    assert_eq!(stream.len(), 4, "depths 1, 2, 3 then done: {stream:#?}");
    for (index, depth) in stream[..3].iter().enumerate() {
        assert_eq!(depth["depth"], index + 1, "{depth}");
        let found = depth["lines"].as_array().unwrap();
        assert_eq!(found.len(), 3, "{depth}");
        let mut previous = i64::MAX;
        let mut turns: Vec<Vec<String>> = Vec::new();
        for line in found {
            let turn = strings(&line["turn"]);
            assert_eq!(turn.len(), 2, "{line}");
            assert_eq!(strings(&line["pv"])[..2], turn[..], "{line}");
            assert_eq!(strings(&line["san"]).len(), 2);
            // White to move: the White-relative number orders the lines.
            let white = line["white"].as_i64().unwrap();
            assert!(white <= previous, "best first: {depth}");
            previous = white;
            let mut sorted = turn.clone();
            sorted.sort();
            assert!(!turns.contains(&sorted), "the same turn twice: {depth}");
            turns.push(sorted);
            assert!(line["score"]["cp"].is_i64() || line["score"]["mate"].is_i64());
        }
    }
    let done = &stream[3];
    assert_eq!(
        (done["done"].clone(), done["depth"].clone()),
        (json!(true), json!(3))
    );
    assert!(done["nodes"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn the_threat_is_the_opponents_best_turn_as_if_it_were_their_turn() {
    let server = Rig::start_with(three_plies).await;
    // White to move; passed, Black's best turn is a mate: Qh4 is ready (Qxf2#).
    let fen = "rnb1kbnr/pppp1ppp/8/4p3/4P2q/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3";
    let (status, stream) = lines(&server, &json!({"fen": fen, "multipv": 1, "threat": true})).await;
    assert_eq!(status, 200, "{stream:?}");
    // The deepest depth sent (the last line is `done`) sees the mate: Bc5 then Qxf2#.
    let deepest = &stream[stream.len() - 2];
    let line = &deepest["lines"][0];
    assert_eq!(
        line["score"]["mate"].as_i64().map(i64::signum),
        Some(1),
        "{deepest}"
    );
    assert!(line["white"].as_i64().unwrap() < -9_000, "{line}");
    assert!(
        strings(&line["san"]).iter().any(|san| san.ends_with('#')),
        "{line}"
    );
    assert_eq!(stream.last().unwrap()["done"], true);
    // Mid-turn or in check there is no threat.
    for fen in [
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 2",
        "4k3/8/8/8/8/8/8/4K2r w - - 0 5",
    ] {
        let (status, error) = post(
            &server,
            "/api/analysis/lines",
            &json!({"fen": fen, "threat": true}),
        )
        .await;
        assert_eq!(
            (status, error["code"].clone()),
            (400, json!("no_threat")),
            "{error}"
        );
    }
    let (status, error) = post(
        &server,
        "/api/analysis/lines",
        &json!({"fen": ITALIAN, "multipv": 6}),
    )
    .await;
    assert_eq!((status, error["code"].clone()), (400, json!("bad_request")));
    let (status, error) = post(&server, "/api/analysis/lines", &json!({"fen": "x"})).await;
    assert_eq!((status, error["code"].clone()), (400, json!("bad_fen")));
}

#[tokio::test]
async fn a_newer_lines_request_of_the_same_client_ends_the_running_one() {
    let server = Rig::start_with(|config: &mut Config| {
        config.analysis.lines.max_depth = 60;
        config.analysis.lines.budget = Duration::from_secs(600);
        config.analysis.lines.nodes = u64::MAX;
        config.analysis.lines.rate_per_min = 0.0;
    })
    .await;
    let body = json!({"fen": ITALIAN, "multipv": 5});
    let mut first = connect_and_send(server.addr(), &post_lines(&body))
        .await
        .unwrap();
    // The first streams: wait for its first depth.
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("\"depth\":1") {
        use tokio::io::AsyncReadExt;
        let read = tokio::time::timeout(WAIT, first.read(&mut buffer))
            .await
            .expect("a line")
            .unwrap();
        assert!(read > 0, "closed early: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buffer[..read]);
    }
    let second = connect_and_send(server.addr(), &post_lines(&body))
        .await
        .unwrap();
    let rest = read_until_closed(&mut first, 3 * WAIT)
        .await
        .expect("the first ends");
    let text = String::from_utf8_lossy(&rest);
    assert!(text.contains("\"done\":true"), "{text}");
    drop(second);
}

#[tokio::test]
async fn the_done_line_of_a_game_analysis_has_accuracy_and_judgements() {
    let server = Rig::start_with(|config: &mut Config| {
        config.analysis.budget = Duration::from_secs(60);
        config.analysis.position_max = Duration::from_secs(60);
        config.analysis.nodes = 20_000;
        config.analysis.rate_per_min = 0.0;
    })
    .await;
    let body = json!({"pgn": "1. e4 f6,g5 2. Qh5# 1-0"}).to_string();
    let mut request = head(
        "POST",
        "/api/analysis",
        &[
            "Content-Type: application/json",
            &format!("Content-Length: {}", body.len()),
        ],
    );
    request.extend_from_slice(body.as_bytes());
    let reply = exchange(server.addr(), &request, 6 * WAIT)
        .await
        .expect("an answer");
    assert_eq!(reply.status, 200);
    let done: Value = serde_json::from_str(reply.body.lines().last().unwrap()).unwrap();
    assert_eq!(done["done"], true, "{done}");
    let white = done["accuracy"]["white"]
        .as_f64()
        .expect("White's accuracy");
    let black = done["accuracy"]["black"]
        .as_f64()
        .expect("Black's accuracy");
    assert!(
        (0.0..=100.0).contains(&white) && (0.0..=100.0).contains(&black),
        "{done}"
    );
    assert!(black < white, "{done}");
    // Black's turn f6,g5 lets White mate: a blunder, judged at its last sub-move (ply 3).
    let judgements = done["judgements"].as_array().unwrap();
    let blunder = judgements
        .iter()
        .find(|j| j["ply"] == 3)
        .expect("f6,g5 judged");
    assert_eq!(blunder["judgement"], "blunder", "{blunder}");
    assert_eq!(
        (blunder["number"].clone(), blunder["color"].clone()),
        (json!(1), json!("black"))
    );
    assert!(blunder["loss"].as_f64().unwrap() >= 0.3);
    assert_eq!(strings(&blunder["best"]).len(), 2, "{blunder}");
}
