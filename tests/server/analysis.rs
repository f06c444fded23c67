//! Analysis over HTTP (`POST /api/analysis`, `GET /api/games/{id}/analysis`), on the real
//! server: one NDJSON line per position in order then `done`, mate scores and the best turn,
//! the replay's errors for bad records, finished games only, the per-address limit, one
//! analysis at a time per client, the global cap, the longest record, and a client that goes
//! away stopping the engine.

use crate::support;

use std::time::Duration;

use marseillais::server::config::Config;
use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::http::{
    connect_and_send, connect_and_send_from, exchange, exchange_from, head, metric,
};
use support::rig::Rig;
use support::{WAIT, eventually, s, strings};

/// Quick analyses (tests search a few positions for a few milliseconds each), no rate limit.
fn quick(config: &mut Config) {
    config.analysis.budget = Duration::from_millis(400);
    config.analysis.position_max = Duration::from_millis(60);
    config.analysis.rate_per_min = 0.0;
}

/// Analyses that would search for ten minutes, if nothing stopped them.
fn endless(config: &mut Config) {
    config.analysis.budget = Duration::from_secs(600);
    config.analysis.position_max = Duration::from_secs(600);
    config.analysis.nodes = u64::MAX;
    config.analysis.rate_per_min = 0.0;
}

/// A whole HTTP request for `POST /api/analysis` with this JSON body.
fn post_analysis(body: &Value) -> Vec<u8> {
    let body = body.to_string();
    let mut request = head(
        "POST",
        "/api/analysis",
        &[
            "Content-Type: application/json",
            &format!("Content-Length: {}", body.len()),
        ],
    );
    request.extend_from_slice(body.as_bytes());
    request
}

/// The lines of an NDJSON body, each parsed.
fn lines(body: &str) -> Vec<Value> {
    body.lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON: {line:?}: {e}"))
        })
        .collect()
}

/// Status, content type and lines of an analysis.
async fn analyse(server: &Rig, request: &[u8]) -> (u16, String, Vec<Value>) {
    let reply = exchange(server.addr(), request, 3 * WAIT)
        .await
        .expect("an answer");
    let content_type = reply.header("content-type").unwrap_or_default().to_string();
    if content_type == "application/x-ndjson" {
        (reply.status, content_type, lines(&reply.body))
    } else {
        let body = serde_json::from_str(&reply.body).expect("a JSON error");
        (reply.status, content_type, vec![body])
    }
}

/// Checks one line per position (plies 0..=sub-moves, in order), then `done`.
fn assert_one_line_per_position_then_done(lines: &[Value], submoves: usize) {
    assert_eq!(lines.len(), submoves + 2, "{lines:#?}");
    for (ply, line) in lines[..=submoves].iter().enumerate() {
        assert_eq!(line["ply"], ply, "{line}");
        assert!(
            line["fen"].is_string() && line["side"].is_string(),
            "{line}"
        );
        assert!(line["white"].is_i64(), "{line}");
    }
    let done = &lines[submoves + 1];
    assert_eq!(done["done"], true, "{done}");
    assert_eq!(done["positions"], submoves + 1, "{done}");
}

#[tokio::test]
async fn a_record_with_a_mate_in_one_turn_gets_a_mate_score_and_that_turn() {
    let server = Rig::start_with(quick).await;
    // 1. e4 f6,g5: White to move mates with Qh5.
    let (status, content_type, lines) =
        analyse(&server, &post_analysis(&json!({"pgn": "1. e4 f6,g5"}))).await;
    assert_eq!(status, 200, "{lines:?}");
    assert_eq!(content_type, "application/x-ndjson");
    assert_one_line_per_position_then_done(&lines, 3);
    let mate = &lines[3];
    assert_eq!(mate["side"], "white");
    assert_eq!(mate["phase"], "first");
    assert_eq!(mate["score"], json!({"mate": 1}), "{mate}");
    assert_eq!(strings(&mate["best"]), ["d1h5"]);
    assert_eq!(strings(&mate["best_san"]), ["Qh5#"]);
    assert_eq!(mate["white"], 9_999);
    assert!(mate["depth"].as_u64().unwrap_or(0) >= 1, "{mate}");
    // Black's S1, a turn of two sub-moves: its best turn is a pair.
    assert_eq!(lines[1]["side"], "black");
    assert_eq!(strings(&lines[1]["best"]).len(), 2, "{}", lines[1]);
    assert_eq!(lines[0]["phase"], "single");
    assert_eq!(strings(&lines[0]["best"]).len(), 1, "{}", lines[0]);
}

