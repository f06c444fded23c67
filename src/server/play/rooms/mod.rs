//! The registry of live games: `DashMap<GameId, Arc<Room>>`. Finds a game (loading it from
//! the store when it is not in memory, e.g. a finished game whose room retired), starts a room
//! and forgets the rooms that retire (it is their [`Host`]). Its other jobs are files of their
//! own, each an `impl Rooms`: who runs a game on several nodes (`ownership.rs`), recovery at
//! startup, the expiry sweeper and the schedule's wake-ups (`restore.rs`), a new game
//! (`create.rs`).

mod create;
mod ownership;
mod restore;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Instant;

use dashmap::DashMap;
use futures_util::future::BoxFuture;
use tokio::sync::watch;

use crate::server::cluster::games::LocalGames;
use crate::server::cluster::link::Link;
use crate::server::computer;
use crate::server::computer::engine_pool::EnginePool;
use crate::server::config::Config;
use crate::server::deps::Deps;
use crate::server::game::policy::Downtime;
use crate::server::game::{Event, GameState};
use crate::server::ids;
use crate::server::metrics::Metrics;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::play::room::{Host, Room, RoomDeps, replay_history};
use crate::server::play::schedule::{Schedule, WakeGame};
use crate::server::store::{DeadlineChange, Fence, GameStatus, Store, StoreError, codec};

pub struct Rooms {
    map: DashMap<String, Arc<Room>>,
    pub store: Arc<dyn Store>,
    pub config: Arc<Config>,
    pub metrics: Arc<Metrics>,
    /// Where every engine search of the server runs (computer moves, analysis).
    pub engines: Arc<EnginePool>,
    shutdown: watch::Receiver<bool>,
    /// What one client may hold and send at once (its game sockets, its chat lines).
    pub clients: Arc<crate::server::per_client::PerClient>,
    /// The turn deadlines of the correspondence games being played, in or out of memory.
    pub schedule: Arc<Schedule>,
    /// Accounts whose `your_turn` list may have changed ([`crate::server::play::turn_signal`]).
    pub your_turn: crate::server::play::turn_signal::TurnSignal,
    next_instance: AtomicU64,
    /// Itself, for the rooms' [`Host`] (a weak reference: rooms do not keep the registry).
    me: Weak<Rooms>,
    /// Several nodes: this node's bus, lane and relays; unset on one node.
    pub cluster: OnceLock<Arc<Link>>,
    /// Several nodes: one claim at a time per game on this node.
    claiming: DashMap<String, Arc<tokio::sync::Mutex<()>>>,
}

fn store_refusal(error: StoreError) -> Refusal {
    tracing::warn!(%error, "store failure");
    Refusal::new(ErrorCode::StoreFailure, "the game store failed; try again")
}

/// A stored log as events and the state they make, with the public messages of the last ones.
fn replay_stored(
    id: &str,
    texts: &[String],
    config: &Config,
    now: Instant,
) -> Result<(GameState, Vec<(u64, String)>), String> {
    let events = texts
        .iter()
        .map(|t| codec::decode(t))
        .collect::<Result<Vec<Event>, _>>()
        .map_err(|e| e.to_string())?;
    replay_history(id, &events, config.first_move, now).map_err(|e| e.to_string())
}

/// The registry as the rooms see it.
struct Registry(Weak<Rooms>);

impl Host for Registry {
    fn retired(&self, id: &str, instance: u64) {
        if let Some(rooms) = self.0.upgrade()
            && rooms.remove(id, instance)
        {
            rooms.clients.games.retired(id);
        }
    }

    fn start(&self, state: GameState, recent: Vec<(u64, String)>, rematch_of: &str) {
        if let Some(rooms) = self.0.upgrade() {
            // The rematch of a game against the computer takes the finished game's slot.
            if let Some(computer) = state.computer().filter(|_| !state.is_finished()) {
                let player = state.user(!computer.color).map(|user| user.id);
                rooms.clients.games.rematch(rematch_of, &state.id, player);
            }
            match rooms.cluster.get() {
                None => {
                    rooms.install(state, recent, None);
                }
                // Several nodes: the node that made the rematch claims it (its first commit is
                // durable: a failed claim leaves it to the next node that needs it).
                Some(_) => {
                    tokio::spawn(async move {
                        let id = state.id.clone();
                        if let Err(error) = rooms.claim_new(state, recent).await {
                            tracing::warn!(game = %id, %error, "could not claim a new game");
                        }
                    });
                }
            }
        }
    }

    fn turn_deadline(&self, id: &str, change: DeadlineChange) {
        if let Some(rooms) = self.0.upgrade() {
            rooms.schedule.apply(id, change);
        }
    }

    fn status_changed(&self, id: &str, status: GameStatus) {
        if let Some(rooms) = self.0.upgrade() {
            rooms.clients.games.follow(id, status);
        }
    }

    fn turn_changed(&self, users: &[crate::server::players::account::UserId]) {
        if let Some(rooms) = self.0.upgrade() {
            for user in users {
                rooms.your_turn.notify(*user);
            }
        }
    }
}

