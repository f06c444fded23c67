//! The game page (H6): joining by invite, notices, layout, what is said in words, the version
//! on moves, the typed move input.

use super::*;

/// `POST path` from inside the page, then its game page (tests/support/browser.rs).
async fn api_seat(rig: &Rig, s: &Session, path: &str, body: Value) -> String {
    browser::api_seat(s, &rig.base, path, body).await
}

/// Records every frame the page sends (`window.__frames`) and the socket
/// (`window.__ws`) by wrapping `WebSocket.prototype.send`.
const RECORD_FRAMES: &str = "if (!window.__frames) {
    window.__frames = [];
    window.__send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      window.__frames.push(String(data));
      window.__ws = this;
      return window.__send.call(this, data);
    };
  }
  return true;";

/// The `d` of every `move` frame the page sent.
async fn sent_moves(s: &Session) -> Value {
    js(
        s,
        "return window.__frames.map((f) => JSON.parse(f)).filter((f) => f.t === 'move').map((f) => f.d)",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invite_link_offers_join_and_watch_and_takes_the_seat_only_when_join_is_clicked() {
    if !browser_available("an_invite_link_offers_join_and_watch...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let guest = rig.driver.session().await;
    let friend = rig.driver.session().await;
    let id = api_seat(&rig, &white, "/api/games", json!({"color": "white"})).await;
    wait_text(&white, "#status", "Waiting").await;
    let link = rig.url(&format!("/game/{id}"));

    guest.client.goto(&link).await.expect("the invite link");
    wait_text(&guest, "#btn-join", "Join as Black").await;
    wait_text(&guest, "#btn-watch", "Watch").await;
    let seats = |body: &str| -> Value {
        let state: Value = serde_json::from_str(body).expect("a JSON state");
        json!([state["status"], state["seats"]["black"]["taken"]])
    };
    let (_, body) = rig.get(&format!("/api/games/{id}")).await;
    assert_eq!(
        seats(&body),
        json!(["open", false]),
        "opening the link took nothing"
    );
    click(&guest, "#btn-watch").await;
    wait_for(
        &guest,
        "!document.querySelector('#btn-join')",
        "the offer put away",
    )
    .await;
    wait_text(&guest, "#game-info", "watching").await;
    let (_, body) = rig.get(&format!("/api/games/{id}")).await;
    assert_eq!(
        seats(&body),
        json!(["open", false]),
        "watching took nothing"
    );

    friend.client.goto(&link).await.expect("the invite link");
    click(&friend, "#btn-join").await;
    wait_text(&friend, "#seat-black", "(you)").await;
    wait_text(&friend, "#status", "White to play").await;
    assert_eq!(
        js(
            &friend,
            "return document.querySelector('.board .sq').dataset.sq"
        )
        .await,
        json!("h1"),
        "the new Black sees its side at the bottom"
    );
    wait_text(&white, "#status", "Your turn").await;
    wait_text(&guest, "#status", "White to play").await;
    let (_, body) = rig.get(&format!("/api/games/{id}")).await;
    assert_eq!(seats(&body), json!(["playing", true]));
    click_move(&white, "e2", "e4").await;
    wait_moves(&[&white, &friend, &guest], 1).await;
    rig.stop(vec![white, guest, friend]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_notice_clears_once_the_player_moves_on() {
    if !browser_available("an_error_notice_clears...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig, &white, &black, json!({})).await;
    js(&white, RECORD_FRAMES).await;
    click_move(&white, "e2", "e4").await;
    wait_moves(&[&white, &black], 1).await;
    // Claiming victory over a connected opponent: the server refuses.
    js(
        &white,
        "window.__ws.send(JSON.stringify({t: 'claim_victory'})); return true",
    )
    .await;
    wait_for(
        &white,
        "document.querySelector('#notice').textContent !== ''",
        "the refusal shown",
    )
    .await;
    click_move(&black, "e7", "e5").await;
    wait_moves(&[&white, &black], 2).await;
    click_move(&black, "b8", "c6").await;
    wait_moves(&[&white, &black], 3).await;
    click_move(&white, "d2", "d4").await;
    wait_moves(&[&white, &black], 4).await;
    wait_for(
        &white,
        "document.querySelector('#notice').textContent === ''",
        "the notice cleared by the player's next move",
    )
    .await;
    rig.stop(vec![white, black]).await;
}

/// The WCAG contrast ratio of the current move's text on its background,
/// or -1 when it is not under the mouse.
const CURRENT_MOVE_CONTRAST: &str = "const e = document.querySelector('#movelist .mv.current');
  if (!e || !e.matches(':hover')) return -1;
  const cs = getComputedStyle(e);
  const rgb = (s) => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  const a = lum(rgb(cs.color));
  const b = lum(rgb(cs.backgroundColor));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_current_move_in_the_list_stays_readable_under_the_mouse() {
    if !browser_available("the_current_move_in_the_list...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig, &white, &black, json!({})).await;
    click_move(&white, "e2", "e4").await;
    click_move(&black, "e7", "e5").await;
    click_move(&black, "b8", "c6").await;
    wait_moves(&[&white], 3).await;
    click(&white, "#movelist .mv[data-index='1']").await;
    wait_for(
        &white,
        "!!document.querySelector(\"#movelist .mv.current[data-index='1']\")",
        "the current move",
    )
    .await;
    let current = white
        .client
        .find(Locator::Css("#movelist .mv.current"))
        .await
        .expect("the current move");
    let hover = MouseActions::new("mouse".into()).then(PointerAction::MoveToElement {
        element: current,
        duration: Some(Duration::from_millis(50)),
        x: 0.0,
        y: 0.0,
    });
    white.client.perform_actions(hover).await.expect("hover");
    let ratio = js(&white, CURRENT_MOVE_CONTRAST).await;
    let ratio = ratio.as_f64().expect("a number");
    assert!(
        ratio >= 4.5,
        "contrast under the mouse is {ratio:.2}:1 (or -1: not hovered)"
    );
    let _ = white.client.release_actions().await;
    rig.stop(vec![white, black]).await;
}

/// The page's viewport as `(innerWidth, innerHeight)`.
async fn viewport(s: &Session) -> (i64, i64) {
    let inner = js(s, "return [innerWidth, innerHeight]").await;
    (
        inner[0].as_i64().unwrap_or(0),
        inner[1].as_i64().unwrap_or(0),
    )
}

/// Makes the viewport (not the window) `w` x `h`: the window has a frame of its own, whose
/// size is learnt by measuring, and the page learns of a resize some time after the WebDriver
/// call returns, so each measure waits (bounded) for the page's size to change first.
async fn set_viewport(s: &Session, w: i64, h: i64) {
    let mut window = (w, h);
    for _ in 0..8 {
        let before = viewport(s).await;
        s.client
            .set_window_size(window.0 as u32, window.1 as u32)
            .await
            .expect("resize");
        let deadline = Instant::now() + Duration::from_secs(3);
        let mut inner = viewport(s).await;
        while inner == before && inner != (w, h) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
            inner = viewport(s).await;
        }
        if inner == (w, h) {
            return;
        }
        window = (window.0 + w - inner.0, window.1 + h - inner.1);
    }
}

/// The elements that must be visible without scrolling but are not, with their boxes.
const OUTSIDE_VIEWPORT: &str = "const out = [];
  const width = document.documentElement.clientWidth; // without a scrollbar
  for (const sel of ['#clock-white', '#clock-black', '#status', '#board']) {
    const e = document.querySelector(sel);
    const r = e ? e.getBoundingClientRect() : null;
    if (!r || r.width === 0 || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > width) {
      out.push(`${sel} ${JSON.stringify(r)} in ${width}x${innerHeight}`);
    }
  }
  if (document.documentElement.scrollWidth > width) out.push(`scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  return out;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_800x700_and_on_a_390x844_phone_the_board_leaves_the_clocks_and_status_in_the_window() {
    if !browser_available("at_800x700_and_on_a_phone...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(
        &rig,
        &white,
        &black,
        json!({"clock": {"base_secs": 300, "increment_secs": 3}}),
    )
    .await;
    for (w, h, min_board) in [(800_i64, 700_i64, 400.0), (390, 844, 300.0)] {
        set_viewport(&white, w, h).await;
        wait_for(
            &white,
            &format!("innerWidth === {w} && innerHeight === {h}"),
            "the viewport size",
        )
        .await;
        // The board is sized by the page after the resize: measured once it has drawn.
        frames_drawn(&white).await;
        maybe_screenshot(&white, &format!("game-{w}x{h}")).await;
        assert_eq!(js(&white, OUTSIDE_VIEWPORT).await, json!([]), "at {w}x{h}");
        let board = js(
            &white,
            "return document.querySelector('#board').getBoundingClientRect().width",
        )
        .await;
        assert!(
            board.as_f64().unwrap_or(0.0) >= min_board,
            "the board is {board} px wide at {w}x{h}"
        );
    }
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offers_declines_and_takebacks_are_said_in_words_to_players_and_spectators() {
    if !browser_available("draw_offers_declines_and_takebacks...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let watcher = rig.driver.session().await;
    let id = two_player_game(&rig, &white, &black, json!({})).await;
    watcher
        .client
        .goto(&rig.url(&format!("/game/{id}")))
        .await
        .expect("watch");
    wait_text(&watcher, "#status", "White to play").await;
    let all = [&white, &black, &watcher];
    click_move(&white, "e2", "e4").await;
    wait_moves(&all, 1).await;
    click_move(&black, "g8", "f6").await;
    wait_moves(&all, 2).await;
    click(&black, "#btn-takeback").await;
    for s in all {
        wait_text(s, "#said", "Black took back Nf6").await;
    }
    click_move(&black, "d7", "d5").await;
    click_move(&black, "b8", "c6").await;
    wait_moves(&all, 3).await;
    click(&white, "#btn-draw-offer").await;
    for s in all {
        wait_text(s, "#said", "White offers a draw").await;
    }
    maybe_screenshot(&watcher, "said-draw-offer").await;
    click(&black, "#btn-draw-decline").await;
    for s in all {
        wait_text(s, "#said", "Draw declined").await;
    }
    rig.stop(vec![white, black, watcher]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opponent_gone_offline_is_said_with_a_countdown_and_claim_victory_waits_for_it() {
    if !browser_available("an_opponent_gone_offline...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start_with(|c| c.disconnect_grace = Duration::from_secs(5)).await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let watcher = rig.driver.session().await;
    let id = two_player_game(&rig, &white, &black, json!({})).await;
    watcher
        .client
        .goto(&rig.url(&format!("/game/{id}")))
        .await
        .expect("watch");
    wait_text(&watcher, "#status", "White to play").await;
    click_move(&white, "e2", "e4").await;
    click_move(&black, "e7", "e5").await;
    click_move(&black, "b8", "c6").await;
    wait_moves(&[&white, &black, &watcher], 3).await;
    black.client.goto("about:blank").await.expect("leave");
    wait_text(
        &white,
        "#away-note",
        "Black is offline: you may claim victory in 0:0",
    )
    .await;
    let shown = js(
        &white,
        "const b = document.querySelector('#btn-claim-victory');
         return [document.querySelector('#away-note').textContent, !!b && b.disabled]",
    )
    .await;
    let note = shown[0].as_str().unwrap_or_default().to_string();
    if !note.contains("now") {
        assert_eq!(
            shown[1],
            json!(true),
            "claiming waits for the countdown ({note})"
        );
    }
    wait_text(&watcher, "#away-note", "Black is offline").await;
    maybe_screenshot(&white, "away-countdown").await;
    wait_text(&white, "#away-note", "you may claim victory now").await;
    click(&white, "#btn-claim-victory").await;
    wait_text(&white, "#banner", "White wins by abandonment").await;
    wait_text(&watcher, "#banner", "White wins by abandonment").await;
    rig.stop(vec![white, black, watcher]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_the_page_is_offline_the_clocks_stop_and_the_status_is_greyed() {
    if !browser_available("while_the_page_is_offline...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let mut rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(
        &rig,
        &white,
        &black,
        json!({"clock": {"base_secs": 300, "increment_secs": 3}}),
    )
    .await;
    click_move(&white, "e2", "e4").await;
    click_move(&black, "e7", "e5").await;
    click_move(&black, "b8", "c6").await;
    wait_moves(&[&white, &black], 3).await;
    wait_for(
        &white,
        "document.querySelector('#clock-white').classList.contains('running')",
        "White's clock running",
    )
    .await;
    rig.pause().await;
    wait_text(&white, "#conn", "Offline: reconnecting").await;
    wait_for(
        &white,
        "document.querySelector('#status').classList.contains('offline')",
        "the status greyed",
    )
    .await;
    // The stopped clock is drawn on the next animation frame: read it once that has run.
    frames_drawn(&white).await;
    let before = text(&white, "#clock-white").await;
    maybe_screenshot(&white, "offline").await;
    // That something does not happen takes time to show: the clock shows whole seconds, so
    // 2.5 s would have moved it twice.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        text(&white, "#clock-white").await,
        before,
        "the local clock stopped"
    );
    rig.resume().await;
    wait_text(&white, "#conn", "Online").await;
    wait_for(
        &white,
        "!document.querySelector('#status').classList.contains('offline')",
        "the status back",
    )
    .await;
    click_move(&white, "d2", "d4").await;
    wait_moves(&[&white, &black], 4).await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_turn_marks_its_first_and_second_submove_with_distinct_1_and_2_marks() {
    if !browser_available("the_last_turn_marks...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig, &white, &black, json!({})).await;
    click_move(&white, "e2", "e4").await;
    click_move(&black, "e7", "e5").await;
    click_move(&black, "b8", "c6").await;
    wait_moves(&[&white, &black], 3).await;
    let marks = js(
        &white,
        "const bg = (s) => getComputedStyle(document.querySelector(`.board .sq[data-sq='${s}']`)).backgroundImage;
         return ['e5', 'c6', 'e7', 'b8', 'e4'].map(bg)",
    )
    .await;
    let mark = |i: usize| marks[i].as_str().unwrap_or_default().to_string();
    assert!(
        mark(0).contains("url("),
        "S1's square carries a mark: {marks}"
    );
    assert!(
        mark(1).contains("url("),
        "S2's square carries a mark: {marks}"
    );
    assert_ne!(mark(0), mark(1), "the two marks differ");
    for i in 2..5 {
        assert!(
            !mark(i).contains("url("),
            "only the destinations of the last turn: {marks}"
        );
    }
    maybe_screenshot(&white, "marks").await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_game_offers_no_rematch() {
    if !browser_available("an_aborted_game_offers_no_rematch") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig, &white, &black, json!({})).await;
    click(&white, "#btn-abort").await;
    for s in [&white, &black] {
        wait_text(s, "#banner", "Game aborted").await;
        assert_eq!(
            js(
                s,
                "return !!document.querySelector('#btn-rematch, #btn-rematch-accept')"
            )
            .await,
            json!(false),
            "no rematch of an aborted game"
        );
    }
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_promotion_picker_opens_on_the_promotion_square() {
    if !browser_available("the_promotion_picker_opens...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(
        &rig,
        &white,
        &black,
        json!({"fen": "k7/3P4/8/8/8/8/8/K7 w - - 0 40"}),
    )
    .await;
    click_move(&white, "d7", "d8").await;
    wait_for(&white, "!!document.querySelector('#promo-q')", "the picker").await;
    let placed = js(
        &white,
        "const c = (e) => { const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
         const d8 = document.querySelector(\".board .sq[data-sq='d8']\").getBoundingClientRect();
         const inside = (sel, column) => { const [x, y] = c(document.querySelector(sel)); return x > d8.left && x < d8.right && (column || (y > d8.top && y < d8.bottom)); };
         return [inside('#promo-q', false), inside('#promo-n', true)]",
    )
    .await;
    maybe_screenshot(&white, "promotion").await;
    assert_eq!(
        placed,
        json!([true, true]),
        "the queen on d8, the others below it in the d-file"
    );
    click(&white, "#promo-q").await;
    wait_moves(&[&white, &black], 1).await;
    assert_eq!(
        js(&black, &format!("return {}", piece_on("d8"))).await,
        json!("Q")
    );
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviewing_during_your_own_turn_is_said_and_back_to_the_game_returns() {
    if !browser_available("reviewing_during_your_own_turn...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig, &white, &black, json!({})).await;
    click_move(&white, "e2", "e4").await;
    click_move(&black, "e7", "e5").await;
    click_move(&black, "b8", "c6").await;
    wait_moves(&[&white], 3).await;
    wait_text(&white, "#status", "Your turn: move 1 of 2").await;
    click(&white, "#movelist .mv[data-index='0']").await;
    wait_text(&white, "#status", "reviewing").await;
    maybe_screenshot(&white, "reviewing").await;
    click(&white, "#btn-back-to-game").await;
    wait_text(&white, "#status", "Your turn: move 1 of 2").await;
    assert!(!text(&white, "#status").await.contains("reviewing"));
    assert_eq!(
        js(
            &white,
            "return !!document.querySelector('#btn-back-to-game:not([hidden])')"
        )
        .await,
        json!(false)
    );
    click_move(&white, "d2", "d4").await;
    wait_moves(&[&white, &black], 4).await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_frame_carries_the_version_of_the_last_event_the_page_applied() {
    if !browser_available("a_move_frame_carries_the_version...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig, &white, &black, json!({})).await;
    js(&white, RECORD_FRAMES).await;
    js(&black, RECORD_FRAMES).await;
    // Version 1 is the join; each sub-move is one more.
    click_move(&white, "e2", "e4").await;
    wait_moves(&[&white, &black], 1).await;
    click_move(&black, "e7", "e5").await;
    wait_moves(&[&white, &black], 2).await;
    let white_moves = sent_moves(&white).await;
    let black_moves = sent_moves(&black).await;
    assert_eq!(white_moves[0]["uci"], json!("e2e4"));
    assert_eq!(white_moves[0]["v"], json!(1), "{white_moves}");
    assert_eq!(black_moves[0]["uci"], json!("e7e5"));
    assert_eq!(black_moves[0]["v"], json!(2), "{black_moves}");
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_move_refusal_is_a_gentle_notice_and_the_page_resyncs() {
    if !browser_available("a_stale_move_refusal...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig, &white, &black, json!({})).await;
    js(&white, RECORD_FRAMES).await;
    click_move(&white, "e2", "e4").await;
    click_move(&black, "e7", "e5").await;
    click_move(&black, "b8", "c6").await;
    wait_moves(&[&white, &black], 3).await;
    // The next move frame does not reach the server: the page is answered
    // as a server refusing a stale version would answer it.
    js(
        &white,
        "window.__frames = [];
         WebSocket.prototype.send = function (data) {
           const m = JSON.parse(data);
           if (m.t === 'move' && !window.__refused) {
             window.__refused = m;
             const ws = this;
             setTimeout(() => ws.onmessage(new MessageEvent('message', {data: JSON.stringify(
               {t: 'error', d: {code: 'stale', message: `version ${m.d.v} is not the latest`, id: m.d.id}})})), 50);
             return;
           }
           window.__frames.push(String(data));
           return window.__send.call(this, data);
         };
         return true",
    )
    .await;
    click_move(&white, "d2", "d4").await;
    wait_for(
        &white,
        "document.querySelector('#notice').classList.contains('gentle') && document.querySelector('#notice').textContent.includes('moved on')",
        "a gentle notice",
    )
    .await;
    wait_for(
        &white,
        "window.__frames.some((f) => JSON.parse(f).t === 'hello')",
        "a resync asked for",
    )
    .await;
    wait_for(
        &white,
        &format!("{} === 'P'", piece_on("d2")),
        "the pawn back on d2",
    )
    .await;
    click_move(&white, "d2", "d4").await;
    wait_moves(&[&white, &black], 4).await;
    wait_for(
        &white,
        "document.querySelector('#notice').textContent === ''",
        "the notice gone once the move went through",
    )
    .await;
    rig.stop(vec![white, black]).await;
}

/// Types `text` and Enter into the move input, once the page knows its legal moves (a piece
/// it may pick): the turn can show before they come (from the state that follows a join).
async fn type_move(s: &Session, text: &str) {
    wait_for(
        s,
        "document.querySelectorAll('.sq.movable').length > 0",
        "the legal moves",
    )
    .await;
    let input = s
        .client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("#move-input"))
        .await
        .expect("the move input");
    wait_for(
        s,
        "!document.querySelector('#move-input').disabled",
        "the move input enabled",
    )
    .await;
    input.send_keys(text).await.expect("type");
    input
        .send_keys(&Key::Enter.to_string())
        .await
        .expect("Enter");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_a_sub_move_in_san_or_uci_and_enter_plays_it() {
    if !browser_available("typing_a_sub_move...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig, &white, &black, json!({})).await;
    assert_eq!(
        js(
            &white,
            "const l = document.querySelector('label[for=move-input]'); return !!l && l.textContent.trim() !== ''"
        )
        .await,
        json!(true),
        "the move input has a label"
    );
    type_move(&white, "e4").await;
    wait_moves(&[&white, &black], 1).await;
    type_move(&black, "e7e5").await;
    wait_moves(&[&white, &black], 2).await;
    type_move(&black, "Qh4").await;
    wait_moves(&[&white, &black], 3).await;
    type_move(&white, "Nf3").await;
    wait_moves(&[&white, &black], 4).await;
    assert_eq!(
        js(&black, &format!("return {}", piece_on("f3"))).await,
        json!("N")
    );
    assert_eq!(
        js(&black, &format!("return {}", piece_on("h4"))).await,
        json!("q")
    );
    type_move(&white, "Ke3").await;
    wait_text(&white, "#notice", "Ke3").await;
    assert_eq!(
        js(
            &white,
            "return document.querySelectorAll('#movelist .mv').length"
        )
        .await,
        json!(4),
        "nothing played"
    );
    js(
        &white,
        "document.querySelector('#move-input').value = ''; return true",
    )
    .await;
    type_move(&white, "Ke2").await;
    wait_moves(&[&white, &black], 5).await;
    rig.stop(vec![white, black]).await;
}
