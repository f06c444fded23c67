//! The registry of live games: `DashMap<GameId, Arc<Room>>`. Finds a game (loading it from
//! the store when it is not in memory, e.g. a finished game whose room retired), starts the
//! room of a new game once the lobby's first commit is stored, rebuilds every game being
//! played at startup, ends expired games that are not in memory ([`crate::server::play::expiry`]), and
//! forgets rooms that retire (it is their [`Host`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use dashmap::DashMap;
use futures_util::future::BoxFuture;
use tokio::sync::watch;

use crate::server::cluster::games::LocalGames;
use crate::server::cluster::{self, link::Link};
use crate::server::computer;
use crate::server::computer::engine_pool::EnginePool;
use crate::server::config::Config;
use crate::server::game::policy::Downtime;
use crate::server::game::{Event, GameState, SeatUser, now_ms};
use crate::server::ids;
use crate::server::metrics::Metrics;
use crate::server::play::creation::{self, NewGame};
use crate::server::play::expiry::{Expiry, millis};
use crate::server::play::project;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::play::room::{
    Command, Host, Room, RoomDeps, SeatGrant, rating_now, replay_history,
};
use crate::server::play::schedule::{Schedule, WakeGame, change_after, change_between};
use crate::server::players::account::Account;
use crate::server::players::rating::Speed;
use crate::server::store::{
    Claim, Commit, DeadlineChange, Fence, GameStatus, Store, StoreError, codec,
};

/// Open games read from the store per expiry page.
const EXPIRY_PAGE: u32 = 256;

/// Pages per expiry pass: bounds one pass (the next pass goes on where it stopped).
const EXPIRY_PAGES: usize = 64;

