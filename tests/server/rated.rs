//! Rated games through the real server: who may create and join one, both ratings changed
//! exactly once when a rated game ends (not again after a restart), nothing for an aborted one,
//! the `ratings` message and the finished game's `state`, and the PGN's Elo tags.

use crate::support;

use std::sync::Arc;

use marseillais::server::players::account::Username;
use marseillais::server::players::rating::{Rating, Speed};
use marseillais::server::store::{SqliteStore, Store};
use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::rig::Rig;
use support::s;
use support::session::Session;
use support::ws::Client;

/// Blitz: 5 minutes + 2 s is 380 s estimated.
fn rated_blitz() -> Value {
    json!({"rated": true, "color": "white", "clock": {"base_secs": 300, "increment_secs": 2}})
}

/// A rated blitz game: alice (White) created it, bob joined; both connected from the devices
/// they signed in on, with their first `state` read. Returns (id, white, black).
async fn rated_game(rig: &Rig, alice: &Session, bob: &Session) -> (String, Client, Client) {
    let (status, created) = alice
        .call(rig.addr(), "POST", "/api/games", Some(&rated_blitz()))
        .await;
    assert_eq!(status, 201, "{created}");
    let id = s(&created["id"]);
    let (status, joined) = bob
        .call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let mut white = alice.connect(rig.addr(), &id, "").await;
    let mut black = bob.connect(rig.addr(), &id, "").await;
    assert_eq!(white.skip_to("state").await.d["you"], "white");
    assert_eq!(black.skip_to("state").await.d["you"], "black");
    (id, white, black)
}

/// Both users' stored blitz ratings and the game's rating row, read from the rig's own
/// database while the server is paused.
async fn stored(rig: &Rig, id: &str) -> ([Vec<(Speed, Rating)>; 2], bool) {
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(rig.data_dir()).expect("open"));
    let mut ratings = [Vec::new(), Vec::new()];
    for (slot, name) in ratings.iter_mut().zip(["alice", "bob"]) {
        let name = Username::parse(name).expect("a name");
        let user = store
            .find_user(&name)
            .await
            .expect("read")
            .expect("the user exists");
        *slot = store.ratings(user.account.id).await.expect("read");
    }
    let rated = store.game_rating(id).await.expect("read").is_some();
    store.close().await;
    (ratings, rated)
}

#[tokio::test]
async fn a_rated_game_is_created_only_signed_in_with_a_clock_and_not_against_the_computer() {
    let rig = Rig::start().await;
    let (status, body) = rig
        .http("POST", "/api/games", Some(&rated_blitz().to_string()))
        .await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("\"not_logged_in\""), "{body}");

    let alice = Session::register(rig.addr(), "alice").await;
    let (status, body) = alice
        .call(
            rig.addr(),
            "POST",
            "/api/games",
            Some(&json!({"rated": true})),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "rated_needs_clock");

    let mut against_computer = rated_blitz();
    against_computer["computer"] = json!({"level": 1});
    let (status, body) = alice
        .call(rig.addr(), "POST", "/api/games", Some(&against_computer))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "bad_request");

    let (status, body) = alice
        .call(rig.addr(), "POST", "/api/games", Some(&rated_blitz()))
        .await;
    assert_eq!(status, 201, "{body}");
}

#[tokio::test]
async fn a_rated_game_is_joined_only_signed_in_and_never_by_its_creator() {
    let rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let (_, created) = alice
        .call(rig.addr(), "POST", "/api/games", Some(&rated_blitz()))
        .await;
    let id = s(&created["id"]);
    let join = format!("/api/games/{id}/join");

    let (status, body) = rig.http("POST", &join, None).await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("\"not_logged_in\""), "{body}");

    let alice_laptop = Session::login(rig.addr(), "alice").await;
    let (status, body) = alice_laptop.call(rig.addr(), "POST", &join, None).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["code"], "same_player");

    let bob = Session::register(rig.addr(), "bob").await;
    let (status, body) = bob.call(rig.addr(), "POST", &join, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["color"], "black");
}

