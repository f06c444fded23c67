//! Correspondence games nobody has open (issue 12, "lives for weeks"), against the real server
//! binary on loopback: the room of a correspondence game being played retires like a finished
//! game's, startup does not rebuild such games, and the server still flags them on time from
//! its turn-deadline index and in-memory schedule, with nobody connected, across a graceful
//! restart and a kill -9 (a deadline that passed while it was down gets the grace). A retired
//! game loads again on reconnect and plays on.
//!
//! Games are written straight through the library's store API before the server starts (a
//! turn that began a day ago is the only way to reach a deadline of days within a test), with
//! the same events and commit (`creation::prepare`) the server makes. Whether the server flagged
//! a game is read from its database file with plain SQL: asking the server would load the
//! game's room, which flags it by itself.

use crate::support;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use marseillais::rules::Color;
use marseillais::server::config::Config;
use marseillais::server::game::{Event, now_ms};
use marseillais::server::play::creation::{self, NewGame};
use marseillais::server::store::{SqliteStore, Store};
use marseillais::server::{ids, store::sqlite::DB_FILE_NAME};
use serde_json::{Value, json};
use support::eventually;
use support::process::{Scratch, ServerProcess, Spawn};
use support::s;
use support::session::Session;
use support::store_contract::bounded;
use support::ws::Client;

const DAY_MS: i64 = 86_400_000;

/// A generous bound on one wait of this file (a loaded machine), never a timing claim.
const PATIENCE: Duration = Duration::from_secs(90);

/// A game written to the store: its id and both seat tokens.
struct Seeded {
    id: String,
    white: String,
    black: String,
}

/// Writes games straight into the store of `data`, each created and joined (anonymous seats,
/// White the creator) with this time control at `joined_at_ms`: `{"days_per_turn": N}` or a
/// live clock. Returns them in order.
async fn seed(data: &Path, games: &[(Value, i64)]) -> Vec<Seeded> {
    let store = SqliteStore::open(data).expect("open the store");
    let config = Config::new(SocketAddr::from(([127, 0, 0, 1], 0)), data);
    let mut seeded = Vec::new();
    let mut commits = Vec::new();
    for (clock, joined_at_ms) in games {
        let request: NewGame =
            serde_json::from_value(json!({"color": "white", "clock": clock})).expect("a request");
        let white = ids::new_token();
        let black = ids::new_token();
        let (mut events, color) =
            creation::first_events(&request, ids::token_hash(&white), None, joined_at_ms - 1000)
                .expect("first events");
        assert_eq!(color, Color::White);
        events.push(Event::Joined {
            at_ms: *joined_at_ms,
            color: Color::Black,
            seat_hash: ids::token_hash(&black),
            computer: None,
            user: None,
        });
        let prepared = creation::prepare(events, &config).expect("a game");
        seeded.push(Seeded {
            id: prepared.state.id.clone(),
            white,
            black,
        });
        commits.push(prepared.commit);
        if commits.len() == 500 {
            bounded(store.commit_all(std::mem::take(&mut commits)))
                .await
                .expect("commit");
        }
    }
    if !commits.is_empty() {
        bounded(store.commit_all(commits)).await.expect("commit");
    }
    bounded(store.close()).await;
    seeded
}

fn days(n: u64) -> Value {
    json!({ "days_per_turn": n })
}

/// A game's stored status, read with plain SQL while the server runs.
fn stored_status(data: &Path, id: &str) -> String {
    let conn = rusqlite::Connection::open(data.join(DB_FILE_NAME)).expect("raw open");
    conn.query_row("SELECT status FROM games WHERE id = ?1", [id], |row| {
        row.get(0)
    })
    .expect("the game")
}

/// A game's last stored event, as JSON.
fn last_event(data: &Path, id: &str) -> Value {
    let conn = rusqlite::Connection::open(data.join(DB_FILE_NAME)).expect("raw open");
    let text: String = conn
        .query_row(
            "SELECT payload FROM events WHERE game_id = ?1 ORDER BY seq DESC LIMIT 1",
            [id],
            |row| row.get(0),
        )
        .expect("an event");
    serde_json::from_str(&text).expect("json")
}

/// A game's row in the turn-deadline index, if any.
fn indexed_deadline(data: &Path, id: &str) -> Option<i64> {
    let conn = rusqlite::Connection::open(data.join(DB_FILE_NAME)).expect("raw open");
    conn.query_row(
        "SELECT deadline_ms FROM turn_deadlines WHERE game_id = ?1",
        [id],
        |row| row.get(0),
    )
    .ok()
}

async fn live_games(server: &ServerProcess) -> f64 {
    server
        .metric("marseillais_live_games")
        .await
        .expect("the live games gauge")
}

