//! Correspondence games (issue 12) through the real server: created and joined over HTTP with
//! `"clock": {"days_per_turn": N}`, every position message carrying the turn's deadline (the
//! turn's first event + the days, reset each turn, never accumulated), no first-move abort, a
//! rated one rated as `correspondence`, the PGN's `TimeControl`, and the server ending a game on
//! time by itself: a turn that runs out while the game is in memory, and a deadline that passed
//! while the server was down, which gets the grace after the restart first.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use marseillais::rules::{Color, Position};
use marseillais::server::game::{DaysPerTurn, Event, TimeControl, Variant, now_ms};
use marseillais::server::ids;
use marseillais::server::play::creation;
use marseillais::server::players::account::Username;
use marseillais::server::players::rating::Speed;
use marseillais::server::store::{SqliteStore, Store};
use serde_json::{Value, json};
use support::account::Browser;
use support::game::play_both_first_turns;
use support::rig::Rig;
use support::s;
use support::session::{PASSWORD, Session};
use support::ws::Client;

const DAY_MS: i64 = 86_400_000;

fn three_days() -> Value {
    json!({"color": "white", "clock": {"days_per_turn": 3}})
}

/// The `correspondence.deadline_ms` of a message's `d` (panics if it is not a number).
fn deadline(d: &Value) -> i64 {
    d["correspondence"]["deadline_ms"]
        .as_i64()
        .unwrap_or_else(|| panic!("a deadline: {d}"))
}

/// Plays `uci` and returns its `move` message with the wall-clock bounds of its commit.
async fn timed_play(client: &mut Client, uci: &str, id: &str) -> (Value, i64, i64) {
    let before = now_ms();
    let event = client.play(uci, id).await;
    (event.d, before, now_ms())
}

#[tokio::test]
async fn a_correspondence_turn_has_its_days_from_its_first_event_and_they_do_not_accumulate() {
    let rig = Rig::start().await;
    let before_join = now_ms();
    let (id, white_token, black_token) = rig.game_between_two(three_days()).await;
    let after_join = now_ms();
    let mut white = rig.seat(&id, &white_token).await;
    let state = white.recv_type("state").await.d;
    assert_eq!(state["clock"], Value::Null, "no live clock: {state}");
    assert_eq!(state["first_move_ms"], Value::Null, "no first-move timer");
    assert_eq!(state["correspondence"]["days_per_turn"], 3);
    let first = deadline(&state);
    assert!(
        (before_join + 3 * DAY_MS..=after_join + 3 * DAY_MS).contains(&first),
        "White's first turn runs from the join: {first} not in {before_join}..{after_join} + 3 days"
    );
    let mut black = rig.seat(&id, &black_token).await;
    black.recv_type("state").await;

    // White's one-sub-move first turn: Black's turn, three days from that move.
    let (moved, t0, t1) = timed_play(&mut white, "e2e4", "w1").await;
    assert_eq!(moved["clock"], Value::Null);
    let black_turn = deadline(&moved);
    assert!((t0 + 3 * DAY_MS..=t1 + 3 * DAY_MS).contains(&black_turn));
    // Black's S1 and its takeback leave the turn's deadline alone.
    let (s1, _, _) = timed_play(&mut black, "e7e5", "b1").await;
    assert_eq!(deadline(&s1), black_turn, "S1 does not end the turn");
    black.send(json!({"t": "takeback_submove"})).await;
    let taken = black.recv_type("takeback").await.d;
    assert_eq!(
        deadline(&taken),
        black_turn,
        "a takeback does not restart it"
    );
    black.play("e7e5", "b2").await;
    // Black ends its turn: White has three days from now, not three days plus what Black left.
    let (s2, t0, t1) = timed_play(&mut black, "g8f6", "b3").await;
    let white_turn = deadline(&s2);
    assert!((t0 + 3 * DAY_MS..=t1 + 3 * DAY_MS).contains(&white_turn));

    // The HTTP snapshot and the lobby listing show the same deadline.
    let (status, text) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, 200, "{text}");
    let snapshot: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(
        snapshot["correspondence"],
        json!({"days_per_turn": 3, "deadline_ms": white_turn})
    );
    assert_eq!(snapshot["clock"], Value::Null);
    let (status, text) = rig.http("GET", "/api/games?status=playing", None).await;
    assert_eq!(status, 200, "{text}");
    let listed: Value = serde_json::from_str(&text).expect("json");
    let row = listed["games"]
        .as_array()
        .and_then(|games| games.iter().find(|g| g["id"] == json!(id)))
        .unwrap_or_else(|| panic!("the game is listed: {listed}"));
    assert_eq!(row["clock"], json!({"days_per_turn": 3}));
    assert_eq!(row["turn"], "white");
    assert_eq!(row["deadline_ms"], json!(white_turn));

    // Once finished, no turn is timed.
    white.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;
    let mut late = rig.spectate(&id).await;
    let state = late.recv_type("state").await.d;
    assert_eq!(
        state["correspondence"],
        json!({"days_per_turn": 3, "deadline_ms": null})
    );
    rig.stop().await;
}

