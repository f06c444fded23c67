//! The computer as a seat of a game: `POST /api/games` with `computer` starts a game the
//! server's computer player has already joined; it plays its sub-moves by itself (legal,
//! recorded, in the PGN under its engine tag), from the first one when it has White, after a
//! kill -9 of the server too; its seat has no token anywhere and cannot be taken; every
//! search runs on the engine pool (at most `engine_threads` at once).

use crate::support;

use std::collections::HashSet;

use serde_json::{Value, json};
use support::http::{http, metric};
use support::process::Spawn;
use support::rig::Rig;
use support::rng::Rng;
use support::ws::Client;
use support::{WAIT, s, strings};

/// Sub-moves the person plays at most before resigning (the games stay short in time).
const HUMAN_SUBMOVES: usize = 120;

/// Messages read at most while playing one game out.
const MAX_MESSAGES: usize = 20_000;

/// What playing a game out saw.
#[derive(Debug, Default)]
struct Played {
    /// The computer's sub-moves, each with the legal list of the position it was played in.
    computer: Vec<(String, Vec<String>)>,
    person: usize,
    /// Every sub-move in order, as broadcast.
    all: Vec<String>,
    ended: bool,
    /// The `end` message's data.
    end: Value,
}

/// Plays random legal sub-moves as `me` on `client` until the game ends, or resigns after
/// `bound` sub-moves. Checks that every sub-move of the other side (the computer) was in the
/// legal list of the position it was played in.
async fn play_out(client: &mut Client, me: &str, rng: &mut Rng, bound: usize) -> Played {
    let mut played = Played::default();
    // The legal sub-moves and the side to move of the latest position seen.
    let mut legal: Vec<String> = Vec::new();
    let mut turn = String::new();
    let mut awaiting: Option<String> = None;
    // The room acks a move before it broadcasts it: act again only once the position is
    // at least the acknowledged version.
    let (mut position_v, mut acked_v) = (0u64, 0u64);
    let mut sent = 0usize;
    let mut resigned = false;
    for _ in 0..MAX_MESSAGES {
        let msg = client.recv().await;
        match msg.t.as_str() {
            "state" | "join" | "move" | "takeback" => {
                if msg.t == "state" {
                    played.all = support::game::each_move(&msg.d["moves"], "uci");
                }
                if msg.t == "move" {
                    let uci = msg.str("uci");
                    played.all.push(uci.clone());
                    if msg.str("color") != me {
                        assert!(
                            legal.contains(&uci),
                            "the computer played {uci}, not among {legal:?}"
                        );
                        played.computer.push((uci, legal.clone()));
                    } else {
                        played.person += 1;
                    }
                }
                legal = strings(&msg.d["legal"]);
                turn = msg.str("turn");
                position_v = msg.v.unwrap_or(position_v);
            }
            "ack" => {
                assert_eq!(msg.d["id"].as_str(), awaiting.as_deref(), "{msg}");
                awaiting = None;
                acked_v = msg.d["v"].as_u64().unwrap_or(acked_v);
            }
            "end" => {
                played.ended = true;
                played.end = msg.d.clone();
                return played;
            }
            "error" => panic!("refused: {msg}"),
            _ => {}
        }
        if awaiting.is_none()
            && position_v >= acked_v
            && turn == me
            && !legal.is_empty()
            && !resigned
        {
            if played.person >= bound {
                client.send(json!({"t": "resign"})).await;
                resigned = true;
                continue;
            }
            let uci = rng.pick(&legal).cloned().unwrap_or_default();
            sent += 1;
            let id = format!("p{sent}");
            client.mv(&uci, &id).await;
            awaiting = Some(id);
        }
    }
    panic!("the game did not end within {MAX_MESSAGES} messages: {played:?}");
}

async fn create(addr: std::net::SocketAddr, body: Value) -> Value {
    let (status, text) = http(addr, "POST", "/api/games", Some(&body.to_string())).await;
    assert_eq!(status, 201, "{text}");
    serde_json::from_str(&text).expect("json")
}

/// A server whose per-connection and per-game rate limits do not apply to a person who
/// answers at once: `play_out` sends its sub-moves as fast as a level-1 computer answers
/// (40 and more in a second or two), which the default limits (a burst of 40 frames per
/// connection, then close 1008) are there to stop; seen closing the person's socket in CI.
async fn unlimited_rig() -> Rig {
    Rig::start_with(|c| {
        c.rate_per_sec = 10_000.0;
        c.rate_burst = 10_000.0;
        c.game_rate_per_sec = 10_000.0;
        c.game_rate_burst = 10_000.0;
    })
    .await
}

