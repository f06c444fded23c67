//! The one test kit of the integration tests: every test file that talks to
//! a server, a store or the binary does `mod support;` and uses these
//! modules, so that there is one HTTP client, one WebSocket client, one raw
//! frame writer, one process spawner and one in-process server rig to keep
//! right (and to port to a second store backend). Only loopback (127.0.0.1, and other
//! 127.0.0.0/8 source addresses where a test needs distinct clients); every wait
//! is bounded; functions named `try_*` return failures as values (a killed
//! server is expected in some tests), the others panic with a message.
#![allow(dead_code)]

pub mod account;
pub mod arena;
pub mod audit;
pub mod browser;
pub mod cluster;
pub mod forwarding;
pub mod game;
pub mod golden;
pub mod http;
pub mod latency;
pub mod lobby;
pub mod nodes;
pub mod postgres;
pub mod process;
pub mod raw_db;
pub mod raw_ws;
pub mod redis;
pub mod rig;
pub mod rng;
pub mod roaming;
pub mod rules_util;
pub mod session;
pub mod store_contract;
pub mod ws;

use std::time::Duration;

use serde_json::Value;

/// The longest any single network step may take before it counts as failed.
pub const WAIT: Duration = Duration::from_secs(10);

/// A JSON string's text, or "" for anything else.
pub fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The strings of a JSON array (non-strings as ""); empty if not an array.
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(s).collect())
        .unwrap_or_default()
}

/// Polls `probe` every 50 ms until it returns true or `limit` passes.
pub async fn eventually<F, Fut>(limit: Duration, mut probe: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if probe().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
