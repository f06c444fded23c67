//! The client's accounts, ratings, profiles and challenges (issue 11) in real
//! headless Chromium against the real server on 127.0.0.1 (the harness of
//! tests/support/browser.rs). Each browser session has its own profile
//! directory, so its own cookie jar: two sessions of one user are two
//! devices. Waits poll with a deadline; nothing measures wall-clock time.

use crate::support::browser;

use browser::{
    SERIAL, Session, browser_available, click, click_move, js, text, type_into, wait_for,
    wait_moves, wait_text,
};
use serde_json::json;

const PASSWORD: &str = "correct horse battery";

use browser::BrowserRig as Rig;

/// Fills the header's dialog (opened by `button`) and submits it.
async fn submit_account_dialog(s: &Session, button: &str, name: &str, password: &str) {
    click(s, button).await;
    wait_for(
        s,
        "document.querySelector('#account-dialog') && document.querySelector('#account-dialog').open",
        "the account dialog",
    )
    .await;
    type_into(s, "#account-username", name).await;
    type_into(s, "#account-password", password).await;
    click(s, "#account-submit").await;
}

/// Signs up through the header on the lobby; waits for the header to name the user.
async fn sign_up(rig: &Rig, s: &Session, name: &str) {
    s.goto(&rig.url("/")).await;
    submit_account_dialog(s, "#btn-signup", name, PASSWORD).await;
    wait_text(s, "#account-name", name).await;
}

/// Logs in through the header on the lobby; waits for the header to name the user.
async fn log_in(rig: &Rig, s: &Session, name: &str) {
    s.goto(&rig.url("/")).await;
    submit_account_dialog(s, "#btn-login", name, PASSWORD).await;
    wait_text(s, "#account-name", name).await;
}

