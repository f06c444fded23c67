//! The browser client driven in real headless Chromium (through chromedriver
//! and the `fantoccini` WebDriver client) against the real server started
//! in-process on 127.0.0.1:0.
//!
//! Without Chromium and chromedriver these tests are skipped with a loud
//! message, except when `CI` is set (`.ci/run`), where they fail. The
//! scenarios run one at a time (a static mutex: the machine has two cores)
//! and every wait polls with a deadline; nothing measures wall-clock time.
//!
//! `cargo test --test browser game::capture_screenshots -- --ignored` rewrites the
//! PNGs of docs/screenshots/ (lobby, game in progress, finished game, phone).

use crate::browser;
use crate::support;

use std::path::Path;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
use fantoccini::key::Key;
use marseillais::server::config::Config;
use serde_json::{Value, json};

use browser::{
    Driver, SERIAL, Session, WAIT, browser_available, click, click_move, frames_drawn, js, square,
    text, type_into, wait_for, wait_moves, wait_text,
};

/// The start of the checkmate scenario: White (Qd4, Pe5) and a Black king on
/// g7 behind its d7 pawn, White at the first sub-move.
const MATE_FEN: &str = "8/3p1pkp/6p1/4P3/3Q4/8/8/6K1 w - - 0 20";
/// What the server must export for it.
const MATE_MOVETEXT: &str = "20. Kf1,Ke1 d5,g5 21. exd6+ Kg8,g4 22. d7,d8=Q# 1-0";

/// The server, a chromedriver and the address to browse.
struct Rig {
    server: support::rig::Rig,
    driver: Driver,
    base: String,
}

impl Rig {
    async fn start() -> Rig {
        Rig::start_with(|_| {}).await
    }

    /// [`Rig::start`] with some settings changed first.
    async fn start_with(edit: impl FnOnce(&mut Config) + 'static) -> Rig {
        let server = support::rig::Rig::builder()
            // Short, so that claiming victory over a vanished opponent is quick to test.
            .config(|config| config.disconnect_grace = Duration::from_secs(1))
            .config(edit)
            // Restarts listen on the same port, so that browsers can reconnect.
            .keep_port()
            .start()
            .await;
        let base = format!("http://{}", server.addr());
        Rig {
            server,
            driver: Driver::start(),
            base,
        }
    }

    /// Stops the server (sockets close with 1001); [`Rig::resume`] starts it again.
    async fn pause(&mut self) {
        self.server.pause().await;
    }

