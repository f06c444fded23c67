//! The opening explorer through the real server (docs/protocol.md, "Opening explorer"):
//! games played to their end over the sockets (mate, resignation, an abort), then
//! `GET /api/explorer` for the positions they went through, checked against what was played:
//! the turns and their counts, the results, the average rating of the account players, the
//! filters, the example games; a game counted once across a restart; the refusals.

use crate::support;

use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::rig::Rig;
use support::s;
use support::session::Session;
use support::ws::Client;

/// The FEN after 1. e4 (Black to play two sub-moves).
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

/// `GET /api/explorer` with this query; the status and the body.
async fn explore(rig: &Rig, query: &str) -> (u16, Value) {
    let (status, body) = rig
        .http("GET", &format!("/api/explorer?{query}"), None)
        .await;
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::String(body));
    (status, body)
}

async fn explore_ok(rig: &Rig, query: &str) -> Value {
    let (status, body) = explore(rig, query).await;
    assert_eq!(status, 200, "{query}: {body}");
    body
}

/// Each turn of an answer as (sub-moves joined by commas, games, white, draws, black).
fn turns(body: &Value) -> Vec<(String, u64, u64, u64, u64)> {
    body["turns"]
        .as_array()
        .expect("turns")
        .iter()
        .map(|t| {
            let moves: Vec<String> = t["turn"].as_array().expect("turn").iter().map(s).collect();
            let n = |k: &str| t[k].as_u64().expect("a count");
            (
                moves.join(","),
                n("games"),
                n("white"),
                n("draws"),
                n("black"),
            )
        })
        .collect()
}

