//! The computer seat inside a real registry of games: it sits only where a computer may.

use std::net::SocketAddr;

use tokio::sync::watch;

use super::*;
use crate::server::computer::engine_pool::EnginePool;
use crate::server::config::Config;
use crate::server::deps::Deps;
use crate::server::metrics::Metrics;
use crate::server::play::creation::{ComputerChoice, NewGame};
use crate::server::play::protocol::Side;
use crate::server::play::rooms::Rooms;
use crate::server::store::MemoryStore;

async fn first_state(agent: &mut Agent) -> Option<Side> {
    for _ in 0..16 {
        let text = tokio::time::timeout(Duration::from_secs(10), agent.recv())
            .await
            .expect("the room answers")
            .expect("the room keeps the agent");
        if let Ok(ServerMsg::State { d, .. }) = ServerMsg::from_text(&text) {
            return d.live.you;
        }
    }
    panic!("no state");
}

#[tokio::test]
async fn the_computers_proof_seats_it_only_in_a_computer_seat() {
    let (_keep, shutdown) = watch::channel(false);
    let config = Config::new(SocketAddr::from(([127, 0, 0, 1], 0)), "unused");
    let deps = Deps::new(
        Arc::new(MemoryStore::new()),
        config,
        Arc::new(Metrics::default()),
        shutdown,
    );
    let engines = Arc::new(EnginePool::new(1, Arc::clone(&deps.metrics)));
    let rooms = Rooms::new(&deps, engines);
    let human = rooms
        .create(NewGame::default(), None)
        .await
        .expect("created");
    let room = rooms.get(&human.id).await.ok().flatten().expect("live");
    let mut agent = Agent::attach_computer(room, ComputerProof::new(), 16)
        .await
        .expect("attached");
    assert_eq!(first_state(&mut agent).await, None, "a spectator there");

    let request = NewGame {
        color: Some(crate::server::play::creation::ColorChoice::White),
        computer: Some(ComputerChoice { level: 1 }),
        ..NewGame::default()
    };
    let against = rooms.create(request, None).await.expect("created");
    let room = rooms.get(&against.id).await.ok().flatten().expect("live");
    let mut agent = Agent::attach_computer(room, ComputerProof::new(), 16)
        .await
        .expect("attached");
    assert_eq!(first_state(&mut agent).await, Some(Side::Black));
}
