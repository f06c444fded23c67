//! `--mode tournament`: one arena at 3+2 with `--games` players (accounts registered for the
//! run), bots that move at once (random legal sub-moves, as `--mode bots` plays its seat),
//! for `--duration` seconds; a player resigns after 6 to 40 of its sub-moves (drawn per game)
//! unless the game ended first, so that games end often. Each player polls the arena's page (`GET /api/arenas/{id}`) every
//! [`POLL`] while it waits, as the arena page does, opens its game when `me.game` names one,
//! plays it to its end and waits again.
//! Reported: the delay from a game's end to the player's next game (p50/p99/max: the issue's
//! goal is a p99 under 10 s), the first pairing, games made and finished, the server's
//! pairing steps (`marseillais_arena_pairing_seconds`) and its CPU per game.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{Semaphore, watch};

use marseillais::server::play::protocol::Side;

use crate::bots::{self, BotTally};
use crate::http;
use crate::rng::Rng;
use crate::server;
use crate::stats::{Percentiles, Samples};
use crate::ws;

/// How often a waiting player reads the arena's page (a poll tells it of its game at most
/// this late: a part of every delay measured).
pub const POLL: Duration = Duration::from_millis(500);

/// A player resigns once it has played this many sub-moves (drawn per game), unless the game
/// ended before: random play at full speed would make games of hundreds of sub-moves, and an
/// arena's pairing is measured on games that end.
const RESIGN_AFTER: std::ops::Range<u64> = 6..40;

/// Registrations at once (each is an Argon2 hash on the server: it runs two at a time).
const REGISTER_AT_ONCE: usize = 8;

/// What the server it starts runs with: every player registers from this one address, and
/// the arena under test is the only one.
pub const SERVER_ENV: [(&str, &str); 3] = [
    ("MARSEILLAIS_REGISTER_PER_HOUR", "0"),
    ("MARSEILLAIS_LOGIN_PER_MIN", "0"),
    ("MARSEILLAIS_ARENA_SCHEDULE", "off"),
];

/// A password for every player of the run.
const PASSWORD: &str = "arena load password";

pub struct TournamentPlan {
    pub addr: SocketAddr,
    pub pid: Option<u32>,
    pub players: usize,
    pub duration: Duration,
}

#[derive(Debug, Default, Serialize)]
pub struct TournamentReport {
    pub players: usize,
    pub players_failed: usize,
    pub seconds: f64,
    /// Seconds to register and join every player (not in the measured window).
    pub setup_seconds: f64,
    /// Games opened by the players (two per game).
    pub games_opened: u64,
    pub games_finished: u64,
    /// From joining to the first game, milliseconds.
    pub first_pairing_ms: Option<Percentiles>,
    /// From a game's end to the player's next game, milliseconds.
    pub next_pairing_ms: Option<Percentiles>,
    /// The server's pairing steps that paired someone, and their mean decision time.
    pub pairing_steps: Option<f64>,
    pub pairing_step_mean_ms: Option<f64>,
    /// The same steps whole: the arena read, the decision, the games made.
    pub step_mean_ms: Option<f64>,
    pub server_cpu_secs: Option<f64>,
    pub server_cpu_ms_per_game: Option<f64>,
}

/// What one player did.
#[derive(Default)]
struct PlayerTally {
    first: Samples,
    next: Samples,
    games: u64,
    finished: u64,
}

/// Registers player `i`; its session cookie.
async fn register(addr: SocketAddr, i: usize) -> Option<String> {
    http::register(addr, &format!("arena{i:04}"), PASSWORD).await
}

/// The arena's page as `cookie`'s player sees it.
async fn page(addr: SocketAddr, cookie: &str, arena: &str) -> Option<Value> {
    let path = format!("/api/arenas/{arena}");
    let (status, body, _) = http::request_as(addr, Some(cookie), "GET", &path, None)
        .await
        .ok()?;
    (status == 200).then(|| serde_json::from_str(&body).ok())?
}

/// One player until `stop`: wait for a game, play it, again.
async fn player(
    addr: SocketAddr,
    cookie: String,
    arena: String,
    slot: usize,
    mut stop: watch::Receiver<bool>,
) -> PlayerTally {
    let mut tally = PlayerTally::default();
    let mut rng = Rng::new(0x000A_2E4A ^ (slot as u64).wrapping_mul(0x9E37_79B9));
    let mut bot = BotTally::default();
    let mut last_game: Option<String> = None;
    let mut waiting_since = Instant::now();
    let mut first = true;
    // Bounded by `stop`: the run's end.
    while !*stop.borrow() {
        let seen = page(addr, &cookie, &arena).await;
        let game = seen.as_ref().and_then(|p| {
            let game = &p["me"]["game"];
            Some((
                game["id"].as_str()?.to_owned(),
                game["color"].as_str()?.to_owned(),
            ))
        });
        let Some((id, color)) = game.filter(|(id, _)| last_game.as_deref() != Some(id)) else {
            tokio::select! {
                _ = tokio::time::sleep(POLL) => continue,
                _ = stop.changed() => break,
            }
        };
        let waited = waiting_since.elapsed();
        if first {
            tally.first.record(waited);
            first = false;
        } else {
            tally.next.record(waited);
        }
        tally.games += 1;
        let side = if color == "white" {
            Side::White
        } else {
            Side::Black
        };
        match ws::connect_as(addr, &format!("/ws/game/{id}"), &cookie).await {
            Ok(socket) => {
                let finished = bot.games_finished;
                // Short games, many of them: what the pairing is measured on.
                let resign_after = RESIGN_AFTER.start
                    + rng.below((RESIGN_AFTER.end - RESIGN_AFTER.start) as usize) as u64;
                bots::play(
                    socket,
                    side,
                    Some(resign_after),
                    &mut stop,
                    &mut rng,
                    &mut bot,
                )
                .await;
                tally.finished += bot.games_finished - finished;
            }
            Err(error) => eprintln!("loadgen: an arena game could not connect: {error}"),
        }
        last_game = Some(id);
        waiting_since = Instant::now();
    }
    tally
}

