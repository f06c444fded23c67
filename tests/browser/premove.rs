//! Premoves and move confirmation (issue 14) in real headless Chromium
//! against the real server on 127.0.0.1 (the harness of
//! tests/support/browser.rs). The page plays White; the opponent is a typed
//! WebSocket client of tests/support/ws.rs, so each scenario decides exactly
//! when the opponent's sub-moves arrive. The page's socket is watched from
//! inside the page ([`WATCH`]): every `move` it receives and sends, with
//! `performance.now()` and a requestAnimationFrame count, so "nothing was
//! sent" and "sent within the same frame" are read from the page, not timed.
//! Waits poll with a deadline; no assertion measures wall-clock time.

use crate::support;
use crate::support::browser;

use browser::{
    SERIAL, Session, api_seat, browser_available, click, click_move, js, js_async, square, text,
    type_into, wait_for, wait_moves, wait_text,
};
use fantoccini::Locator;
use fantoccini::actions::{InputSource, MOUSE_BUTTON_RIGHT, MouseActions, PointerAction};
use serde_json::{Value, json};
use support::ws::Client;

use browser::BrowserRig as Rig;

/// Watches the page's game socket: a frame counter, and `window.__log`, one entry per `move`
/// received (`dir: 'in'`, counted when the socket delivers it, before the page's handler runs)
/// or sent (`dir: 'out'`), each `{dir, uci, v, at, frame}`. The socket is caught on its first
/// send (the `hello` the page sends when the opponent joins).
const WATCH: &str = "if (!window.__log) {
    window.__log = [];
    window.__frames = 0;
    const tick = () => { window.__frames += 1; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    const entry = (dir, text) => {
      let m = null;
      try { m = JSON.parse(text); } catch (_) { return; }
      if (m && m.t === 'move') {
        window.__log.push({ dir, uci: m.d.uci, v: m.v === undefined ? (m.d.v === undefined ? null : m.d.v) : m.v,
          at: performance.now(), frame: window.__frames });
      }
    };
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      if (String(this.url).includes('/ws/game/') && !this.__watched) {
        this.__watched = true;
        const handler = this.onmessage;
        this.onmessage = (e) => { entry('in', e.data); return handler.call(this, e); };
      }
      entry('out', data);
      return send.call(this, data);
    };
  }
  return true;";

/// The moves the page sent so far (UCI).
async fn sent(s: &Session) -> Vec<String> {
    let v = js(
        s,
        "return window.__log.filter((e) => e.dir === 'out').map((e) => e.uci);",
    )
    .await;
    support::strings(&v)
}

/// The squares the board marks as queued premoves (`premove-from` or `premove-to`).
async fn premove_squares(s: &Session) -> Vec<String> {
    let v = js(
        s,
        "return [...document.querySelectorAll('.board .sq.premove-from, .board .sq.premove-to')].map((c) => c.dataset.sq).sort();",
    )
    .await;
    support::strings(&v)
}

/// A game the page plays as White from `body` (a start FEN, a clock...), joined by a WebSocket
/// client as Black, with the page's socket watched. Returns (id, Black's client).
async fn game(rig: &Rig, s: &Session, mut body: Value) -> (String, Client) {
    body["color"] = json!("white");
    let id = api_seat(s, &rig.base, "/api/games", body).await;
    wait_text(s, "#status", "Waiting").await;
    js(s, WATCH).await;
    let (token, colour) = rig.server.join(&id).await;
    assert_eq!(colour, "black");
    let black = Client::seat(rig.server.addr(), &id, &token).await;
    // The page asked for a fresh snapshot on the join (its socket is watched from then on).
    wait_for(
        s,
        "window.__log && document.querySelector('#seat-black.online')",
        "Black online",
    )
    .await;
    (id, black)
}

/// Black plays one sub-move and sees its broadcast.
async fn black_plays(black: &mut Client, uci: &str, id: &str) -> support::ws::Incoming {
    black.play(uci, id).await
}

/// The next `move` event White plays, as Black's client sees it.
async fn white_move(black: &mut Client) -> support::ws::Incoming {
    black
        .until("a move by White", |m| {
            m.t == "move" && m.d["color"] == "white"
        })
        .await
}

