//! The client of issue 12 (correspondence games and chat) in real headless
//! Chromium against the real server on 127.0.0.1 (the harness of
//! tests/support/browser.rs): the chat rooms of a game (who sees what, text
//! never HTML, refusals in words, history without duplicates), the time left
//! of a correspondence turn, "My games" and the `(1)` of the page title.
//! Each browser session has its own profile (cookies, localStorage). Waits
//! poll with a deadline; nothing measures wall-clock time.

use crate::support;
use crate::support::browser;

use browser::{
    SERIAL, Session, api_seat, browser_available, click, click_move, confirm_move, js, js_async,
    text, two_player_game, type_into, wait_for, wait_moves, wait_text,
};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";

use browser::BrowserRig as Rig;

/// Keeps the game WebSockets of the page in `window.__gameSockets`: those it opens from now on,
/// and the one open already once it sends.
const COUNT_GAME_SOCKETS: &str = "if (!window.__gameSockets) {
    window.__gameSockets = [];
    const Native = window.WebSocket;
    const Counted = function (url, protocols) {
      const ws = new Native(url, protocols);
      if (String(url).includes('/ws/game/')) window.__gameSockets.push(ws);
      return ws;
    };
    Counted.prototype = Native.prototype;
    for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Counted[k] = Native[k];
    window.WebSocket = Counted;
    // The socket open already is found when it sends.
    const send = Native.prototype.send;
    Native.prototype.send = function (data) {
      if (this.url.includes('/ws/game/') && !window.__gameSockets.includes(this)) window.__gameSockets.push(this);
      return send.call(this, data);
    };
  }
  return true;";

/// Types a line into a room's chat input and sends it.
async fn say(s: &Session, room: &str, line: &str) {
    type_into(s, &format!("#chat-input-{room}"), line).await;
    click(s, &format!("#chat-send-{room}")).await;
}

/// The lines a room shows, as `[author, text]` (empty when the room is not on the page).
async fn lines(s: &Session, room: &str) -> Value {
    js(
        s,
        &format!(
            "return [...document.querySelectorAll('#chat-lines-{room} .chat-line')].map((li) =>
               [li.querySelector('.chat-author').textContent, li.querySelector('.chat-text').textContent])"
        ),
    )
    .await
}

/// How each author of a room reads, as `[tag, classes, font style, dot]`: a signed-in author is
/// `["A", "chat-author chat-name", "normal", "none"]`, a label a span in italics, with the piece
/// colour's dot (`::before`) for a player. What a reader sees, not only what the DOM says.
async fn author_looks(s: &Session, room: &str) -> Value {
    js(
        s,
        &format!(
            "return [...document.querySelectorAll('#chat-lines-{room} .chat-author')].map((e) => {{
               const dot = getComputedStyle(e, '::before').content;
               return [e.tagName, e.className, getComputedStyle(e).fontStyle, dot === 'none' ? 'none' : 'dot'];
             }})"
        ),
    )
    .await
}

