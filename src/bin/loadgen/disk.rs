//! A second floor for durable moves: the disk's own fsync latency, measured
//! during the same window next to the server's data directory. An accepted
//! sub-move waits for at least one fsync of the store's write-ahead log, so
//! no move-to-opponent latency can be below the WebSocket echo plus this.
//! One 4 KiB write and `fsync` (what SQLite issues on the WAL) every `period`.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::game::Window;
use crate::stats::Samples;

/// The probe file cycles over this many bytes (like a reused WAL).
const SPAN: u64 = 1 << 20;

/// Runs the probe on a thread until the window ends; returns the fsync
/// latencies (or nothing if the file cannot be written).
pub fn spawn(dir: PathBuf, period: Duration, window: Window) -> std::thread::JoinHandle<Samples> {
    std::thread::spawn(move || probe(&dir, period, window).unwrap_or_default())
}

fn probe(dir: &Path, period: Duration, window: Window) -> Option<Samples> {
    let path = dir.join(format!("loadgen-fsync-probe-{}", std::process::id()));
    let mut file: File = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&path)
        .ok()?;
    let block = [0x5au8; 4096];
    let mut samples = Samples::default();
    let mut offset = 0u64;
    let mut due = window.start;
    // Bounded by the window: one iteration per period.
    while due < window.end {
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        let started = Instant::now();
        let ok = file.seek(SeekFrom::Start(offset)).is_ok()
            && file.write_all(&block).is_ok()
            && file.sync_all().is_ok();
        if !ok {
            break;
        }
        samples.record(started.elapsed());
        offset = (offset + 4096) % SPAN;
        due += period;
    }
    drop(file);
    let _ = std::fs::remove_file(&path);
    Some(samples)
}
