//! One quick-pairing wave's matching (issue 29): a queue of `n` seeks with ratings spread like
//! a real pool's (1,000-2,400) and 0-20 missed waves each, paired by [`Queue::wave`] (the
//! costs, the blossom solve, the bookkeeping). Criterion reports the time per wave for 20
//! (a full `1+0` wave), 64 (one matching group), 128, 500 and 1,000 seeks (several groups). See
//! docs/performance.md, "Quick pairing".
//!
//! Run: `cargo bench --bench pool`.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use marseillais::server::domain::user::UserId;
use marseillais::server::pool::queue::{Queue, Seek, Seeker};
use marseillais::server::web::ratelimit::Client;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

fn queue(n: usize, seed: u64) -> Queue<()> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut queue = Queue::new(Instant::now(), Duration::from_secs(15));
    for id in 0..n {
        queue.join(Seek {
            seeker: Seeker::Account(UserId(id as i64)),
            conn: id as u64,
            client: Client::from(std::net::IpAddr::from([127, 0, 0, 1])),
            rating: Some(rng.random_range(1000..2400)),
            blocking: HashSet::new(),
            misses: rng.random_range(0..20),
            payload: (),
        });
    }
    queue
}

fn waves(c: &mut Criterion) {
    let mut group = c.benchmark_group("pool_wave");
    for n in [20, 64, 128, 500, 1000] {
        group.bench_function(format!("{n}_seeks"), |b| {
            b.iter_batched(
                || queue(n, n as u64),
                |mut q| q.wave(Instant::now(), Duration::from_secs(15), Duration::ZERO),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, waves);
criterion_main!(benches);
