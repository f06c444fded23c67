//! Arena tournaments in real headless Chromium against the real server on 127.0.0.1 (the
//! harness of tests/support/browser.rs), its pairing task stepping every 50 ms: an arena made
//! with the lobby's form, found in the lobby's list and on a profile, joined on its page by
//! three accounts; two are sent to their game and play it to a mate, and the third's page
//! shows the standings change. Waits poll what the pages show, with a deadline; nothing
//! measures wall-clock time.

use crate::support::browser;

use std::time::{Duration, Instant};

use browser::{
    BrowserRig as Rig, SERIAL, Session, WAIT, browser_available, click, click_move, js, text,
    type_into, wait_for, wait_text,
};
use marseillais::server::config::ArenaScheduleChoice;
use serde_json::json;

/// The path of the page a browser shows ("" while it cannot say, e.g. mid-navigation).
async fn path(s: &Session) -> String {
    s.client
        .current_url()
        .await
        .map(|url| url.path().to_owned())
        .unwrap_or_default()
}

/// The two browsers the arena sent to one game (the pairing chooses two of the three) and the
/// one left on the arena page: `([player, player], waiting, game id)`.
async fn sent_to_a_game(browsers: &[Session]) -> ([usize; 2], usize, String) {
    let deadline = Instant::now() + WAIT;
    loop {
        let mut paths = Vec::new();
        for s in browsers {
            paths.push(path(s).await);
        }
        let on_game: Vec<usize> = (0..browsers.len())
            .filter(|&i| paths[i].starts_with("/game/"))
            .collect();
        if let [a, b] = on_game[..] {
            assert_eq!(paths[a], paths[b], "one game for the pair");
            let waiting = (0..browsers.len())
                .find(|i| !on_game.contains(i))
                .expect("a third browser");
            let game = paths[a].trim_start_matches("/game/").to_owned();
            return ([a, b], waiting, game);
        }
        assert!(
            Instant::now() < deadline,
            "two browsers were not sent to a game: {paths:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Whether the game page says this browser plays White (it waits until it names its seat).
async fn plays_white(s: &Session) -> bool {
    wait_for(
        s,
        "[...document.querySelectorAll('.seat')].some((e) => e.textContent.includes('(you)'))",
        "the game page naming this player's seat",
    )
    .await;
    text(s, "#seat-white").await.contains("(you)")
}

/// The text of a cell of a player's line in the standings.
fn standing(name: &str, cell: &str) -> String {
    format!(
        "(document.querySelector(\"#arena-standings tr[data-name='{name}'] .{cell}\") || {{textContent: ''}}).textContent"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_players_join_an_arena_two_are_paired_and_play_and_the_third_sees_the_standings_change()
 {
    if !browser_available("three_players_join_an_arena...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start_with(|c| {
        c.arena.pairing_every = Duration::from_millis(50);
        c.arena.schedule = ArenaScheduleChoice::Off;
    })
    .await;
    let names = ["ann", "ben", "cid"];
    let mut browsers = Vec::new();
    for name in names {
        let s = rig.driver.session().await;
        rig.register(&s, name).await;
        browsers.push(s);
    }
    let [ann, ben, cid] = &browsers[..] else {
        unreachable!("three browsers")
    };

    // Ann makes an arena that starts now (the form's default start, 0 minutes: now) with the
    // lobby's form; its page opens, its name shown as text, and she joins.
    let name = "Friday <b>blitz</b>";
    ann.goto(&rig.url("/")).await;
    click(ann, "#arena-create summary").await;
    type_into(ann, "#arena-new-name", name).await;
    click(ann, "#arena-create-btn").await;
    let arena = wait_for(
        ann,
        "location.pathname.startsWith('/arena/') && !!document.querySelector('#arena-name') && location.pathname",
        "the new arena's page",
    )
    .await;
    let arena = arena.as_str().expect("a path").to_owned();
    assert_eq!(text(ann, "#arena-name").await, name);
    assert_eq!(
        js(ann, "return document.querySelector('#arena-name b')").await,
        json!(null),
        "the name is text, not HTML"
    );
    wait_text(ann, "#arena-info", "3+2 · Rated").await;
    wait_text(ann, "#arena-countdown", "Ends in").await;
    click(ann, "#arena-join").await;
    wait_text(ann, "#arena-info", "1 player").await;
    wait_text(ann, "#arena-standings", "ann").await;

    // Ben finds it among the lobby's running arenas and joins. From here the pairing may send
    // any two of them to a game at once: nothing more is awaited on a page that may leave.
    ben.goto(&rig.url("/")).await;
    click(ben, &format!("#arenas-running a[href='{arena}']")).await;
    click(ben, "#arena-join").await;

    // Cid finds it among the tournaments of Ann's profile and joins.
    cid.goto(&rig.url("/@/ann")).await;
    click(cid, &format!("#profile-arenas a[href='{arena}']")).await;
    click(cid, "#arena-join").await;

    // Two are sent to their game; the third waits on the arena page, and withdraws: the end of
    // the game would otherwise pair them at once and send their page to the new game.
    let ([a, b], waiting, game) = sent_to_a_game(&browsers).await;
    let third = &browsers[waiting];
    wait_text(third, "#arena-info", "3 players").await;
    for i in [a, b] {
        wait_text(
            third,
            &format!(
                "#arena-standings tr[data-name='{}'] .playing-mark",
                names[i]
            ),
            "playing",
        )
        .await;
    }
    click(third, "#arena-withdraw").await;
    wait_for(
        third,
        &format!(
            "!!document.querySelector('#arena-join') && !!document.querySelector(\"#arena-standings tr.withdrawn[data-name='{}']\")",
            names[waiting]
        ),
        "the third player withdrawn, dimmed, with Join again",
    )
    .await;

    // The two play the game to White's mate in two turns: 1. e4 f6,g5 2. Qh5#.
    let (white, black) = if plays_white(&browsers[a]).await {
        (a, b)
    } else {
        (b, a)
    };
    let (w, bl) = (&browsers[white], &browsers[black]);
    assert!(!plays_white(bl).await, "one White, one Black");
    wait_text(w, "#player-white", names[white]).await;
    wait_text(w, "#player-black", names[black]).await;
    // Black goes berserk before its first sub-move: both pages say so, and the button is gone.
    click(bl, "#btn-berserk").await;
    for s in [w, bl] {
        wait_text(s, "#said", "went berserk").await;
    }
    wait_for(
        bl,
        "!document.querySelector('#btn-berserk')",
        "no second berserk",
    )
    .await;
    click_move(w, "e2", "e4").await;
    click_move(bl, "f7", "f6").await;
    click_move(bl, "g7", "g5").await;
    click_move(w, "d1", "h5").await;
    for s in [w, bl] {
        wait_text(s, "#status", "White wins by checkmate").await;
        // The way back to the arena, a button once the game is over.
        wait_for(
            s,
            &format!(
                "document.querySelector('#arena-back.primary')?.getAttribute('href') === '{arena}'"
            ),
            "Back to the arena",
        )
        .await;
    }

    // The third's arena page, read every 2 s, shows the win: 2 points on a sheet of one game,
    // first place, the loser at 0, the game's result.
    let (winner, loser) = (names[white], names[black]);
    wait_for(
        third,
        &format!("{} === '2'", standing(winner, "points")),
        "the winner's 2 points",
    )
    .await;
    assert_eq!(
        js(third, &format!("return {}", standing(winner, "sheet"))).await,
        json!("2")
    );
    assert_eq!(
        js(third, &format!("return {}", standing(winner, "rank"))).await,
        json!("1")
    );
    assert_eq!(
        js(third, &format!("return {}", standing(loser, "points"))).await,
        json!("0")
    );
    wait_text(
        third,
        &format!("#arena-games li[data-id='{game}'] .result"),
        "1-0",
    )
    .await;
    assert!(
        text(third, &format!("#arena-games li[data-id='{game}']"))
            .await
            .contains(&format!("{winner} - {loser}")),
        "White - Black in the games list"
    );
    rig.stop(browsers).await;
}
