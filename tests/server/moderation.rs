//! Moderation against the real server (issue 32, docs/protocol.md "Moderation"): reports and
//! their limits, who reaches the moderators' routes (every one, logged out and as a player),
//! each action with its log row and the reports it settles, and what the reporter and the
//! reported user see. The actions' effects on chat, ratings and the leaderboard are in
//! moderation_effects.rs.

use crate::support;

use std::sync::Arc;

use marseillais::server::players::account::Username;
use marseillais::server::safety::moderation::routes::MOD_ROUTES;
use marseillais::server::store::{MemoryStore, ModAction, ModActionKind, Store};
use serde_json::{Value, json};
use support::account::Browser;
use support::rig::Rig;
use support::session::Session;

/// A rig on a memory store the test keeps (to grant the role as the console would).
pub async fn rig_on(store: &MemoryStore) -> Rig {
    Rig::builder()
        .store(Arc::new(store.clone()) as Arc<dyn Store>)
        .start()
        .await
}

/// Makes `name` a moderator, as `marseillais admin grant-mod` does.
pub async fn grant(store: &dyn Store, name: &str) {
    let user = store
        .find_user(&Username::parse(name).expect("a name"))
        .await
        .expect("read")
        .expect("the user exists");
    store
        .moderate(ModAction {
            moderator: "console".into(),
            target: user.account.id,
            kind: ModActionKind::GrantMod,
            reason: "test".into(),
            at_ms: 1,
        })
        .await
        .expect("granted");
}

pub async fn report(rig: &Rig, by: &Session, about: &str, reason: &str) -> (u16, Value) {
    by.call(
        rig.addr(),
        "POST",
        "/api/reports",
        Some(&json!({"username": about, "reason": reason, "text": "see the game"})),
    )
    .await
}

fn path_of(route: &str) -> String {
    route.replace("{id}", "1").replace("{name}", "bob")
}

#[tokio::test]
async fn every_moderator_route_answers_401_logged_out_and_403_not_moderator_to_a_player() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let player = Session::register(rig.addr(), "alice").await;
    Session::register(rig.addr(), "bob").await;
    let body = json!({"reason": "r", "duration": "15m", "mark": "engine"});
    for (method, route) in MOD_ROUTES {
        let path = path_of(route);
        let mut anonymous = Browser::new(rig.addr());
        let reply = anonymous.send(method, &path, Some(&body)).await;
        assert_eq!(reply.status, 401, "{method} {path}: {}", reply.body);
        assert!(reply.body.contains("\"not_logged_in\""), "{}", reply.body);
        let (status, answer) = player.call(rig.addr(), method, &path, Some(&body)).await;
        assert_eq!(status, 403, "{method} {path}: {answer}");
        assert_eq!(answer["code"], "not_moderator", "{method} {path}");
    }
    // Nothing was done by any of those calls.
    assert_eq!(store.mod_log(10).await.expect("read").len(), 0);
    rig.stop().await;
}

#[tokio::test]
async fn a_moderator_action_and_a_report_from_another_site_are_refused() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let moderator = Session::register(rig.addr(), "mod").await;
    Session::register(rig.addr(), "bob").await;
    grant(&store, "mod").await;
    for (path, body) in [
        (
            "/api/mod/users/bob/chat-ban",
            json!({"duration": "15m", "reason": "x"}),
        ),
        (
            "/api/reports",
            json!({"username": "bob", "reason": "other"}),
        ),
    ] {
        let mut evil = Browser::new(rig.addr()).with_origin(Some("http://evil.example"));
        evil.session = Some(
            moderator
                .cookie
                .split_once('=')
                .map(|(_, v)| v.to_owned())
                .expect("cookie"),
        );
        let reply = evil.send("POST", path, Some(&body)).await;
        assert_eq!(reply.status, 403, "{path}: {}", reply.body);
    }
    assert_eq!(store.mod_log(10).await.expect("read").len(), 1, "the grant");
    assert_eq!(store.open_reports(10).await.expect("read").len(), 0);
    rig.stop().await;
}