/// Waits (bounded) until the server holds `n` games in memory.
async fn until_live_games(server: &ServerProcess, n: f64) {
    assert!(
        eventually(PATIENCE, || async { live_games(server).await == n }).await,
        "the server still holds {} games, not {n}",
        live_games(server).await
    );
}

/// Waits (bounded) until the stored game is finished, and returns its end event.
async fn until_finished(data: &Path, id: &str) -> Value {
    assert!(
        eventually(PATIENCE, || async { stored_status(data, id) == "finished" }).await,
        "the game was not flagged"
    );
    let end = last_event(data, id);
    assert_eq!(end["k"], "end", "{end}");
    end
}

/// The log's text without its terminal colour codes (`ESC [ ... m`).
fn without_colours(log: &str) -> String {
    let mut out = String::with_capacity(log.len());
    let mut chars = log.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

async fn spawn(scratch: &Scratch, flags: &[&str]) -> ServerProcess {
    Spawn::new(&scratch.data())
        .log(&scratch.log())
        .flags(flags)
        .relaxed_limits()
        .spawn()
        .await
}

#[tokio::test]
async fn a_correspondence_game_whose_room_retired_is_flagged_on_time_with_nobody_connected() {
    let scratch = Scratch::new();
    let data = scratch.data();
    // White's first turn began a day ago, less 12 s: it runs out 12 s from now.
    let deadline = now_ms() + 12_000;
    let games = seed(&data, &[(days(1), deadline - DAY_MS)]).await;
    let game = &games[0];
    assert_eq!(indexed_deadline(&data, &game.id), Some(deadline));
    let server = spawn(&scratch, &["--retire-after-secs", "0.2"]).await;
    assert_eq!(live_games(&server).await, 0.0, "not rebuilt at startup");

    // White looks at the game (its room loads) and leaves; the room retires.
    let mut white = Client::seat(server.addr, &game.id, &game.white).await;
    assert_eq!(white.recv_type("state").await.d["you"], "white");
    assert_eq!(live_games(&server).await, 1.0);
    white.close().await;
    drop(white);
    until_live_games(&server, 0.0).await;
    assert_eq!(
        stored_status(&data, &game.id),
        "playing",
        "retired before its deadline"
    );

    let end = until_finished(&data, &game.id).await;
    assert_eq!(end["reason"], "time forfeit", "{end}");
    assert_eq!(end["winner"], "black", "{end}");
    assert!(end["at_ms"].as_i64().expect("at_ms") >= deadline, "{end}");
    assert_eq!(
        indexed_deadline(&data, &game.id),
        None,
        "cleared with the end"
    );
    assert!(server.terminate().await);
}

/// The deadline of a game passed while the server was down (the first run kept it alive with
/// an hour of grace): the next run flags it by itself after its own grace from boot, not at
/// boot. `kill9`: the first run dies by SIGKILL instead of stopping.
async fn flagged_after_the_grace_of_the_next_run(kill9: bool) {
    let scratch = Scratch::new();
    let data = scratch.data();
    let deadline = now_ms() - 60_000;
    let games = seed(
        &data,
        &[(days(1), deadline - DAY_MS), (days(3), now_ms() - 1000)],
    )
    .await;
    let (late, later) = (&games[0], &games[1]);

    let first = spawn(&scratch, &["--correspondence-grace-secs", "3600"]).await;
    assert_eq!(live_games(&first).await, 0.0, "not rebuilt at startup");
    // A move of the other game makes a new deadline (Black's turn starts now).
    let mut white = Client::seat(first.addr, &later.id, &later.white).await;
    white.recv_type("state").await;
    let moved = white.play("e2e4", "w1").await;
    drop(white);
    let moved_at = last_event(&data, &later.id)["at_ms"]
        .as_i64()
        .expect("the move's time");
    assert_eq!(moved.d["uci"], "e2e4");
    if kill9 {
        first.kill9().await;
    } else {
        assert!(first.terminate().await);
    }
    assert_eq!(
        stored_status(&data, &late.id),
        "playing",
        "the grace kept it alive"
    );
    assert_eq!(
        indexed_deadline(&data, &later.id),
        Some(moved_at + 3 * DAY_MS),
        "the acknowledged move's deadline is on disk"
    );

    let boot_not_before = now_ms();
    let second = spawn(&scratch, &["--correspondence-grace-secs", "2"]).await;
    assert_eq!(live_games(&second).await, 0.0, "not rebuilt at startup");
    let end = until_finished(&data, &late.id).await;
    assert_eq!(end["reason"], "time forfeit", "{end}");
    let ended_at = end["at_ms"].as_i64().expect("at_ms");
    assert!(
        ended_at >= boot_not_before + 2000,
        "flagged at {ended_at}, before the grace after boot ({boot_not_before} + 2 s)"
    );
    assert_eq!(stored_status(&data, &later.id), "playing");
    assert_eq!(
        indexed_deadline(&data, &later.id),
        Some(moved_at + 3 * DAY_MS)
    );
    assert!(second.terminate().await);
}

#[tokio::test]
async fn a_deadline_that_passed_during_a_restart_is_flagged_after_the_grace_with_nobody_connected()
{
    flagged_after_the_grace_of_the_next_run(false).await;
}

#[tokio::test]
async fn a_deadline_that_passed_after_a_kill_9_is_flagged_after_the_grace_with_nobody_connected() {
    flagged_after_the_grace_of_the_next_run(true).await;
}

#[tokio::test]
async fn a_retired_correspondence_game_loads_again_on_reconnect_and_plays_on() {
    let scratch = Scratch::new();
    let data = scratch.data();
    let games = seed(&data, &[(days(2), now_ms() - 1000)]).await;
    let game = &games[0];
    let server = spawn(&scratch, &["--retire-after-secs", "0.2"]).await;

    let mut white = Client::seat(server.addr, &game.id, &game.white).await;
    white.recv_type("state").await;
    white.play("e2e4", "w1").await;
    white.close().await;
    drop(white);
    until_live_games(&server, 0.0).await;

    // Black comes back (another device: only the token) and plays its turn.
    let mut black = Client::seat(server.addr, &game.id, &game.black).await;
    let state = black.recv_type("state").await;
    assert_eq!(state.d["you"], "black");
    black.play("e7e5", "b1").await;
    let turn_end = black.play("g8f6", "b2").await;
    assert_eq!(turn_end.d["turn"], "white", "{turn_end}");
    black.close().await;
    drop(black);
    until_live_games(&server, 0.0).await;
    let moved_at = last_event(&data, &game.id)["at_ms"]
        .as_i64()
        .expect("the move's time");
    assert_eq!(
        indexed_deadline(&data, &game.id),
        Some(moved_at + 2 * DAY_MS)
    );

    // And White again, after that room retired too.
    let mut white = Client::seat(server.addr, &game.id, &game.white).await;
    white.recv_type("state").await;
    white.play("d2d4", "w2").await;
    assert_eq!(stored_status(&data, &game.id), "playing");
    assert!(server.terminate().await);
}

#[tokio::test]
async fn startup_rebuilds_only_live_games_and_schedules_the_thousand_correspondence_ones() {
    let scratch = Scratch::new();
    let data = scratch.data();
    let now = now_ms();
    let mut games: Vec<(Value, i64)> = (0..1000).map(|i| (days(7), now - i)).collect();
    for _ in 0..3 {
        games.push((json!({"base_secs": 600, "increment_secs": 5}), now));
    }
    let seeded = seed(&data, &games).await;
    let server = spawn(&scratch, &[]).await;
    assert_eq!(live_games(&server).await, 3.0, "the three live games only");
    let log = without_colours(&std::fs::read_to_string(scratch.log()).expect("the server log"));
    assert!(log.contains("scheduled=1000"), "{log}");
    // One of them loads on demand, as any stored game.
    let mut black = Client::seat(server.addr, &seeded[500].id, &seeded[500].black).await;
    assert_eq!(black.recv_type("state").await.d["you"], "black");
    assert_eq!(live_games(&server).await, 4.0);
    assert!(server.terminate().await);
}

#[tokio::test]
async fn a_retired_correspondence_game_reloads_for_its_account_on_another_device() {
    let scratch = Scratch::new();
    let server = spawn(&scratch, &["--retire-after-secs", "0.2"]).await;
    let addr = server.addr;
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    let (status, created) = alice
        .call(
            addr,
            "POST",
            "/api/games",
            Some(&json!({"color": "white", "clock": {"days_per_turn": 3}})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = s(&created["id"]);
    let (status, joined) = bob
        .call(addr, "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let mut white = alice.connect(addr, &id, "").await;
    assert_eq!(white.skip_to("state").await.d["you"], "white");
    white.play("e2e4", "w1").await;
    white.close().await;
    drop(white);
    until_live_games(&server, 0.0).await;
    assert!(indexed_deadline(&scratch.data(), &id).is_some());

    // Bob signs in on another device: no token, only the account's session.
    let phone = Session::login(addr, "bob").await;
    let mut black = phone.connect(addr, &id, "").await;
    assert_eq!(black.skip_to("state").await.d["you"], "black");
    black.play("e7e5", "b1").await;
    black.play("g8f6", "b2").await;
    assert_eq!(stored_status(&scratch.data(), &id), "playing");
    assert!(server.terminate().await);
}
