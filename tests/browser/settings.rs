//! The settings panel (issue 14) in real headless Chromium against the real server on
//! 127.0.0.1 (the harness of tests/support/browser.rs): the theme changes the board's colours at
//! once, legal-move dots and coordinates toggle, the settings survive a reload (localStorage),
//! the old mute switch carries over, the panel works from the keyboard, and signed in, a setting
//! made in one browser appears in another browser of the same account (the account's copy wins
//! over the browser's). Waits poll with a deadline; nothing measures wall-clock time.

use crate::support::browser;

use browser::{
    SERIAL, Session, browser_available, click, js, js_async, square, two_player_game, wait_for,
};
use fantoccini::Locator;
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";

use browser::BrowserRig as Rig;

/// Opens the settings dialog from the header and waits for it.
async fn open_settings(s: &Session) {
    click(s, "#btn-settings").await;
    wait_for(
        s,
        "!!document.querySelector('#settings-dialog') && document.querySelector('#settings-dialog').open",
        "the settings dialog",
    )
    .await;
}

async fn close_settings(s: &Session) {
    click(s, "#settings-close").await;
    wait_for(
        s,
        "!document.querySelector('#settings-dialog').open",
        "the settings dialog to close",
    )
    .await;
}

/// The computed background colour of a square.
async fn square_colour(s: &Session, name: &str) -> String {
    let script = format!(
        "return getComputedStyle(document.querySelector({})).backgroundColor;",
        json!(square(name))
    );
    js(s, &script).await.as_str().unwrap_or_default().to_owned()
}

/// The settings stored in this browser's localStorage.
async fn stored(s: &Session) -> Value {
    js(
        s,
        "return JSON.parse(localStorage.getItem('marseillais.settings') || 'null');",
    )
    .await
}

/// Waits for the board (of the replay page or a game) to be drawn.
async fn wait_board(s: &Session) {
    wait_for(
        s,
        &format!("!!document.querySelector({})", json!(square("a1"))),
        "the board",
    )
    .await;
}

#[tokio::test]
async fn the_theme_changes_the_board_colours_at_once_and_the_settings_survive_a_reload() {
    if !browser_available("the_theme_changes_the_board_colours...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.goto(&rig.url("/replay")).await;
    wait_board(&s).await;
    // a8 is a light square, a1 a dark one: brown by default.
    assert_eq!(square_colour(&s, "a8").await, "rgb(236, 223, 196)");
    assert_eq!(square_colour(&s, "a1").await, "rgb(168, 123, 88)");

    open_settings(&s).await;
    click(&s, "#set-theme-blue").await;
    wait_for(
        &s,
        "document.documentElement.dataset.theme === 'blue'",
        "the blue theme",
    )
    .await;
    assert_eq!(square_colour(&s, "a8").await, "rgb(222, 227, 230)");
    assert_eq!(square_colour(&s, "a1").await, "rgb(125, 151, 168)");
    click(&s, "#set-theme-green").await;
    assert_eq!(square_colour(&s, "a1").await, "rgb(118, 150, 86)");
    // More settings, then a reload: all of them are still there, in the page and the panel.
    js(
        &s,
        "const v = document.querySelector('#set-volume'); v.value = '25'; v.dispatchEvent(new Event('input'));",
    )
    .await;
    click(&s, "#set-sound").await;
    let select = s
        .client
        .find(Locator::Css("#set-confirmMoves"))
        .await
        .expect("the confirm select");
    select.select_by_value("on").await.expect("choose on");
    close_settings(&s).await;
    let kept = stored(&s).await;
    assert_eq!(kept["theme"], "green", "{kept}");
    assert_eq!(kept["sound"], false, "{kept}");
    assert_eq!(kept["volume"], 25, "{kept}");
    assert_eq!(kept["confirmMoves"], "on", "{kept}");

    s.goto(&rig.url("/replay")).await;
    wait_board(&s).await;
    assert_eq!(square_colour(&s, "a1").await, "rgb(118, 150, 86)");
    open_settings(&s).await;
    let shown = js(
        &s,
        "return [document.querySelector('#set-theme-green').checked, document.querySelector('#set-sound').checked,
                 document.querySelector('#set-volume').value, document.querySelector('#set-confirmMoves').value,
                 document.querySelector('#settings-where').textContent];",
    )
    .await;
    assert_eq!(shown[0], true, "{shown}");
    assert_eq!(shown[1], false, "{shown}");
    assert_eq!(shown[2], "25", "{shown}");
    assert_eq!(shown[3], "on", "{shown}");
    assert!(
        shown[4]
            .as_str()
            .unwrap_or_default()
            .contains("this browser"),
        "{shown}"
    );

    // A broken stored value falls back to its default; the others stay.
    js(
        &s,
        "localStorage.setItem('marseillais.settings', JSON.stringify({theme: 'pink', volume: 500, coordinates: false}));",
    )
    .await;
    s.goto(&rig.url("/replay")).await;
    wait_board(&s).await;
    assert_eq!(square_colour(&s, "a1").await, "rgb(168, 123, 88)");
    assert_eq!(
        js(
            &s,
            "return document.querySelector(\".board .sq[data-sq='a1']\").dataset.rank;"
        )
        .await,
        "",
        "coordinates: false was kept"
    );
    rig.stop(vec![s]).await;
}

