//! The account's own controls (issue 32; docs/protocol.md, "Account controls") on a real
//! server: a password change ends the other sessions and keeps this one, a wrong old password
//! is refused; the sessions list names this one and ends others; a deletion refuses while a
//! game goes on, then leaves the games loading with the deleted label, the name taken for
//! good and the data gone from the store's rows; the data archive holds the profile, the
//! settings and every game's PGN; every change needs this site's Origin. The store's side of
//! deletion is checked on every backend by the store contract (account_controls.rs there).

use crate::support;

use std::io::Read;
use std::time::Duration;

use serde_json::{Value, json};
use support::account::{Browser, body_json, code, signed_in};
use support::http::{connect_and_send, read_until_closed};
use support::raw_db::{DB, raw_i64};
use support::rig::Rig;
use support::s;
use support::session::{PASSWORD, Session};

const NEW_PASSWORD: &str = "a brand new password";

async fn signed_in_browser(addr: std::net::SocketAddr, name: &str) -> Browser {
    let mut browser = Browser::new(addr);
    let reply = browser.login(name, PASSWORD).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    browser
}

#[tokio::test]
async fn a_password_change_ends_the_other_sessions_and_keeps_this_one() {
    // Five logins of one account: more than the per-username login limit lets through.
    let rig = Rig::start_with(|c| c.accounts.login_per_min_per_username = 0.0).await;
    Session::register(rig.addr(), "alice").await;
    let mut laptop = signed_in_browser(rig.addr(), "alice").await;
    let mut phone = signed_in_browser(rig.addr(), "alice").await;

    let reply = laptop
        .send(
            "POST",
            "/api/account/password",
            Some(&json!({"old": PASSWORD, "new": NEW_PASSWORD})),
        )
        .await;
    assert_eq!(reply.status, 204, "{}", reply.body);
    assert!(signed_in(&laptop.account().await), "this session stays");
    assert!(!signed_in(&phone.account().await), "the other one ended");
    let mut again = Browser::new(rig.addr());
    assert_eq!(again.login("alice", PASSWORD).await.status, 401);
    assert_eq!(again.login("alice", NEW_PASSWORD).await.status, 200);
    assert_eq!(phone.login("alice", NEW_PASSWORD).await.status, 200);
    rig.stop().await;
}

#[tokio::test]
async fn a_wrong_old_password_or_a_weak_new_one_is_refused_and_changes_nothing() {
    let rig = Rig::start().await;
    Session::register(rig.addr(), "alice").await;
    let mut laptop = signed_in_browser(rig.addr(), "alice").await;
    let mut phone = signed_in_browser(rig.addr(), "alice").await;
    let wrong = laptop
        .send(
            "POST",
            "/api/account/password",
            Some(&json!({"old": "not the password", "new": NEW_PASSWORD})),
        )
        .await;
    assert_eq!(wrong.status, 403, "{}", wrong.body);
    assert_eq!(code(&wrong), "wrong_password");
    let weak = laptop
        .send(
            "POST",
            "/api/account/password",
            Some(&json!({"old": PASSWORD, "new": "short"})),
        )
        .await;
    assert_eq!(weak.status, 400, "{}", weak.body);
    assert_eq!(code(&weak), "weak_password");
    let malformed = laptop
        .send("POST", "/api/account/password", Some(&json!({"old": 1})))
        .await;
    assert_eq!(malformed.status, 400, "{}", malformed.body);
    assert!(signed_in(&phone.account().await), "nothing ended");
    assert_eq!(
        Browser::new(rig.addr())
            .login("alice", PASSWORD)
            .await
            .status,
        200
    );
    // Signed out, there is nothing to change.
    let mut stranger = Browser::new(rig.addr());
    let reply = stranger
        .send(
            "POST",
            "/api/account/password",
            Some(&json!({"old": PASSWORD, "new": NEW_PASSWORD})),
        )
        .await;
    assert_eq!(reply.status, 401);
    rig.stop().await;
}

#[tokio::test]
async fn every_account_control_refuses_a_request_from_another_sites_page() {
    let rig = Rig::start().await;
    Session::register(rig.addr(), "alice").await;
    let mut browser = signed_in_browser(rig.addr(), "alice")
        .await
        .with_origin(Some("http://evil.example"));
    for (method, path, body) in [
        (
            "POST",
            "/api/account/password",
            json!({"old": PASSWORD, "new": NEW_PASSWORD}),
        ),
        ("POST", "/api/account/sessions/end-others", json!({})),
        (
            "DELETE",
            "/api/account/sessions/0011223344556677",
            json!({}),
        ),
        ("POST", "/api/account/delete", json!({"password": PASSWORD})),
    ] {
        let reply = browser.send(method, path, Some(&body)).await;
        assert_eq!(reply.status, 403, "{method} {path}: {}", reply.body);
        assert_eq!(code(&reply), "bad_origin", "{method} {path}");
    }
    assert!(signed_in(
        &Browser::new(rig.addr()).login("alice", PASSWORD).await
    ));
    rig.stop().await;
}

