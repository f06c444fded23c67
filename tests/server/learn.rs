//! "Learn Marseillais" on a real server (issue 31): the lessons listed, a step played right and
//! wrong with its reason, the progress of an account kept across requests, devices, a restart
//! and on PostgreSQL, an anonymous player's progress never stored, and every bad request a
//! typed refusal. Also: every word the lessons need is in the three catalogues.

use crate::support;

use std::sync::Arc;

use marseillais::server::learn::lesson::LessonId;
use marseillais::server::learn::lessons::LESSONS;
use marseillais::server::learn::reason::Reason;
use marseillais::server::store::{PostgresStore, Store};
use serde_json::{Value, json};
use support::http::json as http_json;
use support::postgres::{TestDatabase, server_url};
use support::rig::Rig;
use support::session::Session;

const STEP1: &str = "/api/learn/moving-twice/1/moves";

async fn anonymous(rig: &Rig, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    http_json(rig.addr(), method, path, body).await
}

fn moves(list: &[&str]) -> Value {
    json!({ "moves": list })
}

/// The steps an account finished in `lesson`, from the list.
fn done(list: &Value, lesson: &str) -> Value {
    list["lessons"]
        .as_array()
        .expect("lessons")
        .iter()
        .find(|l| l["id"] == json!(lesson))
        .map(|l| l["done"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn the_list_has_every_lesson_with_its_steps_rules_first() {
    let rig = Rig::start().await;
    let (status, list) = anonymous(&rig, "GET", "/api/learn", None).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["signed_in"], json!(false));
    let lessons = list["lessons"].as_array().expect("lessons");
    assert_eq!(lessons.len(), LessonId::ALL.len());
    assert_eq!(lessons[0]["id"], json!("moving-twice"));
    assert_eq!(lessons[0]["kind"], json!("rules"));
    assert_eq!(lessons[0]["steps"], json!(2));
    assert_eq!(lessons[0]["done"], json!([]));
    let kinds: Vec<&str> = lessons.iter().filter_map(|l| l["kind"].as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "strategy").count(), 3);
    assert!(kinds.is_sorted_by_key(|k| *k == "strategy"), "{kinds:?}");
    let (status, page) = rig.http("GET", "/learn", None).await;
    assert_eq!(status, 200);
    assert!(page.contains("<main"), "the client's shell");
    let (status, _) = rig.http("GET", "/learn/moving-twice", None).await;
    assert_eq!(status, 200);
    rig.stop().await;
}

#[tokio::test]
async fn a_lesson_gives_each_step_s_position_goal_and_legal_sub_moves() {
    let rig = Rig::start().await;
    let (status, lesson) = anonymous(&rig, "GET", "/api/learn/en-passant", None).await;
    assert_eq!(status, 200, "{lesson}");
    assert_eq!(lesson["next"], json!("king-through-check"));
    let first = &lesson["steps"][0];
    assert_eq!(first["number"], json!(1));
    assert_eq!(
        first["fen"],
        json!("4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6")
    );
    assert_eq!(first["side"], json!("white"));
    assert_eq!(first["goal"], json!("en_passant_twice"));
    let legal = first["moves"].as_array().expect("moves");
    assert!(legal.contains(&json!("e5d6")) && legal.contains(&json!("g5f6")));
    assert_eq!(
        first["last_turn"],
        json!(["d7d5", "f7f5"]),
        "the double steps shaded"
    );
    assert_eq!(lesson["steps"][1]["side"], json!("black"));
    let (_, last) = anonymous(&rig, "GET", "/api/learn/won-ending", None).await;
    assert_eq!(last["next"], Value::Null);
    rig.stop().await;
}

#[tokio::test]
async fn a_step_played_right_wrong_or_half_way_gets_its_verdict_and_reason() {
    let rig = Rig::start().await;
    let (status, half) = anonymous(&rig, "POST", STEP1, Some(&moves(&["a1a5"]))).await;
    assert_eq!(status, 200, "{half}");
    assert_eq!(half["verdict"], json!("continue"));
    assert!(
        half["moves"]
            .as_array()
            .expect("moves")
            .contains(&json!("a5e5"))
    );
    let (_, right) = anonymous(&rig, "POST", STEP1, Some(&moves(&["a1a5", "a5e5"]))).await;
    assert_eq!(right["verdict"], json!("right"), "{right}");
    assert_eq!(right["reason"], json!("two_captures"));
    assert_eq!(
        right["recorded"],
        json!(false),
        "an anonymous player's progress is not stored"
    );
    let (_, wrong) = anonymous(&rig, "POST", STEP1, Some(&moves(&["e1e2", "a1a5"]))).await;
    assert_eq!(wrong["verdict"], json!("wrong"), "{wrong}");
    assert_eq!(wrong["reason"], json!("missed_capture"));
    assert_eq!(wrong["start"], json!("7k/8/8/n3b3/8/8/8/R3K3 w - - 0 5"));
    // A check on the first sub-move ends the turn: wrong at once, with that reason.
    let (_, early) = anonymous(
        &rig,
        "POST",
        "/api/learn/check-ends-turn/2/moves",
        Some(&moves(&["d1e2"])),
    )
    .await;
    assert_eq!(early["verdict"], json!("wrong"), "{early}");
    assert_eq!(early["reason"], json!("check_ended_turn"));
    rig.stop().await;
}

/// Plays `lesson`'s step right as `who` and checks it is recorded.
async fn finish_step(addr: std::net::SocketAddr, who: &Session, path: &str, body: Value) {
    let (status, right) = who.call(addr, "POST", path, Some(&body)).await;
    assert_eq!(status, 200, "{right}");
    assert_eq!(right["verdict"], json!("right"), "{right}");
    assert_eq!(right["recorded"], json!(true));
}

#[tokio::test]
async fn an_account_s_progress_is_kept_across_requests_devices_and_a_restart() {
    let mut rig = Rig::start().await;
    let addr = rig.addr();
    let ada = Session::register(addr, "ada").await;
    let (_, wrong) = ada
        .call(addr, "POST", STEP1, Some(&moves(&["e1e2", "a1a5"])))
        .await;
    assert_eq!(wrong["verdict"], json!("wrong"));
    let (_, list) = ada.call(addr, "GET", "/api/learn", None).await;
    assert_eq!(list["signed_in"], json!(true));
    assert_eq!(
        done(&list, "moving-twice"),
        json!([]),
        "a wrong try records nothing"
    );
    finish_step(addr, &ada, STEP1, moves(&["a1a5", "a5e5"])).await;
    // Twice right is still one step.
    finish_step(addr, &ada, STEP1, moves(&["a1a5", "a5e5"])).await;
    finish_step(
        addr,
        &ada,
        "/api/learn/first-turn/2/moves",
        moves(&["b8c6", "g8f6"]),
    )
    .await;
    let other_device = Session::login(addr, "ada").await;
    let (_, list) = other_device.call(addr, "GET", "/api/learn", None).await;
    assert_eq!(done(&list, "moving-twice"), json!([1]));
    assert_eq!(done(&list, "first-turn"), json!([2]));
    let (_, lesson) = other_device
        .call(addr, "GET", "/api/learn/moving-twice", None)
        .await;
    assert_eq!(lesson["done"], json!([1]));
    let (_, anon) = anonymous(&rig, "GET", "/api/learn", None).await;
    assert_eq!(done(&anon, "moving-twice"), json!([]), "not someone else's");
    rig.restart().await;
    let addr = rig.addr();
    let (_, list) = ada.call(addr, "GET", "/api/learn", None).await;
    assert_eq!(done(&list, "moving-twice"), json!([1]), "in the store");
    rig.stop().await;
}

#[tokio::test]
async fn an_account_s_progress_is_kept_on_postgres() {
    let Some(server) = server_url("learn_progress_on_postgres") else {
        return;
    };
    let db = TestDatabase::create(&server, "learn_progress").await;
    let store: Arc<dyn Store> = Arc::new(PostgresStore::open(&db.url).await.expect("open"));
    let rig = Rig::builder().store(store).start().await;
    let addr = rig.addr();
    let bea = Session::register(addr, "bea").await;
    finish_step(addr, &bea, STEP1, moves(&["a1a5", "a5e5"])).await;
    finish_step(
        addr,
        &bea,
        "/api/learn/double-attack/1/moves",
        moves(&["b3b7", "b7f7"]),
    )
    .await;
    let (_, list) = bea.call(addr, "GET", "/api/learn", None).await;
    assert_eq!(done(&list, "moving-twice"), json!([1]));
    assert_eq!(done(&list, "double-attack"), json!([1]));
    rig.stop().await;
}

#[tokio::test]
async fn bad_requests_are_typed_refusals() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    for (path, code) in [
        ("/api/learn/nothing", 404),
        ("/api/learn/MOVING-TWICE", 404),
    ] {
        let (status, reply) = anonymous(&rig, "GET", path, None).await;
        assert_eq!(status, code, "{path}: {reply}");
        assert_eq!(reply["code"], json!("not_found"));
    }
    for path in [
        "/api/learn/nothing/1/moves",
        "/api/learn/moving-twice/0/moves",
        "/api/learn/moving-twice/3/moves",
        "/api/learn/moving-twice/x/moves",
        "/api/learn/moving-twice/99999999999/moves",
    ] {
        let (status, reply) = anonymous(&rig, "POST", path, Some(&moves(&["a1a5"]))).await;
        assert_eq!(status, 404, "{path}: {reply}");
        assert_eq!(reply["code"], json!("not_found"), "{path}");
    }
    for body in [
        "{",
        "{}",
        r#"{"moves": "a1a5"}"#,
        r#"{"moves": ["a1a9"]}"#,
        r#"{"moves": ["a1a5"], "extra": 1}"#,
        r#"{"moves": ["a1a2","a2a1","a1a2","a2a1","a1a2"]}"#,
    ] {
        let (status, reply) = support::http::http(addr, "POST", STEP1, Some(body)).await;
        assert_eq!(status, 400, "{body}: {reply}");
        let reply: Value = serde_json::from_str(&reply).unwrap_or_default();
        assert_eq!(reply["code"], json!("bad_request"), "{body}: {reply}");
    }
    for list in [
        &["a1a8"][..],
        &["e1d1", "h8g8"],
        &["a1a5", "a5e5", "h8g8"],
        &["h8g8"],
    ] {
        let (status, reply) = anonymous(&rig, "POST", STEP1, Some(&moves(list))).await;
        assert_eq!(status, 400, "{list:?}: {reply}");
        assert_eq!(reply["code"], json!("illegal_move"), "{list:?}");
    }
    let huge = format!(r#"{{"moves": ["{}"]}}"#, "a".repeat(4096));
    let (status, _) = support::http::http(addr, "POST", STEP1, Some(&huge)).await;
    assert_eq!(status, 413);
    rig.stop().await;
}

#[tokio::test]
async fn a_step_posted_with_the_session_cookie_from_another_site_is_refused() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    let cy = Session::register(addr, "cy").await;
    let body = br#"{"moves": ["a1a5", "a5e5"]}"#;
    let mut bytes = support::http::head(
        "POST",
        STEP1,
        &[
            &format!("Cookie: {}", cy.cookie),
            "Origin: http://evil.example",
            "Content-Type: application/json",
            &format!("Content-Length: {}", body.len()),
        ],
    );
    bytes.extend_from_slice(body);
    let reply = support::http::exchange(addr, &bytes, std::time::Duration::from_secs(10))
        .await
        .expect("an answer");
    assert_eq!(reply.status, 403);
    let (_, list) = cy.call(addr, "GET", "/api/learn", None).await;
    assert_eq!(
        done(&list, "moving-twice"),
        json!([]),
        "nothing was recorded"
    );
    rig.stop().await;
}

#[test]
fn every_word_the_lessons_need_is_in_the_three_catalogues() {
    let mut keys = vec!["learn.title".to_owned(), "learn.invite_link".to_owned()];
    for lesson in &LESSONS {
        let id = lesson.id.as_str();
        keys.push(format!("learn.lesson.{id}.title"));
        keys.push(format!("learn.lesson.{id}.intro"));
        for n in 1..=lesson.steps.len() {
            keys.push(format!("learn.step.{id}.{n}"));
        }
    }
    for reason in Reason::ALL {
        keys.push(format!("learn.reason.{}", reason.key()));
    }
    for lang in ["en", "fr", "es"] {
        let path = format!("{}/client/i18n/{lang}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("catalogue");
        let catalogue: Value = serde_json::from_str(&text).expect("json");
        let missing: Vec<&String> = keys
            .iter()
            .filter(|key| catalogue[key.as_str()].as_str().is_none_or(str::is_empty))
            .collect();
        assert!(missing.is_empty(), "{lang} lacks {missing:?}");
    }
}
