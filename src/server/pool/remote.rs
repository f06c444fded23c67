//! Quick pairing on several nodes: the pools run on one node, the lobby's owner (the node that
//! runs the challenges), so that pages on every node meet in the same queues. A page on
//! another node has its `pool_in` and `pool_out` forwarded to the owner over the bus
//! ([`Op::PoolIn`], [`Op::PoolOut`]); the owner seats it under a connection id of its own
//! (a proxy: connection ids are only unique per node) and sends its seat, or its replacement,
//! back to the page's node ([`Wire::PoolTold`](crate::server::cluster::lobby_wire::Wire)); the
//! owner's `pools` count goes to every node. A closed page's seek is withdrawn by a message
//! that needs no answer.
//!
//! If the lobby's lease moves to another node, the old owner's queues are not the new one's:
//! every page that waited through another owner is told `pool_left` (`interrupted`), and the
//! client joins again.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::server::cluster::lobby::LobbyLink;
use crate::server::cluster::lobby_wire::{Op, Outcome, WirePage};
use crate::server::play::protocol::{ErrorCode, ErrorMsg, Refusal};
use crate::server::play::room::{ConnId, fanout};
use crate::server::store::Store;

use super::catalog::QueueKey;
use super::msg::{LeftReason, PoolMsg};
use super::nodes::{RemoteWait, lock};
use super::queue::Seeker;
use super::{Page, Pools, SeekEnd, left_msg, paired_msg};

/// How often the owner sends its `pools` count even when it did not change: a node that
/// joined the bus since, or missed a message, is up to date within this.
pub const COUNTS_REFRESH: Duration = Duration::from_secs(2);

fn refusal_outcome(refusal: &Refusal) -> Outcome {
    Outcome {
        status: 400,
        retry_after: None,
        body: serde_json::to_string(&ErrorMsg::new(refusal, None)).unwrap_or_default(),
    }
}

fn done(status: u16) -> Outcome {
    Outcome {
        status,
        retry_after: None,
        body: String::new(),
    }
}

fn unavailable() -> Refusal {
    Refusal::new(
        ErrorCode::NotAvailable,
        "quick pairing is not available just now; try again",
    )
}

impl Pools {
    /// Makes these pools one node's of several (once).
    pub fn link(&self, link: Arc<LobbyLink>) {
        let _ = self.remote.link.set(link);
    }

    /// The lobby's owner when it is another node: the pools to forward to.
    pub(super) fn remote_owner(&self) -> Option<(Arc<LobbyLink>, String)> {
        let link = self.remote.link.get()?;
        link.remote_owner().map(|owner| (Arc::clone(link), owner))
    }

    /// Whether this node runs the pools and others follow it.
    fn leads(&self) -> bool {
        self.remote.link.get().is_some() && self.remote_owner().is_none()
    }

    /// On the owner: the counts for every node, when they changed or are due again.
    pub(super) fn share_counts(&self, text: &str, changed: bool) {
        let Some(link) = self.remote.link.get() else {
            return;
        };
        if !self.leads() {
            return;
        }
        let now = Instant::now();
        let mut last = lock(&self.remote.last_counts);
        if changed || last.is_none_or(|at| now.duration_since(at) >= COUNTS_REFRESH) {
            *last = Some(now);
            link.pool_counts(text.to_owned());
        }
    }

    /// On a node that follows: the owner's `pools` message.
    pub fn counts_from_owner(&self, text: String) {
        if self.leads() {
            return;
        }
        self.set_counts(Arc::from(text));
    }

    /// On the page's node: a page's `pool_in` sent to the owner; the receiver gets what the
    /// page is then told (its seat, or its seek replaced or interrupted).
    pub(super) async fn join_remote(
        &self,
        (link, owner): (Arc<LobbyLink>, String),
        page: WirePage,
        key: QueueKey,
    ) -> Result<oneshot::Receiver<String>, Refusal> {
        let conn = page.conn;
        // Registered first: the seat may come before the answer.
        let (tell, told) = oneshot::channel();
        let earlier = lock(&self.remote.waits).insert(
            conn,
            RemoteWait {
                owner: owner.clone(),
                tell,
            },
        );
        let op = Op::PoolIn {
            page,
            pool: key.pool().id.to_owned(),
            rated: key.rated,
        };
        let answer = link.ask(&owner, op).await;
        let refused = match answer {
            Ok(outcome) if outcome.status < 300 => return Ok(told),
            Ok(outcome) => serde_json::from_str::<ErrorMsg>(&outcome.body)
                .map(|e| Refusal::new(e.code, e.message))
                .unwrap_or_else(|_| unavailable()),
            Err(_) => unavailable(),
        };
        // Refused: the page's earlier seek, if any, still waits and is still told.
        let mut waits = lock(&self.remote.waits);
        match earlier {
            Some(earlier) => waits.insert(conn, earlier),
            None => waits.remove(&conn),
        };
        Err(refused)
    }

    /// On the page's node: a page's `pool_out` sent to the owner; whether it left (`false`:
    /// a wave took it, its seat follows).
    pub(super) async fn leave_remote(
        &self,
        (link, owner): (Arc<LobbyLink>, String),
        page: WirePage,
        key: QueueKey,
    ) -> bool {
        let conn = page.conn;
        let op = Op::PoolOut {
            page,
            pool: key.pool().id.to_owned(),
            rated: key.rated,
        };
        let left = matches!(link.ask(&owner, op).await, Ok(outcome) if outcome.status == 204);
        if left {
            lock(&self.remote.waits).remove(&conn);
        }
        left
    }