#[tokio::test]
async fn the_mated_position_is_reported_without_a_search() {
    let server = Rig::start_with(quick).await;
    let (status, _, lines) = analyse(
        &server,
        &post_analysis(&json!({"pgn": "1. e4 f6,g5 2. Qh5# 1-0"})),
    )
    .await;
    assert_eq!(status, 200);
    assert_one_line_per_position_then_done(&lines, 4);
    let end = &lines[4];
    assert_eq!(end["end"], "checkmate", "{end}");
    assert_eq!(end["score"], json!({"mate": 0}));
    assert_eq!(end["white"], 10_000, "Black is mated");
    assert_eq!(end["nodes"], 0);
    assert!(strings(&end["best"]).is_empty());
    assert_eq!(lines[5]["searched"], 4);
}

#[tokio::test]
async fn a_fen_is_one_position() {
    // Bounded by nodes, not time: under a loaded CI run a 60 ms search once ended at depth 1
    // (34 nodes), whose line is one sub-move; 5,000 nodes always complete a whole turn.
    let server = Rig::start_with(|config: &mut Config| {
        config.analysis.budget = Duration::from_secs(60);
        config.analysis.position_max = Duration::from_secs(60);
        config.analysis.nodes = 5_000;
        config.analysis.rate_per_min = 0.0;
    })
    .await;
    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1 1";
    let (status, _, lines) = analyse(&server, &post_analysis(&json!({ "fen": fen }))).await;
    assert_eq!(status, 200);
    assert_one_line_per_position_then_done(&lines, 0);
    assert_eq!(s(&lines[0]["fen"]), fen);
    assert_eq!(strings(&lines[0]["best"]).len(), 2, "{}", lines[0]);
}

