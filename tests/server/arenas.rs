//! Arena tournaments on a real server: accounts (real sessions) make arenas, join and withdraw
//! over HTTP, the pairing task pairs them every 20 ms here (instead of 2 s), they play their
//! games over real game sockets, and the standings read what the games left in the store,
//! across a restart too. The tests wait for what the arena's page says, never for time.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::arena::{
    arena_for_two, arena_now, join, next_game, paired, show, standing, until, white_mates,
};
use support::rig::Rig;
use support::s;
use support::session::Session;

async fn rig() -> Rig {
    Rig::builder()
        .config(support::arena::fast_pairing)
        .keep_port()
        .start()
        .await
}

#[tokio::test]
async fn making_an_arena_needs_an_account_and_terms_that_hold() {
    let rig = rig().await;
    let addr = rig.addr();
    let body = json!({"name": "Night", "clock": {"base_secs": 180, "increment_secs": 2},
        "duration_minutes": 60});
    let (status, reply) = rig
        .http("POST", "/api/arenas", Some(&body.to_string()))
        .await;
    assert_eq!(status, 401, "{reply}");
    let alice = Session::register(addr, "alice").await;
    for (bad, why) in [
        (
            json!({"name": "N", "clock": {"base_secs": 180, "increment_secs": 2}, "duration_minutes": 60}),
            "name",
        ),
        (
            json!({"name": "Night", "clock": {"base_secs": 0, "increment_secs": 0}, "duration_minutes": 60}),
            "clock",
        ),
        (
            json!({"name": "Night", "clock": {"base_secs": 180, "increment_secs": 2, "x": 1}, "duration_minutes": 60}),
            "clock: unknown field",
        ),
        (
            json!({"name": "Night", "clock": {"base_secs": -1, "increment_secs": 2}, "duration_minutes": 60}),
            "clock: base_secs must be a whole number",
        ),
        (
            json!({"name": "Night", "clock": {"days_per_turn": 3}, "duration_minutes": 60}),
            "clock: this takes a live clock",
        ),
        (
            json!({"name": "Night", "clock": {"base_secs": 180, "increment_secs": 2}, "duration_minutes": 5}),
            "duration",
        ),
        (
            json!({"name": "Night", "clock": {"base_secs": 180, "increment_secs": 2}, "duration_minutes": 60, "starts_ms": 1}),
            "starts_ms",
        ),
        (
            json!({"name": "Night", "clock": {"base_secs": 180, "increment_secs": 2}, "duration_minutes": 60, "color": "white"}),
            "unknown field",
        ),
    ] {
        let (status, reply) = alice.call(addr, "POST", "/api/arenas", Some(&bad)).await;
        assert_eq!(status, 400, "{why}: {reply}");
        assert_eq!(reply["code"], json!("bad_request"), "{why}: {reply}");
        assert!(s(&reply["message"]).contains(why), "{why}: {reply}");
    }
    let (status, made) = alice.call(addr, "POST", "/api/arenas", Some(&body)).await;
    assert_eq!(status, 201, "{made}");
    let id = s(&made["id"]);
    assert_eq!(made["url"], json!(format!("/arena/{id}")));
    assert_eq!(made["phase"], json!("upcoming"), "it starts in 5 minutes");
    assert_eq!(made["rated"], json!(true));
    // Listed as upcoming, shown whole, its page served.
    let (status, lists) = rig.http("GET", "/api/arenas", None).await;
    assert_eq!(status, 200);
    let lists: Value = serde_json::from_str(&lists).expect("json");
    assert_eq!(lists["upcoming"][0]["id"], json!(id), "{lists}");
    assert_eq!(lists["running"], json!([]));
    let page = show(addr, &alice, &id).await;
    assert_eq!(page["creator"], json!("alice"));
    assert_eq!(page["me"]["joined"], json!(false));
    assert_eq!(page["standings"], json!([]));
    let (status, _) = rig.http("GET", &format!("/arena/{id}"), None).await;
    assert_eq!(status, 200);
    let (status, reply) = rig.http("GET", "/api/arenas/nope", None).await;
    assert_eq!(status, 404, "{reply}");
    // Malformed input gets a typed JSON error, not a crash: a body that is not JSON, a page
    // that is not a number.
    let (status, reply) = alice
        .call(addr, "POST", "/api/arenas", Some(&json!("not an object")))
        .await;
    assert_eq!(
        (status, reply["code"].clone()),
        (400, json!("bad_request")),
        "{reply}"
    );
    let (status, reply) = rig
        .http("GET", &format!("/api/arenas/{id}?page=first"), None)
        .await;
    assert_eq!(status, 400, "{reply}");
    assert!(reply.contains("\"code\""), "a JSON error: {reply}");
    // A user may have three arenas to come, not a fourth.
    for _ in 0..2 {
        let (status, _) = alice.call(addr, "POST", "/api/arenas", Some(&body)).await;
        assert_eq!(status, 201);
    }
    let (status, reply) = alice.call(addr, "POST", "/api/arenas", Some(&body)).await;
    assert_eq!(status, 429, "{reply}");
    assert_eq!(reply["code"], json!("too_many_arenas"));
}