/// Waits until a room shows a line with this text.
async fn wait_line(s: &Session, room: &str, line: &str) {
    wait_for(
        s,
        &format!(
            "[...document.querySelectorAll('#chat-lines-{room} .chat-text')].some((e) => e.textContent === {})",
            json!(line)
        ),
        &format!("the line {line:?} in the {room} room"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_chat_in_the_player_room_and_each_sees_the_others_line_under_their_colour() {
    if !browser_available("two_players_chat...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let id = two_player_game(&rig.base, &white, &black, json!({})).await;

    say(&white, "player", "good luck").await;
    wait_line(&black, "player", "good luck").await;
    wait_line(&white, "player", "good luck").await;
    // A reload gets the recent lines (chat_history), once.
    black.goto(&rig.url(&format!("/game/{id}"))).await;
    wait_line(&black, "player", "good luck").await;
    assert_eq!(
        lines(&black, "player").await,
        json!([["White", "good luck"]])
    );

    js(&black, COUNT_GAME_SOCKETS).await;
    say(&black, "player", "you too").await;
    wait_line(&white, "player", "you too").await;
    assert_eq!(
        lines(&white, "player").await,
        json!([["White", "good luck"], ["Black", "you too"]])
    );
    // Anonymous players are labels: italics and a dot of their colour, not a link.
    assert_eq!(
        author_looks(&white, "player").await,
        json!([
            [
                "SPAN",
                "chat-author chat-label chat-label-white",
                "italic",
                "dot"
            ],
            [
                "SPAN",
                "chat-author chat-label chat-label-black",
                "italic",
                "dot"
            ]
        ])
    );
    assert_eq!(
        js(
            &white,
            "return document.querySelector('#chat-input-player').getAttribute('maxlength')"
        )
        .await,
        json!("140")
    );
    // A dropped connection reconnects; the recent lines it gets again are not shown twice.
    js(&black, "window.__gameSockets.at(-1).close(); return true;").await;
    wait_for(
        &black,
        "window.__gameSockets.length === 2 && window.__gameSockets[1].readyState === 1",
        "a second game socket",
    )
    .await;
    // A move goes on as before (the chat changes no game version), and a line after it.
    click_move(&white, "e2", "e4").await;
    wait_moves(&[&white, &black], 1).await;
    say(&white, "player", "your move").await;
    wait_line(&black, "player", "your move").await;
    assert_eq!(
        lines(&black, "player").await,
        json!([
            ["White", "good luck"],
            ["Black", "you too"],
            ["White", "your move"]
        ])
    );

    // A player may hide the players' chat (kept in this browser).
    click(&black, "#chat-toggle-player").await;
    wait_for(
        &black,
        "document.querySelector('#chat-player .chat-body').hidden",
        "the players' chat hidden",
    )
    .await;
    say(&white, "player", "hello?").await;
    wait_text(&black, "#chat-toggle-player", "1 new").await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectators_line_reaches_the_spectator_room_and_never_the_player_room() {
    if !browser_available("a_spectators_line...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let watcher = rig.driver.session().await;
    let id = two_player_game(&rig.base, &white, &black, json!({})).await;
    watcher.goto(&rig.url(&format!("/game/{id}"))).await;
    wait_text(&watcher, "#game-info", "watching").await;

    // A spectator has only the spectators' room, and writes in it.
    wait_for(
        &watcher,
        "!!document.querySelector('#chat-input-spectator')",
        "the spectators' input",
    )
    .await;
    assert_eq!(
        js(&watcher, "return !!document.querySelector('#chat-player')").await,
        json!(false),
        "a spectator has no players' room"
    );
    say(&watcher, "spectator", "nice opening").await;
    wait_line(&watcher, "spectator", "nice opening").await;
    // After it, a players' line: once it arrives, the spectator's line would have too.
    // Each player's socket is waited on: the writer's own echo travels on a socket of its
    // own, and can land after the other player's (CI once read White's room empty here).
    say(&white, "player", "thanks for the game").await;
    for s in [&white, &black] {
        wait_line(s, "player", "thanks for the game").await;
        assert_eq!(
            lines(s, "player").await,
            json!([["White", "thanks for the game"]]),
            "the players' room has no spectator line"
        );
    }
    assert_eq!(
        lines(&watcher, "spectator").await,
        json!([["Anonymous", "nice opening"]]),
        "the spectators' room has no players' line"
    );
    // A player sees the spectators' room only after opening it, and cannot write in it.
    assert_eq!(
        js(
            &white,
            "return document.querySelector('#chat-spectator .chat-body').hidden"
        )
        .await,
        json!(true)
    );
    // Opening it asks the server for that room (chat_watch), history first.
    click(&white, "#chat-toggle-spectator").await;
    wait_line(&white, "spectator", "nice opening").await;
    assert_eq!(
        js(
            &white,
            "return document.querySelector('#chat-form-spectator').hidden"
        )
        .await,
        json!(true),
        "players do not write in the spectators' room"
    );
    rig.stop(vec![white, black, watcher]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_html_payload_in_chat_shows_as_literal_text_and_creates_no_element() {
    if !browser_available("an_html_payload...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig.base, &white, &black, json!({})).await;

    let payload = "<img src=x onerror=\"window.__pwned=1\"><b>x</b>";
    say(&white, "player", payload).await;
    wait_line(&black, "player", payload).await;
    for s in [&white, &black] {
        wait_line(s, "player", payload).await;
        assert_eq!(
            js(
                s,
                "return document.querySelectorAll('#game-chat img, #game-chat b, #game-chat script').length"
            )
            .await,
            json!(0),
            "no element made from a chat line"
        );
        assert_eq!(
            js(s, "return window.__pwned === undefined").await,
            json!(true)
        );
    }
    // Four lines at once: the fourth is refused, said near the input. Sent in one script,
    // since four WebDriver round trips each can outlast the refill of one line (5 s / 3).
    js(
        &black,
        "const input = document.querySelector('#chat-input-player');
         const form = document.querySelector('#chat-form-player');
         for (let n = 1; n <= 4; n++) { input.value = `line ${n}`; form.requestSubmit(); }
         return true;",
    )
    .await;
    wait_text(&black, "#chat-error-player", "Slow down").await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_chat_carries_a_line_from_one_visitor_to_another() {
    if !browser_available("the_lobby_chat...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let alice = rig.driver.session().await;
    let anon = rig.driver.session().await;
    rig.register(&alice, "alice").await;
    alice.goto(&rig.url("/")).await;
    anon.goto(&rig.url("/")).await;
    wait_text(&alice, "#account-name", "alice").await;
    // A line sent before the live socket is open is refused as offline: the player count
    // comes over that socket, so once it shows the socket is open.
    wait_for(
        &alice,
        "document.querySelector('#online-count').textContent !== ''",
        "the live socket open",
    )
    .await;
    say(&alice, "lobby", "anyone for a 3 days game?").await;
    wait_line(&anon, "lobby", "anyone for a 3 days game?").await;
    say(&anon, "lobby", "<b>me</b>").await;
    wait_line(&alice, "lobby", "<b>me</b>").await;
    assert_eq!(
        lines(&alice, "lobby").await,
        json!([
            ["alice", "anyone for a 3 days game?"],
            ["Anonymous", "<b>me</b>"]
        ])
    );
    // A signed-in author is a link to the profile in the normal style; an anonymous one a label
    // in italics (no dot: not a player), so the two never read alike.
    assert_eq!(
        author_looks(&alice, "lobby").await,
        json!([
            ["A", "chat-author chat-name", "normal", "none"],
            ["SPAN", "chat-author chat-label", "italic", "none"]
        ])
    );
    assert_eq!(
        js(
            &alice,
            "return [...document.querySelectorAll('#chat-lines-lobby .chat-author')]
               .map((e) => [e.getAttribute('href'), e.getAttribute('title')])"
        )
        .await,
        json!([["/@/alice", null], [null, "Not signed in"]])
    );
    // A line of a Hangul filler and a zero-width space (what no keyboard types: set as the
    // input's value) is refused, said in words near the input.
    js(
        &anon,
        "document.querySelector('#chat-input-lobby').value = '\\u3164\\u200b';
         document.querySelector('#chat-send-lobby').click();
         return true;",
    )
    .await;
    wait_text(&anon, "#chat-error-lobby", "visible text").await;
    assert_eq!(
        js(
            &alice,
            "return document.querySelectorAll('#chat-lobby b').length"
        )
        .await,
        json!(0)
    );
    rig.stop(vec![alice, anon]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_left_of_a_correspondence_turn_reads_in_days_and_hours_then_minutes_and_seconds() {
    if !browser_available("the_time_left...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.goto(&rig.url("/")).await;
    let words = js_async(
        &s,
        "const done = arguments[0];
         import('/static/api.js').then((api) => done([
           2 * 86400e3 + 5 * 3600e3 + 59e3, 86400e3, 3 * 3600e3 + 12 * 60e3 + 30e3, 42 * 60e3 + 7e3,
           35e3, 999, -5000,
         ].map((ms) => api.timeLeftText(ms)).concat([api.timeLeftText(42 * 60e3 + 7e3, {coarse: true}),
           api.clockLabel({days_per_turn: 1}), api.clockLabel({days_per_turn: 14})])), (e) => done(String(e)));",
        vec![],
    )
    .await;
    assert_eq!(
        words,
        json!([
            "2 days 5 h",
            "1 day 0 h",
            "3 h 12 min",
            "42 min 7 s",
            "35 s",
            "0 s",
            "0 s",
            "42 min",
            "1 day",
            "14 days"
        ])
    );
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_game_made_in_the_lobby_shows_the_time_left_in_days_and_hours_and_is_listed()
 {
    if !browser_available("a_correspondence_game...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;

    white.goto(&rig.url("/")).await;
    click(
        &white,
        "label.choice:has(input[name=clock][value='days-3'])",
    )
    .await;
    click(&white, "label.choice:has(input[name=color][value='white'])").await;
    click(&white, "#create-btn").await;
    let path = wait_for(
        &white,
        "location.pathname.startsWith('/game/') && document.querySelector('#status').textContent.includes('Waiting') && location.pathname",
        "the page of the new game",
    )
    .await;
    let id = path
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("/game/")
        .to_string();
    wait_text(&white, "#game-info", "3 days per turn").await;
    // The free seat says it waits (and nothing else: not the "null" it once showed).
    assert_eq!(text(&white, "#seat-black").await, "Blackwaiting");
    // Open: no turn is timed yet.
    assert_eq!(
        js(&white, "return document.querySelector('#corr-left').hidden").await,
        json!(true)
    );
    // The lobby lists it as "3 days".
    black.goto(&rig.url("/")).await;
    wait_text(&black, &format!("#open-games li[data-id='{id}']"), "3 days").await;
    click(
        &black,
        &format!("#open-games li[data-id='{id}'] button.join"),
    )
    .await;
    wait_text(&black, "#seat-black", "(you)").await;

    // Just after the join White has (a little under) three days: "2 days 23 h".
    wait_text(&white, "#corr-left", "You have 2 days 23 h to play").await;
    wait_text(&black, "#corr-left", "White has 2 days 23 h to play").await;
    assert_eq!(
        js(
            &white,
            "return document.querySelector('#clock-white').hidden"
        )
        .await,
        json!(true),
        "no live clock in a correspondence game"
    );
    // Each turn has its own three days (they do not accumulate). Correspondence games confirm
    // each sub-move by default.
    click_move(&white, "e2", "e4").await;
    confirm_move(&white).await;
    wait_moves(&[&white, &black], 1).await;
    wait_text(&black, "#corr-left", "You have 2 days 23 h to play").await;
    wait_text(&white, "#corr-left", "Black has 2 days 23 h to play").await;
    // In progress: the lobby says whose turn it is and the time left.
    let watcher = rig.driver.session().await;
    watcher.goto(&rig.url("/")).await;
    let row = format!("#playing-games li[data-id='{id}']");
    wait_text(&watcher, &row, "3 days").await;
    wait_text(&watcher, &row, "Black to play, 2 days 23 h left").await;
    // An opponent away is no reason to claim victory in a game of days (the deadline decides).
    black.goto(&rig.url("/replay")).await;
    wait_text(&white, "#seat-black", "offline").await;
    assert_eq!(
        js(
            &white,
            "return !!document.querySelector('#btn-claim-victory')"
        )
        .await,
        json!(false)
    );
    assert_eq!(text(&white, "#away-note").await, "");
    rig.stop(vec![white, black, watcher]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_games_lists_the_browsers_seats_with_your_turn_and_the_title_counts_your_turn() {
    if !browser_available("my_games_lists...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let id = two_player_game(&rig.base, &white, &black, json!({})).await;

    // The game page's title counts its own turn.
    wait_for(
        &white,
        "document.title.startsWith('(1) ')",
        "(1) in White's title",
    )
    .await;
    assert!(
        !js(&black, "return document.title")
            .await
            .as_str()
            .unwrap_or_default()
            .starts_with('(')
    );
    // "My games" is linked from the header, and lists the game with "Your turn" for White.
    click(&white, "#nav-mine").await;
    wait_for(
        &white,
        "location.pathname === '/games/mine'",
        "the My games page",
    )
    .await;
    let row = format!("#mine-games li[data-id='{id}']");
    wait_text(&white, &row, "Your turn").await;
    black.goto(&rig.url("/games/mine")).await;
    wait_text(&black, &row, "White to play").await;
    assert!(!text(&black, &row).await.contains("Your turn"));

    // White plays its turn: now it is Black's, on the game page and in the list.
    white.goto(&rig.url(&format!("/game/{id}"))).await;
    click_move(&white, "e2", "e4").await;
    wait_moves(&[&white], 1).await;
    wait_text(&white, "#status", "Black to play").await;
    wait_for(
        &white,
        "!document.title.startsWith('(')",
        "no count in White's title",
    )
    .await;
    black.goto(&rig.url("/games/mine")).await;
    wait_text(&black, &row, "Your turn").await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_players_my_games_and_lobby_title_show_the_turn_pushed_by_the_server() {
    if !browser_available("a_signed_in_players_my_games...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let alice = rig.driver.session().await;
    let bob = rig.driver.session().await;
    let device = rig.driver.session().await;
    rig.register(&alice, "alice").await;
    rig.register(&bob, "bob").await;
    let id = api_seat(
        &alice,
        &rig.base,
        "/api/games",
        json!({"color": "white", "clock": {"days_per_turn": 2}}),
    )
    .await;
    wait_text(&alice, "#status", "Waiting").await;
    api_seat(&bob, &rig.base, &format!("/api/games/{id}/join"), json!({})).await;
    wait_text(&bob, "#seat-black", "(you)").await;

    // Another device of alice's, with no seat token: the account's games, from the server.
    device.goto(&rig.url("/healthz")).await;
    js_async(
        &device,
        "const [password, done] = arguments;
         fetch('/api/account/login', {method: 'POST', headers: {'Content-Type': 'application/json'},
           body: JSON.stringify({username: 'alice', password})}).then((r) => done(r.status), (e) => done(String(e)));",
        vec![json!(PASSWORD)],
    )
    .await;
    device.goto(&rig.url("/games/mine")).await;
    let row = format!("#mine-games li[data-id='{id}']");
    wait_text(&device, &row, "Your turn").await;
    wait_text(&device, &row, "vs bob").await;
    wait_text(&device, &row, "2 days").await;
    wait_text(&device, &row, "1 day 23 h left").await;
    // The lobby's title: `(1)` from the live channel's your_turn push.
    device.goto(&rig.url("/")).await;
    wait_for(
        &device,
        "document.title === '(1) Marseillais chess'",
        "(1) in the lobby's title",
    )
    .await;
    // Alice plays on her game page: the push takes the count away on the other device.
    click_move(&alice, "e2", "e4").await;
    confirm_move(&alice).await;
    wait_moves(&[&alice, &bob], 1).await;
    wait_for(
        &device,
        "document.title === 'Marseillais chess'",
        "no count once it is Bob's turn",
    )
    .await;
    rig.stop(vec![alice, bob, device]).await;
}

/// A stand-in for the browser's Notification API (headless Chromium has no
/// permission prompt to click): `permission` as given, `requestPermission()`
/// counted in `window.__asked` and granting, every notification shown
/// recorded by its tag in localStorage `__shown` (shared by the tabs).
const FAKE_NOTIFICATION: &str = "const permission = PERMISSION;
  window.__asked = 0;
  class Fake {
    constructor(title, options) {
      const shown = JSON.parse(localStorage.getItem('__shown') || '[]');
      shown.push(options.tag);
      localStorage.setItem('__shown', JSON.stringify(shown));
    }
    close() {}
  }
  Fake.permission = permission;
  Fake.requestPermission = () => { window.__asked += 1; Fake.permission = 'granted'; return Promise.resolve('granted'); };
  window.Notification = Fake;
  // The header's button reads the permission again when the page comes back into view.
  document.dispatchEvent(new Event('visibilitychange'));
  return true;";

/// Puts [`FAKE_NOTIFICATION`] in the page with this permission.
async fn fake_notifications(s: &Session, permission: &str) {
    let script = FAKE_NOTIFICATION.replace("PERMISSION", &json!(permission).to_string());
    assert_eq!(js(s, &script).await, json!(true));
}

/// Waits until every turn-alert job queued in this tab so far is done (the
/// Web Lock is granted in order, so taking it after them means they ran).
async fn alerts_settled(s: &Session) {
    let done = js_async(
        s,
        "const done = arguments[0];
         navigator.locks.request('marseillais-your-turn', () => true).then(() => done(true), (e) => done(String(e)));",
        vec![],
    )
    .await;
    assert_eq!(done, json!(true));
}

/// The seat token this browser keeps for a game.
async fn token_of(s: &Session, id: &str) -> String {
    support::s(
        &js(
            s,
            &format!(
                "return localStorage.getItem('marseillais.seat.' + {})",
                json!(id)
            ),
        )
        .await,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_alerts_are_asked_for_only_on_a_click_and_two_open_tabs_show_one_notification() {
    if !browser_available("turn_alerts...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let alice = rig.driver.session().await;
    let bob = rig.driver.session().await;
    rig.register(&alice, "alice").await;
    rig.register(&bob, "bob").await;
    let id = api_seat(
        &alice,
        &rig.base,
        "/api/games",
        json!({"color": "white", "clock": {"days_per_turn": 1}}),
    )
    .await;
    wait_text(&alice, "#status", "Waiting").await;
    let alice_token = token_of(&alice, &id).await;
    api_seat(&bob, &rig.base, &format!("/api/games/{id}/join"), json!({})).await;
    wait_text(&bob, "#seat-black", "(you)").await;
    let bob_token = token_of(&bob, &id).await;
    bob.goto(&rig.url("/replay")).await;

    // The first tab: nothing is asked until the click.
    alice.goto(&rig.url("/")).await;
    fake_notifications(&alice, "default").await;
    wait_for(
        &alice,
        "document.title === '(1) Marseillais chess'",
        "(1) in the first tab",
    )
    .await;
    assert_eq!(js(&alice, "return window.__asked").await, json!(0));
    click(&alice, "#btn-alerts").await;
    wait_for(
        &alice,
        "document.querySelector('#btn-alerts').getAttribute('aria-pressed') === 'true'",
        "the alerts on",
    )
    .await;
    assert_eq!(js(&alice, "return window.__asked").await, json!(1));
    let first = alice.client.window().await.expect("the first tab");

    // A second tab of the same browser.
    let second = alice
        .client
        .new_window(true)
        .await
        .expect("a second tab")
        .handle;
    alice
        .client
        .switch_to_window(second.clone())
        .await
        .expect("to the second tab");
    alice.goto(&rig.url("/games/mine")).await;
    fake_notifications(&alice, "granted").await;
    wait_for(
        &alice,
        "document.title.startsWith('(1) ')",
        "(1) in the second tab",
    )
    .await;

    // Alice plays (from another device), then Bob: it becomes her turn while both tabs are open.
    let mut white = support::ws::Client::seat(rig.server.addr(), &id, &alice_token).await;
    let mut black = support::ws::Client::seat(rig.server.addr(), &id, &bob_token).await;
    white.play("e2e4", "w1").await;
    for tab in [&first, &second] {
        alice
            .client
            .switch_to_window(tab.clone())
            .await
            .expect("a tab");
        wait_for(
            &alice,
            "!document.title.startsWith('(')",
            "no count on Bob's turn",
        )
        .await;
    }
    black.play("e7e5", "b1").await;
    black.play("d7d5", "b2").await;
    for tab in [&first, &second] {
        alice
            .client
            .switch_to_window(tab.clone())
            .await
            .expect("a tab");
        wait_for(&alice, "document.title.startsWith('(1) ')", "(1) again").await;
        alerts_settled(&alice).await;
    }
    assert_eq!(
        js(
            &alice,
            "return JSON.parse(localStorage.getItem('__shown') || '[]')"
        )
        .await,
        json!([format!("turn-{id}")]),
        "one notification over the two tabs"
    );
    rig.stop(vec![alice, bob]).await;
}