/// Creates a game against the computer with `body` and connects its person's seat: the
/// game's id and the seated client (its `state` not yet read).
async fn seated(rig: &Rig, body: Value) -> (String, Client) {
    let grant = create(rig.addr(), body).await;
    let id = s(&grant["id"]);
    let client = rig.seat(&id, &s(&grant["token"])).await;
    (id, client)
}

#[tokio::test]
async fn a_person_plays_a_whole_game_against_level_one_and_every_computer_submove_is_legal_and_recorded()
 {
    let (mut rng, _seed, _note) = Rng::seeded_from_env("COMPUTER_GAME_SEED");
    let rig = unlimited_rig().await;
    let grant = create(
        rig.addr(),
        json!({"computer": {"level": 1}, "color": "white"}),
    )
    .await;
    let id = s(&grant["id"]);
    assert_eq!(grant["color"], "white");
    let mut client = rig.seat(&id, &s(&grant["token"])).await;
    let played = play_out(&mut client, "white", &mut rng, HUMAN_SUBMOVES).await;
    assert!(played.ended, "the game ended cleanly");
    assert!(!played.computer.is_empty(), "the computer played");

    let (status, text) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, 200);
    let snapshot: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(snapshot["computer"], json!({"color": "black", "level": 1}));
    assert_eq!(snapshot["status"], "finished");
    let recorded = support::game::each_move(&snapshot["moves"], "uci");
    assert_eq!(recorded, played.all, "every sub-move is recorded, in order");
    let pgn = rig.pgn(&id).await;
    assert!(pgn.contains("[White \"Anonymous\"]"), "{pgn}");
    assert!(
        pgn.contains("[Black \"Marseillais engine (level 1)\"]"),
        "{pgn}"
    );
    rig.stop().await;
}

#[tokio::test]
async fn the_computer_playing_white_moves_first_by_itself() {
    let rig = Rig::start().await;
    let grant = create(
        rig.addr(),
        json!({"computer": {"level": 2}, "color": "black", "clock": {"base_secs": 60, "increment_secs": 0}}),
    )
    .await;
    let id = s(&grant["id"]);
    assert_eq!(grant["color"], "black");
    let mut client = rig.seat(&id, &s(&grant["token"])).await;
    let state = client.recv_type("state").await;
    assert_eq!(state.d["status"], "playing", "the game starts at once");
    assert_eq!(state.d["computer"], json!({"color": "white", "level": 2}));
    assert_eq!(state.d["seats"]["white"]["taken"], true);
    computer_has_moved(&mut client, &state, "white").await;
    rig.stop().await;
}

