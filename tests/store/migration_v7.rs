//! Schema version 7 (issue 29: arena tournaments): a database written by the server before it
//! (the schema version 6 fixture, `tests/data/schema_v6/`, written by the binary of that
//! version over HTTP and WebSocket) upgrades in place on first open, in one transaction: every
//! row of every version 6 table keeps its values, no old game belongs to an arena, the lists
//! read the old games as before, and the new tables take arenas and their players.
//!
//! The fixture's generator is at the end of this file; `tests/data/schema_v6/generate.sh` runs
//! it against an older binary (see the README beside the fixture).

use crate::support;

use marseillais::server::domain::user::{UserId, Username};
use marseillais::server::store::sqlite::SCHEMA_VERSION;
use marseillais::server::store::{
    ArenaPlayer, ArenaRange, ArenaRecord, GameStatus, SqliteStore, Store,
};
use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::raw_db::{
    DB, check_a_failed_migration_leaves_the_fixture_as_it_was, copy_fixture, older_server, raw_i64,
    raw_tables,
};
use support::s;
use support::session::Session;
use support::store_contract::bounded;

/// The path of an older `marseillais` binary: set, the generator writes the fixture with it.
const GENERATE_ENV: &str = "MARSEILLAIS_FIXTURE_V6_SERVER";

/// The tables a version 6 database has (the same as version 5's).
const V6_TABLES: [&str; 9] = [
    "games",
    "events",
    "users",
    "sessions",
    "ratings",
    "rated_games",
    "turn_deadlines",
    "chat_lines",
    "account_settings",
];

#[tokio::test]
async fn a_schema_version_6_database_upgrades_in_place_and_takes_arenas() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    let data = copy_fixture("schema_v6");
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), 6);
    let before = raw_tables(&db, &V6_TABLES);
    assert_eq!(before["games"].len(), 3, "the fixture's three games");
    let alice = UserId(raw_i64(
        &db,
        "SELECT id FROM users WHERE username = 'alice'",
    ));
    let store = SqliteStore::open(data.path()).expect("open migrates");
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), SCHEMA_VERSION);
    assert_eq!(raw_tables(&db, &V6_TABLES), before, "every old value kept");
    assert_eq!(
        raw_i64(&db, "SELECT count(*) FROM games WHERE arena IS NULL"),
        3,
        "no old game is an arena's"
    );
    let alices = bounded(store.user_games(alice, 10, 0))
        .await
        .expect("alice's games");
    assert_eq!(alices.len(), 3);
    assert!(alices.iter().all(|listing| listing.arena.is_none()));
    let (finished, _) = bounded(store.load_game(&alices[0].id))
        .await
        .expect("load")
        .expect("there");
    assert_eq!(
        finished.status,
        GameStatus::Finished,
        "the newest: the mate"
    );

    // The new tables work on the upgraded database.
    let arena = ArenaRecord {
        id: "upgraded".into(),
        creator: Some(alice),
        terms: "{}".into(),
        starts_ms: 10,
        ends_ms: 20,
        created_ms: 5,
    };
    assert!(
        bounded(store.create_arena(arena.clone()))
            .await
            .expect("made")
    );
    let player = ArenaPlayer {
        user: alice,
        name: Username::parse("alice").expect("a name"),
        joined_ms: 11,
        rating: 1500,
        withdrawn: false,
    };
    bounded(store.set_arena_player("upgraded", player.clone()))
        .await
        .expect("joined");
    assert_eq!(
        bounded(store.arena_players("upgraded"))
            .await
            .expect("players"),
        [player]
    );
    assert_eq!(
        bounded(store.arenas(ArenaRange::Finished { now_ms: 20 }, 10))
            .await
            .expect("finished"),
        std::slice::from_ref(&arena)
    );
    assert_eq!(
        bounded(store.user_arenas(alice, 10))
            .await
            .expect("alice's"),
        [arena]
    );
    assert!(
        bounded(store.arena_games("upgraded"))
            .await
            .expect("games")
            .is_empty()
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_version_7_migration_that_fails_leaves_the_version_6_database_as_it_was() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    let data = check_a_failed_migration_leaves_the_fixture_as_it_was(
        "schema_v6",
        6,
        &V6_TABLES,
        "CREATE TABLE arena_players_by_user (x INTEGER)",
    );
    let db = data.path().join(DB);
    assert_eq!(
        raw_i64(
            &db,
            "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'arena'"
        ),
        0,
        "no column added"
    );
    assert_eq!(
        raw_i64(
            &db,
            "SELECT count(*) FROM sqlite_master WHERE name = 'arenas'"
        ),
        0,
        "no table added"
    );
}

// ---------------------------------------------------------------------------------------------
// The generator: plays the fixture's games on an older binary and writes tests/data/schema_v6/.

#[tokio::test]
async fn generate() {
    let Some((scratch, server)) = older_server(GENERATE_ENV).await else {
        return;
    };
    let addr = server.addr;
    let mut games = serde_json::Map::new();
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
    games.insert("open".into(), json!({"id": s(&reply["id"])}));
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;

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
        games.insert(key.into(), json!({"id": id}));
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }

    assert!(server.terminate().await, "a clean shutdown");
    support::raw_db::save_fixture(scratch.path(), "schema_v6", 6, Value::Object(games));
}
