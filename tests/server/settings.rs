//! Personal settings in the account on the real server (issue 14, docs/protocol.md "Accounts"):
//! `GET` / `PUT /api/account/settings` need a session, round-trip a typed object, refuse a bad
//! value or an unknown setting with a 400 that names it, refuse an oversized body, pass the
//! Origin check like every cookie-carrying change, and never acknowledge a save the store lost.

use crate::support;

use std::sync::Arc;

use marseillais::server::store::{FailingStore, MemoryStore, Store};
use serde_json::{Value, json};
use support::account::{Browser, body_json, code};
use support::rig::Rig;

const PATH: &str = "/api/account/settings";

async fn server() -> Rig {
    Rig::start_with(|c| {
        c.accounts.register_per_hour = 0.0;
        c.accounts.login_per_min = 0.0;
        c.accounts.login_per_min_per_username = 0.0;
    })
    .await
}

fn chosen() -> Value {
    json!({
        "confirmMoves": "on", "premoves": false, "sound": false, "volume": 35,
        "theme": "green", "legalDots": false, "coordinates": false, "language": "fr",
        "chat": false,
    })
}

#[tokio::test]
async fn signed_out_both_settings_routes_are_401_not_logged_in() {
    let server = server().await;
    let mut stranger = Browser::new(server.addr());
    let get = stranger.send("GET", PATH, None).await;
    assert_eq!(get.status, 401, "{}", get.body);
    assert_eq!(code(&get), "not_logged_in");
    let put = stranger.send("PUT", PATH, Some(&chosen())).await;
    assert_eq!(put.status, 401, "{}", put.body);
    assert_eq!(code(&put), "not_logged_in");
}

#[tokio::test]
async fn settings_saved_by_one_session_are_read_by_another_session_of_the_account() {
    let server = server().await;
    let mut first = Browser::new(server.addr());
    assert_eq!(first.register("alice", "correct horse").await.status, 201);
    let never = first.send("GET", PATH, None).await;
    assert_eq!(never.status, 200, "{}", never.body);
    assert_eq!(
        body_json(&never),
        json!({"settings": null}),
        "nothing saved yet"
    );

    let put = first.send("PUT", PATH, Some(&chosen())).await;
    assert_eq!(put.status, 200, "{}", put.body);
    assert_eq!(body_json(&put), json!({"settings": chosen()}));

    let mut second = Browser::new(server.addr());
    assert_eq!(second.login("alice", "correct horse").await.status, 200);
    let got = second.send("GET", PATH, None).await;
    assert_eq!(got.status, 200, "{}", got.body);
    assert_eq!(body_json(&got), json!({"settings": chosen()}));

    // Another account has its own (none).
    let mut bob = Browser::new(server.addr());
    assert_eq!(bob.register("bob", "correct horse").await.status, 201);
    assert_eq!(
        body_json(&bob.send("GET", PATH, None).await),
        json!({"settings": null})
    );

    // A PUT replaces the whole object: a setting left out takes its default.
    let put = second
        .send("PUT", PATH, Some(&json!({"theme": "blue"})))
        .await;
    assert_eq!(put.status, 200, "{}", put.body);
    let got = body_json(&first.send("GET", PATH, None).await);
    assert_eq!(
        got,
        json!({"settings": {
            "confirmMoves": "correspondence", "premoves": true, "sound": true, "volume": 70,
            "theme": "blue", "legalDots": true, "coordinates": true, "language": "auto",
            "chat": true,
        }})
    );
}

#[tokio::test]
async fn a_bad_value_is_400_bad_setting_naming_the_setting_and_changes_nothing() {
    let server = server().await;
    let mut alice = Browser::new(server.addr());
    assert_eq!(alice.register("alice", "correct horse").await.status, 201);
    assert_eq!(alice.send("PUT", PATH, Some(&chosen())).await.status, 200);
    let cases = [
        ("theme", json!("pink")),
        ("volume", json!(101)),
        ("volume", json!(-1)),
        ("volume", json!(50.5)),
        ("confirmMoves", json!(true)),
        ("language", json!("de")),
        ("sound", json!("yes")),
        ("legalDots", json!(null)),
        ("coordinates", json!(1)),
        ("premoves", json!("false")),
        ("chat", json!("off")),
    ];
    for (field, value) in cases {
        let mut body = chosen();
        body[field] = value.clone();
        let reply = alice.send("PUT", PATH, Some(&body)).await;
        assert_eq!(reply.status, 400, "{field}={value}: {}", reply.body);
        assert_eq!(code(&reply), "bad_setting", "{field}={value}");
        let message = body_json(&reply)["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            message.starts_with(&format!("setting `{field}`:")),
            "{field}={value}: {message}"
        );
    }
    assert_eq!(
        body_json(&alice.send("GET", PATH, None).await),
        json!({"settings": chosen()}),
        "no refused PUT changed anything"
    );
}

