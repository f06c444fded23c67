//! `GET /api/pools`: the pools and how many wait in each (the `pools` message's payload, for
//! a page before its lobby channel is open, or a client that has none).

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::routing::get;

use super::Pools;
use super::msg::PoolsMsg;

pub fn router(pools: Arc<Pools>) -> Router {
    Router::new()
        .route("/api/pools", get(census))
        .with_state(pools)
}

async fn census(State(pools): State<Arc<Pools>>) -> axum::Json<PoolsMsg> {
    axum::Json(pools.census())
}
