//! Reconnecting by version with the room's bounded history (the last 64 messages and 4 KiB):
//! a client a turn or two behind gets exactly the events it missed, of every kind; one further
//! behind gets a `state`; and the same holds across a restart, when the history is rebuilt
//! from the stored log.

use crate::support;

use marseillais::server::play::room::history::RECENT_BYTES;
use serde_json::json;
use support::rig::Rig;
use support::ws::{Client, Incoming};

/// The next `n` messages that are not `presence`.
async fn next(client: &mut Client, n: usize) -> Vec<Incoming> {
    let mut messages = Vec::new();
    for _ in 0..n {
        messages.push(client.next_non_presence().await);
    }
    messages
}

fn kinds(messages: &[Incoming]) -> Vec<String> {
    messages.iter().map(|m| m.t.clone()).collect()
}

fn versions(messages: &[Incoming]) -> Vec<u64> {
    messages.iter().filter_map(|m| m.v).collect()
}

#[tokio::test]
async fn a_client_a_turn_behind_gets_every_kind_of_event_it_missed_exactly() {
    let server = Rig::start().await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    let mut watcher = server.spectate(&id).await;
    let seen = watcher.recv_type("state").await.v.expect("v");
    drop(watcher);

    // Moves and a takeback.
    white.play("e2e4", "w1").await;
    black.play("e7e5", "b1").await;
    black.send(json!({"t": "takeback_submove"})).await;
    black.recv_type("takeback").await;
    black.play("e7e5", "b2").await;
    black.play("g8f6", "b3").await;
    let mut back = server.connect(&id, &format!("v={seen}")).await;
    let missed = next(&mut back, 5).await;
    assert_eq!(kinds(&missed), ["move", "move", "takeback", "move", "move"]);
    assert_eq!(versions(&missed), (seen + 1..=seen + 5).collect::<Vec<_>>());
    assert_eq!(missed[2].d["uci"], "e7e5", "the S1 taken back");
    assert_eq!(missed[4].d["uci"], "g8f6");
    drop(back);

    // Offers, the end and the rematch.
    let seen = seen + 5;
    white.send(json!({"t": "draw_offer"})).await;
    black.recv_type("draw_offer").await;
    black.send(json!({"t": "draw_decline"})).await;
    white.recv_type("draw_decline").await;
    white.send(json!({"t": "resign"})).await;
    black.recv_type("end").await;
    white.send(json!({"t": "rematch_offer"})).await;
    black.recv_type("rematch_offer").await;
    black.send(json!({"t": "rematch_accept"})).await;
    let rematch = white.recv_type("rematch").await;
    let mut back = server.connect(&id, &format!("v={seen}")).await;
    let missed = next(&mut back, 5).await;
    assert_eq!(
        kinds(&missed),
        [
            "draw_offer",
            "draw_decline",
            "end",
            "rematch_offer",
            "rematch"
        ]
    );
    assert_eq!(versions(&missed), (seen + 1..=seen + 5).collect::<Vec<_>>());
    assert_eq!(missed[2].d["reason"], "resignation");
    assert_eq!(missed[4].d["id"], rematch.d["id"]);
    server.stop().await;
}

/// Knights out and back: 13 sub-moves whose `move` messages pass the history's 4 KiB.
const SUBMOVES: [&str; 13] = [
    "e2e4", "g8f6", "b8c6", "g1f3", "b1c3", "f6g8", "c6b8", "f3g1", "c3b1", "g8f6", "b8c6", "g1f3",
    "b1c3",
];

#[tokio::test]
async fn a_client_far_behind_gets_a_state_and_a_restart_keeps_the_recent_events() {
    let mut server = Rig::start().await;
    let (id, mut white, mut black) = server.players(json!({})).await;
    let mut last = None;
    let mut sizes = Vec::new();
    for (i, uci) in SUBMOVES.iter().enumerate() {
        // White's first turn is one sub-move, then each side plays two.
        let white_moves = i == 0 || (i - 1) / 2 % 2 == 1;
        let player = if white_moves { &mut white } else { &mut black };
        let event = player.play(uci, &format!("m{i}")).await;
        sizes.push(event.msg.to_text().len());
        last = event.v;
    }
    let last = last.expect("v");
    // What the test stands on: all the moves pass the history's bytes, the last two do not.
    assert!(sizes.iter().sum::<usize>() > RECENT_BYTES, "{sizes:?}");
    assert!(sizes[sizes.len() - 2..].iter().sum::<usize>() < RECENT_BYTES);
    let first = last - SUBMOVES.len() as u64 + 1;

    // From before the first sub-move: no longer all at hand, a state.
    let mut far = server.connect(&id, &format!("v={}", first - 1)).await;
    let state = far.next_non_presence().await;
    assert_eq!(state.t, "state");
    assert_eq!(state.v, Some(last));
    assert_eq!(
        state.d["moves"].as_array().map(Vec::len),
        Some(SUBMOVES.len())
    );
    // Two behind: exactly the two.
    let mut near = server.connect(&id, &format!("v={}", last - 2)).await;
    let missed = next(&mut near, 2).await;
    assert_eq!(kinds(&missed), ["move", "move"]);
    assert_eq!(missed[1].d["uci"], "b1c3");
    drop((far, near, white, black));

    // After a restart the history comes from the log, with the same bounds.
    server.restart().await;
    let mut near = server.connect(&id, &format!("v={}", last - 2)).await;
    let missed = next(&mut near, 2).await;
    assert_eq!(kinds(&missed), ["move", "move"]);
    assert_eq!(versions(&missed), [last - 1, last]);
    assert_eq!(missed[0].d["uci"], "g1f3");
    let mut far = server.connect(&id, &format!("v={}", first - 1)).await;
    let state = far.next_non_presence().await;
    assert_eq!(state.t, "state");
    assert_eq!(state.v, Some(last));
    server.stop().await;
}
