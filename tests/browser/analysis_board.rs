//! The analysis board (issue 31, `/analysis`) in real headless Chromium against the real server
//! on 127.0.0.1 (the harness of tests/support/browser.rs): a line of sub-moves played by clicks
//! for both sides with the turn in progress said, a step back and another sub-move (a
//! variation) seen in the move list, the PGN exported with the variation in parentheses, a
//! comment, promote and delete, the export imported again, the share link; the engine's lines
//! (multi-PV, arrows, the evaluation bar, the threat, a line played); a finished game opened
//! from its page with its blunder marked and the accuracy; the replay page's hand-over; and the
//! move tree's operations (client/move-tree.js, a module without DOM) run in the page. Waits poll what the page shows, with a deadline; nothing is timed.

use crate::support::browser;

use crate::support::game::play_until_white_mates_in_one;
use browser::{
    BrowserRig as Rig, SERIAL, Session, browser_available, click, click_move, js, js_async, square,
    text, type_into, wait_for, wait_text,
};
use serde_json::{Value, json};
use std::time::Duration;

/// Waits until the page shows the node at `path` (its move-list button is `.current`, and the
/// position's legal sub-moves have come: the status line names the side to play).
async fn shown(s: &Session, path: &str) {
    let expr = if path.is_empty() {
        "!document.querySelector('#board-moves .mv.current') && document.querySelector('#turn-status').dataset.side".to_owned()
    } else {
        format!(
            "(document.querySelector('#board-moves .mv.current') || {{}}).dataset?.path === {} && document.querySelector('#turn-status').dataset.side",
            json!(path)
        )
    };
    wait_for(s, &expr, &format!("the position after {path:?} shown")).await;
}

