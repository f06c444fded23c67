//! Games that belong to accounts, through the real server: a seat taken signed in works from
//! any device where its user is signed in (the session cookie proves it on the WebSocket, with
//! or without the seat token), other accounts stay spectators, the players' names are in the
//! listing, the state, `join` and the PGN, and no token or session id is ever shown.

use crate::support;

use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::rig::Rig;
use support::s;
use support::session::Session;

#[tokio::test]
async fn the_seat_of_a_signed_in_player_moves_from_a_second_device_without_its_token() {
    let rig = Rig::start().await;
    let first_device = Session::register(rig.addr(), "alice").await;
    let (id, alice_token, black_token) = first_device.against_anonymous(&rig).await;
    assert_eq!(alice_token.len(), 32, "the token is returned as today");
    let mut black = rig.seat(&id, &black_token).await;
    black.skip_to("state").await;

    // Another cookie jar, same account, no token at all.
    let second_device = Session::login(rig.addr(), "alice").await;
    assert_ne!(second_device.cookie, first_device.cookie);
    let mut white = second_device.connect(rig.addr(), &id, "").await;
    let state = white.skip_to("state").await;
    assert_eq!(state.d["you"], "white", "{state}");
    let ack = white.play("e2e4", "w1").await;
    assert_eq!(ack.d["uci"], "e2e4");
    assert_eq!(black.recv_type("move").await.d["uci"], "e2e4");
}

#[tokio::test]
async fn a_wrong_token_with_the_seats_session_is_seated_without_an_error() {
    let rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let (id, _, _) = alice.against_anonymous(&rig).await;
    let wrong = "0".repeat(32);
    let mut white = alice
        .connect(rig.addr(), &id, &format!("token={wrong}"))
        .await;
    let state = white.skip_to("state").await;
    assert_eq!(state.d["you"], "white");
    white
        .send(json!({"t": "hello", "d": {"token": null}}))
        .await;
    let again = white.skip_to("state").await;
    assert_eq!(again.d["you"], "white");
    assert!(
        white.seen.iter().all(|m| m.t != "error"),
        "no bad_token: {:?}",
        white.seen
    );
}

#[tokio::test]
async fn a_spectator_signed_in_as_another_account_stays_a_spectator() {
    let rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let carol = Session::register(rig.addr(), "carol").await;
    let (id, _, _) = alice.against_anonymous(&rig).await;
    let mut spectator = carol.connect(rig.addr(), &id, "").await;
    let state = spectator.skip_to("state").await;
    assert_eq!(state.d["you"], Value::Null);
    spectator.mv("e2e4", "c1").await;
    let refused = spectator.recv_type("error").await;
    assert_eq!(refused.d["code"], "not_a_player", "{refused}");
}

#[tokio::test]
async fn the_players_names_are_in_the_listing_the_state_join_and_the_pgn_and_no_secret_is() {
    let rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "Alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let (status, created) = alice
        .call(
            rig.addr(),
            "POST",
            "/api/games",
            Some(&json!({"color": "white"})),
        )
        .await;
    assert_eq!(status, 201);
    let id = s(&created["id"]);
    let alice_token = s(&created["token"]);

    let (_, open) = rig.http("GET", "/api/games?status=open", None).await;
    let open: Value = serde_json::from_str(&open).expect("json");
    let row = open["games"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["id"] == id.as_str()))
        .cloned()
        .expect("the open game is listed");
    assert_eq!(row["players"], json!({"white": {"name": "Alice"}}), "{row}");

    let mut white = alice.connect(rig.addr(), &id, "").await;
    white.skip_to("state").await;
    let (status, joined) = bob
        .call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let bob_token = s(&joined["token"]);
    let join = white.recv_type("join").await;
    let both = json!({"black": {"name": "bob"}, "white": {"name": "Alice"}});
    assert_eq!(join.d["players"], both, "{join}");
    white.send(json!({"t": "hello", "d": {}})).await;
    let state = white.skip_to("state").await;
    assert_eq!(state.d["players"], both);
    assert!(
        state.d.get("rated").is_none(),
        "an unrated game has no rated field"
    );
    let (_, snapshot) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    let snapshot_json: Value = serde_json::from_str(&snapshot).expect("json");
    assert_eq!(snapshot_json["players"], both);

    let pgn = rig.pgn(&id).await;
    assert!(
        pgn.contains("[White \"Alice\"]\n[Black \"bob\"]\n"),
        "{pgn}"
    );
    assert!(
        !pgn.contains("Elo"),
        "an unrated game has no Elo tags: {pgn}"
    );

    let (_, playing) = rig.http("GET", "/api/games?status=playing", None).await;
    let session_ids = [&alice.cookie, &bob.cookie].map(|c| {
        c.split_once('=')
            .map(|(_, v)| v.to_owned())
            .unwrap_or_default()
    });
    for text in [&playing, &snapshot, &pgn, &state.json.to_string()] {
        for secret in [&alice_token, &bob_token, &session_ids[0], &session_ids[1]] {
            assert!(!secret.is_empty());
            assert!(!text.contains(secret.as_str()), "a secret in {text}");
        }
    }
}