fn sessions(reply: &support::http::Reply) -> Vec<Value> {
    assert_eq!(reply.status, 200, "{}", reply.body);
    body_json(reply)["sessions"]
        .as_array()
        .expect("a list")
        .clone()
}

#[tokio::test]
async fn the_sessions_list_names_this_one_and_ends_another_or_all_the_others() {
    let rig = Rig::start().await;
    Session::register(rig.addr(), "alice").await;
    let mut laptop = signed_in_browser(rig.addr(), "alice").await;
    let mut phone = signed_in_browser(rig.addr(), "alice").await;
    let mut tablet = signed_in_browser(rig.addr(), "alice").await;

    let reply = laptop.send("GET", "/api/account/sessions", None).await;
    let list = sessions(&reply);
    // The registration's session, and the three logins.
    assert_eq!(list.len(), 4, "{list:?}");
    let current: Vec<&Value> = list.iter().filter(|s| s["current"] == true).collect();
    assert_eq!(current.len(), 1);
    let cookie = laptop.session.clone().expect("a cookie");
    for session in &list {
        let id = s(&session["id"]);
        assert_eq!(id.len(), 16, "{id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(!cookie.contains(&id), "the id is not the secret");
        assert!(session["created_ms"].is_i64() && session["last_seen_ms"].is_i64());
    }
    assert!(!reply.body.contains(&cookie));

    // The phone's id is the one the phone sees as its own.
    let phones = sessions(&phone.send("GET", "/api/account/sessions", None).await);
    let phone_id = s(&phones
        .iter()
        .find(|s| s["current"] == true)
        .expect("current")["id"]);
    let ended = laptop
        .send("DELETE", &format!("/api/account/sessions/{phone_id}"), None)
        .await;
    assert_eq!(ended.status, 204, "{}", ended.body);
    assert!(!signed_in(&phone.account().await));
    assert!(signed_in(&tablet.account().await));
    let again = laptop
        .send("DELETE", &format!("/api/account/sessions/{phone_id}"), None)
        .await;
    assert_eq!(again.status, 404, "{}", again.body);
    assert_eq!(code(&again), "no_such_session");

    // Another account cannot end alice's sessions, even knowing an id.
    Session::register(rig.addr(), "bob").await;
    let mut bob = signed_in_browser(rig.addr(), "bob").await;
    let tablets = sessions(&tablet.send("GET", "/api/account/sessions", None).await);
    let tablet_id = s(&tablets
        .iter()
        .find(|s| s["current"] == true)
        .expect("current")["id"]);
    let foreign = bob
        .send(
            "DELETE",
            &format!("/api/account/sessions/{tablet_id}"),
            None,
        )
        .await;
    assert_eq!(foreign.status, 404, "{}", foreign.body);
    assert!(signed_in(&tablet.account().await));

    let others = laptop
        .send("POST", "/api/account/sessions/end-others", None)
        .await;
    assert_eq!(others.status, 204, "{}", others.body);
    assert!(!signed_in(&tablet.account().await));
    assert!(signed_in(&laptop.account().await));
    let left = sessions(&laptop.send("GET", "/api/account/sessions", None).await);
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["current"], true);
    assert!(signed_in(&bob.account().await), "bob's session is his own");
    rig.stop().await;
}

#[tokio::test]
async fn a_visitor_asking_who_they_are_gets_a_200_with_no_account() {
    let rig = Rig::start().await;
    let reply = Browser::new(rig.addr()).account().await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(body_json(&reply), json!({"account": null}));
    rig.stop().await;
}

