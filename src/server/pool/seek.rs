//! One lobby page's seek: the page's `pool_in` and `pool_out`, what it is told back, and the
//! seek withdrawn when the page closes (its lobby channel holds a [`PageSeek`], whose drop
//! leaves the queue at once: no grace, a closed page cannot play).

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::Arc;

use tokio::sync::oneshot;

use crate::server::play::protocol::Refusal;
use crate::server::play::room::ConnId;
use crate::server::players::account::Account;
use crate::server::safety::playban;
use crate::server::store::Store;

use super::catalog::QueueKey;
use super::msg::{LeftReason, PoolMsg, PoolRequest};
use super::queue::Seeker;
use super::remote::{interrupted, wire_page};
use super::{Page, Pools, SeekEnd, left_msg, paired_msg};

/// How a page's seek ends: from this node's pools, a seat; from the owner's (several nodes),
/// the text it is to be told.
enum Waiting {
    Local(oneshot::Receiver<SeekEnd>),
    Remote(oneshot::Receiver<String>),
}

/// A lobby page's seek, at most one at a time.
pub struct PageSeek {
    pools: Arc<Pools>,
    account: Option<Account>,
    conn: ConnId,
    ip: IpAddr,
    waiting: Option<(QueueKey, Waiting)>,
}

impl PageSeek {
    pub fn new(pools: Arc<Pools>, account: Option<Account>, conn: ConnId, ip: IpAddr) -> PageSeek {
        PageSeek {
            pools,
            account,
            conn,
            ip,
            waiting: None,
        }
    }

    fn seeker(&self) -> Seeker {
        match &self.account {
            Some(account) => Seeker::Account(account.id),
            None => Seeker::Anonymous(self.conn),
        }
    }

    fn page(&self) -> Page<'_> {
        Page {
            account: self.account.as_ref(),
            conn: self.conn,
            ip: self.ip,
        }
    }

    /// Carries out one request of the page; what the page is told (nothing for a `pool_out`
    /// that comes too late: the seek is being paired, and its game follows).
    pub async fn request(
        &mut self,
        store: &dyn Store,
        request: PoolRequest,
    ) -> Result<Option<PoolMsg>, Refusal> {
        match request {
            PoolRequest::In(key) => {
                playban::check::ban_refusal(store, self.account.as_ref()).await?;
                let waiting = match self.pools.remote_owner() {
                    Some((link, owner)) => {
                        let page = wire_page(&link, self.page());
                        let told = self.pools.join_remote((link, owner), page, key).await?;
                        Waiting::Remote(told)
                    }
                    None => {
                        // The account's blocks are read by the join (issue 32).
                        let blocking = HashSet::new();
                        let paired = self.pools.join(store, key, self.page(), blocking).await?;
                        Waiting::Local(paired)
                    }
                };
                self.waiting = Some((key, waiting));
                Ok(Some(PoolMsg::PoolJoined(key.into())))
            }
            // The lobby channel's own business: it forwards the counts.
            PoolRequest::Watch => Ok(None),
            PoolRequest::Out => {
                let Some((key, waiting)) = &self.waiting else {
                    return Ok(None);
                };
                let key = *key;
                let left = match waiting {
                    Waiting::Local(_) => self.pools.leave(key, self.seeker(), self.conn),
                    Waiting::Remote(_) => match self.pools.remote_owner() {
                        Some((link, owner)) => {
                            let page = wire_page(&link, self.page());
                            self.pools.leave_remote((link, owner), page, key).await
                        }
                        None => false,
                    },
                };
                if !left {
                    // A wave took it: the game is being made.
                    return Ok(None);
                }
                self.waiting = None;
                Ok(Some(left_msg(key, LeftReason::Cancelled)))
            }
        }
    }

    /// What happens next to the waiting seek, as the text to send the page: its game, or its
    /// replacement by another page of the same account (or, several nodes, its end with the
    /// pools' owner). Never ready while nothing waits.
    pub async fn next(&mut self) -> String {
        let Some((key, waiting)) = self.waiting.as_mut() else {
            return std::future::pending().await;
        };
        let key = *key;
        let text = match waiting {
            Waiting::Local(paired) => match paired.await {
                Ok(SeekEnd::Paired(seat)) => paired_msg(key, seat).to_text(),
                Ok(SeekEnd::Replaced) => left_msg(key, LeftReason::Replaced).to_text(),
                Err(_) => interrupted(key).to_text(),
            },
            Waiting::Remote(told) => match told.await {
                Ok(text) => text,
                Err(_) => interrupted(key).to_text(),
            },
        };
        self.waiting = None;
        text
    }
}

impl Drop for PageSeek {
    fn drop(&mut self) {
        let Some((key, waiting)) = self.waiting.take() else {
            return;
        };
        match waiting {
            Waiting::Local(_) => {
                self.pools.leave(key, self.seeker(), self.conn);
            }
            Waiting::Remote(_) => {
                if let Some(link) = self.pools.remote.link.get() {
                    let page = wire_page(link, self.page());
                    self.pools.closed_remote(page, key);
                }
            }
        }
    }
}
