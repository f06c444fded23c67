//! Crash safety of the real server binary: many games are played at once
//! over loopback while the server is killed with SIGKILL at random moments
//! and restarted on the same data directory. Clients reconnect by
//! themselves and re-send an unacknowledged move with the same ack id. At
//! the end the database is audited: every sub-move any client saw
//! acknowledged (or broadcast) is in its game at the version it was given,
//! and every stored game replays legally and exports a PGN that re-imports.
//!
//! Short run (the default, part of `cargo test`): 20 kills, 20 tables.
//! Longer: `MARSEILLAIS_CRASH_KILLS=200 MARSEILLAIS_CRASH_GAMES=40 cargo test
//! --release --test system reliability::crash:: -- --nocapture`; replay a run with
//! `MARSEILLAIS_CRASH_SEED=<the printed seed>` (the kill times repeat; the
//! interleaving of the clients does not). Without it the seed is
//! `MARSEILLAIS_TEST_SEED` or a fixed one; `random` draws a new one.

use crate::support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use support::audit::{audit_game, stored_games};
use support::game::new_game;
use support::process::{Scratch, ServerProcess};
use support::rng::Rng;
use support::ws::{Client, Incoming, Recv};
use support::{eventually, s, strings};
use tokio::sync::watch;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A sub-move a client saw acknowledged.
#[derive(Clone, Debug)]
struct Acked {
    game: String,
    color: String,
    id: String,
    v: u64,
    uci: String,
}

#[derive(Default)]
struct Record {
    acked: Vec<Acked>,
    /// (game, v) -> uci of every `move` event any client received.
    broadcast: HashMap<(String, u64), String>,
    /// Things that must not happen (unexpected errors, version gaps, ...).
    anomalies: Vec<String>,
    /// Successful connections that followed a lost one.
    reconnects: u64,
    /// Unacknowledged moves sent again after a reconnect, and how many of
    /// them turned out to be already stored (acknowledged at an old version).
    resent: u64,
    resent_already_stored: u64,
    /// `takeback_submove` requests sent, and takeback events received.
    takebacks_sent: u64,
    takebacks_seen: u64,
    /// Acks per server life (epoch).
    acks_per_epoch: HashMap<u64, u64>,
    /// Per table: the last epoch in which it had a move acknowledged.
    table_progress: HashMap<usize, u64>,
    games_started: u64,
    games_ended: u64,
}

struct Shared {
    addr: watch::Receiver<Option<SocketAddr>>,
    stop: AtomicBool,
    epoch: AtomicU64,
    record: Mutex<Record>,
}

