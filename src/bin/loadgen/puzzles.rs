//! `--mode puzzles`: the trainer's next-puzzle latency with a large set stored. The run writes
//! `--puzzles` synthetic puzzles (legal lines from seeded random games, random ratings and
//! themes) to a CSV that the server it starts imports (`--puzzle-set`), registers `--games`
//! accounts, and has each of them, for `--duration` seconds, ask for its next puzzle and give
//! it up at once (`/solution`: a rated round, so that the account's next puzzle must skip one
//! more it played), as fast as the server answers. Anonymous visitors walk the set beside
//! them. Reported: next-puzzle latency (signed in and anonymous) p50/p99/max, rounds, and the
//! server's CPU.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use marseillais::rules::{Game, Position};
use marseillais::server::puzzles::csv::{self, CsvPuzzle};
use marseillais::server::puzzles::theme::Theme;
use serde::Serialize;
use serde_json::Value;

use crate::http;
use crate::rng::Rng;
use crate::server;
use crate::stats::{Percentiles, Samples};

/// What the server it starts runs with: every account registers from this one address.
pub const SERVER_ENV: [(&str, &str); 3] = [
    ("MARSEILLAIS_REGISTER_PER_HOUR", "0"),
    ("MARSEILLAIS_LOGIN_PER_MIN", "0"),
    ("MARSEILLAIS_ARENA_SCHEDULE", "off"),
];

const PASSWORD: &str = "puzzle load password";

pub struct PuzzlesPlan {
    pub addr: SocketAddr,
    pub pid: Option<u32>,
    pub accounts: usize,
    pub duration: Duration,
}

#[derive(Debug, Default, Serialize)]
pub struct PuzzlesReport {
    pub accounts: usize,
    pub accounts_failed: usize,
    pub puzzles_stored: u64,
    pub seconds: f64,
    /// `GET /api/puzzles/next` of a signed-in account, milliseconds.
    pub next_ms: Option<Percentiles>,
    /// The same for an anonymous visitor (`?after=`).
    pub next_anonymous_ms: Option<Percentiles>,
    pub rounds: u64,
    pub errors: u64,
    pub server_cpu_secs: Option<f64>,
}

