//! The wire, byte for byte: scripted games on the real server whose every
//! WebSocket text frame and HTTP reply body is recorded, normalized only for
//! values that cannot repeat (game ids, tokens, timestamps, clock readings:
//! see `tests/support/golden.rs`), and compared with
//! `tests/data/golden/*.txt`, so that a rewrite of the server core keeps the
//! exact bytes (key order included) of every server -> client message type.
//!
//! Each transcript line is one of
//! - `NAME >> TEXT`: what a client sent;
//! - `NAME << TEXT`: a text frame that client received, in order;
//! - `NAME connects PATH`: a WebSocket opened (tokens shown as `<token>`);
//! - `HTTP METHOD PATH [BODY]` then `-> STATUS BODY`;
//! - after `# stored events`: `GAME SEQ PAYLOAD`, every event the store holds
//!   for the scenario's games (read from the database file), so that the
//!   stored bytes are pinned too.
//!
//! Every step waits for exactly the frames it causes on every connected
//! client before the next step, so the transcript does not depend on timing.
//! To rewrite the golden files from the current server (for an intended wire
//! change only): `MARSEILLAIS_BLESS=1 cargo test --release --test system server::wire_golden::`.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use support::golden::{self, Mode, Normalizer};
use support::rig::Rig;
use support::ws::Client;
use support::{WAIT, s};

/// Every server -> client message type (docs/protocol.md 3).
const SERVER_TYPES: &[&str] = &[
    "state",
    "join",
    "move",
    "takeback",
    "draw_offer",
    "draw_decline",
    "rematch_offer",
    "rematch",
    "end",
    "ack",
    "error",
    "presence",
    "pong",
    "rematch_seat",
];

