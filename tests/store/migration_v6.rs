//! Schema version 6 (issue 9: the games' indexes hold the minute of the last activity, not the
//! millisecond): a database written by the server before it (the schema version 5 fixture,
//! `tests/data/schema_v5/`, written by the binary of that version over HTTP and WebSocket)
//! upgrades in place on first open, in one transaction; every row of every version 5 table keeps
//! its values, each game gets `active_minute = updated_ms / 60000`, and the lobby, a user's games
//! and the stale scan list the old games in exactly the order of `updated_ms`, as the version 5
//! indexes did.
//!
//! The fixture's generator is at the end of this file; `tests/data/schema_v5/generate.sh` runs
//! it against an older binary (see the README beside the fixture).

use crate::support;

use std::path::Path;

use marseillais::server::players::account::UserId;
use marseillais::server::store::sqlite::SCHEMA_VERSION;
use marseillais::server::store::{GameListing, GameStatus, SqliteStore, Store};
use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::raw_db::{
    DB, check_a_failed_migration_leaves_the_fixture_as_it_was, copy_fixture, older_server, raw_i64,
    raw_tables, save_fixture,
};
use support::s;
use support::session::Session;
use support::store_contract::bounded;

/// The path of an older `marseillais` binary: set, the generator writes the fixture with it.
const GENERATE_ENV: &str = "MARSEILLAIS_FIXTURE_V5_SERVER";

/// The tables a version 5 database has.
const V5_TABLES: [&str; 9] = [
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

/// The ids `sql` selects, in its order (plain SQL: the order the version 5 indexes served).
fn raw_ids(db: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    let mut statement = conn.prepare(sql).expect("prepare");
    statement
        .query_map([], |row| row.get(0))
        .expect("query")
        .collect::<Result<Vec<String>, _>>()
        .expect("ids")
}

fn ids(listings: Vec<GameListing>) -> Vec<String> {
    listings.into_iter().map(|l| l.id).collect()
}

#[tokio::test]
async fn a_schema_version_5_database_upgrades_in_place_and_lists_its_games_in_the_same_order() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    let data = copy_fixture("schema_v5");
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), 5);
    let before = raw_tables(&db, &V5_TABLES);
    assert_eq!(before["games"].len(), 6, "the fixture's six games");
    let alice = UserId(raw_i64(
        &db,
        "SELECT id FROM users WHERE username = 'alice'",
    ));
    let order = |status: &str| {
        raw_ids(
            &db,
            &format!(
                "SELECT id FROM games WHERE status = '{status}' AND listed = 1
                 ORDER BY updated_ms DESC, id DESC"
            ),
        )
    };
    let (open, playing) = (order("open"), order("playing"));
    assert_eq!((open.len(), playing.len()), (2, 2), "listed games");
    let alices = raw_ids(
        &db,
        &format!(
            "SELECT id FROM games WHERE white_user = {0} OR black_user = {0}
             ORDER BY updated_ms DESC, id DESC",
            alice.0
        ),
    );
    assert_eq!(alices.len(), 5, "alice's games, the unlisted one too");
    let newest_ms = raw_i64(&db, "SELECT max(updated_ms) FROM games");

    let store = SqliteStore::open(data.path()).expect("open migrates");
    // Upgraded in place: the current version, every old value kept, and the new column holds
    // each row's minute.
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), SCHEMA_VERSION);
    assert_eq!(raw_tables(&db, &V5_TABLES), before);
    assert_eq!(
        raw_i64(
            &db,
            "SELECT count(*) FROM games WHERE active_minute = updated_ms / 60000 AND active_minute > 0"
        ),
        6
    );
    assert_eq!(
        ids(bounded(store.list(GameStatus::Open, 10, 0))
            .await
            .expect("open")),
        open
    );
    assert_eq!(
        ids(bounded(store.list(GameStatus::Playing, 10, 0))
            .await
            .expect("playing")),
        playing
    );
    assert_eq!(
        ids(bounded(store.user_games(alice, 10, 0))
            .await
            .expect("alice's")),
        alices
    );
    let stale = bounded(store.load_stale(GameStatus::Open, newest_ms + 1, 10, 0))
        .await
        .expect("stale");
    let oldest_first: Vec<String> = open.iter().rev().cloned().collect();
    assert_eq!(
        stale.into_iter().map(|(l, _)| l.id).collect::<Vec<_>>(),
        oldest_first,
        "open games, listed or not, oldest first (the fixture's open games are listed)"
    );
    // A game played on after the upgrade goes to the head of the lobby at once.
    let (mut listing, events) = bounded(store.load_game(&playing[1]))
        .await
        .expect("load")
        .expect("there");
    listing.updated_ms = newest_ms + 1;
    let mut commit = support::store_contract::commit(&playing[1], events.len() as u64, 1);
    commit.listing = listing;
    bounded(store.commit(commit))
        .await
        .expect("a commit on an upgraded game");
    assert_eq!(
        ids(bounded(store.list(GameStatus::Playing, 10, 0))
            .await
            .expect("playing")),
        [playing[1].clone(), playing[0].clone()]
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_version_6_migration_that_fails_leaves_the_version_5_database_as_it_was() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    let data = check_a_failed_migration_leaves_the_fixture_as_it_was(
        "schema_v5",
        5,
        &V5_TABLES,
        "CREATE TABLE games_by_status_listed_minute (x INTEGER)",
    );
    let db = data.path().join(DB);
    assert_eq!(
        raw_i64(
            &db,
            "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'active_minute'"
        ),
        0,
        "no column added"
    );
}

