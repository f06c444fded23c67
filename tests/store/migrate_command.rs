//! `marseillais migrate --from sqlite:DIR --to postgres://...` on the schema fixtures of
//! tests/data/ (versions 1 to 7; v4 to v7 written by the server binary over HTTP/WebSocket),
//! against a real Postgres (scripts/test-services.sh): the copy is verified and equal to its
//! source game by game (and puzzle by puzzle), the store on Postgres carries on from it, and a
//! non-empty target is refused.

use crate::support;

use std::path::Path;
use std::process::Output;

use marseillais::server::chat::ChatRoom;
use marseillais::server::players::account::UserId;
use marseillais::server::store::{GameStatus, PostgresStore, SqliteStore, Store};
use support::postgres::{TestDatabase, server_url};
use support::store_contract::{bounded, chat_line, many_puzzles, round, username};

fn migrate(dir: &Path, url: &str, extra: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_marseillais"))
        .arg("migrate")
        .arg("--from")
        .arg(format!("sqlite:{}", dir.display()))
        .arg("--to")
        .arg(url)
        .args(extra)
        .output()
        .expect("run marseillais migrate")
}

fn fixture_copy(version: u32) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("marseillais-migrate-")
        .tempdir()
        .expect("temp dir");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/data/schema_v{version}/marseillais.sqlite3"));
    std::fs::copy(fixture, dir.path().join("marseillais.sqlite3")).expect("copy the fixture");
    dir
}

/// Every game of a store, listing and events, whatever its status, by id.
async fn every_game(store: &dyn Store) -> Vec<(String, String, Vec<String>)> {
    let mut games = Vec::new();
    for status in [GameStatus::Open, GameStatus::Playing, GameStatus::Finished] {
        for (listing, events) in store
            .load_stale(status, i64::MAX, 10_000, 0)
            .await
            .expect("load")
        {
            games.push((listing.id.clone(), format!("{listing:?}"), events));
        }
    }
    games.sort();
    games
}

