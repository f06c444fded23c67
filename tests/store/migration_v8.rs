//! Schema version 8 (issue 30: puzzles): a database written by the server before it (the
//! schema version 7 fixture, `tests/data/schema_v7/`, written by the binary of that version
//! over HTTP and WebSocket) upgrades in place on first open, in one transaction: every row of
//! every version 7 table keeps its values, its games and its arena read as before, and the new
//! tables take puzzles and a player's rounds, which a reopened store still has.
//!
//! The fixture's generator is at the end of this file; `tests/data/schema_v7/generate.sh` runs
//! it against an older binary (see the README beside the fixture).

use crate::support;

use std::time::Duration;

use marseillais::server::domain::rating::Rating;
use marseillais::server::domain::user::UserId;
use marseillais::server::game::now_ms;
use marseillais::server::store::sqlite::SCHEMA_VERSION;
use marseillais::server::store::{GameStatus, PuzzlePlayer, RoundOutcome, SqliteStore, Store};
use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::raw_db::{
    DB, check_a_failed_migration_leaves_the_fixture_as_it_was, copy_fixture, fixture_dir,
    older_server, raw_i64, raw_tables, table_exists,
};
use support::s;
use support::session::Session;
use support::store_contract::{bounded, puzzle, round};

/// The path of an older `marseillais` binary: set, the generator writes the fixture with it.
const GENERATE_ENV: &str = "MARSEILLAIS_FIXTURE_V7_SERVER";

/// The tables a version 7 database has.
const V7_TABLES: [&str; 11] = [
    "games",
    "events",
    "users",
    "sessions",
    "ratings",
    "rated_games",
    "turn_deadlines",
    "chat_lines",
    "account_settings",
    "arenas",
    "arena_players",
];

/// The fixture's `games.json`: what the generator made, by key.
fn made() -> Value {
    let text = std::fs::read_to_string(fixture_dir("schema_v7").join("games.json"))
        .expect("the fixture's games.json");
    serde_json::from_str(&text).expect("json")
}

#[tokio::test]
async fn a_schema_version_7_database_upgrades_in_place_and_takes_puzzle_rounds() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    let made = made();
    let data = copy_fixture("schema_v7");
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), 7);
    let before = raw_tables(&db, &V7_TABLES);
    let arenas_of_games = "SELECT count(*) FROM games WHERE arena IS NOT NULL";
    let games_in_arenas = raw_i64(&db, arenas_of_games);
    assert_eq!(before["games"].len(), 3, "the fixture's three games");
    let alice = UserId(raw_i64(
        &db,
        "SELECT id FROM users WHERE username = 'alice'",
    ));
    let store = SqliteStore::open(data.path()).expect("open migrates");
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), SCHEMA_VERSION);
    assert_eq!(raw_tables(&db, &V7_TABLES), before, "every old value kept");
    assert_eq!(raw_i64(&db, arenas_of_games), games_in_arenas);

    // The old games and the arena read as before.
    let alices = bounded(store.user_games(alice, 10, 0))
        .await
        .expect("alice's games");
    assert_eq!(alices.len(), 3);
    let (mate, events) = bounded(store.load_game(&s(&made["rated_mate"]["id"])))
        .await
        .expect("load")
        .expect("there");
    assert_eq!(mate.status, GameStatus::Finished);
    assert!(!events.is_empty());
    let rated = bounded(store.game_rating(&mate.id))
        .await
        .expect("read")
        .expect("the rated end");
    assert_eq!(rated.white, alice);
    let arena_id = s(&made["arena"]["id"]);
    let arena = bounded(store.arena(&arena_id))
        .await
        .expect("read")
        .expect("the arena");
    assert_eq!(arena.creator, Some(alice));
    let players = bounded(store.arena_players(&arena_id))
        .await
        .expect("players");
    assert_eq!(players.len(), 1);
    assert_eq!(players[0].user, alice);

    // The new tables work on the upgraded database.
    assert_eq!(bounded(store.puzzle_count()).await.expect("count"), 0);
    let fork = puzzle("upgraded", 1500.0, &["fork"]);
    assert_eq!(
        bounded(store.import_puzzles(vec![fork.clone()]))
            .await
            .expect("import"),
        1
    );
    let outcome = bounded(store.record_puzzle_round(round(alice, "upgraded", true, 5)))
        .await
        .expect("round");
    let RoundOutcome::Rated { player_after, .. } = outcome else {
        panic!("a first try: {outcome:?}")
    };
    assert_eq!(
        bounded(store.puzzle_near(Some(alice), Some("fork".into()), 1500))
            .await
            .expect("near"),
        None,
        "played"
    );
    bounded(store.close()).await;

    let store = SqliteStore::open(data.path()).expect("reopen");
    let expected = PuzzlePlayer {
        rating: player_after,
        solved: 1,
        failed: 0,
    };
    assert_eq!(
        bounded(store.puzzle_player(alice)).await.expect("read"),
        Some(expected)
    );
    assert_ne!(expected.rating, Rating::INITIAL);
    assert_eq!(
        bounded(store.puzzle_attempts(alice, 10))
            .await
            .expect("history")
            .len(),
        1
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_version_8_migration_that_fails_leaves_the_version_7_database_as_it_was() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    let data = check_a_failed_migration_leaves_the_fixture_as_it_was(
        "schema_v7",
        7,
        &V7_TABLES,
        "CREATE TABLE puzzle_rounds_by_time (x INTEGER)",
    );
    let db = data.path().join(DB);
    for table in [
        "puzzles",
        "puzzle_themes",
        "puzzle_players",
        "puzzle_rounds",
    ] {
        assert!(!table_exists(&db, table), "no table {table} added");
    }
}

