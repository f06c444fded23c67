//! What one client may hold and send at once, over all its connections (issues 34, 35): an address
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
//! | chat: a repeated line or more than 5 lines in 10 s silence the writer (its account, else its address) | 60 s | `--chat-flood-lines`, `--chat-flood-secs`, `--chat-silence-secs` |
//! | chat: a line holding a word of the word list is not sent | no list | `--chat-word-list` |
//! | open games (nobody joined yet) | 3 | `--open-games-per-client` |
//! | games against the computer not finished | 4 | `--computer-games-per-client` |
//!
//! One [`PerClient`] per server, shared by the lobby and the games (a chat line in either
//! counts towards the same total). On several nodes each node counts what is made or opened
//! on it. Pool seeks are counted by the pools (4 per address; an account seeks once).
//!
//! | concept | module |
//! |---|---|
//! | the games a client holds, and when a game gives its slot back | [`games`] |

pub mod games;

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::server::chat::flood::{ChatFlood, FloodLimits};
use crate::server::chat::guard::ChatGuard;
use crate::server::config::Config;
use crate::server::domain::user::UserId;
use crate::server::metrics::Metrics;
use crate::server::web::holdings::{Full, Hold, Holdings};
use crate::server::web::ratelimit::Holder;
use crate::server::web::{ApiError, EdgeCode};
use games::{GameHold, GameHolds, GameKind};

/// A socket's share of its client's cap, given back when the socket ends.
pub type SocketHold = Hold<Holder<UserId>>;

/// How long a client refused a socket is told to wait: a socket of its own must close first,
/// which the server cannot foresee; a page that retries sooner is refused again at no cost.
const SOCKET_RETRY_SECS: u64 = 10;

/// How long a client refused a game is told to wait: one of its games must be joined, aborted
/// or finished first, which takes longer than a socket closing and cannot be foreseen either.
const GAME_RETRY_SECS: u64 = 30;

pub struct PerClient {
    pub chat: ChatFlood,
    /// The chat rules that need no moderator (issue 32): the word list and the flood rule.
    pub chat_rules: ChatGuard,
    lobby_sockets: Arc<Holdings<Holder<UserId>>>,
    game_sockets: Arc<Holdings<Holder<UserId>>>,
    /// The open games and the games against the computer of each client.
    pub games: GameHolds,
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
            chat_rules: ChatGuard::new(limits.chat_words.clone(), limits.chat_flood),
            lobby_sockets: Holdings::new(limits.lobby_sockets),
            game_sockets: Holdings::new(limits.game_sockets),
            games: GameHolds::new(limits.open_games, limits.computer_games),
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
        holdings.take(Holder::of(ip, account)).map_err(|Full { max }| {
            self.refused(
                format!("at most {max} {what} open at once from one address or account; close one first"),
                SOCKET_RETRY_SECS,
            )
        })
    }

    /// A slot for a new game of `kind` made by the client at `ip` (signed in as `account`),
    /// or `429 rate_limited` with a `Retry-After` when it already holds its cap.
    pub fn new_game(
        &self,
        kind: GameKind,
        ip: IpAddr,
        account: Option<UserId>,
    ) -> Result<GameHold, ApiError> {
        self.games.take(kind, ip, account).map_err(|Full { max }| {
            let message = match kind {
                GameKind::Open => format!(
                    "at most {max} open games at once from one address or account; cancel one or wait for it to be joined"
                ),
                GameKind::Computer => format!(
                    "at most {max} games against the computer at once from one address or account; finish or resign one first"
                ),
            };
            self.refused(message, GAME_RETRY_SECS)
        })
    }

    fn refused(&self, message: String, retry_after_secs: u64) -> ApiError {
        self.metrics.rate_limited.fetch_add(1, Ordering::Relaxed);
        ApiError::http(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            EdgeCode::RateLimited,
            message,
        )
        .retry_after(retry_after_secs)
    }
}