#[tokio::test]
async fn players_join_withdraw_and_join_again_keeping_their_place() {
    let rig = rig().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    let body = json!({"name": "Later", "clock": {"base_secs": 300, "increment_secs": 3},
        "duration_minutes": 60});
    let (_, made) = alice.call(addr, "POST", "/api/arenas", Some(&body)).await;
    let id = s(&made["id"]);
    let (status, reply) = rig
        .http("POST", &format!("/api/arenas/{id}/join"), None)
        .await;
    assert_eq!(status, 401, "{reply}");
    join(addr, &bob, &id).await;
    let page = join(addr, &alice, &id).await;
    assert_eq!(page["players"], json!(2));
    assert_eq!(page["me"]["joined"], json!(true));
    assert_eq!(page["me"]["withdrawn"], json!(false));
    assert_eq!(page["me"]["rank"], json!(2), "{page}");
    assert_eq!(
        (
            page["standings_page"].clone(),
            page["standings_pages"].clone()
        ),
        (json!(1), json!(1))
    );
    let names: Vec<&Value> = page["standings"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| &l["name"])
        .collect();
    assert_eq!(
        names,
        [&json!("bob"), &json!("alice")],
        "who joined first ranks first at 0"
    );
    let (status, page) = bob
        .call(addr, "POST", &format!("/api/arenas/{id}/withdraw"), None)
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["me"]["withdrawn"], json!(true));
    assert_eq!(standing(&page, "bob")["withdrawn"], json!(true));
    let page = join(addr, &bob, &id).await;
    assert_eq!(page["me"]["withdrawn"], json!(false));
    assert_eq!(
        page["standings"][0]["name"],
        json!("bob"),
        "the first join is kept"
    );
    let carol = Session::register(addr, "carol").await;
    let (status, reply) = carol
        .call(addr, "POST", &format!("/api/arenas/{id}/withdraw"), None)
        .await;
    assert_eq!(status, 409, "{reply}");
    assert_eq!(reply["code"], json!("not_joined"));
    // The profile lists the arenas a user joined.
    let (status, played) = rig.http("GET", "/api/users/bob/arenas", None).await;
    assert_eq!(status, 200);
    let played: Value = serde_json::from_str(&played).expect("json");
    assert_eq!(played["arenas"][0]["id"], json!(id), "{played}");
    let (status, _) = rig.http("GET", "/api/users/nobody/arenas", None).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn an_arena_that_asks_for_rated_games_refuses_a_newcomer() {
    let rig = rig().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let body = json!({"name": "Veterans", "clock": {"base_secs": 180, "increment_secs": 2},
        "duration_minutes": 60, "min_rated_games": 3});
    let (_, made) = alice.call(addr, "POST", "/api/arenas", Some(&body)).await;
    assert_eq!(made["min_rated_games"], json!(3));
    let (status, reply) = alice
        .call(
            addr,
            "POST",
            &format!("/api/arenas/{}/join", s(&made["id"])),
            None,
        )
        .await;
    assert_eq!(status, 403, "{reply}");
    assert_eq!(reply["code"], json!("too_few_rated_games"));
}

