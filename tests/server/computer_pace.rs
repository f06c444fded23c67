//! The computer at a person's pace (`--computer-pace human`, the default; the test kit plays
//! with `instant`): levels 1-7 stop searching within milliseconds, yet answer only after the
//! least think of their level (`computer::think::least_think`), counted from when the
//! position reached them.

use crate::support;

use std::time::Instant;

use marseillais::engine::Level;
use marseillais::rules::{Color, Position};
use marseillais::server::computer::think::{ComputerPace, least_think};
use serde_json::json;
use support::rig::Rig;
use support::s;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[tokio::test]
async fn a_level_one_computer_answers_after_its_least_think_not_at_once() {
    let start: Position = START.parse().expect("the start position");
    let least = least_think(Color::White, Level::new(1), None, None, start.hash());
    // Level 1 takes 30% of a 4 s untimed turn over a turn, a quarter to 7/4 of it for this
    // position: at least 150 ms, far above its 30-node search.
    assert!(least.as_millis() >= 150, "{least:?}");

    let rig = Rig::start_with(|c| c.computer_pace = ComputerPace::Human).await;
    let asked = Instant::now();
    let body = json!({"computer": {"level": 1}, "color": "black"}).to_string();
    let (status, text) = rig.http("POST", "/api/games", Some(&body)).await;
    assert_eq!(status, 201, "{text}");
    let grant: serde_json::Value = serde_json::from_str(&text).expect("json");
    let mut client = rig.seat(&s(&grant["id"]), &s(&grant["token"])).await;
    client
        .until("the computer's first sub-move", |m| {
            m.t == "move" && m.d["color"] == "white"
                || m.t == "state" && m.d["moves"].as_array().is_some_and(|v| !v.is_empty())
        })
        .await;
    let waited = asked.elapsed();
    assert!(
        waited >= least,
        "answered after {waited:?}, its least think is {least:?}"
    );
    rig.stop().await;
}