/// The `code` and `message` of an HTTP error body.
fn code_and_message(text: &str) -> (String, String) {
    let error: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("json: {text}"));
    (s(&error["code"]), s(&error["message"]))
}

#[tokio::test]
async fn a_days_per_turn_that_is_no_whole_number_or_an_unknown_key_in_the_clock_gets_the_clock_message()
 {
    let rig = Rig::start().await;
    let mut alice = Browser::new(rig.addr());
    assert_eq!(alice.register("alice", PASSWORD).await.status, 201);
    Session::register(rig.addr(), "bob").await;
    for (clock, start) in [
        (
            r#"{"days_per_turn":-1}"#,
            "clock: days_per_turn must be one of 1, 2, 3, 5, 7 or 14, got -1",
        ),
        (
            r#"{"days_per_turn":1.5}"#,
            "clock: days_per_turn must be one of 1, 2, 3, 5, 7 or 14, got 1.5",
        ),
        (
            r#"{"days_per_turn":3.0}"#,
            "clock: days_per_turn must be one of 1, 2, 3, 5, 7 or 14, got 3.0",
        ),
        (
            r#"{"days_per_turn":18446744073709551616}"#,
            "clock: days_per_turn must be one of 1, 2, 3, 5, 7 or 14, got 1.8446744073709552e19",
        ),
        (
            r#"{"base_secs":60,"increment_secs":0,"bogus":1}"#,
            r#"clock: unknown field "bogus"; a clock is {"base_secs", "increment_secs"} or {"days_per_turn"}"#,
        ),
        (
            r#"{"days_per_turn":3,"x":1}"#,
            r#"clock: unknown field "x"; a clock is"#,
        ),
        (
            r#"{"days_per_turn":3,"days_per_turn":3}"#,
            "clock: days_per_turn is given twice",
        ),
    ] {
        let body = format!(r#"{{"clock":{clock}}}"#);
        let (status, text) = rig.http("POST", "/api/games", Some(&body)).await;
        assert_eq!(status, 400, "{body}: {text}");
        let (code, message) = code_and_message(&text);
        assert_eq!(code, "bad_request", "{body}: {text}");
        assert!(message.starts_with(start), "{body}: {message}");
        // A challenge reads its clock the same way.
        let body = format!(r#"{{"to":"bob","clock":{clock}}}"#);
        let reply = alice
            .send_raw("POST", "/api/challenges", Some(&body), &[])
            .await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.body);
        let (code, message) = code_and_message(&reply.body);
        let text = reply.body;
        assert_eq!(code, "bad_request", "{body}: {text}");
        assert!(message.starts_with(start), "{body}: {message}");
    }
    rig.stop().await;
}

#[tokio::test]
async fn a_correspondence_game_has_no_first_move_abort() {
    // A live game's first turn would be aborted after 300 ms.
    let rig = Rig::start_with(|c| c.first_move = Duration::from_millis(300)).await;
    let (id, white, black) = rig.players(three_days()).await;
    let (mut white, mut black) = (white, black);
    white.recv_type("state").await;
    black.recv_type("state").await;
    // Ten times the first-move limit passes with nobody moving (a sleep, not a limit on the
    // test: whatever the machine's speed, the game must still be playable afterwards).
    tokio::time::sleep(Duration::from_secs(3)).await;
    let moved = white.play("e2e4", "w1").await;
    assert_eq!(moved.d["first_move_ms"], Value::Null);
    let (status, text) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, 200, "{text}");
    let snapshot: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(snapshot["status"], "playing", "{snapshot}");
    rig.stop().await;
}

