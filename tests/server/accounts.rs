//! Accounts and sessions on the real server (issue 11, docs/protocol.md "Accounts"): register,
//! log in, log out and `GET /api/account` with every error they answer, the session cookie,
//! the Origin check, the limits (registrations per address, password guessing per username), and
//! the names reserved for new accounts (issue 34).

use crate::support;

use std::sync::Arc;

use marseillais::server::domain::user::Username;
use marseillais::server::players::account::password::{Password, hash_blocking};
use marseillais::server::store::{MemoryStore, Store};
use serde_json::{Value, json};
use support::account::{Browser, body_json, code, head_without_date, signed_in};
use support::rig::Rig;
use support::session::{PASSWORD, Session};

/// A server whose account limits are lifted (tests that are not about limits register and log
/// in more than the defaults allow from one address).
async fn server() -> Rig {
    Rig::start_with(|c| {
        c.accounts.register_per_hour = 0.0;
        c.accounts.login_per_min = 0.0;
        c.accounts.login_per_min_per_username = 0.0;
    })
    .await
}

fn initial_ratings() -> Value {
    let initial = json!({"rating": 1500, "deviation": 500, "provisional": true, "games": 0});
    json!({
        "bullet": initial, "blitz": initial, "rapid": initial, "classical": initial,
    })
}

#[tokio::test]
async fn registering_signs_in_with_an_http_only_lax_cookie_and_the_account_shows_the_user() {
    let server = server().await;
    let mut browser = Browser::new(server.addr());
    let reply = browser.register("Alice_1", "correct horse").await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    assert_eq!(
        body_json(&reply),
        json!({"username": "Alice_1", "ratings": initial_ratings()})
    );
    let cookie = reply.header("set-cookie").expect("a session cookie");
    let session = browser.session.clone().expect("kept");
    assert_eq!(session.len(), 32, "128 bits in hex");
    assert_eq!(
        cookie,
        format!("marseillais_session={session}; HttpOnly; SameSite=Lax; Path=/; Max-Age=2592000"),
        "no Secure without an https --public-url"
    );
    assert!(
        !reply.body.contains(&session),
        "the id is only in the cookie"
    );

    let me = browser.account().await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(
        body_json(&me),
        json!({"username": "Alice_1", "ratings": initial_ratings()})
    );
    // Another browser, without the cookie, is nobody.
    let mut stranger = Browser::new(server.addr());
    // Issue 32: a visitor is told so with a 200, not a 401 (no console error on every page).
    let anonymous = stranger.account().await;
    assert_eq!(anonymous.status, 200, "{}", anonymous.body);
    assert_eq!(body_json(&anonymous), json!({"account": null}));
    server.stop().await;
}

#[tokio::test]
async fn a_username_is_taken_in_any_case() {
    let server = server().await;
    let mut first = Browser::new(server.addr());
    assert_eq!(first.register("Bob", "password-1").await.status, 201);
    let mut second = Browser::new(server.addr());
    for name in ["Bob", "bob", "BOB"] {
        let reply = second.register(name, "password-2").await;
        assert_eq!(reply.status, 409, "{name}: {}", reply.body);
        assert_eq!(code(&reply), "username_taken");
        assert!(reply.header("set-cookie").is_none());
    }
    // The first Bob's password is unchanged.
    assert_eq!(second.login("bOB", "password-1").await.status, 200);
    assert_eq!(second.login("bob", "password-2").await.status, 401);
    server.stop().await;
}

#[tokio::test]
async fn confusable_huge_and_malformed_usernames_are_bad_username() {
    let server = server().await;
    let mut browser = Browser::new(server.addr());
    let huge = "a".repeat(10_000);
    for name in [
        "\u{430}lice",       // Cyrillic a
        "\u{ff41}\u{ff42}c", // full-width letters
        "al\u{200d}ice",     // zero-width joiner
        "Ali ce",
        "a",
        "",
        "x".repeat(21).as_str(),
        huge.as_str(),
    ] {
        let reply = browser.register(name, "a fine password").await;
        assert_eq!(reply.status, 400, "{name:.30}: {}", reply.body);
        assert_eq!(code(&reply), "bad_username", "{name:.30}");
    }
    assert!(browser.session.is_none());
    server.stop().await;
}