#[tokio::test]
async fn an_unknown_setting_or_a_body_that_is_not_an_object_is_400_bad_setting() {
    let server = server().await;
    let mut alice = Browser::new(server.addr());
    assert_eq!(alice.register("alice", "correct horse").await.status, 201);
    let mut body = chosen();
    body["boardColour"] = json!("green");
    let reply = alice.send("PUT", PATH, Some(&body)).await;
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(code(&reply), "bad_setting");
    assert_eq!(
        body_json(&reply)["message"],
        json!("unknown setting `boardColour`")
    );
    for raw in ["[1, 2]", "\"theme\"", "{\"theme\": ", "null"] {
        let reply = alice.send_raw("PUT", PATH, Some(raw), &[]).await;
        assert_eq!(reply.status, 400, "{raw}: {}", reply.body);
        assert_eq!(code(&reply), "bad_setting", "{raw}");
    }
}

#[tokio::test]
async fn a_setting_given_twice_is_400_bad_setting_whatever_its_values_and_nothing_is_saved() {
    let server = server().await;
    let mut alice = Browser::new(server.addr());
    assert_eq!(alice.register("alice", "correct horse").await.status, 201);
    for raw in [r#"{"volume":200,"volume":5}"#, r#"{"volume":5,"volume":5}"#] {
        let reply = alice.send_raw("PUT", PATH, Some(raw), &[]).await;
        assert_eq!(reply.status, 400, "{raw}: {}", reply.body);
        assert_eq!(code(&reply), "bad_setting", "{raw}");
        let message = body_json(&reply)["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            message.starts_with("each setting at most once: duplicate field `volume`"),
            "{raw}: {message}"
        );
    }
    assert_eq!(
        body_json(&alice.send("GET", PATH, None).await),
        json!({"settings": null})
    );
}

#[tokio::test]
async fn an_oversized_settings_body_is_413_too_large_and_nothing_is_saved() {
    let server = server().await;
    let mut alice = Browser::new(server.addr());
    assert_eq!(alice.register("alice", "correct horse").await.status, 201);
    let padding = " ".repeat(5 * 1024);
    let big = format!("{{\"theme\": \"blue\"{padding}}}");
    let reply = alice.send_raw("PUT", PATH, Some(&big), &[]).await;
    assert_eq!(reply.status, 413, "{}", reply.body);
    assert_eq!(code(&reply), "too_large");
    assert_eq!(
        body_json(&alice.send("GET", PATH, None).await),
        json!({"settings": null})
    );
}

#[tokio::test]
async fn a_settings_put_with_the_cookie_from_another_origin_is_403_bad_origin() {
    let server = server().await;
    let mut alice = Browser::new(server.addr());
    assert_eq!(alice.register("alice", "correct horse").await.status, 201);
    let session = alice.session.clone();
    for origin in [Some("http://evil.example"), None] {
        let mut attacker = Browser::new(server.addr()).with_origin(origin);
        attacker.session = session.clone();
        let reply = attacker.send("PUT", PATH, Some(&chosen())).await;
        assert_eq!(reply.status, 403, "{origin:?}: {}", reply.body);
        assert_eq!(code(&reply), "bad_origin");
    }
    assert_eq!(
        body_json(&alice.send("GET", PATH, None).await),
        json!({"settings": null})
    );
}

#[tokio::test]
async fn a_settings_save_the_store_fails_is_503_and_the_old_settings_stay() {
    let failing = FailingStore::new(Arc::new(MemoryStore::new()));
    let store: Arc<dyn Store> = Arc::new(failing.clone());
    let server = Rig::builder()
        .config(|c| {
            c.accounts.register_per_hour = 0.0;
            c.accounts.login_per_min = 0.0;
            c.accounts.login_per_min_per_username = 0.0;
        })
        .store(store)
        .start()
        .await;
    let mut alice = Browser::new(server.addr());
    assert_eq!(alice.register("alice", "correct horse").await.status, 201);
    assert_eq!(alice.send("PUT", PATH, Some(&chosen())).await.status, 200);
    failing.set_failing(true);
    let reply = alice
        .send("PUT", PATH, Some(&json!({"theme": "grey"})))
        .await;
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert_eq!(code(&reply), "store_failure");
    failing.set_failing(false);
    assert_eq!(
        body_json(&alice.send("GET", PATH, None).await),
        json!({"settings": chosen()})
    );
}