#[tokio::test]
async fn a_running_arena_pairs_its_players_scores_their_games_and_pairs_them_again() {
    let rig = rig().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    let id = arena_for_two(addr, &alice, &bob).await;
    let (game, alice_color) = paired(addr, &alice, &id).await;
    let (bobs_game, bob_color) = paired(addr, &bob, &id).await;
    assert_eq!(game, bobs_game, "one game for the pair");
    assert_ne!(alice_color, bob_color);
    let (white, black) = if alice_color == "white" {
        (&alice, &bob)
    } else {
        (&bob, &alice)
    };
    // The game is the arena's: rated, its clock, both seats held by the accounts.
    let (status, listing) = rig.http("GET", &format!("/api/games/{game}"), None).await;
    assert_eq!(status, 200);
    let listing: Value = serde_json::from_str(&listing).expect("json");
    assert_eq!(listing["clock"]["base_secs"], json!(180), "{listing}");
    assert_eq!(listing["clock"]["increment_secs"], json!(2), "{listing}");
    assert_eq!(listing["rated"], json!(true), "{listing}");
    white_mates(addr, white, black, &game).await;
    // The winner scores 2; both are paired again (only two are in: a rematch is allowed).
    let page = until(addr, &alice, &id, |p| {
        p["games"].as_array().is_some_and(|g| g.len() == 2)
    })
    .await;
    let winner = standing(&page, &white.name);
    assert_eq!(winner["points"], json!(2), "{page}");
    assert_eq!(
        winner["sheet"],
        json!([{"points": 2, "fire": false, "berserk": false}])
    );
    assert_eq!(winner["rank"], json!(1));
    assert_eq!(standing(&page, &black.name)["points"], json!(0));
    assert_eq!(page["games"][1]["id"], json!(game), "newest first");
    assert_eq!(page["games"][1]["result"], json!("1-0"));
    assert!(
        page["games"][0]["result"].is_null(),
        "the new game is being played"
    );
    let (second, _) = paired(addr, &alice, &id).await;
    assert_ne!(second, game);
}

#[tokio::test]
async fn with_four_players_nobody_meets_the_same_opponent_twice_in_a_row() {
    let rig = rig().await;
    let addr = rig.addr();
    let mut players = Vec::new();
    for name in ["ann", "ben", "cid", "dee"] {
        players.push(Session::register(addr, name).await);
    }
    let id = arena_now(addr, &players[0], 60).await;
    for p in &players {
        join(addr, p, &id).await;
    }
    let mut first = Vec::new();
    for p in &players {
        first.push(paired(addr, p, &id).await);
    }
    let opponent = |i: usize, games: &[(String, String)]| {
        (0..4)
            .find(|&j| j != i && games[j].0 == games[i].0)
            .expect("an opponent")
    };
    let a_opp = opponent(0, &first);
    // Ann's game ends; she and her opponent wait until the other game ends too (a rematch at
    // once is not allowed with four in), then each meets someone new.
    let (w, b) = if first[0].1 == "white" {
        (0, a_opp)
    } else {
        (a_opp, 0)
    };
    white_mates(addr, &players[w], &players[b], &first[0].0).await;
    let others: Vec<usize> = (0..4).filter(|&i| i != 0 && i != a_opp).collect();
    let (ow, ob) = if first[others[0]].1 == "white" {
        (others[0], others[1])
    } else {
        (others[1], others[0])
    };
    // Once her game is counted, she waits: ben is the only other player free.
    let page = until(addr, &players[0], &id, |p| {
        standing(p, "ann")["games"] == json!(1)
    })
    .await;
    assert!(page["me"]["game"].is_null(), "ann waits: {page}");
    white_mates(addr, &players[ow], &players[ob], &first[others[0]].0).await;
    let mut second = Vec::new();
    for p in &players {
        second.push(paired(addr, p, &id).await);
    }
    for i in 0..4 {
        assert_ne!(
            opponent(i, &second),
            opponent(i, &first),
            "player {i} met the same opponent"
        );
    }
    // The two winners (leaders) meet each other: the rank factor favours the top.
    let winners = [w, ow];
    assert_eq!(opponent(winners[0], &second), winners[1]);
}