#[tokio::test]
async fn other_days_per_turn_or_a_clock_of_both_kinds_are_refused_with_400() {
    let rig = Rig::start().await;
    for clock in [
        json!({"days_per_turn": 4}),
        json!({"days_per_turn": 0}),
        json!({"days_per_turn": 3, "base_secs": 300, "increment_secs": 0}),
        json!({"days_per_turn": "3"}),
    ] {
        let body = json!({"clock": clock}).to_string();
        let (status, text) = rig.http("POST", "/api/games", Some(&body)).await;
        assert_eq!(status, 400, "{clock}: {text}");
        assert!(text.contains("\"bad_request\""), "{text}");
        if clock["days_per_turn"].is_number() {
            assert!(
                text.contains("clock: "),
                "the message names the clock: {text}"
            );
        }
    }
    // A challenge reads the same clock.
    let alice = Session::register(rig.addr(), "alice").await;
    Session::register(rig.addr(), "bob").await;
    let bad = json!({"to": "bob", "clock": {"days_per_turn": 10}});
    let (status, body) = alice
        .call(rig.addr(), "POST", "/api/challenges", Some(&bad))
        .await;
    assert_eq!(status, 400, "{body}");
    let good = json!({"to": "bob", "clock": {"days_per_turn": 14}});
    let (status, body) = alice
        .call(rig.addr(), "POST", "/api/challenges", Some(&good))
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["clock"], json!({"days_per_turn": 14}));
    rig.stop().await;
}

#[tokio::test]
async fn a_rated_correspondence_game_is_rated_as_correspondence() {
    let mut rig = Rig::start().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let body = json!({"rated": true, "color": "white", "clock": {"days_per_turn": 1}});
    let (status, created) = alice
        .call(rig.addr(), "POST", "/api/games", Some(&body))
        .await;
    assert_eq!(status, 201, "{created}");
    let id = s(&created["id"]);
    let (status, joined) = bob
        .call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let mut white = alice.connect(rig.addr(), &id, "").await;
    let mut black = bob.connect(rig.addr(), &id, "").await;
    white.skip_to("state").await;
    black.skip_to("state").await;
    play_both_first_turns(&mut white, &mut black).await;
    white.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;
    white.skip_to("ratings").await;
    rig.pause().await;
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(rig.data_dir()).expect("open"));
    for name in ["alice", "bob"] {
        let name = Username::parse(name).expect("a name");
        let user = store
            .find_user(&name)
            .await
            .expect("read")
            .expect("the user exists");
        let ratings = store.ratings(user.account.id).await.expect("read");
        let speeds: Vec<Speed> = ratings.iter().map(|(speed, _)| *speed).collect();
        assert_eq!(speeds, [Speed::Correspondence], "{name}: {ratings:?}");
    }
    let rated = store.game_rating(&id).await.expect("read").expect("rated");
    assert_eq!(rated.speed, Speed::Correspondence);
    store.close().await;
}

#[tokio::test]
async fn a_correspondence_pgn_has_its_time_control_and_a_replay_reads_it_back() {
    let rig = Rig::start().await;
    let (id, white, _black) = rig.players(three_days()).await;
    let mut white = white;
    white.recv_type("state").await;
    white.play("e2e4", "w1").await;
    let pgn = rig.pgn(&id).await;
    assert!(pgn.contains("[TimeControl \"1/259200\"]\n"), "{pgn}");
    let body = json!({ "pgn": pgn }).to_string();
    let (status, text) = rig.http("POST", "/api/replay", Some(&body)).await;
    assert_eq!(status, 200, "{text}");
    let replayed: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(replayed["time_control"], json!({"days_per_turn": 3}));
    assert_eq!(replayed["moves"][0]["uci"], "e2e4");
    rig.stop().await;
}

