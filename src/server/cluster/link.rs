//! This node's place among several: its bus, its lane, the relays it runs for games owned
//! elsewhere, the HTTP questions it is waiting on, and the remote members of the games it
//! owns ([`super::bridge`]). One task reads the lane and hands each message to whoever it is
//! for, in lane order (a relay's `Connect` reaches the owner's room before its `Act`s).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use dashmap::DashMap;
use tokio::sync::{mpsc, oneshot, watch};

use super::bridge::Bridge;
use super::bus::Subscription;
use super::games::LocalGames;
use super::lane::RelayIn;
use super::lane::{self, AskReply, AskWhat, LaneMsg};
use super::{Bus, BusError, BusEvent, ClusterConfig, NodeId};

/// How long a relay waits for the owner's answer to an HTTP question.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(5);

/// Lane messages a node's subscription holds before the bus reports a gap.
const LANE_QUEUE: usize = 8192;

struct RelayEntry {
    instance: u64,
    /// The node the relay forwards to.
    owner: String,
    tx: mpsc::UnboundedSender<RelayIn>,
}

pub struct Link {
    pub bus: Arc<Bus>,
    pub node: NodeId,
    /// `--lease-secs`.
    pub lease: Duration,
    pub(super) rooms: Weak<dyn LocalGames>,
    /// The relays of this node by game.
    relays: DashMap<String, RelayEntry>,
    asks: DashMap<u64, oneshot::Sender<AskReply>>,
    next_ask: AtomicU64,
    pub(super) bridge: Bridge,
}

impl Link {
    /// Connects the bus and subscribes this node's lane (a node does not start without
    /// them), then reads the lane until shutdown.
    pub async fn start(
        rooms: &Arc<dyn LocalGames>,
        cluster: &ClusterConfig,
        shutdown: watch::Receiver<bool>,
    ) -> Result<Arc<Link>, BusError> {
        let bus = Bus::connect(&cluster.bus).await?;
        let subscription = bus
            .subscribe(&lane::channel(cluster.node.as_str()), LANE_QUEUE)
            .await?;
        let link = Arc::new(Link {
            bus,
            node: cluster.node.clone(),
            lease: cluster.lease,
            rooms: Arc::downgrade(rooms),
            relays: DashMap::new(),
            asks: DashMap::new(),
            next_ask: AtomicU64::new(1),
            bridge: Bridge::default(),
        });
        tokio::spawn(Arc::clone(&link).read_lane(subscription, shutdown));
        Ok(link)
    }

    /// Publishes `msg` on `node`'s lane.
    pub fn publish(&self, node: &str, msg: &LaneMsg) {
        self.bus.publish(&lane::channel(node), msg.encode());
    }

    pub fn relays(&self) -> usize {
        self.relays.len()
    }

    /// Every relay's game and owner node.
    pub fn relay_games(&self) -> Vec<(String, String)> {
        self.relays
            .iter()
            .map(|e| (e.key().clone(), e.value().owner.clone()))
            .collect()
    }

    /// The node game `game`'s relay forwards to, if this node relays it.
    pub fn relay_owner(&self, game: &str) -> Option<String> {
        self.relays.get(game).map(|e| e.owner.clone())
    }

    pub(super) fn add_relay(
        &self,
        game: &str,
        instance: u64,
        owner: &str,
        tx: mpsc::UnboundedSender<RelayIn>,
    ) {
        let entry = RelayEntry {
            instance,
            owner: owner.to_owned(),
            tx,
        };
        self.relays.insert(game.to_owned(), entry);
    }

    pub(super) fn forget_relay(&self, game: &str, instance: u64) {
        self.relays.remove_if(game, |_, e| e.instance == instance);
        if let Some(rooms) = self.rooms.upgrade() {
            rooms.forget(game, instance);
        }
    }

    /// Tells every live node that this one (re)started (published on their lanes).
    pub async fn announce_start(&self, store: &dyn crate::server::store::Store) {
        let nodes = match store.live_nodes().await {
            Ok(nodes) => nodes,
            Err(error) => {
                tracing::warn!(%error, "could not read the live nodes to announce this start");
                return;
            }
        };
        let me = self.node.to_string();
        for node in nodes.iter().filter(|n| **n != me) {
            self.publish(node, &LaneMsg::Started { node: me.clone() });
        }
    }

