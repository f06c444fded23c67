//! A database written by an earlier server (schema version 2,
//! `tests/data/schema_v2/`) is served unchanged: every game replays, and the
//! snapshots (`GET /api/games/{id}`), PGN exports and listings are exactly the
//! texts that server served (`served.txt`), normalized only for live clock
//! readings (`tests/support/golden.rs`, `Mode::Stored`); the game in progress can
//! be continued, and the rematch seats derived from the old tokens still open
//! the rematch.
//!
//! The database is a guard, not an output: it was written once, by the
//! generator below, and must not be rewritten by later code (a regenerated
//! fixture proves nothing about old databases). To write it again from the
//! current server, on purpose (e.g. for a schema version 3 fixture, in a new
//! directory):
//! `MARSEILLAIS_FIXTURE_V2_GENERATE=1 cargo test --release --test system store::fixture_v2::generate`.
//! That writes `marseillais.sqlite3`, `tokens.json` (the seat tokens of the
//! fixture's games: test data, needed to continue a game) and `served.txt`.
//! `MARSEILLAIS_BLESS=1` rewrites only `served.txt`, from the committed
//! database (for an intended wire change).

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use support::game::{play_both_first_turns, play_until_white_mates_in_one};
use support::golden::{self, Mode, Normalizer};
use support::rig::Rig;
use support::s;
use support::ws::Client;

/// Set to `1` to write the fixture again (see the module documentation).
const GENERATE_ENV: &str = "MARSEILLAIS_FIXTURE_V2_GENERATE";
const DB: &str = "marseillais.sqlite3";

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema_v2")
}

/// The fixture's games, in the order `served.txt` shows them.
const GAMES: &[&str] = &[
    "checkmate",
    "resigned",
    "rematch",
    "agreement",
    "aborted",
    "clocked_mid_turn",
    "open",
    "unlisted",
    "takebacks",
];

/// A server on `data`, with time-to-lives and timers long enough that the
/// fixture's old games neither expire at start nor during the test.
async fn server_on(data: &Path) -> Rig {
    let data = data.to_owned();
    let century = Duration::from_secs(3600 * 24 * 365 * 100);
    Rig::start_with(move |c| {
        c.data_dir = data;
        c.open_game_ttl = century;
        c.idle_game_ttl = century;
        c.first_move = Duration::from_secs(3600);
        c.disconnect_grace = Duration::from_secs(3600);
    })
    .await
}

/// What the server serves for the fixture's games, as one text.
async fn served(server: &Rig, tokens: &Value) -> String {
    let mut norm = Normalizer::new(Mode::Stored);
    let mut out = String::new();
    for name in GAMES {
        let id = s(&tokens[name]["id"]);
        out.push_str(&format!("# {name}\n"));
        for path in [format!("/api/games/{id}"), format!("/game/{id}.pgn")] {
            let (status, text) = server.http("GET", &path, None).await;
            assert_eq!(status, 200, "{name}: GET {path}: {text}");
            let shown = if text.starts_with('{') {
                norm.json(&text)
            } else {
                norm.text(&text)
            };
            out.push_str(&format!("GET {path}\n-> {status} {shown}\n"));
        }
    }
    out.push_str("# listings\n");
    for status in ["open", "playing", "finished"] {
        let path = format!("/api/games?status={status}&limit=100");
        let (code, text) = server.http("GET", &path, None).await;
        assert_eq!(code, 200, "{path}: {text}");
        out.push_str(&format!("GET {path}\n-> {code} {}\n", norm.json(&text)));
    }
    out
}

fn read_tokens() -> Value {
    let text = std::fs::read_to_string(fixture_dir().join("tokens.json")).expect("tokens.json");
    serde_json::from_str(&text).expect("tokens.json is JSON")
}

/// A copy of the fixture database in a fresh data directory.
fn copy_fixture() -> tempfile::TempDir {
    let data = tempfile::tempdir().expect("temp dir");
    std::fs::copy(fixture_dir().join(DB), data.path().join(DB)).expect("copy the fixture");
    data
}

fn raw_count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    conn.query_row(sql, [], |row| row.get(0)).expect("query")
}

