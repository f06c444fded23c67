//! Store faults: a commit that fails (an injected failure, a database at its
//! size limit, a real full filesystem) must never acknowledge the move. The
//! client gets `store_failure`, nothing is broadcast, the game stays as it
//! was, and the same move with the same ack id is accepted once storage
//! works again. The tmpfs case needs root (`mount -t tmpfs`); without it the
//! test says so loudly and passes.

use crate::support;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use marseillais::server::config::{Config, PuzzleSetChoice};
use marseillais::server::store::{FailingStore, MemoryStore, SqliteOptions, SqliteStore, Store};
use serde_json::{Value, json};
use support::audit::{audit_game, stored_games};
use support::game::{Duo, Outcome, new_game};
use support::http::try_http;
use support::process::{Scratch, ServerProcess};
use support::rig::Rig;
use support::ws::Client;
use support::{WAIT, s};

/// These tests play moves as fast as the acks come back (on loopback, far
/// above a person's pace); the rate limits are not what they test.
fn fast(config: &mut Config) {
    config.rate_per_sec = 1e6;
    config.game_rate_per_sec = 1e6;
    config.game_rate_burst = 1e6;
}

async fn public(addr: SocketAddr, id: &str) -> Value {
    let (status, text) = try_http(addr, "GET", &format!("/api/games/{id}"), None)
        .await
        .expect("http");
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).expect("json")
}

