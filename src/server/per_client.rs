//! What one client may hold and send at once, over all its connections (issue 34): an address
//! that opens fresh sockets gets no more than one that keeps one. A client is its address (an
//! IPv6 /64: [`crate::server::web::ratelimit::Client`]) and, when signed in, its account too;
//! each limit holds for both. The address is the one the edge resolved, behind a trusted proxy
//! too ([`crate::server::config`], `--trusted-proxies`).
//!
//! | limit | default | flag |
//! |---|---|---|
//! | lobby channels open at once | 10 | `--lobby-sockets-per-client` |
//! | game sockets open at once | 64 | `--game-sockets-per-client` |
//! | chat lines in one room | 6 per 5 s | `--chat-room-burst-per-client` |
//! | chat lines over all rooms | 15 per 5 s | `--chat-burst-per-client` |
//!
//! One [`PerClient`] per server, shared by the lobby and the games (a chat line in either
//! counts towards the same total).

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::server::chat::flood::{ChatFlood, FloodLimits};
use crate::server::config::Config;
use crate::server::domain::user::UserId;
use crate::server::metrics::Metrics;
use crate::server::web::holdings::{Hold, Holdings};
use crate::server::web::ratelimit::Holder;
use crate::server::web::{ApiError, EdgeCode};

/// A socket's share of its client's cap, given back when the socket ends.
pub type SocketHold = Hold<Holder<UserId>>;

/// How long a client refused a socket is told to wait: a socket of its own must close first,
/// which the server cannot foresee; a page that retries sooner is refused again at no cost.
const SOCKET_RETRY_SECS: u64 = 10;

pub struct PerClient {
    pub chat: ChatFlood,
    lobby_sockets: Arc<Holdings<Holder<UserId>>>,
    game_sockets: Arc<Holdings<Holder<UserId>>>,
    metrics: Arc<Metrics>,
}

/// Which kind of socket a client asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SocketKind {
    Lobby,
    Game,
}

impl PerClient {
    pub fn new(config: &Config, metrics: Arc<Metrics>) -> PerClient {
        let limits = &config.clients;
        PerClient {
            chat: ChatFlood::new(FloodLimits {
                room_burst: limits.chat_room_burst,
                all_burst: limits.chat_burst,
                window_secs: config.chat_window.as_secs_f64(),
            }),
            lobby_sockets: Holdings::new(limits.lobby_sockets),
            game_sockets: Holdings::new(limits.game_sockets),
            metrics,
        }
    }

    /// A socket of `kind` for the client at `ip` (signed in as `account`), or `429
    /// rate_limited` with a `Retry-After` when it already holds its cap.
    pub fn socket(
        &self,
        kind: SocketKind,
        ip: IpAddr,
        account: Option<UserId>,
    ) -> Result<SocketHold, ApiError> {
        let (holdings, what) = match kind {
            SocketKind::Lobby => (&self.lobby_sockets, "lobby channels"),
            SocketKind::Game => (&self.game_sockets, "game sockets"),
        };
        holdings.take(Holder::of(ip, account)).map_err(|full| {
            self.metrics.rate_limited.fetch_add(1, Ordering::Relaxed);
            ApiError::http(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                EdgeCode::RateLimited,
                format!(
                    "at most {} {what} open at once from one address or account; close one first",
                    full.max
                ),
            )
            .retry_after(SOCKET_RETRY_SECS)
        })
    }
}
