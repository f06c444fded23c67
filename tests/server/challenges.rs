//! Challenges and the lobby channel on a real server: two signed-in users (real registrations,
//! real session cookies), real HTTP and real WebSockets on 127.0.0.1. Times that would be
//! minutes in production (a challenge's 10-minute life, the challenger-left grace) are
//! shortened through the configuration, never waited for.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use marseillais::server::lobby::channel::msg::{ChallengeState, GoneReason, LobbyMsg};
use marseillais::server::players::account::Username;
use marseillais::server::players::rating::Speed;
use marseillais::server::store::{Commit, GameListing, GameStatus, MemoryStore, RatedEnd, Store};
use serde_json::{Value, json};
use support::account::Browser;
use support::lobby::LobbyClient;
use support::rig::Rig;
use support::session::Session;
use support::{WAIT, s};

/// (status, JSON body; `Null` when empty): signed in as `who`, or anonymous (with our Origin
/// either way, as a page of the site sends it).
async fn api(
    rig: &Rig,
    method: &str,
    path: &str,
    who: Option<&Session>,
    body: Option<Value>,
) -> (u16, Value) {
    let addr = rig.addr();
    match who {
        Some(session) => session.call(addr, method, path, body.as_ref()).await,
        None => {
            let reply = Browser::new(addr).send(method, path, body.as_ref()).await;
            let value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
            (reply.status, value)
        }
    }
}

async fn sign_up(rig: &Rig, name: &str) -> Session {
    Session::register(rig.addr(), name).await
}

/// A lobby channel of `who`'s (anonymous: `None`).
async fn page(rig: &Rig, who: Option<&Session>) -> LobbyClient {
    LobbyClient::connect(rig.addr(), who.map(|s| s.cookie.as_str())).await
}

fn code(body: &Value) -> String {
    s(&body["code"])
}

/// A server whose challenge rate does not get in the way of the tests.
async fn rig_with(tune: impl FnOnce(&mut marseillais::server::config::Config) + 'static) -> Rig {
    Rig::start_with(move |c| {
        c.lobby.challenge_burst = 100.0;
        tune(c);
    })
    .await
}

async fn rig() -> Rig {
    rig_with(|_| {}).await
}

fn pending(msg: &LobbyMsg) -> Option<String> {
    match msg {
        LobbyMsg::Challenge(c) if c.state == ChallengeState::Pending => Some(c.id.clone()),
        _ => None,
    }
}

fn gone(msg: &LobbyMsg, id: &str) -> Option<GoneReason> {
    match msg {
        LobbyMsg::ChallengeGone(g) if g.id == id => Some(g.reason),
        _ => None,
    }
}

async fn challenge(rig: &Rig, who: &Session, body: Value) -> String {
    let (status, view) = api(rig, "POST", "/api/challenges", Some(who), Some(body)).await;
    assert_eq!(status, 201, "{view}");
    s(&view["id"])
}