#[tokio::test]
async fn an_injected_commit_failure_is_refused_and_the_same_move_is_accepted_later() {
    let memory = MemoryStore::new();
    let failing = FailingStore::new(Arc::new(memory.clone()));
    let server = Rig::builder()
        .config(fast)
        .store(Arc::new(failing.clone()))
        .start()
        .await;
    let addr = server.addr();
    let (id, white, black) = new_game(addr, r#"{"color":"white"}"#).await.expect("game");
    let mut duo = Duo::open(addr, &id, &white, &black).await;
    let mut spectator = Client::try_connect(addr, &id, "").await.expect("ws");
    spectator.skip_to("state").await;
    assert_eq!(duo.play("e2e4", "w1").await, Outcome::Acked(2));
    let (status, text) = try_http(addr, "POST", "/api/games", Some(b"{}"))
        .await
        .expect("http");
    assert_eq!(status, 201, "{text}");
    let open_id = s(&serde_json::from_str::<Value>(&text).expect("json")["id"]);

    failing.set_failing(true);
    let before = public(addr, &id).await;
    assert_eq!(
        duo.play("e7e5", "b1").await,
        Outcome::Refused("store_failure".into())
    );
    // Other actions that write are refused the same way.
    duo.black
        .try_send(&json!({"t": "resign"}))
        .await
        .expect("send");
    assert_eq!(duo.black.skip_to("error").await.d["code"], "store_failure");
    let (status, text) = try_http(addr, "POST", "/api/games", Some(b"{}"))
        .await
        .expect("http");
    assert_eq!(status, 503, "{text}");
    let (status, text) = try_http(addr, "POST", &format!("/api/games/{open_id}/join"), None)
        .await
        .expect("http");
    assert_eq!(status, 503, "{text}");
    assert_eq!(
        public(addr, &id).await,
        before,
        "a refused write changed the game"
    );

    failing.set_failing(false);
    // The seat that could not be stored is still free.
    let (status, text) = try_http(addr, "POST", &format!("/api/games/{open_id}/join"), None)
        .await
        .expect("http");
    assert_eq!(status, 200, "{text}");
    // The refused move was never applied: sent again, it gets the next version.
    assert_eq!(duo.play("e7e5", "b1").await, Outcome::Acked(3));
    // The spectator saw exactly v=2 then v=3: nothing from the refused writes.
    let mut versions = Vec::new();
    while versions.last() != Some(&3) {
        let msg = spectator.try_recv(WAIT).await.expect("spectator event");
        if let Some(v) = msg.v {
            assert_eq!(msg.t, "move", "{msg}");
            versions.push(v);
        }
    }
    assert_eq!(versions, vec![2, 3]);
    server.stop().await;
    let (_, events) = memory.load_game(&id).await.expect("load").expect("game");
    assert_eq!(events.len(), 4, "created, joined, two moves: {events:?}");
    assert_eq!(audit_game(&id, &events), Ok(2));
}

#[tokio::test]
async fn a_database_at_its_size_limit_refuses_moves_and_keeps_every_acknowledged_one() {
    // 48 KiB of room as with schema v2, plus the 10 pages (40 KiB) the v3 schema's account
    // tables and indexes take in an empty database, plus the 6 pages (24 KiB) of the v7
    // schema's arena tables and indexes, plus the 7 pages (28 KiB) of the v8 schema's puzzle
    // tables and indexes, plus the 1 page (4 KiB) of the v9 schema's lesson table (WITHOUT
    // ROWID: no index beside it), the 3 pages (12 KiB) of the v10 schema's explorer tables
    // the 1 page (4 KiB) of the v11 schema's index of chat lines by account, the 9 pages
    // (36 KiB) of the v12 schema's moderation tables and indexes, the 2 pages (8 KiB) of the
    // v13 schema's block table and its index, and the 2 pages (8 KiB) of the v14 schema's
    // fair-play outcomes and their index.
    // No puzzle set: its rows would take the room the games need.
    let options = SqliteOptions {
        max_db_bytes: Some((48 + 40 + 24 + 28 + 4 + 12 + 4 + 36 + 8 + 8) * 1024),
    };
    let mut server = Rig::builder()
        .config(|c| {
            fast(c);
            c.puzzle_set = PuzzleSetChoice::Off;
        })
        .sqlite(options)
        .start()
        .await;
    let data = server.data_dir().to_path_buf();
    let addr = server.addr();
    // Games are played one after the other until a commit is refused (a
    // game that ends on the board first is simply followed by another).
    let mut refused = None;
    for _ in 0..50 {
        let Ok((id, white, black)) = new_game(addr, r#"{"color":"white"}"#).await else {
            break;
        };
        let mut duo = Duo::open(addr, &id, &white, &black).await;
        let mut acked = Vec::new();
        for n in 0..1000 {
            if duo.legal.is_empty() {
                break;
            }
            let uci = duo.any_legal(n * 7 + 3);
            let ack_id = format!("m{n}");
            match duo.play(&uci, &ack_id).await {
                Outcome::Acked(v) => acked.push((v, uci)),
                Outcome::Refused(code) => {
                    assert_eq!(code, "store_failure");
                    refused = Some((id, white, black, duo, acked, uci, ack_id));
                    break;
                }
            }
        }
        if refused.is_some() {
            break;
        }
    }
    let Some((id, white, black, mut duo, acked, uci, ack_id)) = refused else {
        panic!("the database never filled up");
    };
    let last_v = acked.last().map_or(1, |(v, _)| *v);
    assert_eq!(
        public(addr, &id).await["moves"].as_array().map(Vec::len),
        Some(acked.len())
    );
    // Refused again while still full, and nothing was applied.
    assert_eq!(
        duo.play(&uci, &ack_id).await,
        Outcome::Refused("store_failure".into())
    );
    server.pause().await;

    // Every acknowledged move is stored, nothing else, and the game replays.
    let games = stored_games(&data).await;
    let (_, events) = games.iter().find(|(g, _)| *g == id).expect("stored game");
    assert_eq!(events.len() as u64, last_v + 1);
    for (v, uci) in &acked {
        let event: Value = serde_json::from_str(&events[*v as usize]).expect("json");
        assert_eq!(s(&event["uci"]), *uci);
    }
    assert_eq!(audit_game(&id, events), Ok(acked.len()));

    // With room again, the refused move (same id) is accepted at the next version.
    server
        .resume_on(Arc::new(SqliteStore::open(&data).expect("store")))
        .await;
    let addr = server.addr();
    let mut duo = Duo::open(addr, &id, &white, &black).await;
    assert_eq!(duo.version, last_v);
    assert_eq!(duo.play(&uci, &ack_id).await, Outcome::Acked(last_v + 1));
    server.stop().await;
}

/// Mounts a 1 MiB tmpfs; `None` (and a loud message) when not permitted.
fn tiny_filesystem(dir: &Path) -> Option<()> {
    let status = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .status();
    if status.is_ok_and(|s| s.success()) {
        Some(())
    } else {
        eprintln!(
            "\n*** SKIPPED: cannot mount a 1 MiB tmpfs at {} (needs root); \
             the full-filesystem case was NOT exercised ***\n",
            dir.display()
        );
        None
    }
}

/// Unmounts on drop, even when the test fails.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// Fills the filesystem with a ballast file until it refuses more bytes.
fn fill(path: &Path) -> u64 {
    use std::io::Write;
    let Ok(mut file) = std::fs::File::create(path) else {
        return 0;
    };
    let chunk = vec![0u8; 4096];
    let mut written = 0;
    for _ in 0..1024 {
        match file.write(&chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => written += n as u64,
        }
    }
    let _ = file.sync_all();
    written
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_full_filesystem_the_real_server_refuses_moves_and_recovers_when_space_returns() {
    let scratch = Scratch::new();
    let mount_point = scratch.dir.path().join("tiny");
    std::fs::create_dir_all(&mount_point).expect("mount point");
    if tiny_filesystem(&mount_point).is_none() {
        return;
    }
    let _mounted = Mounted(mount_point.clone());
    let data = mount_point.join("data");
    let server = ServerProcess::spawn(&data, &scratch.log(), &[]).await;
    let addr = server.addr;
    let (id, white, black) = new_game(addr, r#"{"color":"white"}"#).await.expect("game");
    let mut duo = Duo::open(addr, &id, &white, &black).await;
    assert_eq!(duo.play("e2e4", "w0").await, Outcome::Acked(2));

    let ballast = mount_point.join("ballast");
    let filled = fill(&ballast);
    assert!(filled > 0, "could not fill the tmpfs");
    let mut acked = vec![(2u64, "e2e4".to_string())];
    let mut refused = None;
    for n in 1..600 {
        if duo.legal.is_empty() {
            break;
        }
        let uci = duo.any_legal(n * 5 + 1);
        let ack_id = format!("m{n}");
        match duo.play(&uci, &ack_id).await {
            Outcome::Acked(v) => acked.push((v, uci)),
            Outcome::Refused(code) => {
                assert_eq!(code, "store_failure");
                refused = Some((uci, ack_id));
                break;
            }
        }
    }
    let Some((uci, ack_id)) = refused else {
        panic!(
            "the full filesystem never refused a commit ({} acks)",
            acked.len()
        );
    };
    let last_v = acked.last().map_or(1, |(v, _)| *v);
    // Space comes back: the very same move is accepted at the next version.
    std::fs::remove_file(&ballast).expect("remove the ballast");
    let mut outcome = Outcome::Refused(String::new());
    for _ in 0..50 {
        outcome = duo.play(&uci, &ack_id).await;
        if outcome != Outcome::Refused("store_failure".into()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(outcome, Outcome::Acked(last_v + 1), "after space returned");
    acked.push((last_v + 1, uci));
    server.kill9().await;

    let games = stored_games(&data).await;
    let (_, events) = games.iter().find(|(g, _)| *g == id).expect("stored game");
    assert_eq!(events.len() as u64, last_v + 2);
    for (v, uci) in &acked {
        let event: Value = serde_json::from_str(&events[*v as usize]).expect("json");
        assert_eq!(s(&event["uci"]), *uci, "v={v}");
    }
    assert_eq!(audit_game(&id, events), Ok(acked.len()));
    let logs = std::fs::read_to_string(scratch.log()).unwrap_or_default();
    assert!(!logs.contains("panicked"), "{logs}");
    eprintln!(
        "full filesystem: {} moves acknowledged before the disk filled ({filled} bytes of ballast), \
         refused while full, accepted after space returned",
        acked.len() - 1
    );
}