#[tokio::test]
async fn a_bad_record_gets_exactly_the_replay_errors() {
    let server = Rig::start_with(quick).await;
    for body in [
        json!({"pgn": "1. e4 e5,Ke3"}),
        json!({"pgn": "1. e4 e5 2. Nf3 Nc6"}),
        json!({"pgn": "  "}),
        json!({"fen": "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1"}),
        json!({"pgn": "1. e4", "fen": "x"}),
    ] {
        let (status, replayed) = server
            .http("POST", "/api/replay", Some(&body.to_string()))
            .await;
        assert_eq!(status, 400, "{replayed}");
        let (status, _, analysed) = analyse(&server, &post_analysis(&body)).await;
        assert_eq!(status, 400, "{body}");
        let replayed: Value = serde_json::from_str(&replayed).expect("json");
        assert_eq!(analysed[0], replayed, "{body}");
    }
    let (_, _, illegal) = analyse(&server, &post_analysis(&json!({"pgn": "1. e4 e5,Ke3"}))).await;
    assert_eq!(illegal[0]["code"], "bad_move");
    assert_eq!(
        (illegal[0]["turn"].clone(), illegal[0]["submove"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(
        metric(server.addr(), "marseillais_analyses_total").await,
        Some(0.0)
    );
}

#[tokio::test]
async fn a_finished_game_is_analysed_by_id_a_live_one_is_refused_an_unknown_one_is_not_found() {
    let server = Rig::start_with(quick).await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    play_until_white_mates_in_one(&mut white, &mut black).await;

    let path = format!("/api/games/{id}/analysis");
    let (status, _, refused) = analyse(&server, &head("GET", &path, &[])).await;
    assert_eq!(status, 409, "{refused:?}");
    assert_eq!(refused[0]["code"], "game_not_over");

    let (open, _, _) = server.create(json!({})).await;
    let (status, _, refused) = analyse(
        &server,
        &head("GET", &format!("/api/games/{open}/analysis"), &[]),
    )
    .await;
    assert_eq!(
        (status, refused[0]["code"].clone()),
        (409, json!("game_not_over"))
    );

    white.play("d1h5", "w2").await;
    let (status, _, lines) = analyse(&server, &head("GET", &path, &[])).await;
    assert_eq!(status, 200, "{lines:?}");
    assert_one_line_per_position_then_done(&lines, 4);
    assert_eq!(lines[3]["score"], json!({"mate": 1}));
    assert_eq!(lines[4]["end"], "checkmate");

    let (status, _, missing) =
        analyse(&server, &head("GET", "/api/games/nosuchgame/analysis", &[])).await;
    assert_eq!(
        (status, missing[0]["code"].clone()),
        (404, json!("not_found"))
    );
}

#[tokio::test]
async fn an_address_past_its_analysis_rate_is_refused_with_retry_after() {
    let server = Rig::start_with(|config| {
        quick(config);
        config.analysis.rate_per_min = 1.0;
        config.analysis.burst = 2.0;
    })
    .await;
    let request = post_analysis(&json!({"fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1 1"}));
    for _ in 0..2 {
        let (status, _, _) = analyse(&server, &request).await;
        assert_eq!(status, 200);
    }
    let reply = exchange(server.addr(), &request, WAIT)
        .await
        .expect("an answer");
    assert_eq!(reply.status, 429, "{}", reply.body);
    let body: Value = serde_json::from_str(&reply.body).expect("json");
    assert_eq!(body["code"], "rate_limited");
    let wait: u64 = reply
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .expect("a Retry-After");
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(
        metric(server.addr(), "marseillais_analyses_refused_total").await,
        Some(1.0)
    );
}

/// Polls a gauge of `/metrics` until it reads `value` (bounded by [`WAIT`]).
async fn gauge_reaches(server: &Rig, name: &str, value: f64) -> bool {
    let addr = server.addr();
    eventually(
        WAIT,
        || async move { metric(addr, name).await == Some(value) },
    )
    .await
}

#[tokio::test]
async fn an_analysis_past_the_global_cap_is_refused_busy() {
    let server = Rig::start_with(|config| {
        endless(config);
        config.analysis.max_concurrent = 1;
    })
    .await;
    let request = post_analysis(&json!({"pgn": "1. e4 e5,Nf6"}));
    let first = connect_and_send(server.addr(), &request)
        .await
        .expect("sent");
    assert!(gauge_reaches(&server, "marseillais_engine_searches_running", 1.0).await);
    // Another client: the one running has its one analysis already.
    let reply = exchange_from(Some(OTHER), server.addr(), &request, WAIT)
        .await
        .expect("an answer");
    assert_refused_with_retry_after(&reply, 503, "busy");
    drop(first);
    assert!(gauge_reaches(&server, "marseillais_analyses_running", 0.0).await);
}

/// Checks a refusal's status, its `code` and that it has a `Retry-After`.
fn assert_refused_with_retry_after(reply: &support::http::Reply, status: u16, code: &str) {
    assert_eq!(reply.status, status, "{}", reply.body);
    let body: Value = serde_json::from_str(&reply.body).expect("json");
    assert_eq!(body["code"], code);
    assert!(reply.header("retry-after").is_some());
}

/// A second client's address (any of 127.0.0.0/8 is a source on Linux).
const OTHER: std::net::IpAddr = std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));

#[tokio::test]
async fn a_client_runs_one_analysis_at_a_time_and_another_address_is_served() {
    let server = Rig::start_with(endless).await;
    let request = post_analysis(&json!({"pgn": "1. e4 e5,Nf6"}));
    let first = connect_and_send(server.addr(), &request)
        .await
        .expect("sent");
    assert!(gauge_reaches(&server, "marseillais_analyses_running", 1.0).await);
    let reply = exchange(server.addr(), &request, WAIT)
        .await
        .expect("an answer");
    assert_refused_with_retry_after(&reply, 429, "rate_limited");
    // The second slot goes to another address.
    let other = connect_and_send_from(Some(OTHER), server.addr(), &request)
        .await
        .expect("sent");
    assert!(gauge_reaches(&server, "marseillais_analyses_running", 2.0).await);
    // Once its analysis ends (its client went away), the first address may start another.
    drop(first);
    assert!(gauge_reaches(&server, "marseillais_analyses_running", 1.0).await);
    let again = connect_and_send(server.addr(), &request)
        .await
        .expect("sent");
    assert!(gauge_reaches(&server, "marseillais_analyses_running", 2.0).await);
    drop((other, again));
    assert!(gauge_reaches(&server, "marseillais_analyses_running", 0.0).await);
}

#[tokio::test]
async fn a_record_longer_than_an_analysis_covers_is_refused_before_any_search() {
    let server = Rig::start_with(|config| {
        quick(config);
        config.analysis.max_positions = 2;
    })
    .await;
    // Three sub-moves: four positions, where two are the most.
    let (status, _, lines) =
        analyse(&server, &post_analysis(&json!({"pgn": "1. e4 e5,Nf6"}))).await;
    assert_eq!(
        (status, lines[0]["code"].clone()),
        (413, json!("too_large"))
    );
    assert!(
        lines[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("at most 2"),
        "{}",
        lines[0]
    );
    assert_eq!(
        metric(server.addr(), "marseillais_engine_searches_total").await,
        Some(0.0)
    );
    let (status, _, lines) = analyse(&server, &post_analysis(&json!({"pgn": "1. e4"}))).await;
    assert_eq!(status, 200);
    assert_one_line_per_position_then_done(&lines, 1);
}

#[tokio::test]
async fn a_client_that_goes_away_stops_its_search() {
    let server = Rig::start_with(endless).await;
    let stream = connect_and_send(
        server.addr(),
        &post_analysis(&json!({"pgn": "1. e4 e5,Nf6"})),
    )
    .await
    .expect("sent");
    assert!(
        gauge_reaches(&server, "marseillais_engine_searches_running", 1.0).await,
        "the analysis never started searching"
    );
    assert_eq!(
        metric(server.addr(), "marseillais_analyses_running").await,
        Some(1.0)
    );
    // The first search alone would last ten minutes.
    drop(stream);
    assert!(
        gauge_reaches(&server, "marseillais_engine_searches_running", 0.0).await,
        "the search goes on without its client"
    );
    assert!(gauge_reaches(&server, "marseillais_analyses_running", 0.0).await);
    assert_eq!(
        metric(server.addr(), "marseillais_analysis_positions_total").await,
        Some(0.0),
        "no position was finished: the search was stopped, not completed"
    );
}

/// The `analysis-lines` example of docs/protocol.md: its lines, parsed.
fn documented_lines() -> Vec<Value> {
    const DOC: &str = include_str!("../../docs/protocol.md");
    let after = DOC
        .split_once("<!-- example: analysis-lines -->")
        .expect("the analysis-lines example")
        .1;
    let block = after
        .split_once("```text\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("a ```text block")
        .0;
    lines(block)
}

#[tokio::test]
async fn the_documented_lines_are_what_the_server_sends() {
    let server = Rig::start_with(quick).await;
    let (status, _, real) = analyse(
        &server,
        &post_analysis(&json!({"pgn": "1. e4 f6,g5 2. Qh5# 1-0"})),
    )
    .await;
    assert_eq!(status, 200);
    for documented in documented_lines() {
        let actual = match documented["ply"].as_u64() {
            Some(ply) => &real[ply as usize],
            None => real.last().expect("a done line"),
        };
        let keys = |v: &Value| -> Vec<String> {
            v.as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default()
        };
        assert_eq!(keys(&documented), keys(actual), "{documented}\n{actual}");
        // What the engine's speed does not change; the mate lines are exact.
        let fixed: &[&str] =
            if documented.get("end").is_some() || documented["score"].get("mate").is_some() {
                &[
                    "ply", "fen", "side", "phase", "end", "score", "white", "best", "best_san",
                ]
            } else {
                &[
                    "ply",
                    "fen",
                    "side",
                    "phase",
                    "done",
                    "positions",
                    "searched",
                ]
            };
        for key in fixed {
            assert_eq!(documented.get(*key), actual.get(*key), "{key}: {actual}");
        }
    }
}

#[tokio::test]
async fn a_shutdown_ends_a_running_analysis_with_an_error_line() {
    let mut server = Rig::start_with(endless).await;
    let mut stream = connect_and_send(
        server.addr(),
        &post_analysis(&json!({"pgn": "1. e4 e5,Nf6"})),
    )
    .await
    .expect("sent");
    assert!(gauge_reaches(&server, "marseillais_engine_searches_running", 1.0).await);
    server.pause().await;
    let raw = support::http::read_until_closed(&mut stream, WAIT)
        .await
        .expect("the server closes the stream");
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let last = text
        .lines()
        .rev()
        .find(|line| line.starts_with('{'))
        .expect("a JSON line");
    let last: Value = serde_json::from_str(last).expect("json");
    assert_eq!(last["error"]["code"], "shutting_down", "{text}");
    assert_eq!(last["error"]["ply"], 0);
}