impl Shared {
    fn record(&self) -> std::sync::MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn anomaly(&self, text: String) {
        eprintln!("ANOMALY: {text}");
        self.record().anomalies.push(text);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// The current server address, waiting (bounded) while it is down.
    async fn addr(&self) -> Option<SocketAddr> {
        let mut rx = self.addr.clone();
        for _ in 0..600 {
            if self.stopped() {
                return None;
            }
            if let Some(addr) = *rx.borrow_and_update() {
                return Some(addr);
            }
            let _ = tokio::time::timeout(Duration::from_millis(100), rx.changed()).await;
        }
        None
    }
}

/// One table: creates a game, plays it with two clients to its end, again.
async fn table(shared: Arc<Shared>, index: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut round = 0u64;
    while !shared.stopped() {
        let Some(addr) = shared.addr().await else {
            return;
        };
        round += 1;
        let variant = if (index as u64 + round).is_multiple_of(2) {
            "balanced"
        } else {
            "marseillais"
        };
        let body = json!({"color": "white", "variant": variant}).to_string();
        let (id, white, black) = match new_game(addr, &body).await {
            Ok(game) => game,
            Err(_) => {
                // The server died mid-request: whatever was half made is abandoned.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        shared.record().games_started += 1;
        let resign_after = 20 + rng.below(100) as usize;
        let player =
            |color: &'static str, token: String, seed: u64, resign: Option<usize>| Player {
                shared: Arc::clone(&shared),
                table: index,
                game: id.clone(),
                color,
                token,
                rng: Rng::new(seed),
                resync_with_v: (index + round as usize).is_multiple_of(2),
                resign_after: resign,
            };
        let w = player("white", white, rng.next_u64(), Some(resign_after));
        let b = player("black", black, rng.next_u64(), None);
        let (ended, _) = tokio::join!(w.run(), b.run());
        if ended {
            shared.record().games_ended += 1;
        }
    }
}

struct Player {
    shared: Arc<Shared>,
    table: usize,
    game: String,
    color: &'static str,
    token: String,
    rng: Rng,
    /// Reconnect with `v=<last seen>` (events replayed) instead of a snapshot.
    resync_with_v: bool,
    resign_after: Option<usize>,
}

/// What a player knows of its game.
#[derive(Default)]
struct View {
    /// Last version seen (0: nothing yet).
    version: u64,
    turn: String,
    /// `single`, `first` or `second` (the sub-move the side to move is at).
    phase: String,
    legal: Vec<String>,
    submoves: usize,
    over: bool,
    /// The move sent and not yet acknowledged: (uci, ack id).
    pending: Option<(String, String)>,
    /// Do not decide before this version is seen (the ack came before its broadcast).
    wait_for: u64,
    /// The pending move was sent again on this connection.
    resent: bool,
    sent: u64,
    /// Takebacks sent in this game, and the sub-move count at the last one:
    /// the server allows one per turn and five per game (the defaults).
    takebacks: u32,
    last_takeback_at: Option<usize>,
}

impl Player {
    /// Plays until the game ends (true) or the run stops (false).
    async fn run(mut self) -> bool {
        let mut view = View::default();
        let mut connections = 0u64;
        while !self.shared.stopped() && !view.over {
            let Some(addr) = self.shared.addr().await else {
                return false;
            };
            let query = if self.resync_with_v && view.version > 0 {
                format!("token={}&v={}", self.token, view.version)
            } else {
                format!("token={}", self.token)
            };
            let mut ws = match Client::try_connect(addr, &self.game, &query).await {
                Ok(ws) => ws,
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    continue;
                }
            };
            connections += 1;
            if connections > 1 {
                self.shared.record().reconnects += 1;
            }
            // Whatever was in flight is sent again with the same id: applied
            // once, acknowledged (again) either way.
            // Whatever was awaited (a takeback's event) comes with the resync.
            view.wait_for = view.wait_for.min(view.version);
            view.resent = view.pending.is_some();
            if view.resent {
                self.shared.record().resent += 1;
            }
            if let Some((uci, id)) = view.pending.clone()
                && ws
                    .try_send(&json!({"t": "move", "d": {"uci": uci, "id": id}}))
                    .await
                    .is_err()
            {
                continue;
            }
            self.session(&mut ws, &mut view).await;
        }
        view.over
    }

    /// Reads and acts on one connection until it is lost, the game ends or
    /// the run stops.
    async fn session(&mut self, ws: &mut Client, view: &mut View) {
        let mut resigned = false;
        // A fresh connection without `v` starts with a snapshot: until then
        // the stream is not compared with the old version.
        let mut synced = self.resync_with_v && view.version > 0;
        loop {
            if self.shared.stopped() || view.over {
                return;
            }
            let msg = match ws.poll(Duration::from_millis(300)).await {
                Recv::Timeout => continue,
                Recv::Msg(msg) => *msg,
                Recv::NotJson(e) => {
                    self.shared.anomaly(format!("non-JSON from server: {e}"));
                    return;
                }
                Recv::Ended => return,
            };
            if !self.absorb(&msg, view, &mut synced) {
                return;
            }
            if view.over || view.pending.is_some() || view.version < view.wait_for || !synced {
                continue;
            }
            if view.turn != self.color || view.legal.is_empty() {
                continue;
            }
            if self.resign_after.is_some_and(|n| view.submoves >= n) {
                if !resigned {
                    resigned = true;
                    if ws.try_send(&json!({"t": "resign"})).await.is_err() {
                        return;
                    }
                }
                continue;
            }
            // Now and then the mover withdraws its first sub-move.
            if view.phase == "second"
                && view.takebacks < 5
                && view.last_takeback_at != Some(view.submoves)
                && self.rng.below(8) == 0
            {
                view.takebacks += 1;
                view.last_takeback_at = Some(view.submoves);
                view.wait_for = view.version + 1;
                self.shared.record().takebacks_sent += 1;
                if ws
                    .try_send(&json!({"t": "takeback_submove"}))
                    .await
                    .is_err()
                {
                    return;
                }
                continue;
            }
            let Some(uci) = self.rng.pick(&view.legal).cloned() else {
                continue;
            };
            view.sent += 1;
            let id = format!("{}-{}", &self.color[..1], view.sent);
            view.pending = Some((uci.clone(), id.clone()));
            // A little think time spreads the load; bounded and tiny.
            tokio::time::sleep(self.rng.between_ms(0, 8)).await;
            if ws
                .try_send(&json!({"t": "move", "d": {"uci": uci, "id": id}}))
                .await
                .is_err()
            {
                return;
            }
        }
    }

    /// Updates the view from one server message; false to drop the connection.
    fn absorb(&self, msg: &Incoming, view: &mut View, synced: &mut bool) -> bool {
        let t = msg.t.as_str();
        let d = &msg.d;
        match t {
            "state" => {
                view.version = msg.v.unwrap_or(0);
                view.turn = s(&d["turn"]);
                view.phase = s(&d["phase"]);
                view.legal = strings(&d["legal"]);
                view.submoves = d["moves"].as_array().map_or(0, Vec::len);
                view.over = d["status"] == "finished";
                *synced = true;
            }
            "ack" => {
                let id = s(&d["id"]);
                let v = d["v"].as_u64().unwrap_or(0);
                let Some((uci, pending_id)) = view.pending.take() else {
                    self.shared.anomaly(format!(
                        "{} {}: ack {id} with nothing pending",
                        self.game, self.color
                    ));
                    return false;
                };
                if pending_id != id {
                    self.shared.anomaly(format!(
                        "{} {}: ack {id} while {pending_id} was pending",
                        self.game, self.color
                    ));
                    return false;
                }
                view.wait_for = v;
                let already_stored = view.resent && v <= view.version;
                view.resent = false;
                let epoch = self.shared.epoch.load(Ordering::SeqCst);
                let mut record = self.shared.record();
                record.acked.push(Acked {
                    game: self.game.clone(),
                    color: self.color.to_string(),
                    id,
                    v,
                    uci,
                });
                *record.acks_per_epoch.entry(epoch).or_default() += 1;
                if already_stored {
                    record.resent_already_stored += 1;
                }
                record.table_progress.insert(self.table, epoch);
            }
            "error" => {
                let code = s(&d["code"]);
                if code == "store_failure" {
                    // Not applied: send it again on a fresh connection.
                    return false;
                }
                self.shared.anomaly(format!(
                    "{} {}: unexpected error {msg} (pending {:?})",
                    self.game, self.color, view.pending
                ));
                view.pending = None;
                return false;
            }
            "presence" | "pong" => {}
            _ => {
                let Some(v) = msg.v else {
                    self.shared.anomaly(format!("unversioned {msg}"));
                    return false;
                };
                if *synced && v != view.version + 1 {
                    self.shared.anomaly(format!(
                        "{} {}: event v={v} after v={} (gap or repeat)",
                        self.game, self.color, view.version
                    ));
                }
                view.version = v;
                *synced = true;
                match t {
                    "move" => {
                        view.turn = s(&d["turn"]);
                        view.phase = s(&d["phase"]);
                        view.legal = strings(&d["legal"]);
                        view.submoves += 1;
                        self.shared
                            .record()
                            .broadcast
                            .insert((self.game.clone(), v), s(&d["uci"]));
                    }
                    "takeback" => {
                        view.turn = s(&d["turn"]);
                        view.phase = s(&d["phase"]);
                        view.legal = strings(&d["legal"]);
                        view.submoves = view.submoves.saturating_sub(1);
                        self.shared.record().takebacks_seen += 1;
                    }
                    "end" => {
                        view.over = true;
                        view.legal.clear();
                    }
                    _ => {}
                }
            }
        }
        true
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_sub_moves_survive_sigkill_and_every_stored_game_replays() {
    let kills = env_number("MARSEILLAIS_CRASH_KILLS", 20);
    let tables = env_number("MARSEILLAIS_CRASH_GAMES", 20) as usize;
    let (mut rng, seed, _replay) = Rng::seeded_from_env("MARSEILLAIS_CRASH_SEED");
    eprintln!("crash run: {kills} kills, {tables} tables, seed {seed}");
    let scratch = Scratch::new();
    let data = scratch.data();
    let log = scratch.log();

    let mut server = ServerProcess::spawn(&data, &log, &[]).await;
    let (addr_tx, addr_rx) = watch::channel(Some(server.addr));
    let shared = Arc::new(Shared {
        addr: addr_rx,
        stop: AtomicBool::new(false),
        epoch: AtomicU64::new(0),
        record: Mutex::new(Record::default()),
    });
    let mut workers = Vec::new();
    for index in 0..tables {
        workers.push(tokio::spawn(table(
            Arc::clone(&shared),
            index,
            rng.next_u64(),
        )));
    }

    for kill in 0..kills {
        tokio::time::sleep(rng.between_ms(300, 2500)).await;
        let _ = addr_tx.send(None);
        server.kill9().await;
        shared.epoch.fetch_add(1, Ordering::SeqCst);
        // Sometimes the server stays down a moment, so clients see refusals.
        tokio::time::sleep(rng.between_ms(0, 300)).await;
        server = ServerProcess::spawn(&data, &log, &[]).await;
        let _ = addr_tx.send(Some(server.addr));
        if (kill + 1) % 10 == 0 {
            let acks = shared.record().acked.len();
            eprintln!("{} kills, {acks} acks so far", kill + 1);
        }
    }

    // After the last restart every table must get going again.
    let final_epoch = shared.epoch.load(Ordering::SeqCst);
    let resumed = eventually(Duration::from_secs(60), || {
        let shared = Arc::clone(&shared);
        async move {
            let record = shared.record();
            (0..tables).all(|t| record.table_progress.get(&t) == Some(&final_epoch))
        }
    })
    .await;
    shared.stop.store(true, Ordering::SeqCst);
    for worker in workers {
        let _ = tokio::time::timeout(Duration::from_secs(20), worker).await;
    }
    let _ = addr_tx.send(None);
    server.kill9().await;

    // The audit, on the database itself.
    let games: HashMap<String, Vec<String>> = stored_games(&data).await.into_iter().collect();
    let record = std::mem::take(&mut *shared.record());
    let mut failures = record.anomalies.clone();
    if !resumed {
        failures.push(format!(
            "not every table made progress after the last restart: {:?}",
            record.table_progress
        ));
    }
    let mut first_v: HashMap<(String, String, String), u64> = HashMap::new();
    let mut lost = 0usize;
    for ack in &record.acked {
        let key = (ack.game.clone(), ack.color.clone(), ack.id.clone());
        if let Some(v) = first_v.insert(key, ack.v)
            && v != ack.v
        {
            failures.push(format!(
                "{ack:?}: acknowledged again at another version {v}"
            ));
        }
        let event = games
            .get(&ack.game)
            .and_then(|events| events.get(ack.v as usize))
            .and_then(|text| serde_json::from_str::<Value>(text).ok());
        let kept = event
            .as_ref()
            .is_some_and(|e| e["k"] == "move" && s(&e["uci"]) == ack.uci && s(&e["ack"]) == ack.id);
        if !kept {
            lost += 1;
            failures.push(format!("LOST: {ack:?}, stored {event:?}"));
        }
    }
    let mut broadcast_lost = 0usize;
    for ((game, v), uci) in &record.broadcast {
        let event = games
            .get(game)
            .and_then(|events| events.get(*v as usize))
            .and_then(|text| serde_json::from_str::<Value>(text).ok());
        if !event
            .as_ref()
            .is_some_and(|e| e["k"] == "move" && s(&e["uci"]) == *uci)
        {
            broadcast_lost += 1;
            failures.push(format!(
                "broadcast {game} v={v} {uci} not stored: {event:?}"
            ));
        }
    }
    let mut stored_submoves = 0;
    for (id, events) in &games {
        match audit_game(id, events) {
            Ok(n) => stored_submoves += n,
            Err(e) => failures.push(e),
        }
    }
    let distinct_acks = first_v.len();
    eprintln!(
        "crash run done (seed {seed}): kills {kills}, acks seen {} ({distinct_acks} distinct sub-moves), \
         acked sub-moves lost {lost}, broadcast moves checked {} (lost {broadcast_lost}), \
         reconnects {}, unacknowledged moves re-sent {} (already stored {}), \
         takebacks sent {} (events seen {}), games stored {} (started {}, ended {}), stored sub-moves replayed {stored_submoves}, \
         epochs with acks {}/{}",
        record.acked.len(),
        record.broadcast.len(),
        record.reconnects,
        record.resent,
        record.resent_already_stored,
        record.takebacks_sent,
        record.takebacks_seen,
        games.len(),
        record.games_started,
        record.games_ended,
        record.acks_per_epoch.len(),
        kills + 1,
    );
    assert!(
        failures.is_empty(),
        "{} failures (seed {seed}):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(distinct_acks > 0, "no move was ever acknowledged");
    assert!(record.reconnects > 0, "no client ever had to reconnect");
    let logs = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!logs.contains("panicked"), "the server panicked:\n{logs}");
}
