//! `/healthz` and `/metrics` of a node of several (issue 13): both dependencies reported, the
//! node degraded (503) while Redis is away and healthy again once it is back; the lease and
//! relay figures count a game owned on one node and relayed on another. In-process nodes on
//! one Postgres and one private redis-server (tests/support/nodes.rs).

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::WAIT;
use support::http::http;
use support::nodes::Nodes;
use support::rig::Rig;

async fn health(addr: std::net::SocketAddr) -> (u16, Value) {
    let (status, body) = http(addr, "GET", "/healthz", None).await;
    let body = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    (status, body)
}

/// The value of metric line `name` (exactly, labels included) in `/metrics`.
async fn metric(addr: std::net::SocketAddr, name: &str) -> Option<f64> {
    let (status, text) = http(addr, "GET", "/metrics", None).await;
    assert_eq!(status, 200);
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn one_node_reports_its_store_ok_and_no_bus() {
    let rig = Rig::start().await;
    let (status, body) = health(rig.addr()).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"status": "ok", "store": "ok", "bus": "none"}));
}

#[tokio::test]
async fn a_node_is_degraded_while_redis_is_away_and_healthy_once_it_is_back() {
    let Some(mut nodes) = Nodes::start("cluster_health", 1, Duration::from_secs(2), |_| {}).await
    else {
        return;
    };
    let addr = nodes.addr(1);
    assert_eq!(
        health(addr).await,
        (200, json!({"status": "ok", "store": "ok", "bus": "ok"}))
    );
    nodes.redis.stop();
    let degraded = support::eventually(WAIT, || async {
        health(addr).await
            == (
                503,
                json!({"status": "degraded", "store": "ok", "bus": "down"}),
            )
    })
    .await;
    assert!(degraded, "{:?}", health(addr).await);
    nodes.redis.restart().await;
    let back = support::eventually(WAIT, || async { health(addr).await.0 == 200 }).await;
    assert!(back, "{:?}", health(addr).await);
}

#[tokio::test]
async fn a_game_made_on_node_1_is_owned_there_and_relayed_by_node_2() {
    let Some(nodes) = Nodes::start("cluster_metrics", 2, Duration::from_secs(2), |_| {}).await
    else {
        return;
    };
    let (id, white, _) = nodes.node(1).create(json!({"color": "white"})).await;
    let (black, _) = nodes.node(2).join(&id).await;
    let _white = nodes.node(1).seat(&id, &white).await;
    let _black = nodes.node(2).seat(&id, &black).await;
    assert_eq!(
        metric(nodes.addr(1), "marseillais_games_owned").await,
        Some(1.0)
    );
    assert_eq!(
        metric(nodes.addr(1), "marseillais_games_relayed").await,
        Some(0.0)
    );
    assert_eq!(
        metric(nodes.addr(2), "marseillais_games_owned").await,
        Some(0.0)
    );
    assert_eq!(
        metric(nodes.addr(2), "marseillais_games_relayed").await,
        Some(1.0)
    );
    assert!(
        metric(
            nodes.addr(2),
            "marseillais_lease_claims_total{result=\"held\"}"
        )
        .await
        .is_some_and(|held| held >= 1.0)
    );
    assert!(
        metric(nodes.addr(1), "marseillais_bus_connected")
            .await
            .is_some_and(|up| up == 1.0)
    );
}