#[tokio::test]
async fn a_level_outside_one_to_eight_is_refused_and_computer_games_are_not_listed() {
    let rig = Rig::start().await;
    for bad in [json!(0), json!(9), json!(-1)] {
        let body = json!({"computer": {"level": bad}}).to_string();
        let (status, text) = rig.http("POST", "/api/games", Some(&body)).await;
        assert_eq!(status, 400, "{text}");
        let error: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(error["code"], "bad_request", "{text}");
        assert!(s(&error["message"]).contains("computer.level"), "{text}");
    }
    let (status, text) = rig
        .http(
            "POST",
            "/api/games",
            Some(r#"{"computer": {"level": "x"}}"#),
        )
        .await;
    assert_eq!(status, 400, "{text}");
    let private = create(rig.addr(), json!({"computer": {"level": 4}})).await;
    let listed = create(
        rig.addr(),
        json!({"computer": {"level": 4}, "listed": true}),
    )
    .await;
    let (_, text) = rig.http("GET", "/api/games?status=playing", None).await;
    let listing: Value = serde_json::from_str(&text).expect("json");
    let ids: HashSet<String> = listing["games"]
        .as_array()
        .map(|games| games.iter().map(|g| s(&g["id"])).collect())
        .unwrap_or_default();
    assert!(!ids.contains(&s(&private["id"])), "{text}");
    assert!(ids.contains(&s(&listed["id"])), "{text}");
    let summary = listing["games"]
        .as_array()
        .and_then(|games| games.iter().find(|g| g["id"] == listed["id"]))
        .cloned()
        .unwrap_or_default();
    assert_eq!(summary["computer"]["level"], 4, "{summary}");
    rig.stop().await;
}

#[tokio::test]
async fn the_computers_seat_cannot_be_taken_and_no_token_for_it_is_on_the_wire() {
    let rig = Rig::start().await;
    let grant = create(
        rig.addr(),
        json!({"computer": {"level": 1}, "color": "white"}),
    )
    .await;
    let id = s(&grant["id"]);
    let (status, text) = rig
        .http("POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 409, "{text}");
    // The stored seat hash is not a token: saying hello with it gets no seat.
    let mut impostor = rig.connect(&id, "token=computer").await;
    let refused = impostor
        .until("the bad-token error", |m| m.t == "error")
        .await;
    assert_eq!(refused.d["code"], "bad_token", "{refused}");
    let mut spectator = rig.spectate(&id).await;
    let state = spectator.recv_type("state").await;
    assert_eq!(state.d["you"], Value::Null);
    spectator
        .send(json!({"t": "move", "d": {"uci": "e7e5", "id": "x"}}))
        .await;
    let refused = spectator.until("the refusal", |m| m.t == "error").await;
    assert_eq!(refused.d["code"], "not_a_player", "{refused}");
    // Nothing anyone can read carries a token other than the creator's own grant.
    let (_, snapshot) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    let (_, listing) = rig.http("GET", "/api/games?status=playing", None).await;
    let pgn = rig.pgn(&id).await;
    for text in [&snapshot, &listing, &pgn, &state.json.to_string()] {
        assert!(!text.contains("token"), "{text}");
        assert!(!text.contains(&s(&grant["token"])), "{text}");
    }
    rig.stop().await;
}

/// Waits until the computer (`computer`'s colour) has played a sub-move: already in `state`
/// (it may move before the person's socket is even open), or broadcast after it.
async fn computer_has_moved(client: &mut Client, state: &support::ws::Incoming, computer: &str) {
    let in_state = state.d["moves"]
        .as_array()
        .is_some_and(|moves| moves.iter().any(|m| m["color"] == computer));
    if !in_state {
        computer_moves(client, computer, 1).await;
    }
}

/// The computer's sub-moves seen by `client` until `count` of them (those of a `state`
/// included: it may move before the socket is open), skipping the rest.
async fn computer_moves(client: &mut Client, computer: &str, count: usize) -> Vec<String> {
    let mut seen = Vec::new();
    while seen.len() < count {
        let msg = client
            .until("a computer sub-move", |m| {
                m.t == "state" || m.t == "move" && m.d["color"] == computer
            })
            .await;
        if msg.t == "state" {
            seen = msg.d["moves"]
                .as_array()
                .map(|moves| {
                    moves
                        .iter()
                        .filter(|m| m["color"] == computer)
                        .map(|m| s(&m["uci"]))
                        .collect()
                })
                .unwrap_or_default();
        } else {
            seen.push(msg.str("uci"));
        }
    }
    seen
}

#[tokio::test]
async fn after_a_kill_9_on_the_computers_turn_the_computer_moves_once_the_server_is_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Spawn::new(dir.path()).spawn().await;
    // Level 8, untimed: two seconds per sub-move, so the kill lands while it thinks.
    let grant = create(
        server.addr,
        json!({"computer": {"level": 8}, "color": "white"}),
    )
    .await;
    let id = s(&grant["id"]);
    let token = s(&grant["token"]);
    let mut client = Client::seat(server.addr, &id, &token).await;
    client.recv_type("state").await;
    let played = client.play("e2e4", "p1").await;
    assert_eq!(played.d["turn"], "black", "the computer's turn");
    server.kill9().await;

    let server = Spawn::new(dir.path()).spawn().await;
    let mut client = Client::seat(server.addr, &id, &token).await;
    let state = client.recv_type("state").await;
    let moves = support::game::each_move(&state.d["moves"], "uci");
    assert_eq!(moves.first().map(String::as_str), Some("e2e4"));
    if moves.len() == 1 {
        // Killed while it thought: after the restart it thinks again and moves by itself.
        let answer = computer_moves(&mut client, "black", 1).await;
        assert_eq!(answer.len(), 1);
    } else {
        // The machine was slow enough for the computer to move before the kill: then it
        // must still answer the next move after the restart.
        let state_turn = state.str("turn");
        assert_eq!(state_turn, "white", "{state}");
        let legal = strings(&state.d["legal"]);
        client.play(&legal[0], "p2").await;
        computer_moves(&mut client, "black", 1).await;
    }
    let (status, text) = http(server.addr, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, 200);
    let snapshot: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(snapshot["computer"], json!({"color": "black", "level": 8}));
    assert_eq!(snapshot["status"], "playing");
    server.kill9().await;
}

#[tokio::test]
async fn with_one_engine_thread_several_computers_thinking_at_once_search_one_at_a_time() {
    let rig = Rig::start_with(|config| config.engine_threads = 1).await;
    let mut clients = Vec::new();
    for _ in 0..3 {
        // The computer has White and thinks at once (level 8, untimed: two seconds a
        // sub-move, so the three games want the one thread together).
        let grant = create(
            rig.addr(),
            json!({"computer": {"level": 8}, "color": "black", "variant": "marseillais"}),
        )
        .await;
        clients.push(rig.seat(&s(&grant["id"]), &s(&grant["token"])).await);
    }
    let queued = support::eventually(WAIT, || async {
        metric(rig.addr(), "marseillais_engine_searches_waiting")
            .await
            .is_some_and(|waiting| waiting >= 1.0)
    })
    .await;
    assert!(queued, "a search waited for the one engine thread");
    for client in &mut clients {
        // Marseillais variant: White's first turn is two sub-moves, both the computer's.
        let moves = computer_moves(client, "white", 2).await;
        assert_eq!(moves.len(), 2);
    }
    let peak = metric(rig.addr(), "marseillais_engine_searches_running_peak").await;
    assert_eq!(peak, Some(1.0));
    let running = metric(rig.addr(), "marseillais_engine_searches_running").await;
    assert_eq!(running, Some(0.0));
    rig.stop().await;
}

#[tokio::test]
async fn the_computer_declines_a_draw_offer_and_accepts_a_rematch_with_colours_swapped() {
    let rig = Rig::start().await;
    let (_, mut client) = seated(&rig, json!({"computer": {"level": 1}, "color": "white"})).await;
    client.recv_type("state").await;
    client.play("e2e4", "p1").await;
    computer_moves(&mut client, "black", 2).await;
    client.send(json!({"t": "draw_offer"})).await;
    let declined = client.until("the decline", |m| m.t == "draw_decline").await;
    assert_eq!(declined.d["by"], "black");
    client.send(json!({"t": "resign"})).await;
    client.recv_type("end").await;
    client.send(json!({"t": "rematch_offer"})).await;
    let seat = client
        .until("the rematch seat", |m| m.t == "rematch_seat")
        .await;
    assert_eq!(seat.d["color"], "black", "{seat}");
    let new_id = seat.str("id");
    let mut next = rig.seat(&new_id, &seat.str("token")).await;
    let state = next.recv_type("state").await;
    assert_eq!(state.d["status"], "playing");
    assert_eq!(state.d["computer"], json!({"color": "white", "level": 1}));
    // The rematch's computer has White, and moves first by itself.
    computer_has_moved(&mut next, &state, "white").await;
    rig.stop().await;
}

#[tokio::test]
async fn the_computer_at_full_strength_does_not_lose_on_time_in_a_five_second_game() {
    let (mut rng, _seed, _note) = Rng::seeded_from_env("COMPUTER_CLOCK_SEED");
    let rig = unlimited_rig().await;
    let (_, mut client) = seated(
        &rig,
        json!({"computer": {"level": 8}, "color": "white", "clock": {"base_secs": 5, "increment_secs": 0}}),
    )
    .await;
    let played = play_out(&mut client, "white", &mut rng, 40).await;
    assert!(played.ended);
    assert!(played.computer.len() >= 2, "{played:?}");
    let flagged = played.end["reason"] == "time forfeit" && played.end["winner"] == "white";
    assert!(!flagged, "the computer lost on time: {}", played.end);
    rig.stop().await;
}

#[tokio::test]
async fn the_person_may_take_back_its_first_submove_and_the_computer_answers_the_turn_played() {
    let rig = Rig::start().await;
    let (id, mut client) = seated(
        &rig,
        json!({"computer": {"level": 1}, "color": "white", "variant": "marseillais"}),
    )
    .await;
    client.recv_type("state").await;
    client.play("e2e4", "p1").await;
    client.send(json!({"t": "takeback_submove"})).await;
    let takeback = client.recv_type("takeback").await;
    assert_eq!(takeback.d["uci"], "e2e4");
    client.play("d2d4", "p2").await;
    client.play("e2e4", "p3").await;
    let answer = computer_moves(&mut client, "black", 2).await;
    assert_eq!(answer.len(), 2);
    let (_, text) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    let snapshot: Value = serde_json::from_str(&text).expect("json");
    let moves = support::game::each_move(&snapshot["moves"], "uci");
    assert_eq!(moves[..2], ["d2d4", "e2e4"]);
    assert_eq!(moves[2..], answer[..]);
    rig.stop().await;
}

#[tokio::test]
async fn a_computer_whose_move_is_always_refused_gives_up_after_a_few_tries_instead_of_spinning() {
    use marseillais::server::config::{PanicOnMove, PanicSite};
    // Black (the computer) has one legal sub-move, Ka7, and the room refuses it every time
    // (the test hook panics while handling it; the room survives and refuses the move).
    let rig = Rig::start_with(|config| {
        config.panic_on_move = Some(PanicOnMove {
            uci: "a8a7".into(),
            site: PanicSite::Handling,
        });
    })
    .await;
    let (id, mut client) = seated(
        &rig,
        json!({"computer": {"level": 1}, "color": "white", "fen": "k7/2K5/8/8/8/8/8/7R b - - 0 1"}),
    )
    .await;
    let state = client.recv_type("state").await;
    assert_eq!(state.d["legal"], json!(["a8a7"]));
    // Bounded: MAX_REFUSALS tries a second apart, then the computer leaves its seat.
    let left = client
        .try_until(std::time::Duration::from_secs(60), |m| {
            m.t == "presence" && m.d["black"] == false
        })
        .await;
    assert!(left.is_some(), "the computer left after its refusals");
    let (_, text) = rig.http("GET", &format!("/api/games/{id}"), None).await;
    let snapshot: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(snapshot["status"], "playing");
    assert_eq!(snapshot["moves"], json!([]));
    assert_eq!(snapshot["seats"]["black"]["connected"], false);
    rig.stop().await;
}

/// `POST /api/games` with `body`, raw: the status, the `Retry-After` and the body.
async fn create_raw(addr: std::net::SocketAddr, body: &Value) -> (u16, Option<String>, String) {
    let body = body.to_string();
    let mut request = support::http::head(
        "POST",
        "/api/games",
        &[
            "Content-Type: application/json",
            &format!("Content-Length: {}", body.len()),
        ],
    );
    request.extend_from_slice(body.as_bytes());
    let reply = support::http::exchange(addr, &request, WAIT)
        .await
        .expect("an answer");
    let retry = reply.header("retry-after").map(str::to_string);
    (reply.status, retry, reply.body)
}

#[tokio::test]
async fn a_new_computer_game_is_refused_busy_while_the_engine_queue_is_long_and_taken_after() {
    let rig = Rig::start_with(|c| {
        c.engine_threads = 1;
        c.engine_max_wait = std::time::Duration::ZERO;
        // The computer's first sub-move thinks a quarter of it at most.
        c.first_move = std::time::Duration::from_secs(8);
    })
    .await;
    let level_8 = json!({"computer": {"level": 8}, "color": "black",
                         "clock": {"base_secs": 1800, "increment_secs": 0}});
    let (_, mut client) = seated(&rig, level_8.clone()).await;
    let state = client.recv_type("state").await;
    computer_has_moved(&mut client, &state, "white").await;
    // Legal after any first White sub-move, and neither gives check.
    client.play("e7e6", "p1").await;
    client.play("d7d6", "p2").await;
    // The computer's second turn, on a 30-minute clock: tens of seconds of search.
    let searching = support::eventually(WAIT, || async {
        metric(rig.addr(), "marseillais_engine_searches_running").await == Some(1.0)
    })
    .await;
    assert!(
        searching,
        "the computer's second turn never started searching"
    );
    let (status, retry, body) = create_raw(rig.addr(), &level_8).await;
    assert_eq!(status, 503, "{body}");
    let body: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(body["code"], "busy");
    let retry: u64 = retry.and_then(|r| r.parse().ok()).expect("a Retry-After");
    assert!((1..=60).contains(&retry), "{retry}");
    assert_eq!(
        metric(rig.addr(), "marseillais_computer_games_refused_total").await,
        Some(1.0)
    );
    // A game between two people is never refused for the engine's sake.
    let (status, _, body) = create_raw(rig.addr(), &json!({"color": "white"})).await;
    assert_eq!(status, 201, "{body}");
    // Once the game ends its search stops, the queue is empty, and a new game is taken.
    client.send(json!({"t": "resign"})).await;
    client.recv_type("end").await;
    let idle = support::eventually(WAIT, || async {
        metric(rig.addr(), "marseillais_engine_searches_running").await == Some(0.0)
    })
    .await;
    assert!(idle, "the ended game's search went on");
    let (status, _, body) = create_raw(rig.addr(), &level_8).await;
    assert_eq!(status, 201, "{body}");
    rig.stop().await;
}
