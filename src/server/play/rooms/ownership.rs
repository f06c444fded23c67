//! Several nodes: who runs a game. A game is claimed for this node on first need (its room
//! runs here) or relayed to the node that holds it; the lease pass adopts the relays of a dead
//! owner; a new game is claimed before its first commit.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::server::cluster::{self, link::Link};
use crate::server::game::GameState;
use crate::server::play::protocol::Refusal;
use crate::server::play::room::{Command, Room};
use crate::server::store::{Claim, Fence, StoreError};

use super::{Rooms, store_refusal};

impl Rooms {
    /// Several nodes: claims game `id` for this node and runs its room, or relays it to the
    /// node that holds it. Claims of one game on this node are serialized.
    pub(super) async fn claim_or_relay(
        &self,
        id: &str,
        link: &Arc<Link>,
    ) -> Result<Option<Arc<Room>>, Refusal> {
        let lock = Arc::clone(self.claiming.entry(id.to_owned()).or_default().value());
        let result = {
            let _one_at_a_time = lock.lock().await;
            let live = self.map.get(id).map(|room| Arc::clone(room.value()));
            match live {
                Some(room) if !room.is_closed() => Ok(Some(room)),
                _ => self.claim_locked(id, link).await,
            }
        };
        drop(lock);
        self.claiming
            .remove_if(id, |_, lock| Arc::strong_count(lock) == 1);
        result
    }

    pub(super) async fn claim_locked(
        &self,
        id: &str,
        link: &Arc<Link>,
    ) -> Result<Option<Arc<Room>>, Refusal> {
        // Unknown ids must not make leases.
        if self
            .store
            .load_game(id)
            .await
            .map_err(store_refusal)?
            .is_none()
        {
            return Ok(None);
        }
        let claim = self
            .store
            .claim_game(id, link.node.as_str(), cluster::lease_ttl(link.lease))
            .await
            .map_err(store_refusal)?;
        let figures = &self.metrics.leases;
        match claim {
            Claim::Owned(fence) => self.run_owned(id, link, fence).await,
            Claim::Held(owner) => {
                figures.claims_held.fetch_add(1, Ordering::Relaxed);
                let instance = self.next_instance.fetch_add(1, Ordering::Relaxed);
                let relay = cluster::relay::spawn(
                    link,
                    id,
                    &owner.node,
                    instance,
                    self.config.retire_after,
                    self.shutdown.clone(),
                );
                self.map.insert(id.to_owned(), Arc::clone(&relay));
                Ok(Some(relay))
            }
        }
    }

    /// Runs game `id`, just claimed under `fence`, in a room here. A room already running it
    /// under that lease (this node held it) is kept: its sockets and remote members are the
    /// game's, and a second room would leave them in one that nobody else joins (each room's
    /// moves reaching only its own players). A relay (its owner died) or a stopped room gives
    /// way: the relay's sockets reconnect to the new room. So does a room under an older lease
    /// of this node (its commits would be fenced), told that the game moved so that its
    /// sockets reconnect too.
    pub(super) async fn run_owned(
        &self,
        id: &str,
        link: &Arc<Link>,
        fence: Fence,
    ) -> Result<Option<Arc<Room>>, Refusal> {
        self.metrics
            .leases
            .claims_owned
            .fetch_add(1, Ordering::Relaxed);
        if let Some(old) = self.map.get(id).map(|r| Arc::clone(r.value())) {
            if !old.relay && !old.is_closed() {
                if old.fence.as_ref() == Some(&fence) {
                    tracing::info!(
                        game = id,
                        room = old.instance,
                        "the game already runs here under this lease; keeping its room"
                    );
                    return Ok(Some(old));
                }
                let _ = old.send(Command::Moved).await;
            }
            self.remove(id, old.instance);
            link.resync_relay(id);
        }
        self.load(id, Some(fence)).await
    }

    /// Several nodes: the owner of relayed game `id` is gone; claims the game for this node
    /// (the relay's sockets reconnect to the new room). While the dead owner's lease has not
    /// run out yet the relay stays as it is (the next lease pass tries again); if another
    /// node took the game first, the relay's sockets reconnect and find that one. A game that
    /// runs here already, or is no longer relayed, is left as it is. Public for the lease
    /// loop and for tests.
    pub async fn adopt(&self, id: &str) -> Result<Option<Arc<Room>>, Refusal> {
        let Some(link) = self.cluster.get() else {
            return self.get(id).await;
        };
        let lock = Arc::clone(self.claiming.entry(id.to_owned()).or_default().value());
        let result = {
            let _one_at_a_time = lock.lock().await;
            self.adopt_locked(id, link).await
        };
        drop(lock);
        self.claiming
            .remove_if(id, |_, lock| Arc::strong_count(lock) == 1);
        result
    }

    pub(super) async fn adopt_locked(
        &self,
        id: &str,
        link: &Arc<Link>,
    ) -> Result<Option<Arc<Room>>, Refusal> {
        // The lease pass lists the relays, then adopts them one at a time: meanwhile a socket
        // may have claimed the game and started its room here (the relay resynced, say at a
        // `Started` of the restarted owner). That room is the game's; there is nothing to
        // adopt.
        let live = self.map.get(id).map(|room| Arc::clone(room.value()));
        if let Some(room) = live.filter(|room| !room.relay && !room.is_closed()) {
            tracing::info!(
                game = id,
                room = room.instance,
                "the game already runs here; keeping its room rather than adopting it"
            );
            return Ok(Some(room));
        }
        // The relay is gone (it resynced): its sockets' next lookup claims the game or finds
        // its owner.
        if link.relay_owner(id).is_none() {
            return Ok(None);
        }
        let claim = self
            .store
            .claim_game(id, link.node.as_str(), cluster::lease_ttl(link.lease))
            .await
            .map_err(store_refusal)?;
        match claim {
            Claim::Owned(fence) => self.run_owned(id, link, fence).await,
            Claim::Held(holder) => {
                if link.relay_owner(id).as_deref() != Some(holder.node.as_str()) {
                    link.resync_relay(id);
                }
                Ok(None)
            }
        }
    }

    /// Several nodes: a new game made here (committed, not yet in a room) is claimed by this
    /// node, which runs its room; games spread with the load balancer.
    pub(super) async fn claim_new(
        &self,
        state: GameState,
        recent: Vec<(u64, String)>,
    ) -> Result<(), StoreError> {
        let Some(link) = self.cluster.get() else {
            self.install(state, recent, None);
            return Ok(());
        };
        match self
            .store
            .claim_game(
                &state.id,
                link.node.as_str(),
                cluster::lease_ttl(link.lease),
            )
            .await?
        {
            Claim::Owned(fence) => {
                self.metrics
                    .leases
                    .claims_owned
                    .fetch_add(1, Ordering::Relaxed);
                self.install(state, recent, Some(fence));
            }
            // Another node asked for it in the meantime: it runs it, the next lookup relays.
            Claim::Held(_) => {
                self.metrics
                    .leases
                    .claims_held
                    .fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }
}