#[tokio::test]
async fn a_chat_label_or_staff_name_is_reserved_for_new_accounts_in_any_case() {
    let server = server().await;
    let mut browser = Browser::new(server.addr());
    for name in ["White", "BLACK", "anonymous", "System", "moderator"] {
        let reply = browser.register(name, "a fine password").await;
        assert_eq!(reply.status, 400, "{name}: {}", reply.body);
        assert_eq!(code(&reply), "bad_username", "{name}");
        assert!(
            body_json(&reply)["message"]
                .as_str()
                .is_some_and(|m| m.contains("reserved")),
            "{name}: {}",
            reply.body
        );
        assert!(reply.header("set-cookie").is_none());
    }
    assert!(browser.session.is_none());
    // Only the exact names: a name that starts like one is a name.
    let reply = browser.register("whiteknight", "a fine password").await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    server.stop().await;
}

/// A database may hold an account named `White` from before the names were reserved: it logs in,
/// plays and chats under its name as before (only registration checks the list), and its lines
/// still carry `user`, which the anonymous Black player's do not.
#[tokio::test]
async fn an_account_that_already_has_a_reserved_name_still_logs_in_and_chats_under_it() {
    let store = Arc::new(MemoryStore::new());
    let password = Password::parse(PASSWORD).expect("a valid password");
    let hash = hash_blocking(&password).expect("a hash");
    let name = Username::parse("White").expect("a well-formed name");
    store
        .create_user(name, hash, 1_764_612_345_000)
        .await
        .expect("stored");
    let rig = Rig::builder().store(store).start().await;
    let white = Session::login(rig.addr(), "White").await;
    let (status, me) = white.call(rig.addr(), "GET", "/api/account", None).await;
    assert_eq!((status, &me["username"]), (200, &json!("White")), "{me}");
    let (id, _, black_token) = white.against_anonymous(&rig).await;
    let mut white_ws = white.connect(rig.addr(), &id, "").await;
    let mut black_ws = rig.seat(&id, &black_token).await;
    white_ws
        .send(json!({"t": "chat", "d": {"room": "player", "text": "hello"}}))
        .await;
    let got = black_ws.skip_to("chat").await;
    assert_eq!(got.d["text"], "hello");
    assert_eq!(got.d["author"], "White");
    assert_eq!(got.d["user"], "White");
    black_ws
        .send(json!({"t": "chat", "d": {"room": "player", "text": "hi"}}))
        .await;
    let got = white_ws
        .until("black's line", |m| m.t == "chat" && m.d["text"] == "hi")
        .await;
    assert_eq!(got.d["author"], "black");
    assert!(got.d.get("user").is_none(), "{got}");
    rig.stop().await;
}

#[tokio::test]
async fn passwords_need_eight_to_128_characters_counted_as_characters() {
    let server = server().await;
    let mut browser = Browser::new(server.addr());
    for (i, password) in ["1234567", &"p".repeat(129), &"\u{20ac}".repeat(7)]
        .into_iter()
        .enumerate()
    {
        let reply = browser.register(&format!("weak{i}"), password).await;
        assert_eq!(reply.status, 400, "{}", reply.body);
        assert_eq!(code(&reply), "weak_password");
    }
    // Eight euro signs are 24 bytes but eight characters; 128 characters are fine.
    assert_eq!(
        browser.register("euro", &"\u{20ac}".repeat(8)).await.status,
        201
    );
    assert_eq!(
        browser.login("euro", &"\u{20ac}".repeat(8)).await.status,
        200
    );
    assert_eq!(
        Browser::new(server.addr())
            .register("long", &"p".repeat(128))
            .await
            .status,
        201
    );
    server.stop().await;
}

