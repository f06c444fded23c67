//! Puzzles on a real server: a set of hand-made puzzles is given at startup (`--puzzle-set`),
//! then anonymous visitors and signed-in accounts fetch, play, fail and solve them over HTTP,
//! and the ratings, the dashboard and the "never twice" rule are read back from the server.

use crate::support;

use std::path::PathBuf;

use marseillais::server::config::{Config, PuzzleSetChoice};
use serde_json::{Value, json};
use support::http::json as http_json;
use support::rig::Rig;
use support::s;
use support::session::Session;

/// After 1. e4, Black's f6 and g5 leave the king open: White mates with Qh5 on S1 (a check
/// ends the turn, and this one the game).
const MATE: &str = "mateA1";
/// Two turns of White: two knights out (either order reaches the same position), Black's
/// h-pawn steps twice, then d4 opens the bishop's way to g5.
const QUIET: &str = "quiet2";

const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

/// The set given to the server: `tests/data/puzzles_small.csv`, the two puzzles above.
fn set_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/puzzles_small.csv")
}

async fn rig() -> Rig {
    let path = set_file();
    Rig::builder()
        .config(move |c: &mut Config| c.puzzle_set = PuzzleSetChoice::File(path))
        .start()
        .await
}

async fn anonymous(rig: &Rig, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    http_json(rig.addr(), method, path, body).await
}

#[tokio::test]
async fn an_anonymous_visitor_walks_the_set_in_id_order_round_to_the_first() {
    let rig = rig().await;
    let (status, first) = anonymous(&rig, "GET", "/api/puzzles/next", None).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["rated"], json!(false));
    assert_eq!(first["player"], Value::Null);
    let first_id = s(&first["puzzle"]["id"]);
    assert_eq!(first_id, MATE, "ids order bytewise: 'm' < 'q'");
    let (_, second) = anonymous(
        &rig,
        "GET",
        &format!("/api/puzzles/next?after={first_id}"),
        None,
    )
    .await;
    assert_eq!(s(&second["puzzle"]["id"]), QUIET);
    let (_, again) = anonymous(&rig, "GET", "/api/puzzles/next?after=quiet2", None).await;
    assert_eq!(s(&again["puzzle"]["id"]), MATE);
    let (_, themed) = anonymous(&rig, "GET", "/api/puzzles/next?theme=advantage", None).await;
    assert_eq!(s(&themed["puzzle"]["id"]), QUIET);
    let (status, none) = anonymous(&rig, "GET", "/api/puzzles/next?theme=enPassant", None).await;
    assert_eq!(status, 404, "{none}");
    let (status, bad) = anonymous(&rig, "GET", "/api/puzzles/next?theme=tactics", None).await;
    assert_eq!(status, 400, "{bad}");
    assert_eq!(bad["code"], json!("bad_request"));
}

#[tokio::test]
async fn a_puzzle_shows_the_opponents_last_turn_and_never_its_solution() {
    let rig = rig().await;
    let (status, reply) = anonymous(&rig, "GET", &format!("/api/puzzles/{MATE}"), None).await;
    assert_eq!(status, 200, "{reply}");
    let puzzle = &reply["puzzle"];
    assert_eq!(puzzle["fen"], json!(AFTER_E4));
    assert_eq!(puzzle["last_turn"], json!(["f7f6", "g7g5"]));
    assert_eq!(puzzle["solver"], json!("white"));
    assert_eq!(puzzle["turns"], json!(1));
    assert_eq!(puzzle["rating"], json!(1500));
    assert_eq!(puzzle["game"], json!("/game/abcdEFGH"));
    assert_eq!(puzzle["url"], json!(format!("/puzzles/{MATE}")));
    assert_eq!(
        puzzle["themes"],
        json!(["mate", "mateIn1", "opening", "short"])
    );
    assert!(!reply.to_string().contains("d1h5"), "{reply}");
    let (_, quiet) = anonymous(&rig, "GET", &format!("/api/puzzles/{QUIET}"), None).await;
    assert_eq!(
        quiet["puzzle"]["game"],
        Value::Null,
        "a self-play puzzle has no game"
    );
    for missing in ["nothere", "bad-id!", &"x".repeat(40)] {
        let (status, _) = anonymous(&rig, "GET", &format!("/api/puzzles/{missing}"), None).await;
        assert_eq!(status, 404, "{missing}");
    }
}

