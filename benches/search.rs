//! Search speed: nodes per second of a fixed-node search on a fixed set of
//! positions (criterion reports it as "elem/s"), and the time to find each
//! mate in one turn of a fixed set.
//!
//! Run with `cargo bench --bench search`; the figures are in
//! docs/performance.md ("Engine").

use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use marseillais::engine::{Engine, Limits, Score};
use marseillais::rules::{Game, Position, Rules};

const NODES: u64 = 200_000;

/// Opening, middle game (Kiwipete at a Marseillais S1 and at S2), end game.
const POSITIONS: [(&str, &str); 5] = [
    (
        "initial",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    (
        "italian",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    ),
    (
        "kiwipete-s1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5",
    ),
    (
        "kiwipete-s2",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5 2",
    ),
    ("rook-ending", "8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 w - - 0 40"),
];

/// Mates in one turn: on S1, on S2 after a quiet (capturing) S1, after a
/// king move, by promotion, by two rooks.
pub const MATES_IN_ONE_TURN: [&str; 7] = [
    "k7/8/1K6/8/8/8/7Q/8 w - - 0 5",
    "7k/1n4pp/8/8/8/8/8/1R4K1 w - - 0 5",
    "r5k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 5",
    "4k3/8/8/8/8/8/8/KR5R w - - 0 5",
    "7k/8/4K3/8/8/8/8/1R6 w - - 0 5",
    "k7/8/3K4/8/8/8/8/7R w - - 0 5",
    "k7/2P5/1K6/8/8/8/8/8 w - - 0 5",
];

fn search(fen: &str, limits: Limits) -> marseillais::engine::SearchResult {
    let position = Position::from_fen(fen, Rules::Marseillais).unwrap();
    let mut engine = Engine::new();
    let stop = AtomicBool::new(false);
    engine.search(&Game::new(position), &limits, &stop, |_| {})
}

fn bench_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for (name, fen) in POSITIONS {
        group.throughput(Throughput::Elements(NODES));
        group.bench_function(format!("{name} {NODES} nodes"), |b| {
            b.iter(|| black_box(search(fen, Limits::nodes(NODES))))
        });
    }
    group.finish();
}

/// Time until the search reports the mate, each with a 100 ms budget.
fn time_to_mate() {
    println!("time to find each mate in one turn (movetime 100 ms):");
    for fen in MATES_IN_ONE_TURN {
        let position = Position::from_fen(fen, Rules::Marseillais).unwrap();
        let mut engine = Engine::new();
        let stop = AtomicBool::new(false);
        let started = Instant::now();
        let mut found = None;
        let result = engine.search(
            &Game::new(position),
            &Limits::movetime(Duration::from_millis(100)),
            &stop,
            |info| {
                if found.is_none() && matches!(info.score, Score::Mate(n) if n > 0) {
                    found = Some(started.elapsed());
                }
            },
        );
        let score = result.info.map(|i| i.score);
        println!("  {fen}: {score:?} found after {found:?}");
    }
}

criterion_group!(benches, bench_search);

fn main() {
    time_to_mate();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