/// Writes into the (paused) rig's store a one-day correspondence game whose current turn,
/// White's first, began at `turn_began_ms`. Returns (id, white token).
async fn stored_game(rig: &Rig, turn_began_ms: i64) -> (String, String) {
    let white = ids::new_token();
    let black = ids::new_token();
    let one_day = DaysPerTurn::try_from(1).expect("allowed");
    let events = vec![
        Event::Created {
            at_ms: turn_began_ms - 1_000,
            variant: Variant::Balanced,
            start: Position::initial(),
            clock: Some(TimeControl::from(one_day)),
            creator: Color::White,
            seat_hash: ids::token_hash(&white),
            listed: true,
            rated: false,
            user: None,
            arena: None,
        },
        Event::Joined {
            at_ms: turn_began_ms,
            color: Color::Black,
            seat_hash: ids::token_hash(&black),
            computer: None,
            user: None,
        },
    ];
    let prepared = creation::prepare(events, &rig.config).unwrap_or_else(|e| panic!("{e:?}"));
    let id = prepared.state.id.clone();
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(rig.data_dir()).expect("open"));
    store.commit(prepared.commit).await.expect("commit");
    store.close().await;
    (id, white)
}

/// Waits for the game's `end` and returns its `d`.
async fn end_of(client: &mut Client) -> Value {
    client.skip_to("end").await.d
}

#[tokio::test]
async fn the_server_flags_a_correspondence_turn_that_runs_out_with_a_player_connected() {
    let mut rig = Rig::start().await;
    rig.pause().await;
    // White's day began a day ago, less three seconds: the turn runs out while it is served.
    let (id, white_token) = stored_game(&rig, now_ms() - DAY_MS + 3_000).await;
    rig.resume().await;
    let mut white = rig.seat(&id, &white_token).await;
    let state = white.recv_type("state").await.d;
    assert_eq!(state["status"], "playing", "{state}");
    let end = end_of(&mut white).await;
    assert_eq!(end["reason"], "time_forfeit", "{end}");
    assert_eq!(end["result"], "0-1", "{end}");
    rig.stop().await;
}

#[tokio::test]
async fn a_deadline_that_passed_while_the_server_was_down_gets_the_grace_after_restart() {
    let mut rig = Rig::start().await;
    rig.pause().await;
    // White's one-day turn ran out a day ago, while nothing was serving the game.
    let (id, white_token) = stored_game(&rig, now_ms() - 2 * DAY_MS).await;
    rig.config.correspondence_grace = Duration::from_secs(5);
    let before_boot = now_ms();
    rig.resume().await;
    let after_boot = now_ms();
    let mut white = rig.seat(&id, &white_token).await;
    let state_msg = white.recv_type("state").await;
    let state = state_msg.d;
    assert_eq!(state["status"], "playing", "not flagged at once: {state}");
    let shown = deadline(&state);
    assert!(
        (before_boot + 5_000..=after_boot + 5_000).contains(&shown),
        "the deadline is boot + grace: {shown} not in {before_boot}..{after_boot} + 5 s"
    );
    // A client that already holds this version (it saw it before the restart, with the
    // logged deadline) and says so still gets the snapshot: nothing it kept shows the grace.
    let v = state_msg.v.expect("a state has a version");
    white.send(json!({"t": "hello", "d": {"v": v}})).await;
    let again = white.recv_type("state").await.d;
    assert_eq!(deadline(&again), shown, "{again}");
    // White does not play: the grace runs out too.
    let end = end_of(&mut white).await;
    assert_eq!(end["reason"], "time_forfeit", "{end}");
    assert!(now_ms() >= shown, "not before the grace ran out");
    rig.stop().await;
}