    /// On the page's node: the page closed while it waited in the owner's pools.
    pub(super) fn closed_remote(&self, page: WirePage, key: QueueKey) {
        let Some(wait) = lock(&self.remote.waits).remove(&page.conn) else {
            return;
        };
        if let Some(link) = self.remote.link.get() {
            let op = Op::PoolOut {
                page,
                pool: key.pool().id.to_owned(),
                rated: key.rated,
            };
            link.tell_owner(&wait.owner, op);
        }
    }

    /// On the page's node: what the owner tells one of its pages.
    pub fn told(&self, conn: ConnId, text: String) {
        if let Some(wait) = lock(&self.remote.waits).remove(&conn) {
            let _ = wait.tell.send(text);
        }
    }

    /// On the page's node: seeks made through an owner that no longer owns the lobby are gone
    /// with its queues; their pages are told so (the sender dropped: `interrupted`).
    pub(super) fn drop_stale_waits(&self) {
        let Some(link) = self.remote.link.get() else {
            return;
        };
        let owner = link.remote_owner();
        lock(&self.remote.waits).retain(|_, wait| Some(&wait.owner) == owner.as_ref());
    }

    /// On the owner: a pool operation forwarded by another node, carried out; its answer.
    pub async fn run_forwarded(&self, store: &dyn Store, op: Op) -> Outcome {
        match op {
            Op::PoolIn { page, pool, rated } => {
                match self.join_for(store, page, &pool, rated).await {
                    Ok(()) => done(204),
                    Err(refusal) => refusal_outcome(&refusal),
                }
            }
            Op::PoolOut { page, pool, rated } => {
                let Some(key) = QueueKey::find(&pool, rated) else {
                    return done(404);
                };
                // Forgotten first: the seek's end, if it comes meanwhile, is not told (this
                // answer tells the page).
                let proxy = lock(&self.remote.proxies).remove(&(page.node.clone(), page.conn));
                let seeker = match page.account.as_ref().map(|a| a.id) {
                    Some(id) => Seeker::Account(crate::server::domain::user::UserId(id)),
                    None => match proxy {
                        Some(proxy) => Seeker::Anonymous(proxy),
                        None => return done(404),
                    },
                };
                match proxy {
                    Some(proxy) if self.leave(key, seeker, proxy) => done(204),
                    _ => done(404),
                }
            }
            _ => done(400),
        }
    }

    /// On the owner: seats a page of another node in the queue `pool`, and sends it what
    /// happens to its seek.
    async fn join_for(
        &self,
        store: &dyn Store,
        page: WirePage,
        pool: &str,
        rated: bool,
    ) -> Result<(), Refusal> {
        let key = QueueKey::find(pool, rated).ok_or_else(|| {
            Refusal::new(ErrorCode::BadMessage, format!("pool: {pool:?} is no pool"))
        })?;
        let account = match &page.account {
            Some(account) => Some(
                account
                    .account()
                    .map_err(|e| Refusal::new(ErrorCode::BadMessage, e.to_string()))?,
            ),
            None => None,
        };
        let place = (page.node.clone(), page.conn);
        // A fresh proxy for every join: a message about an earlier seek of this page (its
        // replacement by this one) is then known as stale and never sent.
        let proxy = fanout::next_conn();
        if let Some(earlier) = lock(&self.remote.proxies).insert(place.clone(), proxy) {
            self.withdraw_conn(earlier);
        }
        let here = Page {
            account: account.as_ref(),
            conn: proxy,
            ip: page.ip,
        };
        let outcome = self
            .join(store, key, here, std::collections::HashSet::new())
            .await;
        let paired = match outcome {
            Ok(paired) => paired,
            Err(refusal) => {
                lock(&self.remote.proxies).remove(&place);
                return Err(refusal);
            }
        };
        let Some(link) = self.remote.link.get().cloned() else {
            return Err(unavailable());
        };
        let remote = Arc::clone(&self.remote);
        tokio::spawn(async move {
            let outcome = paired.await;
            let current = {
                let mut proxies = lock(&remote.proxies);
                let current = proxies.get(&place) == Some(&proxy);
                if current {
                    proxies.remove(&place);
                }
                current
            };
            let msg = match outcome {
                // A seat is always sent: the game exists.
                Ok(SeekEnd::Paired(seat)) => paired_msg(key, seat),
                // Left, or replaced by the same page's next join: nothing to tell.
                _ if !current => return,
                Ok(SeekEnd::Replaced) => left_msg(key, LeftReason::Replaced),
                // The pools went away (this node stopping): the page joins again elsewhere.
                Err(_) => interrupted(key),
            };
            link.pool_told(&place.0, place.1, msg.to_text());
        });
        Ok(())
    }
}

/// A page's node name and connection, as the owner's operations name it.
pub(super) fn wire_page(link: &LobbyLink, page: Page<'_>) -> WirePage {
    WirePage {
        node: link.node().as_str().to_owned(),
        conn: page.conn,
        account: page.account.map(Into::into),
        ip: page.ip,
    }
}

/// What a page waiting through another node is told when its wait ends without a word (the
/// owner's lease moved).
pub(super) fn interrupted(key: QueueKey) -> PoolMsg {
    left_msg(key, LeftReason::Interrupted)
}
