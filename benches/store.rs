//! Commit throughput and latency of the SQLite store (and of the PostgreSQL store, when
//! `STORE_BENCH_POSTGRES` or `MARSEILLAIS_TEST_POSTGRES` names a server) under 1, 10, 100 and 1000 concurrent
//! committers (each one a game appending one sub-move event per commit, awaiting each commit
//! before the next, as a room does). Prints commits/s, p50/p99/max latency and the mean batch size.
//!
//! Run: `cargo bench --bench store` (release build). Environment:
//! `STORE_BENCH_SECS` seconds per level (default 3), `STORE_BENCH_DIR` where the database goes
//! (default the system temp dir; point it at the disk the server will use). With a Postgres URL
//! (`scripts/test-services.sh cargo bench --bench store` gives a private server), the same levels
//! run on a fresh database per level on that server, created and dropped by the bench.
//! A plain `main` rather than criterion: what matters here is behaviour under concurrency
//! (group commit), which criterion's one-closure-at-a-time model does not exercise.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use marseillais::server::store::{
    Commit, GameListing, GameStatus, PostgresStore, SqliteStore, Store,
};

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

async fn committer(store: Arc<dyn Store>, game: String, until: Instant) -> Vec<Duration> {
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
                arena: None,
            },
            rating: None,
            explorer: None,
            playban: None,
            deadline: marseillais::server::store::DeadlineChange::Unchanged,
            fence: None,
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

/// What one level measured.
struct Run {
    latencies: Vec<Duration>,
    elapsed: Duration,
    cpu: Option<Duration>,
}

/// Runs `committers` committers on `store` for `seconds`, then closes it.
async fn run(store: Arc<dyn Store>, committers: usize, seconds: f64) -> Run {
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
    latencies.sort_unstable();
    Run {
        latencies,
        elapsed,
        cpu,
    }
}

fn print_row(committers: usize, run: &Run, commits_counted: u64, batches: u64) {
    let commits = run.latencies.len();
    let cpu_per_commit = run.cpu.map_or("n/a".to_owned(), |cpu| {
        format!("{:.1}", cpu.as_secs_f64() * 1e6 / commits.max(1) as f64)
    });
    println!(
        "| {committers:>5} | {:>9.0} | {:>8.2} | {:>8.2} | {:>8.2} | {:>9.1} | {:>7} | {cpu_per_commit:>6} |",
        commits as f64 / run.elapsed.as_secs_f64(),
        ms(percentile(&run.latencies, 0.50)),
        ms(percentile(&run.latencies, 0.99)),
        ms(run.latencies.last().copied().unwrap_or_default()),
        commits_counted as f64 / batches.max(1) as f64,
        batches,
    );
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
    let measured = run(Arc::clone(&store) as Arc<dyn Store>, committers, seconds).await;
    let stats = store.stats();
    print_row(committers, &measured, stats.commits, stats.batches);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `url` with its database name replaced by `name` (the query, e.g. `?host=/dir`, is kept).
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let root = match base[after_scheme..].find('/') {
        Some(i) => &base[..after_scheme + i],
        None => base,
    };
    if query.is_empty() {
        format!("{root}/{name}")
    } else {
        format!("{root}/{name}?{query}")
    }
}

async fn admin(server: &str, sql: &str) -> Result<(), tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(server, tokio_postgres::NoTls).await?;
    let connection = tokio::spawn(connection);
    let result = client.batch_execute(sql).await;
    drop(client);
    let _ = connection.await;
    result
}

async fn level_postgres(server: &str, committers: usize, seconds: f64) {
    let name = format!("store_bench_{}_{committers}", std::process::id());
    if let Err(e) = admin(server, &format!("CREATE DATABASE {name}")).await {
        eprintln!("cannot create the bench database: {e}");
        return;
    }
    match PostgresStore::open(&with_database(server, &name)).await {
        Ok(store) => {
            let store = Arc::new(store);
            let measured = run(Arc::clone(&store) as Arc<dyn Store>, committers, seconds).await;
            let stats = store.stats();
            print_row(committers, &measured, stats.commits, stats.batches);
        }
        Err(e) => eprintln!("cannot open the PostgreSQL store: {e}"),
    }
    if let Err(e) = admin(
        server,
        &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
    )
    .await
    {
        eprintln!("cannot drop the bench database {name}: {e}");
    }
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
    let postgres = ["STORE_BENCH_POSTGRES", "MARSEILLAIS_TEST_POSTGRES"]
        .iter()
        .find_map(|var| std::env::var(var).ok().filter(|url| !url.is_empty()));
    let Some(server) = postgres else {
        println!("(no STORE_BENCH_POSTGRES / MARSEILLAIS_TEST_POSTGRES: PostgreSQL not measured)");
        return;
    };
    println!();
    println!(
        "PostgreSQL store, one writer, one transaction per batch (fsync and synchronous_commit as the server has them), {seconds} s per level"
    );
    println!(
        "| committers | commits/s | p50 ms | p99 ms | max ms | commits/batch | batches | CPU µs/commit |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    runtime.block_on(async {
        for committers in LEVELS {
            level_postgres(&server, committers, seconds).await;
        }
    });
}
