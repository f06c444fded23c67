//! The account page `/account` (issue 32) in real headless Chromium against the real server on
//! 127.0.0.1: the list shows this browser's session and another one, ending the other one takes
//! it off the list (and signs that browser out), and a password change says so on the page.
//! Waits poll what the page shows, with a deadline; nothing measures wall-clock time.

use crate::support::browser;

use browser::{
    SERIAL, Session, browser_available, click, js_async, type_into, wait_for, wait_text,
};
use serde_json::json;

use browser::BrowserRig as Rig;

/// Logs `name` in from inside a page of this server (the cookie lands in `s`).
async fn login(rig: &Rig, s: &Session, name: &str) {
    s.goto(&rig.url("/healthz")).await;
    let status = js_async(
        s,
        "const [name, password, done] = arguments;
         fetch('/api/account/login', {method: 'POST', headers: {'Content-Type': 'application/json'},
           body: JSON.stringify({username: name, password})})
           .then((r) => done(r.status), (e) => done(String(e)));",
        vec![json!(name), json!(crate::support::session::PASSWORD)],
    )
    .await;
    assert_eq!(status, json!(200), "login {name}");
}

/// What `GET /api/account` says in this browser: its username, or null.
async fn who(s: &Session) -> serde_json::Value {
    js_async(
        s,
        "const [done] = arguments;
         fetch('/api/account').then((r) => r.json()).then((b) => done(b.username || null), (e) => done(String(e)));",
        vec![],
    )
    .await
}

#[tokio::test]
async fn the_account_page_ends_another_session_and_changes_the_password() {
    if !browser_available("the_account_page_ends_another_session...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let laptop = rig.driver.session().await;
    let phone = rig.driver.session().await;
    rig.register(&laptop, "alice").await;
    login(&rig, &phone, "alice").await;
    assert_eq!(who(&phone).await, json!("alice"));

    laptop.goto(&rig.url("/account")).await;
    wait_for(
        &laptop,
        "document.querySelectorAll('#acct-session-list li').length === 2",
        "both sessions listed",
    )
    .await;
    wait_for(
        &laptop,
        "!!document.querySelector('#nav-account')",
        "the header's account link",
    )
    .await;
    click(&laptop, ".acct-end-session").await;
    wait_for(
        &laptop,
        "document.querySelectorAll('#acct-session-list li').length === 1 && !!document.querySelector('#acct-session-list .acct-current')",
        "only this session left",
    )
    .await;
    assert_eq!(who(&phone).await, json!(null), "the phone is signed out");

    type_into(
        &laptop,
        "#acct-old-password",
        crate::support::session::PASSWORD,
    )
    .await;
    type_into(&laptop, "#acct-new-password", "another long password").await;
    click(&laptop, "#acct-password-submit").await;
    wait_text(&laptop, "#acct-password-status", "Password changed").await;
    assert_eq!(who(&laptop).await, json!("alice"), "this session stays");
    rig.stop(vec![laptop, phone]).await;
}