#[tokio::test]
async fn a_right_turn_brings_the_reply_and_the_last_one_solves_the_puzzle_once_rated() {
    let rig = rig().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let moves = format!("/api/puzzles/{QUIET}/moves");
    let play = |played: Vec<&'static str>| json!({ "played": played });
    let (status, first) = alice
        .call(addr, "POST", &moves, Some(&play(vec!["b1c3"])))
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(
        first["verdict"],
        json!("continue"),
        "Nc3 first is right: the order is free"
    );
    let (_, turn) = alice
        .call(addr, "POST", &moves, Some(&play(vec!["b1c3", "g1f3"])))
        .await;
    assert_eq!(turn["verdict"], json!("reply"), "{turn}");
    assert_eq!(turn["reply"], json!(["h7h6", "h6h5"]));
    assert_eq!(turn["round"], Value::Null);
    let (_, s1) = alice
        .call(
            addr,
            "POST",
            &moves,
            Some(&play(vec!["b1c3", "g1f3", "d2d4"])),
        )
        .await;
    assert_eq!(s1["verdict"], json!("continue"), "{s1}");
    let (_, solved) = alice
        .call(
            addr,
            "POST",
            &moves,
            Some(&play(vec!["b1c3", "g1f3", "d2d4", "c1g5"])),
        )
        .await;
    assert_eq!(solved["verdict"], json!("solved"), "{solved}");
    assert_eq!(
        solved["solution"],
        json!([["g1f3", "b1c3"], ["h7h6", "h6h5"], ["d2d4", "c1g5"]])
    );
    let round = &solved["round"];
    assert_eq!(round["rated"], json!(true));
    assert_eq!(round["solved"], json!(true));
    assert!(round["change"].as_i64().unwrap() > 0, "{round}");
    // The second try is judged but rates nothing.
    let (_, again) = alice
        .call(
            addr,
            "POST",
            &moves,
            Some(&play(vec!["b1c3", "g1f3", "d2d4", "c1g5"])),
        )
        .await;
    assert_eq!(again["verdict"], json!("solved"));
    assert_eq!(again["round"], Value::Null);
    let (_, shown) = anonymous(&rig, "GET", &format!("/api/puzzles/{QUIET}"), None).await;
    assert!(
        shown["puzzle"]["rating"].as_i64().unwrap() < 1600,
        "the puzzle lost: {shown}"
    );
    assert_eq!(shown["puzzle"]["plays"], json!(1));
    let (status, board) = anonymous(&rig, "GET", "/api/users/alice/puzzles", None).await;
    assert_eq!(status, 200, "{board}");
    assert_eq!(
        (board["solved"].clone(), board["failed"].clone()),
        (json!(1), json!(0))
    );
    assert_eq!(board["history"].as_array().map(Vec::len), Some(1));
    assert_eq!(board["rating"]["rating"], round["rating"]["rating"]);
    let advantage = board["themes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["key"] == json!("advantage"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(advantage["solved"], json!(1), "{board}");
}

#[tokio::test]
async fn a_wrong_submove_fails_at_once_and_shows_the_right_one() {
    let rig = rig().await;
    let addr = rig.addr();
    let bob = Session::register(addr, "bob").await;
    let moves = format!("/api/puzzles/{MATE}/moves");
    // Any S1 that leaves a mate for S2 is right (a mate is a mate); Ke2 blocks the queen.
    let (status, wrong) = bob
        .call(addr, "POST", &moves, Some(&json!({"played": ["e1e2"]})))
        .await;
    assert_eq!(status, 200, "{wrong}");
    assert_eq!(wrong["verdict"], json!("wrong"));
    assert_eq!(wrong["expected"], json!("d1h5"));
    assert_eq!(wrong["solution"], json!([["d1h5"]]));
    assert_eq!(wrong["round"]["solved"], json!(false));
    assert!(wrong["round"]["change"].as_i64().unwrap() < 0, "{wrong}");
    // Going on past a wrong sub-move is refused; the right one afterwards rates nothing.
    let (status, _) = bob
        .call(
            addr,
            "POST",
            &moves,
            Some(&json!({"played": ["e1e2", "e2d3"]})),
        )
        .await;
    assert_eq!(status, 400);
    let (_, right) = bob
        .call(addr, "POST", &moves, Some(&json!({"played": ["d1h5"]})))
        .await;
    assert_eq!(right["verdict"], json!("solved"));
    assert_eq!(right["round"], Value::Null);
    let (_, board) = anonymous(&rig, "GET", "/api/users/bob/puzzles", None).await;
    assert_eq!(
        (board["solved"].clone(), board["failed"].clone()),
        (json!(0), json!(1))
    );
}

#[tokio::test]
async fn a_hint_or_the_solution_counts_as_a_failed_first_try() {
    let rig = rig().await;
    let addr = rig.addr();
    let carol = Session::register(addr, "carol").await;
    let (status, hint) = carol
        .call(
            addr,
            "POST",
            &format!("/api/puzzles/{MATE}/hint"),
            Some(&json!({"played": []})),
        )
        .await;
    assert_eq!(status, 200, "{hint}");
    assert_eq!(hint["square"], json!("d1"));
    assert_eq!(hint["round"]["solved"], json!(false));
    let (status, shown) = carol
        .call(
            addr,
            "POST",
            &format!("/api/puzzles/{QUIET}/solution"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{shown}");
    assert_eq!(shown["solution"][2], json!(["d2d4", "c1g5"]));
    assert_eq!(shown["round"]["solved"], json!(false));
    let (_, board) = anonymous(&rig, "GET", "/api/users/carol/puzzles", None).await;
    assert_eq!(board["failed"], json!(2));
}

#[tokio::test]
async fn an_account_never_gets_a_puzzle_it_played() {
    let rig = rig().await;
    let addr = rig.addr();
    let dave = Session::register(addr, "dave").await;
    let mut seen = Vec::new();
    for round in 0..2 {
        let (status, next) = dave.call(addr, "GET", "/api/puzzles/next", None).await;
        assert_eq!(status, 200, "{next}");
        assert_eq!(next["rated"], json!(true));
        if round == 0 {
            assert_eq!(next["player"]["rating"], json!(1500), "a new account's");
        }
        let id = s(&next["puzzle"]["id"]);
        assert!(!seen.contains(&id), "{id} came twice");
        let (_, shown) = dave
            .call(addr, "POST", &format!("/api/puzzles/{id}/solution"), None)
            .await;
        assert_eq!(shown["round"]["rated"], json!(true));
        seen.push(id);
    }
    let (status, none) = dave.call(addr, "GET", "/api/puzzles/next", None).await;
    assert_eq!(status, 404, "{none}");
}

#[tokio::test]
async fn the_daily_puzzle_and_the_themes_are_the_same_for_everyone() {
    let rig = rig().await;
    let addr = rig.addr();
    let (status, daily) = anonymous(&rig, "GET", "/api/puzzles/daily", None).await;
    assert_eq!(status, 200, "{daily}");
    let erin = Session::register(addr, "erin").await;
    let (_, hers) = erin.call(addr, "GET", "/api/puzzles/daily", None).await;
    assert_eq!(hers["puzzle"]["id"], daily["puzzle"]["id"]);
    let (status, themes) = anonymous(&rig, "GET", "/api/puzzles/themes", None).await;
    assert_eq!(status, 200, "{themes}");
    assert_eq!(themes["total"], json!(2));
    let count = |key: &str| {
        themes["themes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["key"] == json!(key))
            .map(|t| t["count"].clone())
    };
    assert_eq!(count("opening"), Some(json!(2)));
    assert_eq!(count("mateIn1"), Some(json!(1)));
    assert_eq!(count("enPassant"), Some(json!(0)));
}

#[tokio::test]
async fn malformed_moves_are_typed_refusals() {
    let rig = rig().await;
    let addr = rig.addr();
    let path = format!("/api/puzzles/{MATE}/moves");
    for body in [
        "{",
        "{}",
        r#"{"played": "d1h5"}"#,
        r#"{"played": ["d1h9"]}"#,
        r#"{"played": ["d1h5"], "extra": 1}"#,
        r#"{"played": ["a2a3","a2a3","a2a3","a2a3","a2a3","a2a3","a2a3","a2a3","a2a3"]}"#,
        r#"{"played": []}"#,
        r#"{"played": ["e1e8"]}"#,
    ] {
        let (status, reply) = support::http::http(addr, "POST", &path, Some(body)).await;
        assert_eq!(status, 400, "{body}: {reply}");
        let reply: Value = serde_json::from_str(&reply).unwrap_or_default();
        assert_eq!(reply["code"], json!("bad_request"), "{body}: {reply}");
    }
    let (status, _) = support::http::http(
        addr,
        "POST",
        "/api/puzzles/nothere/moves",
        Some(r#"{"played": ["d1h5"]}"#),
    )
    .await;
    assert_eq!(status, 404);
    let (status, _) = anonymous(&rig, "GET", "/api/users/nobody/puzzles", None).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_move_with_the_session_cookie_from_another_site_is_refused() {
    let rig = rig().await;
    let addr = rig.addr();
    let frank = Session::register(addr, "frank").await;
    let request = support::http::head(
        "POST",
        &format!("/api/puzzles/{MATE}/moves"),
        &[
            &format!("Cookie: {}", frank.cookie),
            "Origin: http://evil.example",
            "Content-Type: application/json",
            "Content-Length: 20",
        ],
    );
    let mut bytes = request;
    bytes.extend_from_slice(br#"{"played": ["d1h5"]}"#);
    let reply = support::http::exchange(addr, &bytes, std::time::Duration::from_secs(10))
        .await
        .expect("an answer");
    assert_eq!(reply.status, 403);
    let (_, board) = anonymous(&rig, "GET", "/api/users/frank/puzzles", None).await;
    assert_eq!(board["solved"], json!(0), "nothing was recorded");
}
