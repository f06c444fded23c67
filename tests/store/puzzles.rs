//! Puzzles, what is each backend's own (the contract all of them keep is in
//! tests/support/store_contract/puzzles.rs and puzzle_search.rs): the plans of the searches
//! (SQLite's `EXPLAIN QUERY PLAN`, Postgres's `EXPLAIN` of the very statements the stores run:
//! one index range each, no sort, no scan of a whole table), a Postgres database of version 4
//! brought to 5, rounds of one puzzle from two nodes at once, and (ignored: a measuring run)
//! the time of the next puzzle among 100,000.

use crate::support;

use std::sync::Arc;
use std::time::Instant;

use marseillais::server::domain::user::UserId;
use marseillais::server::store::postgres::{
    PUZZLE_ATTEMPTS_SQL as PG_ATTEMPTS, SCHEMA_VERSION as PG_VERSION, migrate_to,
    puzzle_near_sql as pg_near_sql,
};
use marseillais::server::store::sqlite::{
    DB_FILE_NAME, PUZZLE_ATTEMPTS_SQL as SQLITE_ATTEMPTS, puzzle_near_sql as sqlite_near_sql,
};
use marseillais::server::store::{
    GameStatus, PostgresStore, RoundOutcome, SqliteStore, Store, puzzle_rating_key,
};
use support::postgres::{TestDatabase, server_url};
use support::rng::Rng;
use support::store_contract::{bounded, expected_events, many_puzzles, puzzle, puzzle_user, round};

/// A few thousand puzzles stored through `store`, and a player who played the forty nearest
/// 1,500: enough rows that a planner weighing its options picks what it would in production.
async fn stocked(store: &dyn Store) -> UserId {
    let mut rng = Rng::new(0x706c_616e);
    bounded(store.import_puzzles(many_puzzles(&mut rng, 3_000)))
        .await
        .expect("import");
    let ann = puzzle_user(store, "ann").await;
    for at in 0..40 {
        let next = bounded(store.puzzle_near(Some(ann), None, 1500))
            .await
            .expect("near")
            .expect("a puzzle");
        bounded(store.record_puzzle_round(round(ann, &next.id, at % 3 == 0, at)))
            .await
            .expect("round");
    }
    ann
}

/// SQLite's plan of `sql` with `params`, one line per step.
fn sqlite_plan(conn: &rusqlite::Connection, sql: &str, params: impl rusqlite::Params) -> String {
    let mut statement = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .expect("explain");
    let rows = statement
        .query_map(params, |row| row.get::<_, String>(3))
        .expect("plan")
        .collect::<Result<Vec<_>, _>>()
        .expect("plan rows");
    rows.join("\n")
}

/// A plan with no step that reads a whole table or index, or sorts.
fn assert_ranges_only(plan: &str) {
    for step in plan.lines() {
        assert!(!step.starts_with("SCAN"), "a scan:\n{plan}");
        assert!(!step.contains("TEMP B-TREE"), "a sort:\n{plan}");
    }
}

#[tokio::test]
async fn on_sqlite_the_next_puzzle_is_one_index_range_and_a_primary_key_probe_per_played_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(dir.path()).expect("open");
    let ann = stocked(&store).await;
    bounded(store.close()).await;
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE_NAME)).expect("raw open");
    for above in [true, false] {
        let plan = sqlite_plan(&conn, &sqlite_near_sql(false, above), (1500, ann.0));
        assert_ranges_only(&plan);
        assert!(
            plan.contains("SEARCH p USING INDEX puzzles_by_rating (rating_key"),
            "{plan}"
        );
        assert!(
            plan.contains("SEARCH r USING PRIMARY KEY (user_id=? AND puzzle_id=?)"),
            "{plan}"
        );
        let plan = sqlite_plan(&conn, &sqlite_near_sql(true, above), (1500, ann.0, "fork"));
        assert_ranges_only(&plan);
        assert!(
            plan.contains("USING COVERING INDEX puzzle_themes_by_rating (theme=? AND rating_key"),
            "{plan}"
        );
        assert!(plan.contains("SEARCH p USING PRIMARY KEY (id=?)"), "{plan}");
        assert!(plan.contains("SEARCH r USING PRIMARY KEY"), "{plan}");
    }
    let plan = sqlite_plan(&conn, SQLITE_ATTEMPTS, (ann.0, 200));
    assert_ranges_only(&plan);
    assert!(plan.contains("puzzle_rounds_by_time (user_id=?)"), "{plan}");
}