#[tokio::test]
async fn malformed_bodies_are_bad_requests_that_never_echo_a_password() {
    let server = server().await;
    let browser = Browser::new(server.addr());
    for body in [
        "{",
        "[]",
        r#"{"username": "x"}"#,
        r#"{"username": 1, "password": "x"}"#,
        r#"{"username": "someone", "password": 31415926535}"#,
    ] {
        for route in ["/api/account/register", "/api/account/login"] {
            let reply = browser.send_raw("POST", route, Some(body), &[]).await;
            assert_eq!(reply.status, 400, "{route} {body}: {}", reply.body);
            assert_eq!(code(&reply), "bad_request");
            assert!(
                !reply.body.contains("31415926535"),
                "a password is never echoed: {}",
                reply.body
            );
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn login_opens_a_new_session_and_a_wrong_password_or_unknown_user_is_the_same_401() {
    let server = server().await;
    let mut phone = Browser::new(server.addr());
    assert_eq!(phone.register("carol", "carols password").await.status, 201);

    // A second device logs in: its own session.
    let mut laptop = Browser::new(server.addr());
    let reply = laptop.login("CAROL", "carols password").await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(body_json(&reply)["username"], "carol", "as registered");
    assert!(laptop.session.is_some());
    assert_ne!(laptop.session, phone.session);
    assert!(signed_in(&laptop.account().await));
    assert!(signed_in(&phone.account().await));

    let mut guesser = Browser::new(server.addr());
    let wrong = guesser.login("carol", "not her password").await;
    let unknown = guesser.login("nobody", "not her password").await;
    let impossible = guesser.login("no such name!", "x").await;
    for reply in [&wrong, &unknown, &impossible] {
        assert_eq!(reply.status, 401);
        assert_eq!(code(reply), "bad_credentials");
        assert!(reply.header("set-cookie").is_none());
    }
    assert_eq!(wrong.body, unknown.body);
    assert_eq!(head_without_date(&wrong), head_without_date(&unknown));
    assert_eq!(wrong.body, impossible.body);
    assert_eq!(head_without_date(&wrong), head_without_date(&impossible));
    assert!(guesser.session.is_none());
    server.stop().await;
}

#[tokio::test]
async fn logout_deletes_the_session_so_its_cookie_is_refused_and_works_without_one() {
    let server = server().await;
    let mut browser = Browser::new(server.addr());
    assert_eq!(browser.register("dave", "daves password").await.status, 201);
    let mut other_device = Browser::new(server.addr());
    assert_eq!(
        other_device.login("dave", "daves password").await.status,
        200
    );
    let old = browser.session.clone();

    let reply = browser.logout().await;
    assert_eq!(reply.status, 204, "{}", reply.body);
    assert_eq!(
        reply.header("set-cookie"),
        Some("marseillais_session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0")
    );
    assert!(browser.session.is_none(), "the browser forgets it");
    // A browser that kept the old cookie anyway (or a thief with a copy) is refused.
    let mut replay = Browser::new(server.addr());
    replay.session = old;
    let refused = replay.account().await;
    assert!(!signed_in(&refused), "{}", refused.body);
    // Only that session: the other device is still logged in.
    assert!(signed_in(&other_device.account().await));
    // Logging out without a session, or with a dead or malformed one, is fine.
    assert_eq!(Browser::new(server.addr()).logout().await.status, 204);
    assert_eq!(replay.logout().await.status, 204);
    let mut garbage = Browser::new(server.addr());
    garbage.session = Some("not-a-session".to_owned());
    assert_eq!(garbage.logout().await.status, 204);
    assert!(!signed_in(&garbage.account().await));
    server.stop().await;
}

#[tokio::test]
async fn a_cookie_carrying_change_from_another_origin_is_403_and_the_same_origin_works() {
    let server = server().await;
    let addr = server.addr();
    let mut browser = Browser::new(addr);
    assert_eq!(browser.register("erin", "erins password").await.status, 201);
    let session = browser.session.clone();
    let (id, _) = {
        let (status, body) = server.http("POST", "/api/games", Some("{}")).await;
        assert_eq!(status, 201, "{body}");
        let v: Value = serde_json::from_str(&body).expect("json");
        (v["id"].as_str().unwrap_or_default().to_owned(), v)
    };
    let upgrade = [
        "Upgrade: websocket",
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    ];
    for origin in [Some("http://evil.example"), Some("null"), None] {
        let mut attacker = Browser::new(addr).with_origin(origin);
        attacker.session = session.clone();
        for (method, path) in [
            ("POST", "/api/account/logout"),
            ("POST", "/api/games"),
            ("POST", &*format!("/api/games/{id}/join")),
        ] {
            let reply = attacker.send(method, path, None).await;
            assert_eq!(
                reply.status, 403,
                "{origin:?} {method} {path}: {}",
                reply.body
            );
            assert_eq!(code(&reply), "bad_origin");
        }
        let ws = attacker
            .send_raw("GET", &format!("/ws/game/{id}"), None, &upgrade)
            .await;
        assert_eq!(ws.status, 403, "{origin:?} websocket: {}", ws.body);
        assert_eq!(code(&ws), "bad_origin");
    }
    // Nothing of that happened: the session is alive, no game was created.
    assert!(signed_in(&browser.account().await));
    let (_, open) = server.http("GET", "/api/games?status=open", None).await;
    assert_eq!(
        body_json_text(&open)["games"].as_array().map(Vec::len),
        Some(1)
    );
    // Reading with the cookie from anywhere is not a change.
    let mut reader = Browser::new(addr).with_origin(Some("http://evil.example"));
    reader.session = session.clone();
    assert!(signed_in(&reader.account().await));
    // Another site cannot log a visitor into an account of its choosing.
    let mut login_csrf = Browser::new(addr).with_origin(Some("http://evil.example"));
    let reply = login_csrf.login("erin", "erins password").await;
    assert_eq!(reply.status, 403);
    assert_eq!(code(&reply), "bad_origin");
    // Anonymous play from anywhere is as before (no cookie, no check).
    let anonymous = Browser::new(addr).with_origin(Some("http://other.example"));
    let created = anonymous
        .send_raw("POST", "/api/games", Some("{}"), &[])
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    // The same origin works, the WebSocket upgrade too (it gets past the check).
    let ws = browser
        .send_raw("GET", &format!("/ws/game/{id}"), None, &upgrade)
        .await;
    assert_ne!(ws.status, 403, "{}", ws.body);
    let created = browser.send("POST", "/api/games", Some(&json!({}))).await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(browser.logout().await.status, 204);
    server.stop().await;
}

fn body_json_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON {text:?}: {e}"))
}

#[tokio::test]
async fn behind_an_https_public_url_cookies_are_secure_and_the_origin_must_be_that_url() {
    let server = Rig::start_with(|c| {
        c.public_origin = Some("https://play.example".to_owned());
        c.accounts.register_per_hour = 0.0;
    })
    .await;
    let mut browser = Browser::new(server.addr()).with_origin(Some("https://play.example"));
    let reply = browser.register("frank", "franks password").await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    assert!(
        reply
            .header("set-cookie")
            .is_some_and(|c| c.ends_with("; Max-Age=2592000; Secure")),
        "{:?}",
        reply.header("set-cookie")
    );
    // The listening address is not the site's origin any more.
    let mut direct = Browser::new(server.addr());
    direct.session = browser.session.clone();
    let refused = direct.logout().await;
    assert_eq!(refused.status, 403);
    assert_eq!(code(&refused), "bad_origin");
    assert_eq!(browser.logout().await.status, 204);
    server.stop().await;
}

/// Up to 10,000 registrations from one address, each a fresh valid name: the first few are
/// accepted, then every one is refused. The loop stops after a streak of refusals.
#[tokio::test]
async fn ten_thousand_registrations_from_one_address_are_refused_after_the_limit() {
    let server = Rig::start().await; // the default limit: 5 an hour per address
    let mut accepted = 0;
    let mut refused_in_a_row = 0;
    let mut attempts = 0;
    for i in 0..10_000 {
        attempts += 1;
        let reply = Browser::new(server.addr())
            .register(&format!("bulk{i}"), "bulk password")
            .await;
        match reply.status {
            201 => {
                assert_eq!(refused_in_a_row, 0, "accepted after a refusal");
                accepted += 1;
            }
            429 => {
                assert_eq!(code(&reply), "rate_limited");
                let wait: u64 = reply
                    .header("retry-after")
                    .and_then(|v| v.parse().ok())
                    .expect("Retry-After");
                assert!((1..=3600).contains(&wait), "{wait}");
                refused_in_a_row += 1;
                if refused_in_a_row == 200 {
                    break;
                }
            }
            other => panic!("registration {i}: {other} {}", reply.body),
        }
    }
    assert_eq!(accepted, 5, "the default: 5 an hour per address");
    assert_eq!(attempts, 205);
    // The refused names were never created.
    let mut browser = Browser::new(server.addr());
    assert_eq!(browser.login("bulk4", "bulk password").await.status, 200);
    assert_eq!(browser.login("bulk5", "bulk password").await.status, 401);
    server.stop().await;
}

#[tokio::test]
async fn password_guessing_is_throttled_per_username_while_other_usernames_still_log_in() {
    // The address limit lifted: what is shown is the per-username one (5 a minute).
    let server = Rig::start_with(|c| {
        c.accounts.register_per_hour = 0.0;
        c.accounts.login_per_min = 0.0;
    })
    .await;
    let mut owner = Browser::new(server.addr());
    assert_eq!(
        owner.register("victim", "victims password").await.status,
        201
    );
    let mut friend = Browser::new(server.addr());
    assert_eq!(
        friend.register("friend", "friends password").await.status,
        201
    );

    let mut guesser = Browser::new(server.addr());
    for i in 0..5 {
        let reply = guesser.login("victim", &format!("guess number {i}")).await;
        assert_eq!(reply.status, 401, "guess {i}");
    }
    // The sixth attempt is refused before any password is checked, even the right one, and in
    // any spelling of the name.
    for name in ["victim", "VICTIM"] {
        let reply = guesser.login(name, "victims password").await;
        assert_eq!(reply.status, 429, "{}", reply.body);
        assert_eq!(code(&reply), "rate_limited");
        assert!(reply.header("retry-after").is_some());
        assert!(guesser.session.is_none());
    }
    // Another username from the same address is not limited.
    let mut other = Browser::new(server.addr());
    assert_eq!(other.login("friend", "friends password").await.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn login_attempts_are_limited_per_address_across_usernames() {
    let server = Rig::start_with(|c| {
        c.accounts.register_per_hour = 0.0;
        c.accounts.login_per_min_per_username = 0.0;
    })
    .await; // the default: 10 a minute per address
    let mut browser = Browser::new(server.addr());
    for i in 0..10 {
        let reply = browser.login(&format!("name{i}"), "some password").await;
        assert_eq!(reply.status, 401, "attempt {i}");
    }
    let reply = browser.login("name10", "some password").await;
    assert_eq!(reply.status, 429);
    assert_eq!(code(&reply), "rate_limited");
    server.stop().await;
}

/// Percentile `p` (0-100) of sorted durations, in milliseconds.
fn percentile_ms(sorted: &[std::time::Duration], p: usize) -> f64 {
    let i = (sorted.len() * p / 100).min(sorted.len().saturating_sub(1));
    sorted.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The figures of docs/performance.md "Accounts": one Argon2id hash, and login latency with 1
/// and 8 logins at once (`--max-concurrent-password-hashes` at its default, 2). Not a check
/// (timing on a shared machine); run by hand:
/// `cargo test --release --test system server::accounts::measure -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread")]
#[ignore]
async fn measure_argon2id_hash_time_and_login_latency() {
    use marseillais::server::players::account::password::{Password, hash_blocking};
    use std::time::{Duration, Instant};

    let password = Password::parse("a measured password").expect("valid");
    let mut hashes: Vec<Duration> = (0..20)
        .map(|_| {
            let started = Instant::now();
            hash_blocking(&password).expect("hash");
            started.elapsed()
        })
        .collect();
    hashes.sort();
    println!(
        "argon2id m=19456 t=2 p=1 hash: p50 {:.1} ms, min {:.1} ms, max {:.1} ms (20 hashes)",
        percentile_ms(&hashes, 50),
        percentile_ms(&hashes, 0),
        percentile_ms(&hashes, 100)
    );

    let server = server().await;
    for i in 0..8 {
        let reply = Browser::new(server.addr())
            .register(&format!("load{i}"), "a measured password")
            .await;
        assert_eq!(reply.status, 201);
    }
    for concurrent in [1usize, 8] {
        let per_task = 160 / concurrent;
        let tasks: Vec<_> = (0..concurrent)
            .map(|t| {
                let addr = server.addr();
                tokio::spawn(async move {
                    let mut latencies = Vec::with_capacity(per_task);
                    for _ in 0..per_task {
                        let started = Instant::now();
                        let reply = Browser::new(addr)
                            .login(&format!("load{t}"), "a measured password")
                            .await;
                        assert_eq!(reply.status, 200);
                        latencies.push(started.elapsed());
                    }
                    latencies
                })
            })
            .collect();
        let mut all = Vec::new();
        let started = Instant::now();
        for task in tasks {
            all.extend(task.await.expect("task"));
        }
        let wall = started.elapsed();
        all.sort();
        println!(
            "login, {concurrent} at once: p50 {:.1} ms, p99 {:.1} ms, {:.1} logins/s ({} logins)",
            percentile_ms(&all, 50),
            percentile_ms(&all, 99),
            all.len() as f64 / wall.as_secs_f64(),
            all.len()
        );
    }
    server.stop().await;
}
