//! The arenas' pairing task: every `pairing_every` (2 s), each running arena whose pairing
//! this node holds is stepped ([`Arenas::step`]: the players waiting are paired, their games
//! made); every minute the schedule's arenas are announced. On several nodes one node pairs an
//! arena at a time: it holds the arena's lease (`arena:{id}`, claimed again at every step, as
//! the lobby's is), and a node that dies loses it to another once the lease runs out; since a
//! step reads everything afresh from the store, the next owner carries on where it stopped.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::server::store::Claim;

use super::service::{Arenas, Lease};

/// How often the schedule's arenas are announced.
const ANNOUNCE_EVERY: Duration = Duration::from_secs(60);

/// The lease key of arena `id` (beside the games' and the lobby's in the same table).
pub fn lease_key(id: &str) -> String {
    format!("arena:{id}")
}

pub fn spawn(arenas: Arc<Arenas>, lease: Option<Lease>, mut shutdown: watch::Receiver<bool>) {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(arenas.settings.pairing_every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut announced: Option<Instant> = None;
        loop {
            tokio::select! {
                _ = shutdown.changed() => break,
                _ = ticker.tick() => {}
            }
            if announced.is_none_or(|at| at.elapsed() >= ANNOUNCE_EVERY) {
                arenas.announce().await;
                announced = Some(Instant::now());
            }
            pass(&arenas, lease.as_ref()).await;
        }
    });
}

/// One pass over the running arenas.
async fn pass(arenas: &Arenas, lease: Option<&Lease>) {
    let running = match arenas.running().await {
        Ok(running) => running,
        Err(_) => return,
    };
    for tournament in running {
        if !holds(arenas, lease, &tournament.id).await {
            continue;
        }
        if let Err(error) = arenas.step(&tournament.id).await {
            tracing::warn!(arena = %tournament.id, %error, "an arena's pairing step failed");
        }
    }
}

/// Whether this node pairs arena `id` now (one node: always).
async fn holds(arenas: &Arenas, lease: Option<&Lease>, id: &str) -> bool {
    let Some(lease) = lease else {
        return true;
    };
    match arenas
        .store
        .claim_game(&lease_key(id), &lease.node, lease.ttl)
        .await
    {
        Ok(Claim::Owned(_)) => true,
        Ok(Claim::Held(_)) => false,
        Err(error) => {
            tracing::warn!(arena = %id, %error, "could not claim an arena's lease");
            false
        }
    }
}