/// alice (White, signed in) and bob (Black, signed in) in an untimed game; alice says a line
/// in the players' chat. (id, alice's socket).
async fn game_with_a_chat_line(
    rig: &Rig,
    alice: &Session,
    bob: &Session,
) -> (String, support::ws::Client) {
    let (status, created) = alice
        .call(
            rig.addr(),
            "POST",
            "/api/games",
            Some(&json!({"color": "white"})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = s(&created["id"]);
    let (status, joined) = bob
        .call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let mut white = alice
        .connect(rig.addr(), &id, &format!("token={}", s(&created["token"])))
        .await;
    white
        .send(json!({"t": "chat", "d": {"room": "player", "text": "hello from alice"}}))
        .await;
    white.recv_type("chat").await;
    (id, white)
}

#[tokio::test]
async fn a_deleted_account_cannot_log_in_its_name_stays_taken_and_its_games_show_the_label() {
    let mut rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let (id, mut white) = game_with_a_chat_line(&rig, &alice, &bob).await;
    let mut browser = signed_in_browser(rig.addr(), "alice").await;

    // While the game goes on: refused, and nothing changes.
    let busy = browser
        .send(
            "POST",
            "/api/account/delete",
            Some(&json!({"password": PASSWORD})),
        )
        .await;
    assert_eq!(busy.status, 409, "{}", busy.body);
    assert_eq!(code(&busy), "games_in_progress");
    white.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;
    drop(white);
    // A wrong password deletes nothing.
    let wrong = browser
        .send(
            "POST",
            "/api/account/delete",
            Some(&json!({"password": "nope nope nope"})),
        )
        .await;
    assert_eq!(wrong.status, 403, "{}", wrong.body);
    assert_eq!(code(&wrong), "wrong_password");
    // The game's room leaves memory with the restart: what follows is read from the store.
    rig.restart().await;
    let mut browser = signed_in_browser(rig.addr(), "alice").await;
    let deleted = browser
        .send(
            "POST",
            "/api/account/delete",
            Some(&json!({"password": PASSWORD})),
        )
        .await;
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    assert!(browser.session.is_none(), "the cookie is cleared");

    let mut again = Browser::new(rig.addr());
    let login = again.login("alice", PASSWORD).await;
    assert_eq!(login.status, 401, "{}", login.body);
    assert_eq!(code(&login), "bad_credentials");
    for name in ["alice", "ALICE"] {
        let taken = Browser::new(rig.addr()).register(name, PASSWORD).await;
        assert_eq!(taken.status, 409, "{name}: {}", taken.body);
    }
    let (status, _) = rig.http("GET", "/api/users/alice", None).await;
    assert_eq!(status, 404);

    let (status, game) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, 200, "{game}");
    let game: Value = serde_json::from_str(&game).expect("json");
    assert_eq!(game["players"]["white"]["name"], "deleted", "{game}");
    assert_eq!(game["players"]["black"]["name"], "bob");
    let pgn = rig.pgn(&id).await;
    assert!(pgn.contains("[White \"deleted\"]"), "{pgn}");

    // The store's rows hold the name no more (SQLite; Postgres: the store contract).
    let db = rig.data_dir().join(DB);
    for sql in [
        "SELECT count(*) FROM events WHERE payload LIKE '%\"alice\"%'",
        "SELECT count(*) FROM games WHERE summary LIKE '%\"alice\"%'",
        "SELECT count(*) FROM chat_lines WHERE author = 'alice' OR user_id IS NOT NULL AND user_id = (SELECT id FROM users WHERE username = 'alice')",
        "SELECT count(*) FROM sessions WHERE user_id = (SELECT id FROM users WHERE username = 'alice')",
    ] {
        assert_eq!(raw_i64(&db, sql), 0, "{sql}");
    }
    assert_eq!(
        raw_i64(
            &db,
            "SELECT count(*) FROM chat_lines WHERE author = 'deleted'"
        ),
        1
    );
    rig.stop().await;
}

/// The raw body of a GET with the browser's cookie (the archive is binary).
async fn raw_get(browser: &Browser, path: &str) -> (u16, Vec<u8>) {
    let session = browser.session.clone().expect("signed in");
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nCookie: marseillais_session={session}\r\n\r\n",
        browser.addr
    );
    let mut stream = connect_and_send(browser.addr, request.as_bytes())
        .await
        .expect("send");
    let raw = read_until_closed(&mut stream, Duration::from_secs(30))
        .await
        .expect("an answer");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, raw[split + 4..].to_vec())
}

#[tokio::test]
async fn the_data_archive_holds_the_profile_the_settings_and_every_game_and_no_secret() {
    let rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let (id, mut white) = game_with_a_chat_line(&rig, &alice, &bob).await;
    white.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;
    let mut browser = signed_in_browser(rig.addr(), "alice").await;
    let saved = browser
        .send(
            "PUT",
            "/api/account/settings",
            Some(&json!({"sound": false})),
        )
        .await;
    assert_eq!(saved.status, 200, "{}", saved.body);

    let (status, bytes) = raw_get(&browser, "/api/account/archive").await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip file");
    let mut read = |name: &str| {
        let mut text = String::new();
        zip.by_name(name)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .read_to_string(&mut text)
            .expect("text");
        text
    };
    let profile: Value = serde_json::from_str(&read("profile.json")).expect("json");
    assert_eq!(profile["username"], "alice");
    assert!(profile["created_ms"].as_i64() > Some(0));
    assert!(profile["ratings"]["blitz"].is_object());
    assert!(profile["rating_history"].is_array());
    let settings: Value = serde_json::from_str(&read("settings.json")).expect("json");
    assert_eq!(settings["sound"], false);
    let pgn = read(&format!("games/{id}.pgn"));
    assert!(pgn.contains("[White \"alice\"]"), "{pgn}");
    assert!(pgn.contains("[Black \"bob\"]"), "{pgn}");
    let names: Vec<String> = zip
        .file_names()
        .map(|name| name.expect("a name").into_owned())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    let session = browser.session.clone().expect("cookie");
    for name in &names {
        let text = {
            let mut text = String::new();
            zip.by_name(name)
                .expect("entry")
                .read_to_string(&mut text)
                .expect("text");
            text
        };
        assert!(!text.contains("argon2"), "{name} holds no password hash");
        assert!(!text.contains(&session), "{name} holds no session");
    }

    // Expensive: a small allowance per account.
    let (second, _) = raw_get(&browser, "/api/account/archive").await;
    assert_eq!(second, 200);
    let (third, _) = raw_get(&browser, "/api/account/archive").await;
    assert_eq!(third, 429);
    let (visitor, _) = rig.http("GET", "/api/account/archive", None).await;
    assert_eq!(visitor, 401);
    rig.stop().await;
}