// ---------------------------------------------------------------------------------------------
// The generator: plays the fixture's games on an older binary and writes tests/data/schema_v7/.

#[tokio::test]
async fn generate() {
    let Some((scratch, server)) = older_server(GENERATE_ENV).await else {
        return;
    };
    let addr = server.addr;
    let mut made = serde_json::Map::new();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    let blitz = json!({"base_secs": 300, "increment_secs": 2});
    // An open game of alice's, a blitz game being played, a rated game ended by mate.
    let (status, reply) = alice
        .call(
            addr,
            "POST",
            "/api/games",
            Some(&json!({"color": "white", "clock": blitz})),
        )
        .await;
    assert_eq!(status, 201, "{reply}");
    made.insert("open".into(), json!({"id": s(&reply["id"])}));
    tokio::time::sleep(Duration::from_millis(5)).await;

    for (key, rated) in [("playing", false), ("rated_mate", true)] {
        let body = json!({"rated": rated, "color": "white", "clock": blitz});
        let (status, reply) = alice.call(addr, "POST", "/api/games", Some(&body)).await;
        assert_eq!(status, 201, "{reply}");
        let id = s(&reply["id"]);
        let path = format!("/api/games/{id}/join");
        let (status, reply) = bob.call(addr, "POST", &path, None).await;
        assert_eq!(status, 200, "{reply}");
        let mut w = alice.connect(addr, &id, "").await;
        let mut b = bob.connect(addr, &id, "").await;
        w.skip_to("state").await;
        b.skip_to("state").await;
        if rated {
            play_until_white_mates_in_one(&mut w, &mut b).await;
            w.play("d1h5", "w2").await;
            w.recv_type("end").await;
        } else {
            w.play("e2e4", "w1").await;
        }
        made.insert(key.into(), json!({"id": id}));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    // An arena of alice's that starts in a day (nobody is paired), alice joined.
    let body = json!({
        "name": "Fixture arena",
        "clock": {"base_secs": 180, "increment_secs": 2},
        "starts_ms": now_ms() + 24 * 3600 * 1000,
        "duration_minutes": 60,
    });
    let (status, reply) = alice.call(addr, "POST", "/api/arenas", Some(&body)).await;
    assert_eq!(status, 201, "{reply}");
    let arena = s(&reply["id"]);
    let path = format!("/api/arenas/{arena}/join");
    let (status, reply) = alice.call(addr, "POST", &path, None).await;
    assert_eq!(status, 200, "{reply}");
    made.insert("arena".into(), json!({"id": arena}));

    assert!(server.terminate().await, "a clean shutdown");
    support::raw_db::save_fixture(scratch.path(), "schema_v7", 7, Value::Object(made));
}
