//! "Learn Marseillais" (issue 31) in real headless Chromium against the real server: a visitor
//! finds the lessons from the lobby's highlighted invite, opens the first lesson, plays both of
//! its steps by clicks (a wrong turn first, told why, then tried again), finishes the lesson and
//! finds it marked done in the list (kept in the browser); a signed-in player's finished step
//! is marked from the server. Waits poll what the page shows, with a deadline; nothing is timed.

use crate::support::browser;

use browser::{
    BrowserRig as Rig, SERIAL, browser_available, click, click_move, wait_for, wait_text,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_finishes_the_first_lesson_by_clicks_and_sees_it_marked_done() {
    if !browser_available("a_visitor_finishes_the_first_lesson...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;

    // The lobby invites a visitor (not signed in) to learn, highlighted.
    s.goto(&rig.url("/")).await;
    wait_for(
        &s,
        "!!document.querySelector('#learn-invite.highlight')",
        "the highlighted invite",
    )
    .await;
    click(&s, "#learn-invite-link").await;
    wait_for(
        &s,
        "!!document.querySelector(\".learn-card[data-lesson='moving-twice'] a\")",
        "the lessons list",
    )
    .await;
    wait_text(&s, "#learn-rules", "Moving twice").await;
    wait_text(&s, "#learn-strategy", "The double attack").await;
    click(&s, ".learn-card[data-lesson='moving-twice'] a").await;

    // Step 1: a quiet first sub-move then one capture is wrong, and the page says why.
    wait_text(&s, "#learn-goal", "knight on a5 and the bishop on e5").await;
    wait_text(&s, "#learn-step", "Step 1 of 2").await;
    // The squares the goal names are ringed on the board.
    wait_for(
        &s,
        "[...document.querySelectorAll('.sq.goal')].map((c) => c.dataset.sq).sort().join() === 'a5,e5'",
        "the goal's squares a5 and e5 marked",
    )
    .await;
    click_move(&s, "e1", "d2").await;
    wait_text(&s, "#learn-feedback", "second sub-move").await;
    click_move(&s, "a1", "a5").await;
    wait_text(&s, "#learn-feedback", "Not quite.").await;
    wait_text(&s, "#learn-feedback", "still on the board").await;
    click(&s, "#learn-retry").await;
    // Then the right turn: Rxa5, Rxe5.
    click_move(&s, "a1", "a5").await;
    wait_text(&s, "#learn-feedback", "second sub-move").await;
    click_move(&s, "a5", "e5").await;
    wait_text(&s, "#learn-feedback", "Right!").await;
    wait_text(&s, "#learn-feedback", "capture twice").await;
    click(&s, "#learn-next-step").await;

    // Step 2: Nxf6, Nxd7.
    wait_text(&s, "#learn-step", "Step 2 of 2").await;
    click_move(&s, "e4", "f6").await;
    wait_text(&s, "#learn-feedback", "second sub-move").await;
    click_move(&s, "f6", "d7").await;
    wait_text(&s, "#learn-feedback", "Right!").await;
    wait_text(&s, "#learn-next-step", "Finish the lesson").await;
    click(&s, "#learn-next-step").await;
    wait_text(&s, "#learn-done", "Lesson done!").await;
    wait_text(&s, "#learn-next-lesson", "The first turn is one move").await;

    // The list marks it done (this browser keeps an anonymous player's progress).
    click(&s, "#learn-to-list").await;
    wait_for(
        &s,
        "!!document.querySelector(\".learn-card.done[data-lesson='moving-twice']\")",
        "the first lesson marked done",
    )
    .await;
    wait_text(&s, ".learn-card[data-lesson='moving-twice']", "Done").await;
    wait_text(&s, ".learn-card[data-lesson='first-turn']", "0 / 2 steps").await;
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_player_s_finished_step_comes_back_from_the_server() {
    if !browser_available("a_signed_in_player_s_finished_step...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session().await;
    rig.register(&s, "lea").await;
    s.goto(&rig.url("/learn/won-ending")).await;
    wait_text(&s, "#learn-goal", "Trade the queens").await;
    click_move(&s, "d2", "d7").await;
    wait_text(&s, "#learn-feedback", "Right!").await;
    // Another browser profile would see it too: the list reads it from the account.
    s.goto(&rig.url("/learn")).await;
    wait_text(&s, "main", "Your progress is kept in your account.").await;
    wait_for(
        &s,
        "!!document.querySelector(\".learn-card.done[data-lesson='won-ending']\")",
        "the lesson marked done from the account",
    )
    .await;
    // The lobby's invite is there but not highlighted for an account.
    s.goto(&rig.url("/")).await;
    wait_for(
        &s,
        "!!document.querySelector('#learn-invite:not(.highlight)')",
        "the plain invite",
    )
    .await;
    rig.stop(vec![s]).await;
}
