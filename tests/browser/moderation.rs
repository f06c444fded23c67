//! THE browser test of issue 32, in real headless Chromium against the real server: alice
//! blocks bob from his profile (the button turns to "Unblock" and her account page lists him),
//! then reports him from the same profile (the Report button, a reason, a text); a moderator,
//! made one by the command line (`marseillais admin grant-mod`, on the running server's
//! database), opens `/mod`, sees the report and bans bob from chat for 15 minutes, the action
//! in the log; then bob's lobby chat line is refused with the ban's reason and end, and nobody
//! got it.

use crate::support::browser;

use browser::{
    BrowserRig as Rig, SERIAL, browser_available, click, js, type_into, wait_for, wait_text,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_blocks_and_reports_from_a_profile_and_a_moderator_bans_the_reported_player_from_chat()
 {
    if !browser_available("a_player_blocks_and_reports_from_a_profile_and_a_moderator_bans...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let alice = rig.driver.session().await;
    let bob = rig.driver.session().await;
    let moderator = rig.driver.session().await;
    rig.register(&alice, "alice").await;
    rig.register(&bob, "bob").await;
    rig.register(&moderator, "mod").await;
    let granted = std::process::Command::new(env!("CARGO_BIN_EXE_marseillais"))
        .args(["admin", "grant-mod", "mod", "--data-dir"])
        .arg(rig.server.data_dir())
        .output()
        .expect("run marseillais admin");
    assert!(
        granted.status.success(),
        "{}",
        String::from_utf8_lossy(&granted.stderr)
    );

    // Alice blocks bob from his profile; her account page lists him.
    alice.goto(&rig.url("/@/bob")).await;
    wait_text(&alice, "#btn-block", "Block").await;
    click(&alice, "#btn-block").await;
    wait_text(&alice, "#btn-block", "Unblock").await;
    alice.goto(&rig.url("/account")).await;
    wait_text(&alice, "#blocks-list", "bob").await;

    // Then she reports him from his profile.
    alice.goto(&rig.url("/@/bob")).await;
    wait_text(&alice, "#btn-block", "Unblock").await;
    click(&alice, "#btn-report").await;
    wait_for(
        &alice,
        "!!document.querySelector('#report-reason')",
        "the report form",
    )
    .await;
    js(
        &alice,
        "document.querySelector('#report-reason').value = 'abusive_chat'; return true;",
    )
    .await;
    type_into(&alice, "#report-text", "he insulted me in the lobby").await;
    click(&alice, "#report-send").await;
    wait_text(&alice, "#report-done", "a moderator will look at it").await;

    // The moderator sees it and bans bob from chat for 15 minutes, saying why.
    moderator.goto(&rig.url("/mod")).await;
    wait_for(
        &moderator,
        "!!document.querySelector(\".mod-report[data-reported='bob']\")",
        "bob's report on /mod",
    )
    .await;
    wait_text(
        &moderator,
        ".mod-report[data-reported='bob'] blockquote",
        "insulted me",
    )
    .await;
    js(
        &moderator,
        "window.prompt = () => 'insults in the lobby'; return true;",
    )
    .await;
    click(&moderator, ".mod-report[data-reported='bob'] .mod-ban-15m").await;
    wait_text(&moderator, "#mod-log", "chat_ban").await;
    wait_text(&moderator, "#mod-log", "insults in the lobby").await;

    // Bob's lobby line is refused with the reason and until when.
    bob.goto(&rig.url("/")).await;
    wait_for(
        &bob,
        "!!document.querySelector('#chat-input-lobby')",
        "the lobby chat",
    )
    .await;
    type_into(&bob, "#chat-input-lobby", "you are all bad").await;
    click(&bob, "#chat-send-lobby").await;
    wait_text(&bob, "#chat-error-lobby", "banned from chat until").await;
    wait_text(&bob, "#chat-error-lobby", "insults in the lobby").await;
    let shown = js(
        &bob,
        "return [...document.querySelectorAll('#chat-lines-lobby .chat-text')].some((e) => e.textContent === 'you are all bad');",
    )
    .await;
    assert_eq!(
        shown,
        serde_json::json!(false),
        "the banned line reached nobody"
    );
    rig.stop(vec![alice, bob, moderator]).await;
}