    /// Tells game `game`'s relay (if any) to close its sockets so that they reconnect.
    pub fn resync_relay(&self, game: &str) {
        if let Some(relay) = self.relays.get(game) {
            let _ = relay.tx.send(RelayIn::Resync);
        }
    }

    /// Asks `owner` about `game` (an HTTP command); `None` if no answer came in time.
    pub async fn ask(&self, owner: &str, game: &str, what: AskWhat) -> Option<AskReply> {
        let id = self.next_ask.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.asks.insert(id, tx);
        self.publish(
            owner,
            &LaneMsg::Ask {
                game: game.to_owned(),
                from: self.node.to_string(),
                id,
                what,
            },
        );
        let answer = tokio::time::timeout(ASK_TIMEOUT, rx).await;
        self.asks.remove(&id);
        answer.ok().and_then(Result::ok)
    }

    fn to_relay(&self, game: &str, input: RelayIn) {
        if let Some(relay) = self.relays.get(game) {
            let _ = relay.tx.send(input);
        }
    }

    async fn read_lane(
        self: Arc<Self>,
        mut subscription: Subscription,
        mut shutdown: watch::Receiver<bool>,
    ) {
        loop {
            let event = tokio::select! {
                _ = shutdown.changed() => break,
                event = subscription.events.recv() => match event {
                    Some(event) => event,
                    None => break,
                },
            };
            let bytes = match event {
                BusEvent::Message(bytes) => bytes,
                BusEvent::Gap => {
                    // Messages to or from this node may be lost: every relay resyncs, and
                    // every remote member of the games run here reconnects.
                    tracing::warn!(node = %self.node, "lane gap: resyncing relays and remote members");
                    for relay in self.relays.iter() {
                        let _ = relay.tx.send(RelayIn::Resync);
                    }
                    self.bridge.gap(&self).await;
                    continue;
                }
            };
            let msg = match LaneMsg::decode(&bytes) {
                Ok(msg) => msg,
                Err(error) => {
                    tracing::warn!(%error, "ignoring a lane message");
                    continue;
                }
            };
            self.dispatch(msg).await;
        }
    }

    async fn dispatch(self: &Arc<Self>, msg: LaneMsg) {
        let Some(rooms) = self.rooms.upgrade() else {
            return;
        };
        match msg {
            LaneMsg::Connect {
                game,
                from,
                conn,
                token,
                account,
                since,
            } => {
                self.bridge
                    .connect(self, &*rooms, &game, &from, conn, token, account, since)
                    .await
            }
            LaneMsg::Act {
                game,
                from,
                conn,
                msg,
                rtt,
            } => self.bridge.act(self, &game, &from, conn, &msg, rtt).await,
            LaneMsg::Disconnect { from, conn, .. } => self.bridge.disconnect(&from, conn).await,
            // In lane order, without a task: the answer follows every `Deliver` it counts on
            // the asking node's lane (see `Bridge::sent`).
            LaneMsg::Ask {
                game,
                from,
                id,
                what: AskWhat::Check { conns },
            } => {
                let sent = self.bridge.sent(&from, &game, &conns);
                self.publish(
                    &from,
                    &LaneMsg::Answer {
                        id,
                        reply: AskReply::Check { sent },
                    },
                );
            }
            LaneMsg::Ask {
                game,
                from,
                id,
                what,
            } => {
                let link = Arc::clone(self);
                tokio::spawn(async move {
                    let reply = super::bridge::answer(&*rooms, &game, what).await;
                    link.publish(&from, &LaneMsg::Answer { id, reply });
                });
            }
            LaneMsg::Answer { id, reply } => {
                if let Some((_, tx)) = self.asks.remove(&id) {
                    let _ = tx.send(reply);
                }
            }
            LaneMsg::Deliver {
                game,
                conn,
                seq,
                text,
            } => self.to_relay(&game, RelayIn::Deliver { conn, seq, text }),
            LaneMsg::Ended { game, conn, lagged } => {
                self.to_relay(&game, RelayIn::Ended { conn, lagged })
            }
            LaneMsg::Moved { game } => self.to_relay(&game, RelayIn::Resync),
            LaneMsg::Started { node } => {
                tracing::info!(%node, "a node (re)started: resyncing the relays towards it");
                for relay in self.relays.iter().filter(|r| r.owner == node) {
                    let _ = relay.tx.send(RelayIn::Resync);
                }
                self.bridge.drop_node(&node).await;
            }
        }
    }
}