#[tokio::test]
async fn a_report_needs_a_session_a_known_user_a_reason_and_never_names_yourself() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let alice = Session::register(rig.addr(), "alice").await;
    Session::register(rig.addr(), "bob").await;
    let (status, body) = rig
        .http(
            "POST",
            "/api/reports",
            Some(&json!({"username": "bob", "reason": "cheating"}).to_string()),
        )
        .await;
    assert_eq!(status, 401, "{body}");
    let (status, body) = report(&rig, &alice, "alice", "cheating").await;
    assert_eq!(
        (status, body["code"].clone()),
        (400, json!("cannot_report_yourself"))
    );
    let (status, body) = report(&rig, &alice, "nobody", "cheating").await;
    assert_eq!((status, body["code"].clone()), (404, json!("not_found")));
    let (status, body) = report(&rig, &alice, "bob", "rude").await;
    assert_eq!((status, body["code"].clone()), (400, json!("bad_request")));
    let long = json!({"username": "bob", "reason": "other", "text": "x".repeat(501)});
    let (status, _) = alice
        .call(rig.addr(), "POST", "/api/reports", Some(&long))
        .await;
    assert_eq!(status, 400);
    let with_game =
        json!({"username": "bob", "reason": "abusive_chat", "text": "insults", "game": "abc123"});
    let (status, body) = alice
        .call(rig.addr(), "POST", "/api/reports", Some(&with_game))
        .await;
    assert_eq!(status, 201, "{body}");
    let open = store.open_reports(10).await.expect("read");
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].reporter_name, "alice");
    assert_eq!(open[0].reported_name, "bob");
    assert_eq!(open[0].game_id.as_deref(), Some("abc123"));
    assert_eq!(open[0].text, "insults");
    rig.stop().await;
}

#[tokio::test]
async fn a_fourth_open_report_in_a_day_is_refused_and_so_is_a_seventh_from_one_address() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    Session::register(rig.addr(), "bob").await;
    let alice = Session::register(rig.addr(), "alice").await;
    let erin = Session::register(rig.addr(), "erin").await;
    let frank = Session::register(rig.addr(), "frank").await;
    for reason in ["cheating", "sandbagging", "other"] {
        let (status, body) = report(&rig, &alice, "bob", reason).await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, body) = report(&rig, &alice, "bob", "other").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["code"], "too_many_reports");
    // Another account on the same address: three more, then the address is out of reports.
    for _ in 0..3 {
        let (status, body) = report(&rig, &erin, "bob", "cheating").await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, body) = report(&rig, &frank, "bob", "cheating").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["code"], "too_many_reports");
    assert_eq!(store.open_reports(100).await.expect("read").len(), 6);
    rig.stop().await;
}

