//! Leases at work: every quarter of `--lease-secs`, one statement renews all of this node's
//! leases; a room whose lease is not in the answer is stopped as "moved" (its subscribers
//! reconnect to the new owner; nothing more is written: its commits would be fenced anyway).
//! The same pass reads which nodes are alive: a relay whose owner is not adopts the game
//! (claims it, the relay's sockets reconnect to the new room), and remote members whose node
//! died leave their rooms.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio::sync::watch;

use super::link::Link;
use crate::server::play::room::Command;
use crate::server::play::rooms::Rooms;

pub use super::lease_period as period;

pub fn spawn(rooms: Arc<Rooms>, link: Arc<Link>, mut shutdown: watch::Receiver<bool>) {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(period(link.lease));
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.changed() => break,
                _ = ticker.tick() => pass(&rooms, &link).await,
            }
        }
    });
}

/// One pass: renew, stop the rooms whose lease is gone, adopt the games of dead owners.
pub async fn pass(rooms: &Rooms, link: &Link) {
    let started = Instant::now();
    let renewed = rooms
        .store
        .renew_leases(link.node.as_str(), super::lease_ttl(link.lease))
        .await;
    let figures = &rooms.metrics.leases;
    figures.renew_latency.observe(started.elapsed());
    match renewed {
        Ok(held) => {
            figures.renewals.fetch_add(1, Ordering::Relaxed);
            let held: HashSet<(String, i64)> = held.into_iter().collect();
            for room in rooms.owned_rooms() {
                let Some(fence) = &room.fence else { continue };
                // A claim made after this renewal began may not be in its answer yet.
                if room.claimed_at >= started || held.contains(&(room.id.clone(), fence.epoch)) {
                    continue;
                }
                tracing::warn!(game = %room.id, "lease lost; stopping the room");
                figures.lost.fetch_add(1, Ordering::Relaxed);
                let _ = room.send(Command::Moved).await;
            }
        }
        // Postgres unreachable: the rooms go on; their commits fail (store_failure, nothing
        // acknowledged) and, once the lease ran out and another node took it, are fenced.
        Err(error) => tracing::warn!(%error, "could not renew the leases"),
    }
    let live = match rooms.store.live_nodes().await {
        Ok(live) if !live.is_empty() => live,
        Ok(_) => return,
        Err(error) => {
            tracing::warn!(%error, "could not read the live nodes");
            return;
        }
    };
    let mut live = live;
    live.sort();
    for (game, owner) in link.relay_games() {
        if live.binary_search(&owner).is_err() {
            tracing::info!(game = %game, "the owner of a relayed game is gone; adopting it");
            if let Err(error) = rooms.adopt(&game).await {
                tracing::warn!(game = %game, error = %error.message, "could not adopt a game");
            }
        }
    }
    link.bridge.drop_dead(&live).await;
}
