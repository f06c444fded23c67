//! Where the server's engine searches run: computer moves and analysis alike. A search is
//! seconds of pure CPU, so it must never run on the async workers that carry every human
//! game's messages. The pool owns `--engine-threads` threads of its own (default: half the
//! cores), started with it, and searches wait in one queue for them (first come, first
//! served; counted in `/metrics`): however many computer games are being played, at most that
//! many searches run, and the other cores stay free for human games.
//!
//! The threads run at a lower priority (nice [`ENGINE_NICE`]) than the rest of the server:
//! when the async workers need a core the engine is using, the scheduler gives it to them, so
//! a burst of human moves is not delayed by a search (measured in docs/performance.md,
//! "Computer games and human latency"). They are the pool's own rather than tokio's blocking
//! pool because a nice value sticks to a thread, and the blocking pool also runs the store's
//! reads.
//!
//! A search is cancelled by dropping its future: the pool then raises the search's stop
//! flag, so the thread is given back at the search's next node check (the engine polls the
//! flag), not when its time runs out; a search cancelled while it waits is not started at
//! all. A computer whose game ended, or an analysis whose client went away, does not keep a
//! core busy.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::backlog::{Backlog, Queued, Reservations};
use crate::server::metrics::Metrics;

/// The nice value of the engine threads (0 is the server's; 19 the lowest priority). At 10 a
/// thread weighs about a tenth of a normal one when both want the same core.
pub const ENGINE_NICE: i32 = 10;

/// One search, as the queue carries it.
type Job = Box<dyn FnOnce() + Send>;

pub struct EnginePool {
    queue: mpsc::Sender<Job>,
    threads: usize,
    /// Searches waiting for a thread now (the pool's own count; the metrics gauge may be shared).
    waiting: Arc<AtomicUsize>,
    /// What the queue holds, and how long it would make a new search wait.
    backlog: Arc<Backlog>,
    /// The places of games admitted that have not asked for a search yet.
    reservations: Reservations,
    metrics: Arc<Metrics>,
}

/// A search that could not give an answer.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EngineFailed {
    /// The search panicked (a bug); the panic is logged and the server goes on.
    #[error("the engine search failed")]
    Panicked,
    /// The pool has no thread left to run it (none could be started, or all are gone).
    #[error("the engine pool is closed")]
    Closed,
}

impl EnginePool {
    /// Starts `threads` engine threads (at least one). They end when the pool is dropped.
    pub fn new(threads: usize, metrics: Arc<Metrics>) -> EnginePool {
        let threads = threads.max(1);
        let (queue, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        let mut started = 0;
        for n in 0..threads {
            let jobs = Arc::clone(&jobs);
            let spawned = std::thread::Builder::new()
                .name(format!("engine-{n}"))
                .spawn(move || work(&jobs));
            match spawned {
                Ok(_) => started += 1,
                Err(error) => tracing::error!(%error, "an engine thread could not be started"),
            }
        }
        EnginePool {
            queue,
            threads: started,
            waiting: Arc::new(AtomicUsize::new(0)),
            backlog: Arc::new(Backlog::default()),
            reservations: Reservations::default(),
            metrics,
        }
    }

    /// How many searches may run at once.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// How long a search asked for now would wait for a thread, from the searches ahead of
    /// it and how long a search has lately taken ([`Backlog`]).
    pub fn expected_wait(&self) -> Duration {
        self.reservations.expire(Instant::now());
        self.backlog.expected_wait(self.threads)
    }

    /// Counts one more search in the backlog until the guard drops: a game being admitted,
    /// whose first search is not asked for yet.
    pub fn reserve(&self) -> Queued {
        self.backlog.queued()
    }

    /// Keeps a game's reservation ([`EnginePool::reserve`]) until the game asks for its first
    /// search ([`EnginePool::searching`]) or for [`super::backlog::RESERVED_AT_MOST`].
    pub fn keep_reserved(&self, game: &str, reserved: Queued) {
        self.reservations.keep(game, reserved, Instant::now());
    }

    /// Game `game` asks for a search: its reservation, if it has one, is given back.
    pub fn searching(&self, game: &str) {
        self.reservations.claim(game);
    }

    /// Runs `search` on an engine thread once one is free, with the whole budget its caller
    /// gave it however many wait (first come, first served). `search` gets the stop flag to
    /// hand to [`crate::engine::Engine::search`] (it is raised if this future is dropped
    /// before the search returns).
    pub async fn run<R, F>(&self, search: F) -> Result<R, EngineFailed>
    where
        F: FnOnce(&AtomicBool) -> R + Send + 'static,
        R: Send + 'static,
    {
        let stop = Arc::new(AtomicBool::new(false));
        let raise_on_drop = RaiseOnDrop(Arc::clone(&stop));
        let (answer_tx, answer_rx) = oneshot::channel();
        let metrics = Arc::clone(&self.metrics);
        let queue = Arc::clone(&self.waiting);
        let backlog = Arc::clone(&self.backlog);
        let asked = Instant::now();
        queue.fetch_add(1, Ordering::Relaxed);
        let queued = backlog.queued();
        metrics.engine_waiting.fetch_add(1, Ordering::Relaxed);
        let job: Job = Box::new(move || {
            queue.fetch_sub(1, Ordering::Relaxed);
            metrics.engine_waiting.fetch_sub(1, Ordering::Relaxed);
            if stop.load(Ordering::Relaxed) {
                return; // given up while it waited (`queued` leaves the backlog on drop)
            }
            let started = Instant::now();
            let waited = started.duration_since(asked);
            backlog.waited(waited);
            metrics.engine_searches.fetch_add(1, Ordering::Relaxed);
            metrics.engine_wait_micros.fetch_add(
                u64::try_from(waited.as_micros()).unwrap_or(u64::MAX),
                Ordering::Relaxed,
            );
            let answer = {
                let _running =
                    Gauge::up(&metrics.engine_running, Some(&metrics.engine_running_peak));
                let answer = catch_unwind(AssertUnwindSafe(|| search(&stop)));
                // Out of the backlog before the gauge says the search is over: whoever sees
                // `running` drop to 0 finds the queue empty too.
                backlog.took(started.elapsed());
                drop(queued);
                answer
            };
            let _ = answer_tx.send(answer);
        });
        if let Err(mpsc::SendError(job)) = self.queue.send(job) {
            drop(job);
            self.waiting.fetch_sub(1, Ordering::Relaxed);
            self.metrics.engine_waiting.fetch_sub(1, Ordering::Relaxed);
            return Err(EngineFailed::Closed);
        }
        let answer = match answer_rx.await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_panic)) => {
                tracing::error!("an engine search panicked");
                Err(EngineFailed::Panicked)
            }
            Err(_) => Err(EngineFailed::Closed),
        };
        drop(raise_on_drop);
        answer
    }
}

