//! The game flow through the UI: two players mate while a spectator sees every sub-move and
//! the PGN matches; abort, keyboard moves, take-back, draw offers, resignation, rematch,
//! reconnection and a claim of victory; the replay page; the README's screenshots.

use super::*;

/// The start of the checkmate scenario: White (Qd4, Pe5) and a Black king on
/// g7 behind its d7 pawn, White at the first sub-move.
const MATE_FEN: &str = "8/3p1pkp/6p1/4P3/3Q4/8/8/6K1 w - - 0 20";
/// What the server must export for it.
const MATE_MOVETEXT: &str = "20. Kf1,Ke1 d5,g5 21. exd6+ Kg8,g4 22. d7,d8=Q# 1-0";

/// Plays a sub-move by dragging the piece with the mouse.
async fn drag_move(s: &Session, from: &str, to: &str) {
    let movable = format!(
        "document.querySelector(\"{}\").classList.contains('movable')",
        square(from)
    );
    wait_for(s, &movable, &format!("{from} to be movable")).await;
    let a = s
        .client
        .find(Locator::Css(&square(from)))
        .await
        .expect("from");
    let b = s.client.find(Locator::Css(&square(to))).await.expect("to");
    let step = |element, ms| PointerAction::MoveToElement {
        element,
        duration: Some(Duration::from_millis(ms)),
        x: 0.0,
        y: 0.0,
    };
    let actions = MouseActions::new("mouse".into())
        .then(step(a, 0))
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::MoveBy {
            duration: Some(Duration::from_millis(50)),
            x: 12.0,
            y: -12.0,
        })
        .then(step(b, 150))
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    s.client.perform_actions(actions).await.expect("drag");
    let _ = s.client.release_actions().await;
}

/// Sends keys to the focused element.
async fn keys(s: &Session, text: &str) {
    s.client
        .active_element()
        .await
        .expect("a focused element")
        .send_keys(text)
        .await
        .expect("keys");
}