    /// Starts the server again on the same port and data directory.
    async fn resume(&mut self) {
        self.server.resume().await;
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn stop(self, sessions: Vec<Session>) {
        for s in sessions {
            let _ = s.client.close().await;
        }
        self.server.stop().await;
    }

    /// `GET path`: (status, body).
    async fn get(&self, path: &str) -> (u16, String) {
        support::http::http(self.server.addr(), "GET", path, None).await
    }
}

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

fn piece_on(name: &str) -> String {
    format!("document.querySelector(\"{}\").dataset.piece", square(name))
}

/// Creates a game from the lobby form; returns its id once the creator is on the game page.
async fn create_game(
    rig: &Rig,
    s: &Session,
    colour: &str,
    clock: &str,
    fen: Option<&str>,
) -> String {
    s.client.goto(&rig.url("/")).await.expect("lobby");
    click(
        s,
        &format!("label.choice:has(input[name=clock][value='{clock}'])"),
    )
    .await;
    click(
        s,
        &format!("label.choice:has(input[name=color][value='{colour}'])"),
    )
    .await;
    if let Some(fen) = fen {
        click(s, ".fen-start summary").await;
        let input = s
            .client
            .find(Locator::Css("#fen-input"))
            .await
            .expect("fen input");
        input.send_keys(fen).await.expect("type the FEN");
    }
    click(s, "#create-btn").await;
    let path = wait_for(
        s,
        "location.pathname.startsWith('/game/') && document.querySelector('#status').textContent.includes('Waiting') && location.pathname",
        "the game page of the new game",
    )
    .await;
    let id = path
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("/game/")
        .to_string();
    assert_eq!(id.len(), 8, "a game id in {path}");
    id
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

async fn screenshot(s: &Session, path: &Path) {
    // The clocks and the last sub-move's highlight are drawn on animation frames.
    frames_drawn(s).await;
    let png = s.client.screenshot().await.expect("screenshot");
    std::fs::write(path, png).expect("write the screenshot");
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

// ---------------------------------------------------------------------------
// Lobby, replay, board and accessibility (issue 8, client side).

/// Saves a screenshot as `$MARSEILLAIS_SHOTS/{name}.png` when that variable
/// is set, so that a person can look at what a test saw.
async fn maybe_screenshot(s: &Session, name: &str) {
    if let Some(dir) = std::env::var_os("MARSEILLAIS_SHOTS") {
        screenshot(s, &Path::new(&dir).join(format!("{name}.png"))).await;
    }
}

/// The ids `GET /api/games?status=open` lists, fetched by the page.
async fn open_game_ids(s: &Session) -> Vec<String> {
    let ids = js_async(
        s,
        "const done = arguments[arguments.length - 1];
         fetch('/api/games?status=open').then((r) => r.json()).then((j) => done(j.games.map((g) => g.id)));",
        vec![],
    )
    .await;
    serde_json::from_value(ids).unwrap_or_default()
}

/// What the browser computed for one square: its `::before` content (the
/// rank label, or `none`) and its background image (where the dot is drawn).
async fn square_style(s: &Session, name: &str) -> (String, String) {
    let script = format!(
        "const c = document.querySelector(\"{}\"); return [getComputedStyle(c, '::before').content, getComputedStyle(c).backgroundImage];",
        square(name)
    );
    let value = js(s, &script).await;
    let part = |i: usize| value[i].as_str().unwrap_or_default().to_string();
    (part(0), part(1))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_move_dots_on_the_edge_file_leave_the_rank_labels_in_place() {
    if !browser_available("legal_move_dots...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let id = create_game(&rig, &white, "white", "none", None).await;
    black
        .client
        .goto(&rig.url(&format!("/game/{id}")))
        .await
        .expect("join by link");
    click(&black, "#btn-join").await;
    wait_text(&white, "#status", "Your turn: one move").await;

    // White picks a2: a3 and a4 are destinations on the a-file, which carries the rank labels.
    click(&white, &square("a2")).await;
    for (sq, rank) in [("a3", "3"), ("a4", "4")] {
        wait_for(
            &white,
            &format!(
                "document.querySelector(\"{}\").classList.contains('dest')",
                square(sq)
            ),
            &format!("{sq} shown as a destination"),
        )
        .await;
        let (before, background) = square_style(&white, sq).await;
        assert_eq!(before, format!("\"{rank}\""), "the rank label on {sq}");
        assert!(
            background.contains("radial-gradient"),
            "a dot drawn on {sq}: {background}"
        );
    }
    maybe_screenshot(&white, "dots-a-file").await;
    // Off the edge there is no label, and still a dot.
    click(&white, &square("e2")).await;
    wait_for(
        &white,
        &format!(
            "document.querySelector(\"{}\").classList.contains('dest')",
            square("e3")
        ),
        "e3 shown as a destination",
    )
    .await;
    let (before, background) = square_style(&white, "e3").await;
    assert_eq!(before, "none", "no label on e3");
    assert!(background.contains("radial-gradient"), "a dot on e3");
    let (_, background) = square_style(&white, "a3").await;
    assert_eq!(background, "none", "the a3 dot went with the pick");

    // Black sees the board from its side: the h-file carries the labels.
    click_move(&white, "a2", "a3").await;
    wait_moves(&[&white, &black], 1).await;
    wait_text(&black, "#status", "Your turn: move 1 of 2").await;
    click(&black, &square("h7")).await;
    wait_for(
        &black,
        &format!(
            "document.querySelector(\"{}\").classList.contains('dest')",
            square("h6")
        ),
        "h6 shown as a destination",
    )
    .await;
    let (before, background) = square_style(&black, "h6").await;
    assert_eq!(before, "\"6\"", "the rank label on h6 for Black");
    assert!(background.contains("radial-gradient"), "a dot on h6");
    maybe_screenshot(&black, "dots-h-file").await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_error_names_the_missing_submove_and_the_board_shows_where_the_record_stops() {
    if !browser_available("a_replay_error...") {
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
    // Black's turn 1 is only `e5`: its sub-move 2 is missing (e5 is sub-move 1).
    input.send_keys("1. e4 e5 2. Nf3 Nc6").await.expect("type");
    click(&s, "#replay-load").await;
    wait_text(&s, "#replay-error", "Turn 1 (Black)").await;
    wait_text(&s, "#replay-error", "sub-move 2 is missing").await;
    let error = text(&s, "#replay-error").await;
    assert!(
        !error.contains("sub-move 2 'e5'"),
        "e5 is sub-move 1: {error}"
    );
    // The board stands where the record stops: after 1. e4 e5.
    wait_for(
        &s,
        &format!("{} === 'p'", piece_on("e5")),
        "e5 on the board",
    )
    .await;
    for (sq, piece) in [("e4", "P"), ("e2", ""), ("e7", ""), ("g1", "N")] {
        assert_eq!(
            js(&s, &format!("return {}", piece_on(sq))).await,
            json!(piece),
            "{sq}"
        );
    }
    wait_moves(&[&s], 2).await;
    wait_text(&s, "#replay-where", "e5").await;
    maybe_screenshot(&s, "replay-error").await;

    // An illegal S2: the board shows the position it was tried in.
    input.clear().await.expect("clear");
    input.send_keys("1. d4 d5,Ke3").await.expect("type");
    click(&s, "#replay-load").await;
    wait_text(&s, "#replay-error", "Ke3").await;
    wait_for(
        &s,
        &format!("{} === 'p'", piece_on("d5")),
        "d5 on the board",
    )
    .await;
    assert_eq!(
        js(&s, &format!("return {}", piece_on("e5"))).await,
        json!("")
    );
    assert_eq!(
        js(&s, &format!("return {}", piece_on("e8"))).await,
        json!("k")
    );
    rig.stop(vec![s]).await;
}

/// Records the bodies the page sends with `fetch` in `sessionStorage`
/// (which outlives the navigation to the new game's page).
const FETCH_SPY: &str = "const f = window.fetch; window.fetch = (u, o) => { \
    if (o && o.body) { const a = JSON.parse(sessionStorage.getItem('sent') || '[]'); a.push(JSON.parse(o.body)); sessionStorage.setItem('sent', JSON.stringify(a)); } \
    return f(u, o); }; return true;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_can_create_unlisted_games_words_its_errors_and_lists_recent_finished_games() {
    if !browser_available("the_lobby_can_create...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    white.client.goto(&rig.url("/")).await.expect("lobby");
    wait_for(
        &white,
        "!!document.querySelector('#listed') && document.querySelector('#listed').checked",
        "the listed checkbox, checked",
    )
    .await;
    js(&white, FETCH_SPY).await;

    // Errors in words, not field names.
    click(
        &white,
        "label.choice:has(input[name=clock][value='custom'])",
    )
    .await;
    type_into(&white, "#custom-base", "0").await;
    type_into(&white, "#custom-inc", "0").await;
    click(&white, "#create-btn").await;
    wait_text(&white, "#create-error", "cannot both be zero").await;
    type_into(&white, "#custom-base", "200").await;
    click(&white, "#create-btn").await;
    wait_text(&white, "#create-error", "Base time must be").await;
    click(&white, ".fen-start summary").await;
    type_into(&white, "#fen-input", "8/8/8 w - - 0 1").await;
    type_into(&white, "#custom-base", "5").await;
    click(&white, "#create-btn").await;
    wait_text(&white, "#create-error", "starting position").await;
    let error = text(&white, "#create-error").await;
    for field in ["base_secs", "increment_secs", "fen:", "clock:"] {
        assert!(!error.contains(field), "{field} named in {error:?}");
    }
    type_into(&white, "#fen-input", "").await;

    // Unlisted: the request says so, and the server keeps the game out of
    // every listing while its link still opens it.
    js(&white, "sessionStorage.removeItem('sent'); return true").await;
    click(&white, "label[for=listed]").await;
    assert_eq!(
        js(&white, "return document.querySelector('#listed').checked").await,
        json!(false)
    );
    click(&white, "label.choice:has(input[name=clock][value='5+3'])").await;
    click(&white, "#create-btn").await;
    let sent = wait_for(&white, "sessionStorage.getItem('sent')", "a create request").await;
    let sent: Value = serde_json::from_str(sent.as_str().unwrap_or_default()).expect("JSON");
    assert_eq!(sent[0]["listed"], json!(false), "sent {sent}");
    assert_eq!(
        sent[0]["clock"],
        json!({"base_secs": 300, "increment_secs": 3})
    );
    let path = wait_for(
        &white,
        "location.pathname.startsWith('/game/') && location.pathname",
        "the unlisted game's page",
    )
    .await;
    let unlisted = path
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("/game/")
        .to_string();
    assert!(
        !open_game_ids(&white).await.contains(&unlisted),
        "{unlisted} is unlisted"
    );
    // Listed is the default, so it is not sent.
    white.client.goto(&rig.url("/")).await.expect("lobby");
    wait_for(&white, "!!document.querySelector('#listed')", "the form").await;
    js(&white, FETCH_SPY).await;
    js(&white, "sessionStorage.removeItem('sent'); return true").await;
    click(&white, "label.choice:has(input[name=clock][value='5+3'])").await;
    click(&white, "label.choice:has(input[name=color][value='white'])").await;
    click(&white, "#create-btn").await;
    let path = wait_for(
        &white,
        "location.pathname.startsWith('/game/') && document.querySelector('#status').textContent.includes('Waiting') && location.pathname",
        "the new game's page",
    )
    .await;
    let id = path
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("/game/")
        .to_string();
    let sent = js(&white, "return JSON.parse(sessionStorage.getItem('sent'))").await;
    assert!(sent[0].get("listed").is_none(), "sent {sent}");
    assert!(open_game_ids(&white).await.contains(&id), "{id} listed");

    // A finished game: one sub-move, then White resigns.
    black
        .client
        .goto(&rig.url(&format!("/game/{id}")))
        .await
        .expect("join");
    click(&black, "#btn-join").await;
    wait_text(&white, "#status", "Your turn: one move").await;
    click_move(&white, "e2", "e4").await;
    wait_moves(&[&white, &black], 1).await;
    click(&white, "#btn-resign").await;
    click(&white, "#btn-resign-yes").await;
    wait_text(&black, "#banner", "Black wins by resignation").await;

    // The lobby lists it under "Recent games" with its links.
    black.client.goto(&rig.url("/")).await.expect("lobby");
    let row = format!("#recent-games li[data-id='{id}']");
    wait_text(&black, &row, "Black wins by resignation").await;
    let links = js(
        &black,
        &format!(
            "return [...document.querySelectorAll(\"{row} a\")].map(a => a.getAttribute('href'))"
        ),
    )
    .await;
    for href in [
        format!("/game/{id}"),
        format!("/game/{id}.pgn"),
        format!("/replay?game={id}"),
    ] {
        assert!(
            links.as_array().is_some_and(|l| l.contains(&json!(href))),
            "{href} in {links}"
        );
    }
    assert!(!text(&black, &row).await.contains('_'), "reasons in words");
    maybe_screenshot(&black, "lobby-recent").await;
    // Its replay link opens the replay page with the game loaded.
    click(&black, &format!("{row} a[href^='/replay']")).await;
    wait_moves(&[&black], 1).await;
    wait_text(&black, "#replay-summary", "0-1").await;
    rig.stop(vec![white, black]).await;
}

/// A focused accessibility checker run in the page (test-only: it is not
/// served by the binary). It checks the rules axe reported as critical on
/// these pages, and a few more of the same kind; each failure is a line.
const A11Y_CHECK: &str = r#"
const out = [];
const visible = (e) => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length);
const name = (e) => {
  const by = e.getAttribute('aria-labelledby');
  if (by) return by.split(/\s+/).map((id) => (document.getElementById(id) || {}).textContent || '').join(' ').trim();
  if ((e.getAttribute('aria-label') || '').trim()) return e.getAttribute('aria-label').trim();
  if (e.labels && e.labels.length) return [...e.labels].map((l) => l.textContent).join(' ').trim();
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName)) return (e.getAttribute('title') || '').trim();
  return (e.textContent || '').trim() || (e.getAttribute('title') || '').trim();
};
const desc = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : '');
const role = (e) => e.getAttribute('role');
// ARIA structure: a grid owns rows, rows own cells, cells sit in rows.
const OWNS = { grid: ['row', 'rowgroup'], rowgroup: ['row'], row: ['gridcell', 'columnheader', 'rowheader'] };
for (const e of document.querySelectorAll('[role]')) {
  const r = role(e);
  if (OWNS[r]) {
    const kids = [...e.children].filter((c) => c.getAttribute('aria-hidden') !== 'true');
    const owned = kids.filter((c) => OWNS[r].includes(role(c)));
    if (!owned.length) out.push(`aria-required-children: ${desc(e)} (${r}) owns no ${OWNS[r].join('/')}`);
    for (const c of kids) if (!OWNS[r].includes(role(c))) out.push(`aria-required-children: ${desc(e)} (${r}) has a ${role(c) || c.tagName.toLowerCase()} child ${desc(c)}`);
  }
  if (['gridcell', 'columnheader', 'rowheader'].includes(r) && role(e.parentElement) !== 'row') out.push(`aria-required-parent: ${desc(e)} (${r}) is not in a row`);
  if (r === 'row' && !['grid', 'rowgroup', 'table', 'treegrid'].includes(role(e.parentElement))) out.push(`aria-required-parent: ${desc(e)} (row) is not in a grid`);
}
// Every form field has a name.
for (const e of document.querySelectorAll('input:not([type=hidden]), textarea, select')) {
  if (!name(e)) out.push(`label: ${desc(e)} has no label`);
}
// Every button and link has a name.
for (const e of document.querySelectorAll('button, a[href], [role=button]')) {
  if (visible(e) && !name(e)) out.push(`button-name: ${desc(e)} has no name`);
}
// Exactly one h1.
const h1 = [...document.querySelectorAll('h1')].filter(visible);
if (h1.length !== 1) out.push(`page-has-heading-one: ${h1.length} h1 elements`);
// aria-label is not allowed on a plain div/span (no role).
for (const e of document.querySelectorAll('div[aria-label], span[aria-label]')) {
  if (!role(e)) out.push(`aria-prohibited-attr: ${desc(e)} has aria-label but no role`);
}
// Clocks have a name.
for (const e of document.querySelectorAll('.clock')) {
  if (visible(e) && !(e.getAttribute('aria-label') || e.getAttribute('aria-labelledby'))) out.push(`clock-name: ${desc(e)} has no label`);
}
// ids are unique.
const ids = new Map();
for (const e of document.querySelectorAll('[id]')) ids.set(e.id, (ids.get(e.id) || 0) + 1);
for (const [id, n] of ids) if (n > 1) out.push(`duplicate-id: ${id} x${n}`);
return out;
"#;

/// Runs [`A11Y_CHECK`] and, when `MARSEILLAIS_AXE` names a copy of axe-core's
/// `axe.min.js` (npm `axe-core`; not vendored), axe itself: every failure of
/// the checker, and every critical axe violation, fails the test.
async fn assert_accessible(s: &Session, page: &str) {
    let found = js(s, A11Y_CHECK).await;
    assert_eq!(found, json!([]), "accessibility problems on the {page}");
    let Some(axe) = std::env::var_os("MARSEILLAIS_AXE") else {
        return;
    };
    let source = std::fs::read_to_string(&axe).expect("axe.min.js readable");
    js(s, &format!("{source}\n;return true;")).await;
    let script = "const done = arguments[arguments.length - 1]; \
        axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => \
        ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)})))) \
        .catch(e => done([{id: 'axe-error', impact: 'critical', nodes: [String(e)]}]));";
    let violations = s
        .client
        .execute_async(script, vec![])
        .await
        .expect("axe runs");
    eprintln!("axe on the {page}: {violations}");
    let critical: Vec<&Value> = violations
        .as_array()
        .map(|v| v.iter().filter(|x| x["impact"] == "critical").collect())
        .unwrap_or_default();
    assert!(
        critical.is_empty(),
        "critical axe violations on the {page}: {critical:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_a_game_page_and_the_replay_page_pass_the_accessibility_checks() {
    if !browser_available("the_lobby_a_game_page...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let id = create_game(&rig, &white, "white", "5+3", None).await;
    black.client.goto(&rig.url("/")).await.expect("lobby");
    wait_for(
        &black,
        "document.querySelectorAll('#open-games .join').length >= 1",
        "the open game listed",
    )
    .await;
    assert_accessible(&black, "lobby").await;

    black
        .client
        .goto(&rig.url(&format!("/game/{id}")))
        .await
        .expect("join");
    click(&black, "#btn-join").await;
    wait_text(&white, "#status", "Your turn: one move").await;
    click_move(&white, "e2", "e4").await;
    wait_moves(&[&white, &black], 1).await;
    wait_for(
        &black,
        "!document.querySelector('#clock-white').hidden",
        "the clocks",
    )
    .await;
    assert_accessible(&black, "game page").await;
    // The board is a grid of eight rows of eight cells.
    assert_eq!(
        js(
            &black,
            "return [...document.querySelectorAll('[role=grid] > [role=row]')].map(r => r.querySelectorAll(':scope > [role=gridcell]').length)"
        )
        .await,
        json!([8, 8, 8, 8, 8, 8, 8, 8])
    );
    // The clocks say whose they are.
    let label = js(
        &black,
        "return document.querySelector('#clock-white').getAttribute('aria-label')",
    )
    .await;
    assert!(
        label.as_str().is_some_and(|l| l.contains("White")),
        "the White clock's label: {label}"
    );
    // A region announces what happens, politely.
    assert_eq!(
        js(
            &black,
            "const a = document.querySelector('#announcer'); return a && a.getAttribute('aria-live')"
        )
        .await,
        json!("polite")
    );
    // The mute button keeps one name; aria-pressed says whether it is on.
    let mute = "const b = document.querySelector('#btn-mute'); return [b.textContent, b.getAttribute('aria-label'), b.getAttribute('aria-pressed')]";
    let before = js(&black, mute).await;
    click(&black, "#btn-mute").await;
    let after = js(&black, mute).await;
    assert_eq!(before[2], json!("false"), "not muted at first: {before}");
    assert_eq!(after[2], json!("true"), "muted after a click: {after}");
    assert_eq!(
        (&before[0], &before[1]),
        (&after[0], &after[1]),
        "a toggle button's name does not change with its state"
    );
    maybe_screenshot(&black, "game-a11y").await;

    black
        .client
        .goto(&rig.url("/replay"))
        .await
        .expect("replay");
    click(&black, "#replay-example").await;
    wait_moves(&[&black], 7).await;
    assert_accessible(&black, "replay page").await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opponents_submoves_offers_and_the_end_are_announced_in_words() {
    if !browser_available("the_opponents_submoves...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let id = create_game(&rig, &white, "white", "none", None).await;
    black
        .client
        .goto(&rig.url(&format!("/game/{id}")))
        .await
        .expect("join");
    click(&black, "#btn-join").await;
    wait_text(&white, "#status", "Your turn: one move").await;
    click_move(&white, "e2", "e4").await;
    wait_text(&black, "#announcer", "White: pawn e4").await;
    assert_eq!(
        text(&white, "#announcer").await,
        "",
        "your own move is not read back"
    );
    click_move(&black, "g8", "f6").await;
    wait_text(&white, "#announcer", "Black: knight f6").await;
    click_move(&black, "d7", "d5").await;
    wait_text(&white, "#announcer", "Black: knight f6, then pawn d5").await;
    click_move(&white, "e4", "d5").await;
    wait_text(&black, "#announcer", "White: pawn takes d5").await;
    click(&black, "#btn-draw-offer").await;
    wait_text(&white, "#announcer", "Black offers a draw").await;
    click(&white, "#btn-resign").await;
    click(&white, "#btn-resign-yes").await;
    wait_text(&black, "#announcer", "Black wins by resignation").await;
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_polls_without_taking_the_keyboard_focus_from_a_game_link() {
    if !browser_available("the_lobby_polls...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let creator = rig.driver.session().await;
    let s = rig.driver.session().await;
    create_game(&rig, &creator, "white", "none", None).await;
    s.client.goto(&rig.url("/")).await.expect("lobby");
    wait_for(
        &s,
        "document.querySelectorAll('#open-games .join').length === 1",
        "the open game listed",
    )
    .await;
    // Count the list answers read, then focus the Join button as a keyboard user would. A
    // poll draws its lists in the microtasks that follow its third answer's body, so once
    // six bodies are read two polls have drawn (a script from the test runs as a task of
    // its own, after those microtasks).
    js(
        &s,
        "window.parsed = 0; const f = window.fetch; window.fetch = (u, o) => f(u, o).then((r) => { \
           if (String(u).startsWith('/api/games?')) { const j = r.json.bind(r); r.json = () => j().then((v) => { window.parsed += 1; return v; }); } \
           return r; }); \
         document.querySelector('#open-games .join').focus(); window.focused = document.activeElement; return true;",
    )
    .await;
    // Two polls later (each asks for three lists) the focus is where it was.
    wait_for(&s, "window.parsed >= 6", "two polls of the lists drawn").await;
    assert_eq!(
        js(
            &s,
            "return document.activeElement === window.focused && document.activeElement.classList.contains('join')"
        )
        .await,
        json!(true),
        "the focus stayed on the Join button"
    );
    rig.stop(vec![creator, s]).await;
}

// ---------------------------------------------------------------------------
// The game page (H6): joining by invite, notices, layout, what is said in
// words, the version on moves, the typed move input.
// ---------------------------------------------------------------------------

/// Runs `script` asynchronously in the page (tests/support/browser.rs).
async fn js_async(s: &Session, script: &str, args: Vec<Value>) -> Value {
    browser::js_async(s, script, args).await
}

/// `POST path` from inside the page, then its game page (tests/support/browser.rs).
async fn api_seat(rig: &Rig, s: &Session, path: &str, body: Value) -> String {
    browser::api_seat(s, &rig.base, path, body).await
}

/// A game between two browsers (tests/support/browser.rs).
async fn two_player_game(rig: &Rig, white: &Session, black: &Session, body: Value) -> String {
    browser::two_player_game(&rig.base, white, black, body).await
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

// ---------------------------------------------------------------------------
// Turns grouped from the server's colours (issue 9): no rule of turn length,
// check or phase is re-derived in the page.
// ---------------------------------------------------------------------------

/// White at the second sub-move of its turn, with nothing of that turn in the record.
const SECOND_SUBMOVE_FEN: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1 2";

/// The move list as the page shows it: per row, the sub-moves of White's and Black's cells.
const MOVE_ROWS: &str = "return [...document.querySelectorAll('#movelist li')].map((li) =>
     [...li.querySelectorAll('.turn')].map((t) => [...t.querySelectorAll('.mv')].map((b) => b.textContent)))";

/// The classes of the "1" and "2" marks on a square.
async fn marks_on(s: &Session, name: &str) -> Value {
    js(
        s,
        &format!(
            "const c = document.querySelector(\"{}\").classList; return [c.contains('last1-to'), c.contains('last2-to')]",
            square(name)
        ),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_starting_at_the_second_submove_opens_with_a_comma_marks_it_2_and_has_nothing_to_take_back()
 {
    if !browser_available("a_game_starting_at_the_second_submove...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    two_player_game(&rig, &white, &black, json!({"fen": SECOND_SUBMOVE_FEN})).await;
    wait_text(&white, "#status", "Your turn: move 2 of 2").await;
    // The record holds no sub-move of this turn: there is nothing to withdraw.
    assert_eq!(
        js(
            &white,
            "const b = document.querySelector('#btn-takeback'); return !!b && b.disabled"
        )
        .await,
        json!(true),
        "no takeback before any sub-move of the turn is in the record"
    );
    click_move(&white, "d2", "d4").await;
    wait_moves(&[&white, &black], 1).await;
    wait_text(&black, "#status", "Your turn: move 1 of 2").await;
    assert!(
        !text(&black, "#status").await.contains("Check"),
        "a plain second sub-move ended the turn"
    );
    for s in [&white, &black] {
        assert_eq!(
            marks_on(s, "d4").await,
            json!([false, true]),
            "the one sub-move of a turn begun at S2 is its second"
        );
    }
    click_move(&black, "e7", "e5").await;
    wait_moves(&[&white, &black], 2).await;
    click_move(&black, "b8", "c6").await;
    wait_moves(&[&white, &black], 3).await;
    wait_text(&white, "#status", "Your turn: move 1 of 2").await;
    black.client.refresh().await.expect("reload");
    wait_moves(&[&black], 3).await;
    for s in [&white, &black] {
        assert_eq!(
            js(s, "return document.querySelector('#movelist').dataset.pgn").await,
            json!("1. ,d4 e5,Nc6"),
            "live and after a reload"
        );
        assert_eq!(js(s, MOVE_ROWS).await, json!([[["d4"], ["e5", "Nc6"]]]));
        assert_eq!(marks_on(s, "e5").await, json!([true, false]));
        assert_eq!(marks_on(s, "c6").await, json!([false, true]));
    }
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_marseillais_first_turn_is_two_submoves_in_one_turn_and_abort_stays_until_black_has_played()
 {
    if !browser_available("a_marseillais_first_turn...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let body = json!({"variant": "marseillais", "clock": {"base_secs": 300, "increment_secs": 3}});
    two_player_game(&rig, &white, &black, body).await;
    wait_text(&white, "#status", "Your turn: move 1 of 2").await;
    click_move(&white, "e2", "e4").await;
    wait_moves(&[&white, &black], 1).await;
    wait_text(&white, "#status", "Your turn: move 2 of 2").await;
    wait_for(
        &white,
        "!document.querySelector('#btn-takeback').disabled",
        "the first sub-move of the turn may be taken back",
    )
    .await;
    click_move(&white, "d2", "d4").await;
    wait_moves(&[&white, &black], 2).await;
    wait_text(&black, "#status", "Your turn: move 1 of 2").await;
    // One side has completed a turn: the game may still be aborted.
    for s in [&white, &black] {
        wait_for(
            s,
            "!!document.querySelector('#btn-abort')",
            "the abort button",
        )
        .await;
        assert_eq!(js(s, MOVE_ROWS).await, json!([[["e4", "d4"], []]]));
    }
    click_move(&black, "e7", "e5").await;
    wait_moves(&[&white, &black], 3).await;
    click_move(&black, "g8", "f6").await;
    wait_moves(&[&white, &black], 4).await;
    for s in [&white, &black] {
        wait_for(
            s,
            "!document.querySelector('#btn-abort')",
            "no abort once both sides have completed a turn",
        )
        .await;
        assert_eq!(
            js(s, "return document.querySelector('#movelist').dataset.pgn").await,
            json!("1. e4,d4 e5,Nf6")
        );
        assert_eq!(
            js(s, MOVE_ROWS).await,
            json!([[["e4", "d4"], ["e5", "Nf6"]]])
        );
    }
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyse_fills_the_evaluation_graph_on_the_replay_page_and_on_a_finished_game() {
    if !browser_available("analyse_fills_the_evaluation_graph...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start_with(|config| {
        config.analysis.budget = Duration::from_millis(400);
        config.analysis.position_max = Duration::from_millis(50);
    })
    .await;
    let s = rig.driver.session().await;
    s.client
        .goto(&rig.url("/replay"))
        .await
        .expect("replay page");
    type_into(&s, "#replay-input", "1. e4 f6,g5").await;
    click(&s, "#replay-load").await;
    wait_moves(&[&s], 3).await;
    click(&s, "#btn-analyse").await;
    // One point per position: the start and after each of the 3 sub-moves.
    wait_for(
        &s,
        "document.querySelectorAll('#analysis-graph circle').length === 4",
        "four points on the graph",
    )
    .await;
    wait_text(&s, "#analysis-status", "Analysed 4 positions").await;
    // The last position (White to move) is a mate in one: said in words, with the best turn.
    wait_text(&s, "#analysis-detail", "White mates in 1 sub-move").await;
    wait_text(&s, "#analysis-detail", "best turn: Qh5#").await;
    // Each sub-move carries its evaluation; a click on the first shows that position.
    assert_eq!(
        js(
            &s,
            "return [...document.querySelectorAll('#movelist .mv')].map(b => !!b.dataset.eval)"
        )
        .await,
        json!([true, true, true])
    );
    assert_eq!(
        js(
            &s,
            "return document.querySelector('#movelist .mv[data-index=\"2\"]').dataset.eval"
        )
        .await,
        json!("#1")
    );
    // Its title says the best turn of the position it was played from (Black's S2: not g5).
    let title = js(
        &s,
        "return document.querySelector('#movelist .mv[data-index=\"2\"]').title",
    )
    .await;
    assert!(
        title.as_str().is_some_and(
            |t| t.starts_with("After it: White mates in 1 sub-move. Best turn there: ")
        ),
        "{title}"
    );
    click(&s, "#movelist .mv[data-index='0']").await;
    wait_text(&s, "#analysis-detail", "After sub-move 1").await;
    // A click near the graph's right end shows the last position.
    js(
        &s,
        "const g = document.querySelector('#analysis-graph'); const b = g.getBoundingClientRect(); \
         g.dispatchEvent(new MouseEvent('click', {clientX: b.right - 1, clientY: b.top + 5, bubbles: true})); return true",
    )
    .await;
    wait_text(&s, "#replay-where", "sub-move 2: g5").await;
    wait_text(&s, "#analysis-detail", "After sub-move 3: White mates in 1").await;
    // The graph has a text alternative: its title and the table.
    let title = text(&s, "#analysis-graph title").await;
    assert!(title.contains("4 of 4 positions"), "{title}");
    assert_eq!(
        js(
            &s,
            "return document.querySelectorAll('#analysis-table tbody tr').length"
        )
        .await,
        json!(4)
    );
    assert_accessible(&s, "replay page with an analysis").await;

    // A finished game's page offers the same.
    let (id, white_token, black_token) = rig.server.game_between_two(json!({})).await;
    let mut white = rig.server.seat(&id, &white_token).await;
    let mut black = rig.server.seat(&id, &black_token).await;
    support::game::play_until_white_mates_in_one(&mut white, &mut black).await;
    white.play("d1h5", "w2").await;
    s.client
        .goto(&rig.url(&format!("/game/{id}")))
        .await
        .expect("game page");
    wait_moves(&[&s], 4).await;
    click(&s, "#btn-analyse").await;
    wait_for(
        &s,
        "document.querySelectorAll('#analysis-graph circle').length === 5",
        "five points on the finished game's graph",
    )
    .await;
    wait_text(&s, "#analysis-detail", "checkmate").await;
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_level_1_computer_game_made_in_the_lobby_answers_a_clicked_submove_on_the_board_and_in_the_move_list()
 {
    if !browser_available("a_level_1_computer_game...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.client.goto(&rig.url("/")).await.expect("lobby");
    wait_for(
        &s,
        "!!document.querySelector('#computer-form')",
        "the computer panel",
    )
    .await;

    // The panel's own errors are in words.
    click(
        &s,
        "label.choice:has(input[name=computer-clock][value='custom'])",
    )
    .await;
    type_into(&s, "#computer-custom-base", "0").await;
    type_into(&s, "#computer-custom-inc", "0").await;
    click(&s, "#computer-btn").await;
    wait_text(&s, "#computer-error", "cannot both be zero").await;

    // Level 1, White, no clock: one click makes the game and opens it as White.
    let levels = js(
        &s,
        "return [...document.querySelectorAll('#computer-level option')].map(o => o.textContent)",
    )
    .await;
    assert_eq!(levels[0], json!("1: beginner"), "{levels}");
    assert_eq!(levels[7], json!("8: full strength"), "{levels}");
    s.client
        .find(Locator::Css("#computer-level"))
        .await
        .expect("the level")
        .select_by_value("1")
        .await
        .expect("level 1 chosen");
    click(
        &s,
        "label.choice:has(input[name=computer-color][value='white'])",
    )
    .await;
    click(
        &s,
        "label.choice:has(input[name=computer-clock][value='none'])",
    )
    .await;
    click(&s, "#computer-btn").await;
    let path = wait_for(
        &s,
        "location.pathname.startsWith('/game/') && location.pathname",
        "the computer game's page",
    )
    .await;
    wait_text(&s, "#status", "Your turn: one move").await;
    let id = path
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("/game/")
        .to_string();
    // The server made the game the panel asked for.
    let (status, body) = rig.get(&format!("/api/games/{id}")).await;
    assert_eq!(status, 200, "{body}");
    let public: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        public["computer"],
        json!({"color": "black", "level": 1}),
        "{public}"
    );
    assert_eq!(public["clock"], Value::Null, "{public}");
    // The computer's side is named beside the board; this side is the player's.
    wait_text(&s, "#seat-black", "Computer (level 1)").await;
    wait_text(&s, "#seat-white", "White (you)").await;
    wait_text(&s, "#game-info", "vs Computer (level 1)").await;

    // One clicked sub-move; the computer answers with its two.
    click_move(&s, "e2", "e4").await;
    wait_moves(&[&s], 3).await;
    wait_text(&s, "#status", "Your turn: move 1 of 2").await;
    wait_text(&s, "#announcer", "Black (computer): ").await;
    // On the board: the computer's second sub-move landed a black piece.
    let landed = js(
        &s,
        "const e = document.querySelector('.board .sq.last2-to'); return e ? e.dataset.piece : null",
    )
    .await;
    assert!(
        landed
            .as_str()
            .is_some_and(|p| p.len() == 1 && p.chars().all(|c| c.is_ascii_lowercase())),
        "a black piece where the computer's second sub-move went: {landed}"
    );
    // Nothing to claim against the computer; the page stays accessible.
    assert_eq!(
        js(&s, "return !!document.querySelector('#btn-claim-victory')").await,
        json!(false)
    );
    assert!(
        !text(&s, "#away-note").await.contains("offline"),
        "the computer is never offline"
    );
    assert_accessible(&s, "computer game page").await;

    // Resign, then a rematch: the computer accepts at once and takes the other colour.
    click(&s, "#btn-resign").await;
    click(&s, "#btn-resign-yes").await;
    wait_text(&s, "#banner", "Black wins by resignation").await;
    click(&s, "#btn-rematch").await;
    let old = format!("/game/{id}");
    wait_for(
        &s,
        &format!(
            "location.pathname.startsWith('/game/') && location.pathname !== {}",
            json!(old)
        ),
        "the rematch page",
    )
    .await;
    wait_text(&s, "#seat-white", "Computer (level 1)").await;
    wait_text(&s, "#seat-black", "Black (you)").await;
    // The computer opens as White, maybe before the page connected: live or from the
    // first snapshot, its sub-move is announced; then it is this side's turn.
    wait_moves(&[&s], 1).await;
    wait_text(&s, "#status", "Your turn: move 1 of 2").await;
    wait_text(&s, "#announcer", "White (computer): ").await;
    // Reopened at this side's turn, the page says the computer's turn it did not see live.
    s.client.refresh().await.expect("reload");
    wait_text(&s, "#status", "Your turn: move 1 of 2").await;
    wait_text(&s, "#announcer", "White (computer): ").await;
    rig.stop(vec![s]).await;
}