/// Writes `count` synthetic puzzles to `path`: each a seeded random game of 2 to 30 turns,
/// then a random turn of the opponent and one of the solver. Legal, checked by the server's
/// import like any set; their ratings spread uniformly over 600-2,800.
pub fn write_set(path: &Path, count: usize, seed: u64) -> std::io::Result<()> {
    let mut rng = Rng::new(seed);
    let mut rows = Vec::with_capacity(count);
    let mut seen = std::collections::HashSet::new();
    // Bounded: each try makes a row or fails; far more tries than rows are never needed.
    for _ in 0..count.saturating_mul(20) {
        if rows.len() == count {
            break;
        }
        let Some((fen, moves)) = random_line(&mut rng) else {
            continue;
        };
        let id = csv::puzzle_id(&fen, &moves);
        if !seen.insert(id.clone()) {
            continue;
        }
        let themes = (0..1 + rng.below(3))
            .map(|_| Theme::ALL[rng.below(Theme::ALL.len())])
            .collect();
        rows.push(CsvPuzzle {
            id,
            fen,
            moves,
            rating: 600 + rng.below(2200) as i32,
            deviation: 80,
            popularity: 0,
            plays: 0,
            themes,
            source: String::new(),
        });
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    csv::write(&mut file, &rows)?;
    use std::io::Write;
    file.flush()
}

/// One whole random turn of the side to move: its sub-moves, or `None` when the game ended.
fn random_turn(game: &mut Game, rng: &mut Rng) -> Option<Vec<String>> {
    let mover = game.position().side_to_move();
    let mut turn = Vec::new();
    // At most two sub-moves a turn.
    for _ in 0..2 {
        if game.outcome().is_some() || (!turn.is_empty() && game.position().side_to_move() != mover)
        {
            break;
        }
        let legal = game.legal_submoves();
        if legal.is_empty() {
            return None;
        }
        let mv = legal[rng.below(legal.len())];
        game.play(mv).ok()?;
        turn.push(mv.uci().to_string());
    }
    (!turn.is_empty()).then_some(turn)
}

fn random_line(rng: &mut Rng) -> Option<(String, String)> {
    let mut game = Game::new(Position::initial());
    for _ in 0..2 + rng.below(29) {
        random_turn(&mut game, rng)?;
        if game.outcome().is_some() {
            return None;
        }
    }
    let fen = game.position().fen();
    let opponent = random_turn(&mut game, rng)?;
    if game.outcome().is_some() {
        return None;
    }
    let solver = random_turn(&mut game, rng)?;
    Some((fen, format!("{} {}", opponent.join(","), solver.join(","))))
}

/// Registers player `i`; its session cookie.
async fn register(addr: SocketAddr, i: usize) -> Option<String> {
    http::register(addr, &format!("puz{i:05}"), PASSWORD).await
}

#[derive(Default)]
struct Tally {
    next: Samples,
    rounds: u64,
    errors: u64,
}

/// One account (or, with no cookie, an anonymous visitor) until `end`.
async fn solver(addr: SocketAddr, cookie: Option<String>, end: Instant) -> Tally {
    let mut tally = Tally::default();
    let mut after = String::new();
    // Bounded by the deadline; at most one request pair a turn.
    for _ in 0..10_000_000u32 {
        if Instant::now() >= end {
            break;
        }
        let path = if cookie.is_some() || after.is_empty() {
            "/api/puzzles/next".to_string()
        } else {
            format!("/api/puzzles/next?after={after}")
        };
        let asked = Instant::now();
        let reply = http::request_as(addr, cookie.as_deref(), "GET", &path, None).await;
        let elapsed = asked.elapsed();
        let id = match reply {
            Ok((200, body, _)) => serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| v["puzzle"]["id"].as_str().map(str::to_owned)),
            _ => None,
        };
        let Some(id) = id else {
            tally.errors += 1;
            continue;
        };
        tally.next.record(elapsed);
        match &cookie {
            Some(cookie) => {
                let path = format!("/api/puzzles/{id}/solution");
                match http::request_as(addr, Some(cookie), "POST", &path, None).await {
                    Ok((200, _, _)) => tally.rounds += 1,
                    _ => tally.errors += 1,
                }
            }
            None => after = id,
        }
    }
    tally
}

pub async fn run(plan: PuzzlesPlan) -> PuzzlesReport {
    let mut report = PuzzlesReport {
        accounts: plan.accounts,
        ..PuzzlesReport::default()
    };
    if let Ok((200, body)) = http::request(plan.addr, "GET", "/api/puzzles/themes", None).await {
        report.puzzles_stored = serde_json::from_str::<Value>(&body)
            .ok()
            .and_then(|v| v["total"].as_u64())
            .unwrap_or(0);
    }
    let mut cookies = Vec::new();
    for i in 0..plan.accounts {
        match register(plan.addr, i).await {
            Some(cookie) => cookies.push(cookie),
            None => report.accounts_failed += 1,
        }
    }
    let cpu_before = plan.pid.and_then(server::cpu_secs);
    let started = Instant::now();
    let end = started + plan.duration;
    let signed: Vec<_> = cookies
        .into_iter()
        .map(|cookie| tokio::spawn(solver(plan.addr, Some(cookie), end)))
        .collect();
    let anonymous = tokio::spawn(solver(plan.addr, None, end));
    let mut next = Samples::default();
    for task in signed {
        if let Ok(tally) = task.await {
            next.merge(tally.next);
            report.rounds += tally.rounds;
            report.errors += tally.errors;
        }
    }
    if let Ok(tally) = anonymous.await {
        report.next_anonymous_ms = tally.next.summary();
        report.errors += tally.errors;
    }
    report.seconds = started.elapsed().as_secs_f64();
    report.next_ms = next.summary();
    let cpu_after = plan.pid.and_then(server::cpu_secs);
    if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
        report.server_cpu_secs = Some(after - before);
    }
    report
}