#[tokio::test]
async fn every_schema_fixture_is_copied_to_postgres_verified_and_the_same_game_for_game() {
    let Some(server) = server_url("migrate_fixtures") else {
        return;
    };
    for version in (1..=8).chain([10]) {
        let source = fixture_copy(version);
        let db = TestDatabase::create(&server, &format!("migrate_v{version}")).await;
        let out = migrate(source.path(), &db.url, &[]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "v{version}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("verified"), "{stdout}");
        assert!(!stdout.contains("MISMATCH"), "{stdout}");

        let sqlite = SqliteStore::open(source.path()).expect("open the source");
        let postgres = bounded(PostgresStore::open(&db.url))
            .await
            .expect("open the copy");
        let copied = bounded(every_game(&postgres)).await;
        assert!(!copied.is_empty(), "v{version}: no game copied");
        assert_eq!(copied, bounded(every_game(&sqlite)).await, "v{version}");
        assert_eq!(
            bounded(postgres.turn_deadlines())
                .await
                .expect("deadlines")
                .len(),
            bounded(sqlite.turn_deadlines())
                .await
                .expect("deadlines")
                .len()
        );
        bounded(sqlite.close()).await;
        bounded(postgres.close()).await;
    }
}

#[tokio::test]
async fn a_database_written_by_the_server_keeps_its_accounts_ratings_and_chat_and_carries_on() {
    let Some(server) = server_url("migrate_server_db") else {
        return;
    };
    // Schema v4 was written by the server binary over HTTP and WebSocket (tests/data/schema_v4).
    let source = fixture_copy(4);
    let db = TestDatabase::create(&server, "migrate_server_db").await;
    let out = migrate(source.path(), &db.url, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let sqlite = SqliteStore::open(source.path()).expect("open the source");
    let postgres = bounded(PostgresStore::open(&db.url))
        .await
        .expect("open the copy");
    let alice = bounded(postgres.find_user(&username("alice")))
        .await
        .expect("find")
        .expect("alice was copied");
    let in_sqlite = bounded(sqlite.find_user(&username("alice")))
        .await
        .expect("find")
        .expect("alice");
    assert_eq!(alice, in_sqlite);
    let id = alice.account.id;
    assert_eq!(
        bounded(postgres.ratings(id)).await.expect("ratings"),
        bounded(sqlite.ratings(id)).await.expect("ratings")
    );
    assert_eq!(
        bounded(postgres.rating_history(id, None, 10))
            .await
            .expect("history"),
        bounded(sqlite.rating_history(id, None, 10))
            .await
            .expect("history")
    );
    assert_eq!(
        bounded(postgres.user_games(id, 50, 0))
            .await
            .expect("games"),
        bounded(sqlite.user_games(id, 50, 0)).await.expect("games")
    );
    let (game, _) = bounded(postgres.turn_deadlines()).await.expect("deadlines")[0].clone();
    let chat = bounded(postgres.recent_chat(Some(&game), ChatRoom::Player, 50))
        .await
        .expect("chat");
    assert_eq!(
        chat,
        bounded(sqlite.recent_chat(Some(&game), ChatRoom::Player, 50))
            .await
            .expect("chat")
    );
    assert_eq!(chat.len(), 1);

    // New rows get new ids: the identity sequences were moved past the copied ones.
    let carol = bounded(postgres.create_user(username("carol"), "h".to_owned(), 1))
        .await
        .expect("a new user after the copy");
    let most = bounded(postgres.user_by_id(UserId(carol.0 - 1)))
        .await
        .expect("read");
    assert!(
        most.is_some(),
        "carol ({carol:?}) comes right after the copied users"
    );
    let line = bounded(postgres.append_chat(chat_line(Some(&game), ChatRoom::Player, 9, "hi")))
        .await
        .expect("a new chat line after the copy");
    assert!(line > chat[0].id);
    bounded(sqlite.close()).await;
    bounded(postgres.close()).await;
}

#[tokio::test]
async fn puzzles_players_and_rounds_are_copied_verified_and_the_rounds_carry_on() {
    let Some(server) = server_url("migrate_puzzles") else {
        return;
    };
    // The version 7 fixture, upgraded as a server start would, then given puzzles and rounds.
    let source = fixture_copy(7);
    let sqlite = SqliteStore::open(source.path()).expect("open the source");
    let mut rng = support::rng::Rng::new(0x636f_7079);
    bounded(sqlite.import_puzzles(many_puzzles(&mut rng, 1_500)))
        .await
        .expect("import");
    let alice = bounded(sqlite.find_user(&username("alice")))
        .await
        .expect("find")
        .expect("alice")
        .account
        .id;
    for at in 0..20 {
        let next = bounded(sqlite.puzzle_near(Some(alice), Some("fork".into()), 1500))
            .await
            .expect("near")
            .expect("a puzzle");
        bounded(sqlite.record_puzzle_round(round(alice, &next.id, at % 3 != 0, at)))
            .await
            .expect("round");
    }
    bounded(sqlite.close()).await;

    let db = TestDatabase::create(&server, "migrate_puzzles").await;
    let out = migrate(source.path(), &db.url, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for table in [
        "puzzles",
        "puzzle_themes",
        "puzzle_players",
        "puzzle_rounds",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{table} ")))
            .unwrap_or_else(|| panic!("{table} counted: {stdout}"));
        assert!(line.ends_with("ok"), "{line}");
    }

    let sqlite = SqliteStore::open(source.path()).expect("open the source");
    let postgres = bounded(PostgresStore::open(&db.url))
        .await
        .expect("open the copy");
    let all = |store: &dyn Store| store.export_puzzles(None, 10_000);
    assert_eq!(
        bounded(all(&postgres)).await.expect("export"),
        bounded(all(&sqlite)).await.expect("export")
    );
    assert_eq!(
        bounded(postgres.puzzle_themes()).await.expect("themes"),
        bounded(sqlite.puzzle_themes()).await.expect("themes")
    );
    assert_eq!(
        bounded(postgres.puzzle_player(alice))
            .await
            .expect("player"),
        bounded(sqlite.puzzle_player(alice)).await.expect("player")
    );
    assert_eq!(
        bounded(postgres.puzzle_attempts(alice, 100))
            .await
            .expect("history"),
        bounded(sqlite.puzzle_attempts(alice, 100))
            .await
            .expect("history")
    );
    // The same next puzzle on both, which alice then plays on Postgres.
    let near = |store: &dyn Store| store.puzzle_near(Some(alice), Some("fork".into()), 1500);
    let next = bounded(near(&postgres)).await.expect("near");
    assert_eq!(next, bounded(near(&sqlite)).await.expect("near"));
    let next = next.expect("a puzzle");
    let again = bounded(postgres.record_puzzle_round(round(alice, &next.id, true, 99)))
        .await
        .expect("round");
    assert!(matches!(
        again,
        marseillais::server::store::RoundOutcome::Rated { .. }
    ));
    assert_eq!(
        bounded(postgres.puzzle_attempts(alice, 100))
            .await
            .expect("history")
            .len(),
        21
    );
    bounded(sqlite.close()).await;
    bounded(postgres.close()).await;
}

#[tokio::test]
async fn a_target_that_holds_rows_is_refused_and_left_as_it_was() {
    let Some(server) = server_url("migrate_non_empty") else {
        return;
    };
    let source = fixture_copy(3);
    let db = TestDatabase::create(&server, "migrate_non_empty").await;
    assert!(migrate(source.path(), &db.url, &[]).status.success());
    let raw = db.connect().await;
    let count = |table: &'static str| {
        let raw = &raw;
        async move {
            raw.query_one(&format!("SELECT count(*) FROM {table}"), &[])
                .await
                .expect("count")
                .get::<_, i64>(0)
        }
    };
    let events = count("events").await;

    let again = migrate(source.path(), &db.url, &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("not empty"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    // With the flag the same rows collide: the whole copy is rolled back.
    let forced = migrate(source.path(), &db.url, &["--allow-non-empty"]);
    assert_eq!(forced.status.code(), Some(2));
    assert_eq!(count("events").await, events);
}

#[tokio::test]
async fn a_missing_source_or_a_wrong_kind_of_store_is_refused() {
    let empty = tempfile::tempdir().expect("temp dir");
    let out = migrate(empty.path(), "postgres://nobody@127.0.0.1:1/none", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no SQLite database"));
    assert!(
        !empty.path().join("marseillais.sqlite3").exists(),
        "no database created"
    );
    let out = migrate(empty.path(), "sqlite:/elsewhere", &[]);
    assert_eq!(out.status.code(), Some(2));
}