/// The scenarios, each one golden file.
const SCENARIOS: &[&str] = &[
    "untimed_mate_and_rematch",
    "clocked_check_takeback_reconnect_resign",
    "draws_aborts_and_listings",
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// One connected WebSocket client under a name.
struct Peer {
    name: &'static str,
    client: Client,
}

/// A scenario in progress: the server and the transcript.
struct Script {
    server: Rig,
    norm: Normalizer,
    out: String,
    /// Server -> client message types received.
    seen: BTreeSet<String>,
}

impl Script {
    async fn start() -> Script {
        // Generous first-move and disconnect timers: a slow step on a loaded
        // machine must not abort a game and change the transcript.
        let server = Rig::start_with(|c| {
            c.first_move = Duration::from_secs(3600);
            c.disconnect_grace = Duration::from_secs(3600);
        })
        .await;
        Script {
            server,
            norm: Normalizer::new(Mode::Wire),
            out: String::new(),
            seen: BTreeSet::new(),
        }
    }

    fn note(&mut self, text: &str) {
        self.out.push_str("# ");
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// An HTTP request and its reply, recorded; returns (status, raw body).
    async fn http(&mut self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        let (status, text) = self.server.http(method, path, body).await;
        let shown_path = self.norm.text(path);
        self.out.push_str(&format!("HTTP {method} {shown_path}"));
        if let Some(body) = body {
            let body = self.norm.json(body);
            self.out.push_str(&format!(" {body}"));
        }
        let shown = if text.starts_with('{') {
            self.norm.json(&text)
        } else {
            self.norm.text(&text)
        };
        self.out.push_str(&format!("\n-> {status} {shown}\n"));
        (status, text)
    }

    /// Creates a game; returns (id, token).
    async fn create(&mut self, body: Value) -> (String, String) {
        let (status, text) = self
            .http("POST", "/api/games", Some(&body.to_string()))
            .await;
        assert_eq!(status, 201, "{text}");
        let v: Value = serde_json::from_str(&text).expect("json");
        (s(&v["id"]), s(&v["token"]))
    }

    async fn join(&mut self, id: &str) -> String {
        let (status, text) = self
            .http("POST", &format!("/api/games/{id}/join"), None)
            .await;
        assert_eq!(status, 200, "{text}");
        let v: Value = serde_json::from_str(&text).expect("json");
        s(&v["token"])
    }

    /// Opens a WebSocket; `query` holds the real token, recorded normalized.
    async fn connect(
        &mut self,
        name: &'static str,
        id: &str,
        token: Option<&str>,
        v: Option<u64>,
    ) -> Peer {
        let mut query = Vec::new();
        let mut shown = Vec::new();
        if let Some(token) = token {
            query.push(format!("token={token}"));
            shown.push("token=<token>".to_string());
        }
        if let Some(v) = v {
            query.push(format!("v={v}"));
            shown.push(format!("v={v}"));
        }
        let game = self.norm.game(id);
        let shown = if shown.is_empty() {
            String::new()
        } else {
            format!("?{}", shown.join("&"))
        };
        self.out
            .push_str(&format!("{name} connects /ws/game/{game}{shown}\n"));
        let client = self.server.connect(id, &query.join("&")).await;
        Peer { name, client }
    }

    async fn send(&mut self, peer: &mut Peer, msg: Value) {
        self.send_text(peer, &msg.to_string()).await;
    }

    async fn send_text(&mut self, peer: &mut Peer, text: &str) {
        let shown = self.norm.json(text);
        self.out.push_str(&format!("{} >> {shown}\n", peer.name));
        peer.client.send_text(text).await;
    }

    /// Receives exactly `n` text frames on `peer`, recorded; returns them raw.
    async fn recv(&mut self, peer: &mut Peer, n: usize) -> Vec<String> {
        let mut got = Vec::new();
        for _ in 0..n {
            let text = peer.client.recv_text(WAIT).await.unwrap_or_else(|| {
                panic!(
                    "{}: no frame in time after:\n{}",
                    peer.name,
                    tail(&self.out)
                )
            });
            let v: Value = serde_json::from_str(&text).expect("server sends JSON");
            self.seen.insert(s(&v["t"]));
            let shown = self.norm.json(&text);
            self.out.push_str(&format!("{} << {shown}\n", peer.name));
            got.push(text);
        }
        got
    }

    /// Closes a client's socket (a clean close) and forgets it.
    async fn close(&mut self, mut peer: Peer) {
        self.out.push_str(&format!("{} closes\n", peer.name));
        peer.client.close().await;
        // Drain to the server's close reply, bounded.
        peer.client.ended(WAIT).await;
    }

    /// Appends every stored event of every game of the scenario, in order:
    /// the bytes the store holds must not change either.
    fn stored_events(&mut self) {
        let db = self.server.config.data_dir.join("marseillais.sqlite3");
        let conn = rusqlite::Connection::open(&db).expect("open the database");
        self.out.push_str("# stored events\n");
        for id in self.norm.ids() {
            let mut stmt = conn
                .prepare("SELECT seq, payload FROM events WHERE game_id = ?1 ORDER BY seq")
                .expect("prepare");
            let rows: Vec<(i64, String)> = stmt
                .query_map([&id], |row| Ok((row.get(0)?, row.get(1)?)))
                .expect("query")
                .collect::<Result<_, _>>()
                .expect("rows");
            let game = self.norm.game(&id);
            for (seq, payload) in rows {
                let shown = self.norm.json(&payload);
                self.out.push_str(&format!("{game} {seq} {shown}\n"));
            }
        }
    }

    async fn finish(mut self, name: &str) -> BTreeSet<String> {
        self.stored_events();
        golden::check(&golden_dir(), &format!("{name}.txt"), &self.out);
        self.server.stop().await;
        self.seen
    }
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

fn mv(uci: &str, id: &str) -> Value {
    json!({"t": "move", "d": {"uci": uci, "id": id}})
}

fn mv_at(uci: &str, id: &str, v: u64) -> Value {
    json!({"t": "move", "d": {"uci": uci, "id": id, "v": v}})
}

fn bare(t: &str) -> Value {
    json!({"t": t})
}

/// The `v` of a raw message.
fn version(text: &str) -> u64 {
    let v: Value = serde_json::from_str(text).expect("json");
    v["v"].as_u64().expect("a versioned message")
}

/// A sub-move by `mover`: its ack and move, and the move on every other peer.
async fn play(script: &mut Script, mover: &mut Peer, others: &mut [&mut Peer], msg: Value) -> u64 {
    script.send(mover, msg).await;
    let got = script.recv(mover, 2).await;
    for other in others.iter_mut() {
        script.recv(other, 1).await;
    }
    version(&got[1])
}

/// Untimed: an open game a player watches, the join, a spectator, the mate
/// (`move` then `end`), the snapshot and PGN of a finished game, a rematch
/// offered and accepted (`rematch`, `rematch_seat`), the new seat taken with
/// its derived token, and a hello on the old game that gets the seat again.
async fn untimed_mate_and_rematch() -> BTreeSet<String> {
    let mut sc = Script::start().await;
    sc.note("untimed game; White connects while it is open");
    let (id, white_token) = sc.create(json!({"color": "white"})).await;
    let mut white = sc.connect("white", &id, Some(&white_token), None).await;
    sc.recv(&mut white, 2).await;
    sc.http("GET", &format!("/api/games/{id}"), None).await;
    let black_token = sc.join(&id).await;
    sc.recv(&mut white, 1).await;
    let mut black = sc.connect("black", &id, Some(&black_token), None).await;
    sc.recv(&mut black, 2).await;
    sc.recv(&mut white, 1).await;
    sc.note("a spectator: its own presence at once, everyone's coalesced one later");
    let mut spec = sc.connect("spec", &id, None, None).await;
    sc.recv(&mut spec, 2).await;
    sc.recv(&mut white, 1).await;
    sc.recv(&mut black, 1).await;
    sc.recv(&mut spec, 1).await;

    sc.note("1. e4 f6,g5 2. Qh5#");
    play(
        &mut sc,
        &mut white,
        &mut [&mut black, &mut spec],
        mv_at("e2e4", "w1", 1),
    )
    .await;
    play(
        &mut sc,
        &mut black,
        &mut [&mut white, &mut spec],
        mv("f7f6", "b1"),
    )
    .await;
    play(
        &mut sc,
        &mut black,
        &mut [&mut white, &mut spec],
        mv("g7g5", "b2"),
    )
    .await;
    sc.send(&mut white, mv("d1h5", "w2")).await;
    sc.recv(&mut white, 3).await;
    sc.recv(&mut black, 2).await;
    sc.recv(&mut spec, 2).await;
    sc.http("GET", &format!("/api/games/{id}"), None).await;
    sc.http("GET", &format!("/game/{id}.pgn"), None).await;

    sc.note("a spectator cannot offer a rematch; White offers, Black accepts");
    sc.send(&mut spec, bare("rematch_offer")).await;
    sc.recv(&mut spec, 1).await;
    sc.send(&mut white, bare("rematch_offer")).await;
    sc.recv(&mut white, 1).await;
    sc.recv(&mut black, 1).await;
    sc.recv(&mut spec, 1).await;
    sc.send(&mut black, bare("rematch_accept")).await;
    let white_got = sc.recv(&mut white, 2).await;
    let black_got = sc.recv(&mut black, 2).await;
    sc.recv(&mut spec, 1).await;
    let seat_of = |got: &[String]| -> (String, String) {
        let seat = got
            .iter()
            .map(|t| serde_json::from_str::<Value>(t).expect("json"))
            .find(|v| v["t"] == "rematch_seat")
            .expect("a rematch_seat");
        (s(&seat["d"]["id"]), s(&seat["d"]["token"]))
    };
    let (rematch, white_new) = seat_of(&white_got);
    let (_, black_new) = seat_of(&black_got);
    sc.http("GET", &format!("/api/games/{id}"), None).await;

    sc.note("the old White takes its seat (Black) in the rematch with the derived token");
    let mut white2 = sc.connect("white2", &rematch, Some(&white_new), None).await;
    sc.recv(&mut white2, 2).await;
    sc.note("the old Black says hello again on the finished game: its seat again, then presence");
    let v = version(
        white_got
            .iter()
            .find(|t| t.contains("\"rematch\""))
            .expect("rematch"),
    );
    sc.send(
        &mut black,
        json!({"t": "hello", "d": {"token": black_token, "v": v}}),
    )
    .await;
    sc.recv(&mut black, 2).await;
    let mut black2 = sc.connect("black2", &rematch, Some(&black_new), None).await;
    sc.recv(&mut black2, 2).await;
    sc.recv(&mut white2, 1).await;
    sc.http("GET", &format!("/api/games/{rematch}"), None).await;
    sc.http("GET", "/api/games?status=playing", None).await;
    sc.http("GET", "/api/games?status=finished", None).await;
    sc.http("GET", &format!("/game/{rematch}.pgn"), None).await;
    sc.finish("untimed_mate_and_rematch").await
}

/// Clocked (600+5): a takeback, a check on S1 that ends the turn, refusals
/// (with and without `id`), `pong`, a disconnect and a reconnect with `v`
/// that gets the missed events, a draw offer declined, a resignation.
async fn clocked_check_takeback_reconnect_resign() -> BTreeSet<String> {
    let mut sc = Script::start().await;
    sc.note("clocked 600+5; both seats taken before anyone connects");
    let (id, white_token) = sc
        .create(json!({"color": "white", "clock": {"base_secs": 600, "increment_secs": 5}}))
        .await;
    let black_token = sc.join(&id).await;
    let mut white = sc.connect("white", &id, Some(&white_token), None).await;
    sc.recv(&mut white, 2).await;
    let mut black = sc.connect("black", &id, Some(&black_token), None).await;
    sc.recv(&mut black, 2).await;
    sc.recv(&mut white, 1).await;

    sc.note("1. e4 d6 (taken back) d6,h6 2. Bb5+ (check on S1 ends the turn) c6,Nf6");
    play(&mut sc, &mut white, &mut [&mut black], mv("e2e4", "w1")).await;
    play(&mut sc, &mut black, &mut [&mut white], mv("d7d6", "b1")).await;
    sc.send(&mut black, bare("takeback_submove")).await;
    sc.recv(&mut black, 1).await;
    sc.recv(&mut white, 1).await;
    play(&mut sc, &mut black, &mut [&mut white], mv("d7d6", "b2")).await;
    play(&mut sc, &mut black, &mut [&mut white], mv("h7h6", "b3")).await;
    play(&mut sc, &mut white, &mut [&mut black], mv("f1b5", "w2")).await;
    let v = play(&mut sc, &mut black, &mut [&mut white], mv("c7c6", "b4")).await;
    play(
        &mut sc,
        &mut black,
        &mut [&mut white],
        mv_at("g8f6", "b5", v),
    )
    .await;

    sc.note("refusals: with the move's id, without id, and the socket's own");
    sc.send(&mut white, mv("e1e8", "w3")).await;
    sc.recv(&mut white, 1).await;
    sc.send(&mut white, mv_at("d2d4", "w3", 1)).await;
    sc.recv(&mut white, 1).await;
    sc.send(&mut black, mv("a7a6", "b6")).await;
    sc.recv(&mut black, 1).await;
    sc.send(&mut white, bare("draw_accept")).await;
    sc.recv(&mut white, 1).await;
    sc.send(&mut white, bare("dance")).await;
    sc.recv(&mut white, 1).await;
    sc.send_text(&mut white, "not json").await;
    sc.recv(&mut white, 1).await;
    sc.send(&mut white, json!({"t": "move", "d": {"uci": 7}}))
        .await;
    sc.recv(&mut white, 1).await;
    sc.send(
        &mut white,
        json!({"t": "hello", "d": {"token": "0".repeat(32)}}),
    )
    .await;
    sc.recv(&mut white, 3).await;
    sc.send(&mut white, bare("ping")).await;
    sc.recv(&mut white, 1).await;
    sc.send(&mut black, bare("abort")).await;
    sc.recv(&mut black, 1).await;

    sc.note("Black leaves; White plays 3. d4,Nf3; Black comes back with its last v");
    let black_v = v + 1;
    sc.close(black).await;
    sc.recv(&mut white, 1).await;
    sc.http("GET", "/api/games?status=playing", None).await;
    play(&mut sc, &mut white, &mut [], mv("d2d4", "w4")).await;
    play(&mut sc, &mut white, &mut [], mv("g1f3", "w5")).await;
    let mut black = sc
        .connect("black", &id, Some(&black_token), Some(black_v))
        .await;
    sc.recv(&mut black, 3).await;
    sc.recv(&mut white, 1).await;
    sc.http("GET", &format!("/api/games/{id}"), None).await;

    sc.note("a draw offered and declined, then Black resigns");
    sc.send(&mut white, bare("draw_offer")).await;
    sc.recv(&mut white, 1).await;
    sc.recv(&mut black, 1).await;
    sc.send(&mut black, bare("draw_decline")).await;
    sc.recv(&mut white, 1).await;
    sc.recv(&mut black, 1).await;
    sc.send(&mut black, bare("resign")).await;
    sc.recv(&mut white, 1).await;
    sc.recv(&mut black, 1).await;
    sc.send(&mut white, mv("a2a3", "w6")).await;
    sc.recv(&mut white, 1).await;
    sc.http("GET", &format!("/api/games/{id}"), None).await;
    sc.http("GET", &format!("/game/{id}.pgn"), None).await;
    sc.finish("clocked_check_takeback_reconnect_resign").await
}

/// A draw by agreement, an abort of a started game and of an open clocked
/// one, an unlisted game, HTTP refusals, and the three listings in order.
async fn draws_aborts_and_listings() -> BTreeSet<String> {
    let mut sc = Script::start().await;
    // Listings are ordered by last activity in ms: a pause between games
    // keeps two of them from sharing a millisecond (ties go by random id).
    let pause = || tokio::time::sleep(Duration::from_millis(5));

    sc.note("untimed, 1. e4, Black offers a draw, White accepts");
    let (agreed, token) = sc.create(json!({"color": "black"})).await;
    let other = sc.join(&agreed).await;
    let mut black = sc.connect("black", &agreed, Some(&token), None).await;
    sc.recv(&mut black, 2).await;
    let mut white = sc.connect("white", &agreed, Some(&other), None).await;
    sc.recv(&mut white, 2).await;
    sc.recv(&mut black, 1).await;
    // An integer ack id.
    let first = json!({"t": "move", "d": {"uci": "e2e4", "id": 1}});
    play(&mut sc, &mut white, &mut [&mut black], first).await;
    sc.send(&mut black, bare("draw_offer")).await;
    sc.recv(&mut black, 1).await;
    sc.recv(&mut white, 1).await;
    sc.send(&mut white, bare("draw_accept")).await;
    sc.recv(&mut black, 1).await;
    sc.recv(&mut white, 1).await;
    sc.http("GET", &format!("/game/{agreed}.pgn"), None).await;
    pause().await;

    sc.note("untimed, joined, aborted by White before any move");
    let (aborted, token) = sc
        .create(json!({"color": "white", "variant": "marseillais"}))
        .await;
    let other = sc.join(&aborted).await;
    let mut white = sc.connect("white", &aborted, Some(&token), None).await;
    sc.recv(&mut white, 2).await;
    let mut black = sc.connect("black", &aborted, Some(&other), None).await;
    sc.recv(&mut black, 2).await;
    sc.recv(&mut white, 1).await;
    sc.send(&mut white, bare("abort")).await;
    sc.recv(&mut white, 1).await;
    sc.recv(&mut black, 1).await;
    sc.http("GET", &format!("/api/games/{aborted}"), None).await;
    sc.http("GET", &format!("/game/{aborted}.pgn"), None).await;
    sc.http("POST", &format!("/api/games/{aborted}/join"), None)
        .await;
    pause().await;

    sc.note("clocked, open, aborted by its creator");
    let (open_aborted, token) = sc
        .create(json!({"color": "white", "clock": {"base_secs": 0, "increment_secs": 2}}))
        .await;
    let mut creator = sc
        .connect("creator", &open_aborted, Some(&token), None)
        .await;
    sc.recv(&mut creator, 2).await;
    sc.send(&mut creator, bare("abort")).await;
    sc.recv(&mut creator, 1).await;
    sc.http("GET", &format!("/api/games/{open_aborted}"), None)
        .await;
    pause().await;

    sc.note("an unlisted open game and a listed one from a FEN");
    let (unlisted, _) = sc.create(json!({"color": "white", "listed": false})).await;
    pause().await;
    let (_listed, _) = sc
        .create(json!({"color": "black", "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}))
        .await;
    sc.http("GET", &format!("/api/games/{unlisted}"), None)
        .await;
    sc.http("GET", "/api/games", None).await;
    sc.http("GET", "/api/games?status=open&limit=1&offset=1", None)
        .await;
    sc.http("GET", "/api/games?status=playing", None).await;
    sc.http("GET", "/api/games?status=finished", None).await;
    sc.http("GET", "/api/games?status=lost", None).await;
    sc.http("GET", "/api/games/zzzzzzzz", None).await;
    sc.http("GET", "/game/zzzzzzzz.pgn", None).await;
    sc.finish("draws_aborts_and_listings").await
}

#[tokio::test]
async fn every_server_message_type_is_byte_identical_to_the_golden_transcripts() {
    let mut seen = BTreeSet::new();
    seen.extend(untimed_mate_and_rematch().await);
    seen.extend(clocked_check_takeback_reconnect_resign().await);
    seen.extend(draws_aborts_and_listings().await);
    let missing: Vec<&&str> = SERVER_TYPES
        .iter()
        .filter(|t| !seen.contains(**t))
        .collect();
    assert!(missing.is_empty(), "never received: {missing:?}");
    let unknown: Vec<&String> = seen
        .iter()
        .filter(|t| !SERVER_TYPES.contains(&t.as_str()))
        .collect();
    assert!(unknown.is_empty(), "undocumented types: {unknown:?}");
}

#[test]
fn every_golden_file_belongs_to_a_scenario() {
    let Ok(entries) = std::fs::read_dir(golden_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if let Some(stem) = name.strip_suffix(".txt") {
            assert!(SCENARIOS.contains(&stem), "stray golden file {name}");
        }
    }
}

#[test]
fn the_normalizer_replaces_only_volatile_values_and_keeps_key_order() {
    let mut norm = Normalizer::new(Mode::Wire);
    let text = r#"{"t":"state","v":3,"d":{"id":"k3Xq9aPz","url":"/game/k3Xq9aPz","token":"ab","clock":{"white":299000,"black":300000,"running":"white"},"first_move_ms":null,"created_ms":17,"moves":[{"uci":"e2e4"}],"claim_in_ms":{"white":12,"black":null},"z":1.5e3}}"#;
    assert_eq!(
        norm.json(text),
        r#"{"t":"state","v":3,"d":{"id":"<game-1>","url":"/game/<game-1>","token":"<token>","clock":{"white":<clock>,"black":<clock>,"running":"white"},"first_move_ms":null,"created_ms":<ms>,"moves":[{"uci":"e2e4"}],"claim_in_ms":{"white":<claim_in_ms>,"black":null},"z":1.5e3}}"#
    );
    // An ack id of another length is the client's, and stays.
    assert_eq!(
        norm.json(r#"{"t":"ack","d":{"id":"w1","v":2}}"#),
        r#"{"t":"ack","d":{"id":"w1","v":2}}"#
    );
    let mut stored = Normalizer::new(Mode::Stored);
    assert_eq!(
        stored.json(
            r#"{"id":"AbCd1234","clock":{"white":1,"black":2,"running":"black"},"first_move_ms":5,"created_ms":9}"#
        ),
        r#"{"id":"AbCd1234","clock":{"white":1,"black":<clock>,"running":"black"},"first_move_ms":<first_move_ms>,"created_ms":9}"#
    );
    assert_eq!(
        stored.text("[Site \"/game/AbCd1234\"]\n[Date \"2026.12.01\"]\n"),
        "[Site \"/game/AbCd1234\"]\n[Date \"2026.12.01\"]\n"
    );
    assert_eq!(
        norm.json(r#"{"k":"move","at_ms":5,"uci":"e2e4","ack":"w1","clock":[299997,300000],"seat_hash":"ab"}"#),
        r#"{"k":"move","at_ms":<ms>,"uci":"e2e4","ack":"w1","clock":[<clock>,<clock>],"seat_hash":"<seat_hash>"}"#
    );
    assert_eq!(
        norm.text("[Site \"/game/k3Xq9aPz\"]\n[Date \"2026.12.01\"]\n\n*\n"),
        "[Site \"/game/<game-1>\"]\n[Date \"<date>\"]\n\n*\n"
    );
}
