//! Turns grouped from the server's colours (issue 9): no rule of turn length, check or phase
//! is re-derived in the page.

use super::*;

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
