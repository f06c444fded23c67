//! Blocks (issue 32) in real headless Chromium (tests/support/browser.rs's harness): a signed-in
//! player blocks another from their profile, sees the button turn to "Unblock", finds it so
//! after a reload (the profile's `blocked`), and unblocks. Waits poll what the page shows.

use crate::support::browser;

use browser::{BrowserRig as Rig, SERIAL, browser_available, click, wait_text};

#[tokio::test]
async fn a_player_blocks_another_from_the_profile_and_the_button_turns_to_unblock() {
    if !browser_available("block_from_profile") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    crate::support::session::Session::register(rig.server.addr(), "bob").await;
    let alice = rig.driver.session().await;
    rig.register(&alice, "alice").await;
    alice.goto(&rig.url("/@/bob")).await;
    wait_text(&alice, "#profile-name", "bob").await;
    wait_text(&alice, "#btn-block", "Block").await;
    click(&alice, "#btn-block").await;
    wait_text(&alice, "#btn-block", "Unblock").await;
    wait_text(&alice, "#block-note", "You block bob.").await;
    // The profile says so on the next visit too.
    alice.goto(&rig.url("/@/bob")).await;
    wait_text(&alice, "#btn-block", "Unblock").await;
    click(&alice, "#btn-block").await;
    wait_text(&alice, "#block-note", "You no longer block bob.").await;
    wait_text(&alice, "#btn-block", "Block").await;
    rig.stop(vec![alice]).await;
}
