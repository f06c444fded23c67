//! One lobby page's seek: the page's `pool_in` and `pool_out`, what it is told back, and the
//! seek withdrawn when the page closes (its lobby channel holds a [`PageSeek`], whose drop
//! leaves the queue at once: no grace, a closed page cannot play).

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::Arc;

use tokio::sync::oneshot;

use crate::server::play::protocol::Refusal;
use crate::server::play::room::{ConnId, SeatGrant};
use crate::server::players::account::Account;
use crate::server::store::Store;

use super::catalog::QueueKey;
use super::msg::{LeftMsg, LeftReason, PairedMsg, PoolMsg, PoolRequest};
use super::queue::Seeker;
use super::{Page, Pools};

/// A lobby page's seek, at most one at a time.
pub struct PageSeek {
    pools: Arc<Pools>,
    account: Option<Account>,
    conn: ConnId,
    ip: IpAddr,
    waiting: Option<(QueueKey, oneshot::Receiver<SeatGrant>)>,
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

    /// Carries out one request of the page; what the page is told (nothing for a `pool_out`
    /// that comes too late: the seek is being paired, and its game follows).
    pub async fn request(
        &mut self,
        store: &dyn Store,
        request: PoolRequest,
    ) -> Result<Option<PoolMsg>, Refusal> {
        match request {
            PoolRequest::In(key) => {
                // Blocks come with issue 32; the rule that honours them is in the queue.
                let blocking = HashSet::new();
                let page = Page {
                    account: self.account.as_ref(),
                    conn: self.conn,
                    ip: self.ip,
                };
                let paired = self.pools.join(store, key, page, blocking).await?;
                self.waiting = Some((key, paired));
                Ok(Some(PoolMsg::PoolJoined(key.into())))
            }
            PoolRequest::Out => {
                let Some((key, _)) = self.waiting else {
                    return Ok(None);
                };
                if !self.pools.leave(key, self.seeker(), self.conn) {
                    // A wave took it: the game is being made.
                    return Ok(None);
                }
                self.waiting = None;
                Ok(Some(left(key, LeftReason::Cancelled)))
            }
        }
    }

    /// What happens next to the waiting seek: its game, or its replacement by another page of
    /// the same account. Never ready while nothing waits.
    pub async fn next(&mut self) -> PoolMsg {
        let Some((key, paired)) = self.waiting.as_mut() else {
            return std::future::pending().await;
        };
        let key = *key;
        let outcome = paired.await;
        self.waiting = None;
        match outcome {
            Ok(seat) => PoolMsg::PoolPaired(PairedMsg {
                pool: key.pool().id.to_owned(),
                rated: key.rated,
                game: seat.id,
                url: seat.url,
                color: seat.color,
                token: seat.token,
            }),
            Err(_) => left(key, LeftReason::Replaced),
        }
    }
}

fn left(key: QueueKey, reason: LeftReason) -> PoolMsg {
    PoolMsg::PoolLeft(LeftMsg {
        pool: key.pool().id.to_owned(),
        rated: key.rated,
        reason,
    })
}

impl Drop for PageSeek {
    fn drop(&mut self) {
        if let Some((key, _)) = self.waiting.take() {
            self.pools.leave(key, self.seeker(), self.conn);
        }
    }
}
