//! Lobby, replay, board and accessibility (issue 8, client side): legal-move dots, replay
//! errors, the lobby's form and lists, the accessibility checks, what is announced in words,
//! the lobby's polling beside the keyboard focus.

use super::*;

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_who_click_the_same_quick_pairing_pool_land_in_one_game_on_opposite_sides() {
    if !browser_available("two_players_who_click_the_same_quick_pairing_pool...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start_with(|c| c.lobby.pool_wave = Some(Duration::from_millis(50))).await;
    let first = rig.driver.session().await;
    let second = rig.driver.session().await;
    for s in [&first, &second] {
        s.client.goto(&rig.url("/")).await.expect("open the lobby");
        wait_text(s, "#pools h2", "Quick pairing").await;
        // The live count has come: the channel is open and `pool_in` will be sent.
        wait_text(s, "#pools [data-pool='3+2'] .pool-waiting", "waiting").await;
    }
    click(&first, "#pools [data-pool='3+2']").await;
    wait_text(&first, "#pool-status", "Looking for an opponent at 3+2").await;
    maybe_screenshot(&first, "pools-seeking").await;
    wait_text(
        &second,
        "#pools [data-pool='3+2'] .pool-waiting",
        "1 waiting",
    )
    .await;
    click(&second, "#pools [data-pool='3+2']").await;
    let (path_1, path_2) = (paired_game(&first).await, paired_game(&second).await);
    assert_eq!(path_1, path_2, "one game for both");
    // One of them has the move, the other waits for it: two seats, two sides.
    let statuses = [
        text(&first, "#status").await,
        text(&second, "#status").await,
    ];
    assert_eq!(
        statuses
            .iter()
            .filter(|s| s.starts_with("Your turn"))
            .count(),
        1,
        "{statuses:?}"
    );
    rig.stop(vec![first, second]).await;
}

/// The path of the game page a quick pairing opened, once it shows its status.
async fn paired_game(s: &Session) -> String {
    let path = wait_for(
        s,
        "location.pathname.startsWith('/game/') && (document.querySelector('#status') || {}).textContent ? location.pathname : ''",
        "the paired game's page",
    )
    .await;
    path.as_str().unwrap_or_default().to_owned()
}