/// Plays the checkmate scenario; `shots` saves the screenshots of the README.
async fn mate_scenario(
    rig: &Rig,
    white: &Session,
    black: &Session,
    watcher: &Session,
    clock: &str,
    shots: Option<&Path>,
) -> String {
    let id = create_game(rig, white, "white", clock, Some(MATE_FEN)).await;
    wait_for(
        white,
        "document.querySelector('#invite-link').value.endsWith(location.pathname)",
        "the invite link",
    )
    .await;
    let invite = js(white, "return document.querySelector('#invite-link').value").await;
    let invite = invite.as_str().expect("invite link").to_string();

    black.client.goto(&invite).await.expect("invite link opens");
    click(black, "#btn-join").await;
    // Until its own seat shows, Black's page may still be the spectator's view (same status,
    // White at the bottom): the join's reply and the new state come after the broadcast.
    wait_text(black, "#seat-black", "(you)").await;
    wait_text(white, "#status", "Your turn: move 1 of 2").await;
    wait_text(black, "#status", "White to play: move 1 of 2").await;
    watcher.client.goto(&invite).await.expect("watch");
    wait_text(watcher, "#status", "White to play: move 1 of 2").await;
    wait_text(white, "#spectators", "1 watching").await;
    // A spectator sees no controls and cannot pick a piece.
    assert_eq!(
        js(watcher, "return document.querySelector('#actions').hidden").await,
        json!(true)
    );
    assert_eq!(
        js(
            watcher,
            "return document.querySelectorAll('.sq.movable').length"
        )
        .await,
        json!(0)
    );
    assert_eq!(
        js(
            black,
            "return document.querySelector(\".sq[data-sq='a1']\").classList.contains('light')"
        )
        .await,
        json!(false)
    );
    // The player's colour is at the bottom.
    assert_eq!(
        js(
            black,
            "return document.querySelector('.board .sq').dataset.sq"
        )
        .await,
        json!("h1")
    );
    assert_eq!(
        js(
            white,
            "return document.querySelector('.board .sq').dataset.sq"
        )
        .await,
        json!("a8")
    );
    let all = [white, black, watcher];

    // Turn 20, White: one click-click, one drag.
    click_move(white, "g1", "f1").await;
    wait_moves(&all, 1).await;
    wait_text(white, "#status", "Your turn: move 2 of 2").await;
    drag_move(white, "f1", "e1").await;
    wait_moves(&all, 2).await;
    wait_text(black, "#status", "Your turn: move 1 of 2").await;
    wait_for(
        black,
        &format!(
            "document.querySelector(\"{}\").classList.contains('last2')",
            square("e1")
        ),
        "the last turn highlighted",
    )
    .await;
    wait_for(
        black,
        &format!(
            "document.querySelector(\"{}\").classList.contains('last1')",
            square("g1")
        ),
        "the last turn's S1 highlighted",
    )
    .await;

    // Black's double step, then a reload in the middle of the turn.
    click_move(black, "d7", "d5").await;
    wait_moves(&all, 3).await;
    black.client.refresh().await.expect("reload");
    wait_text(black, "#status", "Your turn: move 2 of 2").await;
    wait_text(black, "#seat-black", "(you)").await;
    wait_moves(&[black], 3).await;
    click_move(black, "g6", "g5").await;
    wait_moves(&all, 4).await;

    // En passant with discovered check: White's turn ends at once.
    click_move(white, "e5", "d6").await;
    wait_moves(&all, 5).await;
    wait_text(white, "#status", "Check: your turn ended").await;
    wait_text(black, "#status", "Your turn: move 1 of 2").await;
    wait_text(black, "#status", "Check").await;
    wait_text(watcher, "#status", "Check: White's turn ended").await;
    // A turn ended by check is a turn of one sub-move, live and from a snapshot.
    watcher.client.refresh().await.expect("reload");
    wait_moves(&[watcher], 5).await;
    wait_text(watcher, "#status", "Check: White's turn ended").await;
    for s in all {
        assert_eq!(
            js(s, MOVE_ROWS).await,
            json!([[["Kf1", "Ke1"], ["d5", "g5"]], [["exd6+"], []]])
        );
    }
    for s in all {
        assert_eq!(
            js(s, &format!("return {}", piece_on("d5"))).await,
            json!(""),
            "the e.p. victim is gone"
        );
        assert_eq!(
            js(s, &format!("return {}", piece_on("d6"))).await,
            json!("P")
        );
    }
    wait_for(
        black,
        &format!(
            "document.querySelector(\"{}\").classList.contains('check')",
            square("g7")
        ),
        "the king in check marked",
    )
    .await;
    if let Some(dir) = shots {
        screenshot(white, &dir.join("game.png")).await;
    }

    click_move(black, "g7", "g8").await;
    wait_moves(&all, 6).await;
    click_move(black, "g5", "g4").await;
    wait_moves(&all, 7).await;

    // Turn 22: the pawn walks on and promotes through the picker (by drag).
    click_move(white, "d6", "d7").await;
    wait_moves(&all, 8).await;
    drag_move(white, "d7", "d8").await;
    wait_for(
        white,
        "!!document.querySelector('.promotion #promo-q')",
        "the promotion picker",
    )
    .await;
    let choices = js(
        white,
        "return [...document.querySelectorAll('.promo-choice')].map(b => b.id).join(' ')",
    )
    .await;
    assert_eq!(choices, json!("promo-q promo-r promo-b promo-n"));
    click(white, "#promo-q").await;
    wait_moves(&all, 9).await;
    for s in all {
        wait_text(s, "#banner", "White wins by checkmate").await;
        wait_text(s, "#banner", "1-0").await;
    }
    wait_text(white, "#banner", "You won").await;
    wait_text(black, "#banner", "You lost").await;
    let shown = js(
        watcher,
        "return document.querySelector('#movelist').dataset.pgn",
    )
    .await;
    assert_eq!(shown, json!(MATE_MOVETEXT.trim_end_matches(" 1-0")));
    if let Some(dir) = shots {
        screenshot(white, &dir.join("finished.png")).await;
    }
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_mate_through_the_ui_while_a_spectator_sees_every_submove_and_the_pgn_matches()
{
    if !browser_available("two_players_mate...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let watcher = rig.driver.session().await;
    let id = mate_scenario(&rig, &white, &black, &watcher, "none", None).await;

    let href = js(
        &white,
        "return document.querySelector('#pgn-link').getAttribute('href')",
    )
    .await;
    assert_eq!(href, json!(format!("/game/{id}.pgn")));
    let (status, pgn) = rig.get(&format!("/game/{id}.pgn")).await;
    assert_eq!(status, 200);
    let (tags, movetext) = pgn
        .split_once("\n\n")
        .expect("tags, a blank line, movetext");
    assert_eq!(movetext.trim(), MATE_MOVETEXT);
    for tag in [
        "[Result \"1-0\"]".to_string(),
        "[Variant \"Marseillais\"]".to_string(),
        "[SetUp \"1\"]".to_string(),
        format!("[FEN \"{MATE_FEN}\"]"),
        "[Termination \"checkmate\"]".to_string(),
    ] {
        assert!(tags.lines().any(|l| l == tag), "{tag} missing from\n{pgn}");
    }
    rig.stop(vec![white, black, watcher]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_keyboard_move_take_back_draw_offer_resign_rematch_reconnect_and_claim_victory_work_through_the_ui()
 {
    if !browser_available("keyboard_move_take_back...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let mut rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    // A game nobody joined can be aborted by its creator.
    create_game(&rig, &white, "white", "none", None).await;
    click(&white, "#btn-abort").await;
    wait_text(&white, "#banner", "Game aborted").await;

    let id = create_game(&rig, &white, "white", "none", None).await;
    black
        .client
        .goto(&rig.url(&format!("/game/{id}")))
        .await
        .expect("join by link");
    click(&black, "#btn-join").await;
    wait_text(&white, "#status", "Your turn: one move").await;

    // White's single first sub-move with the keyboard: focus e2, Enter, up twice, Space.
    js(
        &white,
        &format!(
            "document.querySelector(\"{}\").focus(); return true",
            square("e2")
        ),
    )
    .await;
    keys(&white, &Key::Enter.to_string()).await;
    wait_for(
        &white,
        &format!(
            "document.querySelector(\"{}\").classList.contains('selected')",
            square("e2")
        ),
        "e2 picked",
    )
    .await;
    keys(&white, &Key::Up.to_string()).await;
    keys(&white, &Key::Up.to_string()).await;
    wait_for(
        &white,
        &format!(
            "document.activeElement === document.querySelector(\"{}\")",
            square("e4")
        ),
        "focus on e4",
    )
    .await;
    keys(&white, " ").await;
    wait_moves(&[&white, &black], 1).await;
    assert_eq!(
        js(&black, &format!("return {}", piece_on("e4"))).await,
        json!("P")
    );

    // Black plays S1, takes it back, and plays another turn.
    click_move(&black, "e7", "e5").await;
    wait_moves(&[&white, &black], 2).await;
    wait_text(&black, "#status", "Your turn: move 2 of 2").await;
    click(&black, "#btn-takeback").await;
    wait_moves(&[&white, &black], 1).await;
    wait_text(&black, "#status", "Your turn: move 1 of 2").await;
    for s in [&white, &black] {
        wait_for(
            s,
            &format!("{} === 'p'", piece_on("e7")),
            "the pawn back on e7",
        )
        .await;
        assert_eq!(
            js(s, &format!("return {}", piece_on("e5"))).await,
            json!("")
        );
    }
    click_move(&black, "d7", "d5").await;
    wait_moves(&[&white, &black], 2).await;
    click_move(&black, "g8", "f6").await;
    wait_moves(&[&white, &black], 3).await;
    wait_text(&white, "#movelist", "1.e4d5,Nf6").await;

    // A draw offer is seen by the opponent, who declines it.
    click(&white, "#btn-draw-offer").await;
    wait_text(&white, "#btn-draw-offer", "Draw offered").await;
    click(&black, "#btn-draw-decline").await;
    wait_text(&white, "#btn-draw-offer", "Offer draw").await;
    wait_for(
        &black,
        "!document.querySelector('#btn-draw-accept')",
        "the offer gone",
    )
    .await;

    // Resignation asks for confirmation first.
    click(&white, "#btn-resign").await;
    wait_for(
        &white,
        "!!document.querySelector('#btn-resign-yes')",
        "the confirmation",
    )
    .await;
    assert_eq!(
        text(&white, "#banner").await,
        "",
        "nothing happens before confirming"
    );
    click(&white, "#btn-resign-yes").await;
    for s in [&white, &black] {
        wait_text(s, "#banner", "Black wins by resignation").await;
    }

    // Rematch: offered by White, accepted by Black; colours swap.
    click(&white, "#btn-rematch").await;
    click(&black, "#btn-rematch-accept").await;
    let old = format!("/game/{id}");
    for s in [&white, &black] {
        wait_for(
            s,
            &format!(
                "location.pathname.startsWith('/game/') && location.pathname !== {}",
                json!(old)
            ),
            "the rematch page",
        )
        .await;
    }
    wait_text(&white, "#seat-black", "(you)").await;
    wait_text(&black, "#seat-white", "(you)").await;
    wait_text(&black, "#status", "Your turn").await;
    assert_eq!(
        js(&white, "return location.pathname").await,
        js(&black, "return location.pathname").await
    );

    // The server restarts: both pages say they are offline, come back by
    // themselves and the game goes on.
    rig.pause().await;
    for s in [&white, &black] {
        wait_text(s, "#conn", "Offline").await;
    }
    rig.resume().await;
    for s in [&white, &black] {
        wait_text(s, "#conn", "Online").await;
    }
    click_move(&black, "d2", "d4").await;
    wait_moves(&[&white, &black], 1).await;
    click_move(&white, "g8", "f6").await;
    wait_moves(&[&white, &black], 2).await;
    click_move(&white, "b8", "c6").await;
    wait_moves(&[&white, &black], 3).await;

    // The new Black (the first session) leaves; the new White sees it and
    // claims the game.
    white.client.goto("about:blank").await.expect("leave");
    wait_text(&black, "#seat-black", "offline").await;
    // The button is drawn disabled at once and enabled when the server's grace period has
    // passed (the page counts it from the server's word, so never before the server would
    // accept): one click then wins.
    wait_for(
        &black,
        "(document.querySelector('#btn-claim-victory') || {disabled: true}).disabled === false",
        "the claim-victory button enabled",
    )
    .await;
    click(&black, "#btn-claim-victory").await;
    wait_text(&black, "#banner", "White wins by abandonment").await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_page_explains_a_bad_pgn_and_steps_through_a_good_one() {
    if !browser_available("the_replay_page...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.client
        .goto(&rig.url("/replay"))
        .await
        .expect("replay page");
    let input = s
        .client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("#replay-input"))
        .await
        .expect("input");
    input.send_keys("1. e4 e5,Ke3 2. Nf3").await.expect("type");
    click(&s, "#replay-load").await;
    wait_text(&s, "#replay-error", "turn 1, sub-move 2").await;
    wait_text(&s, "#replay-error", "Ke3").await;
    wait_text(&s, "#replay-error", "not a legal sub-move").await;

    input.clear().await.expect("clear");
    input
        .send_keys("1. e4 e5,Nc6 2. Qh5,Nf3 g6,gxh5")
        .await
        .expect("type");
    click(&s, "#replay-load").await;
    wait_moves(&[&s], 7).await;
    assert_eq!(text(&s, "#replay-error").await, "");
    wait_text(&s, "#replay-where", "gxh5").await;
    // Step back with the arrow key (focus off the text box first).
    js(&s, "document.activeElement.blur(); return true").await;
    s.client
        .find(Locator::Css("#nav-next"))
        .await
        .expect("a button")
        .send_keys(&Key::Left.to_string())
        .await
        .expect("arrow");
    wait_text(&s, "#replay-where", "Turn 2 (black), sub-move 1: g6").await;
    click(&s, "#nav-first").await;
    wait_text(&s, "#replay-where", "Start position").await;
    assert_eq!(
        js(&s, &format!("return {}", piece_on("e2"))).await,
        json!("P")
    );
    click(&s, "#movelist .mv[data-index='3']").await;
    wait_text(&s, "#replay-where", "Turn 2 (white), sub-move 1: Qh5").await;
    assert_eq!(
        js(&s, &format!("return {}", piece_on("h5"))).await,
        json!("Q")
    );

    // A record taken up at S2: the server's turns, its one sub-move marked "2".
    type_into(
        &s,
        "#replay-input",
        &format!("[SetUp \"1\"]\n[FEN \"{SECOND_SUBMOVE_FEN}\"]\n\n1. ,d4 e5,Nc6 *"),
    )
    .await;
    click(&s, "#replay-load").await;
    wait_moves(&[&s], 3).await;
    assert_eq!(js(&s, MOVE_ROWS).await, json!([[["d4"], ["e5", "Nc6"]]]));
    wait_text(&s, "#movelist .turn.white", ",d4").await;
    click(&s, "#movelist .mv[data-index='0']").await;
    wait_text(&s, "#replay-where", "sub-move 2: d4").await;
    assert_eq!(marks_on(&s, "d4").await, json!([false, true]));
    rig.stop(vec![s]).await;
}

/// Rewrites docs/screenshots/{lobby,game,finished,phone}.png.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "writes docs/screenshots; run on purpose"]
async fn capture_screenshots() {
    if !browser_available("capture_screenshots") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let watcher = rig.driver.session().await;
    // Something to list in the lobby: an open game and one in progress.
    let open = rig.driver.session().await;
    create_game(&rig, &open, "random", "10+5", None).await;
    let id = create_game(&rig, &open, "black", "3+2", None).await;
    watcher
        .client
        .goto(&rig.url(&format!("/game/{id}")))
        .await
        .expect("join");
    click(&watcher, "#btn-join").await;
    wait_text(&watcher, "#status", "Your turn").await;
    create_game(&rig, &open, "white", "15+10", None).await;
    white.client.goto(&rig.url("/")).await.expect("lobby");
    wait_for(&white, "document.querySelectorAll('#open-games .join').length >= 2 && document.querySelectorAll('#playing-games a').length >= 1", "lobby lists").await;
    screenshot(&white, &dir.join("lobby.png")).await;
    let watcher2 = rig.driver.session().await;
    mate_scenario(&rig, &white, &black, &watcher2, "5+3", Some(&dir)).await;
    // The same finished game as a spectator sees it on a phone.
    watcher2
        .client
        .set_window_size(390, 844)
        .await
        .expect("phone size");
    screenshot(&watcher2, &dir.join("phone.png")).await;
    rig.stop(vec![white, black, watcher, watcher2, open]).await;
}
