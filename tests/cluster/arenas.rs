//! Arenas on three in-process nodes (issue 29): one Postgres database, one private
//! redis-server. The players join through different nodes; one node at a time pairs the arena
//! (the lease `arena:{id}`): every pair gets exactly one game, however many nodes step; when the
//! node that pairs stops, another takes the lease over once it runs out.

use crate::support;

use std::time::Duration;

use marseillais::server::config::ArenaScheduleChoice;
use marseillais::server::store::{PostgresStore, Store};
use support::arena::{arena_now, games, join, paired, until, white_mates};
use support::nodes::Nodes;
use support::session::Session;

#[tokio::test]
async fn one_node_pairs_an_arena_for_players_of_every_node_and_another_takes_over_when_it_stops() {
    let Some(mut nodes) = Nodes::start("cluster_arena", 3, Duration::from_secs(3), |c| {
        c.arena.pairing_every = Duration::from_millis(50);
        c.arena.schedule = ArenaScheduleChoice::Off;
    })
    .await
    else {
        return;
    };
    let names = ["ann", "ben", "cid", "dee"];
    let mut players = Vec::new();
    for (i, name) in names.iter().enumerate() {
        players.push(Session::register(nodes.addr(1 + i % 3), name).await);
    }
    let node_of = |i: usize| 1 + i % 3;
    let id = arena_now(nodes.addr(1), &players[0], 60).await;
    for (i, p) in players.iter().enumerate() {
        join(nodes.addr(node_of(i)), p, &id).await;
    }
    let mut first = Vec::new();
    for (i, p) in players.iter().enumerate() {
        first.push(paired(nodes.addr(node_of(i)), p, &id).await);
    }
    // Exactly two games for four players: no second node paired them again.
    let page = until(nodes.addr(2), &players[1], &id, |p| games(p) == 2).await;
    assert_eq!(games(&page), 2, "{page}");
    let ids: std::collections::BTreeSet<&str> = first.iter().map(|(g, _)| g.as_str()).collect();
    assert_eq!(ids.len(), 2, "each player in one of two games: {first:?}");

    // Both games end (each played through its players' nodes); the four are paired again,
    // once each: four games, no more.
    for game in &ids {
        let of = |color: &str| {
            first
                .iter()
                .position(|(g, c)| g == game && c == color)
                .expect("both colours")
        };
        let (white, black) = (of("white"), of("black"));
        white_mates(
            nodes.addr(node_of(white)),
            &players[white],
            &players[black],
            game,
        )
        .await;
    }
    let page = until(nodes.addr(3), &players[2], &id, |p| games(p) == 4).await;
    assert_eq!(games(&page), 4, "two new games, no more: {page}");

    // The node that pairs the arena stops; another node takes its lease over.
    let store = PostgresStore::open(&nodes.db.url)
        .await
        .expect("the test's store");
    let lease = format!("arena:{id}");
    let owner = store
        .game_owner(&lease)
        .await
        .expect("read")
        .expect("a node pairs the arena");
    let stopped: usize = owner.node.trim_start_matches('n').parse().expect("n1..n3");
    nodes.node_mut(stopped).pause().await;
    // Bounded: the lease (3 s) runs out and a live node's next step claims it.
    let mut taken = None;
    for _ in 0..300 {
        match store.game_owner(&lease).await.expect("read") {
            Some(fence) if fence.node != owner.node => {
                taken = Some(fence);
                break;
            }
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    let taken = taken.expect("another node pairs the arena");
    assert!(taken.epoch > owner.epoch, "a takeover fences the old owner");
    store.close().await;
}