impl Rooms {
    /// The registry of `deps`'s games; `engines` runs the computer seats' searches (built by
    /// the composition root: it starts threads of its own).
    pub fn new(deps: &Deps, engines: Arc<EnginePool>) -> Arc<Rooms> {
        let Deps {
            store,
            config,
            metrics,
            shutdown,
            clients,
        } = deps.clone();
        let schedule = Arc::new(Schedule::new(Downtime {
            boot_ms: config.boot_ms,
            grace: config.correspondence_grace,
        }));
        Arc::new_cyclic(|me| Rooms {
            map: DashMap::new(),
            store,
            config,
            metrics,
            engines,
            shutdown,
            clients,
            schedule,
            your_turn: Default::default(),
            next_instance: AtomicU64::new(1),
            me: me.clone(),
            cluster: OnceLock::new(),
            claiming: DashMap::new(),
        })
    }

    pub fn live_games(&self) -> usize {
        self.map.len()
    }

    /// The rooms this node runs (not its relays).
    pub fn owned_rooms(&self) -> Vec<Arc<Room>> {
        self.map
            .iter()
            .filter(|e| !e.value().relay)
            .map(|e| Arc::clone(e.value()))
            .collect()
    }

    /// Forgets a room, unless a newer room for the same game replaced it; whether it did.
    pub fn remove(&self, id: &str, instance: u64) -> bool {
        self.map
            .remove_if(id, |_, room| room.instance == instance)
            .is_some()
    }

    fn deps(&self) -> RoomDeps {
        RoomDeps {
            store: Arc::clone(&self.store),
            config: Arc::clone(&self.config),
            metrics: Arc::clone(&self.metrics),
            host: Arc::new(Registry(self.me.clone())),
            shutdown: self.shutdown.clone(),
        }
    }

    /// Starts a room for `state` unless one is already live (then that one wins), and the
    /// driver of its computer seat when the game has one that still has something to do
    /// (play, or answer a rematch offer).
    fn install(
        &self,
        state: GameState,
        recent: Vec<(u64, String)>,
        fence: Option<Fence>,
    ) -> Arc<Room> {
        let id = state.id.clone();
        let computer = state
            .computer()
            .filter(|_| !state.is_finished() || state.rematch_id().is_none());
        let mut started = None;
        let entry = self.map.entry(id);
        let room = entry.or_insert_with(|| {
            let instance = self.next_instance.fetch_add(1, Ordering::Relaxed);
            let room = Room::spawn(self.deps(), state, recent, instance, fence);
            started = Some(Arc::clone(&room));
            room
        });
        let room = Arc::clone(room.value());
        if let (Some(new_room), Some(seat)) = (started, computer) {
            computer::spawn(
                new_room,
                Arc::clone(&self.engines),
                Arc::clone(&self.metrics),
                seat,
                self.config.outgoing_queue,
                self.config.computer_pace,
            );
        }
        room
    }

    /// The live room of a game, loading it from the store if needed; `None` for an unknown id.
    pub async fn get(&self, id: &str) -> Result<Option<Arc<Room>>, Refusal> {
        if !ids::is_game_id(id) {
            return Ok(None);
        }
        let live = self.map.get(id).map(|room| Arc::clone(room.value()));
        if let Some(room) = live {
            if !room.is_closed() {
                return Ok(Some(room));
            }
            // A room retires (or gives up) by removing itself from the map first, and
            // shutdown stops everything: a stopped room still in the map died, i.e. its task
            // panicked outside the guard of the room's handler. Forget it and start the game
            // again from the store, so that a bug never leaves a game unplayable until the
            // next restart.
            if !*self.shutdown.borrow() && !room.relay {
                tracing::error!(
                    game = id,
                    room = room.instance,
                    "the game's room task died; restarting it from the store"
                );
                self.metrics.rooms_restarted.fetch_add(1, Ordering::Relaxed);
            }
            self.remove(id, room.instance);
        }
        match self.cluster.get() {
            None => self.load(id, None).await,
            Some(link) => self.claim_or_relay(id, link).await,
        }
    }

    /// Loads game `id` from the store into a room (under `fence`, on several nodes).
    async fn load(&self, id: &str, fence: Option<Fence>) -> Result<Option<Arc<Room>>, Refusal> {
        let Some((_, texts)) = self.store.load_game(id).await.map_err(store_refusal)? else {
            return Ok(None);
        };
        let (state, recent) =
            replay_stored(id, &texts, &self.config, Instant::now()).map_err(|error| {
                tracing::error!(game = id, %error, "stored game does not replay");
                Refusal::new(ErrorCode::StoreFailure, "the stored game is damaged")
            })?;
        Ok(Some(self.install(state, recent, fence)))
    }
}

impl WakeGame for Rooms {
    fn wake_for_deadline<'a>(&'a self, id: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(Rooms::wake_for_deadline(self, id))
    }
}

impl LocalGames for Rooms {
    fn room<'a>(&'a self, game: &'a str) -> BoxFuture<'a, Result<Option<Arc<Room>>, Refusal>> {
        Box::pin(self.get(game))
    }

    fn forget(&self, game: &str, instance: u64) {
        self.remove(game, instance);
    }

    fn config(&self) -> &Config {
        &self.config
    }

    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}
