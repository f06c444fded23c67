//! `--mode explorer`: the opening explorer's latency with many games counted. Before the
//! server starts, the run fills its store through the store API
//! (`Store::add_explorer_games`, the same writing as a game's end) with `--explorer-games`
//! synthetic games: each a seeded random game of 10 to 30 turns from the start, whose
//! sub-moves lean towards a few popular ones in every position (a fixed order of each
//! position's legal sub-moves, the first ones far likelier), so that the early positions
//! gather thousands of games and a long tail of rare lines follows, as in real openings.
//! Results, clock families, rated/casual and ratings are random. Then, for `--duration`
//! seconds, one client asks `GET /api/explorer` for positions of varied depth (turn starts
//! sampled from the generated games: the start, early, middle and deep), with and without
//! filters, one request at a time. Reported: p50/p99/max per depth band and overall, the
//! fill's time, the server's CPU.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use marseillais::rules::{Game, Position, SubMove};
use marseillais::server::explorer::extract::turns_of;
use marseillais::server::store::{
    ClockFamily, ExplorerGame, ExplorerResult, ExplorerSeat, SqliteStore, Store,
};
use serde::Serialize;

use crate::http;
use crate::rng::Rng;
use crate::server;
use crate::stats::{Percentiles, Samples};

/// What the server it starts runs with.
pub const SERVER_ENV: [(&str, &str); 1] = [("MARSEILLAIS_ARENA_SCHEDULE", "off")];

/// Games handed to the store per call (it writes them in slices of its own).
const FILL_CHUNK: usize = 5_000;

/// Positions sampled for the queries.
const SAMPLED_POSITIONS: usize = 2_000;

#[derive(Debug, Default, Serialize)]
pub struct ExplorerReport {
    pub games: usize,
    pub fill_seconds: f64,
    pub positions: usize,
    pub seconds: f64,
    pub all_ms: Option<Percentiles>,
    /// The standard start.
    pub start_ms: Option<Percentiles>,
    /// Turn starts 1 to 5.
    pub early_ms: Option<Percentiles>,
    /// Turn starts 6 to 15.
    pub middle_ms: Option<Percentiles>,
    /// Turn starts 16 and deeper.
    pub deep_ms: Option<Percentiles>,
    /// Queries with a filter (`rated=rated&speeds=blitz,rapid`).
    pub filtered_ms: Option<Percentiles>,
    pub errors: u64,
    /// Unfiltered answers with no turn (none expected: every sampled position had one).
    pub empty_answers: u64,
    pub server_cpu_secs: Option<f64>,
}

/// A sub-move of `position` leaning towards the popular: the legal sub-moves in their fixed
/// order, the first of them chosen most (a geometric fall-off), else any.
fn leaning(legal: &[SubMove], rng: &mut Rng) -> SubMove {
    if rng.below(10) < 8 {
        let mut index = 0;
        while index + 1 < legal.len() && rng.below(100) < 45 {
            index += 1;
        }
        // Spread the popular choices over the list rather than its first entries (a1 pieces).
        legal[(index * 7) % legal.len()]
    } else {
        legal[rng.below(legal.len())]
    }
}

/// One synthetic game: its sub-moves and the FENs of its turn starts, in order.
fn random_game(rng: &mut Rng) -> (Vec<SubMove>, Vec<String>) {
    let mut game = Game::new(Position::initial());
    let mut played = Vec::new();
    let mut starts = Vec::new();
    let turns = 10 + rng.below(21);
    let mut complete = 0;
    while complete < turns && game.outcome().is_none() {
        if game.position().is_turn_start() {
            starts.push(game.position().fen());
        }
        let legal = game.legal_submoves().to_vec();
        if legal.is_empty() {
            break;
        }
        let mv = leaning(&legal, rng);
        let Ok(preview) = game.preview(mv) else { break };
        let ends = preview.ends_turn();
        if game.play_previewed(preview).is_err() {
            break;
        }
        played.push(mv);
        complete += usize::from(ends);
    }
    (played, starts)
}

fn seat(rng: &mut Rng, family: ClockFamily) -> ExplorerSeat {
    if rng.below(4) == 0 {
        return ExplorerSeat {
            name: None,
            rating: None,
        };
    }
    ExplorerSeat {
        name: Some(format!("player{}", rng.below(5_000))),
        rating: (family != ClockFamily::Untimed).then(|| 900.0 + rng.below(1_500) as f64),
    }
}