pub async fn run(plan: TournamentPlan) -> TournamentReport {
    let mut report = TournamentReport {
        players: plan.players,
        ..TournamentReport::default()
    };
    let setup = Instant::now();
    let permits = Arc::new(Semaphore::new(REGISTER_AT_ONCE));
    let registrations: Vec<_> = (0..plan.players)
        .map(|i| {
            let permits = Arc::clone(&permits);
            tokio::spawn(async move {
                let _permit = permits.acquire().await.ok()?;
                register(plan.addr, i).await
            })
        })
        .collect();
    let mut cookies = Vec::new();
    for task in registrations {
        match task.await {
            Ok(Some(cookie)) => cookies.push(cookie),
            _ => report.players_failed += 1,
        }
    }
    let Some(leader) = cookies.first().cloned() else {
        return report;
    };
    let body = json!({
        "name": "Load arena",
        "clock": {"base_secs": 180, "increment_secs": 2},
        "starts_ms": marseillais::server::game::now_ms(),
        "duration_minutes": 120,
    })
    .to_string();
    let arena = match http::request_as(plan.addr, Some(&leader), "POST", "/api/arenas", Some(&body))
        .await
    {
        Ok((201, body, _)) => serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| v["id"].as_str().map(str::to_owned)),
        other => {
            eprintln!("loadgen: the arena could not be made: {other:?}");
            None
        }
    };
    let Some(arena) = arena else {
        return report;
    };
    let path = format!("/api/arenas/{arena}/join");
    let joins: Vec<_> = cookies
        .iter()
        .cloned()
        .map(|cookie| {
            let path = path.clone();
            let permits = Arc::clone(&permits);
            tokio::spawn(async move {
                let _permit = permits.acquire().await.ok()?;
                let (status, _, _) =
                    http::request_as(plan.addr, Some(&cookie), "POST", &path, None)
                        .await
                        .ok()?;
                (status == 200).then_some(cookie)
            })
        })
        .collect();
    let mut joined = Vec::new();
    for task in joins {
        match task.await {
            Ok(Some(cookie)) => joined.push(cookie),
            _ => report.players_failed += 1,
        }
    }
    report.setup_seconds = setup.elapsed().as_secs_f64();
    let before = server::counters_text(plan.addr).await;
    let cpu_before = plan.pid.and_then(server::cpu_secs);
    let started = Instant::now();
    let (stop_tx, stop_rx) = watch::channel(false);
    let tasks: Vec<_> = joined
        .into_iter()
        .enumerate()
        .map(|(slot, cookie)| {
            tokio::spawn(player(
                plan.addr,
                cookie,
                arena.clone(),
                slot,
                stop_rx.clone(),
            ))
        })
        .collect();
    tokio::time::sleep(plan.duration).await;
    let _ = stop_tx.send(true);
    let mut first = Samples::default();
    let mut next = Samples::default();
    for task in tasks {
        match task.await {
            Ok(tally) => {
                first.merge(tally.first);
                next.merge(tally.next);
                report.games_opened += tally.games;
                report.games_finished += tally.finished;
            }
            Err(_) => report.players_failed += 1,
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    report.first_pairing_ms = first.summary();
    report.next_pairing_ms = next.summary();
    let after = server::counters_text(plan.addr).await;
    let metric = |text: &Option<String>, name| text.as_deref().and_then(|t| http::metric(t, name));
    let delta = |name| Some(metric(&after, name)? - metric(&before, name).unwrap_or(0.0));
    if let (Some(count), Some(sum)) = (
        delta("marseillais_arena_pairing_seconds_count"),
        delta("marseillais_arena_pairing_seconds_sum"),
    ) {
        report.pairing_steps = Some(count);
        if count > 0.0 {
            report.pairing_step_mean_ms = Some(sum * 1000.0 / count);
            report.step_mean_ms =
                delta("marseillais_arena_step_seconds_sum").map(|whole| whole * 1000.0 / count);
        }
    }
    let cpu_after = plan.pid.and_then(server::cpu_secs);
    if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
        report.server_cpu_secs = Some(after - before);
        let games = report.games_opened as f64 / 2.0;
        if games > 0.0 {
            report.server_cpu_ms_per_game = Some((after - before) * 1000.0 / games);
        }
    }
    report
}