#[tokio::test]
async fn the_reporter_sees_their_report_open_then_handled_and_the_reported_user_sees_none() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let moderator = Session::register(rig.addr(), "mod").await;
    grant(&store, "mod").await;
    let (status, _) = report(&rig, &alice, "bob", "abusive_chat").await;
    assert_eq!(status, 201);
    let (_, mine) = alice
        .call(rig.addr(), "GET", "/api/reports/mine", None)
        .await;
    assert_eq!(mine["reports"][0]["username"], "bob");
    assert_eq!(mine["reports"][0]["status"], "open");
    assert_eq!(mine["reports"][0]["reason"], "abusive_chat");
    let (_, theirs) = bob.call(rig.addr(), "GET", "/api/reports/mine", None).await;
    assert_eq!(theirs["reports"], json!([]));
    let (_, profile) = bob.call(rig.addr(), "GET", "/api/users/bob", None).await;
    assert!(!profile.to_string().contains("abusive"), "{profile}");

    let (status, body) = moderator
        .call(
            rig.addr(),
            "POST",
            "/api/mod/users/bob/chat-ban",
            Some(&json!({"duration": "24h", "reason": "insults"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reports_handled"], 1);
    let (_, mine) = alice
        .call(rig.addr(), "GET", "/api/reports/mine", None)
        .await;
    assert_eq!(mine["reports"][0]["status"], "handled");
    assert!(mine["reports"][0].get("handled_by").is_none(), "{mine}");
    rig.stop().await;
}

#[tokio::test]
async fn a_moderator_lists_open_reports_newest_first_with_the_reported_users_games_and_chat() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    Session::register(rig.addr(), "carol").await;
    let moderator = Session::register(rig.addr(), "mod").await;
    grant(&store, "mod").await;
    // Bob plays a game and says something in it.
    let (id, _, _) = bob.against_anonymous(&rig).await;
    let mut white = bob.connect(rig.addr(), &id, "").await;
    white
        .send(json!({"t": "chat", "d": {"room": "player", "text": "you are bad"}}))
        .await;
    white.skip_to("chat").await;
    white.close().await;
    report(&rig, &alice, "bob", "abusive_chat").await;
    report(&rig, &alice, "carol", "sandbagging").await;

    let (status, listed) = moderator
        .call(rig.addr(), "GET", "/api/mod/reports", None)
        .await;
    assert_eq!(status, 200, "{listed}");
    let reports = listed["reports"].as_array().cloned().unwrap_or_default();
    let names: Vec<&Value> = reports.iter().map(|r| &r["reported"]).collect();
    assert_eq!(names, [&json!("carol"), &json!("bob")], "newest first");
    let bob_report = &reports[1];
    assert_eq!(bob_report["reporter"], "alice");
    assert_eq!(bob_report["reason"], "abusive_chat");
    assert_eq!(bob_report["context"]["games"][0]["id"], json!(id));
    assert_eq!(bob_report["context"]["chat"][0]["text"], "you are bad");
    assert_eq!(reports[0]["context"]["games"], json!([]));
    rig.stop().await;
}

#[tokio::test]
async fn dismissing_a_report_settles_it_once_and_is_logged_with_who_and_why() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let alice = Session::register(rig.addr(), "alice").await;
    Session::register(rig.addr(), "bob").await;
    let moderator = Session::register(rig.addr(), "mod").await;
    grant(&store, "mod").await;
    let (_, filed) = report(&rig, &alice, "bob", "cheating").await;
    let id = filed["id"].as_i64().expect("an id");
    let dismiss = format!("/api/mod/reports/{id}/dismiss");
    let why = json!({"reason": "the games look clean"});
    let (status, body) = moderator
        .call(rig.addr(), "POST", &dismiss, Some(&why))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = moderator
        .call(rig.addr(), "POST", &dismiss, Some(&why))
        .await;
    assert_eq!(
        (status, body["code"].clone()),
        (409, json!("report_not_open"))
    );
    let (status, _) = moderator
        .call(
            rig.addr(),
            "POST",
            "/api/mod/reports/999/dismiss",
            Some(&why),
        )
        .await;
    assert_eq!(status, 404);
    let (status, body) = moderator
        .call(rig.addr(), "POST", &dismiss, Some(&json!({"reason": " "})))
        .await;
    assert_eq!(status, 400, "a moderator says why: {body}");

    let (_, listed) = moderator
        .call(rig.addr(), "GET", "/api/mod/reports", None)
        .await;
    assert_eq!(listed["reports"], json!([]));
    let (_, log) = moderator
        .call(rig.addr(), "GET", "/api/mod/log", None)
        .await;
    let top = &log["log"][0];
    assert_eq!(top["moderator"], "mod");
    assert_eq!(top["action"], "dismiss");
    assert_eq!(top["username"], "bob");
    assert_eq!(top["reason"], "the games look clean");
    assert_eq!(top["details"], format!("report {id}"));
    assert!(top["at_ms"].as_i64() > Some(1));
    rig.stop().await;
}

#[tokio::test]
async fn every_action_is_in_the_log_newest_first_and_the_users_state_follows_it() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let alice = Session::register(rig.addr(), "alice").await;
    Session::register(rig.addr(), "bob").await;
    let moderator = Session::register(rig.addr(), "mod").await;
    grant(&store, "mod").await;
    report(&rig, &alice, "bob", "cheating").await;
    let steps = [
        (
            "chat-ban",
            json!({"duration": "permanent", "reason": "spam"}),
            "chat_ban",
            "permanent",
        ),
        (
            "lift-chat-ban",
            json!({"reason": "appeal"}),
            "lift_chat_ban",
            "",
        ),
        (
            "mark",
            json!({"mark": "engine", "reason": "engine moves"}),
            "mark",
            "engine",
        ),
        ("unmark", json!({"reason": "mistake"}), "unmark", ""),
        (
            "mark",
            json!({"mark": "booster", "reason": "boosting"}),
            "mark",
            "booster",
        ),
    ];
    for (route, body, _, _) in &steps {
        let (status, answer) = moderator
            .call(
                rig.addr(),
                "POST",
                &format!("/api/mod/users/bob/{route}"),
                Some(body),
            )
            .await;
        assert_eq!(status, 200, "{route}: {answer}");
    }
    let (_, state) = moderator
        .call(rig.addr(), "GET", "/api/mod/users/bob", None)
        .await;
    assert_eq!(state["mark"], "booster");
    assert!(state.get("chat_ban").is_none(), "{state}");
    assert_eq!(state["moderator"], false);

    let (status, bad) = moderator
        .call(
            rig.addr(),
            "POST",
            "/api/mod/users/bob/mark",
            Some(&json!({"mark": "troll", "reason": "x"})),
        )
        .await;
    assert_eq!((status, bad["code"].clone()), (400, json!("bad_request")));
    let (status, _) = moderator
        .call(
            rig.addr(),
            "POST",
            "/api/mod/users/bob/chat-ban",
            Some(&json!({"duration": "1y", "reason": "x"})),
        )
        .await;
    assert_eq!(status, 400);
    let (status, _) = moderator
        .call(
            rig.addr(),
            "POST",
            "/api/mod/users/nobody/chat-ban",
            Some(&json!({"duration": "15m", "reason": "x"})),
        )
        .await;
    assert_eq!(status, 404);

    let (_, log) = moderator
        .call(rig.addr(), "GET", "/api/mod/log", None)
        .await;
    let rows = log["log"].as_array().cloned().unwrap_or_default();
    let actions: Vec<(String, String)> = rows
        .iter()
        .take(steps.len())
        .map(|r| {
            (
                support::s(&r["action"]),
                r["details"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = steps
        .iter()
        .rev()
        .map(|(_, _, action, details)| ((*action).to_owned(), (*details).to_owned()))
        .collect();
    assert_eq!(actions, expected);
    assert!(
        rows.iter()
            .take(5)
            .all(|r| r["moderator"] == "mod" && r["username"] == "bob")
    );
    assert_eq!(
        rows.last().map(|r| r["moderator"].clone()),
        Some(json!("console"))
    );
    // The report was settled by the first sanction.
    assert_eq!(store.open_reports(10).await.expect("read"), []);
    rig.stop().await;
}

#[tokio::test]
async fn closing_an_account_ends_its_sessions_refuses_its_login_and_is_logged() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let moderator = Session::register(rig.addr(), "mod").await;
    grant(&store, "mod").await;
    report(&rig, &alice, "bob", "cheating").await;
    let (status, _) = bob.call(rig.addr(), "GET", "/api/reports/mine", None).await;
    assert_eq!(status, 200);
    let (status, body) = moderator
        .call(
            rig.addr(),
            "POST",
            "/api/mod/users/bob/close",
            Some(&json!({"reason": "cheating account"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reports_handled"], 1);
    let (status, _) = bob.call(rig.addr(), "GET", "/api/reports/mine", None).await;
    assert_eq!(status, 401, "the closed account's session ended");
    let mut browser = Browser::new(rig.addr());
    let reply = browser.login("bob", support::session::PASSWORD).await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    assert!(reply.body.contains("account_closed"), "{}", reply.body);
    let (_, log) = moderator
        .call(rig.addr(), "GET", "/api/mod/log", None)
        .await;
    assert_eq!(log["log"][0]["action"], "close");
    assert_eq!(log["log"][0]["reason"], "cheating account");
    let (_, mine) = alice
        .call(rig.addr(), "GET", "/api/reports/mine", None)
        .await;
    assert_eq!(mine["reports"][0]["status"], "handled");
    rig.stop().await;
}