#[tokio::test]
async fn a_challenge_is_seen_live_accepted_and_both_players_get_the_game_with_their_seats() {
    let rig = rig().await;
    let alice = sign_up(&rig, "alice").await;
    let bob = sign_up(&rig, "Bob").await;
    let mut alice_page = page(&rig, Some(&alice)).await;
    // Bob has two pages open: the challenge shows on both.
    let mut bob_page = page(&rig, Some(&bob)).await;
    let mut bob_other = page(&rig, Some(&bob)).await;

    let body =
        json!({"to": "bob", "clock": {"base_secs": 300, "increment_secs": 3}, "color": "white"});
    let (status, made) = api(&rig, "POST", "/api/challenges", Some(&alice), Some(body)).await;
    assert_eq!(status, 201, "{made}");
    let id = s(&made["id"]);
    assert_eq!(s(&made["from"]["name"]), "alice");
    assert_eq!(
        s(&made["to"]["name"]),
        "Bob",
        "the name as its owner spells it"
    );
    // A timed challenge shows both players' ratings at its speed (new players: 1500?).
    assert_eq!(
        made["from"]["rating"],
        json!({"rating": 1500, "deviation": 500, "provisional": true}),
        "{made}"
    );
    assert_eq!(s(&made["state"]), "pending");

    for page in [&mut bob_page, &mut bob_other, &mut alice_page] {
        let seen = page.until("the challenge", |m| pending(m).is_some()).await;
        let LobbyMsg::Challenge(view) = seen else {
            unreachable!()
        };
        assert_eq!(view.id, id);
        assert_eq!(view.from.name, "alice");
        assert_eq!(view.to.rating.map(|r| r.rating), Some(1500));
        assert!(view.expires_in_ms > 0 && view.expires_in_ms <= 600_000);
    }
    // Both see it in their list, each from their side.
    for who in [&alice, &bob] {
        let (status, list) = api(&rig, "GET", "/api/challenges", Some(who), None).await;
        assert_eq!(status, 200);
        let ids: Vec<String> = list["challenges"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|c| s(&c["id"]))
            .collect();
        assert_eq!(ids, vec![id.clone()]);
    }

    let (status, seat) = api(
        &rig,
        "POST",
        &format!("/api/challenges/{id}/accept"),
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(status, 200, "{seat}");
    let game = s(&seat["id"]);
    assert_eq!(s(&seat["color"]), "black", "alice chose white");
    for page in [&mut alice_page, &mut bob_page, &mut bob_other] {
        let seen = page
            .until(
                "the acceptance",
                |m| matches!(m, LobbyMsg::Challenge(c) if c.state == ChallengeState::Accepted),
            )
            .await;
        let LobbyMsg::Challenge(view) = seen else {
            unreachable!()
        };
        assert_eq!(view.game.as_deref(), Some(game.as_str()));
    }
    // The challenge is gone; a second accept finds nothing.
    let (status, body) = api(
        &rig,
        "POST",
        &format!("/api/challenges/{id}/accept"),
        Some(&bob),
        None,
    )
    .await;
    assert_eq!((status, code(&body)), (404, "not_found".into()));

    // The game is on the challenge's terms, between the two, and being played.
    let (status, state) = api(&rig, "GET", &format!("/api/games/{game}"), None, None).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["clock"]["base_secs"], 300, "{state}");
    assert_eq!(s(&state["status"]), "playing", "{state}");
    assert_eq!(s(&state["players"]["white"]["name"]), "alice", "{state}");
    assert_eq!(s(&state["players"]["black"]["name"]), "Bob", "{state}");
    // Each seat is its account's: the session alone proves it on the game socket (alice never
    // had a token), and bob's token works too.
    let mut alice_game = alice.connect(rig.addr(), &game, "").await;
    let state = alice_game.recv_type("state").await;
    assert_eq!(s(&state.d["you"]), "white", "{state}");
    let mut bob_game = rig.seat(&game, &s(&seat["token"])).await;
    let state = bob_game.recv_type("state").await;
    assert_eq!(s(&state.d["you"]), "black", "{state}");
}