fn example_ids(body: &Value) -> Vec<String> {
    body["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| s(&g["id"]))
        .collect()
}

fn encoded(fen: &str) -> String {
    fen.replace(' ', "%20").replace('/', "%2F")
}

/// Ends a game by `who`'s resignation and waits for both players to see the end.
async fn resign(who: &mut Client, other: &mut Client) {
    who.send(json!({"t": "resign"})).await;
    who.recv_type("end").await;
    other.recv_type("end").await;
}

/// 1. e4 f6,g5 2. Qh5#: White mates.
async fn mate_game(rig: &Rig, body: Value) -> String {
    let (id, mut white, mut black) = rig.players(body).await;
    play_until_white_mates_in_one(&mut white, &mut black).await;
    white.play("d1h5", "w2").await;
    assert_eq!(white.recv_type("end").await.d["winner"], "white");
    black.recv_type("end").await;
    id
}

/// `first` for White, then Black's two sub-moves, then White resigns: Black wins.
async fn resigned_game(rig: &Rig, body: Value, first: &str, black_turn: [&str; 2]) -> String {
    let (id, mut white, mut black) = rig.players(body).await;
    white.play(first, "w1").await;
    black.play(black_turn[0], "b1").await;
    black.play(black_turn[1], "b2").await;
    resign(&mut white, &mut black).await;
    id
}

fn blitz() -> Value {
    json!({"clock": {"base_secs": 300, "increment_secs": 2}})
}

#[tokio::test]
async fn the_explorer_counts_the_turns_and_results_of_the_games_played() {
    let rig = Rig::start().await;
    let mated = mate_game(&rig, json!({})).await;
    let resigned = resigned_game(&rig, blitz(), "e2e4", ["e7e5", "g8f6"]).await;
    let queens = resigned_game(&rig, json!({}), "d2d4", ["d7d5", "g8f6"]).await;
    // An aborted game does not count.
    let (_, mut white, mut black) = rig.players(json!({})).await;
    white.play("c2c4", "w1").await;
    white.send(json!({"t": "abort"})).await;
    assert_eq!(white.recv_type("end").await.d["reason"], "aborted");
    black.recv_type("end").await;

    let root = explore_ok(&rig, "").await;
    assert_eq!(
        turns(&root),
        [
            ("e2e4".to_string(), 2, 1, 0, 1),
            ("d2d4".to_string(), 1, 0, 0, 1)
        ]
    );
    assert_eq!(
        (
            root["white"].as_u64(),
            root["draws"].as_u64(),
            root["black"].as_u64()
        ),
        (Some(1), Some(0), Some(2))
    );
    assert_eq!(root["turns"][0]["san"], json!(["e4"]));
    assert_eq!(
        root["turns"][0]["average_rating"],
        Value::Null,
        "anonymous players only"
    );
    assert_eq!(
        example_ids(&root),
        [queens.clone(), resigned.clone(), mated.clone()]
    );
    assert_eq!(root["games"][2]["result"], "1-0");
    assert_eq!(root["games"][2]["speed"], "untimed");
    assert_eq!(root["games"][1]["speed"], "blitz");

    let after_e4 = explore_ok(&rig, &format!("fen={}", encoded(AFTER_E4))).await;
    assert_eq!(
        turns(&after_e4),
        [
            ("e7e5,g8f6".to_string(), 1, 0, 0, 1),
            ("f7f6,g7g5".to_string(), 1, 1, 0, 0)
        ]
    );
    assert_eq!(after_e4["turns"][1]["san"], json!(["f6", "g5"]));
    assert_eq!(example_ids(&after_e4), [resigned.clone(), mated.clone()]);

    // The mating turn: a check on the first sub-move ends it, one sub-move.
    let before_mate = "rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let mate = explore_ok(&rig, &format!("fen={}", encoded(before_mate))).await;
    assert_eq!(turns(&mate), [("d1h5".to_string(), 1, 1, 0, 0)]);
    assert_eq!(mate["turns"][0]["san"], json!(["Qh5#"]));

    // Filters: the clock family, rated or casual.
    let blitz_only = explore_ok(&rig, "speeds=blitz").await;
    assert_eq!(turns(&blitz_only), [("e2e4".to_string(), 1, 0, 0, 1)]);
    assert_eq!(example_ids(&blitz_only), [resigned.as_str()]);
    let untimed = explore_ok(&rig, "speeds=untimed,bullet&rated=casual").await;
    assert_eq!(
        turns(&untimed),
        [
            ("d2d4".to_string(), 1, 0, 0, 1),
            ("e2e4".to_string(), 1, 1, 0, 0)
        ]
    );
    let rated = explore_ok(&rig, "rated=rated").await;
    assert!(
        turns(&rated).is_empty() && example_ids(&rated).is_empty(),
        "{rated}"
    );
}

#[tokio::test]
async fn the_average_rating_is_the_account_players_rating_before_the_game() {
    let rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    for round in 0..2 {
        let body = json!({"rated": true, "color": "white", "clock": {"base_secs": 300, "increment_secs": 2}});
        let (status, created) = alice
            .call(rig.addr(), "POST", "/api/games", Some(&body))
            .await;
        assert_eq!(status, 201, "{created}");
        let id = s(&created["id"]);
        let (status, joined) = bob
            .call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
            .await;
        assert_eq!(status, 200, "{joined}");
        let mut white = alice.connect(rig.addr(), &id, "").await;
        let mut black = bob.connect(rig.addr(), &id, "").await;
        white.skip_to("state").await;
        black.skip_to("state").await;
        play_until_white_mates_in_one(&mut white, &mut black).await;
        white.play("d1h5", "w2").await;
        white.recv_type("end").await;
        black.recv_type("end").await;
        let root = explore_ok(&rig, "rated=rated&speeds=blitz").await;
        let turn = &root["turns"][0];
        assert_eq!(turn["games"], round + 1);
        if round == 0 {
            // Both at the initial rating before the first game.
            assert_eq!(turn["average_rating"], 1500);
            assert_eq!(root["games"][0]["white"], "alice");
            assert_eq!(root["games"][0]["black"], "bob");
            assert_eq!(root["games"][0]["rated"], true);
        } else {
            // Before the second game alice had won once (above 1500) and bob lost (below):
            // the mean of the four ratings before each game, rounded.
            let average = turn["average_rating"].as_i64().expect("an average");
            assert!((1490..=1510).contains(&average), "{turn}");
            let second = &root["games"][0];
            let sum = second["white_rating"].as_i64().expect("alice's")
                + second["black_rating"].as_i64().expect("bob's");
            assert!(second["white_rating"].as_i64() > Some(1500), "{second}");
            assert!(
                ((sum + 2 * 1500) as f64 / 4.0 - average as f64).abs() <= 1.0,
                "{root}"
            );
        }
    }
    assert!(turns(&explore_ok(&rig, "rated=casual").await).is_empty());
}

#[tokio::test]
async fn a_finished_game_is_counted_once_across_a_restart() {
    let mut rig = Rig::start().await;
    mate_game(&rig, json!({})).await;
    rig.restart().await;
    assert_eq!(
        turns(&explore_ok(&rig, "").await),
        [("e2e4".to_string(), 1, 1, 0, 0)]
    );
    mate_game(&rig, json!({})).await;
    assert_eq!(
        turns(&explore_ok(&rig, "").await),
        [("e2e4".to_string(), 2, 2, 0, 0)]
    );
}

#[tokio::test]
async fn a_bad_fen_a_turn_in_progress_and_a_bad_filter_are_refused() {
    let rig = Rig::start().await;
    let (status, body) = explore(&rig, "fen=nonsense").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("bad_fen")),
        "{body}"
    );
    let second = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 2";
    let (status, body) = explore(&rig, &format!("fen={}", encoded(second))).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("not_turn_start")),
        "{body}"
    );
    let (status, body) = explore(&rig, "speeds=warp").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("bad_request")),
        "{body}"
    );
    let (status, body) = explore(&rig, "rated=sometimes").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("bad_request")),
        "{body}"
    );
    // A position no game reached: an empty answer.
    let empty = explore_ok(&rig, &format!("fen={}", encoded(AFTER_E4))).await;
    assert!(
        turns(&empty).is_empty() && example_ids(&empty).is_empty(),
        "{empty}"
    );
}
