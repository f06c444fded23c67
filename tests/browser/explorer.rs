//! The opening explorer (issue 31) in real headless Chromium on the analysis board (`/analysis`,
//! tests/support/browser.rs's harness): two games finished through the server first, the page
//! opened at the start, the explorer's panel showing the turn they played with its count and
//! result bar and the games themselves; a click on the turn plays it on the board and the panel
//! follows with the replies played from there. Waits poll what the page shows.

use crate::support::browser;

use crate::support::game::play_until_white_mates_in_one;
use browser::{BrowserRig as Rig, SERIAL, browser_available, js, text, wait_for};
use serde_json::json;

#[tokio::test]
async fn the_explorer_shows_the_turns_of_finished_games_and_a_click_plays_one() {
    if !browser_available("explorer_panel") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    // 1. e4 f6,g5 2. Qh5#, then 1. e4 e5,Nf6 and White resigns.
    let (mated, mut white, mut black) = rig.server.players(json!({})).await;
    play_until_white_mates_in_one(&mut white, &mut black).await;
    white.play("d1h5", "w2").await;
    white.recv_type("end").await;
    let (resigned, mut white, mut black) = rig.server.players(json!({})).await;
    white.play("e2e4", "w1").await;
    black.play("e7e5", "b1").await;
    black.play("g8f6", "b2").await;
    white.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;

    let s = rig.driver.session().await;
    s.goto(&rig.url("/analysis")).await;
    wait_for(
        &s,
        "(document.querySelector(\"#analysis-explorer tr.explorer-turn[data-turn='e2e4'] .explorer-games\") || {}).textContent?.startsWith('2')",
        "the explorer's e4 with its two games",
    )
    .await;
    assert_eq!(
        text(&s, "#analysis-explorer tr.explorer-turn .explorer-san").await,
        "e4"
    );
    let links = js(
        &s,
        "return [...document.querySelectorAll('#analysis-explorer .explorer-examples a')].map((a) => a.getAttribute('href'));",
    )
    .await;
    assert_eq!(
        links,
        json!([format!("/game/{resigned}"), format!("/game/{mated}")])
    );
    js(
        &s,
        "document.querySelector(\"#analysis-explorer tr.explorer-turn[data-turn='e2e4']\").click();",
    )
    .await;
    wait_for(
        &s,
        "document.querySelectorAll('#analysis-explorer tr.explorer-turn').length === 2 && document.querySelector(\"#analysis-explorer tr.explorer-turn[data-turn='f7f6,g7g5']\")",
        "Black's two replies after e4",
    )
    .await;
    wait_for(
        &s,
        "document.querySelectorAll('#board-moves .mv').length === 1",
        "e4 played on the board",
    )
    .await;
    rig.stop(vec![s]).await;
}