/// Fills the SQLite database in `data_dir` with `count` games; the turn-start FENs sampled
/// for the queries, with their depth.
pub async fn fill(
    data_dir: &Path,
    count: usize,
    seed: u64,
) -> Result<Vec<(usize, String)>, String> {
    let store = SqliteStore::open(data_dir).map_err(|e| e.to_string())?;
    let mut rng = Rng::new(seed);
    let start = Position::initial();
    let mut sampled = Vec::new();
    let every = (count / SAMPLED_POSITIONS).max(1);
    let mut chunk = Vec::with_capacity(FILL_CHUNK);
    let now_ms = 1_765_000_000_000i64;
    for i in 0..count {
        let (played, starts) = random_game(&mut rng);
        if i % every == 0 && !starts.is_empty() {
            // Depths spread evenly: the start, early, middle and deep positions alike.
            let depth = match i / every % 4 {
                0 => 0,
                1 => 1 + rng.below(5),
                2 => 6 + rng.below(10),
                _ => 16 + rng.below(15),
            }
            .min(starts.len() - 1);
            sampled.push((depth, starts[depth].clone()));
        }
        let family = ClockFamily::ALL[rng.below(ClockFamily::ALL.len())];
        let rated = family != ClockFamily::Untimed && rng.below(2) == 0;
        let result = match rng.below(20) {
            0..9 => ExplorerResult::WhiteWins,
            9..11 => ExplorerResult::Draw,
            _ => ExplorerResult::BlackWins,
        };
        chunk.push(ExplorerGame {
            game_id: format!("ex{i:07}"),
            family,
            rated,
            result,
            white: seat(&mut rng, family),
            black: seat(&mut rng, family),
            ended_ms: now_ms - (count - i) as i64 * 1_000,
            turns: turns_of(&start, &played),
        });
        if chunk.len() == FILL_CHUNK || i + 1 == count {
            store
                .add_explorer_games(std::mem::take(&mut chunk))
                .await
                .map_err(|e| e.to_string())?;
        }
    }
    store.close().await;
    Ok(sampled)
}

fn query_of(fen: &str, filtered: bool) -> String {
    let fen: String = fen
        .bytes()
        .map(|b| match b {
            b' ' => "%20".to_string(),
            b'/' => "%2F".to_string(),
            _ => (b as char).to_string(),
        })
        .collect();
    let filter = if filtered {
        "&rated=rated&speeds=blitz,rapid"
    } else {
        ""
    };
    format!("/api/explorer?fen={fen}{filter}")
}

pub async fn run(
    addr: SocketAddr,
    pid: Option<u32>,
    positions: Vec<(usize, String)>,
    duration: Duration,
) -> ExplorerReport {
    let mut report = ExplorerReport {
        positions: positions.len(),
        ..ExplorerReport::default()
    };
    let mut bands: [Samples; 4] = Default::default();
    let mut filtered = Samples::default();
    let mut all = Samples::default();
    let cpu_before = pid.and_then(server::cpu_secs);
    let started = Instant::now();
    let end = started + duration;
    // Bounded by the deadline; a request a round.
    for round in 0..100_000_000usize {
        if Instant::now() >= end || positions.is_empty() {
            break;
        }
        let (depth, fen) = &positions[round % positions.len()];
        let with_filter = round % 3 == 2;
        let asked = Instant::now();
        let reply = http::request(addr, "GET", &query_of(fen, with_filter), None).await;
        let elapsed = asked.elapsed();
        let body = match reply {
            Ok((200, body)) => body,
            _ => {
                report.errors += 1;
                continue;
            }
        };
        if !with_filter && body.contains("\"turns\":[]") {
            report.empty_answers += 1;
        }
        all.record(elapsed);
        if with_filter {
            filtered.record(elapsed);
        }
        let band = match depth {
            0 => 0,
            1..=5 => 1,
            6..=15 => 2,
            _ => 3,
        };
        bands[band].record(elapsed);
    }
    report.seconds = started.elapsed().as_secs_f64();
    let [start, early, middle, deep] = bands;
    report.start_ms = start.summary();
    report.early_ms = early.summary();
    report.middle_ms = middle.summary();
    report.deep_ms = deep.summary();
    report.filtered_ms = filtered.summary();
    report.all_ms = all.summary();
    let cpu_after = pid.and_then(server::cpu_secs);
    if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
        report.server_cpu_secs = Some(after - before);
    }
    report
}

pub fn print(r: &ExplorerReport, json: bool) {
    println!(
        "explorer: {} games filled in {:.1} s; {} positions queried for {:.1} s, {} errors, {} empty answers",
        r.games, r.fill_seconds, r.positions, r.seconds, r.errors, r.empty_answers
    );
    for (what, p) in [
        ("all", &r.all_ms),
        ("start", &r.start_ms),
        ("turns 1-5", &r.early_ms),
        ("turns 6-15", &r.middle_ms),
        ("turns 16+", &r.deep_ms),
        ("filtered", &r.filtered_ms),
    ] {
        if let Some(p) = p {
            println!(
                "{what}: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} samples)",
                p.p50_ms, p.p99_ms, p.max_ms, p.count
            );
        }
    }
    if let Some(cpu) = r.server_cpu_secs {
        println!("server CPU: {cpu:.2} s");
    }
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}