#[tokio::test]
async fn an_anonymous_game_has_no_players_field() {
    let rig = Rig::start().await;
    let (id, mut white, _black) = rig.players(json!({})).await;
    let state = white.skip_to("state").await;
    assert!(state.d.get("players").is_none(), "{state}");
    let (_, listing) = rig.http("GET", "/api/games?status=playing", None).await;
    assert!(!listing.contains("players"), "{listing}");
    let pgn = rig.pgn(&id).await;
    assert!(pgn.contains("[White \"Anonymous\"]"), "{pgn}");
}

#[tokio::test]
async fn the_rematch_of_an_account_game_gives_each_account_its_seat() {
    let rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let (status, created) = alice
        .call(
            rig.addr(),
            "POST",
            "/api/games",
            Some(&json!({"color": "white"})),
        )
        .await;
    assert_eq!(status, 201);
    let id = s(&created["id"]);
    let (status, _) = bob
        .call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200);
    // Both play from devices that hold no token: the session alone seats them.
    let alice_phone = Session::login(rig.addr(), "alice").await;
    let bob_phone = Session::login(rig.addr(), "bob").await;
    let mut white = alice_phone.connect(rig.addr(), &id, "").await;
    let mut black = bob_phone.connect(rig.addr(), &id, "").await;
    assert_eq!(white.skip_to("state").await.d["you"], "white");
    assert_eq!(black.skip_to("state").await.d["you"], "black");
    play_until_white_mates_in_one(&mut white, &mut black).await;
    white.play("d1h5", "w2").await;
    white.recv_type("end").await;
    black.recv_type("end").await;

    white.send(json!({"t": "rematch_offer"})).await;
    assert_eq!(black.recv_type("rematch_offer").await.d["by"], "white");
    black.send(json!({"t": "rematch_accept"})).await;
    let rematch = black.recv_type("rematch").await;
    let new_id = s(&rematch.d["id"]);
    assert!(!new_id.is_empty(), "{rematch}");

    // Colours swapped, each account in its seat, from any of its devices.
    let mut alice_new = alice.connect(rig.addr(), &new_id, "").await;
    let state = alice_new.skip_to("state").await;
    assert_eq!(state.d["you"], "black", "{state}");
    assert_eq!(
        state.d["players"],
        json!({"black": {"name": "alice"}, "white": {"name": "bob"}})
    );
    let mut bob_new = bob_phone.connect(rig.addr(), &new_id, "").await;
    assert_eq!(bob_new.skip_to("state").await.d["you"], "white");
    bob_new.play("e2e4", "r1").await;
}

#[tokio::test]
async fn a_casual_game_with_a_clock_shows_its_creators_rating_in_the_lobby_and_an_untimed_one_none()
{
    let rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let create = |body: Value| {
        let alice = alice.clone();
        let addr = rig.addr();
        async move {
            let (status, created) = alice.call(addr, "POST", "/api/games", Some(&body)).await;
            assert_eq!(status, 201, "{created}");
            s(&created["id"])
        }
    };
    let blitz = create(json!({"clock": {"base_secs": 300, "increment_secs": 3}})).await;
    let untimed = create(json!({})).await;

    let (_, listing) = rig.http("GET", "/api/games?status=open", None).await;
    let listing: Value = serde_json::from_str(&listing).expect("listing JSON");
    let games = listing["games"].as_array().expect("games");
    let players_of = |id: &str| {
        let game = games
            .iter()
            .find(|g| s(&g["id"]) == id)
            .unwrap_or_else(|| panic!("{id} not listed: {listing}"));
        let creator = if game["players"]["white"].is_null() {
            "black"
        } else {
            "white"
        };
        game["players"][creator].clone()
    };
    let rated_view = players_of(&blitz);
    assert_eq!(rated_view["name"], "alice");
    assert_eq!(
        rated_view["rating"]["rating"], 1500,
        "{rated_view} {listing}"
    );
    assert_eq!(rated_view["rating"]["provisional"], true);
    let untimed_view = players_of(&untimed);
    assert_eq!(untimed_view["name"], "alice");
    assert!(untimed_view.get("rating").is_none(), "{untimed_view}");

    // The rating range finds the casual game by its creator's rating.
    let (_, in_range) = rig
        .http(
            "GET",
            "/api/games?status=open&rating_min=1400&rating_max=1600",
            None,
        )
        .await;
    assert!(in_range.contains(&blitz), "{in_range}");
    assert!(!in_range.contains(&untimed), "{in_range}");
}
