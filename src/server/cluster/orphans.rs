//! Orphans: live games being played that no node holds a lease on (their owner died with
//! nobody watching them). Every quarter of `--lease-secs` (plus jitter, so that nodes do not
//! sweep in step), a node claims a share of them (about `n / live nodes`, in random order)
//! and loads each into a room, as at startup: its clock runs again and flags the game if its
//! time is up. The time while no node owned it counts like a restart (paused clocks).

use std::sync::Arc;
use std::time::Duration;

use rand::RngExt;
use rand::seq::SliceRandom;
use tokio::sync::watch;

use super::lease_loop::period;
use super::link::Link;
use crate::server::play::rooms::Rooms;

/// Orphans read per sweep.
const SWEEP: u32 = 64;

pub fn spawn(rooms: Arc<Rooms>, link: Arc<Link>, mut shutdown: watch::Receiver<bool>) {
    tokio::spawn(async move {
        let base = period(link.lease);
        loop {
            sweep(&rooms).await;
            let jitter_ms = rand::rng().random_range(0..=base.as_millis().max(1) as u64);
            let wait = base + Duration::from_millis(jitter_ms);
            tokio::select! {
                _ = shutdown.changed() => break,
                _ = tokio::time::sleep(wait) => {}
            }
        }
    });
}

/// One sweep; returns how many games were adopted.
pub async fn sweep(rooms: &Rooms) -> usize {
    let mut orphans = match rooms.store.orphaned_games(SWEEP).await {
        Ok(orphans) => orphans,
        Err(error) => {
            tracing::warn!(%error, "could not read the orphaned games");
            return 0;
        }
    };
    if orphans.is_empty() {
        return 0;
    }
    let nodes = rooms.store.live_nodes().await.map_or(1, |n| n.len().max(1));
    let share = orphans.len().div_ceil(nodes);
    orphans.shuffle(&mut rand::rng());
    let mut adopted = 0;
    for game in orphans.into_iter().take(share) {
        match rooms.get(&game).await {
            Ok(Some(room)) if !room.relay => adopted += 1,
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(game = %game, error = %error.message, "could not adopt an orphan")
            }
        }
    }
    if adopted > 0 {
        tracing::info!(adopted, "orphaned games adopted");
    }
    adopted
}
