//! Perft speed: our engine against cozy-chess on orthodox perft, both with a
//! full make-move at every node (no bulk counting at the last ply), and our
//! Marseillais perft. Criterion reports nodes per second as "elem/s".
//!
//! Run with `cargo bench --bench perft`; the figures are in docs/performance.md.
//! On a shared machine, `PERFT_BEST_OF=20 cargo bench --bench perft` instead
//! times every case 20 times, ours and cozy-chess interleaved, and prints the
//! best time of each: the figure least disturbed by other processes.
//! `PERFT_CASE=kiwipete` (any part of a case's name) runs only the matching
//! cases, e.g. `PERFT_BEST_OF=1 PERFT_CASE="initial 5, cozy"` under callgrind.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use marseillais::rules::perft::perft;
use marseillais::rules::{Position, Rules};

const INITIAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
/// Kiwipete at a Marseillais turn start (fullmove 5, so phase 1).
const KIWIPETE_MARSEILLAIS: &str =
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5";

/// cozy-chess perft with the same work per node as ours
/// (`marseillais::rules::perft::perft`): generate the legal moves, copy the
/// board, play each move; at the last ply the child is made, handed to
/// `black_box` and counted, without a call that would only return 1.
fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            if depth == 1 {
                black_box(&child);
                nodes += 1;
            } else {
                nodes += cozy_perft(&child, depth - 1);
            }
        }
        false
    });
    nodes
}

fn orthodox(fen: &str) -> Position {
    Position::from_fen(fen, Rules::Orthodox).expect("benchmark FEN parses")
}

fn cozy(fen: &str) -> cozy_chess::Board {
    fen.parse().expect("benchmark FEN parses")
}

fn orthodox_perft(c: &mut Criterion) {
    for (name, fen, depth) in [("initial", INITIAL, 5), ("kiwipete", KIWIPETE, 4)] {
        let ours = orthodox(fen);
        let theirs = cozy(fen);
        let nodes = perft(&ours, depth);
        assert_eq!(
            nodes,
            cozy_perft(&theirs, depth),
            "{name}: engines disagree"
        );
        let mut group = c.benchmark_group(format!("orthodox {name} depth {depth}"));
        group.throughput(Throughput::Elements(nodes));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(4));
        group.bench_function("marseillais", |b| {
            b.iter(|| perft(black_box(&ours), black_box(depth)))
        });
        group.bench_function("cozy-chess", |b| {
            b.iter(|| cozy_perft(black_box(&theirs), black_box(depth)))
        });
        group.finish();
    }
}

fn marseillais_perft(c: &mut Criterion) {
    let initial = Position::initial();
    let kiwipete: Position = KIWIPETE_MARSEILLAIS.parse().expect("benchmark FEN parses");
    for (name, position, depth) in [("initial", initial, 5), ("kiwipete", kiwipete, 4)] {
        let nodes = perft(&position, depth);
        let mut group = c.benchmark_group(format!("marseillais {name} depth {depth}"));
        group.throughput(Throughput::Elements(nodes));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(4));
        group.bench_function("marseillais", |b| {
            b.iter(|| perft(black_box(&position), black_box(depth)))
        });
        group.finish();
    }
}

/// A perft run to time; returns the node count.
type Case = Box<dyn Fn() -> u64>;

/// Best-of-`runs` timing, cases interleaved so that a burst of load from
/// elsewhere hits every case alike; prints Mnodes/s and the ratios.
fn best_of(runs: u32) {
    let kiwipete: Position = KIWIPETE_MARSEILLAIS.parse().expect("benchmark FEN parses");
    let cases: Vec<(&str, Case)> = vec![
        ("orthodox initial 5, ours", {
            let p = orthodox(INITIAL);
            Box::new(move || perft(black_box(&p), 5))
        }),
        ("orthodox initial 5, cozy-chess", {
            let b = cozy(INITIAL);
            Box::new(move || cozy_perft(black_box(&b), 5))
        }),
        ("orthodox kiwipete 4, ours", {
            let p = orthodox(KIWIPETE);
            Box::new(move || perft(black_box(&p), 4))
        }),
        ("orthodox kiwipete 4, cozy-chess", {
            let b = cozy(KIWIPETE);
            Box::new(move || cozy_perft(black_box(&b), 4))
        }),
        ("marseillais initial 5, ours", {
            let p = Position::initial();
            Box::new(move || perft(black_box(&p), 5))
        }),
        ("marseillais kiwipete 4, ours", {
            Box::new(move || perft(black_box(&kiwipete), 4))
        }),
    ];
    // PERFT_CASE=text keeps only the cases whose name contains it (to count
    // one case's instructions under callgrind).
    let only = std::env::var("PERFT_CASE").unwrap_or_default();
    let cases: Vec<(&str, Case)> = cases
        .into_iter()
        .filter(|(name, _)| name.contains(only.as_str()))
        .collect();
    let mut best = vec![(u64::MAX, Duration::MAX); cases.len()];
    for _ in 0..runs {
        for (slot, (_, run)) in best.iter_mut().zip(&cases) {
            let start = Instant::now();
            let nodes = run();
            let elapsed = start.elapsed();
            if elapsed < slot.1 {
                *slot = (nodes, elapsed);
            }
        }
    }
    let rate = |(nodes, time): (u64, Duration)| nodes as f64 / time.as_secs_f64() / 1e6;
    for ((name, _), &result) in cases.iter().zip(&best) {
        println!(
            "{name:32} {:>9} nodes  best {:>7.1} ms  {:>6.1} Mnodes/s",
            result.0,
            result.1.as_secs_f64() * 1e3,
            rate(result)
        );
    }
    if best.len() == 6 {
        println!(
            "ratio ours/cozy-chess: initial {:.2}, kiwipete {:.2}",
            rate(best[0]) / rate(best[1]),
            rate(best[2]) / rate(best[3])
        );
    }
}

criterion_group!(benches, orthodox_perft, marseillais_perft);

fn main() {
    match std::env::var("PERFT_BEST_OF")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        Some(runs) => best_of(runs),
        None => {
            benches();
            Criterion::default().configure_from_args().final_summary();
        }
    }
}