pub struct Rooms {
    map: DashMap<String, Arc<Room>>,
    pub store: Arc<dyn Store>,
    pub config: Arc<Config>,
    pub metrics: Arc<Metrics>,
    /// Where every engine search of the server runs (computer moves, analysis).
    pub engines: Arc<EnginePool>,
    shutdown: watch::Receiver<bool>,
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
        if let Some(rooms) = self.0.upgrade() {
            rooms.remove(id, instance);
        }
    }

    fn start(&self, state: GameState, recent: Vec<(u64, String)>) {
        if let Some(rooms) = self.0.upgrade() {
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

    fn turn_changed(&self, users: &[crate::server::players::account::UserId]) {
        if let Some(rooms) = self.0.upgrade() {
            for user in users {
                rooms.your_turn.notify(*user);
            }
        }
    }
}

impl Rooms {
    pub fn new(
        store: Arc<dyn Store>,
        config: Arc<Config>,
        metrics: Arc<Metrics>,
        shutdown: watch::Receiver<bool>,
    ) -> Arc<Rooms> {
        let engines = Arc::new(EnginePool::new(config.engine_threads, Arc::clone(&metrics)));
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

    /// Forgets a room, unless a newer room for the same game replaced it.
    pub fn remove(&self, id: &str, instance: u64) {
        self.map.remove_if(id, |_, room| room.instance == instance);
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
                seat,
                self.config.outgoing_queue,
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

    /// Several nodes: claims game `id` for this node and runs its room, or relays it to the
    /// node that holds it. Claims of one game on this node are serialized.
    async fn claim_or_relay(
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

    async fn claim_locked(&self, id: &str, link: &Arc<Link>) -> Result<Option<Arc<Room>>, Refusal> {
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
    async fn run_owned(
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

    async fn adopt_locked(&self, id: &str, link: &Arc<Link>) -> Result<Option<Arc<Room>>, Refusal> {
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
    async fn claim_new(
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

    pub fn expiry(&self) -> Expiry {
        Expiry::from_config(&self.config)
    }

    /// Startup: reads the store's turn-deadline index into the schedule, ends the expired
    /// games in one pass without keeping them in memory, and rebuilds every other live game
    /// being played. Open games stay in the store until someone asks for one (they have no
    /// timers); so do correspondence games being played (the schedule loads one when its
    /// deadline comes). Returns how many games were rebuilt.
    pub async fn restore_unfinished(&self) -> Result<usize, StoreError> {
        let deadlines = self.store.turn_deadlines().await?;
        let scheduled = deadlines.len();
        let skipped = self.schedule.load(deadlines);
        if skipped > 0 {
            tracing::warn!(
                skipped,
                "turn deadlines of ids that are no game id were skipped"
            );
        }
        if scheduled > 0 {
            tracing::info!(scheduled, "correspondence deadlines scheduled");
        }
        let expired_open = self.expire_stale_open().await?;
        if self.cluster.get().is_some() {
            // Several nodes: the games being played are owned by the nodes that run them;
            // those whose owner is gone are adopted by the orphan sweep.
            if expired_open > 0 {
                tracing::info!(expired_open, "expired games ended at startup");
            }
            return Ok(0);
        }
        let games = self.store.load_playing().await?;
        let now = Instant::now();
        let at = now_ms();
        let mut count = 0;
        // Issued together, so that the store writes them in one batch.
        let mut endings = Vec::new();
        for (listing, texts) in games {
            match replay_stored(&listing.id, &texts, &self.config, now) {
                // A correspondence game the index does not hold (the store filters indexed
                // ones out): scheduled from its log, not kept in memory.
                Ok((state, _)) if state.days_per_turn().is_some() => {
                    let change = change_between(None, state.turn_deadline_ms());
                    self.schedule.apply(&listing.id, change);
                }
                Ok((state, recent)) => match self.expiry_commit(&state, at) {
                    Some(commit) => {
                        let deadline = commit.deadline;
                        endings.push((listing.id, deadline, self.store.commit(commit)))
                    }
                    None => {
                        self.install(state, recent, None);
                        count += 1;
                    }
                },
                Err(error) => {
                    tracing::error!(game = %listing.id, %error, "skipping a game that does not replay")
                }
            }
        }
        let expired_idle = endings.len();
        for (id, deadline, ending) in endings {
            // The game stays unfinished in the store; its room ends it when it is next loaded.
            match ending.await {
                Ok(()) => self.schedule.apply(&id, deadline),
                Err(error) => tracing::warn!(game = %id, %error, "could not end an expired game"),
            }
        }
        if expired_open + expired_idle > 0 {
            tracing::info!(expired_open, expired_idle, "expired games ended at startup");
        }
        Ok(count)
    }

    /// The commit that ends `state` by expiry at `at`; `None` if it has not expired.
    fn expiry_commit(&self, state: &GameState, at: i64) -> Option<Commit> {
        let end = self.expiry().due(state, at)?;
        let listing = project::listing_after(state, std::slice::from_ref(&end));
        Some(Commit {
            game_id: state.id.clone(),
            first_seq: state.version() + 1,
            events: vec![codec::encode(end.event())],
            listing,
            rating: project::rated_end(state, std::slice::from_ref(&end)),
            deadline: change_after(state, std::slice::from_ref(&end), Instant::now()),
            fence: None,
        })
    }

    /// Ends, straight in the store, the open games past their time to live that are not in
    /// memory (a live room ends its own game at its timer). Returns how many were ended.
    ///
    /// A game loaded into a room meanwhile is safe: the first of the two commits wins the
    /// sequence check and the room follows the store.
    pub async fn expire_stale_open(&self) -> Result<usize, StoreError> {
        let now = Instant::now();
        let at = now_ms();
        let cutoff = at.saturating_sub(millis(self.config.open_game_ttl));
        let mut ended = 0;
        let mut offset = 0;
        for _ in 0..EXPIRY_PAGES {
            let page = self
                .store
                .load_stale(GameStatus::Open, cutoff, EXPIRY_PAGE, offset)
                .await?;
            let full = page.len() == EXPIRY_PAGE as usize;
            let mut endings = Vec::new();
            for (listing, texts) in page {
                let commit = if self.map.contains_key(&listing.id) {
                    None
                } else {
                    replay_stored(&listing.id, &texts, &self.config, now)
                        .ok()
                        .and_then(|(state, _)| self.expiry_commit(&state, at))
                };
                match commit {
                    Some(commit) => {
                        let game = (commit.game_id.clone(), commit.deadline);
                        endings.push((game, self.store.commit(commit)))
                    }
                    // Stays in the stale set: the next page starts after it.
                    None => offset += 1,
                }
            }
            for ((game, deadline), ending) in endings {
                match ending.await {
                    Ok(()) => {
                        self.schedule.apply(&game, deadline);
                        ended += 1;
                    }
                    Err(error) => {
                        tracing::warn!(%error, "could not end an expired open game");
                        offset += 1;
                    }
                }
            }
            if !full {
                break;
            }
        }
        Ok(ended)
    }

    /// The schedule found game `id` due: loads its room (from the store if it retired), whose
    /// timer then flags it through the ordinary timeout path. A failure is logged; the
    /// schedule comes back to the game later ([`crate::server::play::schedule::RECHECK`]).
    pub async fn wake_for_deadline(&self, id: &str) {
        match self.get(id).await {
            Ok(Some(_)) => {}
            Ok(None) => {
                tracing::warn!(game = id, "a scheduled game is not in the store");
                self.schedule.apply(id, DeadlineChange::Cleared);
            }
            Err(_) => tracing::warn!(game = id, "could not load a game whose deadline is due"),
        }
    }

    /// Starts the task of the correspondence schedule (until shutdown).
    pub fn spawn_schedule(self: &Arc<Self>) {
        self.schedule
            .spawn(Arc::clone(self) as Arc<dyn WakeGame>, self.shutdown.clone());
    }

    /// Runs [`Rooms::expire_stale_open`] every quarter of the open-game time to live (between
    /// 0.1 s and 60 s) until shutdown.
    pub fn spawn_sweeper(self: &Arc<Self>) {
        let rooms = Arc::clone(self);
        let mut shutdown = self.shutdown.clone();
        let period = (self.config.open_game_ttl / 4)
            .clamp(Duration::from_millis(100), Duration::from_secs(60));
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = shutdown.changed() => break,
                    _ = tokio::time::sleep(period) => {
                        if let Err(error) = rooms.expire_stale_open().await {
                            tracing::warn!(%error, "expiring open games failed");
                        }
                    }
                }
            }
        });
    }

    /// Creates a game from an HTTP request (`account`: the creator, when signed in, who then
    /// owns the seat): the lobby checks it, the store commits its first event, then its room
    /// starts.
    pub async fn create(
        &self,
        request: NewGame,
        account: Option<Account>,
    ) -> Result<SeatGrant, Refusal> {
        let user = match account {
            Some(account) => {
                let unrated = SeatUser::of(&account, None);
                // The rating at this moment for the game's speed (a game with a clock).
                let rating = match request.clock {
                    Some(clock) => {
                        Some(rating_now(&*self.store, account.id, Speed::of(clock)).await?)
                    }
                    None => None,
                };
                Some(SeatUser { rating, ..unrated })
            }
            None => None,
        };
        let token = ids::new_token();
        let (events, color) =
            creation::first_events(&request, ids::token_hash(&token), user, now_ms())?;
        let prepared = creation::prepare(events, &self.config)?;
        let deadline = prepared.commit.deadline;
        let started = Instant::now();
        let result = self.store.commit(prepared.commit).await;
        self.metrics.commit_latency.observe(started.elapsed());
        result.map_err(store_refusal)?;
        let id = prepared.state.id.clone();
        self.schedule.apply(&id, deadline);
        if let Err(error) = self.claim_new(prepared.state, prepared.recent).await {
            // Committed: the game exists; the next node that needs it claims it.
            tracing::warn!(game = %id, %error, "could not claim a new game");
        }
        Ok(SeatGrant {
            url: format!("/game/{id}"),
            id,
            color: color.into(),
            token,
        })
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
