//! What the link, its relays and its bridge need of this node's registry of games, which
//! [`crate::server::play::rooms::Rooms`] implements: the registry holds the link, so the link reaches
//! the games through this trait rather than naming the registry (no import cycle).

use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::server::config::Config;
use crate::server::metrics::Metrics;
use crate::server::play::protocol::Refusal;
use crate::server::play::room::Room;

pub trait LocalGames: Send + Sync + 'static {
    /// Game `game`'s room on this node: its own room or a relay, loaded or claimed now if
    /// needed; `None` for no such game.
    fn room<'a>(&'a self, game: &'a str) -> BoxFuture<'a, Result<Option<Arc<Room>>, Refusal>>;

    /// Forgets room `instance` of `game`, unless a newer room for the game replaced it.
    fn forget(&self, game: &str, instance: u64);

    fn config(&self) -> &Config;

    fn metrics(&self) -> &Metrics;
}