/// Postgres's plan of `sql` with `params`.
async fn pg_plan(
    client: &tokio_postgres::Client,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> String {
    let rows = client
        .query(&format!("EXPLAIN {sql}"), params)
        .await
        .expect("explain");
    rows.iter()
        .map(|row| row.get::<_, String>(0))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Postgres plan that reads `index` as a range under its `LIMIT`, never a whole table, never
/// a sort, never a hash of the player's rounds.
fn assert_one_range(plan: &str, index: &str) {
    assert!(plan.starts_with("Limit"), "{plan}");
    let using = format!("using {index}");
    assert!(
        plan.lines()
            .any(|step| step.contains("Index") && step.contains(&using)),
        "{plan}"
    );
    for absent in ["Seq Scan", "Sort", "Hash", "Bitmap"] {
        assert!(!plan.contains(absent), "{absent}:\n{plan}");
    }
}

#[tokio::test]
async fn on_postgres_the_next_puzzle_is_one_index_range_and_no_sort() {
    let Some(server) = server_url("puzzle_plans") else {
        return;
    };
    let db = TestDatabase::create(&server, "puzzle_plans").await;
    let store = bounded(PostgresStore::open(&db.url)).await.expect("open");
    let ann = stocked(&store).await;
    let raw = db.connect().await;
    // Other players' rounds, as a site has them: 500 players of 20 rounds each, so that the
    // planner weighs a table of rounds, not the 40 of one player.
    raw.batch_execute(
        "INSERT INTO users (username, username_key, password_hash, created_ms)
             SELECT 'u' || n, 'u' || n, 'hash', 1 FROM generate_series(1, 500) AS n;
         INSERT INTO puzzle_rounds (user_id, puzzle_id, solved, at_ms, rating_after)
             SELECT u.id, p.id, TRUE, 1000, 1500.0 FROM users u
             CROSS JOIN (SELECT id FROM puzzles ORDER BY id LIMIT 20) AS p
             WHERE u.username LIKE 'u%';
         ANALYZE",
    )
    .await
    .expect("other players' rounds");
    let target = 1500_i64;
    for above in [true, false] {
        let plan = pg_plan(&raw, &pg_near_sql(false, above, true), &[&target, &ann.0]).await;
        assert_one_range(&plan, "puzzles_by_rating");
        assert!(plan.contains("puzzle_rounds_pkey"), "{plan}");
        let plan = pg_plan(&raw, &pg_near_sql(false, above, false), &[&target]).await;
        assert_one_range(&plan, "puzzles_by_rating");
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] = [&target, &ann.0, &"fork"];
        let plan = pg_plan(&raw, &pg_near_sql(true, above, true), &params).await;
        assert_one_range(&plan, "puzzle_themes_by_rating");
        assert!(plan.contains("puzzles_pkey"), "{plan}");
        assert!(plan.contains("puzzle_rounds_pkey"), "{plan}");
        let plan = pg_plan(&raw, &pg_near_sql(true, above, false), &[&target, &"fork"]).await;
        assert_one_range(&plan, "puzzle_themes_by_rating");
    }
    // A profile's history: the player's rounds by their index (how they are joined to their
    // puzzles and sorted is the planner's choice for a few dozen rounds).
    let plan = pg_plan(&raw, PG_ATTEMPTS, &[&ann.0, &200_i64]).await;
    assert!(plan.contains("on puzzle_rounds_by_time"), "{plan}");
    assert!(!plan.contains("Seq Scan on puzzle_rounds"), "{plan}");
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_postgres_version_4_database_gains_the_puzzle_tables_and_keeps_its_games() {
    let Some(server) = server_url("migrate_v4") else {
        return;
    };
    let db = TestDatabase::create(&server, "migrate_v4").await;
    // The database as the previous program left it: schema version 4, one game in it.
    let mut raw = db.connect().await;
    migrate_to(&mut raw, 4)
        .await
        .expect("build schema version 4");
    raw.batch_execute(
        r#"INSERT INTO games (id, status, created_ms, updated_ms, summary, listed)
               VALUES ('old', 'finished', 1000, 2000, '{"id":"old"}', TRUE);
           INSERT INTO events (game_id, seq, payload) VALUES
               ('old', 0, '{"t":"move","game":"old","v":0}');"#,
    )
    .await
    .expect("a game of version 4");
    let store = bounded(PostgresStore::open(&db.url))
        .await
        .expect("open migrates");
    let version: i32 = raw
        .query_one("SELECT version FROM schema_version", &[])
        .await
        .expect("version")
        .get(0);
    assert_eq!(version, PG_VERSION);
    let (listing, events) = bounded(store.load_game("old"))
        .await
        .expect("load")
        .expect("the old game is there");
    assert_eq!(listing.status, GameStatus::Finished);
    assert_eq!(events, expected_events("old", 1));
    let ann = puzzle_user(&store, "ann").await;
    bounded(store.import_puzzles(vec![puzzle("p", 1500.0, &["fork"])]))
        .await
        .expect("import");
    let outcome = bounded(store.record_puzzle_round(round(ann, "p", true, 1)))
        .await
        .expect("round");
    assert!(matches!(outcome, RoundOutcome::Rated { .. }));
    bounded(store.close()).await;
}

#[tokio::test]
async fn rounds_of_one_puzzle_from_two_nodes_at_once_all_count() {
    const ROUNDS: usize = 10;
    let Some(server) = server_url("puzzle_two_nodes") else {
        return;
    };
    let db = TestDatabase::create(&server, "puzzle_two_nodes").await;
    let nodes: [Arc<dyn Store>; 2] = [
        Arc::new(bounded(PostgresStore::open(&db.url)).await.expect("node a")),
        Arc::new(bounded(PostgresStore::open(&db.url)).await.expect("node b")),
    ];
    bounded(nodes[0].import_puzzles(vec![puzzle("hot", 1500.0, &["fork"])]))
        .await
        .expect("import");
    let mut users = Vec::new();
    for i in 0..ROUNDS {
        users.push(puzzle_user(nodes[0].as_ref(), &format!("p{i}")).await);
    }
    // Each player twice, once on each node: one round each.
    let tries = users.iter().enumerate().flat_map(|(i, user)| {
        nodes.iter().map(move |node| {
            let node = Arc::clone(node);
            let round = round(*user, "hot", i % 2 == 0, 5);
            tokio::spawn(async move { node.record_puzzle_round(round).await })
        })
    });
    let outcomes = bounded(futures_util::future::join_all(tries)).await;
    let mut seen = Vec::new();
    for outcome in outcomes {
        if let RoundOutcome::Rated { puzzle_before, .. } = outcome.expect("task").expect("round") {
            seen.push(puzzle_before.games);
        }
    }
    seen.sort_unstable();
    let expected: Vec<u32> = (10..10 + ROUNDS as u32).collect();
    assert_eq!(
        seen, expected,
        "one round per player, each after the one before"
    );
    let hot = bounded(nodes[1].puzzle("hot"))
        .await
        .expect("read")
        .expect("there");
    assert_eq!(hot.rating.games, 10 + ROUNDS as u32);
    assert_eq!(hot.plays, 12 + ROUNDS as u32);
    for node in nodes {
        bounded(node.close()).await;
    }
}

// ---------------------------------------------------------------------------------------------
// The figures of the next puzzle among 100,000 (docs: the puzzles' bench is the lead's; these
// are the store's share of it).

/// Imports 100,000 puzzles, lets a player play 500 rounds near 1,500, then times 2,000 searches
/// of every kind (around the player's rating, with a theme or none); prints the import's time
/// and the searches' median, 99th percentile and worst.
async fn next_puzzle_figures(label: &str, store: &dyn Store) {
    let mut rng = Rng::new(0x6669_6775);
    let puzzles = many_puzzles(&mut rng, 100_000);
    let started = Instant::now();
    bounded(store.import_puzzles(puzzles))
        .await
        .expect("import");
    let import = started.elapsed();
    let ann = puzzle_user(store, "ann").await;
    for at in 0..500 {
        let next = bounded(store.puzzle_near(Some(ann), None, 1500))
            .await
            .expect("near")
            .expect("a puzzle");
        bounded(store.record_puzzle_round(round(ann, &next.id, at % 2 == 0, at)))
            .await
            .expect("round");
    }
    let themes = [None, Some("fork"), Some("promotion")];
    let mut times = Vec::with_capacity(2_000);
    for i in 0..2_000 {
        let target = 1_400 + rng.below(200) as i32;
        let theme = themes[i % themes.len()].map(str::to_owned);
        let started = Instant::now();
        let found = store
            .puzzle_near(Some(ann), theme, target)
            .await
            .expect("near")
            .expect("a puzzle");
        times.push(started.elapsed());
        assert!(puzzle_rating_key(found.rating.rating) >= i64::from(target));
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    // The theme counts and the count read every row of an index: timed for the lead's cache.
    let started = Instant::now();
    let themes = bounded(store.puzzle_themes()).await.expect("themes");
    let counting = started.elapsed();
    let started = Instant::now();
    let count = bounded(store.puzzle_count()).await.expect("count");
    let total = started.elapsed();
    assert_eq!((themes.len(), count), (4, 100_000));
    println!(
        "puzzles on {label}: import of 100,000 in {import:?}; next puzzle (a player with 500 \
         rounds near it): median {:?}, p99 {:?}, max {:?}; theme counts {counting:?}, count \
         {total:?}",
        at(0.5),
        at(0.99),
        times[times.len() - 1]
    );
}

#[tokio::test]
#[ignore = "a measuring run (100,000 puzzles): the next puzzle's figures on SQLite"]
async fn the_next_puzzle_among_100_000_on_sqlite() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(dir.path()).expect("open");
    next_puzzle_figures("SQLite", &store).await;
    bounded(store.close()).await;
}

#[tokio::test]
#[ignore = "a measuring run (100,000 puzzles): the next puzzle's figures on PostgreSQL"]
async fn the_next_puzzle_among_100_000_on_postgres() {
    let Some(server) = server_url("puzzle_figures") else {
        return;
    };
    let db = TestDatabase::create(&server, "puzzle_figures").await;
    let store = bounded(PostgresStore::open(&db.url)).await.expect("open");
    next_puzzle_figures("PostgreSQL", &store).await;
    bounded(store.close()).await;
}