// ---------------------------------------------------------------------------------------------
// The generator: plays the fixture's games on an older binary and writes tests/data/schema_v5/.

async fn pause() {
    // Distinct `updated_ms` for every game, so that the order the test checks is not by id.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
}

async fn create(addr: std::net::SocketAddr, creator: &Session, body: Value) -> String {
    let (status, reply) = creator.call(addr, "POST", "/api/games", Some(&body)).await;
    assert_eq!(status, 201, "{reply}");
    s(&reply["id"])
}

async fn join(addr: std::net::SocketAddr, joiner: &Session, id: &str) {
    let path = format!("/api/games/{id}/join");
    let (status, reply) = joiner.call(addr, "POST", &path, None).await;
    assert_eq!(status, 200, "{reply}");
}

/// alice (White) and bob start a game made of `body` and alice plays 1. e4.
async fn started(
    addr: std::net::SocketAddr,
    alice: &Session,
    bob: &Session,
    body: Value,
) -> String {
    let id = create(addr, alice, body).await;
    join(addr, bob, &id).await;
    let mut w = alice.connect(addr, &id, "").await;
    w.skip_to("state").await;
    w.play("e2e4", "w1").await;
    id
}

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

    let id = create(addr, &alice, json!({"color": "white", "clock": blitz})).await;
    games.insert("open_older".into(), json!({"id": id}));
    pause().await;
    let id = started(
        addr,
        &alice,
        &bob,
        json!({"color": "white", "clock": blitz}),
    )
    .await;
    games.insert("playing_older".into(), json!({"id": id}));
    pause().await;
    let body = json!({"color": "white", "clock": blitz, "listed": false});
    let id = started(addr, &alice, &bob, body).await;
    games.insert("playing_unlisted".into(), json!({"id": id}));
    pause().await;
    let body = json!({"color": "white", "clock": {"days_per_turn": 3}});
    let id = started(addr, &alice, &bob, body).await;
    games.insert("correspondence_newer".into(), json!({"id": id}));
    pause().await;
    let id = create(addr, &bob, json!({"color": "black", "clock": blitz})).await;
    games.insert("open_newer".into(), json!({"id": id}));
    pause().await;

    // Rated blitz alice (White) - bob, finished by mate.
    let body = json!({"rated": true, "color": "white", "clock": blitz});
    let id = create(addr, &alice, body).await;
    join(addr, &bob, &id).await;
    let mut w = alice.connect(addr, &id, "").await;
    let mut b = bob.connect(addr, &id, "").await;
    w.skip_to("state").await;
    b.skip_to("state").await;
    play_until_white_mates_in_one(&mut w, &mut b).await;
    w.play("d1h5", "w2").await;
    w.recv_type("end").await;
    games.insert("rated_mate".into(), json!({"id": id}));

    assert!(server.terminate().await, "a clean shutdown");
    save_fixture(scratch.path(), "schema_v5", 5, Value::Object(games));
}