#[tokio::test]
async fn legal_move_dots_and_coordinates_toggle_on_the_board_at_once() {
    if !browser_available("legal_move_dots_and_coordinates_toggle...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig.base, &white, &black, json!({})).await;
    wait_board(&white).await;
    let e4 = json!(square("e4"));
    let e4_marks =
        format!("return getComputedStyle(document.querySelector({e4})).backgroundImage;");
    let rank_of_a1 = format!(
        "return document.querySelector({}).dataset.rank;",
        json!(square("a1"))
    );
    let label_of_a1 = format!(
        "return getComputedStyle(document.querySelector({}), '::before').content;",
        json!(square("a1"))
    );
    assert_eq!(js(&white, &rank_of_a1).await, "1");
    assert_eq!(js(&white, &label_of_a1).await, "\"1\"");

    // Pick e2: e4 is a destination with its dot.
    click(&white, &square("e2")).await;
    wait_for(
        &white,
        &format!("document.querySelector({e4}).classList.contains('dest')"),
        "e4 to be a destination",
    )
    .await;
    let dot = js(&white, &e4_marks).await;
    assert!(
        dot.as_str().unwrap_or_default().contains("radial-gradient"),
        "{dot}"
    );

    open_settings(&white).await;
    click(&white, "#set-legalDots").await;
    click(&white, "#set-coordinates").await;
    // Still picked behind the dialog: the destination stays, its dot has gone.
    assert_eq!(js(&white, &e4_marks).await, "none");
    assert_eq!(
        js(
            &white,
            &format!("return document.querySelector({e4}).classList.contains('dest');")
        )
        .await,
        true,
        "the square still takes the move"
    );
    assert_eq!(js(&white, &rank_of_a1).await, "");
    assert_eq!(js(&white, &label_of_a1).await, "none");

    // And back on.
    click(&white, "#set-legalDots").await;
    click(&white, "#set-coordinates").await;
    let dot = js(&white, &e4_marks).await;
    assert!(
        dot.as_str().unwrap_or_default().contains("radial-gradient"),
        "{dot}"
    );
    assert_eq!(js(&white, &rank_of_a1).await, "1");
    close_settings(&white).await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test]
async fn the_old_mute_switch_carries_over_so_a_muted_player_stays_muted() {
    if !browser_available("the_old_mute_switch_carries_over...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.goto(&rig.url("/healthz")).await;
    js(
        &s,
        "localStorage.clear(); localStorage.setItem('marseillais.muted', '1');",
    )
    .await;
    s.goto(&rig.url("/replay")).await;
    wait_board(&s).await;
    wait_for(
        &s,
        "!!localStorage.getItem('marseillais.settings')",
        "the settings to be written",
    )
    .await;
    assert_eq!(stored(&s).await["sound"], false);
    assert_eq!(
        js(&s, "return localStorage.getItem('marseillais.muted');").await,
        Value::Null,
        "the old key is gone"
    );
    open_settings(&s).await;
    assert_eq!(
        js(&s, "return document.querySelector('#set-sound').checked;").await,
        false
    );
    // An unmuted player (the old key '0') keeps the sound on.
    js(
        &s,
        "localStorage.clear(); localStorage.setItem('marseillais.muted', '0');",
    )
    .await;
    s.goto(&rig.url("/replay")).await;
    wait_board(&s).await;
    wait_for(
        &s,
        "!!localStorage.getItem('marseillais.settings')",
        "the settings to be written",
    )
    .await;
    assert_eq!(stored(&s).await["sound"], true);
    rig.stop(vec![s]).await;
}

#[tokio::test]
async fn the_settings_panel_opens_works_and_closes_from_the_keyboard() {
    if !browser_available("the_settings_panel_opens_works_and_closes_from_the_keyboard") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.goto(&rig.url("/replay")).await;
    wait_board(&s).await;
    let button = s
        .client
        .find(Locator::Css("#btn-settings"))
        .await
        .expect("the settings button");
    button.send_keys("\u{E007}").await.expect("Enter");
    wait_for(
        &s,
        "!!document.querySelector('#settings-dialog') && document.querySelector('#settings-dialog').open",
        "the dialog opened by Enter",
    )
    .await;
    // The focus is in the dialog, on the checked theme; an arrow key chooses the next one.
    assert_eq!(
        js(&s, "return document.activeElement.id;").await,
        "set-theme-brown"
    );
    let active = s.client.active_element().await.expect("the focused radio");
    active.send_keys("\u{E014}").await.expect("ArrowRight");
    wait_for(
        &s,
        "document.documentElement.dataset.theme === 'blue'",
        "the arrow key to choose blue",
    )
    .await;
    let active = s.client.active_element().await.expect("focus");
    active.send_keys("\u{E00C}").await.expect("Escape");
    wait_for(
        &s,
        "!document.querySelector('#settings-dialog').open",
        "Escape to close the dialog",
    )
    .await;
    rig.stop(vec![s]).await;
}

/// Signs a browser up (or in) through the API from a page of the site, then reloads `path`.
async fn account_call(s: &Session, rig: &Rig, what: &str, name: &str) {
    s.goto(&rig.url("/healthz")).await;
    let status = js_async(
        s,
        "const [path, body, done] = arguments;
         fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)})
           .then((r) => done(r.status), (e) => done(String(e)));",
        vec![
            json!(format!("/api/account/{what}")),
            json!({"username": name, "password": PASSWORD}),
        ],
    )
    .await;
    assert!(
        status == json!(200) || status == json!(201),
        "{what}: {status}"
    );
}