#[tokio::test]
async fn a_restart_mid_arena_loses_no_score_and_pairing_resumes() {
    let mut rig = rig().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    let id = arena_for_two(addr, &alice, &bob).await;
    let (game, white, black) = next_game(addr, &alice, &bob, &id).await;
    white_mates(addr, white, black, &game).await;
    let before = until(addr, &alice, &id, |p| {
        p["games"].as_array().is_some_and(|g| g.len() == 2)
    })
    .await;
    rig.restart().await;
    let addr = rig.addr();
    let after = show(addr, &alice, &id).await;
    assert_eq!(after["standings"], before["standings"], "every score kept");
    assert_eq!(after["games"], before["games"], "every pairing kept");
    // The game made before the restart is played on; its end pairs them again.
    let (second, white, black) = next_game(addr, &alice, &bob, &id).await;
    white_mates(addr, white, black, &second).await;
    let page = until(addr, &alice, &id, |p| {
        p["games"].as_array().is_some_and(|g| g.len() == 3)
    })
    .await;
    let points: u64 = page["standings"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["points"].as_u64().expect("points"))
        .sum();
    assert_eq!(points, 4, "two wins: {page}");
}

#[tokio::test]
async fn the_built_in_schedule_announces_arenas_in_the_lobby_list() {
    let rig = Rig::start_with(|c| c.arena.pairing_every = Duration::from_millis(20)).await;
    let mut lists = Value::Null;
    for _ in 0..500 {
        let (status, body) = rig.http("GET", "/api/arenas", None).await;
        assert_eq!(status, 200);
        lists = serde_json::from_str(&body).expect("json");
        // The schedule's arenas are made one by one: wait for both clocks, not for the first.
        let clocks: Vec<Value> = lists["upcoming"]
            .as_array()
            .map(|u| u.iter().map(|a| a["clock"].clone()).collect())
            .unwrap_or_default();
        if clocks.contains(&json!({"base_secs": 180, "increment_secs": 2}))
            && clocks.contains(&json!({"base_secs": 300, "increment_secs": 3}))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let upcoming = lists["upcoming"].as_array().expect("upcoming");
    assert!(
        upcoming.len() >= 2,
        "at least the next 3+2 and 5+3: {lists}"
    );
    assert!(upcoming.iter().all(|a| a["scheduled"] == json!(true)));
    let clocks: Vec<&Value> = upcoming.iter().map(|a| &a["clock"]).collect();
    assert!(
        clocks.contains(&&json!({"base_secs": 180, "increment_secs": 2})),
        "{lists}"
    );
    assert!(
        clocks.contains(&&json!({"base_secs": 300, "increment_secs": 3})),
        "{lists}"
    );
}

/// Thirteen turns of pawn moves (1. e4 ... 7. c4,d4), White's first sub-move excluded: seven
/// numbered turns, no check, no capture, no repetition. `white` has already played `e2e4`.
const SEVEN_TURNS: [(&str, [&str; 2]); 6] = [
    ("b", ["e7e5", "d7d6"]),
    ("w", ["d2d3", "c2c3"]),
    ("b", ["c7c6", "b7b6"]),
    ("w", ["b2b3", "a2a3"]),
    ("b", ["a7a6", "h7h6"]),
    ("w", ["h2h3", "g2g3"]),
];
const SEVEN_TURNS_END: [(&str, [&str; 2]); 5] = [
    ("b", ["g7g6", "a6a5"]),
    ("w", ["a3a4", "b3b4"]),
    ("b", ["h6h5", "b6b5"]),
    ("w", ["h3h4", "g3g4"]),
    ("b", ["c6c5", "d6d5"]),
];

#[tokio::test]
async fn a_berserk_halves_the_clock_drops_the_increment_and_adds_a_point_to_a_long_win() {
    let rig = rig().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    let id = arena_for_two(addr, &alice, &bob).await;
    let (game, white, black) = next_game(addr, &alice, &bob, &id).await;
    let mut w = white.connect(addr, &game, "").await;
    let mut b = black.connect(addr, &game, "").await;
    let state = w.skip_to("state").await;
    assert_eq!(
        state.d["arena"],
        json!({"berserk": {"black": false, "white": false}, "id": id})
    );
    b.skip_to("state").await;
    // White berserks before their first sub-move: 90 s left, no increment.
    w.send(json!({"t": "berserk"})).await;
    let told = b.recv_type("berserk").await;
    assert_eq!(told.d["by"], json!("white"), "{told}");
    assert_eq!(told.d["clock"]["white"], json!(90_000), "{told}");
    assert_eq!(told.d["clock"]["black"], json!(180_000), "{told}");
    // Word for word the line of tests/data/server_messages.jsonl (the golden of the type).
    let golden: Value = serde_json::from_str(
        r#"{"t":"berserk","v":2,"d":{"by":"white","clock":{"base_secs":180,"black":180000,"increment_secs":2,"running":null,"white":90000}}}"#,
    )
    .expect("json");
    assert_eq!(told.json, golden);
    w.recv_type("berserk").await;
    w.send(json!({"t": "berserk"})).await;
    let again = w.recv_type("error").await;
    assert_eq!(again.d["code"], json!("not_available"), "{again}");
    w.play("e2e4", "w0").await;
    let mut n = 0;
    for (side, pair) in SEVEN_TURNS.iter().chain(SEVEN_TURNS_END.iter()) {
        let client = if *side == "w" { &mut w } else { &mut b };
        for uci in pair {
            n += 1;
            client.play(uci, &format!("m{n}")).await;
        }
    }
    // Black berserks too late: after their first sub-move.
    b.send(json!({"t": "berserk"})).await;
    let late = b.recv_type("error").await;
    assert_eq!(late.d["code"], json!("not_available"), "{late}");
    assert!(
        s(&late.d["message"]).contains("before your first sub-move"),
        "{late}"
    );
    // 7. c4,d4 and Black resigns: White wins a game of seven turns, berserked.
    w.play("c3c4", "w8").await;
    w.play("d3d4", "w9").await;
    b.send(json!({"t": "resign"})).await;
    w.recv_type("end").await;
    let page = until(addr, white, &id, |p| {
        p["games"].as_array().is_some_and(|g| g.len() == 2)
    })
    .await;
    let line = standing(&page, &white.name);
    assert_eq!(line["points"], json!(3), "{page}");
    assert_eq!(
        line["sheet"],
        json!([{"points": 3, "fire": false, "berserk": true}])
    );
    // The end was committed with the berserk: the listing says so.
    let (_, listing) = rig.http("GET", &format!("/api/games/{game}"), None).await;
    let listing: Value = serde_json::from_str(&listing).expect("json");
    assert_eq!(
        listing["arena"]["berserk"],
        json!({"black": false, "white": true})
    );
}

#[tokio::test]
async fn berserk_is_refused_outside_an_arena() {
    let rig = rig().await;
    let (_, mut white, _black) = rig
        .players(json!({"clock": {"base_secs": 180, "increment_secs": 2}}))
        .await;
    white.send(json!({"t": "berserk"})).await;
    let refused = white.recv_type("error").await;
    assert_eq!(refused.d["code"], json!("not_available"), "{refused}");
    assert!(s(&refused.d["message"]).contains("arena"), "{refused}");
}