/// An engine thread: lowers its own priority, then runs searches until the pool is dropped.
fn work(jobs: &Mutex<mpsc::Receiver<Job>>) {
    lower_priority();
    loop {
        // The lock is held only to take the next job (a poisoned lock cannot happen: no job
        // runs under it), never while a search runs.
        let next = match jobs.lock() {
            Ok(jobs) => jobs.recv(),
            Err(_) => return,
        };
        match next {
            Ok(job) => job(),
            Err(mpsc::RecvError) => return, // the pool is gone
        }
    }
}

/// Gives the calling thread the nice value [`ENGINE_NICE`] (on Linux a nice value is per
/// thread). A failure only costs the priority, so it is logged, not fatal.
fn lower_priority() {
    let me = rustix::thread::gettid();
    if let Err(error) = rustix::process::setpriority_process(Some(me), ENGINE_NICE) {
        tracing::warn!(%error, "could not lower the engine thread's priority");
    }
}

/// Raises a search's stop flag when the future waiting for it goes away.
struct RaiseOnDrop(Arc<AtomicBool>);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// One unit of a gauge for as long as it lives (and the peak it reached, if kept).
struct Gauge<'a>(&'a AtomicI64);

impl<'a> Gauge<'a> {
    fn up(gauge: &'a AtomicI64, peak: Option<&AtomicI64>) -> Gauge<'a> {
        let now = gauge.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(peak) = peak {
            peak.fetch_max(now, Ordering::Relaxed);
        }
        Gauge(gauge)
    }
}

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Waits until `ready` holds, polling at most 10,000 times 1 ms apart (10 s on a quiet
    /// machine, longer on a loaded one); fails the test otherwise.
    async fn wait_until(ready: impl Fn() -> bool) {
        for _ in 0..10_000 {
            if ready() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        panic!("the awaited state never came");
    }

    /// A search that spins until stopped or `limit` polls have passed, like the engine's
    /// node loop (bounded: it never outlives a failed test by long).
    fn spin(stop: &AtomicBool, limit: u32) -> u32 {
        for polls in 0..limit {
            if stop.load(Ordering::Relaxed) {
                return polls;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        limit
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn no_more_searches_run_at_once_than_the_pool_has_threads() {
        let metrics = Arc::new(Metrics::default());
        let pool = Arc::new(EnginePool::new(2, Arc::clone(&metrics)));
        let mut searches = tokio::task::JoinSet::new();
        for _ in 0..6 {
            let pool = Arc::clone(&pool);
            searches.spawn(async move { pool.run(|stop| spin(stop, 20)).await });
        }
        while let Some(done) = searches.join_next().await {
            assert_eq!(done.unwrap(), Ok(20));
        }
        assert_eq!(metrics.engine_running_peak.load(Ordering::Relaxed), 2);
        assert_eq!(metrics.engine_running.load(Ordering::Relaxed), 0);
        assert_eq!(metrics.engine_waiting.load(Ordering::Relaxed), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_a_search_raises_its_stop_flag_and_frees_its_slot() {
        let metrics = Arc::new(Metrics::default());
        let pool = Arc::new(EnginePool::new(1, Arc::clone(&metrics)));
        let (polls_tx, polls_rx) = std::sync::mpsc::channel();
        let abandoned = {
            let pool = Arc::clone(&pool);
            tokio::spawn(async move {
                pool.run(move |stop| {
                    let _ = polls_tx.send(spin(stop, 60_000));
                })
                .await
            })
        };
        wait_until(|| metrics.engine_running.load(Ordering::Relaxed) == 1).await;
        abandoned.abort();
        // Stopped long before its 60,000 polls, and the one slot serves the next search.
        let polls = tokio::task::spawn_blocking(move || polls_rx.recv().unwrap())
            .await
            .unwrap();
        assert!(polls < 60_000, "the abandoned search ran to its end");
        assert_eq!(pool.run(|_| 7).await, Ok(7));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn searches_run_in_the_order_asked_and_the_backlog_tells_the_wait() {
        let metrics = Arc::new(Metrics::default());
        let pool = Arc::new(EnginePool::new(1, Arc::clone(&metrics)));
        // One search of 20 ms teaches the pool how long a search takes.
        pool.run(|_| std::thread::sleep(Duration::from_millis(20)))
            .await
            .unwrap();
        assert_eq!(pool.expected_wait(), Duration::ZERO);
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let first = {
            let pool = Arc::clone(&pool);
            tokio::spawn(async move {
                pool.run(move |_| {
                    let _ = release_rx.recv_timeout(Duration::from_secs(60));
                })
                .await
            })
        };
        wait_until(|| metrics.engine_running.load(Ordering::Relaxed) == 1).await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut behind = Vec::new();
        for n in 0..3 {
            let (runner, order) = (Arc::clone(&pool), Arc::clone(&order));
            behind.push(tokio::spawn(async move {
                runner.run(move |_| order.lock().unwrap().push(n)).await
            }));
            wait_until(|| pool.waiting.load(Ordering::Relaxed) == n + 1).await;
        }
        // Four ahead of a newcomer (one running, three waiting), each about 20 ms.
        let wait = pool.expected_wait();
        assert!(wait >= Duration::from_millis(4 * 20), "{wait:?}");
        release_tx.send(()).unwrap();
        first.await.unwrap().unwrap();
        for search in behind {
            search.await.unwrap().unwrap();
        }
        assert_eq!(
            *order.lock().unwrap(),
            vec![0, 1, 2],
            "first come, first served"
        );
        assert_eq!(pool.expected_wait(), Duration::ZERO);
        assert_eq!(metrics.engine_searches.load(Ordering::Relaxed), 5);
    }

    #[tokio::test]
    async fn searches_run_at_the_engine_threads_lower_priority() {
        let pool = EnginePool::new(1, Arc::new(Metrics::default()));
        let nice = pool
            .run(|_| rustix::process::getpriority_process(Some(rustix::thread::gettid())))
            .await;
        assert_eq!(nice.unwrap().unwrap(), ENGINE_NICE);
        // The server's own threads keep theirs.
        let here = rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap();
        assert_ne!(here, ENGINE_NICE);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_search_given_up_while_it_waits_is_never_started() {
        let metrics = Arc::new(Metrics::default());
        let pool = Arc::new(EnginePool::new(1, Arc::clone(&metrics)));
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let first = {
            let pool = Arc::clone(&pool);
            tokio::spawn(async move {
                pool.run(move |_| release_rx.recv_timeout(Duration::from_secs(60)).is_ok())
                    .await
            })
        };
        // The one thread is busy with the first search before the second asks: two spawned
        // tasks start in no set order, and a second search queued ahead of the first would
        // run at once and leave nothing waiting (1 run in 150 on a loaded machine).
        wait_until(|| metrics.engine_running.load(Ordering::Relaxed) == 1).await;
        let started = Arc::new(AtomicBool::new(false));
        let given_up = {
            let (pool, started) = (Arc::clone(&pool), Arc::clone(&started));
            tokio::spawn(async move {
                pool.run(move |_| started.store(true, Ordering::Relaxed))
                    .await
            })
        };
        wait_until(|| pool.waiting.load(Ordering::Relaxed) == 1).await;
        given_up.abort();
        let _ = given_up.await;
        release_tx.send(()).unwrap();
        assert_eq!(first.await.unwrap(), Ok(true));
        // The next search runs after the given-up one was taken off the queue.
        assert_eq!(pool.run(|_| 3).await, Ok(3));
        assert!(!started.load(Ordering::Relaxed), "the given-up search ran");
        assert_eq!(metrics.engine_waiting.load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn a_panicking_search_is_an_error_not_a_crash() {
        let pool = EnginePool::new(1, Arc::new(Metrics::default()));
        let failed = pool.run(|_| -> u32 { panic!("engine bug") }).await;
        assert_eq!(failed, Err(EngineFailed::Panicked));
        assert_eq!(pool.run(|_| 1).await, Ok(1));
    }
}
