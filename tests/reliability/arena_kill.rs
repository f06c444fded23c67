//! An arena survives a SIGKILL of the real server binary: every pairing (a game committed with
//! both seats) and every score (the commit that ended a game) is on disk when the players are
//! told, so the restarted server shows the same standings and games, and pairs on (issue 29).

use crate::support;

use support::arena::{arena_for_two, games, next_game, paired, standing, until, white_mates};
use support::process::{Scratch, ServerProcess};
use support::session::Session;

#[tokio::test]
async fn a_kill_9_mid_arena_loses_no_pairing_and_no_score_and_pairing_resumes() {
    let scratch = Scratch::new();
    let flags = ["--arena-schedule", "off"];
    let server = ServerProcess::spawn(&scratch.data(), &scratch.log(), &flags).await;
    let addr = server.addr;
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    let id = arena_for_two(addr, &alice, &bob).await;
    let (game, white, black) = next_game(addr, &alice, &bob, &id).await;
    white_mates(addr, white, black, &game).await;
    // The end is told (so committed); the two are paired again (the only two in).
    let before = until(addr, &alice, &id, |p| games(p) == 2).await;
    let (second, _) = paired(addr, &alice, &id).await;
    server.kill9().await;

    let server = ServerProcess::spawn(&scratch.data(), &scratch.log(), &flags).await;
    let addr = server.addr;
    let after = until(addr, &alice, &id, |p| games(p) == 2).await;
    assert_eq!(after["standings"], before["standings"], "every score kept");
    assert_eq!(standing(&after, &white.name)["points"], 2);
    assert_eq!(after["games"], before["games"], "every pairing kept");
    assert_eq!(
        after["me"]["game"]["id"],
        second.as_str(),
        "the game being played"
    );
    // Pairing resumes: the second game's end pairs them a third time.
    let (_, white, black) = next_game(addr, &alice, &bob, &id).await;
    white_mates(addr, white, black, &second).await;
    let page = until(addr, &bob, &id, |p| games(p) == 3).await;
    assert_eq!(standing(&page, &white.name)["games"], 2, "{page}");
    server.terminate().await;
}
