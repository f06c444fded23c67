//! Commit throughput and latency of the SQLite store under 1, 10, 100 and 1000 concurrent
//! committers (each one a game appending one sub-move event per commit, awaiting each commit
//! before the next, as a room does). Prints commits/s, p50/p99/max latency and the mean batch size.
//!
//! Run: `cargo bench --bench store` (release build). Environment:
//! `STORE_BENCH_SECS` seconds per level (default 3), `STORE_BENCH_DIR` where the database goes
//! (default the system temp dir; point it at the disk the server will use).
//! A plain `main` rather than criterion: what matters here is behaviour under concurrency
//! (group commit), which criterion's one-closure-at-a-time model does not exercise.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use marseillais::server::store::{Commit, GameListing, GameStatus, SqliteStore, Store};

const LEVELS: [usize; 4] = [1, 10, 100, 1000];
/// Hard cap per committer so a pathologically fast disk still ends the level.
const MAX_COMMITS_PER_COMMITTER: u64 = 1_000_000;

fn summary(game: &str, seq: u64) -> String {
    format!(
        r#"{{"id":"{game}","white":{{"name":"Alice"}},"black":{{"name":"Bob"}},"clock":{{"white_ms":291000,"black_ms":287500,"inc_ms":2000}},"sub_moves":{seq},"result":null}}"#
    )
}

fn sub_move_event(seq: u64) -> String {
    format!(
        r#"{{"t":"move","v":{seq},"d":{{"uci":"e2e4","san":"e4","side":"white","ack":"c-{seq}","clock_ms":[291000,287500],"at_ms":1764400000000}}}}"#
    )
}

async fn committer(store: Arc<SqliteStore>, game: String, until: Instant) -> Vec<Duration> {
    let mut latencies = Vec::new();
    for seq in 0..MAX_COMMITS_PER_COMMITTER {
        if Instant::now() >= until {
            break;
        }
        let commit = Commit {
            game_id: game.clone(),
            first_seq: seq,
            events: vec![sub_move_event(seq)],
            listing: GameListing {
                id: game.clone(),
                status: GameStatus::Playing,
                created_ms: 1_764_400_000_000,
                updated_ms: 1_764_400_000_000 + seq as i64,
                summary: summary(&game, seq),
                listed: true,
                white_user: None,
                black_user: None,
            },
            rating: None,
            deadline: marseillais::server::store::DeadlineChange::Unchanged,
        };
        let started = Instant::now();
        if let Err(e) = store.commit(commit).await {
            eprintln!("commit failed: {e}");
            break;
        }
        latencies.push(started.elapsed());
    }
    latencies
}

/// CPU time (user + system) this process has used so far, from /proc (Linux); `None` elsewhere.
/// Reported per commit because, unlike wall time, it hardly moves when other processes load
/// the machine.
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let after_name = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // USER_HZ is 100 on every mainstream Linux configuration.
    Some(Duration::from_millis((utime + stime) * 10))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn level(base: &std::path::Path, committers: usize, seconds: f64) {
    let dir = base.join(format!(
        "marseillais-store-bench-{}-{committers}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let store = match SqliteStore::open(&dir) {
        Ok(store) => Arc::new(store),
        Err(e) => {
            eprintln!("cannot open the store in {}: {e}", dir.display());
            return;
        }
    };
    let cpu_before = process_cpu();
    let started = Instant::now();
    let until = started + Duration::from_secs_f64(seconds);
    let tasks: Vec<_> = (0..committers)
        .map(|c| tokio::spawn(committer(Arc::clone(&store), format!("bench-{c}"), until)))
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        match task.await {
            Ok(mut l) => latencies.append(&mut l),
            Err(e) => eprintln!("committer task failed: {e}"),
        }
    }
    let elapsed = started.elapsed();
    let cpu = cpu_before
        .zip(process_cpu())
        .map(|(before, after)| after - before);
    store.close().await;
    let stats = store.stats();
    latencies.sort_unstable();
    let commits = latencies.len();
    let cpu_per_commit = cpu.map_or("n/a".to_owned(), |cpu| {
        format!("{:.1}", cpu.as_secs_f64() * 1e6 / commits.max(1) as f64)
    });
    println!(
        "| {committers:>5} | {:>9.0} | {:>8.2} | {:>8.2} | {:>8.2} | {:>9.1} | {:>7} | {cpu_per_commit:>6} |",
        commits as f64 / elapsed.as_secs_f64(),
        ms(percentile(&latencies, 0.50)),
        ms(percentile(&latencies, 0.99)),
        ms(latencies.last().copied().unwrap_or_default()),
        stats.commits as f64 / stats.batches.max(1) as f64,
        stats.batches,
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let seconds: f64 = std::env::var("STORE_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s: &f64| *s > 0.0 && *s <= 600.0)
        .unwrap_or(3.0);
    let base: PathBuf = std::env::var_os("STORE_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start tokio: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "SQLite store, WAL + synchronous=FULL, {seconds} s per level, database in {}",
        base.display()
    );
    println!(
        "| committers | commits/s | p50 ms | p99 ms | max ms | commits/batch | batches | CPU µs/commit |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    runtime.block_on(async {
        for committers in LEVELS {
            level(&base, committers, seconds).await;
        }
    });
}