/// Creates a game from the lobby form as White; returns its id once its page waits for an opponent.
async fn create_from_lobby(rig: &Rig, s: &Session, clock: &str, rated: bool) -> String {
    s.goto(&rig.url("/")).await;
    click(
        s,
        &format!("label.choice:has(input[name=clock][value='{clock}'])"),
    )
    .await;
    click(s, "label.choice:has(input[name=color][value='white'])").await;
    if rated {
        click(s, "#rated").await;
    }
    click(s, "#create-btn").await;
    let path = wait_for(
        s,
        "location.pathname.startsWith('/game/') && document.querySelector('#status').textContent.includes('Waiting') && location.pathname",
        "the page of the new game",
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

/// A few checks of the page's structure (tests/browser/game/ runs the full checker on the
/// pages it knows): one `h1`, unique ids, every shown button and form field named.
const PAGE_CHECK: &str = r#"
const out = [];
if (document.querySelectorAll('h1').length !== 1) out.push('h1 count');
const ids = new Map();
for (const e of document.querySelectorAll('[id]')) ids.set(e.id, (ids.get(e.id) || 0) + 1);
for (const [id, n] of ids) if (n > 1) out.push(`duplicate id ${id}`);
for (const b of document.querySelectorAll('button')) {
  if (b.getClientRects().length && !(b.textContent.trim() || b.getAttribute('aria-label'))) out.push(`unnamed button ${b.outerHTML.slice(0, 80)}`);
}
for (const i of document.querySelectorAll('input:not([type=hidden]), select')) {
  const named = i.getAttribute('aria-label') || (i.id && document.querySelector(`label[for="${i.id}"]`)) || i.closest('label');
  if (i.getClientRects().length && !named) out.push(`unnamed field ${i.id || i.name}`);
}
return out;
"#;

/// Whether this browser keeps a seat token for the game.
async fn holds_token(s: &Session, id: &str) -> bool {
    js(
        s,
        &format!(
            "return localStorage.getItem('marseillais.seat.' + {}) !== null",
            json!(id)
        ),
    )
    .await
        == json!(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signed_up_in_one_browser_and_logged_in_on_a_second_the_user_takes_the_seat_there_and_moves()
 {
    if !browser_available("signed_up_in_one_browser...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let first = rig.driver.session().await;
    let second = rig.driver.session().await;
    let opponent = rig.driver.session().await;

    sign_up(&rig, &first, "alice").await;
    let id = create_from_lobby(&rig, &first, "5+3", false).await;
    opponent.goto(&rig.url(&format!("/game/{id}"))).await;
    click(&opponent, "#btn-join").await;
    wait_text(&opponent, "#seat-black", "(you)").await;
    wait_text(&first, "#status", "Your turn").await;

    // The second device: the same user, another cookie jar, no seat token.
    log_in(&rig, &second, "alice").await;
    second.goto(&rig.url(&format!("/game/{id}"))).await;
    wait_text(&second, "#seat-white", "(you)").await;
    assert!(
        !holds_token(&second, &id).await,
        "the second browser holds no token: the session is its proof"
    );
    // The players by name: the account's username, "Anonymous" for the anonymous seat.
    wait_text(&second, "#player-white", "alice").await;
    wait_text(&opponent, "#player-white", "alice").await;
    assert_eq!(text(&opponent, "#player-black").await, "Anonymous");
    assert_eq!(
        js(
            &opponent,
            "return document.querySelector('#player-white a').getAttribute('href')"
        )
        .await,
        json!("/@/alice")
    );

    click_move(&second, "e2", "e4").await;
    wait_moves(&[&first, &second, &opponent], 1).await;
    wait_text(&opponent, "#status", "Your turn").await;
    rig.stop(vec![first, second, opponent]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_up_and_log_in_refusals_are_said_in_words_and_log_out_signs_the_browser_out() {
    if !browser_available("sign_up_and_log_in_refusals...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let a = rig.driver.session().await;
    let b = rig.driver.session().await;

    a.goto(&rig.url("/")).await;
    submit_account_dialog(&a, "#btn-signup", "a", PASSWORD).await;
    wait_text(&a, "#account-error", "2 to 20 characters").await;
    assert_eq!(
        js(&a, PAGE_CHECK).await,
        json!([]),
        "the lobby with the dialog open"
    );
    type_into(&a, "#account-username", "alice").await;
    type_into(&a, "#account-password", "short").await;
    click(&a, "#account-submit").await;
    wait_text(&a, "#account-error", "8 to 128 characters").await;
    type_into(&a, "#account-password", PASSWORD).await;
    click(&a, "#account-submit").await;
    wait_text(&a, "#account-name", "alice").await;
    assert_eq!(
        js(
            &a,
            "return document.querySelector('#account-name').getAttribute('href')"
        )
        .await,
        json!("/@/alice")
    );

    // Usernames are unique whatever their case.
    b.goto(&rig.url("/")).await;
    submit_account_dialog(&b, "#btn-signup", "ALICE", PASSWORD).await;
    wait_text(&b, "#account-error", "taken").await;
    // The dialog switches to logging in; a wrong password is said as such.
    click(&b, "#account-switch").await;
    wait_text(&b, "#account-title", "Log in").await;
    type_into(&b, "#account-username", "alice").await;
    type_into(&b, "#account-password", "not the password").await;
    click(&b, "#account-submit").await;
    wait_text(&b, "#account-error", "Wrong username or password").await;
    // Guessing on is throttled, and said so (bounded: the limit is a few tries a minute).
    let mut throttled = false;
    for _ in 0..15 {
        js(
            &b,
            "document.querySelector('#account-error').textContent = ''; return true",
        )
        .await;
        click(&b, "#account-submit").await;
        let said = wait_for(
            &b,
            "document.querySelector('#account-error').textContent",
            "an answer to the login",
        )
        .await;
        if said.as_str().is_some_and(|t| t.contains("Too many tries")) {
            throttled = true;
            break;
        }
    }
    assert!(
        throttled,
        "repeated wrong passwords end in \"Too many tries\""
    );

    click(&a, "#btn-logout").await;
    wait_for(
        &a,
        "!!document.querySelector('#btn-login')",
        "the log-in button",
    )
    .await;
    a.goto(&rig.url("/")).await;
    wait_for(
        &a,
        "!!document.querySelector('#btn-login')",
        "the log-in button after a reload",
    )
    .await;
    assert!(!text(&a, "#account").await.contains("alice"));
    rig.stop(vec![a, b]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_games_lists_the_games_whose_seats_this_browser_holds_in_progress_first_with_your_turn_marked()
 {
    if !browser_available("my_games_lists...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    let waiting = create_from_lobby(&rig, &white, "5+3", false).await;
    let playing = create_from_lobby(&rig, &white, "10+5", false).await;
    black.goto(&rig.url(&format!("/game/{playing}"))).await;
    click(&black, "#btn-join").await;
    wait_text(&white, "#status", "Your turn").await;

    white.goto(&rig.url("/")).await;
    let ids = wait_for(
        &white,
        "(() => { const ids = [...document.querySelectorAll('#my-games li[data-id]')].map(li => li.dataset.id); return ids.length === 2 && ids; })()",
        "two games in My games",
    )
    .await;
    assert_eq!(ids, json!([playing, waiting]), "the game in progress first");
    let row = |id: &str| format!("#my-games li[data-id='{id}']");
    wait_text(&white, &row(&playing), "Your turn").await;
    assert!(
        text(&white, &row(&waiting))
            .await
            .contains("waiting for an opponent")
    );
    assert!(!text(&white, &row(&waiting)).await.contains("Your turn"));
    // Black holds one seat, and it is not Black's turn.
    black.goto(&rig.url("/")).await;
    wait_text(&black, &row(&playing), "in progress").await;
    assert!(!text(&black, &row(&playing)).await.contains("Your turn"));
    assert_eq!(
        js(
            &black,
            "return document.querySelectorAll('#my-games li[data-id]').length"
        )
        .await,
        json!(1)
    );
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_shows_rated_both_names_with_provisional_ratings_and_the_rating_change_at_the_end()
 {
    if !browser_available("a_rated_game_shows...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let white = rig.driver.session().await;
    let black = rig.driver.session().await;
    sign_up(&rig, &white, "alice").await;
    sign_up(&rig, &black, "bob").await;
    let id = create_from_lobby(&rig, &white, "5+3", true).await;

    // The lobby names the creator with the provisional rating.
    black.goto(&rig.url("/")).await;
    let row = format!("#open-games li[data-id='{id}']");
    wait_text(&black, &row, "alice (1500?)").await;
    assert!(text(&black, &row).await.contains("Rated"));
    click(&black, &format!("{row} .join")).await;
    wait_text(&black, "#seat-black", "(you)").await;
    for s in [&white, &black] {
        wait_text(s, "#game-info", "Rated").await;
        wait_text(s, "#player-white", "alice (1500?)").await;
        wait_text(s, "#player-black", "bob (1500?)").await;
    }

    // Both complete a turn (no abort any more), then White resigns.
    click_move(&white, "e2", "e4").await;
    click_move(&black, "e7", "e5").await;
    click_move(&black, "d7", "d5").await;
    wait_moves(&[&white, &black], 3).await;
    click(&white, "#btn-resign").await;
    click(&white, "#btn-resign-yes").await;
    for s in [&white, &black] {
        wait_for(
            s,
            "(document.querySelector('#rating-diff-white') || {textContent: ''}).textContent.trim().startsWith('-')",
            "White's rating going down",
        )
        .await;
        wait_for(
            s,
            "(document.querySelector('#rating-diff-black') || {textContent: ''}).textContent.trim().startsWith('+')",
            "Black's rating going up",
        )
        .await;
        wait_text(s, "#rating-change", "1500 →").await;
    }

    // The lobby's rating filter (the creator's rating for the game's speed): Alice's next
    // rated game is within 0-4000, not above 2000.
    let next = create_from_lobby(&rig, &white, "5+3", true).await;
    black.goto(&rig.url("/")).await;
    let row = format!("#open-games li[data-id='{next}']");
    wait_text(&black, &row, "alice").await;
    type_into(&black, "#rating-min", "2000").await;
    click(&black, "#rating-filter-btn").await;
    wait_text(&black, "#open-games", "No open game in this rating range").await;
    type_into(&black, "#rating-min", "0").await;
    type_into(&black, "#rating-max", "4000").await;
    click(&black, "#rating-filter-btn").await;
    wait_text(&black, &row, "alice").await;

    // Alice's "My games" (her account's list): the open game before the finished rated one,
    // which shows her change.
    white.goto(&rig.url("/")).await;
    let order = format!(
        "(() => {{ const ids = [...document.querySelectorAll('#my-games li[data-id]')].map(li => li.dataset.id); return ids.length === 2 && ids[0] === '{next}' && ids[1] === '{id}'; }})()"
    );
    wait_for(
        &white,
        &order,
        "the open game, then the finished one, in My games",
    )
    .await;
    let finished = text(&white, &format!("#my-games li[data-id='{id}']")).await;
    assert!(
        finished.contains("Rated") && finished.contains(" -"),
        "{finished}"
    );

    // Alice's profile: her blitz rating (5+3 is blitz), its history graph, the lost game.
    black.goto(&rig.url("/@/alice")).await;
    wait_text(&black, "#ratings", "Blitz").await;
    wait_for(
        &black,
        "document.querySelectorAll('#history-svg circle').length === 1",
        "one point in the graph",
    )
    .await;
    wait_text(&black, "#history-caption", "from ").await;
    let game_row = format!("#games-table tr[data-id='{id}']");
    wait_text(&black, &game_row, "Lost").await;
    let cells = text(&black, &game_row).await;
    assert!(
        cells.contains("bob") && cells.contains("Rated") && cells.contains('-'),
        "{cells}"
    );
    rig.stop(vec![white, black]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_from_a_profile_is_notified_live_and_accepting_takes_both_players_to_the_game()
{
    if !browser_available("a_challenge_from_a_profile...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let alice = rig.driver.session().await;
    let bob = rig.driver.session().await;
    sign_up(&rig, &alice, "alice").await;
    sign_up(&rig, &bob, "bob").await;
    // Both lobbies count the two signed-in players online (live, from the lobby channel).
    alice.goto(&rig.url("/")).await;
    wait_text(&alice, "#online-count", "2 players online").await;
    // Bob is on his own profile: no challenge button for himself.
    bob.goto(&rig.url("/@/bob")).await;
    wait_text(&bob, "#profile-name", "bob").await;
    assert_eq!(
        js(&bob, "return !!document.querySelector('#btn-challenge')").await,
        json!(false)
    );

    alice.goto(&rig.url("/@/bob")).await;
    wait_text(&alice, "#profile-name", "bob").await;
    click(&alice, "#btn-challenge").await;
    click(
        &alice,
        "label.choice:has(input[name=challenge-clock][value='5+3'])",
    )
    .await;
    click(
        &alice,
        "label.choice:has(input[name=challenge-color][value='white'])",
    )
    .await;
    click(&alice, "#challenge-send").await;
    wait_text(&alice, ".challenge-note.outgoing", "Waiting for bob").await;
    assert_eq!(js(&alice, PAGE_CHECK).await, json!([]), "the profile page");

    // A first challenge is declined: Alice sees it said.
    wait_text(&bob, ".challenge-note.incoming", "alice").await;
    wait_text(&bob, ".challenge-note.incoming", "you play Black").await;
    assert_eq!(
        js(&bob, PAGE_CHECK).await,
        json!([]),
        "the page with a notification"
    );
    click(&bob, ".challenge-note.incoming .challenge-decline").await;
    wait_text(&alice, ".challenge-note.outgoing", "declined").await;
    wait_for(
        &bob,
        "!document.querySelector('.challenge-note.incoming')",
        "the note gone",
    )
    .await;

    // A second one is accepted: both land on the game, each in their seat.
    alice.goto(&rig.url("/@/bob")).await;
    click(&alice, "#btn-challenge").await;
    click(
        &alice,
        "label.choice:has(input[name=challenge-color][value='white'])",
    )
    .await;
    click(&alice, "#challenge-send").await;
    click(&bob, ".challenge-note.incoming .challenge-accept").await;
    let path = wait_for(
        &bob,
        "location.pathname.startsWith('/game/') && location.pathname",
        "Bob on the game page",
    )
    .await;
    wait_for(
        &alice,
        &format!("location.pathname === {path}"),
        "Alice on the same game page",
    )
    .await;
    wait_text(&alice, "#seat-white", "(you)").await;
    wait_text(&bob, "#seat-black", "(you)").await;
    wait_text(&bob, "#player-white", "alice").await;
    click_move(&alice, "e2", "e4").await;
    wait_moves(&[&alice, &bob], 1).await;

    // A name from the address is shown as text, never as HTML.
    alice.goto(&rig.url("/@/%3Cimg%20src=x%3E")).await;
    wait_text(&alice, "#profile-status", "<img src=x>").await;
    assert_eq!(
        js(
            &alice,
            "return document.querySelectorAll('main img').length"
        )
        .await,
        json!(0)
    );

    // Bob's profile lists the game, linking to it.
    alice.goto(&rig.url("/@/bob")).await;
    let id = path
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("/game/")
        .to_string();
    wait_for(
        &alice,
        &format!("!!document.querySelector(\"#games-table a[href='/game/{id}']\")"),
        "the game in Bob's games list",
    )
    .await;
    rig.stop(vec![alice, bob]).await;
}