#[tokio::test]
async fn signed_in_a_setting_made_in_one_browser_appears_in_another_browser_of_the_account() {
    if !browser_available("signed_in_a_setting_made_in_one_browser...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let a = rig.driver.session().await;
    let b = rig.driver.session().await;

    // Browser b has its own choice before it signs in.
    b.goto(&rig.url("/healthz")).await;
    js(
        &b,
        "localStorage.setItem('marseillais.settings', JSON.stringify({theme: 'grey', volume: 90}));",
    )
    .await;

    account_call(&a, &rig, "register", "alice").await;
    a.goto(&rig.url("/replay")).await;
    wait_board(&a).await;
    // The account had no settings: this browser's (the defaults) were saved to it.
    wait_for(
        &a,
        "fetch('/api/account/settings').then((r) => r.json()).then((j) => window.__saved = j.settings) && window.__saved",
        "the browser's settings saved to the account",
    )
    .await;
    open_settings(&a).await;
    assert!(
        js(
            &a,
            "return document.querySelector('#settings-where').textContent;"
        )
        .await
        .as_str()
        .unwrap_or_default()
        .contains("account")
    );
    click(&a, "#set-theme-green").await;
    click(&a, "#set-legalDots").await;
    close_settings(&a).await;
    // Saved (debounced) to the account: both changes, since two clicks more than the
    // debounce apart are two saves, and the first has the theme without the dots.
    wait_for(
        &a,
        "(fetch('/api/account/settings').then((r) => r.json()).then((j) => { window.__saved = j.settings || {}; }), !!window.__saved && window.__saved.theme === 'green' && window.__saved.legalDots === false)",
        "the theme and the dots saved to the account",
    )
    .await;

    // Browser b signs in: the account's settings replace its own.
    account_call(&b, &rig, "login", "alice").await;
    b.goto(&rig.url("/replay")).await;
    wait_board(&b).await;
    wait_for(
        &b,
        "document.documentElement.dataset.theme === 'green'",
        "the account's theme in the other browser",
    )
    .await;
    assert_eq!(square_colour(&b, "a1").await, "rgb(118, 150, 86)");
    let kept = stored(&b).await;
    assert_eq!(kept["theme"], "green", "{kept}");
    assert_eq!(kept["legalDots"], false, "{kept}");
    assert_eq!(
        kept["volume"], 70,
        "the account's volume, not this browser's 90: {kept}"
    );
    rig.stop(vec![a, b]).await;
}
