//! "My games" and the `your_turn` push against the real server (issue 12, docs/protocol.md
//! "My games" and "Lobby socket"): an account's unfinished games, its turn first, then by
//! deadline; the lobby channel's `your_turn` list on connect and after a move.

use crate::support;

use marseillais::server::lobby::channel::msg::LobbyMsg;
use serde_json::{Value, json};
use support::lobby::LobbyClient;
use support::rig::Rig;
use support::session::Session;

/// A game `creator` creates as White (`clock` as given) and `joiner` joins: its id.
async fn game(rig: &Rig, creator: &Session, joiner: Option<&Session>, clock: Value) -> String {
    let (status, created) = creator
        .call(
            rig.addr(),
            "POST",
            "/api/games",
            Some(&json!({"color": "white", "clock": clock})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = support::s(&created["id"]);
    if let Some(joiner) = joiner {
        let (status, joined) = joiner
            .call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
            .await;
        assert_eq!(status, 200, "{joined}");
    }
    id
}

fn ids(body: &Value) -> Vec<String> {
    body["games"]
        .as_array()
        .map(|games| games.iter().map(|g| support::s(&g["id"])).collect())
        .unwrap_or_default()
}

async fn your_turn(lobby: &mut LobbyClient) -> Vec<String> {
    match lobby
        .until("your_turn", |m| matches!(m, LobbyMsg::YourTurn(_)))
        .await
    {
        LobbyMsg::YourTurn(msg) => msg.games,
        _ => unreachable!("until returns what it matched"),
    }
}

#[tokio::test]
async fn my_games_lists_the_unfinished_games_my_turn_first_then_by_deadline() {
    let rig = Rig::builder().memory().start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let days3 = json!({"days_per_turn": 3});
    let days1 = json!({"days_per_turn": 1});
    // Alice White, to move (3 days), then Alice White to move (1 day: sooner), Bob White to
    // move (Alice waits), and Alice's open live game.
    let mine_later = game(&rig, &alice, Some(&bob), days3.clone()).await;
    let mine_sooner = game(&rig, &alice, Some(&bob), days1).await;
    let theirs = game(&rig, &bob, Some(&alice), days3).await;
    let open = game(
        &rig,
        &alice,
        None,
        json!({"base_secs": 300, "increment_secs": 3}),
    )
    .await;
    let (status, body) = alice
        .call(rig.addr(), "GET", "/api/account/games", None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        ids(&body)[..3],
        [mine_sooner.clone(), mine_later, theirs.clone()]
    );
    assert!(ids(&body).contains(&open), "{body}");
    let first = &body["games"][0];
    assert_eq!(first["color"], "white");
    assert_eq!(first["your_turn"], true);
    assert_eq!(first["turn"], "white");
    assert_eq!(first["opponent"]["name"], "bob");
    assert_eq!(first["clock"], json!({"days_per_turn": 1}));
    assert!(first["deadline_ms"].as_i64().is_some(), "{first}");
    let third = &body["games"][2];
    assert_eq!(
        (&third["color"], &third["your_turn"]),
        (&json!("black"), &json!(false))
    );
    let open_game = body["games"]
        .as_array()
        .and_then(|games| games.iter().find(|g| g["id"] == open.as_str()))
        .cloned()
        .unwrap_or_default();
    assert_eq!(open_game["status"], "open");
    assert!(open_game.get("opponent").is_none() && open_game.get("deadline_ms").is_none());
    // Bob sees the same games from his side.
    let (_, body) = bob
        .call(rig.addr(), "GET", "/api/account/games", None)
        .await;
    assert_eq!(ids(&body)[0], theirs);
    rig.stop().await;
}

#[tokio::test]
async fn my_games_needs_an_account() {
    let rig = Rig::builder().memory().start().await;
    let (status, body) = rig.http("GET", "/api/account/games", None).await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("not_logged_in"), "{body}");
    rig.stop().await;
}

#[tokio::test]
async fn the_lobby_pushes_your_turn_on_connect_and_again_after_a_move_ends_the_turn() {
    let rig = Rig::builder().memory().start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let id = game(&rig, &alice, Some(&bob), json!({"days_per_turn": 3})).await;
    let mut alice_lobby = LobbyClient::connect(rig.addr(), Some(&alice.cookie)).await;
    let mut bob_lobby = LobbyClient::connect(rig.addr(), Some(&bob.cookie)).await;
    assert_eq!(your_turn(&mut alice_lobby).await, vec![id.clone()]);
    assert!(your_turn(&mut bob_lobby).await.is_empty());
    // White's first turn is one sub-move: after it, it is Black's turn.
    let mut white = alice.connect(rig.addr(), &id, "").await;
    white.recv_type("state").await;
    white.play("e2e4", "m1").await;
    assert_eq!(your_turn(&mut bob_lobby).await, vec![id.clone()]);
    assert!(your_turn(&mut alice_lobby).await.is_empty());
    rig.stop().await;
}