#[tokio::test]
async fn the_challenged_user_declines_and_the_challenger_sees_it_live() {
    let rig = rig().await;
    let alice = sign_up(&rig, "alice").await;
    let bob = sign_up(&rig, "bob").await;
    let mut alice_page = page(&rig, Some(&alice)).await;
    let mut bob_page = page(&rig, Some(&bob)).await;
    let id = challenge(&rig, &alice, json!({"to": "bob"})).await;
    bob_page
        .until("the challenge", |m| pending(m).is_some())
        .await;

    let (status, body) = api(
        &rig,
        "POST",
        &format!("/api/challenges/{id}/decline"),
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(status, 204, "{body}");
    let reason = alice_page
        .until("the decline", |m| gone(m, &id).is_some())
        .await;
    assert_eq!(gone(&reason, &id), Some(GoneReason::Declined));
    bob_page
        .until("the decline", |m| gone(m, &id).is_some())
        .await;
    let (_, list) = api(&rig, "GET", "/api/challenges", Some(&alice), None).await;
    assert_eq!(list["challenges"], json!([]));
}

#[tokio::test]
async fn the_challenger_cancels_and_the_challenged_user_sees_it_go() {
    let rig = rig().await;
    let alice = sign_up(&rig, "alice").await;
    let bob = sign_up(&rig, "bob").await;
    let mut bob_page = page(&rig, Some(&bob)).await;
    let id = challenge(&rig, &alice, json!({"to": "bob"})).await;
    bob_page
        .until("the challenge", |m| pending(m).is_some())
        .await;

    let (status, body) = api(
        &rig,
        "POST",
        &format!("/api/challenges/{id}/cancel"),
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(status, 204, "{body}");
    let msg = bob_page
        .until("the cancel", |m| gone(m, &id).is_some())
        .await;
    assert_eq!(gone(&msg, &id), Some(GoneReason::Cancelled));
    let (status, body) = api(
        &rig,
        "POST",
        &format!("/api/challenges/{id}/accept"),
        Some(&bob),
        None,
    )
    .await;
    assert_eq!((status, code(&body)), (404, "not_found".into()));
}

#[tokio::test]
async fn a_challenge_nobody_answers_expires_and_both_users_are_told() {
    let rig = rig_with(|c| c.lobby.challenge_ttl = Duration::from_millis(300)).await;
    let alice = sign_up(&rig, "alice").await;
    let bob = sign_up(&rig, "bob").await;
    let mut alice_page = page(&rig, Some(&alice)).await;
    let mut bob_page = page(&rig, Some(&bob)).await;
    let id = challenge(&rig, &alice, json!({"to": "bob"})).await;
    for page in [&mut alice_page, &mut bob_page] {
        let msg = page.until("the expiry", |m| gone(m, &id).is_some()).await;
        assert_eq!(gone(&msg, &id), Some(GoneReason::Expired));
    }
    let (status, body) = api(
        &rig,
        "POST",
        &format!("/api/challenges/{id}/accept"),
        Some(&bob),
        None,
    )
    .await;
    assert_eq!((status, code(&body)), (404, "not_found".into()));
}

#[tokio::test]
async fn a_challenge_is_withdrawn_when_the_challenger_leaves_but_survives_a_reload() {
    let rig = rig_with(|c| c.lobby.leave_grace = Duration::from_millis(400)).await;
    let alice = sign_up(&rig, "alice").await;
    let bob = sign_up(&rig, "bob").await;
    let mut bob_page = page(&rig, Some(&bob)).await;
    let alice_page = page(&rig, Some(&alice)).await;
    let id = challenge(&rig, &alice, json!({"to": "bob"})).await;
    bob_page
        .until("the challenge", |m| pending(m).is_some())
        .await;

    // A reload: the page closes and a new one opens at once; the challenge stands, and the
    // new page is shown it.
    alice_page.close().await;
    let mut reloaded = page(&rig, Some(&alice)).await;
    reloaded
        .until("the standing challenge", |m| {
            pending(m).as_deref() == Some(id.as_str())
        })
        .await;
    assert!(
        bob_page
            .quiet_for(Duration::from_millis(800), |m| gone(m, &id).is_some())
            .await,
        "a reload withdrew the challenge: {:?}",
        bob_page.seen
    );

    // Alice leaves for good: after the grace the challenge goes.
    reloaded.close().await;
    let msg = bob_page
        .until("the withdrawal", |m| gone(m, &id).is_some())
        .await;
    assert_eq!(gone(&msg, &id), Some(GoneReason::ChallengerLeft));
    let (_, list) = api(&rig, "GET", "/api/challenges", Some(&bob), None).await;
    assert_eq!(list["challenges"], json!([]));
}

#[tokio::test]
async fn every_refused_challenge_has_its_status_and_code() {
    let rig = rig_with(|c| c.lobby.challenges_per_user = 2).await;
    let alice = sign_up(&rig, "alice").await;
    let bob = sign_up(&rig, "bob").await;
    let carol = sign_up(&rig, "carol").await;
    let cases = [
        (json!({"to": "nobody"}), 404, "unknown_user"),
        (json!({"to": "x"}), 404, "unknown_user"),
        (json!({"to": "a".repeat(1_000)}), 404, "unknown_user"),
        (json!({"to": "ALICE"}), 400, "self_challenge"),
        (
            json!({"to": "bob", "rated": true}),
            400,
            "rated_needs_clock",
        ),
        (
            json!({"to": "bob", "clock": {"base_secs": 0, "increment_secs": 0}}),
            400,
            "bad_request",
        ),
        (json!({"to": "bob", "colour": "white"}), 400, "bad_request"),
        (json!({"to": 5}), 400, "bad_request"),
    ];
    for (body, status, expected) in cases {
        let (got, answer) = api(
            &rig,
            "POST",
            "/api/challenges",
            Some(&alice),
            Some(body.clone()),
        )
        .await;
        assert_eq!(
            (got, code(&answer)),
            (status, expected.to_string()),
            "{body}"
        );
    }
    // Signed out: every route says so.
    for (method, path) in [
        ("POST", "/api/challenges"),
        ("GET", "/api/challenges"),
        ("POST", "/api/challenges/abcdefgh/accept"),
        ("POST", "/api/challenges/abcdefgh/decline"),
        ("POST", "/api/challenges/abcdefgh/cancel"),
    ] {
        let (got, answer) = api(&rig, method, path, None, Some(json!({"to": "bob"}))).await;
        assert_eq!(
            (got, code(&answer)),
            (401, "not_logged_in".into()),
            "{method} {path}"
        );
    }
    // Answering the wrong side of a challenge, or someone else's.
    let id = challenge(&rig, &alice, json!({"to": "bob"})).await;
    for (who, verb, status, expected) in [
        (&alice, "accept", 403, "not_your_challenge"),
        (&alice, "decline", 403, "not_your_challenge"),
        (&bob, "cancel", 403, "not_your_challenge"),
        (&carol, "accept", 404, "not_found"),
        (&carol, "cancel", 404, "not_found"),
    ] {
        let path = format!("/api/challenges/{id}/{verb}");
        let (got, answer) = api(&rig, "POST", &path, Some(who), None).await;
        assert_eq!(
            (got, code(&answer)),
            (status, expected.to_string()),
            "{verb}"
        );
    }
    // Per challenger: two pending at most.
    challenge(&rig, &alice, json!({"to": "carol"})).await;
    let (got, answer) = api(
        &rig,
        "POST",
        "/api/challenges",
        Some(&alice),
        Some(json!({"to": "carol"})),
    )
    .await;
    assert_eq!((got, code(&answer)), (409, "too_many_challenges".into()));
    challenge(&rig, &bob, json!({"to": "carol"})).await;
}

#[tokio::test]
async fn challenges_are_bounded_in_total_and_rate_limited_per_challenger() {
    let rig = Rig::start_with(|c| {
        c.lobby.max_challenges = 2;
        c.lobby.challenge_burst = 4.0;
        c.lobby.challenge_rate_per_min = 0.0;
    })
    .await;
    let alice = sign_up(&rig, "alice").await;
    let bob = sign_up(&rig, "bob").await;
    let carol = sign_up(&rig, "carol").await;
    challenge(&rig, &alice, json!({"to": "bob"})).await;
    challenge(&rig, &carol, json!({"to": "bob"})).await;
    let (got, answer) = api(
        &rig,
        "POST",
        "/api/challenges",
        Some(&bob),
        Some(json!({"to": "carol"})),
    )
    .await;
    assert_eq!((got, code(&answer)), (503, "too_many_challenges".into()));
    // Alice's burst of 4: one spent, then three more attempts (refused or not), then 429 with
    // a Retry-After; unknown names count too, so names cannot be probed at speed.
    for _ in 0..3 {
        let (got, _) = api(
            &rig,
            "POST",
            "/api/challenges",
            Some(&alice),
            Some(json!({"to": "nobody"})),
        )
        .await;
        assert_eq!(got, 404);
    }
    let (status, body) = api(
        &rig,
        "POST",
        "/api/challenges",
        Some(&alice),
        Some(json!({"to": "nobody"})),
    )
    .await;
    assert_eq!(
        (status, code(&body)),
        (429, "rate_limited".into()),
        "{body}"
    );
}

#[tokio::test]
async fn the_online_count_goes_up_and_down_with_pages_and_counts_a_user_and_an_address_once() {
    let rig = rig_with(|c| c.lobby.online_every = Duration::from_millis(50)).await;
    let alice = sign_up(&rig, "alice").await;
    let mut watcher = page(&rig, None).await;
    watcher.online(1).await;
    let alice_one = page(&rig, Some(&alice)).await;
    watcher.online(2).await;
    // Alice's second page: still one Alice.
    let mut alice_two = page(&rig, Some(&alice)).await;
    alice_two.online(2).await;
    // An anonymous page of another address (two of one address count once: client_limits.rs).
    let elsewhere = Some(std::net::IpAddr::from([127, 0, 0, 2]));
    let anonymous = LobbyClient::try_connect_from(elsewhere, rig.addr(), None)
        .await
        .expect("a page of 127.0.0.2");
    watcher.online(3).await;
    anonymous.close().await;
    watcher.online(2).await;
    alice_one.close().await;
    assert!(
        watcher
            .quiet_for(
                Duration::from_millis(300),
                |m| matches!(m, LobbyMsg::Online(o) if o.count != 2)
            )
            .await,
        "alice still has a page: {:?}",
        watcher.seen
    );
    alice_two.close().await;
    watcher.online(1).await;
}

#[tokio::test]
async fn the_lobby_channel_answers_ping_and_refuses_what_it_does_not_take() {
    let rig = rig().await;
    let mut page = page(&rig, None).await;
    page.online(1).await;
    page.send_text(r#"{"t":"ping"}"#).await;
    page.until("pong", |m| matches!(m, LobbyMsg::Pong(_))).await;
    page.send_text(r#"{"t":"resign"}"#).await;
    let msg = page
        .until("an error", |m| matches!(m, LobbyMsg::Error(_)))
        .await;
    let LobbyMsg::Error(error) = msg else {
        unreachable!()
    };
    assert_eq!(
        serde_json::to_value(error.code).ok(),
        Some(json!("unknown_type"))
    );
    page.send_text("not json").await;
    page.until("an error", |m| matches!(m, LobbyMsg::Error(_)))
        .await;
    page.send_text(&"x".repeat(rig.config.max_message_bytes + 1))
        .await;
    assert!(matches!(
        page.ended(WAIT).await,
        support::ws::Ended::Closed(1009, _)
    ));
}

/// Rates one won game straight in the store (a finished, unlisted game of opaque events), so
/// that the players' ratings differ without playing it out.
async fn rated_win(store: &Arc<MemoryStore>, winner: &str, loser: &str, game_id: &str) {
    let id = |name: &str| {
        let name = Username::parse(name).expect("a username");
        let store = Arc::clone(store);
        async move {
            store
                .find_user(&name)
                .await
                .expect("the store answers")
                .expect("the user exists")
                .account
                .id
        }
    };
    let (white, black) = (id(winner).await, id(loser).await);
    let listing = GameListing {
        id: game_id.to_string(),
        status: GameStatus::Finished,
        created_ms: 1,
        updated_ms: 2,
        summary: "{}".to_string(),
        listed: false,
        white_user: Some(white),
        black_user: Some(black),
        arena: None,
    };
    let commit = Commit {
        game_id: game_id.to_string(),
        first_seq: 0,
        events: vec!["{}".to_string()],
        listing,
        rating: Some(RatedEnd {
            white,
            black,
            speed: Speed::Blitz,
            score_white: 1.0,
        }),
        explorer: None,
        playban: None,
        deadline: marseillais::server::store::DeadlineChange::Unchanged,
        fence: None,
    };
    store.commit(commit).await.expect("stored");
}

/// The ids of the open games `query` lists.
async fn listed(rig: &Rig, query: &str) -> Vec<String> {
    let (status, body) = api(
        rig,
        "GET",
        &format!("/api/games?status=open{query}"),
        None,
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let mut ids: Vec<String> = body["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| s(&g["id"]))
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn open_games_are_filtered_by_their_creators_rating_and_anonymous_ones_only_without_a_range()
{
    let store = Arc::new(MemoryStore::new());
    let rig = Rig::builder()
        .store(Arc::clone(&store) as Arc<dyn Store>)
        .config(|c| c.lobby.challenge_burst = 100.0)
        .start()
        .await;
    let (alice, bob, carol) = (
        sign_up(&rig, "alice").await,
        sign_up(&rig, "bob").await,
        sign_up(&rig, "carol").await,
    );
    rated_win(&store, "alice", "bob", "Rated001").await;
    let blitz = json!({"rated": true, "clock": {"base_secs": 300, "increment_secs": 0}});
    let mut by = std::collections::HashMap::new();
    for (name, who) in [("alice", &alice), ("bob", &bob), ("carol", &carol)] {
        let (status, grant) = api(&rig, "POST", "/api/games", Some(who), Some(blitz.clone())).await;
        assert_eq!(status, 201, "{grant}");
        by.insert(name, s(&grant["id"]));
    }
    // From an address of its own: the accounts' three games hold 127.0.0.1's three open games.
    let other = Some(std::net::IpAddr::from([127, 0, 0, 2]));
    let (anonymous, _, _) = rig
        .create_from(
            other,
            json!({"clock": {"base_secs": 300, "increment_secs": 0}}),
        )
        .await;
    let sorted = |mut ids: Vec<String>| {
        ids.sort();
        ids
    };
    // The summaries show the ratings before the game: alice above 1500, bob below, carol 1500.
    let all = listed(&rig, "").await;
    assert_eq!(
        all,
        sorted(vec![
            by["alice"].clone(),
            by["bob"].clone(),
            by["carol"].clone(),
            anonymous.clone()
        ])
    );
    assert_eq!(
        listed(&rig, "&rating_min=1600").await,
        vec![by["alice"].clone()]
    );
    assert_eq!(
        listed(&rig, "&rating_max=1400").await,
        vec![by["bob"].clone()]
    );
    assert_eq!(
        listed(&rig, "&rating_min=1500&rating_max=1500").await,
        vec![by["carol"].clone()]
    );
    assert_eq!(
        listed(&rig, "&rating_min=0&rating_max=10000").await,
        sorted(vec![
            by["alice"].clone(),
            by["bob"].clone(),
            by["carol"].clone()
        ]),
        "an anonymous creator has no rating: left out once a bound is given"
    );
    // Paging counts matching games.
    let (_, page) = api(
        &rig,
        "GET",
        "/api/games?status=open&rating_min=0&limit=2&offset=2",
        None,
        None,
    )
    .await;
    assert_eq!(page["games"].as_array().map(Vec::len), Some(1), "{page}");
    for bad in [
        "&rating_min=1600&rating_max=1500",
        "&rating_min=-1",
        "&rating_max=x",
        "&rating_min=20000",
    ] {
        let (status, body) = api(
            &rig,
            "GET",
            &format!("/api/games?status=open{bad}"),
            None,
            None,
        )
        .await;
        assert_eq!((status, code(&body)), (400, "bad_request".into()), "{bad}");
    }
}

#[tokio::test]
async fn a_rated_challenge_becomes_a_rated_game_between_the_two_accounts() {
    let rig = rig().await;
    let alice = sign_up(&rig, "alice").await;
    let bob = sign_up(&rig, "bob").await;
    let body = json!({"to": "bob", "rated": true, "color": "black",
                      "clock": {"base_secs": 180, "increment_secs": 2}});
    let id = challenge(&rig, &alice, body).await;
    let path = format!("/api/challenges/{id}/accept");
    let (status, seat) = api(&rig, "POST", &path, Some(&bob), None).await;
    assert_eq!(status, 200, "{seat}");
    assert_eq!(s(&seat["color"]), "white");
    let (_, state) = api(
        &rig,
        "GET",
        &format!("/api/games/{}", s(&seat["id"])),
        None,
        None,
    )
    .await;
    assert_eq!(state["rated"], json!(true), "{state}");
    assert_eq!(s(&state["players"]["black"]["name"]), "alice", "{state}");
    assert_eq!(
        state["players"]["white"]["rating"]["rating"],
        json!(1500),
        "{state}"
    );
}
