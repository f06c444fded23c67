//! Schema version 3 (accounts, sessions, ratings): a database written by the server before it
//! (the schema version 2 fixture, `tests/data/schema_v2/`) upgrades in place on first open, in
//! one transaction, and keeps every game exactly as it was; the new tables work on it at once.
//! (tests/store/fixture_v2.rs serves the same fixture over HTTP with today's server, byte for
//! byte, across a restart: that is the "still serves every game" half.)

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;

use marseillais::server::store::sqlite::SCHEMA_VERSION;
use marseillais::server::store::{GameStatus, SqliteStore, Store};
use support::store_contract::{bounded, seated_commit, session_hash, username};

const DB: &str = "marseillais.sqlite3";

/// A copy of the version 2 fixture in a fresh data directory.
fn copy_v2_fixture() -> tempfile::TempDir {
    let data = tempfile::tempdir().expect("temp dir");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema_v2");
    std::fs::copy(fixture.join(DB), data.path().join(DB)).expect("copy the fixture");
    data
}

fn raw_i64(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    conn.query_row(sql, [], |row| row.get(0)).expect("query")
}

/// Every game row and event of a database, read with plain SQL (no store code).
#[allow(clippy::type_complexity)]
fn raw_games(db: &Path) -> BTreeMap<String, (String, i64, i64, String, bool, Vec<String>)> {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    let mut games = BTreeMap::new();
    let mut rows = conn
        .prepare("SELECT id, status, created_ms, updated_ms, summary, listed FROM games")
        .expect("prepare");
    let listed = rows
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                (
                    row.get::<_, String>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, bool>(5)?,
                ),
            ))
        })
        .expect("query")
        .collect::<Result<Vec<_>, _>>()
        .expect("rows");
    for (id, (status, created, updated, summary, is_listed)) in listed {
        let events: Vec<String> = conn
            .prepare("SELECT payload FROM events WHERE game_id = ?1 ORDER BY seq")
            .expect("prepare")
            .query_map([&id], |row| row.get(0))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("events");
        games.insert(id, (status, created, updated, summary, is_listed, events));
    }
    games
}

#[tokio::test]
async fn a_schema_version_2_database_upgrades_in_place_and_keeps_every_game() {
    let data = copy_v2_fixture();
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), 2);
    let before = raw_games(&db);
    assert_eq!(before.len(), 9, "the fixture's nine games");

    let store = SqliteStore::open(data.path()).expect("open migrates");
    // Every game loads through the store as it was written, now with no accounts seated.
    for (id, (status, created, updated, summary, listed, events)) in &before {
        let (listing, loaded) = bounded(store.load_game(id))
            .await
            .expect("load")
            .expect("every game is still there");
        assert_eq!(listing.status.as_str(), status, "{id}");
        assert_eq!(
            (listing.created_ms, listing.updated_ms),
            (*created, *updated)
        );
        assert_eq!(&listing.summary, summary, "{id}");
        assert_eq!(listing.listed, *listed, "{id}");
        assert_eq!((listing.white_user, listing.black_user), (None, None));
        assert_eq!(&loaded, events, "{id}");
    }
    let open = bounded(store.list(GameStatus::Open, 100, 0))
        .await
        .expect("list");
    assert_eq!(open.len(), 1, "the listed open game");

    // The new tables are there and work on the old database.
    let ann = bounded(store.create_user(username("ann"), "h".to_owned(), 1))
        .await
        .expect("create a user");
    bounded(store.create_session(session_hash(1), ann, 10))
        .await
        .expect("create a session");
    assert_eq!(
        bounded(store.session_account(session_hash(1), 20))
            .await
            .expect("session")
            .map(|a| a.id),
        Some(ann)
    );
    assert!(
        bounded(store.user_games(ann, 10, 0))
            .await
            .expect("user games")
            .is_empty(),
        "no old game belongs to anyone"
    );
    bounded(store.commit(seated_commit("new", 0, 99, true, Some(ann), None)))
        .await
        .expect("a new seated game");
    assert_eq!(
        bounded(store.user_games(ann, 10, 0))
            .await
            .expect("user games")
            .len(),
        1
    );
    assert!(
        bounded(store.ratings(ann))
            .await
            .expect("ratings")
            .is_empty()
    );
    bounded(store.close()).await;
    drop(store);

    // Upgraded in place: same file, the current version, the old rows untouched by raw SQL too.
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), SCHEMA_VERSION);
    let mut after = raw_games(&db);
    assert!(after.remove("new").is_some());
    assert_eq!(after, before);
    // Opening it again is a no-op (no second migration, the user is still there).
    let store = SqliteStore::open(data.path()).expect("reopen");
    assert!(
        bounded(store.find_user(&username("ANN")))
            .await
            .expect("find")
            .is_some()
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_migration_that_fails_half_way_leaves_the_version_2_database_as_it_was() {
    let data = copy_v2_fixture();
    let db = data.path().join(DB);
    // A table in the way of the migration's later statements: `users` is created first, so
    // this makes a later step (sessions) fail after earlier ones ran.
    {
        let conn = rusqlite::Connection::open(&db).expect("raw open");
        conn.execute_batch("CREATE TABLE sessions (x INTEGER)")
            .expect("a table in the way");
    }
    let before = raw_games(&db);
    match SqliteStore::open(data.path()) {
        Err(e) => assert!(e.to_string().contains("version 2 to "), "{e}"),
        Ok(_) => panic!("the migration must fail"),
    }
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), 2);
    assert_eq!(
        raw_i64(
            &db,
            "SELECT count(*) FROM sqlite_schema WHERE name IN ('users', 'ratings', 'rated_games')"
        ),
        0,
        "the steps before the failure were rolled back"
    );
    assert_eq!(
        raw_i64(
            &db,
            "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'white_user'"
        ),
        0
    );
    assert_eq!(raw_games(&db), before);
}