#[tokio::test]
async fn a_rated_game_played_to_mate_changes_both_ratings_once_even_after_a_restart() {
    let mut rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let (id, mut white, mut black) = rated_game(&rig, &alice, &bob).await;

    let (_, open) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    let open: Value = serde_json::from_str(&open).expect("json");
    assert_eq!(open["rated"], true);
    let initial = json!({"rating": 1500, "deviation": 500, "provisional": true});
    assert_eq!(
        open["players"],
        json!({"black": {"name": "bob", "rating": initial}, "white": {"name": "alice", "rating": initial}})
    );

    play_until_white_mates_in_one(&mut white, &mut black).await;
    white.play("d1h5", "w2").await;
    assert_eq!(white.recv_type("end").await.d["winner"], "white");
    let ratings = black.recv_type("ratings").await;
    let change = ratings.d.clone();
    assert!(change["white"]["diff"].as_i64() > Some(0), "{ratings}");
    assert!(change["black"]["diff"].as_i64() < Some(0), "{ratings}");
    assert_eq!(change["white"]["before"], initial);
    assert_eq!(
        change["white"]["after"]["rating"].as_i64(),
        Some(1500 + change["white"]["diff"].as_i64().unwrap_or_default())
    );
    assert_eq!(white.recv_type("ratings").await.d, change);

    let pgn = rig.pgn(&id).await;
    assert!(
        pgn.contains("[White \"alice\"]\n[Black \"bob\"]\n[Result \"1-0\"]\n[WhiteElo \"1500\"]\n[BlackElo \"1500\"]\n"),
        "{pgn}"
    );

    white.close().await;
    black.close().await;
    rig.pause().await;
    let ([alice_ratings, bob_ratings], rated) = stored(&rig, &id).await;
    assert!(rated, "the game has its rating row");
    for ratings in [&alice_ratings, &bob_ratings] {
        assert_eq!(ratings.len(), 1, "{ratings:?}");
        assert_eq!(ratings[0].0, Speed::Blitz);
        assert_eq!(ratings[0].1.games, 1, "counted once");
    }
    let alice_after = alice_ratings[0].1;

    // Restarted: the game loads as finished, with its changes, and counts nowhere again.
    rig.resume().await;
    let mut watcher = alice.connect(rig.addr(), &id, "").await;
    let state = watcher.skip_to("state").await;
    assert_eq!(state.d["ratings"], change, "{state}");
    let (_, snapshot) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    let snapshot: Value = serde_json::from_str(&snapshot).expect("json");
    assert_eq!(snapshot["ratings"], change);
    watcher.close().await;

    // The next rated game starts from the ratings after the first one.
    let (status, created) = alice
        .call(rig.addr(), "POST", "/api/games", Some(&rated_blitz()))
        .await;
    assert_eq!(status, 201, "{created}");
    let next = s(&created["id"]);
    let (_, snapshot) = rig.http("GET", &format!("/api/games/{next}"), None).await;
    let snapshot: Value = serde_json::from_str(&snapshot).expect("json");
    assert_eq!(
        snapshot["players"]["white"]["rating"]["rating"].as_i64(),
        Some(alice_after.rating.round() as i64)
    );

    rig.pause().await;
    let ([alice_ratings, bob_ratings], _) = stored(&rig, &id).await;
    assert_eq!(
        alice_ratings[0].1.games, 1,
        "not counted twice after a restart"
    );
    assert_eq!(
        bob_ratings[0].1.games, 1,
        "not counted twice after a restart"
    );
}

#[tokio::test]
async fn an_aborted_rated_game_changes_no_rating() {
    let mut rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let (id, mut white, mut black) = rated_game(&rig, &alice, &bob).await;
    white.send(json!({"t": "abort"})).await;
    assert_eq!(white.recv_type("end").await.d["reason"], "aborted");
    black.recv_type("end").await;
    // Anything the room publishes after the end arrives before this answer to a ping.
    white.send(json!({"t": "ping"})).await;
    white.recv_type("pong").await;
    assert!(
        white.seen.iter().all(|m| m.t != "ratings"),
        "{:?}",
        white.seen
    );
    let pgn = rig.pgn(&id).await;
    assert!(
        pgn.contains("[WhiteElo \"1500\"]"),
        "the ratings before the game: {pgn}"
    );

    white.close().await;
    black.close().await;
    rig.pause().await;
    let ([alice_ratings, bob_ratings], rated) = stored(&rig, &id).await;
    assert!(!rated, "an aborted game is not rated");
    assert!(alice_ratings.is_empty(), "{alice_ratings:?}");
    assert!(bob_ratings.is_empty(), "{bob_ratings:?}");
}