#[tokio::test]
async fn a_database_of_schema_version_2_serves_every_game_byte_for_byte_and_plays_on() {
    if std::env::var(GENERATE_ENV).is_ok_and(|v| v == "1") {
        // The generator writes the fixture; comparing with what it just wrote
        // would prove nothing.
        return;
    }
    let tokens = read_tokens();
    let data = copy_fixture();
    let db = data.path().join(DB);
    assert_eq!(raw_count(&db, "PRAGMA user_version"), 2);
    assert_eq!(
        raw_count(&db, "SELECT count(*) FROM games"),
        GAMES.len() as i64
    );

    let mut server = server_on(data.path()).await;
    let first = served(&server, &tokens).await;
    golden::check(&fixture_dir(), "served.txt", &first);
    // Again after a restart on the database this server has opened.
    server.restart().await;
    assert_eq!(served(&server, &tokens).await, first);

    // The game in progress plays on: White's second sub-move of turn 2.
    let game = &tokens["clocked_mid_turn"];
    let id = s(&game["id"]);
    let mut white = server.seat(&id, &s(&game["white"])).await;
    assert_eq!(white.recv_type("state").await.d["you"], "white");
    let event = white.play("g1f3", "fixture-w1").await;
    assert_eq!(event.d["san"], "Nf3");
    assert_eq!(event.d["turn"], "black");
    assert!(server.pgn(&id).await.contains("1. e4 e5,Nf6 2. d4,Nf3 *"));
    // Stored as today's code stores a sub-move (only the time and clocks vary).
    let conn = rusqlite::Connection::open(&db).expect("raw open");
    let (seq, payload): (i64, String) = conn
        .query_row(
            "SELECT seq, payload FROM events WHERE game_id = ?1 ORDER BY seq DESC LIMIT 1",
            [&id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .expect("the new event");
    drop(conn);
    assert_eq!(seq, 6);
    assert_eq!(
        Normalizer::new(Mode::Wire).json(&payload),
        r#"{"k":"move","at_ms":<ms>,"uci":"g1f3","ack":"fixture-w1","clock":[<clock>,<clock>]}"#
    );

    // The old Black of the resigned game gets its rematch seat again (derived
    // from its old token), and that token holds the rematch's White seat.
    let old = &tokens["resigned"];
    let mut black = server.seat(&s(&old["id"]), &s(&old["black"])).await;
    let seat = black.recv_type("rematch_seat").await;
    let rematch = &tokens["rematch"];
    assert_eq!(seat.d["id"], rematch["id"]);
    assert_eq!(seat.d["color"], "white");
    assert_eq!(seat.d["token"], rematch["white"]);
    let mut new_white = server.seat(&s(&rematch["id"]), &s(&rematch["white"])).await;
    assert_eq!(new_white.recv_type("state").await.d["you"], "white");
    server.stop().await;
}

// ---------------------------------------------------------------------------------------------
// The generator: plays the fixture's games on this server and writes tests/data/schema_v2/.

/// A pause between games, so that no two share a last-activity millisecond
/// (listings order by it, ties by the random id).
async fn pause() {
    tokio::time::sleep(Duration::from_millis(5)).await;
}

async fn both_end(white: &mut Client, black: &mut Client) {
    white.recv_type("end").await;
    black.recv_type("end").await;
}

#[tokio::test]
async fn generate() {
    if !std::env::var(GENERATE_ENV).is_ok_and(|v| v == "1") {
        return;
    }
    let data = tempfile::tempdir().expect("temp dir");
    let server = server_on(data.path()).await;
    let mut tokens = serde_json::Map::new();
    let mut keep = |name: &str, id: &str, white: &str, black: &str| {
        tokens.insert(
            name.to_string(),
            json!({"id": id, "white": white, "black": black}),
        );
    };

    // Finished by checkmate: 1. e4 f6,g5 2. Qh5#.
    let (id, wt, bt) = server.game_between_two(json!({})).await;
    let (mut w, mut b) = (server.seat(&id, &wt).await, server.seat(&id, &bt).await);
    play_until_white_mates_in_one(&mut w, &mut b).await;
    w.play("d1h5", "w2").await;
    both_end(&mut w, &mut b).await;
    keep("checkmate", &id, &wt, &bt);
    pause().await;

    // Marseillais variant, 1. e4,d4 d5,Nf6, Black resigns; a rematch (colours
    // swapped, seats derived from the old tokens) where White plays 1. e4,d4.
    let (id, wt, bt) = server
        .game_between_two(json!({"variant": "marseillais"}))
        .await;
    let (mut w, mut b) = (server.seat(&id, &wt).await, server.seat(&id, &bt).await);
    w.play("e2e4", "w1").await;
    w.play("d2d4", "w2").await;
    b.play("d7d5", "b1").await;
    b.play("g8f6", "b2").await;
    b.send(json!({"t": "resign"})).await;
    both_end(&mut w, &mut b).await;
    w.send(json!({"t": "rematch_offer"})).await;
    w.recv_type("rematch_offer").await;
    b.send(json!({"t": "rematch_accept"})).await;
    let w_seat = w.recv_type("rematch_seat").await;
    let b_seat = b.recv_type("rematch_seat").await;
    keep("resigned", &id, &wt, &bt);
    let rid = w_seat.str("id");
    let (rw, rb) = (b_seat.str("token"), w_seat.str("token"));
    assert_eq!(b_seat.d["color"], "white");
    let mut nw = server.seat(&rid, &rw).await;
    nw.recv_type("state").await;
    nw.play("e2e4", "w1").await;
    nw.play("d2d4", "w2").await;
    keep("rematch", &rid, &rw, &rb);
    pause().await;

    // Drawn by agreement: 1. e4 e5,Nc6, White offers, Black accepts.
    let (id, wt, bt) = server.game_between_two(json!({})).await;
    let (mut w, mut b) = (server.seat(&id, &wt).await, server.seat(&id, &bt).await);
    w.play("e2e4", "w1").await;
    b.play("e7e5", "b1").await;
    b.play("b8c6", "b2").await;
    w.send(json!({"t": "draw_offer"})).await;
    b.recv_type("draw_offer").await;
    b.send(json!({"t": "draw_accept"})).await;
    both_end(&mut w, &mut b).await;
    keep("agreement", &id, &wt, &bt);
    pause().await;

    // Aborted: clocked, joined, 1. e4, then White aborts.
    let (id, wt, bt) = server
        .game_between_two(json!({"clock": {"base_secs": 60, "increment_secs": 1}}))
        .await;
    let (mut w, mut b) = (server.seat(&id, &wt).await, server.seat(&id, &bt).await);
    w.play("e2e4", "w1").await;
    w.send(json!({"t": "abort"})).await;
    both_end(&mut w, &mut b).await;
    keep("aborted", &id, &wt, &bt);
    pause().await;

    // In progress, clocked 300+2, mid-turn after S1: 1. e4 e5,Nf6 2. d4.
    let (id, wt, bt) = server
        .game_between_two(json!({"clock": {"base_secs": 300, "increment_secs": 2}}))
        .await;
    let (mut w, mut b) = (server.seat(&id, &wt).await, server.seat(&id, &bt).await);
    play_both_first_turns(&mut w, &mut b).await;
    w.play("d2d4", "w2").await;
    keep("clocked_mid_turn", &id, &wt, &bt);
    pause().await;

    // Open (listed, clocked 600+0): nobody joined.
    let (id, token, color) = server
        .create(json!({"color": "white", "clock": {"base_secs": 600, "increment_secs": 0}}))
        .await;
    assert_eq!(color, "white");
    keep("open", &id, &token, "");
    pause().await;

    // Unlisted, playing: 1. e4.
    let (id, wt, bt) = server.game_between_two(json!({"listed": false})).await;
    let mut w = server.seat(&id, &wt).await;
    w.play("e2e4", "w1").await;
    keep("unlisted", &id, &wt, &bt);
    pause().await;

    // Takebacks: 1. e4 e5 (taken back) d5,Nc6 2. Nf3 (taken back) d4,c4,
    // then a draw offer by Black left standing.
    let (id, wt, bt) = server.game_between_two(json!({})).await;
    let (mut w, mut b) = (server.seat(&id, &wt).await, server.seat(&id, &bt).await);
    w.play("e2e4", "w1").await;
    b.play("e7e5", "b1").await;
    b.send(json!({"t": "takeback_submove"})).await;
    w.recv_type("takeback").await;
    b.recv_type("takeback").await;
    b.play("d7d5", "b2").await;
    b.play("b8c6", "b3").await;
    w.play("g1f3", "w2").await;
    w.send(json!({"t": "takeback_submove"})).await;
    w.recv_type("takeback").await;
    w.play("d2d4", "w3").await;
    w.play("c2c4", "w4").await;
    b.send(json!({"t": "draw_offer"})).await;
    b.recv_type("draw_offer").await;
    keep("takebacks", &id, &wt, &bt);

    // Shutdown folds the write-ahead log into the database file.
    server.stop().await;
    let dir = fixture_dir();
    std::fs::create_dir_all(&dir).expect("fixture dir");
    let wal = data.path().join(format!("{DB}-wal"));
    assert!(
        std::fs::metadata(&wal).map_or(true, |m| m.len() == 0),
        "{} not folded into the database at shutdown",
        wal.display()
    );
    std::fs::copy(data.path().join(DB), dir.join(DB)).expect("write the fixture database");
    let tokens = Value::Object(tokens);
    let text = serde_json::to_string_pretty(&tokens).expect("json") + "\n";
    std::fs::write(dir.join("tokens.json"), text).expect("write tokens.json");

    // What this server serves from a copy of what it wrote.
    let copy = copy_fixture();
    let server = server_on(copy.path()).await;
    let text = served(&server, &tokens).await;
    std::fs::write(dir.join("served.txt"), text).expect("write served.txt");
    server.stop().await;
}