/// The record the server keeps (`GET /api/games/{id}`), as UCI.
async fn server_moves(rig: &Rig, id: &str) -> Vec<String> {
    let (status, body) = rig
        .server
        .http("GET", &format!("/api/games/{id}"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("json");
    support::game::each_move(&v["moves"], "uci")
}

/// After 1. e4: Black to play two sub-moves.
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_premove_reaches_the_server_within_one_frame_of_the_opponents_move_event() {
    if !browser_available("premove_one_frame") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    let (id, mut black) = game(&rig, &s, json!({"fen": AFTER_E4})).await;
    black_plays(&mut black, "e7e5", "b1").await;
    wait_moves(&[&s], 1).await;
    // Between Black's S1 and S2: White queues its next S1.
    click_move(&s, "d2", "d4").await;
    wait_for(
        &s,
        "document.querySelector(\".board .sq[data-sq='d4']\").classList.contains('premove-to')",
        "d2d4 queued",
    )
    .await;
    assert!(sent(&s).await.is_empty(), "a premove waits for the turn");
    black_plays(&mut black, "b8c6", "b2").await;
    let played = white_move(&mut black).await;
    assert_eq!(played.d["uci"], "d2d4", "{played}");
    assert_eq!(server_moves(&rig, &id).await, ["e7e5", "b8c6", "d2d4"]);
    let timing = js(
        &s,
        "const inn = window.__log.find((e) => e.dir === 'in' && e.uci === 'b8c6');
         const out = window.__log.find((e) => e.dir === 'out' && e.uci === 'd2d4');
         return { frames: out.frame - inn.frame, ms: out.at - inn.at, v: out.v, seen: inn.v };",
    )
    .await;
    println!("premove timing: {timing}");
    assert_eq!(
        timing["frames"], 0,
        "no animation frame between the opponent's move event and the premove: {timing}"
    );
    assert_eq!(
        timing["v"], timing["seen"],
        "the premove is sent for the position of that event: {timing}"
    );
    assert!(premove_squares(&s).await.is_empty());
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_sub_move_premove_survives_the_opponents_first_sub_move_and_both_are_played() {
    if !browser_available("premove_two_sub_moves") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    let (id, mut black) = game(&rig, &s, json!({"fen": AFTER_E4})).await;
    // Before Black's S1: White queues d4 and then Nf3.
    click_move(&s, "d2", "d4").await;
    click_move(&s, "g1", "f3").await;
    wait_for(
        &s,
        "document.querySelectorAll('.board .sq.premove-from').length === 2",
        "two premoves queued",
    )
    .await;
    black_plays(&mut black, "e7e5", "b1").await;
    wait_moves(&[&s], 1).await;
    assert_eq!(
        premove_squares(&s).await,
        ["d2", "d4", "f3", "g1"],
        "the queue survives the opponent's first sub-move"
    );
    assert!(sent(&s).await.is_empty());
    black_plays(&mut black, "b8c6", "b2").await;
    assert_eq!(white_move(&mut black).await.d["uci"], "d2d4");
    assert_eq!(white_move(&mut black).await.d["uci"], "g1f3");
    wait_moves(&[&s], 4).await;
    assert_eq!(
        server_moves(&rig, &id).await,
        ["e7e5", "b8c6", "d2d4", "g1f3"]
    );
    assert_eq!(sent(&s).await, ["d2d4", "g1f3"]);
    assert!(premove_squares(&s).await.is_empty());
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_premove_that_is_illegal_after_all_is_dropped_and_nothing_is_sent() {
    if !browser_available("premove_dropped") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    let (id, mut black) = game(&rig, &s, json!({"fen": AFTER_E4})).await;
    // e5 is free now; Black's S1 blocks it.
    click_move(&s, "e4", "e5").await;
    click_move(&s, "g1", "f3").await;
    black_plays(&mut black, "e7e5", "b1").await;
    black_plays(&mut black, "b8c6", "b2").await;
    wait_moves(&[&s], 2).await;
    // The premove would have gone in the handler of Black's last move: it is shown, so decided.
    assert!(sent(&s).await.is_empty(), "nothing is sent");
    assert!(premove_squares(&s).await.is_empty(), "the queue is empty");
    wait_for(
        &s,
        "document.querySelector('#notice').textContent.length > 0",
        "a word on the drop",
    )
    .await;
    assert_eq!(server_moves(&rig, &id).await, ["e7e5", "b8c6"]);
    // And the player simply plays.
    click_move(&s, "d2", "d4").await;
    assert_eq!(white_move(&mut black).await.d["uci"], "d2d4");
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_premoved_second_sub_move_is_dropped_when_the_premoved_first_gives_check() {
    if !browser_available("premove_check_ends_turn") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    // The b5-e8 diagonal is open: Bb5 will be check, which ends White's turn.
    let fen = "rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3";
    let (id, mut black) = game(&rig, &s, json!({"fen": fen})).await;
    click_move(&s, "f1", "b5").await;
    click_move(&s, "g1", "f3").await;
    black_plays(&mut black, "h7h6", "b1").await;
    black_plays(&mut black, "g7g6", "b2").await;
    let check = white_move(&mut black).await;
    assert_eq!(check.d["uci"], "f1b5");
    assert_eq!(check.d["check"], true, "{check}");
    assert_eq!(check.d["turn"], "black", "check ended White's turn");
    wait_moves(&[&s], 3).await;
    assert_eq!(sent(&s).await, ["f1b5"], "the premoved S2 is not sent");
    assert!(premove_squares(&s).await.is_empty());
    assert_eq!(server_moves(&rig, &id).await, ["h7h6", "g7g6", "f1b5"]);
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_premove_that_does_not_answer_the_check_of_the_opponents_first_sub_move_is_dropped() {
    if !browser_available("premove_opponent_check") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    // After 1. f3 e5: Black's Qh4 is check, which ends Black's turn after one sub-move.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 2";
    let (id, mut black) = game(&rig, &s, json!({"fen": fen})).await;
    click_move(&s, "h2", "h3").await;
    let checked = black_plays(&mut black, "d8h4", "b1").await;
    assert_eq!(checked.d["turn"], "white", "{checked}");
    wait_moves(&[&s], 1).await;
    assert!(sent(&s).await.is_empty(), "h3 does not answer the check");
    assert!(premove_squares(&s).await.is_empty());
    assert_eq!(server_moves(&rig, &id).await, ["d8h4"]);
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_right_click_or_a_click_on_an_empty_square_cancels_the_premove_queue() {
    if !browser_available("premove_cancel") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    let (id, mut black) = game(&rig, &s, json!({"fen": AFTER_E4})).await;
    click_move(&s, "d2", "d4").await;
    click_move(&s, "g1", "f3").await;
    assert_eq!(premove_squares(&s).await, ["d2", "d4", "f3", "g1"]);
    let board = s
        .client
        .find(Locator::Css(&square("a4")))
        .await
        .expect("a4");
    let right_click = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: board,
            duration: None,
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_RIGHT,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_RIGHT,
        });
    s.client
        .perform_actions(right_click)
        .await
        .expect("right click");
    wait_for(
        &s,
        "document.querySelectorAll('.board .sq.premove-from').length === 0",
        "the queue cancelled by a right-click",
    )
    .await;
    // Queued again, then a click on an empty square (not a destination) cancels it too.
    click_move(&s, "d2", "d4").await;
    assert_eq!(premove_squares(&s).await, ["d2", "d4"]);
    click(&s, &square("a5")).await;
    wait_for(
        &s,
        "document.querySelectorAll('.board .sq.premove-from').length === 0",
        "the queue cancelled by a click on an empty square",
    )
    .await;
    black_plays(&mut black, "e7e5", "b1").await;
    black_plays(&mut black, "b8c6", "b2").await;
    wait_moves(&[&s], 2).await;
    assert!(sent(&s).await.is_empty(), "a cancelled premove is not sent");
    assert_eq!(server_moves(&rig, &id).await, ["e7e5", "b8c6"]);
    rig.stop(vec![s]).await;
}

/// Sets a setting through the page's own settings module.
async fn set_setting(s: &Session, name: &str, value: Value) {
    let now = js_async(
        s,
        "const [name, value, done] = arguments;
         import('/static/settings.js').then((m) => { m.setSetting(name, value); done(m.setting(name)); }, (e) => done(String(e)));",
        vec![json!(name), value.clone()],
    )
    .await;
    assert_eq!(now, value, "setting {name}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_confirmation_on_nothing_is_sent_until_confirm_and_cancel_restores_the_board() {
    if !browser_available("confirm_moves") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    let (id, mut black) = game(&rig, &s, json!({})).await;
    set_setting(&s, "confirmMoves", json!("on")).await;
    click_move(&s, "e2", "e4").await;
    wait_for(
        &s,
        "!document.querySelector('#confirm-move').hidden",
        "Confirm / Cancel",
    )
    .await;
    assert!(text(&s, "#confirm-move-text").await.contains("e4"));
    assert_eq!(
        js(
            &s,
            "return document.querySelector(\".board .sq[data-sq='e4']\").dataset.piece;"
        )
        .await,
        "P",
        "the sub-move is shown on the board"
    );
    assert!(sent(&s).await.is_empty(), "nothing is sent before Confirm");
    // Cancel (from the keyboard: the focus is on Confirm, Escape cancels).
    let focused = js(
        &s,
        "return document.activeElement && document.activeElement.id;",
    )
    .await;
    assert_eq!(focused, "btn-confirm-move", "Confirm has the focus");
    click(&s, "#btn-cancel-move").await;
    wait_for(
        &s,
        "document.querySelector('#confirm-move').hidden",
        "the bar gone",
    )
    .await;
    let board = js(
        &s,
        "return ['e2', 'e4'].map((q) => document.querySelector(`.board .sq[data-sq='${q}']`).dataset.piece);",
    )
    .await;
    assert_eq!(board, json!(["P", ""]), "Cancel restores the board");
    assert!(sent(&s).await.is_empty());
    // Again, and Confirm sends it.
    click_move(&s, "e2", "e4").await;
    click(&s, "#btn-confirm-move").await;
    assert_eq!(white_move(&mut black).await.d["uci"], "e2e4");
    assert_eq!(server_moves(&rig, &id).await, ["e2e4"]);
    // Premoves are not confirmed: queued on Black's turn, sent when it ends.
    click_move(&s, "d2", "d4").await;
    black_plays(&mut black, "e7e5", "b1").await;
    black_plays(&mut black, "b8c6", "b2").await;
    assert_eq!(white_move(&mut black).await.d["uci"], "d2d4");
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_game_confirms_moves_by_default_and_a_live_game_does_not() {
    if !browser_available("confirm_default") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    let (_, mut black) = game(&rig, &s, json!({"clock": {"days_per_turn": 3}})).await;
    // A typed sub-move follows the same setting (typed once the page has its legal moves).
    wait_for(
        &s,
        "document.querySelectorAll('.sq.movable').length > 0",
        "the legal moves",
    )
    .await;
    type_into(&s, "#move-input", "e4").await;
    click(&s, "#btn-move-input").await;
    wait_for(
        &s,
        "!document.querySelector('#confirm-move').hidden",
        "Confirm / Cancel",
    )
    .await;
    assert!(
        sent(&s).await.is_empty(),
        "a correspondence sub-move waits for Confirm"
    );
    click(&s, "#btn-confirm-move").await;
    assert_eq!(white_move(&mut black).await.d["uci"], "e2e4");
    black.close().await;

    let (_, mut black) = game(
        &rig,
        &s,
        json!({"clock": {"base_secs": 300, "increment_secs": 3}}),
    )
    .await;
    click_move(&s, "e2", "e4").await;
    assert_eq!(white_move(&mut black).await.d["uci"], "e2e4");
    assert!(
        js(&s, "return document.querySelector('#confirm-move').hidden;").await == json!(true),
        "a live game sends at once"
    );
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_premoves_off_nothing_can_be_queued_on_the_opponents_turn() {
    if !browser_available("premoves_off") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    let (_, mut black) = game(&rig, &s, json!({"fen": AFTER_E4})).await;
    wait_for(
        &s,
        "document.querySelector(\".board .sq[data-sq='d2']\").classList.contains('movable')",
        "premove pieces offered",
    )
    .await;
    set_setting(&s, "premoves", json!(false)).await;
    wait_for(
        &s,
        "document.querySelectorAll('.board .sq.movable').length === 0",
        "no piece to pick on the opponent's turn",
    )
    .await;
    black_plays(&mut black, "e7e5", "b1").await;
    black_plays(&mut black, "b8c6", "b2").await;
    wait_moves(&[&s], 2).await;
    assert!(sent(&s).await.is_empty());
    rig.stop(vec![s]).await;
}