/// The value of an input or textarea.
async fn value(s: &Session, css: &str) -> String {
    js(
        s,
        &format!(
            "const e = document.querySelector({}); return e ? e.value : '';",
            json!(css)
        ),
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

/// Clicks "Export PGN" and waits until the box holds a PGN that contains `needle`.
async fn export_containing(s: &Session, needle: &str) -> String {
    js(
        s,
        "document.querySelector('#pgn-output').value = ''; document.querySelector('#pgn-output').hidden = true;",
    )
    .await;
    click(s, "#pgn-export").await;
    wait_for(
        s,
        &format!(
            "document.querySelector('#pgn-output').value.includes({})",
            json!(needle)
        ),
        &format!("the exported PGN to contain {needle:?}"),
    )
    .await;
    value(s, "#pgn-output").await
}

/// A key pressed outside the board (the page's navigation keys listen on the document).
async fn press(s: &Session, key: &str) {
    js(
        s,
        &format!(
            "document.body.dispatchEvent(new KeyboardEvent('keydown', {{key: {}, bubbles: true}}));",
            json!(key)
        ),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_played_by_clicks_with_a_variation_after_a_step_back_is_exported_with_the_variation_in_parentheses()
 {
    if !browser_available("analysis_board_line_and_variation") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.goto(&rig.url("/analysis")).await;

    // The first turn is a single sub-move; then Black plays two, the status saying which.
    wait_text(&s, "#turn-status", "White to play: one sub-move").await;
    click_move(&s, "e2", "e4").await;
    shown(&s, "e2e4").await;
    wait_text(&s, "#turn-status", "Black to play: sub-move 1 of 2").await;
    click_move(&s, "e7", "e5").await;
    shown(&s, "e2e4 e7e5").await;
    wait_text(&s, "#turn-status", "sub-move 2 of 2 (after e5)").await;
    click_move(&s, "b8", "c6").await;
    shown(&s, "e2e4 e7e5 b8c6").await;
    wait_text(&s, "#turn-status", "White to play: sub-move 1 of 2").await;
    let black_turn = text(&s, "#board-moves .turn.black").await;
    assert_eq!(black_turn, "e5,Nc6", "Black's turn in comma notation");

    // One step back (the ‹ button), then another second sub-move: a variation of the turn.
    click(&s, "#nav-prev").await;
    shown(&s, "e2e4 e7e5").await;
    assert_eq!(
        js(
            &s,
            &format!(
                "return document.querySelector(\"{}\").dataset.piece",
                square("c6")
            )
        )
        .await,
        json!(""),
        "the knight back on b8"
    );
    click_move(&s, "g8", "f6").await;
    shown(&s, "e2e4 e7e5 g8f6").await;
    wait_text(&s, "#board-moves .variation", "1... e5,Nf6").await;
    assert_eq!(
        text(&s, "#board-moves .turn.black").await,
        "e5,Nc6",
        "the main line kept"
    );

    // The PGN: the main line with the variation as a whole turn in parentheses.
    let pgn = export_containing(&s, "(1... e5,Nf6)").await;
    assert!(
        pgn.contains("1. e4 e5,Nc6 (1... e5,Nf6)"),
        "the variation after the main line's turn: {pgn}"
    );
    crate::browser::game::assert_accessible(&s, "analysis board").await;

    // The keys: Left steps back, Right follows the main line, Down goes to the next variation,
    // Home to the start, End to the end of the line.
    press(&s, "ArrowLeft").await;
    shown(&s, "e2e4 e7e5").await;
    press(&s, "ArrowRight").await;
    shown(&s, "e2e4 e7e5 b8c6").await;
    press(&s, "ArrowDown").await;
    shown(&s, "e2e4 e7e5 g8f6").await;
    press(&s, "Home").await;
    shown(&s, "").await;
    press(&s, "End").await;
    shown(&s, "e2e4 e7e5 b8c6").await;

    // A click on the variation's sub-move shows it; a comment on it; it becomes the main line.
    click(
        &s,
        "#board-moves .variation .mv[data-path='e2e4 e7e5 g8f6']",
    )
    .await;
    shown(&s, "e2e4 e7e5 g8f6").await;
    click(&s, "#tree-comment").await;
    type_into(&s, "#comment-text", "the Petrov's idea").await;
    click(&s, "#comment-save").await;
    wait_text(&s, "#board-moves .comment", "the Petrov's idea").await;
    click(&s, "#tree-main").await;
    wait_for(
        &s,
        "document.querySelector('#board-moves .turn.black').textContent === 'e5,Nf6'",
        "Nf6 on the main line",
    )
    .await;
    let pgn = export_containing(&s, "(1... e5,Nc6)").await;
    assert!(pgn.contains("{the Petrov's idea}"), "the comment: {pgn}");

    // The export imported again gives the same tree: the same PGN out.
    type_into(&s, "#pgn-input", &pgn).await;
    click(&s, "#pgn-import").await;
    shown(&s, "").await;
    wait_text(&s, "#board-moves .variation", "1... e5,Nc6").await;
    let again = export_containing(&s, "(1... e5,Nc6)").await;
    assert_eq!(again, pgn, "import then export: the same text");

    // Delete the variation: gone from the list and from the PGN.
    click(
        &s,
        "#board-moves .variation .mv[data-path='e2e4 e7e5 b8c6']",
    )
    .await;
    shown(&s, "e2e4 e7e5 b8c6").await;
    click(&s, "#tree-delete").await;
    shown(&s, "e2e4 e7e5").await;
    wait_for(
        &s,
        "!document.querySelector('#board-moves .variation')",
        "no variation left",
    )
    .await;
    let pgn = export_containing(&s, "e5,Nf6").await;
    assert!(!pgn.contains('('), "no variation in the PGN: {pgn}");

    // The share link opens the board on the position shown (Black at its second sub-move).
    let share = value(&s, "#share-link").await;
    assert!(share.contains("/analysis?fen="), "a share link: {share}");
    s.goto(&share).await;
    wait_text(&s, "#turn-status", "Black to play: sub-move 2 of 2").await;
    assert_eq!(
        js(
            &s,
            &format!(
                "return document.querySelector(\"{}\").dataset.piece",
                square("e5")
            )
        )
        .await,
        json!("p")
    );
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_opens_on_the_board_from_its_page_with_its_blunder_marked_and_the_accuracy_of_each_player()
 {
    if !browser_available("analysis_board_game_review") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start_with(|c| {
        c.analysis.budget = Duration::from_millis(400);
        c.analysis.position_max = Duration::from_millis(60);
    })
    .await;
    // 1. e4 f6,g5 2. Qh5#: Black's turn is the blunder (it allows the mate).
    let (id, mut white, mut black) = rig.server.players(json!({})).await;
    play_until_white_mates_in_one(&mut white, &mut black).await;
    white.play("d1h5", "w2").await;

    let s = rig.driver.session().await;
    s.goto(&rig.url(&format!("/game/{id}"))).await;
    click(&s, "#analysis-board-link").await;
    wait_for(
        &s,
        "location.pathname === '/analysis' && document.querySelectorAll('#board-moves .mv').length === 4",
        "the game's four sub-moves on the analysis board",
    )
    .await;
    assert_eq!(text(&s, "#board-moves .turn.black").await, "f6,g5");
    wait_for(
        &s,
        "document.querySelector(\"#board-moves .mv.judged.blunder[data-path='e2e4 f7f6 g7g5']\")",
        "g5 marked as a blunder",
    )
    .await;
    assert_eq!(
        text(&s, "#board-moves .mv.judged.blunder .glyph").await,
        "??"
    );
    wait_text(&s, "#board-moves .judgement-note.blunder", "Best was").await;
    wait_text(&s, "#review-summary tr[data-color='black'] .blunder", "1").await;
    let accuracy = text(&s, "#accuracy-black").await;
    assert!(
        accuracy.ends_with('%'),
        "Black's accuracy in percent: {accuracy:?}"
    );
    assert_eq!(
        js(
            &s,
            "return document.querySelector('#board-game-link').getAttribute('href')"
        )
        .await,
        json!(format!("/game/{id}"))
    );
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_lines_follow_the_position_with_arrows_the_eval_bar_and_the_threat_and_a_line_plays_its_turn()
 {
    if !browser_available("analysis_board_engine") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.goto(&rig.url("/analysis")).await;
    wait_text(&s, "#turn-status", "White to play").await;
    click(&s, "#engine-toggle").await;
    wait_for(
        &s,
        "document.querySelectorAll('#engine-lines .engine-line').length === 1",
        "one engine line",
    )
    .await;
    wait_for(
        &s,
        "document.querySelector('.board-arrows').dataset.arrows === '1' && document.querySelector('#eval-bar').dataset.white !== ''",
        "the best sub-move drawn and the bar set",
    )
    .await;
    wait_text(&s, "#engine-status", "Depth").await;

    // Three lines, then Black's two-sub-move turn: each line's turn has two sub-moves and two arrows.
    js(
        &s,
        "const sel = document.querySelector('#engine-multipv'); sel.value = '3'; sel.dispatchEvent(new Event('change'));",
    )
    .await;
    wait_for(
        &s,
        "document.querySelectorAll('#engine-lines .engine-line').length === 3",
        "three engine lines",
    )
    .await;
    click_move(&s, "e2", "e4").await;
    shown(&s, "e2e4").await;
    wait_for(
        &s,
        "[...document.querySelectorAll('#engine-lines .engine-line')].length === 3 && [...document.querySelectorAll('#engine-lines .engine-line')].every((l) => l.dataset.turn.split(',').length === 2) && document.querySelector('.board-arrows').dataset.arrows === '2'",
        "Black's best turns of two sub-moves, two arrows",
    )
    .await;

    // The threat: White's best turns if it were White's turn, in red, not playable.
    click(&s, "#engine-threat").await;
    wait_for(
        &s,
        "document.querySelectorAll('#engine-lines .engine-line.threat').length > 0 && document.querySelector('.board-arrows .arrow.threat')",
        "the threat lines and arrows",
    )
    .await;
    click(&s, "#engine-threat").await;
    wait_for(
        &s,
        "document.querySelectorAll('#engine-lines .engine-line').length === 3 && !document.querySelector('#engine-lines .engine-line.threat')",
        "Black's own lines again",
    )
    .await;

    // A click on the best line plays its turn on the board (read and clicked in one script: a
    // deeper reading may replace the lines at any time).
    wait_for(
        &s,
        "document.querySelector('#engine-line-1')",
        "the best line",
    )
    .await;
    let turn = js(
        &s,
        "const line = document.querySelector('#engine-lines .engine-line'); line.querySelector('#engine-line-1').click(); return line.dataset.turn;",
    )
    .await;
    let turn = turn.as_str().unwrap_or_default().replace(',', " ");
    shown(&s, &format!("e2e4 {turn}")).await;
    wait_text(&s, "#turn-status", "White to play").await;
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_page_hands_its_record_to_the_analysis_board() {
    if !browser_available("analysis_board_from_replay") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.goto(&rig.url("/replay")).await;
    click(&s, "#replay-example").await;
    wait_text(&s, "#replay-summary", "sub-moves").await;
    click(&s, "#replay-board").await;
    wait_for(
        &s,
        "location.pathname === '/analysis' && document.querySelectorAll('#board-moves .mv').length === 7",
        "the sample's seven sub-moves on the analysis board",
    )
    .await;
    assert_eq!(text(&s, "#board-moves .turn.black").await, "e5,Nc6");
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_links_the_analysis_board_with_its_opening_explorer() {
    if !browser_available("analysis_board_from_lobby") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.goto(&rig.url("/")).await;
    wait_text(&s, "#lobby-tools", "Analysis board").await;
    click(&s, "#tools-analysis").await;
    shown(&s, "").await;
    wait_for(
        &s,
        "location.pathname === '/analysis' && document.querySelector('#analysis-explorer').textContent.includes('Opening explorer')",
        "the board with the explorer's panel",
    )
    .await;
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_move_tree_adds_sub_moves_promotes_deletes_comments_and_navigates_by_paths() {
    if !browser_available("move_tree_operations") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    s.goto(&rig.url("/healthz")).await;
    // FENs written by hand for the phases only (the tree reads side, number and phase).
    let out: Value = js_async(
        &s,
        "const done = arguments[arguments.length - 1];
         import('/static/move-tree.js').then((T) => {
           const start = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
           const tr = T.newTree(start);
           const m = (uci, san, fen) => ({ uci, san, fen });
           const p1 = T.addMove(tr, [], m('e2e4', 'e4', '8/8/8/8/8/8/8/8 b KQkq - 0 1'));
           const p2 = T.addMove(tr, p1, m('e7e5', 'e5', '8/8/8/8/8/8/8/8 b KQkq - 0 1 2'));
           const p3 = T.addMove(tr, p2, m('b8c6', 'Nc6', '8/8/8/8/8/8/8/8 w KQkq - 0 2'));
           const again = T.addMove(tr, p2, m('b8c6', 'Nc6', 'x'));
           const v = T.addMove(tr, p2, m('g8f6', 'Nf6', '8/8/8/8/8/8/8/8 w KQkq - 0 2'));
           const d = T.addMove(tr, p1, m('d7d5', 'd5', '8/8/8/8/8/8/8/8 b KQkq - 0 1 2'));
           const write = (turns) => turns.map((t) => `${t.number}${t.side === 'w' ? '.' : '...'} ${t.items.map((i) => i.node.san).join(',')}`
             + t.variations.map((x) => ` (${write(x)})`).join('')).join(' ');
           const r = {};
           r.same = JSON.stringify(again) === JSON.stringify(p3) && T.nodeAt(tr, p2).children.length === 2;
           r.turns = write(T.treeTurns(tr));
           r.next = T.pathKey(T.next(tr, p2));
           r.prev = T.pathKey(T.previous(p3));
           r.last = T.pathKey(T.last(tr, []));
           r.down = T.pathKey(T.sibling(tr, p3, 1));
           r.up = T.pathKey(T.sibling(tr, v, -1));
           r.turnAt = T.turnAt(tr, v);
           r.onMain = [T.onMainLine(tr, p3), T.onMainLine(tr, v)];
           r.promoted = T.promote(tr, v) && write(T.treeTurns(tr));
           r.main = T.makeMainLine(tr, d) && write(T.treeTurns(tr));
           r.mainLine = T.mainLine(tr).map((n) => n.san).join(' ');
           r.comment = T.setComment(tr, v, '  good  ') && T.nodeAt(tr, v).comment;
           r.deleted = T.pathKey(T.deleteAt(tr, p2)) + ' | ' + write(T.treeTurns(tr));
           r.gone = T.nodeAt(tr, v) === null && T.pathKey(T.validPath(tr, v)) === 'e2e4';
           r.rootDelete = T.deleteAt(tr, []);
           done(r);
         }, (e) => done(String(e)));",
        vec![],
    )
    .await;
    assert_eq!(out["same"], json!(true), "an existing sub-move is reused");
    assert_eq!(
        out["turns"],
        json!("1. e4 1... e5,Nc6 (1... d5) (1... e5,Nf6)")
    );
    assert_eq!(out["next"], json!("e2e4 e7e5 b8c6"));
    assert_eq!(out["prev"], json!("e2e4 e7e5"));
    assert_eq!(out["last"], json!("e2e4 e7e5 b8c6"));
    assert_eq!(out["down"], json!("e2e4 e7e5 g8f6"));
    assert_eq!(out["up"], json!("e2e4 e7e5 b8c6"));
    assert_eq!(
        out["turnAt"],
        json!({"items": ["e7e5", "g8f6"], "complete": true})
    );
    assert_eq!(out["onMain"], json!([true, false]));
    assert_eq!(
        out["promoted"],
        json!("1. e4 1... e5,Nf6 (1... d5) (1... e5,Nc6)")
    );
    assert_eq!(
        out["main"],
        json!("1. e4 1... d5 (1... e5,Nf6 (1... e5,Nc6))")
    );
    assert_eq!(out["mainLine"], json!("e4 d5"));
    assert_eq!(out["comment"], json!("good"));
    assert_eq!(out["deleted"], json!("e2e4 | 1. e4 1... d5"));
    assert_eq!(out["gone"], json!(true));
    assert_eq!(out["rootDelete"], Value::Null, "the root stays");
    rig.stop(vec![s]).await;
}
