//! Soak: a bounded run of steady load on the real server binary (loopback
//! only) showing that memory returns to its baseline once the games end:
//! finished rooms leave the map, their sockets close, nothing accumulates.
//!
//! Tables play short games (two players and a spectator each, arbitrary
//! legal sub-moves, then a resignation) one after another. A warm-up round
//! sets the baseline (allocator pools, SQLite caches), then the main load
//! runs; after each phase the test waits until no game is live and no
//! connection is open, and reads the server's resident memory.
//!
//! The short version runs in `cargo test` (about 20 s of load). The full one:
//! `MARSEILLAIS_SOAK_SECS=600 cargo test --release --test system reliability::soak:: -- --nocapture`.

use crate::support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::json;
use support::eventually;
use support::game::{Duo, Outcome, new_game};
use support::http::metric;
use support::process::{Scratch, ServerProcess};
use support::rng::Rng;
use support::ws::Client;

#[derive(Default)]
struct Counts {
    games: AtomicU64,
    submoves: AtomicU64,
}

/// Plays games at one table until `until`.
async fn table(addr: SocketAddr, until: tokio::time::Instant, seed: u64, counts: Arc<Counts>) {
    let mut rng = Rng::new(seed);
    for _ in 0..10_000 {
        if tokio::time::Instant::now() >= until {
            return;
        }
        let (id, white, black) = new_game(addr, r#"{"color":"white"}"#)
            .await
            .expect("create a game");
        let mut spectator = Client::try_connect(addr, &id, "").await.expect("spectator");
        let mut duo = Duo::open(addr, &id, &white, &black).await;
        let length = 10 + rng.below(50) as usize;
        for n in 0..length {
            if duo.legal.is_empty() {
                break;
            }
            let uci = duo.any_legal(rng.below(1000) as usize);
            match duo.play(&uci, &format!("m{n}")).await {
                Outcome::Acked(_) => {
                    counts.submoves.fetch_add(1, Ordering::Relaxed);
                }
                Outcome::Refused(code) => panic!("move refused: {code}"),
            }
            // The spectator reads along, as a browser would.
            while spectator.try_recv(Duration::from_millis(1)).await.is_some() {}
        }
        if !duo.legal.is_empty() {
            duo.white
                .try_send(&json!({"t": "resign"}))
                .await
                .expect("resign");
            duo.black.skip_to("end").await;
        }
        counts.games.fetch_add(1, Ordering::Relaxed);
        // Everyone leaves (the spectator without a close handshake).
        duo.white.close().await;
        duo.black.close().await;
        drop(spectator);
    }
}

/// Runs `tables` tables for `secs` seconds; returns (games, sub-moves).
async fn load(addr: SocketAddr, tables: u64, secs: u64, rng: &mut Rng) -> (u64, u64) {
    let counts = Arc::new(Counts::default());
    let until = tokio::time::Instant::now() + Duration::from_secs(secs);
    let mut tasks = Vec::new();
    for _ in 0..tables {
        tasks.push(tokio::spawn(table(
            addr,
            until,
            rng.next_u64(),
            Arc::clone(&counts),
        )));
    }
    for task in tasks {
        task.await.expect("a table failed");
    }
    (
        counts.games.load(Ordering::Relaxed),
        counts.submoves.load(Ordering::Relaxed),
    )
}

/// The SQLite store's connections: the writer, the checkpointer and at most `MAX_READERS` (4,
/// in `src/server/store/sqlite/mod.rs`) pooled readers, each holding the database and its WAL
/// open, and one shared descriptor of the WAL index (`-shm`).
const DATABASE_FDS_AT_MOST: usize = 2 * (2 + 4) + 1;

/// Waits until no game is live and no connection open; false if never.
async fn quiet(server: &ServerProcess) -> bool {
    eventually(Duration::from_secs(60), || async {
        metric(server.addr, "marseillais_live_games").await == Some(0.0)
            && metric(server.addr, "marseillais_connections").await == Some(0.0)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_returns_to_its_baseline_after_a_steady_load_of_games() {
    let secs: u64 = std::env::var("MARSEILLAIS_SOAK_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let tables = 16;
    let (mut rng, seed, _replay) = Rng::seeded_from_env("MARSEILLAIS_SOAK_SEED");
    let scratch = Scratch::new();
    let server = ServerProcess::spawn(
        &scratch.data(),
        &scratch.log(),
        &["--retire-after-secs", "1"],
    )
    .await;
    let start_kib = server.rss_kib().expect("rss");

    let warm_secs = (secs / 4).clamp(5, 60);
    let (warm_games, _) = load(server.addr, tables, warm_secs, &mut rng).await;
    assert!(
        quiet(&server).await,
        "rooms or sockets left after the warm-up"
    );
    let baseline_kib = server.rss_kib().expect("rss");
    let baseline_fds = server.open_fds(&scratch.data()).expect("fds");

    let (games, submoves) = load(server.addr, tables, secs, &mut rng).await;
    let peak_kib = server.rss_kib().expect("rss");
    assert!(quiet(&server).await, "rooms or sockets left after the load");
    let after_kib = server.rss_kib().expect("rss");
    let after_fds = server.open_fds(&scratch.data()).expect("fds");
    eprintln!(
        "soak (seed {seed}): {secs} s with {tables} tables: {games} games, {submoves} sub-moves \
         (warm-up {warm_games} games); RSS at start {start_kib} KiB, baseline after warm-up \
         {baseline_kib} KiB, at the end of the load {peak_kib} KiB, after the games ended \
         {after_kib} KiB; open files {baseline_fds:?} -> {after_fds:?}"
    );
    assert!(games > 0 && submoves > 0);
    // Allocator pools may keep a little; a leak of a room per game would not fit.
    let allowance = (baseline_kib / 4).max(16 * 1024);
    assert!(
        after_kib <= baseline_kib + allowance,
        "memory did not return: {baseline_kib} KiB -> {after_kib} KiB after {games} games"
    );
    assert!(
        after_fds.other <= baseline_fds.other + 2,
        "sockets or files left open: {baseline_fds:?} -> {after_fds:?}"
    );
    // The database's descriptors may have grown with the reader pool (CI once saw 1 reader after
    // the warm-up and 3 after the load), never past the pool's bound.
    assert!(
        after_fds.database <= DATABASE_FDS_AT_MOST,
        "more database files open than the store's connections can hold: {after_fds:?}"
    );
    assert!(server.terminate().await, "graceful shutdown");
}
